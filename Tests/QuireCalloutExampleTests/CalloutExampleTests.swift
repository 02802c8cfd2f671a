import Foundation
import QuireCalloutExample
import QuireCatalog
import QuireConfig
import QuireEditor
import QuireModel
import QuireStyle
import QuireTestSupport
import QuireTextStorage
import Testing

/// The README's worked example: a callout plugin registered by an app, selected in config.yaml,
/// with a command, editing behaviour and a theme attribute.
@Suite struct CalloutExampleTests {
    static let yaml = """
        version: 1
        plugins:
          - heading
          - callout:
              defaultEmoji: "📌"
        """

    static func configuration() throws -> Configuration {
        var catalog = BuiltInPlugins.catalog
        catalog.register(.callout)
        return try Configuration.load(yaml: yaml, catalog: catalog)
    }

    /// An editor with a storage over `paragraphs`, with the configured plugins installed.
    static func editor(_ paragraphs: [String]) throws -> Editor {
        let configuration = try configuration()
        let extensions = configuration.plugins.contributions
        let state = EditorState(registry: try configuration.makeRegistry(), paragraphs: paragraphs)
        let editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(extensions))
        try editor.install(extensions)
        return editor
    }

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    @Test func theConfigurationSelectsTheAppPluginWithItsOption() throws {
        let configuration = try Self.configuration()
        let registry = try configuration.makeRegistry()
        let plugin = try #require(registry.plugin(for: CalloutNodePlugin.type) as? CalloutNodePlugin)
        #expect(plugin.defaultEmoji == "📌")
        #expect(NodePluginConformance.violations(of: plugin, in: registry).isEmpty)
    }

    @Test func toggleTurnsTheSelectedParagraphIntoACalloutAndBack() throws {
        let editor = try Self.editor(["Remember", "the milk"])
        let text = try #require(editor.state[editor.state.textBlocks()[0]]?.firstChild)
        try editor.update { try $0.select(.text(text, 3)) }
        #expect(try editor.dispatch(CalloutCommands.toggleCallout, nil))
        #expect(FlatString.render(editor.state) == "📌 Remember\nthe milk")
        #expect(editor.storage?.string == "📌 Remember\nthe milk")
        #expect(editor.state.selection?.anchor == .text(text, 3), "the text node and the caret survive")
        let exported = LexicalJSON.export(editor.state)
        let expected = try Self.json("""
            {"root":{"children":[
              {"children":[{"detail":0,"format":0,"mode":"normal","style":"","text":"Remember","type":"text","version":1}],
               "direction":null,"emoji":"📌","format":"","indent":0,"type":"callout","version":1},
              {"children":[{"detail":0,"format":0,"mode":"normal","style":"","text":"the milk","type":"text","version":1}],
               "direction":null,"format":"","indent":0,"textFormat":0,"textStyle":"","type":"paragraph","version":1}
            ],"direction":null,"format":"","indent":0,"type":"root","version":1}}
            """)
        #expect(exported == expected)
        let location = ("📌 Rem" as String).utf16.count
        let attributes = try #require(editor.storage).attributes(at: location).attributes
        #expect(attributes[Theme.Keys.callout] == .string("📌"))

        #expect(try editor.dispatch(CalloutCommands.toggleCallout, nil))
        #expect(FlatString.render(editor.state) == "Remember\nthe milk")
        #expect(editor.state.selection?.anchor == .text(text, 3))
    }

    @Test func enterAtTheEndLeavesTheCalloutAndBackspaceInAnEmptyOneMakesAParagraph() throws {
        let editor = try Self.editor(["Tip"])
        let text = try #require(editor.state[editor.state.textBlocks()[0]]?.firstChild)
        try editor.update { try $0.select(.text(text, 3)) }
        try editor.dispatch(CalloutCommands.toggleCallout, "⚠️")
        try editor.dispatch(Commands.insertParagraph)
        #expect(FlatString.render(editor.state) == "⚠️ Tip\n")
        let second = try #require(editor.state.child(at: 1, of: .root))
        #expect(editor.state[second]?.type == .paragraph)
        #expect(editor.state.selection?.anchor == .element(second, 0))

        // An empty callout: Backspace turns it into a paragraph and the caret stays in it.
        try editor.dispatch(CalloutCommands.toggleCallout, nil)
        #expect(FlatString.render(editor.state) == "⚠️ Tip\n📌 ")
        try editor.dispatch(Commands.deleteCharacter, true)
        let last = try #require(editor.state.child(at: 1, of: .root))
        #expect(editor.state[last]?.type == .paragraph)
        #expect(FlatString.render(editor.state) == "⚠️ Tip\n")
        #expect(editor.state.selection?.anchor == .element(last, 0))
    }

    @Test func anEmptyEmojiIsRejectedWithItsJSONPath() throws {
        let registry = try Self.configuration().makeRegistry()
        let document = """
            {"root":{"children":[{"children":[],"direction":null,"emoji":"","format":"","indent":0,"type":"callout","version":1}],
            "direction":null,"format":"","indent":0,"type":"root","version":1}}
            """
        #expect {
            _ = try LexicalJSON.importState(from: document, registry: registry)
        } throws: { error in
            (error as? LexicalJSONError)?.path.contains("root.children[0]") == true
                && "\(error)".contains("emoji")
        }
    }

    /// The README shows this plugin verbatim, so the documentation is the code that is tested.
    @Test func theReadmeShowsThisFileVerbatim() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: root.appendingPathComponent("Examples/Callout/CalloutPlugin.swift"), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + source + "```\n"))
    }
}

/// The callout's extension compiled and run against the narrow protocols only: the harness is a
/// registrar and command context that is not an `Editor`.
@Suite struct CalloutNarrowContextTests {
    @Test func theToggleRunsWithoutAnEditor() throws {
        let configuration = try CalloutExampleTests.configuration()
        var state = EditorState(registry: try configuration.makeRegistry(), paragraphs: ["Note"])
        try state.select(.text(try #require(state[state.textBlocks()[0]]?.firstChild), 1))
        let harness = ExtensionHarness(state: state)
        for item in configuration.plugins.values(for: .editorExtension) { try harness.install(item) }
        #expect(harness.commands.map(\.declaration.name).contains("callout.toggle"))
        #expect(try harness.dispatch(CalloutCommands.toggleCallout, nil))
        #expect(FlatString.render(harness.state) == "📌 Note")
        #expect(try harness.dispatch(CalloutCommands.toggleCallout, nil))
        #expect(FlatString.render(harness.state) == "Note")
        #expect(harness.updateCount == 2)
    }
}

/// The callout command by name, as `quire edit-script` sends it.
@Suite struct CalloutScriptTests {
    @Test func theCommandIsDispatchableByName() throws {
        let editor = try CalloutExampleTests.editor(["Note"])
        let text = try #require(editor.state[editor.state.textBlocks()[0]]?.firstChild)
        try editor.update { try $0.select(.text(text, 0)) }
        #expect(try editor.dispatch(named: "toggleCallout", payload: .string("🔥")), "the name from before the scheme")
        #expect(FlatString.render(editor.state) == "🔥 Note")
        #expect(try editor.dispatch(named: "callout.toggle", payload: .null))
        #expect(try editor.dispatch(named: "callout.toggle", payload: .string("🔥")))
        #expect(FlatString.render(editor.state) == "🔥 Note")
        #expect(throws: EditorError.self) { try editor.dispatch(named: "toggleCallout", payload: .number(.integer(1))) }
        #expect(FlatString.render(editor.state) == "🔥 Note")
    }
}
