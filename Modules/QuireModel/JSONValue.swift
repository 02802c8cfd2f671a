/// A JSON value as Lexical documents use it.
///
/// Objects keep their keys in input order (so exported documents read like their source), but
/// equality is by value: two objects with the same members in a different order are equal, and a
/// number is equal to another number of the same mathematical value whether it was written as an
/// integer or not.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The name of this value's JSON type, as error messages spell it.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number(let number): number.isInteger ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string payload, or nil when this is not a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer payload, or nil when this is not a number with an integral value.
    public var intValue: Int? {
        if case .number(let number) = self { return number.intValue }
        return nil
    }

    /// The object payload, or nil when this is not an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The array payload, or nil when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }
}

/// A JSON number: an exact integer when the source had one that fits in 64 bits, a `Double`
/// otherwise.
public enum JSONNumber: Sendable, Hashable, CustomStringConvertible {
    case integer(Int)
    case double(Double)

    /// Whether the number has an integral value.
    public var isInteger: Bool { intValue != nil }

    /// The value as an `Int` when it is integral and in range.
    public var intValue: Int? {
        switch self {
        case .integer(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int(exactly: value) else { return nil }
            return exact
        }
    }

    /// The value as a `Double`.
    public var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        }
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if let left = lhs.intValue, let right = rhs.intValue { return left == right }
        return lhs.doubleValue == rhs.doubleValue
    }

    public func hash(into hasher: inout Hasher) {
        if let integer = intValue { hasher.combine(integer) } else { hasher.combine(doubleValue) }
    }

    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .double(let value):
            if let integer = intValue { return String(integer) }
            return value.isFinite ? "\(value)" : "null"
        }
    }
}

/// A JSON object whose members keep their input order; equality ignores that order.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in insertion order. Keys are unique.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// An object with `members`; when a key repeats, the last value wins, as in JavaScript.
    public init(_ members: [(key: String, value: JSONValue)]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for member in members { self[member.key] = member.value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }

    /// The number of members.
    public var count: Int { members.count }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// Reads or writes a member; writing nil removes it.
    ///
    /// - Complexity: O(m) for m members; Lexical nodes have fewer than a dozen, where a scan beats
    ///   hashing.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// Appends a member without checking for an existing key; the caller guarantees uniqueness.
    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine the members' hashes commutatively.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}
