import Foundation
import QuireJSON
import QuireTestSupport
import Testing

@Suite struct JSONWriterTests {
    static let sample: JSONValue = .object([
        "a": .array([.number(.integer(1)), .number(.double(2.5)), .null]),
        "b": .object([:]),
        "c": .array([]),
        "d": .object(["e": .bool(true)]),
    ])

    @Test func compactAndPrettyLayouts() {
        #expect(JSONWriter().string(Self.sample) == #"{"a":[1,2.5,null],"b":{},"c":[],"d":{"e":true}}"#)
        #expect(JSONWriter(prettyPrinted: true).string(Self.sample) == """
        {
          "a": [
            1,
            2.5,
            null
          ],
          "b": {},
          "c": [],
          "d": {
            "e": true
          }
        }
        """)
    }

    @Test func escapesAsJSONStringifyDoes() {
        let text = "\u{0}\u{1F}\"\\/\n\r\t\u{8}\u{C}é😀\u{2028}\u{7F}"
        #expect(JSONWriter().string(.string(text)) == "\"\\u0000\\u001f\\\"\\\\/\\n\\r\\t\\b\\fé😀\u{2028}\u{7F}\"")
        #expect(JSONWriter().string(.object([text: .null])) == "{\"\\u0000\\u001f\\\"\\\\/\\n\\r\\t\\b\\fé😀\u{2028}\u{7F}\":null}")
    }

    @Test(arguments: [
        (JSONNumber.integer(Int.max), "9223372036854775807"),
        (.integer(Int.min), "-9223372036854775808"),
        (.integer(9_007_199_254_740_993), "9007199254740993"),
        (.integer(-7), "-7"),
        (.double(1), "1.0"),
        (.double(-0.0), "-0.0"),
        (.double(0.1), "0.1"),
        (.double(1e16), "1e+16"),
        (.double(9_007_199_254_740_992), "9007199254740992.0"),
        (.double(Double.leastNonzeroMagnitude), "5e-324"),
        (.double(.infinity), "null"),
        (.double(.nan), "null"),
    ])
    func numbersAreExact(_ number: JSONNumber, _ text: String) {
        #expect(JSONWriter().string(.number(number)) == text)
        #expect(number.description == text)
    }

    @Test func streamingWritesTheSameTextAsAValue() {
        for pretty in [false, true] {
            var writer = JSONWriter(prettyPrinted: pretty)
            writer.beginObject()
            writer.key("a")
            writer.beginArray()
            writer.write(integer: 1)
            writer.write(double: 2.5)
            writer.writeNull()
            writer.endArray()
            writer.key("b")
            writer.beginObject()
            writer.endObject()
            writer.key("c")
            writer.write(.array([]))
            writer.key("d")
            writer.beginObject()
            writer.key("e")
            writer.write(bool: true)
            writer.endObject()
            writer.endObject()
            #expect(writer.text == JSONWriter(prettyPrinted: pretty).string(Self.sample))
        }
    }

    /// Seeded random values survive writing and reading back exactly: integers stay integers,
    /// doubles keep their bits, strings and key order are kept. QUIRE_LONG_STEPS raises the count.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomValuesRoundTripExactly(_ seed: UInt64) throws {
        let count = ProcessInfo.processInfo.environment["QUIRE_LONG_STEPS"].flatMap(Int.init) ?? 1_000
        var random = RandomJSON(seed: seed)
        for step in 0..<count {
            let value = random.value()
            for pretty in [false, true] {
                let bytes = JSONWriter(prettyPrinted: pretty).bytes(value)
                let read = try JSONParser.parse(bytes)
                #expect(read.isIdentical(to: value), "seed \(seed) step \(step): \(String(decoding: bytes, as: UTF8.self))")
                #expect(JSONWriter(prettyPrinted: pretty).bytes(read) == bytes)
            }
        }
    }
    /// Indentation deeper than the writer's buffer of spaces (64 levels) is written in runs.
    @Test(arguments: [1, 63, 64, 65, 130, 300])
    func deepIndentation(depth: Int) {
        var value = JSONValue.null
        for _ in 0..<depth { value = .array([value]) }
        let text = JSONWriter(prettyPrinted: true).string(value)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2 * depth + 1)
        for (index, line) in lines.enumerated() {
            let level = index <= depth ? index : 2 * depth - index
            #expect(line.prefix { $0 == " " }.count == 2 * level, "line \(index)")
        }
    }

    /// Writing an array in parts (a continuation for the rest, resumed after the first part) and
    /// flushing pieces out in between gives exactly the text of one writer: random arrays of random
    /// values, split at random places, inside an object or at the top.
    @Test(arguments: [1, 2] as [UInt64])
    func partsAndFlushesGiveTheWholeText(_ seed: UInt64) {
        var random = RandomJSON(seed: seed)
        for _ in 0..<300 {
            let elements = (0..<Int.random(in: 1...6, using: &random.generator)).map { _ in random.value() }
            let nested = Bool.random(using: &random.generator)
            for pretty in [false, true] {
                let whole: JSONValue = nested ? .object(["list": .array(elements), "after": .bool(true)]) : .array(elements)
                let expected = JSONWriter(prettyPrinted: pretty).bytes(whole)
                var written: [UInt8] = []
                var writer = JSONWriter(prettyPrinted: pretty)
                if nested {
                    writer.beginObject()
                    writer.key("list")
                }
                writer.beginArray()
                let split = Int.random(in: 1...elements.count, using: &random.generator)
                var rest = writer.continuation()
                for element in elements[split...] { rest.write(element) }
                for element in elements[..<split] {
                    writer.write(element)
                    if Bool.random(using: &random.generator) { writer.flush { written += $0 } }
                }
                writer.flush { written += $0 }
                written += rest.takeOutput()
                writer.resume(after: rest)
                writer.endArray()
                if nested {
                    writer.key("after")
                    writer.write(bool: true)
                    writer.endObject()
                }
                writer.flush { written += $0 }
                #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
                #expect(writer.output.isEmpty)
            }
        }
    }
}
