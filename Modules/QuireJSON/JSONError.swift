/// Why JSON input was refused, and where: the byte offset, the line and column (1-based) and the
/// JSON path of the value being read (`$.root.children[0].format`).
///
/// Columns count Unicode scalars from the start of the line (a byte-order mark is not counted), so
/// they match what an editor shows for text outside the Basic Multilingual Plane only up to its
/// own convention; the byte offset is exact whatever the text.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        case unexpectedEndOfInput
        /// A byte that cannot start or continue what the grammar expects there.
        case unexpectedCharacter(UInt8)
        /// Bytes inside a string that are not UTF-8 (the offset names the first byte of the bad
        /// sequence).
        case invalidUTF8
        case invalidEscape
        case unpairedSurrogate
        case controlCharacterInString
        case invalidNumber
        /// A number whose magnitude no `Double` holds (`1e400`); reading it as infinity would
        /// lose it silently, and writing it back would give `null`.
        case numberOutOfRange
        case nestingTooDeep(limit: Int)
        case trailingCharacters
        /// An object repeats a key (the path names the repeated member).
        case duplicateKey(String)
        /// A pull decoder asked for one kind of value and the input has another.
        case typeMismatch(expected: String, found: String)
        /// A pull decoder refused a well-formed value (a negative count, an unknown name, …).
        case invalidValue(String)
    }

    public let reason: Reason
    /// Offset of the offending byte from the start of the input.
    public let byteOffset: Int
    /// 1-based line of the offending byte.
    public let line: Int
    /// 1-based column of the offending byte, in Unicode scalars.
    public let column: Int
    /// The JSON path of the value being read, `$` for the top level.
    public let path: String

    public init(reason: Reason, byteOffset: Int, line: Int, column: Int, path: String) {
        self.reason = reason
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
        self.path = path
    }

    /// What was wrong, without the position.
    public var message: String {
        switch reason {
        case .unexpectedEndOfInput: return "unexpected end of input"
        case .unexpectedCharacter(let byte):
            return byte >= 0x20 && byte < 0x7F
                ? "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))"
        case .invalidUTF8: return "invalid UTF-8"
        case .invalidEscape: return "invalid escape sequence"
        case .unpairedSurrogate: return "unpaired UTF-16 surrogate in \\u escape"
        case .controlCharacterInString: return "unescaped control character in string"
        case .invalidNumber: return "invalid number"
        case .numberOutOfRange: return "number out of the range of a 64-bit double"
        case .nestingTooDeep(let limit): return "nesting deeper than \(limit) levels"
        case .trailingCharacters: return "unexpected characters after the JSON value"
        case .duplicateKey(let key): return "duplicate key \(JSONWriter().string(.string(key)))"
        case .typeMismatch(let expected, let found): return "expected \(expected), found \(found)"
        case .invalidValue(let message): return message
        }
    }

    public var description: String {
        "JSON error at line \(line), column \(column) (byte \(byteOffset)), \(path): \(message)"
    }
}

/// A JSON path: the keys and indexes from the top-level value down to one value, written as
/// `$.root.children[0]["odd key"]`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step down.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps, outermost first.
    public var components: [Component]

    /// The top level, `$`.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// This path with `key` appended.
    public func appending(key: String) -> JSONPath { JSONPath(components + [.key(key)]) }

    /// This path with `index` appended.
    public func appending(index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

    /// `$` followed by ``relativeDescription``.
    public var description: String { "$" + relativeDescription }

    /// The steps without the leading `$`: `.name` for a key that is an identifier, `["…"]` for any
    /// other key (JSON string syntax), `[i]` for an index.
    public var relativeDescription: String {
        var text = ""
        for component in components { Self.append(component, to: &text) }
        return text
    }

    /// Appends one step in path syntax.
    static func append(_ component: Component, to text: inout String) {
        switch component {
        case .index(let index): text += "[\(index)]"
        case .key(let key):
            if isIdentifier(key) { text += "." + key } else { text += "[" + JSONWriter().string(.string(key)) + "]" }
        }
    }

    /// Whether `key` can follow a dot: ASCII letters, digits, `_` and `$`, not starting with a digit.
    static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"): return true
            default: return false
            }
        }
    }
}

/// A value that has no form on the other side of a conversion of the one value mapping (a JSON
/// null as a text attribute, CRDT bytes or a container reference as JSON), named by its path.
public struct JSONConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path of the value inside the converted value, `$` for the value itself.
    public let path: String
    /// What the value is (`null`, `binary (3 bytes)`, `container cid:root-a:Map`).
    public let value: String
    /// The type it could not become (`AttributeValue`, `JSONValue`).
    public let target: String

    public init(path: String, value: String, target: String) {
        self.path = path
        self.value = value
        self.target = target
    }

    public var description: String { "\(path): \(value) has no \(target) form" }
}
