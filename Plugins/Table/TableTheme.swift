import QuireModel
import QuireStyle
import QuireTextStorage

/// The attributes the table plugin gives its nodes, so that a view can draw a grid: every
/// character of a table carries `quire.table`; every character of a cell (its content and the tab
/// after it) carries `quire.tableCell`, a record of the cell's `headerState`, `colSpan`,
/// `rowSpan` and, when set, `backgroundColor` and `width`. An app's own theme entries win.
public enum TableTheme {
    /// The attribute keys.
    public enum Keys {
        /// On every character of a table: `true`.
        public static let table = AttributeKey("quire.table")
        /// On every character of a cell: a record (`headerState`, `colSpan`, `rowSpan`,
        /// `backgroundColor`, `width`).
        public static let cell = AttributeKey("quire.tableCell")
    }

    /// The contribution the table plugin's descriptor returns among its extensions.
    public static let contribution = ThemeContribution(
        nodeTypes: [TableNodePlugin.type: [Keys.table: true]],
        nodeStyles: [TableCellNodePlugin.type: cellAttributes]
    )

    /// The attributes of the four plain cells (no spans, colour or width), one per header state,
    /// built once: the theme asks for a cell's attributes on every keystroke inside it.
    private static let plainCells: [Attributes] = (0...3).map { header in
        [Keys.cell: .record(["headerState": .int(header), "colSpan": 1, "rowSpan": 1])]
    }

    @Sendable static func cellAttributes(_ cell: Node) -> Attributes {
        let header = TableCellHeaderState(of: cell).rawValue
        if (0...3).contains(header), TableCellNodePlugin.colSpan(of: cell) == 1, TableCellNodePlugin.rowSpan(of: cell) == 1,
           cell.fields["backgroundColor"]?.stringValue == nil, cell.fields["width"] == nil {
            return plainCells[header]
        }
        return [Keys.cell: cellRecord(cell)]
    }

    /// The `quire.tableCell` record of a cell.
    public static func cellRecord(_ cell: Node) -> AttributeValue {
        var record: [String: AttributeValue] = [
            "headerState": .int(TableCellHeaderState(of: cell).rawValue),
            "colSpan": .int(TableCellNodePlugin.colSpan(of: cell)),
            "rowSpan": .int(TableCellNodePlugin.rowSpan(of: cell)),
        ]
        if let color = cell.fields["backgroundColor"]?.stringValue { record["backgroundColor"] = .string(color) }
        if case .number(let width)? = cell.fields["width"] { record["width"] = .double(width.doubleValue) }
        return .record(record)
    }
}
