import Foundation
import QuireEditor
import QuireModel
import QuireTable
import QuireTextStorage
import Testing

/// Table commands and editing, at state level: each test checks the resulting Lexical JSON (as a
/// JSON value), the flat string and the selection, and that the table is still a proper grid.
@Suite struct TableCommandTests {
    func expectValid(_ state: EditorState, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(TableMap.violations(in: state).isEmpty, "\(TableMap.violations(in: state))", sourceLocation: sourceLocation)
    }

    // MARK: Inserting tables

    @Test func insertTableSplitsTheParagraphAndSelectsTheFirstCell() throws {
        var state = try PluginFixture.state(["abcd"])
        let text = try #require(FlatString.render(state) == "abcd" ? state[state.root.firstChild!]?.firstChild : nil)
        try state.select(.text(text, 2))
        let table = try state.insertTable(rows: 2, columns: 2)
        expectJSON(state, J.document(
            J.p("ab"),
            J.table(J.row(J.c("", header: 3), J.c("", header: 1)), J.row(J.c("", header: 2), J.c(""))),
            J.p("cd")
        ))
        #expect(FlatString.render(state) == "ab\n\t\n\t\ncd")
        let firstCell = try #require(state[state[table]!.firstChild!]?.firstChild)
        #expect(state.selection?.anchor == .element(try #require(PluginFixture.paragraph(in: firstCell, state)), 0))
        #expect(state.selection?.isCollapsed == true)
        expectValid(state)
    }

    @Test func insertTableAtTheEndOfABlockKeepsAnEmptyParagraphAfterIt() throws {
        var state = try PluginFixture.state(["ab"])
        try state.select(.text(state[state.root.firstChild!]!.firstChild!, 2))
        try state.insertTable(rows: 1, columns: 3, headers: [])
        expectJSON(state, J.document(J.p("ab"), J.table(J.row(J.c(""), J.c(""), J.c(""))), J.p("")))
        #expect(FlatString.render(state) == "ab\n\t\t\n")
    }

    @Test func insertTableWithAHeaderRowOnly() throws {
        var state = try PluginFixture.state([""])
        try state.select(.element(state.root.firstChild!, 0))
        try state.insertTable(rows: 2, columns: 2, headers: .firstRow)
        expectJSON(state, J.document(
            J.p(""), J.table(J.row(J.c("", header: 1), J.c("", header: 1)), J.row(J.c(""), J.c(""))), J.p("")
        ))
    }

    @Test func insertTableRefusesNestingAndBadDimensions() throws {
        var state = try PluginFixture.state(["x"])
        let (_, cells) = try PluginFixture.appendTable([["a"]], to: &state)
        let before = LexicalJSON.export(state)
        try state.select(.text(try #require(PluginFixture.text(in: cells[0][0], state)), 1))
        #expect(throws: TableError.nestedTable) { try state.insertTable(rows: 1, columns: 1) }
        try state.select(.text(state[state.root.firstChild!]!.firstChild!, 1))
        #expect(throws: TableError.invalidDimensions(rows: 0, columns: 3)) { try state.insertTable(rows: 0, columns: 3) }
        #expect(throws: TableError.invalidDimensions(rows: 1_000_000, columns: 2)) { try state.insertTable(rows: 1_000_000, columns: 2) }
        #expect(LexicalJSON.export(state) == before)
    }

    // MARK: Rows and columns

    @Test func insertRowBelowKeepsColumnHeadersAndTheSelection() throws {
        var state = try PluginFixture.state([])
        try state.select(.element(.root, 0))
        try state.insertTable(rows: 2, columns: 2)
        let caret = state.selection
        try state.insertTableRow(below: true)
        expectJSON(state, J.document(
            J.table(
                J.row(J.c("", header: 3), J.c("", header: 1)),
                J.row(J.c("", header: 2), J.c("")),
                J.row(J.c("", header: 2), J.c(""))
            )
        ))
        #expect(state.selection == caret)
        expectValid(state)
    }

    @Test func insertRowAboveAndBelowAroundSpans() throws {
        var state = try PluginFixture.state(["x"])
        let (table, cells) = try PluginFixture.appendTable([["a", "b"], ["c", "d"], ["e", "f"]], to: &state)
        try state.mergeTableCells(in: table, rows: 0...1, columns: 1...1)
        // b spans rows 0–1; the caret in c (row 1).
        try state.select(.text(try #require(PluginFixture.text(in: cells[1][0], state)), 0))
        try state.insertTableRow(below: false)
        expectJSON(state, J.document(
            J.p("x"),
            J.table(
                J.row(J.c("a"), J.cell([J.p("b"), J.p("d")], rowSpan: 3)),
                J.row(J.c("")),
                J.row(J.c("c")),
                J.row(J.c("e"), J.c("f"))
            )
        ))
        #expect(FlatString.render(state) == "x\na\tb\nd\n\nc\ne\tf")
        try state.insertTableRow(below: true)
        expectJSON(state, J.document(
            J.p("x"),
            J.table(
                J.row(J.c("a"), J.cell([J.p("b"), J.p("d")], rowSpan: 3)),
                J.row(J.c("")),
                J.row(J.c("c")),
                J.row(J.c(""), J.c("")),
                J.row(J.c("e"), J.c("f"))
            )
        ))
        expectValid(state)
    }

    @Test func insertColumnAfterGrowsSpansCopiesWidthsAndSelectsTheNewCell() throws {
        var state = try PluginFixture.state([])
        let (table, cells) = try PluginFixture.appendTable([["a", "b"], ["c", "d"]], to: &state)
        try state.setTableColumnWidths([100, 50], of: table)
        try state.mergeTableCells(in: table, rows: 0...0, columns: 0...1)
        try state.select(.text(try #require(PluginFixture.text(in: cells[1][0], state)), 1))
        let created = try #require(try state.insertTableColumn(after: true))
        expectJSON(state, J.document(
            J.table(
                J.row(J.cell([J.p("a"), J.p("b")], colSpan: 3)),
                J.row(J.c("c"), J.c(""), J.c("d")),
                extra: [("colWidths", .array([.number(.integer(100)), .number(.integer(100)), .number(.integer(50))]))]
            )
        ))
        #expect(FlatString.render(state) == "a\nb\nc\t\td")
        #expect(state.selection?.anchor == .element(try #require(PluginFixture.paragraph(in: created, state)), 0))
        expectValid(state)
    }

    @Test func insertColumnBeforeTheFirstKeepsRowHeaders() throws {
        var state = try PluginFixture.state([])
        try state.select(.element(.root, 0))
        try state.insertTable(rows: 2, columns: 1)
        try state.insertTableColumn(after: false)
        expectJSON(state, J.document(
            J.table(J.row(J.c("", header: 1), J.c("", header: 3)), J.row(J.c(""), J.c("", header: 2)))
        ))
        expectValid(state)
    }

    @Test func deleteRowsMovesASpanningCellDown() throws {
        var state = try PluginFixture.state([])
        let (table, cells) = try PluginFixture.appendTable([["a", "b"], ["c", "d"], ["e", "f"]], to: &state)
        try state.mergeTableCells(in: table, rows: 0...1, columns: 0...0)
        try state.select(.text(try #require(PluginFixture.text(in: cells[0][1], state)), 0))
        try state.deleteTableRows()
        // Row 0 goes; a (rows 0–1) moves to row 1 with one row left.
        expectJSON(state, J.document(
            J.table(J.row(J.cell([J.p("a"), J.p("c")]), J.c("d")), J.row(J.c("e"), J.c("f")))
        ))
        #expect(FlatString.render(state) == "a\nc\td\ne\tf")
        #expect(state.selection?.anchor == .text(try #require(PluginFixture.text(in: cells[0][0], state)), 0))
        expectValid(state)
    }

    @Test func deleteRowsShrinksACellSpanningInFromAbove() throws {
        var state = try PluginFixture.state([])
        let (table, _) = try PluginFixture.appendTable([["a", "b"], ["c", "d"], ["e", "f"]], to: &state)
        try state.mergeTableCells(in: table, rows: 0...2, columns: 1...1)
        try state.deleteTableRows(1...1, in: table)
        expectJSON(state, J.document(
            J.table(J.row(J.c("a"), J.cell([J.p("b"), J.p("d"), J.p("f")], rowSpan: 2)), J.row(J.c("e")))
        ))
        expectValid(state)
    }

    @Test func deletingEveryRowDeletesTheTable() throws {
        var state = try PluginFixture.state(["before"])
        let (_, cells) = try PluginFixture.appendTable([["a"], ["b"]], to: &state)
        try state.select(anchor: .text(try #require(PluginFixture.text(in: cells[0][0], state)), 0),
                         focus: .text(try #require(PluginFixture.text(in: cells[1][0], state)), 1))
        try state.deleteTableRows()
        expectJSON(state, J.document(J.p("before")))
        #expect(state.selection?.anchor == .text(state[state.root.firstChild!]!.firstChild!, 6))
        expectValid(state)
    }

    @Test func deleteColumnsShrinksSpansAndWidths() throws {
        var state = try PluginFixture.state([])
        let (table, cells) = try PluginFixture.appendTable([["a", "b", "c"], ["d", "e", "f"]], to: &state)
        try state.setTableColumnWidths([10, 20, 30], of: table)
        try state.mergeTableCells(in: table, rows: 0...0, columns: 0...1)
        try state.select(.text(try #require(PluginFixture.text(in: cells[1][1], state)), 0))
        try state.deleteTableColumns()
        expectJSON(state, J.document(
            J.table(
                J.row(J.cell([J.p("a"), J.p("b")]), J.c("c")),
                J.row(J.c("d"), J.c("f")),
                extra: [("colWidths", .array([.number(.integer(10)), .number(.integer(30))]))]
            )
        ))
        #expect(state.selection?.anchor == .text(try #require(PluginFixture.text(in: cells[1][2], state)), 0))
        expectValid(state)
    }

    @Test func deletingEveryColumnOfTheOnlyBlockLeavesAParagraph() throws {
        var state = EditorState(registry: try PluginFixture.registry())
        let (_, cells) = try PluginFixture.appendTable([["a", "b"]], to: &state)
        try state.select(anchor: .text(try #require(PluginFixture.text(in: cells[0][0], state)), 0),
                         focus: .text(try #require(PluginFixture.text(in: cells[0][1], state)), 0))
        try state.deleteTableColumns()
        expectJSON(state, J.document(J.p("")))
        #expect(state.selection?.anchor == .element(state.root.firstChild!, 0))
    }

    // MARK: Merging

    @Test func mergeTheSelectedRectangle() throws {
        var state = try PluginFixture.state([])
        let (_, cells) = try PluginFixture.appendTable([["a", "b", "c"], ["d", "", "f"], ["g", "h", "i"]], to: &state)
        try state.select(anchor: .text(try #require(PluginFixture.text(in: cells[0][0], state)), 0),
                         focus: .element(try #require(PluginFixture.paragraph(in: cells[1][1], state)), 0))
        let merged = try state.mergeTableCells()
        #expect(merged == cells[0][0])
        expectJSON(state, J.document(
            J.table(
                J.row(J.cell([J.p("a"), J.p("b"), J.p("d")], colSpan: 2, rowSpan: 2), J.c("c")),
                J.row(J.c("f")),
                J.row(J.c("g"), J.c("h"), J.c("i"))
            )
        ))
        #expect(FlatString.render(state) == "a\nb\nd\tc\nf\ng\th\ti")
        #expect(state.selection?.anchor == .text(try #require(PluginFixture.text(in: cells[0][0], state)), 0))
        expectValid(state)
    }

    @Test func mergeGrowsTheRectangleOverSpans() throws {
        var state = try PluginFixture.state([])
        let (table, _) = try PluginFixture.appendTable([["a", "b"], ["c", "d"], ["e", "f"]], to: &state)
        try state.mergeTableCells(in: table, rows: 1...2, columns: 1...1)
        // Rows 0–1 of column 1 cut d/f in two: the rectangle grows to rows 0–2.
        try state.mergeTableCells(in: table, rows: 0...1, columns: 1...1)
        expectJSON(state, J.document(
            J.table(J.row(J.c("a"), J.cell([J.p("b"), J.p("d"), J.p("f")], rowSpan: 3)), J.row(J.c("c")), J.row(J.c("e")))
        ))
        #expect(throws: TableError.outsideTable(rows: 0...5, columns: 0...0, rowCount: 3, columnCount: 2)) {
            try state.mergeTableCells(in: table, rows: 0...5, columns: 0...0)
        }
        expectValid(state)
    }

    @Test func unmergeRestoresSingleCellsWithHeaderStates() throws {
        var state = try PluginFixture.state([])
        try state.select(.element(.root, 0))
        let table = try state.insertTable(rows: 3, columns: 3)
        try state.mergeTableCells(in: table, rows: 0...1, columns: 0...1)
        try state.unmergeTableCell()
        // The first row keeps the row state, the first column the column state, as before.
        expectJSON(state, J.document(
            J.table(
                J.row(J.c("", header: 3), J.c("", header: 1), J.c("", header: 1)),
                J.row(J.c("", header: 2), J.c(""), J.c("")),
                J.row(J.c("", header: 2), J.c(""), J.c(""))
            )
        ))
        expectValid(state)
    }

    @Test func unmergeInsertsCellsAfterTheCellsBeforeIt() throws {
        var state = try PluginFixture.state([])
        let (table, cells) = try PluginFixture.appendTable([["a", "b", "c"], ["d", "e", "f"]], to: &state)
        try state.mergeTableCells(in: table, rows: 0...1, columns: 1...2)
        try state.unmergeTableCell(cells[0][1])
        expectJSON(state, J.document(
            J.table(J.row(J.c("a"), J.cell([J.p("b"), J.p("c"), J.p("e"), J.p("f")]), J.c("")), J.row(J.c("d"), J.c(""), J.c("")))
        ))
        expectValid(state)
    }

    // MARK: Tab

    @Test func tabMovesToTheEndOfTheNextCellAndAddsARowAtTheEnd() throws {
        var state = try PluginFixture.state(["before"])
        let (_, cells) = try PluginFixture.appendTable([["a", "bb"], ["c", ""]], to: &state)
        try state.select(.text(try #require(PluginFixture.text(in: cells[0][0], state)), 0))
        #expect(try state.selectAdjacentTableCell(backward: false) == cells[0][1])
        #expect(state.selection?.anchor == .text(try #require(PluginFixture.text(in: cells[0][1], state)), 2))
        #expect(try state.selectAdjacentTableCell(backward: false) == cells[1][0])
        #expect(try state.selectAdjacentTableCell(backward: false) == cells[1][1])
        #expect(state.selection?.anchor == .element(try #require(PluginFixture.paragraph(in: cells[1][1], state)), 0))
        let added = try #require(try state.selectAdjacentTableCell(backward: false))
        expectJSON(state, J.document(
            J.p("before"), J.table(J.row(J.c("a"), J.c("bb")), J.row(J.c("c"), J.c("")), J.row(J.c(""), J.c("")))
        ))
        #expect(state.selection?.anchor == .element(try #require(PluginFixture.paragraph(in: added, state)), 0))
        #expect(FlatString.render(state) == "before\na\tbb\nc\t\n\t")
    }

    @Test func shiftTabMovesBackAndLeavesTheTableAtItsStart() throws {
        var state = try PluginFixture.state(["before"])
        let (_, cells) = try PluginFixture.appendTable([["a", "b"], ["c", "d"]], to: &state)
        try state.select(.text(try #require(PluginFixture.text(in: cells[1][0], state)), 0))
        #expect(try state.selectAdjacentTableCell(backward: true) == cells[0][1])
        #expect(state.selection?.anchor == .text(try #require(PluginFixture.text(in: cells[0][1], state)), 1))
        try state.select(.text(try #require(PluginFixture.text(in: cells[0][0], state)), 0))
        #expect(try state.selectAdjacentTableCell(backward: true) == nil)
        #expect(state.selection?.anchor == .text(state[state.root.firstChild!]!.firstChild!, 6))

        var alone = EditorState(registry: try PluginFixture.registry())
        let (_, only) = try PluginFixture.appendTable([["x"]], to: &alone)
        let inside = Point.text(try #require(PluginFixture.text(in: only[0][0], alone)), 1)
        try alone.select(inside)
        #expect(try alone.selectAdjacentTableCell(backward: true) == only[0][0], "nothing before the table: the caret stays")
        #expect(alone.selection?.anchor == inside)
    }

    @Test func tabOutsideATableIsRefused() throws {
        var state = try PluginFixture.state(["x"])
        try state.select(.text(state[state.root.firstChild!]!.firstChild!, 0))
        #expect(throws: TableError.self) { try state.selectAdjacentTableCell(backward: false) }
        #expect(throws: TableError.self) { try state.insertTableRow(below: true) }
    }

    // MARK: Fields

    @Test func cellAndTableFieldsAreValidated() throws {
        var state = try PluginFixture.state([])
        let (table, cells) = try PluginFixture.appendTable([["a", "b"]], to: &state)
        try state.setTableCellBackgroundColor("#ff0", of: cells[0][0])
        try state.setTableCellWidth(120, of: cells[0][1])
        try state.setTableCellHeaderState(.column, of: cells[0][0])
        let before = LexicalJSON.export(state)
        expectJSON(state, J.document(J.table(J.row(
            J.cell([J.p("a")], header: 2).withField("backgroundColor", .string("#ff0")),
            J.cell([J.p("b")], extra: [("width", .number(.integer(120)))])
        ))))
        #expect(throws: TableError.invalidField(field: "width", message: "must be a non-negative number, not -1.0")) {
            try state.setTableCellWidth(-1, of: cells[0][0])
        }
        #expect(throws: TableError.invalidField(field: "colWidths", message: "3 widths for 2 columns")) {
            try state.setTableColumnWidths([1, 2, 3], of: table)
        }
        #expect(throws: TableError.notACell(table)) { try state.setTableCellWidth(1, of: table) }
        #expect(LexicalJSON.export(state) == before)
    }
}

extension JSONValue {
    /// This object with member `name` set.
    func withField(_ name: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[name] = value
        return .object(object)
    }
}
