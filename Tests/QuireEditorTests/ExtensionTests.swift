import QuireEditor
import QuireModel
import QuireReconciler
import QuireTextStorage
import Testing

/// How plugins reach an editor: `EditorExtension`s among a configuration's extensions, and
/// `ThemeContribution`s added to a theme.
@Suite struct ExtensionTests {
    /// Answers Tab by typing two spaces; Shift-Tab is left to others.
    struct SoftTabs: EditorExtension {
        func register(on editor: Editor) -> [ListenerToken] {
            [editor.registerCommand(Commands.keyTab) { shift, editor in
                guard !shift else { return false }
                try editor.update { try $0.insertText("  ") }
                return true
            }]
        }
    }

    @Test func installRegistersOnlyEditorExtensions() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["x"]))
        let tokens = editor.install([SoftTabs(), "not an extension", ThemeContribution()])
        #expect(tokens.count == 1)
        #expect(try editor.dispatch(Commands.keyTab, false))
        #expect(FlatString.render(editor.state) == "  x")
        #expect(try !editor.dispatch(Commands.keyTab, true), "nobody handles Shift-Tab")
        for token in tokens { editor.unregister(token) }
        #expect(try !editor.dispatch(Commands.keyTab, false), "unregistered")
    }

    @Test func themeContributionsAddAttributesButTheThemeWins() throws {
        let key = AttributeKey("test.tone")
        let contribution = ThemeContribution(
            nodeTypes: [.paragraph: [key: "plugin"], "note": [key: "note"]],
            nodeStyles: ["note": { node in [key: .string(node.fields["tone"]?.stringValue ?? "")] }]
        )
        let theme = Theme(nodeTypes: [.paragraph: [key: "app"]]).including([contribution, 42])
        #expect(theme.nodeTypes[.paragraph] == [key: "app"])
        #expect(theme.nodeTypes["note"] == [key: "note"])
        #expect(theme.nodeStyles["note"] != nil)
    }
}

/// Dispatching by name with a JSON payload, as scripts and the CLI do.
@Suite struct NamedDispatchTests {
    @Test func builtInCommandsDecodeTheirPayloads() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["ab"]))
        let text = try #require(editor.state[editor.state.textBlocks()[0]]?.firstChild)
        try editor.update { try $0.select(.text(text, 2)) }
        #expect(try editor.dispatch(named: "insertText", payload: .string("c")))
        #expect(try editor.dispatch(named: "deleteCharacter", payload: .bool(true)))
        #expect(try editor.dispatch(named: "deleteCharacter", payload: .null), "null means backward")
        #expect(FlatString.render(editor.state) == "a")
        #expect(editor.scriptableCommandNames.contains("formatText"))
        #expect(!editor.scriptableCommandNames.contains("keyTab"), "no listener, so not dispatchable")
    }

    @Test func unknownNamesAndBadPayloadsAreTypedErrors() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["ab"]))
        #expect(throws: EditorError.unknownCommand("nope")) { try editor.dispatch(named: "nope", payload: .null) }
        #expect(throws: EditorError.invalidPayload(command: "insertText", reason: "expected a string, not integer")) {
            try editor.dispatch(named: "insertText", payload: .number(.integer(3)))
        }
        #expect(throws: EditorError.self) { try editor.dispatch(named: "formatText", payload: .string("blink")) }
        #expect(FlatString.render(editor.state) == "ab")
    }

    @Test func aCommandWithoutDecoderIsNotDispatchableByName() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        let plain = CommandType<Int>("plain")
        editor.registerCommand(plain) { _, _ in true }
        #expect(try editor.dispatch(plain, 1))
        #expect(throws: EditorError.unknownCommand("plain")) { try editor.dispatch(named: "plain", payload: .null) }
    }
}
