/// A syntax error in JSON input, with the byte offset and the line and column (1-based, columns in
/// bytes) where it was found.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        case unexpectedEndOfInput
        case unexpectedCharacter(UInt8)
        case invalidUTF8
        case invalidEscape
        case unpairedSurrogate
        case controlCharacterInString
        case invalidNumber
        case nestingTooDeep(limit: Int)
        case trailingCharacters
    }

    public let reason: Reason
    /// Offset of the offending byte from the start of the input.
    public let byteOffset: Int
    /// 1-based line of the offending byte.
    public let line: Int
    /// 1-based column of the offending byte, counted in bytes.
    public let column: Int

    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEndOfInput: what = "unexpected end of input"
        case .unexpectedCharacter(let byte):
            what = byte >= 0x20 && byte < 0x7F
                ? "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))"
        case .invalidUTF8: what = "invalid UTF-8"
        case .invalidEscape: what = "invalid escape sequence"
        case .unpairedSurrogate: what = "unpaired UTF-16 surrogate in \\u escape"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .invalidNumber: what = "invalid number"
        case .nestingTooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .trailingCharacters: what = "unexpected characters after the JSON value"
        }
        return "JSON syntax error at line \(line), column \(column) (byte \(byteOffset)): \(what)"
    }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// It validates UTF-8, rejects what JavaScript's `JSON.parse` rejects, bounds nesting so hostile
/// input cannot exhaust the stack, and reports every error with its position.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Parses one JSON value from `bytes`.
    ///
    /// - Complexity: O(n) in the input length.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONSyntaxError) -> JSONValue {
        let contiguous = Array(bytes)
        return try contiguous.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var reader = ByteReader(buffer: buffer)
            return try reader.parseDocument()
        }
    }

    /// Parses one JSON value from a string.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct ByteReader {
    let buffer: UnsafeBufferPointer<UInt8>
    var position = 0
    var depth = 0

    init(buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    func error(_ reason: JSONSyntaxError.Reason, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = min(offset ?? position, buffer.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < offset {
            if buffer[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return JSONSyntaxError(reason: reason, byteOffset: offset, line: line, column: offset - lineStart + 1)
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        // A byte-order mark is not JSON, but editors write it; accept and skip it.
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { position = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == buffer.count else { throw error(.trailingCharacters) }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard position < buffer.count else { throw error(.unexpectedEndOfInput) }
        switch buffer[position] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case let byte: throw error(.unexpectedCharacter(byte))
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        for index in 0..<count {
            let offset = position + index
            guard offset < buffer.count else { throw error(.unexpectedEndOfInput, at: offset) }
            guard buffer[offset] == literal.utf8Start[index] else {
                throw error(.unexpectedCharacter(buffer[offset]), at: offset)
            }
        }
        position += count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw error(.nestingTooDeep(limit: JSONParser.maximumDepth)) }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONObject {
        try enter()
        defer { depth -= 1 }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if position < buffer.count, buffer[position] == UInt8(ascii: "}") {
            position += 1
            return object
        }
        while true {
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEndOfInput) }
            guard buffer[position] == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter(buffer[position])) }
            let key = try parseString()
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEndOfInput) }
            guard buffer[position] == UInt8(ascii: ":") else { throw error(.unexpectedCharacter(buffer[position])) }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            if object.count < 16, object[key] == nil {
                object.appendUnchecked(key, value)
            } else {
                object[key] = value
            }
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEndOfInput) }
            switch buffer[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return object
            case let byte: throw error(.unexpectedCharacter(byte))
            }
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        position += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if position < buffer.count, buffer[position] == UInt8(ascii: "]") {
            position += 1
            return array
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEndOfInput) }
            switch buffer[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return array
            case let byte: throw error(.unexpectedCharacter(byte))
            }
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position + 1
        var index = start
        var isASCII = true
        // Fast path: no escapes, so the string is a slice of the input.
        while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: buffer[start..<index])
                if isASCII {
                    // ASCII is valid UTF-8 by construction; decoding skips the validator.
                    position = index + 1
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw error(.invalidUTF8, at: firstInvalidUTF8(from: start, to: index))
                }
                position = index + 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error(.controlCharacterInString, at: index) }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        guard index < buffer.count else { throw error(.unexpectedEndOfInput, at: index) }
        return try parseEscapedString(start: start, firstEscape: index)
    }

    mutating func parseEscapedString(start: Int, firstEscape: Int) throws(JSONSyntaxError) -> String {
        var bytes = Array(UnsafeBufferPointer(rebasing: buffer[start..<firstEscape]))
        var index = firstEscape
        while true {
            guard index < buffer.count else { throw error(.unexpectedEndOfInput, at: index) }
            let byte = buffer[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    throw error(.invalidUTF8, at: firstInvalidUTF8(from: start, to: index))
                }
                position = index + 1
                return string
            case UInt8(ascii: "\\"):
                guard index + 1 < buffer.count else { throw error(.unexpectedEndOfInput, at: index + 1) }
                let escape = buffer[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5C)
                case UInt8(ascii: "/"): bytes.append(0x2F)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalarValue = try readHex4(at: index)
                    index += 4
                    if (0xD800...0xDBFF).contains(scalarValue) {
                        guard index + 1 < buffer.count, buffer[index] == UInt8(ascii: "\\"),
                              buffer[index + 1] == UInt8(ascii: "u") else {
                            throw error(.unpairedSurrogate, at: index - 6)
                        }
                        let low = try readHex4(at: index + 2)
                        guard (0xDC00...0xDFFF).contains(low) else { throw error(.unpairedSurrogate, at: index) }
                        scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    } else if (0xDC00...0xDFFF).contains(scalarValue) {
                        throw error(.unpairedSurrogate, at: index - 6)
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { throw error(.invalidEscape, at: index - 6) }
                    bytes.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    throw error(.invalidEscape, at: index - 2)
                }
            default:
                if byte < 0x20 { throw error(.controlCharacterInString, at: index) }
                bytes.append(byte)
                index += 1
            }
        }
    }

    func readHex4(at offset: Int) throws(JSONSyntaxError) -> UInt32 {
        guard offset + 4 <= buffer.count else { throw error(.unexpectedEndOfInput, at: buffer.count) }
        var value: UInt32 = 0
        for index in offset..<(offset + 4) {
            let byte = buffer[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape, at: index)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The offset of the first byte that breaks UTF-8 in `start..<end`, for the error position.
    func firstInvalidUTF8(from start: Int, to end: Int) -> Int {
        var index = start
        while index < end {
            let lead = buffer[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= end else { return index }
            let sequence = UnsafeBufferPointer(rebasing: buffer[index..<(index + length)])
            if String(validating: sequence, as: UTF8.self) == nil { return index }
            index += length
        }
        return start
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = position
        var index = position
        if buffer[index] == UInt8(ascii: "-") { index += 1 }
        guard index < buffer.count else { throw error(.unexpectedEndOfInput, at: index) }
        if buffer[index] == UInt8(ascii: "0") {
            index += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(buffer[index]) {
            while index < buffer.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buffer[index]) { index += 1 }
        } else {
            throw error(.invalidNumber, at: index)
        }
        var isInteger = true
        if index < buffer.count, buffer[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digitsStart = index
            while index < buffer.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buffer[index]) { index += 1 }
            guard index > digitsStart else { throw error(.invalidNumber, at: index) }
        }
        if index < buffer.count, buffer[index] == UInt8(ascii: "e") || buffer[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < buffer.count, buffer[index] == UInt8(ascii: "+") || buffer[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < buffer.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buffer[index]) { index += 1 }
            guard index > digitsStart else { throw error(.invalidNumber, at: index) }
        }
        position = index
        if isInteger, index - start <= 18 {
            // Fast path: at most 18 digits always fit in an Int.
            var value = 0
            var digitIndex = start
            let negative = buffer[start] == UInt8(ascii: "-")
            if negative { digitIndex += 1 }
            while digitIndex < index {
                value = value &* 10 &+ Int(buffer[digitIndex] &- UInt8(ascii: "0"))
                digitIndex += 1
            }
            return .integer(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let double = Double(text) else { throw error(.invalidNumber, at: start) }
        return .double(double)
    }
}
