import QuireCode
import QuireEditor
import QuireModel
import Testing

/// Code block commands and editing, as Lexical's `CodeNode`.
@Suite struct CodeTests {
    @Test func toggleCodeBlockFlattensInlineElementsAndTurnsBack() throws {
        let link: JSONValue = .object([
            "children": .array([text("link")]), "direction": .null, "format": .string(""), "indent": int(0),
            "rel": .null, "target": .null, "title": .null, "type": .string("link"), "url": .string("https://x.dev"), "version": int(1),
        ])
        var state = try Blocks.state(document(paragraph(text("a "), link)))
        try state.select(.text(Blocks.key(state, 0, 0), 1))
        try state.toggleCodeBlock(language: "swift")
        #expect(LexicalJSON.export(state) == document(code("swift", text("a "), text("link"))))
        #expect(FlatString.render(state) == "a link")
        #expect(state.selection?.anchor == .text(Blocks.key(state, 0, 0), 1))
        try state.setCodeLanguage("python")
        #expect(LexicalJSON.export(state) == document(code("python", text("a "), text("link"))))
        try state.toggleCodeBlock()
        #expect(LexicalJSON.export(state) == document(paragraph(text("a "), text("link"))))
    }

    @Test func enterAddsALineWithTheLineIndentation() throws {
        var state = try Blocks.state(document(code("js", tab(), highlight("  let x"))))
        try state.select(.text(Blocks.key(state, 0, 1), 7))
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(code("js", tab(), highlight("  let x"), lineBreak(), tab(), highlight("  "))))
        #expect(FlatString.render(state) == "\t  let x\n\t  ")
        #expect(state.selection?.anchor == .text(Blocks.key(state, 0, 4), 2))
    }

    @Test func enterInTheMiddleOfALineSplitsIt() throws {
        var state = try Blocks.state(document(code(nil, highlight("abcd"))))
        try state.select(.text(Blocks.key(state, 0, 0), 2))
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(code(nil, highlight("ab"), lineBreak(), highlight("cd"))))
        #expect(state.selection?.anchor == .text(Blocks.key(state, 0, 2), 0))
    }

    @Test func enterAfterTwoEmptyLinesLeavesTheBlock() throws {
        var state = try Blocks.state(document(code("js", highlight("a"), lineBreak(), lineBreak())))
        try state.select(.element(Blocks.key(state, 0), 3))
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(code("js", highlight("a")), paragraph()))
        #expect(FlatString.render(state) == "a\n")
        #expect(state.selection?.anchor == .element(Blocks.key(state, 1), 0))
    }

    @Test func backspaceAtTheStartMakesAParagraphOfPlainText() throws {
        var state = try Blocks.state(document(paragraph(text("p")), code("js", highlight("x"), lineBreak(), highlight("y"))))
        try state.select(.text(Blocks.key(state, 1, 0), 0))
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(paragraph(text("p")), paragraph(text("x"), lineBreak(), text("y"))))
        #expect(state.selection?.anchor == .text(Blocks.key(state, 1, 0), 0))
    }

    @Test func typingAndDeletingEditACodeHighlightInPlace() throws {
        var state = try Blocks.state(document(code(nil, highlight("ab"))))
        let ab = Blocks.key(state, 0, 0)
        try state.select(.text(ab, 1))
        try state.insertText("X")
        #expect(LexicalJSON.export(state) == document(code(nil, highlight("aXb"))))
        #expect(state.selection?.anchor == .text(ab, 2))
        try state.deleteCharacter(backward: true)
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(code(nil, highlight("b"))))
        #expect(state.selection?.anchor == .text(ab, 0))
    }

    @Test func threeNativeEntersAtTheEndLeaveTheBlock() throws {
        let editor = try Blocks.editor(try Blocks.state(document(code("swift", highlight("a")))))
        let storage = try #require(editor.storage)
        #expect(try storage.attributes(at: 0).attributes[CodeAttributes.codeBlock] == .bool(true))
        #expect(try storage.attributes(at: 0).attributes[CodeAttributes.language] == .string("swift"))
        try editor.selectionDidChange(1..<1)
        try editor.replaceCharacters(in: 1..<1, with: "\n")
        #expect(Blocks.native(editor) == ("a\n", 2..<2))
        try editor.replaceCharacters(in: 2..<2, with: "\n")
        #expect(Blocks.native(editor) == ("a\n\n", 3..<3))
        #expect(LexicalJSON.export(editor.state) == document(code("swift", highlight("a"), lineBreak(), lineBreak())))
        try editor.replaceCharacters(in: 3..<3, with: "\n")
        #expect(LexicalJSON.export(editor.state) == document(code("swift", highlight("a")), paragraph()))
        #expect(Blocks.native(editor) == ("a\n", 2..<2))
        #expect(try editor.dispatch(CodeCommands.toggleCodeBlock, nil))
        #expect(LexicalJSON.export(editor.state) == document(code("swift", highlight("a")), code(nil)))
    }
}
