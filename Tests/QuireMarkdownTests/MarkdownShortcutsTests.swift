import QuireEditor
import QuireMarkdown
import QuireModel
import QuireStyle
import QuireTextStorage
import Testing

/// Markdown shortcuts on an editor with every built-in plugin, typed key by key as a text view
/// sends it (no terminal).
@Suite struct MarkdownShortcutsTests {
    func makeEditor() throws -> Editor {
        let contributions = BuiltIns.configuration.plugins.contributions
        let editor = try Editor(state: EditorState(registry: BuiltIns.registry, paragraphs: [""]), storage: TextStorage(),
                                theme: Theme.standard.including(contributions))
        try editor.install(contributions)
        try editor.install([MarkdownShortcuts()])
        return editor
    }

    /// Types `text` one character at a time; "\n" is Enter.
    func type(_ text: String, into editor: Editor) throws {
        for character in text {
            if character == "\n" {
                try editor.dispatch(Commands.insertParagraph)
                continue
            }
            let selection = try #require(editor.nativeSelection)
            try editor.replaceCharacters(in: selection, with: String(character))
        }
    }

    func markdown(_ editor: Editor) throws -> String {
        try BuiltIns.converter.markdown(from: editor.state)
    }

    @Test(arguments: [
        ("# Title", "# Title\n"), ("### Three", "### Three\n"), ("###### Six", "###### Six\n"),
        ("- one\ntwo", "- one\n- two\n"), ("* star", "- star\n"), ("1. first\nsecond", "1. first\n2. second\n"),
        ("3. third", "3. third\n"), ("[ ] todo", "- [ ] todo\n"), ("> quoted", "> quoted\n"),
    ])
    func blockShortcutsAtParagraphStart(typed: String, expected: String) throws {
        let editor = try makeEditor()
        try type(typed, into: editor)
        #expect(try markdown(editor) == expected)
    }

    @Test func codeBlockAndRule() throws {
        let editor = try makeEditor()
        try type("```swift let x = 1", into: editor)
        let code = try #require(editor.state.children(of: .root).first)
        #expect(code.type == "code")
        #expect(code.fields["language"] == .string("swift"))
        #expect(editor.storage?.string == "let x = 1")

        let rule = try makeEditor()
        try type("above\n--- below", into: rule)
        // The rule takes the paragraph's place; typing goes on in the paragraph after it.
        #expect(rule.state.children(of: .root).map(\.type.rawValue) == ["paragraph", "horizontalrule", "paragraph"])
        #expect(try markdown(rule) == "above\n\n***\n\nbelow\n")
        let ruleText = rule.storage?.string ?? ""
        #expect(!ruleText.contains("-"))
    }

    @Test func onlyAtTheStartOfAPlainTopLevelParagraph() throws {
        let editor = try makeEditor()
        try type("a # b - c > d", into: editor)
        #expect(try markdown(editor) == "a # b - c > d\n")
        #expect(editor.state.children(of: .root).map(\.type) == [.paragraph])
    }

    @Test(arguments: [
        ("**bold** x", TextFormat.bold, "bold"), ("*it* x", .italic, "it"), ("`code` x", .code, "code"),
        ("~~gone~~ x", .strikethrough, "gone"),
    ])
    func inlineFormatsWhenTheClosingMarkIsTyped(typed: String, format: TextFormat, content: String) throws {
        let editor = try makeEditor()
        try type("say " + typed, into: editor)
        #expect(editor.storage?.string == "say \(content) x")
        let texts = Array(editor.state.children(of: try #require(editor.state.children(of: .root).first?.key)))
        let formatted = try #require(texts.first { $0.text == content })
        #expect(formatted.textFormat == format)
        // Typing goes on without the format.
        #expect(texts.last?.text == " x")
        #expect(texts.last?.textFormat == [])
    }

    @Test func aSingleMarkInsideADoubleOneWaits() throws {
        let editor = try makeEditor()
        var errors: [String] = []
        editor.registerErrorListener { errors.append($0.description) }
        defer { #expect(errors == []) }
        try type("**bo*", into: editor)
        #expect(editor.storage?.string == "**bo*")
        try type("*", into: editor)
        #expect(editor.storage?.string == "bo")
    }

    @Test func undoGivesBackTheTypedMarker() throws {
        let editor = try makeEditor()
        try type("# ", into: editor)
        #expect(editor.state.children(of: .root).first?.type == "heading")
        try editor.undo()
        #expect(editor.state.children(of: .root).first?.type == .paragraph)
        #expect(editor.storage?.string == "# ")
    }

    @Test func pasteAndRemoteTextDoNotTrigger() throws {
        let editor = try makeEditor()
        let selection = try #require(editor.nativeSelection)
        try editor.replaceCharacters(in: selection, with: "# pasted **x**")
        #expect(editor.state.children(of: .root).first?.type == .paragraph)
        #expect(editor.storage?.string == "# pasted **x**")

        let remote = try makeEditor()
        let key = try #require(remote.state.children(of: .root).first?.key)
        try remote.update(origin: .remote) { (state: inout EditorState) throws(ModelError) in
            try state.select(.element(key, 0))
            try state.insertText("#")
        }
        try remote.update(origin: .remote) { (state: inout EditorState) throws(ModelError) in try state.insertText(" ") }
        #expect(remote.state.children(of: .root).first?.type == .paragraph)
    }

    @Test func aMissingPluginLeavesTheTextAsTyped() throws {
        // Without the heading plugin, "# " stays text.
        let editor = try Editor(state: EditorState(paragraphs: [""]), storage: TextStorage())
        try editor.install([MarkdownShortcuts()])
        try type("# x", into: editor)
        #expect(editor.storage?.string == "# x")
    }
}

