import Foundation
import QuireCatalog
import QuireConfig
import QuireModel
import Testing

/// Issue 7's acceptance: Lexical's own documents import with every node known and export equal to
/// the input as JSON values.
@Suite struct FixtureRoundTripTests {
    static let fixtures = [
        "01-lexical-serialization-test-playground-doc.json",
        "05-lexical-ios-fork-HZ4ever228-web-export-lists-linebreaks-align.json",
    ]

    @Test(arguments: fixtures)
    func importsWithNothingUnknownAndExportsEqual(_ name: String) throws {
        let registry = try Configuration.load(
            contentsOf: repositoryRoot.appendingPathComponent("config.yaml").path, catalog: BuiltInPlugins.catalog
        ).makeRegistry()
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/\(name)")
        let bytes = Array(try Data(contentsOf: url))
        let state = try LexicalJSON.importState(from: bytes, registry: registry)
        var unknown: [String] = []
        var pending: [NodeKey] = [.root]
        while let key = pending.popLast(), let node = state[key] {
            if node.isUnknown { unknown.append(node.type.rawValue) }
            pending.append(contentsOf: state.children(of: key).map(\.key))
        }
        #expect(unknown.isEmpty, "unknown node types: \(Set(unknown).sorted())")
        let original = try JSONParser.parse(bytes)
        let exported = LexicalJSON.export(state)
        // A fixture may wrap the state as {"editorState": …}; compare the state itself.
        let expected = original.objectValue?["editorState"] ?? original
        #expect(exported == expected)
        if exported != expected, case .object(let lhs) = exported, case .object(let rhs) = expected {
            Issue.record("first difference: \(Self.firstDifference(.object(lhs), .object(rhs), path: "$"))")
        }
    }

    /// The path of the first place where two JSON values differ, for a readable failure.
    static func firstDifference(_ lhs: JSONValue, _ rhs: JSONValue, path: String) -> String {
        switch (lhs, rhs) {
        case (.object(let left), .object(let right)):
            for key in Set(left.keys).union(right.keys).sorted() where left[key] != right[key] {
                guard let l = left[key], let r = right[key] else {
                    return "\(path).\(key): exported \(left[key].map { JSONWriter().string($0) } ?? "nothing"), fixture \(right[key].map { JSONWriter().string($0) } ?? "nothing")"
                }
                return firstDifference(l, r, path: "\(path).\(key)")
            }
        case (.array(let left), .array(let right)):
            for (index, (l, r)) in zip(left, right).enumerated() where l != r {
                return firstDifference(l, r, path: "\(path)[\(index)]")
            }
            if left.count != right.count { return "\(path): \(left.count) elements exported, \(right.count) in the fixture" }
        default: break
        }
        return "\(path): exported \(JSONWriter().string(lhs)), fixture \(JSONWriter().string(rhs))"
    }
}

/// Issue 7's acceptance: malformed plugin JSON is rejected with a typed error naming the path of
/// the field at fault, and nothing is imported.
@Suite struct MalformedPluginJSONTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let block: String
        let path: String
        /// The bad member and a good replacement, for the well-formed twin.
        let fix: (bad: String, good: String)
        var testDescription: String { name }
    }

    static let text = #"{"detail":0,"format":0,"mode":"normal","style":"","text":"x","type":"text","version":1}"#
    static let paragraph = #"{"children":[\#(text)],"direction":null,"format":"","indent":0,"type":"paragraph","version":1}"#
    static let cases = [
        Case(
            name: "a list item with value \"x\"",
            block: #"{"children":[{"children":[\#(text)],"direction":null,"format":"","indent":0,"type":"listitem","value":"x","version":1}],"direction":null,"format":"","indent":0,"listType":"number","start":1,"tag":"ol","type":"list","version":1}"#,
            path: "$.root.children[0].children[0].value",
            fix: (#""value":"x""#, #""value":1"#)
        ),
        Case(
            name: "a table cell with colSpan 0",
            block: #"{"children":[{"children":[{"backgroundColor":null,"children":[\#(paragraph)],"colSpan":0,"direction":null,"format":"","headerState":0,"indent":0,"rowSpan":1,"type":"tablecell","version":1}],"direction":null,"format":"","indent":0,"type":"tablerow","version":1}],"direction":null,"format":"","indent":0,"type":"table","version":1}"#,
            path: "$.root.children[0].children[0].children[0].colSpan",
            fix: (#""colSpan":0"#, #""colSpan":1"#)
        ),
        Case(
            name: "a heading with tag h9",
            block: #"{"children":[\#(text)],"direction":null,"format":"","indent":0,"tag":"h9","type":"heading","version":1}"#,
            path: "$.root.children[0].tag",
            fix: (#""tag":"h9""#, #""tag":"h6""#)
        ),
    ]

    @Test(arguments: cases)
    func isRejectedWithThePath(_ malformed: Case) throws {
        let registry = try Configuration.load(
            contentsOf: repositoryRoot.appendingPathComponent("config.yaml").path, catalog: BuiltInPlugins.catalog
        ).makeRegistry()
        func document(_ block: String) -> String {
            #"{"root":{"children":[\#(block)],"direction":null,"format":"","indent":0,"type":"root","version":1}}"#
        }
        let error = #expect(throws: LexicalJSONError.self) { try LexicalJSON.importState(from: document(malformed.block), registry: registry) }
        #expect(error?.path == malformed.path, "\(String(describing: error))")
        // The well-formed twin imports, so the error is about that field and nothing else.
        let twin = malformed.block.replacingOccurrences(of: malformed.fix.bad, with: malformed.fix.good)
        #expect(twin != malformed.block)
        #expect(throws: Never.self) { try LexicalJSON.importState(from: document(twin), registry: registry) }
    }
}
