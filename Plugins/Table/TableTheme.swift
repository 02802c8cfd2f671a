import QuireModel
import QuireReconciler
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
        nodeStyles: [TableCellNodePlugin.type: { cell in [Keys.cell: cellRecord(cell)] }]
    )

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
