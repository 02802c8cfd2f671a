import QuireEditor
import QuireList
import QuireModel
import Testing

/// Enter and Backspace in list items, through the model's hooks: on a state, and through an
/// editor with a text storage as a text view sends them ("\n" typed, a backspace as the deletion
/// of the character before the caret).
@Suite struct ListKeyTests {
    /// A state from `document` with a caret at `offset` in the node at `path`.
    func state(_ document: JSONValue, caretAt path: [Int], _ offset: Int) throws -> EditorState {
        var state = try Blocks.state(document)
        var key = NodeKey.root
        for index in path { key = try #require(state.child(at: index, of: key)) }
        try state.select(state[key]?.role == .text ? .text(key, offset) : .element(key, offset))
        return state
    }

    let twoItems = document(list(.number, item(1, text("one")), item(2, text("two"))))

    @Test func enterAtTheEndOfAnItemAddsAnItemAfterIt() throws {
        var state = try state(twoItems, caretAt: [0, 0, 0], 3)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(list(.number, item(1, text("one")), item(2), item(3, text("two")))))
        #expect(FlatString.render(state) == "one\n\ntwo")
        #expect(state.selection?.anchor == .element(Blocks.key(state, 0, 1), 0))
    }

    @Test func enterInTheMiddleSplitsTheItem() throws {
        var state = try state(twoItems, caretAt: [0, 0, 0], 2)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(list(.number, item(1, text("on")), item(2, text("e")), item(3, text("two")))))
        #expect(state.selection?.anchor == .text(Blocks.key(state, 0, 1, 0), 0))
    }

    @Test func enterAtTheStartPutsAnEmptyUncheckedItemBefore() throws {
        let checked = document(list(.check, item(1, checked: true, text("one"))))
        var state = try state(checked, caretAt: [0, 0, 0], 0)
        let one = Blocks.key(state, 0, 0, 0)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(list(.check, item(1, checked: false), item(2, checked: true, text("one")))))
        #expect(state.selection?.anchor == .text(one, 0))
    }

    @Test func enterInAnEmptyLastItemLeavesTheList() throws {
        var state = try state(document(list(.bullet, item(1, text("a")), item(2))), caretAt: [0, 1], 0)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(list(.bullet, item(1, text("a"))), paragraph()))
        #expect(FlatString.render(state) == "a\n")
        #expect(state.selection?.anchor == .element(Blocks.key(state, 1), 0))
    }

    @Test func enterInAnEmptyMiddleItemSplitsTheList() throws {
        var state = try state(document(list(.number, start: 4, item(4, text("a")), item(5), item(6, text("c")))), caretAt: [0, 1], 0)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(
            list(.number, start: 4, item(4, text("a"))), paragraph(), list(.number, item(1, text("c")))))
        #expect(state.selection?.anchor == .element(Blocks.key(state, 1), 0))
    }

    @Test func enterInAWhiteSpaceItemLeavesTheListToo() throws {
        var state = try state(document(list(.bullet, item(1, text("  ")))), caretAt: [0, 0, 0], 2)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(paragraph()))
    }

    @Test func enterInAnEmptyNestedItemOutdentsIt() throws {
        let nested = document(list(.number,
            item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("x")), item(2, indent: 1), item(3, indent: 1, text("y")))),
            item(2, text("b"))))
        var state = try state(nested, caretAt: [0, 1, 0, 1], 0)
        try state.insertParagraph()
        #expect(LexicalJSON.export(state) == document(list(.number,
            item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("x")))), item(2),
            item(3, list(.number, item(1, indent: 1, text("y")))), item(3, text("b")))))
        #expect(FlatString.render(state) == "a\nx\n\ny\nb")
        #expect(state.selection?.anchor == .element(Blocks.key(state, 0, 2), 0))
    }

    @Test func backspaceAtTheStartOfATopLevelItemMakesAParagraphAndSplitsTheList() throws {
        var state = try state(document(list(.number, item(1, text("a")), item(2, text("b")), item(3, text("c")))), caretAt: [0, 1, 0], 0)
        let b = Blocks.key(state, 0, 1, 0)
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(
            list(.number, item(1, text("a"))), paragraph(text("b")), list(.number, item(1, text("c")))))
        #expect(FlatString.render(state) == "a\nb\nc")
        #expect(state.selection?.anchor == .text(b, 0))
    }

    @Test func backspaceAtTheStartOfTheFirstItemMakesAParagraphBeforeTheList() throws {
        var state = try state(twoItems, caretAt: [0, 0, 0], 0)
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(paragraph(text("one")), list(.number, item(1, text("two")))))
        #expect(state.selection?.anchor == .text(Blocks.key(state, 0, 0), 0))
    }

    @Test func backspaceAtTheStartOfANestedItemOutdentsIt() throws {
        var state = try state(document(list(.bullet, item(1, text("a")), item(2, list(.bullet, item(1, indent: 1, text("x")))))), caretAt: [0, 1, 0, 0, 0], 0)
        let x = Blocks.key(state, 0, 1, 0, 0, 0)
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(list(.bullet, item(1, text("a")), item(2, text("x")))))
        #expect(state.selection?.anchor == .text(x, 0))
    }

    @Test func backspaceInsideAnItemDeletesACharacter() throws {
        var state = try state(twoItems, caretAt: [0, 1, 0], 1)
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(list(.number, item(1, text("one")), item(2, text("wo")))))
    }

    // MARK: Through an editor, as a text view sends the keys

    @Test func nativeEnterAndBackspaceRunTheListHooks() throws {
        let editor = try Blocks.editor(try Blocks.state(document(list(.number, item(1, text("one")), item(2, text("two"))))))
        try editor.selectionDidChange(3..<3)
        try editor.replaceCharacters(in: 3..<3, with: "\n")
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("one")), item(2), item(3, text("two")))))
        #expect(Blocks.native(editor).text == "one\n\ntwo")
        #expect(Blocks.native(editor).selection == 4..<4)

        try editor.replaceCharacters(in: 4..<4, with: "\n")
        #expect(LexicalJSON.export(editor.state) == document(
            list(.number, item(1, text("one"))), paragraph(), list(.number, item(1, text("two")))))
        #expect(Blocks.native(editor).selection == 4..<4)

        // Backspace on the empty paragraph, then at the start of "two": the lists meet and merge.
        try editor.replaceCharacters(in: 3..<4, with: "")
        #expect(Blocks.native(editor).text == "one\ntwo")
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("one")), item(2, text("two")))),
                "the list transform merges lists of the same type that meet, and renumbers once")
        #expect(Blocks.native(editor).selection == 3..<3)

        try editor.selectionDidChange(4..<4)
        try editor.replaceCharacters(in: 3..<4, with: "")
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("one"))), paragraph(text("two"))))
        #expect(Blocks.native(editor).text == "one\ntwo")
        #expect(Blocks.native(editor).selection == 4..<4)
    }

    @Test func nativeBackspaceOutdentsANestedItem() throws {
        let editor = try Blocks.editor(try Blocks.state(document(list(.bullet,
            item(1, text("a")), item(2, list(.bullet, item(1, indent: 1, text("x")), item(2, indent: 1, text("y"))))))))
        try editor.selectionDidChange(4..<4)
        try editor.replaceCharacters(in: 3..<4, with: "")
        #expect(LexicalJSON.export(editor.state) == document(list(.bullet,
            item(1, text("a")), item(2, list(.bullet, item(1, indent: 1, text("x")))), item(2, text("y")))))
        #expect(Blocks.native(editor).text == "a\nx\ny")
        #expect(Blocks.native(editor).selection == 4..<4)
    }

    @Test func commandsThroughAnEditorKeepTheStorageInStep() throws {
        let editor = try Blocks.editor(try Blocks.state(document(paragraph(text("a")), paragraph(text("b")))))
        try editor.selectionDidChange(0..<3)
        #expect(try editor.dispatch(ListCommands.insertList, .number))
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("a")), item(2, text("b")))))
        try editor.selectionDidChange(2..<2)
        #expect(try editor.dispatch(Commands.keyTab, false))
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("b")))))))
        #expect(Blocks.native(editor) == ("a\nb", 2..<2))
        #expect(try editor.dispatch(Commands.keyTab, true))
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("a")), item(2, text("b")))))
        #expect(try editor.dispatch(ListCommands.toggleList, .number))
        #expect(LexicalJSON.export(editor.state) == document(paragraph(text("a")), paragraph(text("b"))))
        #expect(try !editor.dispatch(Commands.keyTab, false), "Tab outside a list is left to the text view")
        #expect(Blocks.native(editor) == ("a\nb", 2..<2))
    }
}
