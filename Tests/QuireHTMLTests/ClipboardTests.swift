import QuireEditor
import QuireHTML
import QuireMarkup
import QuireModel
import QuireStyle
import QuireTextStorage
import Testing

@Suite struct ClipboardTests {
    /// An editor with a storage over `state`, the built-ins installed.
    static func editor(_ state: EditorState) throws -> Editor {
        let editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(BuiltIns.contributions))
        try editor.install(BuiltIns.contributions)
        return editor
    }

    static func editor(paragraphs: [String]) throws -> Editor {
        try editor(EditorState(registry: BuiltIns.registry, paragraphs: paragraphs))
    }

    @Test func aPastedParagraphJoinsTheBlockAtTheCaretAsOneUndoStep() throws {
        let editor = try Self.editor(paragraphs: ["Hello world"])
        try editor.selectionDidChange(5..<5)
        // A browser's clipboard: a whole document around the fragment; the trailing space of a
        // block is not shown, so it is not pasted.
        try editor.pasteHTML("<html><body><!--StartFragment--><p>, <b>big</b> </p><!--EndFragment--></body></html>", converter: BuiltIns.converter)
        #expect(editor.storage?.string == "Hello, big world")
        #expect(Outline.of(editor.state) == #"paragraph("Hello, " b:"big" " world")"#)
        #expect(editor.nativeSelection == 10..<10)
        #expect(try editor.undo())
        #expect(editor.storage?.string == "Hello world")
        #expect(try !editor.undo())
    }

    @Test func pastedBlocksSplitTheBlockAndReplaceTheSelection() throws {
        let editor = try Self.editor(paragraphs: ["Hello cruel world"])
        try editor.selectionDidChange(6..<12)
        try editor.pasteHTML("<h2>Title</h2><ul><li>one</li><li>two</li></ul>", converter: BuiltIns.converter)
        #expect(editor.storage?.string == "Hello \nTitle\none\ntwo\nworld")
        #expect(Outline.of(editor.state) == #"paragraph("Hello ") heading{tag="h2"}("Title") list{tag="ul",listType="bullet",start=1}(listitem("one") listitem("two")) paragraph("world")"#)
        #expect(try editor.undo())
        #expect(editor.storage?.string == "Hello cruel world")
        #expect(Outline.of(editor.state) == #"paragraph("Hello cruel world")"#)
    }

    /// A paste of many blocks is one commit too.
    @Test func aLargePasteIsOneCommit() throws {
        let editor = try Self.editor(paragraphs: [""])
        try editor.selectionDidChange(0..<0)
        var commits = 0
        let token = editor.registerUpdateListener { _ in commits += 1 }
        defer { editor.unregister(token) }
        let html = (0..<2000).map { "<p>Paragraph \($0) with <i>some</i> text.</p>" }.joined()
        try editor.pasteHTML(html, converter: BuiltIns.converter)
        #expect(commits == 1)
        #expect(editor.state.children(of: .root).map { $0 }.count >= 2000)
        #expect(editor.storage?.string.hasPrefix("Paragraph 0 with some text.\nParagraph 1") == true)
        #expect(try editor.undo())
        #expect(editor.storage?.string == "")
    }

    @Test func anUnreadablePasteChangesNothing() throws {
        let editor = try Self.editor(paragraphs: ["keep"])
        try editor.selectionDidChange(2..<2)
        let deep = String(repeating: "<div>", count: 2000) + "x"
        #expect {
            try editor.pasteHTML(deep, converter: BuiltIns.converter)
        } throws: { error in
            guard case .cannotImport(_, let reason, let range)? = (error as? EditorError)?.thrownError as? MarkupError else { return false }
            return reason.contains("deeper than 512") && range?.start.byteOffset == 512 * 5
        }
        #expect(editor.storage?.string == "keep")
        #expect(try !editor.undo())
    }

    @Test func copyGivesHTMLAndPlainTextOfTheSelection() throws {
        let source = try BuiltIns.converter.state(fromHTML: "<h1>Title</h1><p>Some <b>bold</b> text</p><ul><li>one</li><li>two</li></ul><p>after</p>")
        let editor = try Self.editor(source)
        // "Title\nSome bold text\none\ntwo\nafter": from "tle" to "t" of "two".
        try editor.selectionDidChange(2..<26)
        let copied = try editor.copySelection(converter: BuiltIns.converter)
        #expect(copied.plainText == "tle\nSome bold text\none\nt")
        #expect(copied.html == "<h1>tle</h1>\n<p>Some <strong>bold</strong> text</p>\n<ul>\n<li>one</li>\n<li>t</li>\n</ul>\n")
        // What was copied pastes back as the same blocks (before the empty paragraph it went into).
        let target = try Self.editor(paragraphs: [""])
        try target.selectionDidChange(0..<0)
        try target.pasteHTML(copied.html, converter: BuiltIns.converter)
        #expect(target.storage?.string.hasPrefix(copied.plainText) == true)
        #expect(Outline.of(target.state).hasPrefix(#"heading{tag="h1"}("tle") paragraph("Some " b:"bold" " text") list{tag="ul",listType="bullet",start=1}(listitem("one") listitem("t"))"#))
    }

    @Test func copyInsideOneTextNodeAndOfNothing() throws {
        let editor = try Self.editor(paragraphs: ["alpha beta", "gamma"])
        try editor.selectionDidChange(6..<10)
        #expect(try editor.copySelection(converter: BuiltIns.converter) == ClipboardContent(html: "<p>beta</p>\n", plainText: "beta"))
        try editor.selectionDidChange(10..<16)
        #expect(try editor.copySelection(converter: BuiltIns.converter) == ClipboardContent(html: "<p>gamma</p>\n", plainText: "gamma"))
        try editor.selectionDidChange(3..<3)
        #expect(try editor.copySelection(converter: BuiltIns.converter) == ClipboardContent(html: "", plainText: ""))
    }
}
