import Foundation
import QuireCatalog
import QuireConfig
import QuireHeading
import QuireModel
import QuireQuote
import QuireTestSupport
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct CatalogTests {
    @Test func everyPluginFolderIsInTheCatalog() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Plugins").path)
            .filter { $0 != "Catalog" && !$0.hasPrefix(".") }
        #expect(!folders.isEmpty)
        for folder in folders {
            let names = try #require(BuiltInPlugins.folders[folder], "Plugins/\(folder) is missing from BuiltInPlugins.folders")
            for name in names {
                #expect(BuiltInPlugins.catalog.descriptor(named: name) != nil, "plugin \(name) of Plugins/\(folder) is not in the catalog")
            }
        }
        #expect(Set(BuiltInPlugins.folders.values.flatMap { $0 }) == Set(BuiltInPlugins.catalog.names))
    }

    @Test func theRepositoryConfigSelectsEveryBuiltInWithoutWarnings() throws {
        let configuration = try Configuration.load(contentsOf: repositoryRoot.appendingPathComponent("config.yaml").path, catalog: BuiltInPlugins.catalog)
        #expect(configuration.warnings.isEmpty)
        #expect(configuration.plugins.map(\.name) == BuiltInPlugins.catalog.names)
    }

    @Test func fixtureWithHeadingAndQuoteRegisteredRoundTrips() throws {
        let configuration = try Configuration.load(yaml: "version: 1\nplugins: [heading, quote]\n", catalog: BuiltInPlugins.catalog)
        let registry = try configuration.makeRegistry()
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/01-lexical-serialization-test-playground-doc.json")
        let bytes = Array(try Data(contentsOf: url))
        let state = try LexicalJSON.importState(from: bytes, registry: registry)
        let heading = try #require(state.children(of: .root).first { $0.type == HeadingNodePlugin.type })
        #expect(!heading.isUnknown)
        #expect(HeadingNodePlugin.level(of: heading) == 1)
        #expect(state.children(of: .root).contains { $0.type == QuoteNodePlugin.type && !$0.isUnknown })
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(bytes)))
    }

    @Test(arguments: [(1, "h1", true), (3, "h3", true), (3, "h4", false), (6, "h6", true)])
    func headingLevelsAreLimitedByMaxLevel(maxLevel: Int, tag: String, accepted: Bool) throws {
        let configuration = try Configuration.load(yaml: "version: 1\nplugins:\n  - heading: {maxLevel: \(maxLevel)}\n", catalog: BuiltInPlugins.catalog)
        let registry = try configuration.makeRegistry()
        let json = #"{"root":{"type":"root","children":[{"type":"heading","tag":"\#(tag)","children":[]}]}}"#
        if accepted {
            #expect(throws: Never.self) { try LexicalJSON.importState(from: json, registry: registry) }
        } else {
            #expect(throws: LexicalJSONError(.invalidNode("heading", "\"\(tag)\" is deeper than the configured maxLevel \(maxLevel)"), at: "$.root.children[0].tag")) {
                try LexicalJSON.importState(from: json, registry: registry)
            }
        }
    }

    @Test func headingNeedsATag() throws {
        var registry = NodeRegistry()
        try registry.register(HeadingNodePlugin())
        #expect(throws: LexicalJSONError(.missingField("tag"), at: "$.root.children[0]")) {
            try LexicalJSON.importState(from: #"{"root":{"type":"root","children":[{"type":"heading","children":[]}]}}"#, registry: registry)
        }
        var state = EditorState(registry: registry)
        let heading = try state.createNode(type: HeadingNodePlugin.type, fields: ["tag": .string("h2")])
        try state.append(heading, to: .root)
        try state.append(state.createNode(type: .text, text: "Title"), to: heading)
        #expect(FlatString.render(state) == "Title")
        #expect(throws: ModelError.self) { try state.setField("tag", to: .string("h7"), of: heading) }
    }
}

@Suite struct HeadingEditingTests {
    func headingState(_ text: String) throws -> (EditorState, NodeKey, NodeKey) {
        var registry = NodeRegistry()
        try registry.register(HeadingNodePlugin())
        var state = EditorState(registry: registry)
        let heading = try state.createNode(type: HeadingNodePlugin.type, fields: ["tag": .string("h2")])
        try state.append(heading, to: .root)
        let text = try state.createNode(type: .text, text: text)
        try state.append(text, to: heading)
        return (state, heading, text)
    }

    @Test func enterAtTheStartKeepsTheHeading() throws {
        var (state, heading, text) = try headingState("Title")
        try state.select(.text(text, 0))
        try state.insertParagraph()
        #expect(state.child(at: 0, of: .root).flatMap { state[$0] }?.type == .paragraph)
        #expect(state.child(at: 1, of: .root) == heading)
        #expect(state.selection?.anchor == .text(text, 0))
    }

    @Test func enterAtTheEndMakesAParagraphAndInTheMiddleSplitsTheHeading() throws {
        var (state, _, text) = try headingState("Title")
        try state.select(.text(text, 5))
        try state.insertParagraph()
        #expect(state.child(at: 1, of: .root).flatMap { state[$0] }?.type == .paragraph)
        var (middle, _, middleText) = try headingState("Title")
        try middle.select(.text(middleText, 2))
        try middle.insertParagraph()
        let second = try #require(middle.child(at: 1, of: .root).flatMap { middle[$0] })
        #expect(second.type == HeadingNodePlugin.type)
        #expect(second.fields["tag"] == .string("h2"))
        #expect(FlatString.render(middle) == "Ti\ntle")
    }
}

@Suite struct PluginConformanceTests {
    @Test func everyBuiltInNodePluginConforms() throws {
        let configuration = try Configuration.load(
            yaml: "version: 1\nplugins:\n" + BuiltInPlugins.catalog.names.map { "  - \($0)\n" }.joined(),
            catalog: BuiltInPlugins.catalog
        )
        let registry = try configuration.makeRegistry()
        var checked = 0
        for type in registry.registeredTypes {
            let plugin = try #require(registry.plugin(for: type))
            guard plugin.role != .root else { continue }
            let violations = NodePluginConformance.violations(of: plugin, in: registry)
            #expect(violations.isEmpty, "\(violations)")
            checked += 1
        }
        #expect(checked >= 10)
    }

    @Test func theCheckerFindsBrokenPlugins() throws {
        struct Broken: NodePlugin {
            var type: NodeType { "broken" }
            var role: NodeRole { .element(inline: false) }
            var fields: [FieldSpec] { [FieldSpec("children", .integer, default: .string("zero")), FieldSpec("children", .string, default: .string(""))] }
        }
        var registry = NodeRegistry()
        try registry.register(Broken())
        let rules = NodePluginConformance.violations(of: Broken(), in: registry).map(\.rule)
        #expect(rules.contains("field names repeat"))
        #expect(rules.contains("field \"children\" is reserved"))
        #expect(rules.contains("the default of \"children\" is not integer"))
        #expect(NodePluginConformance.violations(of: Broken(), in: NodeRegistry()).map(\.rule).contains("the registry does not contain the plugin"))
    }
}
