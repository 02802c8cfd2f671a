import Foundation
import QuireEditor
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTable
import QuireTextStorage
import Testing

/// Tables through an `Editor` with a `TextStorage`: the commands, Tab, and what a text view sends
/// (the reconciler checks the storage against a full render after every commit in debug builds).
@Suite struct TableEditorTests {
    /// "ab" then a 2×2 table of "a1", "b1" / "a2", "b2": flat "ab\na1\tb1\na2\tb2".
    func tableEditor() throws -> (Editor, TextStorage, cells: [[NodeKey]]) {
        var state = try PluginFixture.state(["ab"])
        let (_, cells) = try PluginFixture.appendTable([["a1", "b1"], ["a2", "b2"]], to: &state)
        let (editor, storage) = try PluginFixture.editor(state)
        return (editor, storage, cells)
    }

    func expectConsistent(_ editor: Editor, _ storage: TextStorage, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(storage.string == FlatString.render(editor.state), sourceLocation: sourceLocation)
        #expect(TableMap.violations(in: editor.state).isEmpty, "\(TableMap.violations(in: editor.state))", sourceLocation: sourceLocation)
    }

    static let original = J.document(J.p("ab"), J.table(J.row(J.c("a1"), J.c("b1")), J.row(J.c("a2"), J.c("b2"))))

    // MARK: Editing boundaries

    @Test func backspaceAtACellsStartChangesNothing() throws {
        let (editor, storage, _) = try tableEditor()
        // "ab\na1\tb1…": b1 starts at 6.
        try editor.selectionDidChange(6..<6)
        try editor.dispatch(Commands.deleteCharacter, true)
        expectJSON(editor.state, Self.original)
        #expect(editor.nativeSelection == 6..<6)
        // What a text view sends: the tab before the caret.
        try editor.replaceCharacters(in: 5..<6, with: "")
        expectJSON(editor.state, Self.original)
        #expect(storage.string == "ab\na1\tb1\na2\tb2")
        #expect(editor.nativeSelection == 5..<5, "the caret moves over the separator")
        expectConsistent(editor, storage)
    }

    @Test func deleteAtACellsEndChangesNothing() throws {
        let (editor, storage, _) = try tableEditor()
        try editor.selectionDidChange(8..<8)
        try editor.dispatch(Commands.deleteCharacter, false)
        expectJSON(editor.state, Self.original)
        try editor.replaceCharacters(in: 8..<9, with: "")
        expectJSON(editor.state, Self.original)
        // Delete at the end of the paragraph before the table does not pull "a1" out.
        try editor.selectionDidChange(2..<2)
        try editor.dispatch(Commands.deleteCharacter, false)
        try editor.replaceCharacters(in: 2..<3, with: "")
        expectJSON(editor.state, Self.original)
        expectConsistent(editor, storage)
    }

    @Test func replacingARangeAcrossCellsKeepsEveryCell() throws {
        let (editor, storage, _) = try tableEditor()
        // From "a|1" to "b|2": the text between goes, the cells stay.
        try editor.replaceCharacters(in: 4..<12, with: "X")
        expectJSON(editor.state, J.document(J.p("ab"), J.table(J.row(J.c("aX"), J.c("")), J.row(J.c(""), J.c("b2")))))
        #expect(storage.string == "ab\naX\t\n\tb2")
        #expect(editor.nativeSelection == 5..<5)
        // From the paragraph before the table into it.
        try editor.replaceCharacters(in: 1..<5, with: "")
        expectJSON(editor.state, J.document(J.p("a"), J.table(J.row(J.c(""), J.c("")), J.row(J.c(""), J.c("b2")))))
        #expect(storage.string == "a\n\t\n\tb2")
        #expect(editor.nativeSelection == 1..<1)
        expectConsistent(editor, storage)
    }

    @Test func enterInACellMakesAParagraphInTheCell() throws {
        let (editor, storage, cells) = try tableEditor()
        try editor.replaceCharacters(in: 7..<7, with: "\n")
        expectJSON(editor.state, J.document(J.p("ab"), J.table(J.row(J.c("a1"), J.cell([J.p("b"), J.p("1")])), J.row(J.c("a2"), J.c("b2")))))
        #expect(storage.string == "ab\na1\tb\n1\na2\tb2")
        #expect(editor.nativeSelection == 8..<8)
        let second = try #require(editor.state[cells[0][1]]?.lastChild)
        #expect(editor.state.selection?.anchor == .text(try #require(editor.state[second]?.firstChild), 0))
        // A multi-line paste stays in the cell too.
        try editor.replaceCharacters(in: 11..<11, with: "x\ny\nz")
        expectJSON(editor.state, J.document(
            J.p("ab"),
            J.table(J.row(J.c("a1"), J.cell([J.p("b"), J.p("1")])), J.row(J.cell([J.p("ax"), J.p("y"), J.p("z2")]), J.c("b2")))
        ))
        #expect(storage.string == "ab\na1\tb\n1\nax\ny\nz2\tb2")
        #expect(editor.nativeSelection == 16..<16)
        expectConsistent(editor, storage)
    }

    // MARK: Commands

    @Test func insertTableCommandThroughTheEditor() throws {
        let (editor, storage) = try PluginFixture.editor(try PluginFixture.state(["abcd"]))
        try editor.selectionDidChange(2..<2)
        #expect(try editor.dispatch(TableCommands.insertTable, InsertTableOptions(rows: 2, columns: 3, headers: .firstRow)))
        expectJSON(editor.state, J.document(
            J.p("ab"),
            J.table(J.row(J.c("", header: 1), J.c("", header: 1), J.c("", header: 1)), J.row(J.c(""), J.c(""), J.c(""))),
            J.p("cd")
        ))
        #expect(storage.string == "ab\n\t\t\n\t\t\ncd")
        #expect(editor.nativeSelection == 3..<3)
        #expect(try !editor.dispatch(TableCommands.insertTable, InsertTableOptions(rows: 1, columns: 1)), "no nested tables")
        try editor.replaceCharacters(in: 3..<3, with: "x")
        #expect(storage.string == "ab\nx\t\t\n\t\t\ncd")
        #expect(try editor.undo())
        #expect(try editor.undo())
        expectJSON(editor.state, J.document(J.p("abcd")))
        expectConsistent(editor, storage)
    }

    @Test func rowAndColumnCommandsThroughTheEditor() throws {
        let (editor, storage, _) = try tableEditor()
        try editor.selectionDidChange(7..<7)  // in b1
        #expect(try editor.dispatch(TableCommands.insertRowBelow))
        #expect(try editor.dispatch(TableCommands.insertRowAbove))
        expectJSON(editor.state, J.document(J.p("ab"), J.table(
            J.row(J.c(""), J.c("")), J.row(J.c("a1"), J.c("b1")), J.row(J.c(""), J.c("")), J.row(J.c("a2"), J.c("b2"))
        )))
        #expect(storage.string == "ab\n\t\na1\tb1\n\t\na2\tb2")
        #expect(editor.nativeSelection == 9..<9, "row inserts keep the caret in b1")
        #expect(try editor.dispatch(TableCommands.insertColumnBefore))
        #expect(editor.nativeSelection == 4..<4, "the caret goes to the first new cell, in the top row")
        #expect(try editor.dispatch(TableCommands.insertColumnAfter))
        expectJSON(editor.state, J.document(J.p("ab"), J.table(
            J.row(J.c(""), J.c(""), J.c(""), J.c("")), J.row(J.c("a1"), J.c(""), J.c(""), J.c("b1")),
            J.row(J.c(""), J.c(""), J.c(""), J.c("")), J.row(J.c("a2"), J.c(""), J.c(""), J.c("b2"))
        )))
        #expect(editor.nativeSelection == 5..<5)
        #expect(try editor.dispatch(TableCommands.deleteColumns))
        #expect(editor.nativeSelection == 5..<5, "the caret goes to the column after")
        try editor.selectionDidChange(4..<4)
        #expect(try editor.dispatch(TableCommands.deleteColumns))
        try editor.selectionDidChange(3..<3)
        #expect(try editor.dispatch(TableCommands.deleteRows))
        #expect(editor.nativeSelection == 3..<3, "the caret goes to the row after")
        try editor.selectionDidChange(9..<9)
        #expect(try editor.dispatch(TableCommands.deleteRows))
        expectJSON(editor.state, Self.original)
        #expect(storage.string == "ab\na1\tb1\na2\tb2")
        expectConsistent(editor, storage)
        // Outside a table the commands are not handled and change nothing.
        try editor.selectionDidChange(1..<1)
        for command in [TableCommands.insertRowAbove, TableCommands.insertColumnAfter, TableCommands.deleteRows, TableCommands.unmergeCell] {
            #expect(try !editor.dispatch(command))
        }
        #expect(try !editor.dispatch(TableCommands.mergeCells, nil))
        expectJSON(editor.state, Self.original)
    }

    @Test func mergeAndUnmergeThroughTheEditor() throws {
        let (editor, storage, cells) = try tableEditor()
        try editor.selectionDidChange(4..<11)  // from a1 to a2
        #expect(try editor.dispatch(TableCommands.mergeCells, nil))
        expectJSON(editor.state, J.document(J.p("ab"), J.table(J.row(J.cell([J.p("a1"), J.p("a2")], rowSpan: 2), J.c("b1")), J.row(J.c("b2")))))
        #expect(storage.string == "ab\na1\na2\tb1\nb2")
        #expect(editor.nativeSelection == 3..<3)
        #expect(try editor.dispatch(TableCommands.unmergeCell))
        expectJSON(editor.state, J.document(J.p("ab"), J.table(J.row(J.cell([J.p("a1"), J.p("a2")]), J.c("b1")), J.row(J.c(""), J.c("b2")))))
        let table = try #require(editor.state.table(ofCell: cells[0][0]))
        #expect(try editor.dispatch(TableCommands.mergeCells, TableCellRange(table: table, rows: 0...0, columns: 0...1)))
        expectJSON(editor.state, J.document(J.p("ab"), J.table(J.row(J.cell([J.p("a1"), J.p("a2"), J.p("b1")], colSpan: 2)), J.row(J.c(""), J.c("b2")))))
        #expect(throws: TableError.outsideTable(rows: 0...9, columns: 0...0, rowCount: 2, columnCount: 2).editorError(command: "table.mergeCells")) {
            try editor.dispatch(TableCommands.mergeCells, TableCellRange(table: table, rows: 0...9, columns: 0...0))
        }
        expectConsistent(editor, storage)
    }

    @Test func tabAndShiftTabThroughTheEditor() throws {
        let (editor, storage, _) = try tableEditor()
        try editor.selectionDidChange(4..<4)
        #expect(try editor.dispatch(Commands.keyTab, false))
        #expect(editor.nativeSelection == 8..<8, "the end of b1")
        #expect(try editor.dispatch(Commands.keyTab, false))
        #expect(try editor.dispatch(Commands.keyTab, false))
        #expect(editor.nativeSelection == 14..<14)
        #expect(try editor.dispatch(Commands.keyTab, false), "the last cell adds a row")
        expectJSON(editor.state, J.document(J.p("ab"), J.table(J.row(J.c("a1"), J.c("b1")), J.row(J.c("a2"), J.c("b2")), J.row(J.c(""), J.c("")))))
        #expect(storage.string == "ab\na1\tb1\na2\tb2\n\t")
        #expect(editor.nativeSelection == 15..<15)
        #expect(try editor.dispatch(Commands.keyTab, true))
        #expect(editor.nativeSelection == 14..<14)
        try editor.selectionDidChange(3..<3)
        #expect(try editor.dispatch(Commands.keyTab, true))
        #expect(editor.nativeSelection == 2..<2, "Shift-Tab in the first cell leaves the table")
        #expect(try !editor.dispatch(Commands.keyTab, false), "outside a table Tab is left to others")
        expectConsistent(editor, storage)
    }

    // MARK: Theme

    @Test func cellsCarryTheirAttributes() throws {
        var state = try PluginFixture.state(["ab"])
        let (_, cells) = try PluginFixture.appendTable([["a1", "b1"]], to: &state, headerRow: true)
        try state.setTableCellBackgroundColor("#eee", of: cells[0][1])
        let (_, storage) = try PluginFixture.editor(state)
        let attributes = try storage.attributes(at: 6).attributes.values
        #expect(attributes[TableTheme.Keys.table] == .bool(true))
        #expect(attributes[TableTheme.Keys.cell] == .record(["headerState": 1, "colSpan": 1, "rowSpan": 1, "backgroundColor": "#eee"]))
        #expect(try storage.attributes(at: 5).attributes.values[TableTheme.Keys.cell] == .record(["headerState": 1, "colSpan": 1, "rowSpan": 1]), "the tab belongs to the cell before it")
        #expect(try storage.attributes(at: 0).attributes.values[TableTheme.Keys.table] == nil)
    }
}
