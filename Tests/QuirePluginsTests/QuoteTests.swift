import QuireEditor
import QuireModel
import QuireQuote
import QuireStyle
import Testing

/// Quote commands and editing.
@Suite struct QuoteTests {
    @Test func toggleQuoteTurnsBlocksIntoQuotesAndBack() throws {
        var state = try Blocks.state(document(paragraph(text("a")), heading("h1", text("b"))))
        let a = Blocks.key(state, 0, 0)
        try state.select(anchor: .text(a, 0), focus: .text(Blocks.key(state, 1, 0), 1))
        try state.toggleQuote()
        #expect(LexicalJSON.export(state) == document(quote(text("a")), quote(text("b"))))
        #expect(FlatString.render(state) == "a\nb")
        #expect(state.selection?.anchor == .text(a, 0))
        try state.toggleQuote()
        #expect(LexicalJSON.export(state) == document(paragraph(text("a")), paragraph(text("b"))))
    }

    @Test func enterMakesAParagraphEvenInTheMiddle() throws {
        var middle = try Blocks.state(document(quote(text("abc"))))
        try middle.select(.text(Blocks.key(middle, 0, 0), 1))
        try middle.insertParagraph()
        #expect(LexicalJSON.export(middle) == document(quote(text("a")), paragraph(text("bc"))))
        #expect(middle.selection?.anchor == .text(Blocks.key(middle, 1, 0), 0))

        var end = try Blocks.state(document(quote(text("abc"))))
        try end.select(.text(Blocks.key(end, 0, 0), 3))
        try end.insertParagraph()
        #expect(LexicalJSON.export(end) == document(quote(text("abc")), paragraph()))
        #expect(end.selection?.anchor == .element(Blocks.key(end, 1), 0))

        var start = try Blocks.state(document(quote(text("abc"))))
        let abc = Blocks.key(start, 0, 0)
        try start.select(.text(abc, 0))
        try start.insertParagraph()
        #expect(LexicalJSON.export(start) == document(paragraph(), quote(text("abc"))))
        #expect(start.selection?.anchor == .text(abc, 0))
    }

    @Test func backspaceAtTheStartOfAQuoteMakesAParagraph() throws {
        var empty = try Blocks.state(document(paragraph(text("p")), quote()))
        try empty.select(.element(Blocks.key(empty, 1), 0))
        try empty.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(empty) == document(paragraph(text("p")), paragraph()))
        #expect(empty.selection?.anchor == .element(Blocks.key(empty, 1), 0))

        var full = try Blocks.state(document(paragraph(text("p")), quote(text("q"))))
        let q = Blocks.key(full, 1, 0)
        try full.select(.text(q, 0))
        try full.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(full) == document(paragraph(text("p")), paragraph(text("q"))), "Lexical's QuoteNode.collapseAtStart")
        #expect(full.selection?.anchor == .text(q, 0))
    }

    @Test func throughAnEditorWithTheTheme() throws {
        let editor = try Blocks.editor(try Blocks.state(document(paragraph(text("p")), paragraph(text("q")))))
        try editor.selectionDidChange(2..<2)
        #expect(try editor.dispatch(QuoteCommands.toggleQuote))
        #expect(LexicalJSON.export(editor.state) == document(paragraph(text("p")), quote(text("q"))))
        let storage = try #require(editor.storage)
        #expect(try storage.attributes(at: 2).attributes[QuoteAttributes.blockQuote] == .bool(true))
        #expect(try storage.attributes(at: 0).attributes[QuoteAttributes.blockQuote] == nil)
        try editor.replaceCharacters(in: 1..<2, with: "")
        #expect(LexicalJSON.export(editor.state) == document(paragraph(text("p")), paragraph(text("q"))))
        #expect(Blocks.native(editor) == ("p\nq", 2..<2))
        #expect(try storage.attributes(at: 2).attributes[QuoteAttributes.blockQuote] == nil)
    }
}
