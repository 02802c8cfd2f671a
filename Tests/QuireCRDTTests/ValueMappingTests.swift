import Foundation
import QuireConfig
import QuireJSON
import QuireTestSupport
import QuireTextStorage
import Testing
@testable import QuireCRDT

/// QuireJSON's one value mapping (its ValueMapping article): node fields and plugin options are
/// JSON values, CRDT values and text attributes convert through them without loss.
@Suite struct ValueMappingTests {
    /// `value` with every object's members in key order: a CRDT map has no member order, and the
    /// conversion back writes keys sorted.
    static func sortingKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map(sortingKeys))
        case .object(let object):
            var sorted = JSONObject()
            for member in object.sorted(by: { $0.key < $1.key }) { sorted[member.key] = sortingKeys(member.value) }
            return .object(sorted)
        default: return value
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func jsonValuesSurviveTheCRDT(_ seed: UInt64) throws {
        let count = ProcessInfo.processInfo.environment["QUIRE_LONG_STEPS"].flatMap(Int.init) ?? 1_000
        var random = RandomJSON(seed: seed)
        for step in 0..<count {
            let value = random.value()
            let crdt = CRDTValue(value)
            let back = try JSONValue(crdt)
            #expect(back.isIdentical(to: Self.sortingKeys(value)), "seed \(seed) step \(step)")
            // And the CRDT value survives the trip through JSON text as Loro writes and reads it.
            #expect(try CRDTValue(json: CRDTValue.json(crdt)) == crdt, "seed \(seed) step \(step)")
        }
    }

    @Test func numbersKeepTheirKindAndValue() throws {
        let json: JSONValue = [.number(.integer(.max)), .number(.integer(.min)), 9_007_199_254_740_993, -0.0, 0.1, 1e300, 5, 5.0]
        let crdt = CRDTValue(json)
        #expect(crdt == .list([.int(.max), .int(.min), .int(9_007_199_254_740_993), .double(-0.0), .double(0.1), .double(1e300), .int(5), .double(5)]))
        guard case .list(let values) = crdt, case .double(let negativeZero) = values[3] else { Issue.record("not a list"); return }
        #expect(negativeZero.sign == .minus)
        #expect(try JSONValue(crdt).isIdentical(to: json))
    }

    @Test func bytesAndContainersHaveNoJSONForm() throws {
        let binary: CRDTValue = .map(["a": .list([.int(1), .binary([1, 2, 3])])])
        #expect(throws: JSONConversionError(path: "$.a[1]", value: "binary (3 bytes)", target: "JSONValue")) { try JSONValue(binary) }
        let container = ContainerID.root(name: "body", type: .text)
        #expect(throws: JSONConversionError(path: "$[\"odd key\"]", value: "container cid:root-body:Text", target: "JSONValue")) {
            try JSONValue(.map(["odd key": .container(container)]))
        }
        // Loro's own JSON writes them by its conventions: bytes as integers, containers as 🦜: strings.
        #expect(CRDTValue.json(.list([.binary([7, 8]), .container(container)])) == #"[[7,8],"🦜:cid:root-body:Text"]"#)
        #expect(try CRDTValue(json: #"["🦜:cid:root-body:Text"]"#) == .list([.container(container)]))
        // A plain conversion never reads a string as a container.
        #expect(CRDTValue(["🦜:cid:root-body:Text"]) == .list([.string("🦜:cid:root-body:Text")]))
    }

    @Test func pluginOptionsConvertWithTheirTypes() throws {
        let document = try YAMLLoader.load("""
        level: 3
        big: 9007199254740993
        ratio: 0.1
        zero: -0.0
        label: "7"
        tags: [a, 2, 2.5, true, ~]
        """)
        let crdt = CRDTValue(document.value)
        #expect(crdt == .map([
            "level": .int(3), "big": .int(9_007_199_254_740_993), "ratio": .double(0.1), "zero": .double(-0.0), "label": .string("7"),
            "tags": .list([.string("a"), .int(2), .double(2.5), .bool(true), .null]),
        ]))
        #expect(try JSONValue(crdt).isIdentical(to: Self.sortingKeys(document.value)))
        // The locations stay beside the value, by path.
        let location = document.locations[JSONPath([.key("tags"), .index(2)])]?.location
        #expect(location?.line == 6 && location?.column == 14)
    }

    @Test func textAttributesConvertBothWays() throws {
        let attribute: AttributeValue = .record([
            "size": .double(12), "level": .int(2), "bold": .bool(true), "tags": .list(["x", 1, 1.5]), "font": .record(["family": "Mono"]),
        ])
        let json = JSONValue(attribute)
        #expect(json.isIdentical(to: [
            "bold": true, "font": ["family": "Mono"], "level": 2, "size": 12.0, "tags": ["x", 1, 1.5],
        ]))
        #expect(try AttributeValue(json) == attribute)
        // Through the CRDT and back, still the same attribute.
        #expect(try AttributeValue(JSONValue(CRDTValue(json))) == attribute)
        // Null has no attribute form: an attribute is absent instead.
        #expect(throws: JSONConversionError(path: "$.font.family", value: "null", target: "AttributeValue")) {
            try AttributeValue(["font": ["family": .null]])
        }
    }

    static func containsNull(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return true
        case .array(let elements): return elements.contains(where: containsNull)
        case .object(let object): return object.contains { containsNull($0.value) }
        default: return false
        }
    }

    @Test(arguments: [21, 22] as [UInt64])
    func randomAttributeLikeValuesRoundTrip(_ seed: UInt64) throws {
        var random = RandomJSON(seed: seed)
        var checked = 0
        while checked < 500 {
            let value = random.value()
            guard !Self.containsNull(value) else { continue }  // null has no attribute form
            let attribute = try AttributeValue(value)
            #expect(JSONValue(attribute).isIdentical(to: Self.sortingKeys(value)))
            checked += 1
        }
    }
}
