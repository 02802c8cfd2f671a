import Foundation
import QuireModel
import QuireTable
import QuireTestSupport
import Testing

/// Table fields on import (typed errors with the JSON path), the Lexical fixture's table, and the
/// validity checker.
@Suite struct TableValidationTests {
    /// A document whose first block is a 2×3 table; the cell at row 1, column 2 gets `cellFields`.
    func document(cellFields: String, tableFields: String = "") -> String {
        func cell(_ fields: String) -> String {
            // `fields` replaces the defaults it names: a key may appear once (duplicates are refused).
            let defaults = [("colSpan", "1"), ("rowSpan", "1"), ("headerState", "0"), ("backgroundColor", "null")]
                .filter { !fields.contains("\"\($0.0)\":") }
                .map { ",\"\($0.0)\":\($0.1)" }.joined()
            return #"{"type":"tablecell","version":1\#(defaults)\#(fields),"children":[{"type":"paragraph","version":1,"children":[]}]}"#
        }
        let plain = cell("")
        let rows = [
            #"{"type":"tablerow","version":1,"children":[\#(plain),\#(plain),\#(plain)]}"#,
            #"{"type":"tablerow","version":1,"children":[\#(plain),\#(plain),\#(cell(cellFields))]}"#,
        ]
        return #"{"root":{"type":"root","version":1,"children":[{"type":"table","version":1\#(tableFields),"children":[\#(rows.joined(separator: ","))]}]}}"#
    }

    @Test(arguments: [
        (#","colSpan":0"#, "colSpan", "must be at least 1, not 0"),
        (#","rowSpan":-2"#, "rowSpan", "must be at least 1, not -2"),
        (#","headerState":4"#, "headerState", "must be 0…3 (row 1, column 2), not 4"),
        (#","width":-3"#, "width", "must be a non-negative number, not -3"),
        (#","verticalAlign":"sideways""#, "verticalAlign", #"must be "top", "middle" or "bottom", not "sideways""#),
    ])
    func badCellFieldsAreRejectedWithTheirPath(fields: String, field: String, message: String) throws {
        let registry = try PluginFixture.registry()
        #expect(throws: LexicalJSONError(.invalidNode("tablecell", message), at: "$.root.children[0].children[1].children[2].\(field)")) {
            try LexicalJSON.importState(from: document(cellFields: fields), registry: registry)
        }
    }

    @Test func wrongFieldTypesAndTableFieldsAreRejected() throws {
        let registry = try PluginFixture.registry()
        #expect(throws: LexicalJSONError(.wrongType(expected: "integer", found: "number 1.5"), at: "$.root.children[0].children[1].children[2].colSpan")) {
            try LexicalJSON.importState(from: document(cellFields: #","colSpan":1.5"#), registry: registry)
        }
        #expect(throws: LexicalJSONError(.invalidNode("table", "must be an array of numbers, not string"), at: "$.root.children[0].colWidths")) {
            try LexicalJSON.importState(from: document(cellFields: "", tableFields: #","colWidths":"wide""#), registry: registry)
        }
        #expect(throws: LexicalJSONError(.invalidNode("table", "element 1 must be a non-negative number, not -5"), at: "$.root.children[0].colWidths")) {
            try LexicalJSON.importState(from: document(cellFields: "", tableFields: #","colWidths":[10,-5,3]"#), registry: registry)
        }
        // Lexical's optional fields import and export unchanged.
        let fine = document(cellFields: #","width":120,"verticalAlign":"top""#, tableFields: #","colWidths":[10,20,30],"rowStriping":true"#)
        let state = try LexicalJSON.importState(from: fine, registry: registry)
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(Array(fine.utf8))))
        #expect(TableMap.violations(in: state).isEmpty)
    }

    @Test func theLexicalPlaygroundTableRoundTripsAndIsAGrid() throws {
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/01-lexical-serialization-test-playground-doc.json")
        let bytes = Array(try Data(contentsOf: url))
        let state = try LexicalJSON.importState(from: bytes, registry: try PluginFixture.registry())
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(bytes)))
        let tables = state.children(of: .root).filter { $0.type == TableNodePlugin.type }
        #expect(tables.count == 1 && tables.allSatisfy { !$0.isUnknown })
        let map = try TableMap(table: try #require(tables.first).key, in: state)
        #expect(map.rowCount == 5 && map.columnCount == 5)
        #expect(map[0, 0].map { TableCellHeaderState(of: state[$0.key]!) } == .both)
        #expect(TableMap.violations(in: state).isEmpty)
        // Each row reads as its cells separated by tabs.
        let table = FlatString.render(map.table, in: state)
        #expect(table.split(separator: "\n", omittingEmptySubsequences: false).count >= 5)
        #expect(table.filter { $0 == "\t" }.count == 20)
    }

    // MARK: The validity checker

    @Test func theCheckerFindsEveryKindOfBrokenTable() throws {
        var state = try PluginFixture.state(["x"])
        // A cell and a row outside where they belong.
        let strayCell = try state.createNode(type: TableCellNodePlugin.type)
        try state.append(try state.createNode(type: .paragraph), to: strayCell)
        try state.append(strayCell, to: .root)
        let strayRow = try state.createNode(type: TableRowNodePlugin.type)
        try state.append(strayRow, to: .root)
        // A ragged table with a span past its end, an empty cell and a bad field set directly.
        let (table, cells) = try PluginFixture.appendTable([["a", "b"], ["c"]], to: &state)
        try state.setField("rowSpan", to: .number(.integer(3)), of: cells[1][0])
        try state.setField("headerState", to: .number(.integer(9)), of: cells[0][0])
        try state.remove(try #require(state[cells[0][1]]?.firstChild))
        try state.setField("colWidths", to: .array([.number(.integer(5))]), of: table)
        let empty = try state.createNode(type: TableNodePlugin.type)
        try state.append(empty, to: .root)
        let rows = state.children(of: table).map(\.key)
        let found = Set(TableMap.violations(in: state))
        #expect(found == [
            .cellOutsideRow(cell: strayCell, parent: .root),
            .rowOutsideTable(row: strayRow, parent: .root),
            .invalidField(node: cells[0][0], field: "headerState", message: "must be 0…3 (row 1, column 2), not 9"),
            .cellWithoutBlocks(cells[0][1]),
            .spanBeyondTable(cell: cells[1][0], rowSpan: 3, rowsLeft: 1),
            .raggedRow(row: rows[1], index: 1, columns: 1, expected: 2),
            .columnWidthsMismatch(table: table, widths: 1, columns: 2),
            .emptyTable(empty),
        ])
        #expect(throws: TableError.self) { try TableMap(table: table, in: state) }
        #expect(throws: TableError.self) { try TableMap.validate(state) }
        #expect(TableMap.violations(of: strayCell, in: state) == [.notATable(strayCell)])
    }

    @Test func overlappingSpansAreFound() throws {
        var state = try PluginFixture.state([])
        // Row 0: a, b spanning two rows; row 1: c spanning two columns runs into b.
        let (table, cells) = try PluginFixture.appendTable([["a", "b"], ["c"]], to: &state)
        try state.setField("rowSpan", to: .number(.integer(2)), of: cells[0][1])
        try state.setField("colSpan", to: .number(.integer(2)), of: cells[1][0])
        #expect(TableMap.violations(of: table, in: state) == [.overlappingCells(cells[0][1], cells[1][0], row: 1, column: 1)])
    }

    @Test func everyTablePluginConforms() throws {
        let registry = try PluginFixture.registry()
        for plugin: any NodePlugin in [TableNodePlugin(), TableRowNodePlugin(), TableCellNodePlugin()] {
            #expect(NodePluginConformance.violations(of: plugin, in: registry).isEmpty)
        }
    }
}
