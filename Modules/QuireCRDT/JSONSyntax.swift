/// A strict, pull-style JSON reader over UTF-8 bytes (RFC 8259: no comments, no trailing commas,
/// no leading zeros, no lone surrogates, valid UTF-8 in strings). Decoders walk the document with
/// it directly, so no intermediate tree is built. Syntax errors carry the byte offset; the line
/// and column are computed only when an error is reported.
struct JSONReader {
    let bytes: [UInt8]
    var offset = 0
    /// The keys of the objects being read, innermost last (for refusing duplicate keys without
    /// an allocation per object).
    private var openKeys: [Range<Int>] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A syntax error at the current offset.
    func syntaxError(_ reason: String, at position: Int? = nil) -> LoroJSONError {
        let at = min(position ?? offset, bytes.count)
        var line = 1, column = 1
        for b in bytes[..<at] {
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return .syntax(line: line, column: column, offset: at, reason: reason)
    }

    // MARK: structure

    /// Skips spaces, tabs, carriage returns and newlines.
    /// - Complexity: O(whitespace).
    @inline(__always) mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The next significant byte, without consuming it (nil at the end).
    @inline(__always) mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes `byte` or throws naming what was expected.
    mutating func expect(_ byte: UInt8, _ what: String) throws(LoroJSONError) {
        guard peek() == byte else { throw syntaxError(offset < bytes.count ? "expected \(what)" : "unexpected end of input, expected \(what)") }
        offset += 1
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws(LoroJSONError) {
        if peek() != nil { throw syntaxError("unexpected data after the JSON value") }
    }

    /// Reads an object, calling `field` with each key (as the raw bytes' range) positioned on its value.
    /// `field` must consume the value. Duplicate keys are refused.
    /// - Complexity: O(k²) key comparisons for k keys (objects here have a handful) plus the values.
    mutating func readObject(_ field: (inout JSONReader, Range<Int>) throws(LoroJSONError) -> Void) throws(LoroJSONError) {
        try expect(UInt8(ascii: "{"), "an object")
        if peek() == UInt8(ascii: "}") { offset += 1; return }
        let firstKey = openKeys.count
        defer { openKeys.removeSubrange(min(firstKey, openKeys.count)...) }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a string key") }
            let keyStart = offset
            let key = try readRawString().range
            for other in openKeys[firstKey...] where bytes[other] == bytes[key] {
                throw syntaxError("duplicate key \"\(String(decoding: bytes[key], as: UTF8.self))\"", at: keyStart)
            }
            openKeys.append(key)
            try expect(UInt8(ascii: ":"), "':' after a key")
            skipWhitespace()
            try field(&self, key)
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"): offset += 1; return
            default: throw syntaxError("expected ',' or '}' in an object")
            }
        }
    }

    /// Reads an array, calling `element` with each index positioned on the element.
    /// - Complexity: O(n) plus the elements.
    mutating func readArray(_ element: (inout JSONReader, Int) throws(LoroJSONError) -> Void) throws(LoroJSONError) {
        try expect(UInt8(ascii: "["), "an array")
        if peek() == UInt8(ascii: "]") { offset += 1; return }
        var index = 0
        while true {
            skipWhitespace()
            try element(&self, index)
            index += 1
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"): offset += 1; return
            default: throw syntaxError("expected ',' or ']' in an array")
            }
        }
    }

    /// Whether the key's raw bytes equal `name` (keys here never need escapes).
    /// - Complexity: O(length of the key).
    @inline(__always) func key(_ key: Range<Int>, is name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let start = name.utf8Start
        var i = 0
        for k in key {
            if bytes[k] != start[i] { return false }
            i += 1
        }
        return true
    }

    /// The key as a String (for messages and map keys).
    func keyString(_ key: Range<Int>) -> String { String(decoding: bytes[key], as: UTF8.self) }

    // MARK: scalars

    /// Reads a string without decoding it: the byte range between the quotes and whether it
    /// has escapes (callers that need an escaped string's value use ``readString()``).
    private mutating func readRawString() throws(LoroJSONError) -> (range: Range<Int>, escaped: Bool) {
        offset += 1
        let start = offset
        var escaped = false
        while offset < bytes.count {
            let b = bytes[offset]
            if b == UInt8(ascii: "\"") { offset += 1; return (start..<(offset - 1), escaped) }
            if b == UInt8(ascii: "\\") { offset += 2; escaped = true; continue }
            if b < 0x20 { throw syntaxError("control character in a string") }
            offset += 1
        }
        throw syntaxError("unterminated string", at: start - 1)
    }

    /// Reads a string and returns its raw bytes' range when it has no escapes; with escapes the
    /// reader stays put and returns nil (read it with ``readString()``).
    /// - Complexity: O(length).
    mutating func readUnescapedString() throws(LoroJSONError) -> Range<Int>? {
        guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a string") }
        let start = offset
        let (range, escaped) = try readRawString()
        if escaped { offset = start; return nil }
        return range
    }

    /// Whether the next value is `null` (consumed when it is).
    mutating func readNullIfPresent() throws(LoroJSONError) -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(LoroJSONError) {
        let n = word.utf8CodeUnitCount
        guard offset + n <= bytes.count else { throw syntaxError("invalid literal") }
        for i in 0..<n where bytes[offset + i] != word.utf8Start[i] { throw syntaxError("invalid literal") }
        offset += n
    }

    /// Reads a string, unescaping it; invalid UTF-8 and lone surrogates are refused.
    /// - Complexity: O(length).
    mutating func readString() throws(LoroJSONError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a string") }
        let quote = offset
        offset += 1
        let start = offset
        // Fast path: no escapes.
        while offset < bytes.count {
            let b = bytes[offset]
            if b == UInt8(ascii: "\"") {
                offset += 1
                guard let s = String(validating: bytes[start..<(offset - 1)], as: UTF8.self) else {
                    throw syntaxError("invalid UTF-8 in a string", at: start)
                }
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw syntaxError("control character in a string") }
            offset += 1
        }
        var out = Array(bytes[start..<offset])
        while offset < bytes.count {
            let b = bytes[offset]
            if b == UInt8(ascii: "\"") {
                offset += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw syntaxError("invalid UTF-8 in a string", at: start) }
                return s
            }
            if b < 0x20 { throw syntaxError("control character in a string") }
            if b != UInt8(ascii: "\\") { out.append(b); offset += 1; continue }
            guard offset + 1 < bytes.count else { break }
            let e = bytes[offset + 1]
            offset += 2
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                        throw syntaxError("lone surrogate in a string")
                    }
                    offset += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw syntaxError("lone surrogate in a string") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw syntaxError("lone surrogate in a string")
                }
                guard let scalar = Unicode.Scalar(code) else { throw syntaxError("invalid \\u escape") }
                out.append(contentsOf: UTF8.encode(scalar)!)
            default:
                throw syntaxError("invalid escape in a string", at: offset - 2)
            }
        }
        throw syntaxError("unterminated string", at: quote)
    }

    private mutating func hex4() throws(LoroJSONError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw syntaxError("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[offset]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw syntaxError("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
            offset += 1
        }
        return v
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws(LoroJSONError) -> Bool {
        switch peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw syntaxError("expected true or false")
        }
    }

    /// A JSON number: an integer that fits 64 bits, or a double.
    enum Number {
        case int(Int64)
        case unsigned(UInt64)
        case double(Double)
    }

    /// Reads a number with JSON's grammar.
    /// - Complexity: O(digits).
    mutating func readNumber() throws(LoroJSONError) -> Number {
        skipWhitespace()
        let start = offset
        var negative = false
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { negative = true; offset += 1 }
        let digitsStart = offset
        var magnitude: UInt64 = 0
        var overflow = false
        while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 {
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[offset] - 0x30))
            overflow = overflow || o1 || o2
            magnitude = m2
            offset += 1
        }
        let digits = offset - digitsStart
        guard digits > 0 else { throw syntaxError("expected a number", at: start) }
        if digits > 1, bytes[digitsStart] == UInt8(ascii: "0") { throw syntaxError("leading zero in a number", at: start) }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            let f = offset
            while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 { offset += 1 }
            guard offset > f else { throw syntaxError("expected digits after '.'", at: start) }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let e = offset
            while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 { offset += 1 }
            guard offset > e else { throw syntaxError("expected digits in an exponent", at: start) }
        }
        if isInteger && !overflow {
            if !negative {
                return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .unsigned(magnitude)
            }
            if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .int(.min) }
        }
        guard let d = Double(String(decoding: bytes[start..<offset], as: UTF8.self)) else {
            throw syntaxError("unreadable number", at: start)
        }
        return .double(d)
    }

    /// Skips any value (validating its syntax).
    /// - Complexity: O(size of the value).
    mutating func skipValue(depth: Int = 0) throws(LoroJSONError) {
        guard depth < 512 else { throw syntaxError("values nested deeper than 512") }
        switch peek() {
        case UInt8(ascii: "{"): try readObject { (r, _) throws(LoroJSONError) in try r.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try readArray { (r, _) throws(LoroJSONError) in try r.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try literal("null")
        case .some(let b) where b == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b): _ = try readNumber()
        case .some: throw syntaxError("expected a value")
        case nil: throw syntaxError("unexpected end of input, expected a value")
        }
    }
}

/// Appends JSON text to a byte buffer: the writer behind Loro JSON updates and deep values.
struct JSONWriter {
    var bytes: [UInt8] = []
    /// Indentation per level when pretty-printing (nil: compact).
    let indent: Int?
    private var level = 0

    init(prettyPrinted: Bool) { indent = prettyPrinted ? 2 : nil }

    mutating func raw(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Writes a string literal with JSON escapes (non-ASCII stays UTF-8, as serde_json writes it).
    /// - Complexity: O(length).
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a decimal integer.
    /// - Complexity: O(digits).
    mutating func int<T: BinaryInteger>(_ v: T) {
        if v == 0 { bytes.append(UInt8(ascii: "0")); return }
        var digits: [UInt8] = []
        var m = v.magnitude
        while m > 0 {
            digits.append(UInt8(ascii: "0") + UInt8(m % 10))
            m /= 10
        }
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(contentsOf: digits.reversed())
    }

    /// Writes a double so that it reads back as a double (`1.0`, not `1`); non-finite values
    /// have no JSON form and are written as null, as serde_json does.
    mutating func double(_ d: Double) {
        guard d.isFinite else { raw("null"); return }
        bytes.append(contentsOf: d.description.utf8)
    }

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")); level += 1 }
    mutating func endObject(empty: Bool) { level -= 1; if !empty { newline() }; bytes.append(UInt8(ascii: "}")) }
    mutating func beginArray() { bytes.append(UInt8(ascii: "[")); level += 1 }
    mutating func endArray(empty: Bool) { level -= 1; if !empty { newline() }; bytes.append(UInt8(ascii: "]")) }

    /// Starts the `first`-or-later member of an object with its key.
    mutating func key(_ name: String, first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        newline()
        string(name)
        bytes.append(UInt8(ascii: ":"))
        if indent != nil { bytes.append(UInt8(ascii: " ")) }
    }

    /// Starts the `first`-or-later element of an array.
    mutating func element(first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        newline()
    }

    private mutating func newline() {
        guard let indent else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// The text written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
