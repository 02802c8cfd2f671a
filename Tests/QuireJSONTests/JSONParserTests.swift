import Testing
import QuireJSON

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#"{"a": [1, -2.5, 3e2, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {}}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["a", "b"])
        let array = try #require(object["a"]?.arrayValue)
        #expect(array[0] == .number(.integer(1)))
        #expect(array[1] == .number(.double(-2.5)))
        #expect(array[2] == .number(.integer(300)))
        #expect(array[3] == .bool(true))
        #expect(array[5] == .null)
        #expect(array[6] == .string("x\"\\/\u{8}\u{C}\n\r\té😀"))
        #expect(object["b"] == .object(JSONObject()))
    }

    @Test func objectEqualityIgnoresMemberOrder() throws {
        let first = try JSONParser.parse(#"{"a":1,"b":[1,2]}"#)
        let second = try JSONParser.parse(#"{"b":[1,2],"a":1.0}"#)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(try JSONParser.parse(#"{"b":[2,1],"a":1}"#) != first)
    }

    @Test func writerRoundTripsThroughParser() throws {
        let source = #"{"text":"tab\there \"quoted\" back\\slash \u0001 emoji 👍🏽","n":[0,-7,1.5],"nested":{"empty":[],"o":{}}}"#
        let value = try JSONParser.parse(source)
        for pretty in [false, true] {
            let written = JSONWriter(prettyPrinted: pretty).string(value)
            #expect(try JSONParser.parse(written) == value)
        }
        #expect(JSONWriter().string(.string("a\u{1}")) == #""a\u0001""#)
    }

    struct SyntaxCase: Sendable, CustomTestStringConvertible {
        let input: [UInt8]
        let reason: JSONError.Reason
        let offset: Int
        let line: Int
        let column: Int
        let path: String
        var testDescription: String { String(decoding: input, as: UTF8.self) }
    }

    static let syntaxCases: [SyntaxCase] = [
        SyntaxCase(input: Array(#"{"a": 1"#.utf8), reason: .unexpectedEndOfInput, offset: 7, line: 1, column: 8, path: "$.a"),
        SyntaxCase(input: Array("{\n  \"a\": tru}".utf8), reason: .unexpectedCharacter(UInt8(ascii: "}")), offset: 12, line: 2, column: 11, path: "$.a"),
        SyntaxCase(input: Array(#"[1,]"#.utf8), reason: .unexpectedCharacter(UInt8(ascii: "]")), offset: 3, line: 1, column: 4, path: "$[1]"),
        SyntaxCase(input: Array(#"{"a":1}x"#.utf8), reason: .trailingCharacters, offset: 7, line: 1, column: 8, path: "$"),
        SyntaxCase(input: Array(#"["\x"]"#.utf8), reason: .invalidEscape, offset: 2, line: 1, column: 3, path: "$[0]"),
        SyntaxCase(input: Array(#"["\ud83d"]"#.utf8), reason: .unpairedSurrogate, offset: 2, line: 1, column: 3, path: "$[0]"),
        SyntaxCase(input: Array("[\"a\u{1}\"]".utf8), reason: .controlCharacterInString, offset: 3, line: 1, column: 4, path: "$[0]"),
        SyntaxCase(input: Array("[01]".utf8), reason: .unexpectedCharacter(UInt8(ascii: "1")), offset: 2, line: 1, column: 3, path: "$[0]"),
        SyntaxCase(input: Array("[1.]".utf8), reason: .invalidNumber, offset: 3, line: 1, column: 4, path: "$[0]"),
        SyntaxCase(input: [0x5B, 0x22, 0x61, 0xC3, 0x28, 0x22, 0x5D], reason: .invalidUTF8, offset: 3, line: 1, column: 4, path: "$[0]"),
        SyntaxCase(input: [0x5B, 0x22, 0xFF, 0x22, 0x5D], reason: .invalidUTF8, offset: 2, line: 1, column: 3, path: "$[0]"),
    ]

    @Test(arguments: syntaxCases)
    func reportsSyntaxErrorsWithPosition(_ testCase: SyntaxCase) {
        #expect(throws: JSONError(reason: testCase.reason, byteOffset: testCase.offset, line: testCase.line, column: testCase.column, path: testCase.path)) {
            try JSONParser.parse(testCase.input)
        }
    }

    @Test func boundsNestingDepth() {
        let deep = String(repeating: "[", count: JSONParser.maximumDepth + 1) + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(throws: JSONError.self) { try JSONParser.parse(deep) }
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try JSONParser.parse(allowed) }
    }

    @Test func largeIntegersBecomeDoubles() throws {
        #expect(try JSONParser.parse("[123456789012345678901234567890]").arrayValue?.first?.typeName == "number")
        #expect(try JSONParser.parse("[9007199254740993]") == .array([.number(.integer(9_007_199_254_740_993))]))
    }
}
