/// A JSON value: the one "any value" type of Quire. Node fields and plugin options are JSON
/// values, and CRDT values and text attributes convert through it (the article "The one value
/// mapping" of this module lists every conversion).
///
/// Objects keep their keys in input order (so exported documents read like their source), but
/// equality is by value: two objects with the same members in a different order are equal, and a
/// number is equal to another number of the same mathematical value whether it was written as an
/// integer or not. ``isIdentical(to:)`` also compares member order and number representation.
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

    /// Moves the object payload out, leaving null, or returns nil (changing nothing) when this
    /// is not an object. When `self` held the only reference to the object's storage, the
    /// object returned holds it alone, so changing it changes it in place rather than copying.
    ///
    /// - Complexity: O(1).
    package mutating func takeObject() -> JSONObject? {
        guard case .object(let object) = self else { return nil }
        self = .null
        return object
    }

    /// Moves the array payload out, leaving null, or returns nil (changing nothing) when this is
    /// not an array; as ``takeObject()``, an array held only by `self` stays unshared.
    ///
    /// - Complexity: O(1).
    package mutating func takeArray() -> [JSONValue]? {
        guard case .array(let array) = self else { return nil }
        self = .null
        return array
    }

    /// The array payload, or nil when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The boolean payload, or nil when this is not a boolean.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The number payload as a `Double`, or nil when this is not a number.
    public var doubleValue: Double? {
        if case .number(let number) = self { return number.doubleValue }
        return nil
    }

    /// Whether the two values are equal and also written alike: the same number representation
    /// (an integer is not identical to a double of the same value, `-0.0` not to `0.0`) and
    /// object members in the same order. Round-trip tests use it; `==` compares values.
    ///
    /// - Complexity: O(n) in the size of the smaller value.
    public func isIdentical(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let left), .bool(let right)): return left == right
        case (.number(let left), .number(let right)): return left.isIdentical(to: right)
        case (.string(let left), .string(let right)): return left == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isIdentical(to: $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count
                && zip(left.members, right.members).allSatisfy { $0.key == $1.key && $0.value.isIdentical(to: $1.value) }
        default: return false
        }
    }
}

/// A JSON number: an exact integer when the source had one that fits in 64 bits, a `Double`
/// otherwise (a fraction, an exponent, `-0`, or an integer beyond 64 bits, which reads as the
/// nearest double).
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

    /// Whether the two numbers are the same and written alike: both integers of the same value,
    /// or both doubles with the same bits (any NaN matches any NaN).
    public func isIdentical(to other: JSONNumber) -> Bool {
        switch (self, other) {
        case (.integer(let left), .integer(let right)): return left == right
        case (.double(let left), .double(let right)): return left.bitPattern == right.bitPattern || (left.isNaN && right.isNaN)
        default: return false
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

    /// The number as ``JSONWriter`` writes it: an integer in decimal, a double in the shortest
    /// form that reads back as the same double (always with a `.` or an exponent, so it reads back
    /// as a double: `1.0`, `1e+16`), a non-finite double as `null`, which is all JSON can say.
    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .double(let value): return value.isFinite ? value.description : "null"
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
        // Set one by one (a key given twice keeps its last value), without an array of pairs
        // made first: plugins build their fields from literals for every node they import.
        members = []
        members.reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
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
            // The byte counts first: an O(1) read that tells most keys apart without calling
            // the standard library's string comparison.
            let count = key.utf8.count
            for member in members where member.key.utf8.count == count && member.key == key { return member.value }
            return nil
        }
        set {
            if let index = index(forKey: key, hint: -1) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// An object with `members` as they are; the caller guarantees the keys are unique (the
    /// reader has checked them).
    package init(uniqueMembers members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    /// Appends a member without checking for an existing key; the caller guarantees uniqueness
    /// (the reader and the YAML loader have checked it with a hash set, in O(1) per key).
    package mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
    }

    /// The index of member `key`, looked for first at `hint`: where an object of the same shape
    /// had it (objects of one kind, such as a document's text nodes, usually list their
    /// members in one order).
    ///
    /// - Complexity: O(1) when the hint is right, O(m) for m members otherwise.
    package func index(forKey key: String, hint: Int) -> Int? {
        if hint >= 0, hint < members.count, members[hint].key == key { return hint }
        let count = key.utf8.count
        return members.firstIndex { $0.key.utf8.count == count && $0.key == key }
    }

    /// Removes the member at `index` and returns its value (moved out, not copied).
    ///
    /// - Complexity: O(m) for m members.
    @discardableResult
    package mutating func removeValue(at index: Int) -> JSONValue {
        members.remove(at: index).value
    }

    /// Removes the member `key` and returns its value (moved out, not copied), or nil when there
    /// is none.
    ///
    /// - Complexity: O(m) for m members.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> JSONValue? {
        index(forKey: key, hint: -1).map { removeValue(at: $0) }
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

/// Literals write JSON values as JSON reads: `["op": "insert", "pos": 0, "bold": true]`. An
/// integer literal is an exact integer, a float literal a double, `.null` stays explicit.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(.integer(value)) }
    public init(floatLiteral value: Double) { self = .number(.double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}
