import QuireJSON
import Testing

/// The reader's input policy: positions and paths of errors, the nesting limit, UTF-8, the
/// byte-order mark, duplicate keys and numbers.
@Suite struct JSONReaderTests {
    func parseError(_ bytes: [UInt8], options: JSONReader.Options = JSONReader.Options()) -> JSONError? {
        do {
            _ = try JSONParser.parse(bytes, options: options)
            return nil
        } catch {
            return error
        }
    }

    func parseError(_ text: String, options: JSONReader.Options = JSONReader.Options()) -> JSONError? {
        parseError(Array(text.utf8), options: options)
    }

    // MARK: positions and paths

    struct PathCase: Sendable, CustomTestStringConvertible {
        let input: String
        let reason: JSONError.Reason
        let line: Int
        let column: Int
        let path: String
        var testDescription: String { input }
    }

    static let pathCases: [PathCase] = [
        PathCase(input: #"{"root":{"children":[{"format":tru}]}}"#, reason: .unexpectedCharacter(UInt8(ascii: "}")),
                 line: 1, column: 35, path: "$.root.children[0].format"),
        PathCase(input: "{\n  \"a\": [1, 2,\n    {\"odd key\": nul}]\n}", reason: .unexpectedCharacter(UInt8(ascii: "}")),
                 line: 3, column: 20, path: "$.a[2][\"odd key\"]"),
        PathCase(input: #"{"é": [1, "x\y"]}"#, reason: .invalidEscape, line: 1, column: 13, path: "$[\"é\"][1]"),
        PathCase(input: #"{"a\u0062": {"c": [[], {}, [1e]]}}"#, reason: .invalidNumber, line: 1, column: 31, path: "$.ab.c[2][0]"),
        PathCase(input: #"{"a": 1, "b": }"#, reason: .unexpectedCharacter(UInt8(ascii: "}")), line: 1, column: 15, path: "$.b"),
        PathCase(input: #"{"a": 1 "b": 2}"#, reason: .unexpectedCharacter(UInt8(ascii: "\"")), line: 1, column: 9, path: "$.a"),
        PathCase(input: "[\n\n]]", reason: .trailingCharacters, line: 3, column: 2, path: "$"),
        PathCase(input: "", reason: .unexpectedEndOfInput, line: 1, column: 1, path: "$"),
        PathCase(input: "// comment\n{}", reason: .unexpectedCharacter(UInt8(ascii: "/")), line: 1, column: 1, path: "$"),
        PathCase(input: "[1,]", reason: .unexpectedCharacter(UInt8(ascii: "]")), line: 1, column: 4, path: "$[1]"),
        PathCase(input: #"{"a":1,}"#, reason: .unexpectedCharacter(UInt8(ascii: "}")), line: 1, column: 8, path: "$"),
        PathCase(input: "[\"tab\there\"]", reason: .controlCharacterInString, line: 1, column: 6, path: "$[0]"),
        PathCase(input: "\r\n[\r\n  -]", reason: .invalidNumber, line: 3, column: 4, path: "$[0]"),
    ]

    @Test(arguments: pathCases)
    func errorsNameLineColumnOffsetAndPath(_ testCase: PathCase) throws {
        let error = try #require(parseError(testCase.input))
        #expect(error.reason == testCase.reason)
        #expect(error.line == testCase.line)
        #expect(error.column == testCase.column)
        #expect(error.path == testCase.path)
        // The offset and the line/column name the same byte.
        let bytes = Array(testCase.input.utf8)
        let lineStart = bytes[..<error.byteOffset].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let columnText = String(decoding: bytes[lineStart..<error.byteOffset], as: UTF8.self)
        #expect(columnText.unicodeScalars.count + 1 == error.column)
        #expect(bytes[..<error.byteOffset].filter { $0 == UInt8(ascii: "\n") }.count + 1 == error.line)
        #expect(error.description.contains("line \(error.line), column \(error.column) (byte \(error.byteOffset)), \(error.path)"))
    }

    @Test func columnsCountScalarsNotBytes() throws {
        // "é" is two bytes and "😀" four; the column counts each as one.
        let error = try #require(parseError(#"["é😀", x]"#))
        #expect(error.byteOffset == 11)
        #expect(error.column == 8)
    }

    // MARK: nesting

    @Test func nestingLimitIsTheDefaultAndConfigurable() throws {
        let limit = JSONReader.Options.defaultMaximumDepth
        #expect(JSONParser.maximumDepth == limit)
        let deep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = try #require(parseError(deep))
        #expect(error.reason == .nestingTooDeep(limit: limit))
        #expect(error.byteOffset == limit)
        #expect(error.path == "$" + String(repeating: "[0]", count: limit))
        #expect(parseError(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) == nil)

        let shallow = JSONReader.Options(maximumDepth: 2)
        #expect(parseError(#"{"a":[1]}"#, options: shallow) == nil)
        let tooDeep = try #require(parseError(#"{"a":[{"b":1}]}"#, options: shallow))
        #expect(tooDeep.reason == .nestingTooDeep(limit: 2))
        #expect(tooDeep.path == "$.a[0]")
        // Scalars do not count as a level.
        #expect(parseError("1", options: JSONReader.Options(maximumDepth: 0)) == nil)
        #expect(parseError("[]", options: JSONReader.Options(maximumDepth: 0))?.reason == .nestingTooDeep(limit: 0))
    }

    @Test func skippingAValueKeepsTheLimit() throws {
        var reader = JSONReader(Array(#"{"skip": [[[1]]], "b": 2}"#.utf8), options: JSONReader.Options(maximumDepth: 3))
        try reader.beginObject()
        #expect(try reader.nextKey().map { reader.string(for: $0) } == "skip")
        #expect(throws: JSONError.self) { try reader.skipValue() }
    }

    // MARK: UTF-8

    struct UTF8Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let offset: Int
        var testDescription: String { name }
    }

    static let utf8Cases: [UTF8Case] = {
        let prefix = Array(#"{"k": ["ok", "a"#.utf8)
        func inString(_ name: String, _ bad: [UInt8]) -> UTF8Case {
            UTF8Case(name: name, bytes: prefix + bad + Array(#""]}"#.utf8), offset: prefix.count)
        }
        return [
            inString("lone continuation byte", [0x80]),
            inString("overlong slash", [0xC0, 0xAF]),
            inString("overlong three-byte", [0xE0, 0x80, 0xAF]),
            inString("UTF-16 surrogate", [0xED, 0xA0, 0x80]),
            inString("beyond U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
            inString("invalid lead F5", [0xF5, 0x80, 0x80, 0x80]),
            inString("truncated sequence", [0xE4, 0xB8]),
            inString("0xFF", [0xFF]),
            UTF8Case(name: "in a key", bytes: Array(#"{"ok": 1, "k"#.utf8) + [0xC3, 0x28] + Array(#"": 2}"#.utf8), offset: 12),
            UTF8Case(name: "truncated at the end", bytes: Array(#"["ab"#.utf8) + [0xF0, 0x9F], offset: 4),
            UTF8Case(name: "after valid multi-byte text", bytes: Array(#"["中文"#.utf8) + [0xE4, 0x41] + Array(#""]"#.utf8), offset: 8),
        ]
    }()

    @Test(arguments: utf8Cases)
    func invalidUTF8NamesItsByteOffset(_ testCase: UTF8Case) throws {
        let error = try #require(parseError(testCase.bytes))
        #expect(error.reason == .invalidUTF8)
        #expect(error.byteOffset == testCase.offset)
    }

    struct StringErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// The string's bytes between the quotes.
        let content: [UInt8]
        let reason: JSONError.Reason
        /// The offset of the error in `content`.
        let offset: Int
        var testDescription: String { name }
    }

    /// Strings with more than one thing wrong, short and long, with and without escapes: the
    /// error is the first in input order, whichever check finds it.
    static let stringErrorCases: [StringErrorCase] = {
        let long = Array("a text of more than sixteen bytes ".utf8)
        let bad: [UInt8] = [0xC3, 0x28]
        return [
            StringErrorCase(name: "bad UTF-8 in a long string", content: long + bad, reason: .invalidUTF8, offset: long.count),
            StringErrorCase(name: "bad UTF-8 after text and escapes", content: long + Array(#"\n\u00e9é"#.utf8) + bad,
                            reason: .invalidUTF8, offset: long.count + 10),
            StringErrorCase(name: "bad UTF-8 before a bad escape", content: Array("ab".utf8) + bad + Array(#"\q"#.utf8),
                            reason: .invalidUTF8, offset: 2),
            StringErrorCase(name: "a bad escape before bad UTF-8", content: Array(#"ab\q"#.utf8) + bad, reason: .invalidEscape, offset: 2),
            StringErrorCase(name: "bad UTF-8 before a control character", content: long + bad + [0x01], reason: .invalidUTF8, offset: long.count),
            StringErrorCase(name: "a control character before bad UTF-8", content: long + [0x01] + bad,
                            reason: .controlCharacterInString, offset: long.count),
            StringErrorCase(name: "bad UTF-8 before an unpaired surrogate", content: bad + Array(#"\ud800"#.utf8),
                            reason: .invalidUTF8, offset: 0),
            StringErrorCase(name: "a truncated sequence before an escape", content: Array("abc".utf8) + [0xE4, 0xB8] + Array(#"\n"#.utf8),
                            reason: .invalidUTF8, offset: 3),
            StringErrorCase(name: "a continuation byte after an escape", content: Array(#"\u00e9"#.utf8) + [0xA9], reason: .invalidUTF8, offset: 6),
            StringErrorCase(name: "bad UTF-8 in a short repeated string", content: Array("ok".utf8) + bad, reason: .invalidUTF8, offset: 2),
        ]
    }()

    @Test(arguments: stringErrorCases)
    func stringErrorsComeInInputOrder(_ testCase: StringErrorCase) throws {
        // As an array element and an object value, after a valid copy of the string's start (so
        // that a reader keeping short strings has seen those bytes).
        let prefix = Array(#"{"k": ["ok", ""#.utf8)
        let error = try #require(parseError(prefix + testCase.content + Array(#""]}"#.utf8)))
        #expect(error.reason == testCase.reason)
        #expect(error.byteOffset == prefix.count + testCase.offset)
        #expect(error.path == "$.k[1]")
        let member = Array(#"{"a": "x", "k": ""#.utf8)
        let memberError = try #require(parseError(member + testCase.content + Array(#""}"#.utf8)))
        #expect(memberError.reason == testCase.reason)
        #expect(memberError.byteOffset == member.count + testCase.offset)
        #expect(memberError.path == "$.k")
    }

    @Test func validUTF8OfEveryLengthReads() throws {
        let text = "a é 中 😀 \u{10FFFF} \u{E000} \u{FFFD}"
        #expect(try JSONParser.parse("[\"\(text)\"]") == .array([.string(text)]))
    }

    @Test func invalidUTF8OutsideStringsIsAnUnexpectedByte() throws {
        let error = try #require(parseError([0x5B, 0xC3, 0xA9, 0x5D]))
        #expect(error.reason == .unexpectedCharacter(0xC3))
        #expect(error.byteOffset == 1)
    }

    // MARK: byte-order mark

    @Test func aByteOrderMarkIsSkippedAndNotCounted() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try JSONParser.parse(bom + Array(#"{"a": 1}"#.utf8)) == .object(["a": .number(.integer(1))]))
        let error = try #require(parseError(bom + Array(#"{"a": x}"#.utf8)))
        #expect(error.byteOffset == 9)
        #expect(error.column == 7)
        // Only at the start: elsewhere it is not whitespace.
        #expect(parseError(Array("[1,".utf8) + bom + Array("2]".utf8))?.reason == .unexpectedCharacter(0xEF))
        // Inside a string it is text.
        #expect(try JSONParser.parse("[\"\u{FEFF}\"]") == .array([.string("\u{FEFF}")]))
    }

    // MARK: duplicate keys

    @Test func duplicateKeysAreErrorsWithTheirPath() throws {
        let error = try #require(parseError(#"{"root": {"a": 1, "b": {"a": 2}, "a": 3}}"#))
        #expect(error.reason == .duplicateKey("a"))
        #expect(error.path == "$.root.a")
        #expect(error.byteOffset == 33)
        // The same key written with an escape is the same key.
        #expect(parseError(#"{"ab": 1, "a\u0062": 2}"#)?.reason == .duplicateKey("ab"))
        #expect(parseError(#"{"a\u0062": 1, "ab": 2}"#)?.reason == .duplicateKey("ab"))
        // Equal keys in different objects are fine.
        #expect(parseError(#"[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]"#) == nil)
    }

    @Test(arguments: [3, 16, 17, 40, 1_000])
    func duplicatesAreFoundInLargeObjects(_ count: Int) throws {
        let members = (0..<count).map { "\"k\($0)\": \($0)" }
        #expect(parseError("{" + members.joined(separator: ", ") + "}") == nil)
        for repeated in [0, count / 2, count - 1] {
            let text = "{" + (members + ["\"k\(repeated)\": -1"]).joined(separator: ", ") + "}"
            let error = try #require(parseError(text))
            #expect(error.reason == .duplicateKey("k\(repeated)"))
            #expect(error.path == "$.k\(repeated)")
        }
    }

    @Test func keepLastAcceptsDuplicatesAsJavaScriptDoes() throws {
        let value = try JSONParser.parse(#"{"a": 1, "b": 2, "a": 3}"#, options: JSONReader.Options(duplicateKeys: .keepLast))
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value.objectValue?["a"] == .number(.integer(3)))
    }

    // MARK: numbers

    @Test func numberEdgeCases() throws {
        func number(_ text: String) throws -> JSONNumber {
            guard case .number(let number) = try JSONParser.parse(text) else { throw JSONReaderTestFailure.notANumber(text) }
            return number
        }
        #expect(try number("9223372036854775807") == .integer(Int.max))
        #expect(try number("-9223372036854775808") == .integer(Int.min))
        #expect(try number("9007199254740993") == .integer(9_007_199_254_740_993))
        #expect(try number("-9007199254740993") == .integer(-9_007_199_254_740_993))
        #expect(try number("123456789012345678") == .integer(123_456_789_012_345_678))
        // Beyond 64 bits: the nearest double, as Loro and JavaScript read it.
        guard case .double(let beyond) = try number("9223372036854775808") else { Issue.record("not a double"); return }
        #expect(beyond == 9_223_372_036_854_775_808.0)
        // -0 keeps its sign.
        guard case .double(let negativeZero) = try number("-0") else { Issue.record("-0 is not a double"); return }
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(try number("0").isIdentical(to: .integer(0)))
        #expect(try number("1.5e3").isIdentical(to: .double(1500)))
        #expect(try number("1E-2").isIdentical(to: .double(0.01)))
        #expect(try number("1e-400").isIdentical(to: .double(0)))
        #expect(try number("2.2250738585072014e-308").isIdentical(to: .double(Double.leastNormalMagnitude)))
        // Out of Double's range: an error, not infinity.
        for text in ["1e400", "-1e400", "[1.8e308]"] {
            let error = try #require(parseError(text))
            #expect(error.reason == .numberOutOfRange)
        }
        for text in ["01", "-", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "Infinity", "- 1"] {
            #expect(parseError(text) != nil, "\(text) was accepted")
        }
    }

    // MARK: the pull API

    @Test func pullReadingWalksWithoutATree() throws {
        let text = #"{"name": "trace", "ops": [[0, 1, "a"], [2, 0, "b\n"]], "extra": {"x": [null, true]}, "n": 7}"#
        var reader = JSONReader(Array(text.utf8))
        var name = ""
        var ops: [(Int, Int, String)] = []
        var count = 0
        try reader.beginObject()
        while let key = try reader.nextKey() {
            if reader.key(key, is: "name") {
                name = try reader.readString()
            } else if reader.key(key, is: "ops") {
                try reader.beginArray()
                while try reader.nextElement() {
                    try reader.beginArray()
                    _ = try reader.nextElement()
                    let position = try reader.readInt()
                    _ = try reader.nextElement()
                    let length = try reader.readInt()
                    _ = try reader.nextElement()
                    let insert = try reader.readString()
                    #expect(try !reader.nextElement())
                    ops.append((position, length, insert))
                }
            } else if reader.key(key, is: "n") {
                count = try reader.readInt()
            } else {
                try reader.skipValue()
            }
        }
        try reader.finish()
        #expect(name == "trace" && count == 7)
        #expect(ops.map(\.0) == [0, 2] && ops.map(\.1) == [1, 0] && ops.map(\.2) == ["a", "b\n"])
        #expect(reader.depth == 0)
    }

    @Test func typedReadsReportMismatchesAtTheirPath() throws {
        var reader = JSONReader(Array(#"{"list": [1, "two"]}"#.utf8))
        try reader.beginObject()
        _ = try reader.nextKey()
        try reader.beginArray()
        _ = try reader.nextElement()
        #expect(try reader.readInt() == 1)
        _ = try reader.nextElement()
        #expect(throws: JSONError(reason: .typeMismatch(expected: "an integer", found: "string"), byteOffset: 13, line: 1, column: 14, path: "$.list[1]")) {
            try reader.readInt()
        }
        var fraction = JSONReader(Array("[1.5]".utf8))
        try fraction.beginArray()
        _ = try fraction.nextElement()
        #expect(throws: JSONError(reason: .typeMismatch(expected: "an integer", found: "number 1.5"), byteOffset: 1, line: 1, column: 2, path: "$[0]")) {
            try fraction.readInt()
        }
        var object = JSONReader(Array("[]".utf8))
        #expect(throws: JSONError(reason: .typeMismatch(expected: "an object", found: "array"), byteOffset: 0, line: 1, column: 1, path: "$")) {
            try object.beginObject()
        }
    }

    @Test func unescapedStringsAreRangesOfTheInput() throws {
        var reader = JSONReader(Array(#"["plain", "esc\"aped"]"#.utf8))
        try reader.beginArray()
        _ = try reader.nextElement()
        let range = try #require(try reader.readUnescapedString())
        #expect(String(decoding: reader.bytes[range], as: UTF8.self) == "plain")
        _ = try reader.nextElement()
        #expect(try reader.readUnescapedString() == nil)
        #expect(try reader.readString() == "esc\"aped")
    }

    @Test func decodersAddTheirOwnErrorsAtThePath() throws {
        var reader = JSONReader(Array(#"{"counts": [3, -1]}"#.utf8))
        try reader.beginObject()
        _ = try reader.nextKey()
        try reader.beginArray()
        _ = try reader.nextElement()
        _ = try reader.readInt()
        _ = try reader.nextElement()
        let error = reader.error(.invalidValue("a count must not be negative"))
        #expect(error.path == "$.counts[1]")
        #expect(error.byteOffset == 15)
        #expect(error.message == "a count must not be negative")
    }
}

enum JSONReaderTestFailure: Error {
    case notANumber(String)
}
