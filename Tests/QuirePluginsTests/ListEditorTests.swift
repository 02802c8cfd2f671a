import QuireEditor
import QuireList
import QuireModel
import QuireReconciler
import QuireTextStorage
import Testing

/// Lists in an editor with a text storage: markers as attributes, and the transforms that keep
/// numbers and shape right after edits the list commands do not make themselves.
@Suite struct ListEditorTests {
    func attributes(_ editor: Editor, at location: Int) throws -> Attributes {
        try #require(editor.storage).attributes(at: location).attributes
    }

    @Test func markersAreAttributesNotText() throws {
        let editor = try Blocks.editor(try Blocks.state(document(
            list(.number, item(1, text("a")), item(2, list(.check, item(1, indent: 1, checked: true, text("x")))), item(2, text("b"))))))
        #expect(Blocks.native(editor).text == "a\nx\nb", "the flat string is Lexical iOS's: no marker text")
        let a = try attributes(editor, at: 0)
        #expect(a[ListAttributes.listType] == .string("number"))
        #expect(a[ListAttributes.itemValue] == .int(1))
        #expect(a[ListAttributes.itemIndent] == .int(0))
        #expect(a[ListAttributes.itemChecked] == nil)
        let x = try attributes(editor, at: 2)
        #expect(x[ListAttributes.listType] == .string("check"), "the nearest list wins")
        #expect(x[ListAttributes.itemValue] == .int(1))
        #expect(x[ListAttributes.itemIndent] == .int(1))
        #expect(x[ListAttributes.itemChecked] == .bool(true))
        #expect(try attributes(editor, at: 4)[ListAttributes.itemValue] == .int(2))

        // A new first item renumbers the rest; the reconciler restyles each renumbered item.
        try editor.selectionDidChange(0..<0)
        try editor.replaceCharacters(in: 0..<0, with: "\n")
        #expect(Blocks.native(editor) == ("\na\nx\nb", 1..<1))
        #expect(try attributes(editor, at: 1)[ListAttributes.itemValue] == .int(2))
        #expect(try attributes(editor, at: 5)[ListAttributes.itemValue] == .int(3))
        try editor.selectionDidChange(3..<3)
        #expect(try editor.dispatch(ListCommands.toggleChecked, nil))
        #expect(try attributes(editor, at: 3)[ListAttributes.itemChecked] == .bool(false))
        try editor.reconciler.verify(editor.state)
    }

    @Test func pastingLinesIntoAnItemMakesItemsAndRenumbers() throws {
        let editor = try Blocks.editor(try Blocks.state(document(list(.number, item(1, text("ab")), item(2, text("c"))))))
        try editor.selectionDidChange(1..<1)
        try editor.replaceCharacters(in: 1..<1, with: "x\ny\nz")
        #expect(LexicalJSON.export(editor.state) == document(
            list(.number, item(1, text("ax")), item(2, text("y")), item(3, text("zb")), item(4, text("c")))))
        #expect(Blocks.native(editor) == ("ax\ny\nzb\nc", 6..<6))
    }

    @Test func deletingAcrossItemsRenumbers() throws {
        let editor = try Blocks.editor(try Blocks.state(document(
            list(.number, item(1, text("one")), item(2, text("two")), item(3, text("three")), item(4, text("four"))))))
        try editor.selectionDidChange(1..<10)
        try editor.replaceCharacters(in: 1..<10, with: "Q")
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("oQree")), item(2, text("four")))))
        #expect(Blocks.native(editor) == ("oQree\nfour", 2..<2))
        // Delete at the end of an item merges the next one into it (the default merge).
        try editor.selectionDidChange(5..<5)
        #expect(try editor.dispatch(Commands.deleteCharacter, false))
        #expect(LexicalJSON.export(editor.state) == document(list(.number, item(1, text("oQreefour")))))
    }

    @Test func anItemOutsideAListGetsAListAndListsOfATypeThatMeetMerge() throws {
        let editor = try Blocks.editor(try Blocks.state(document(list(.bullet, item(1, text("a"))), paragraph(text("b")))))
        try editor.selectionDidChange(2..<2)
        #expect(try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: ListItemNodePlugin.type)))
        #expect(LexicalJSON.export(editor.state) == document(list(.bullet, item(1, text("a")), item(2, text("b")))))
        #expect(Blocks.native(editor) == ("a\nb", 2..<2))
    }

    /// How many list items an update wrote, from the editor's update listener.
    func writtenItems(_ editor: Editor, _ edit: () throws -> Void) throws -> Int {
        var written = 0
        let token = editor.registerUpdateListener { update in
            guard !update.transaction.isSelectionOnly else { return }
            written = update.dirtyNodes.filter { update.state[$0]?.type == ListItemNodePlugin.type }.count
        }
        defer { editor.unregister(token) }
        try edit()
        return written
    }

    @Test func renumberingCostsTheItemsAfterTheEdit() throws {
        let count = 300
        var state = EditorState(registry: try Blocks.registry())
        let listKey = try state.createNode(type: ListNodePlugin.type, fields: ListType.number.listFields)
        try state.append(listKey, to: .root)
        for index in 1...count {
            let item = try state.createNode(type: ListItemNodePlugin.type, fields: ["value": int(index)])
            try state.append(item, to: listKey)
            try state.append(try state.createNode(type: .text, text: "item \(index)"), to: item)
        }
        let editor = try Blocks.editor(state)
        editor.reconciler.checksInvariants = false
        let end = try #require(editor.storage?.length)
        try editor.selectionDidChange(end..<end)
        #expect(try writtenItems(editor) { try editor.replaceCharacters(in: end..<end, with: "\n") } <= 2,
                "at the bottom: the new item and its neighbour")
        try editor.selectionDidChange(0..<0)
        #expect(try writtenItems(editor) { try editor.replaceCharacters(in: 0..<0, with: "\n") } == count + 2,
                "at the top: every item gets a new number, once")
        let values = editor.state.children(of: listKey).map { $0.fields["value"]?.intValue }
        #expect(values == (1...(count + 2)).map { Optional($0) })
        editor.reconciler.checksInvariants = true
        try editor.reconciler.verify(editor.state)
    }

    @Test func theBatchTransformStartsAtTheFirstWrittenItemOfEachList() throws {
        var state = try Blocks.state(document(list(.number, item(1, text("a")), item(2, text("b")), item(3, text("c")))))
        let items = state.children(of: Blocks.key(state, 0)).map(\.key)
        // Values as an edit elsewhere left them: everything from "b" on is off by 5.
        try state.setField("value", to: int(7), of: items[1])
        try state.setField("value", to: int(8), of: items[2])
        try state.normalizeListItems(afterWriting: [items[2], items[1]])
        #expect(state.children(of: Blocks.key(state, 0)).map { $0.fields["value"]?.intValue } == [1, 2, 3])
    }
}
