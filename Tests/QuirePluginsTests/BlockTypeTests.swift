import Foundation
import QuireCatalog
import QuireCode
import QuireConfig
import QuireEditor
import QuireHeading
import QuireList
import QuireModel
import QuireQuote
import QuireStyle
import QuireTestSupport
import Testing

/// What the heading, quote, list and code plugins share: Lexical JSON fidelity, typed errors for
/// malformed plugin JSON, conformance of their hooks, theme contributions, and the block type
/// command.
@Suite struct BlockTypeTests {
    static let fixtures = [
        "01-lexical-serialization-test-playground-doc.json",
        "05-lexical-ios-fork-HZ4ever228-web-export-lists-linebreaks-align.json",
    ]

    @Test(arguments: fixtures)
    func fixturesImportAndExportEqualWithNothingUnknown(name: String) throws {
        let registry = try Blocks.configuration("version: 1\nplugins: [" + BuiltInPlugins.catalog.names.joined(separator: ", ") + "]\n").makeRegistry()
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/\(name)")
        let bytes = Array(try Data(contentsOf: url))
        let state = try LexicalJSON.importState(from: bytes, registry: registry)
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(bytes)))
        var pending: [NodeKey] = [.root]
        var types = Set<NodeType>()
        while let key = pending.popLast(), let node = state[key] {
            #expect(!node.isUnknown, "\(node.type) at \(key) is unknown")
            types.insert(node.type)
            pending.append(contentsOf: state.children(of: key).map(\.key))
        }
        let mine: Set<NodeType> = ["heading", "quote", "list", "listitem", "code", "code-highlight"]
        #expect(!types.isDisjoint(with: mine))
    }

    @Test func theFixtureListsNumberAsTheListPluginDoes() throws {
        let registry = try Blocks.registry()
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/\(Self.fixtures[1])")
        let state = try LexicalJSON.importState(from: Array(try Data(contentsOf: url)), registry: registry)
        for list in state.children(of: .root) where list.type == ListNodePlugin.type {
            for item in state.children(of: list.key) {
                #expect(state.listItemValue(item.key) == state.expectedListItemValue(item.key))
            }
        }
    }

    @Test(arguments: [
        (#"{"type":"list","listType":"bullet","children":[{"type":"listitem","value":"x","children":[]}]}"#,
         LexicalJSONError(.wrongType(expected: "integer", found: "string \"x\""), at: "$.root.children[0].children[0].value")),
        (#"{"type":"heading","tag":"h9","children":[]}"#,
         LexicalJSONError(.wrongType(expected: #"one of "h1", "h2", "h3", "h4", "h5", "h6""#, found: "string \"h9\""), at: "$.root.children[0].tag")),
        (#"{"type":"list","listType":"roman","children":[]}"#,
         LexicalJSONError(.wrongType(expected: #"one of "bullet", "number", "check""#, found: "string \"roman\""), at: "$.root.children[0].listType")),
        (#"{"type":"list","children":[{"type":"listitem","checked":"yes","children":[]}]}"#,
         LexicalJSONError(.invalidNode("listitem", "must be a boolean, not string"), at: "$.root.children[0].children[0].checked")),
        (#"{"type":"code","language":7,"children":[]}"#,
         LexicalJSONError(.wrongType(expected: "string or null", found: "integer 7"), at: "$.root.children[0].language")),
        (#"{"type":"code","children":[{"type":"code-highlight","text":"x","highlightType":3}]}"#,
         LexicalJSONError(.invalidNode("code-highlight", "must be a string or null, not integer"), at: "$.root.children[0].children[0].highlightType")),
        (#"{"type":"list","children":[{"type":"paragraph","children":[]}]}"#,
         LexicalJSONError(.childNotAccepted(parent: "list", child: "paragraph"), at: "$.root.children[0].children[0]")),
    ])
    func malformedPluginJSONIsATypedErrorWithItsPath(block: String, error: LexicalJSONError) throws {
        let json = #"{"root":{"type":"root","children":["# + block + "]}}"
        #expect(throws: error) { try LexicalJSON.importState(from: json, registry: try Blocks.registry()) }
    }

    @Test func theBlockPluginsConformIncludingTheirEditingHooks() throws {
        let registry = try Blocks.registry()
        for type: NodeType in ["heading", "quote", "list", "listitem", "code", "code-highlight"] {
            let plugin = try #require(registry.plugin(for: type))
            let violations = NodePluginConformance.violations(of: plugin, in: registry)
            #expect(violations.isEmpty, "\(violations)")
        }
    }

    @Test func theCheckerFindsAnEnterHookThatBreaksTheSelection() throws {
        struct Broken: NodePlugin {
            var type: NodeType { "broken-block" }
            var role: NodeRole { .element(inline: false) }
            func insertParagraph(in node: Node, at position: BlockSplitPosition, state: inout EditorState) throws(ModelError) -> Bool {
                state.selection = RangeSelection(caret: .text(NodeKey(99_999), 0))
                return true
            }
        }
        var registry = NodeRegistry()
        try registry.register(Broken())
        let rules = NodePluginConformance.violations(of: Broken(), in: registry).map(\.rule)
        #expect(rules.contains { $0.hasPrefix("Enter at the start leaves an invalid document or selection") })
        #expect(!rules.contains { $0.hasPrefix("Backspace") })
    }

    @Test func eachPluginContributesItsThemeAndExtension() throws {
        let extensions = try Blocks.extensions()
        let theme = Theme.standard.including(extensions)
        for type: NodeType in ["heading", "list", "listitem", "code", "code-highlight"] {
            #expect(theme.nodeStyles[type] != nil, "\(type)")
        }
        #expect(theme.nodeTypes["quote"] != nil)
        // heading, quote, list and code each register one; link (also selected) registers its own.
        #expect(extensions.values(for: .editorExtension).count == 5)
        let headingStyle = try #require(theme.nodeStyles["heading"])
        let state = try Blocks.state(document(heading("h3", text("t"))))
        #expect(headingStyle(try state.node(Blocks.key(state, 0)))[HeadingAttributes.level] == .int(3))
    }

    @Test func theBlockTypeCommandSetsAnyRegisteredBlockType() throws {
        let editor = try Blocks.editor(try Blocks.state(document(paragraph(text("a")), paragraph(text("b")))))
        try editor.selectionDidChange(0..<3)
        #expect(try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "heading", fields: ["tag": .string("h4")])))
        #expect(LexicalJSON.export(editor.state) == document(heading("h4", text("a")), heading("h4", text("b"))))
        #expect(try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "quote")))
        #expect(LexicalJSON.export(editor.state) == document(quote(text("a")), quote(text("b"))))
        #expect(try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: .paragraph)))
        #expect(LexicalJSON.export(editor.state) == document(paragraph(text("a")), paragraph(text("b"))))
        #expect(Blocks.native(editor) == ("a\nb", 0..<3))
        // A level the configuration forbids is refused and changes nothing.
        let limited = try Blocks.configuration("version: 1\nplugins:\n  - heading: {maxLevel: 2}\n")
        let strict = try Editor(state: EditorState(registry: try limited.makeRegistry(), paragraphs: ["a"]))
        try strict.install(limited.plugins.contributions)
        let refusal = ModelError.invalidNode(type: "heading", reason: NodeValidationError(field: "tag", message: "\"h3\" is deeper than the configured maxLevel 2"))
        #expect(throws: EditorError.model(refusal)) { try strict.dispatch(Commands.setBlocksType, BlockTemplate(type: "heading", fields: ["tag": .string("h3")])) }
        #expect(FlatString.render(strict.state) == "a")
        #expect(strict.state.root.firstChild.flatMap { strict.state[$0]?.type } == .paragraph)
    }
}
