import QuireEditor
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage
import Testing

/// How plugins reach an editor: `EditorExtension`s among a configuration's contributions, and
/// `ThemeContribution`s added to a theme.
@Suite struct ExtensionTests {
    /// Answers Tab by typing two spaces; Shift-Tab is left to others.
    struct SoftTabs: EditorExtension {
        func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
            [try registrar.registerCommand(Commands.keyTab) { shift, context throws(EditorError) in
                guard !shift else { return false }
                try context.update { state throws(ModelError) in try state.insertText("  ") }
                return true
            }]
        }
    }

    @Test func installRegistersOnlyEditorExtensions() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["x"]))
        let tokens = try editor.install([.editor(SoftTabs()), .theme(ThemeContribution()), PluginContribution(ContributionKey<String>("test.note"), "not an extension")])
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
        let theme = Theme(nodeTypes: [.paragraph: [key: "app"]]).including([.theme(contribution), PluginContribution(ContributionKey<Int>("test.number"), 42)])
        #expect(theme.nodeTypes[.paragraph] == [key: "app"])
        #expect(theme.nodeTypes["note"] == [key: "note"])
        #expect(theme.nodeStyles["note"] != nil)
    }

    @Test func batchTransformsGetEveryWrittenNodeOfTheTypeOncePerPass() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["a", "b", "c"]))
        var batches: [[NodeKey]] = []
        editor.registerNodeTransform(.paragraph, batch: { state, keys throws(ModelError) in
            batches.append(keys)
            // Writing in the first pass starts a second one with just what was written.
            if batches.count == 1, let first = keys.first { try state.setField("textStyle", to: .string("x"), of: first) }
        })
        let paragraphs = editor.state.textBlocks()
        try editor.update { state in
            for key in paragraphs { try state.setField("textFormat", to: .number(.integer(1)), of: key) }
        }
        #expect(batches == [paragraphs, [paragraphs[0]]])
    }

    @Test func setBlocksTypeIsABuiltInCommand() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["a"]), storage: TextStorage())
        var registry = NodeRegistry()
        try registry.register(QuoteLike())
        try editor.setState(EditorState(registry: registry, paragraphs: ["a"]))
        #expect(try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "quotelike")))
        #expect(editor.state.root.firstChild.flatMap { editor.state[$0]?.type } == "quotelike")
        #expect(throws: EditorError.model(.unknownType("nope"))) { try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "nope")) }
    }

    struct QuoteLike: NodePlugin {
        var type: NodeType { "quotelike" }
        var role: NodeRole { .element(inline: false) }
        var fields: [FieldSpec] { ElementFields.common + [FieldSpec("tone", .integer, default: .number(.integer(0)))] }
    }

    @Test func descendantsAreRestyledAfterEveryPartHasItsNewLength() throws {
        // An element whose attribute comes from a field, changed in the same update as its
        // text: whatever order the reconciler meets them in, the storage equals a full render.
        let key = AttributeKey("test.tone")
        let theme = Theme(nodeStyles: ["quotelike": { node in [key: .int(node.fields["tone"]?.intValue ?? 0)] }])
        var registry = NodeRegistry()
        try registry.register(QuoteLike())
        var state = EditorState(registry: registry)
        var texts: [NodeKey] = []
        for index in 0..<40 {
            let block = try state.createNode(type: "quotelike")
            try state.append(block, to: .root)
            let text = try state.createNode(type: .text, text: "line \(index)")
            try state.append(text, to: block)
            texts.append(text)
        }
        let editor = try Editor(state: state, storage: TextStorage(), theme: theme)
        editor.reconciler.checksInvariants = true
        try editor.update { state in
            for text in texts {
                try state.setText("longer " + state[text]!.text, of: text)
                try state.setField("tone", to: .number(.integer(1)), of: state[text]!.parent!)
            }
        }
        #expect(try editor.storage?.attributes(at: 0).attributes[key] == .int(1))
        try editor.reconciler.verify(editor.state)
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
        #expect(editor.scriptableCommandNames.contains("editor.formatText"))
        #expect(!editor.scriptableCommandNames.contains("editor.keyTab"), "no listener, so not dispatchable")
    }

    @Test func unknownNamesAndBadPayloadsAreTypedErrors() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["ab"]))
        #expect(throws: EditorError.unknownCommand("nope")) { try editor.dispatch(named: "nope", payload: .null) }
        #expect(throws: EditorError.invalidPayload(command: "editor.insertText", reason: "expected a string, not integer")) {
            try editor.dispatch(named: "insertText", payload: .number(.integer(3)))
        }
        #expect(throws: EditorError.self) { try editor.dispatch(named: "formatText", payload: .string("blink")) }
        #expect(FlatString.render(editor.state) == "ab")
    }

    @Test func aCommandWithoutDecoderIsNotDispatchableByName() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        let plain = CommandType<Int>("plain")
        try editor.registerCommand(plain) { _, _ in true }
        #expect(try editor.dispatch(plain, 1))
        #expect(throws: EditorError.unknownCommand("plain")) { try editor.dispatch(named: "plain", payload: .null) }
    }
}
