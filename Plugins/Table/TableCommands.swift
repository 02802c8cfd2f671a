import QuireEditor
import QuireModel

/// What `TableCommands.insertTable` inserts (Lexical's `InsertTableCommandPayload`).
public struct InsertTableOptions: Hashable, Sendable {
    public var rows: Int
    public var columns: Int
    /// Lexical's `includeHeaders`; Lexical's default (`true`) is both.
    public var headers: TableHeaders

    public init(rows: Int, columns: Int, headers: TableHeaders = .both) {
        self.rows = rows
        self.columns = columns
        self.headers = headers
    }
}

/// Grid coordinates of a rectangle of cells, for `TableCommands.mergeCells`.
public struct TableCellRange: Hashable, Sendable {
    public var table: NodeKey
    public var rows: ClosedRange<Int>
    public var columns: ClosedRange<Int>

    public init(table: NodeKey, rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
        self.table = table
        self.rows = rows
        self.columns = columns
    }
}

extension InsertTableOptions {
    /// Decodes a script's payload: `{"rows": 3, "columns": 2, "headers": "both"}`, headers one of
    /// "none", "firstRow", "firstColumn", "both" (the default).
    public init(json: JSONValue) throws(EditorError) {
        let command = "table.insertTable"
        guard let object = json.objectValue, let rows = object["rows"]?.intValue, let columns = object["columns"]?.intValue else {
            throw .invalidPayload(command: command, reason: "expected {\"rows\": Int, \"columns\": Int, \"headers\": …}")
        }
        let headers: TableHeaders
        switch object["headers"]?.stringValue ?? (object["headers"] == nil ? "both" : nil) {
        case "none": headers = []
        case "firstRow": headers = .firstRow
        case "firstColumn": headers = .firstColumn
        case "both": headers = .both
        default: throw .invalidPayload(command: command, reason: "\"headers\" must be \"none\", \"firstRow\", \"firstColumn\" or \"both\"")
        }
        self.init(rows: rows, columns: columns, headers: headers)
    }
}

extension TableCellRange {
    /// Decodes a script's payload: `{"table": KEY, "rows": [FIRST, LAST], "columns": [FIRST, LAST]}`.
    public init(json: JSONValue) throws(EditorError) {
        func bounds(_ name: String) -> ClosedRange<Int>? {
            guard case .array(let pair)? = json.objectValue?[name], pair.count == 2,
                  let first = pair[0].intValue, let last = pair[1].intValue, first <= last else { return nil }
            return first...last
        }
        guard let table = json.objectValue?["table"]?.intValue, let rows = bounds("rows"), let columns = bounds("columns") else {
            throw .invalidPayload(command: "table.mergeCells", reason: "expected null or {\"table\": KEY, \"rows\": [FIRST, LAST], \"columns\": [FIRST, LAST]}")
        }
        self.init(table: NodeKey(table), rows: rows, columns: columns)
    }
}

/// The table plugin's commands. Each handler runs the `EditorState` function of the same name in
/// one update (one undo step); the ones acting at the selection return false (not handled)
/// when the selection is not in a table cell. A refused operation throws from `dispatch` and
/// changes nothing: `EditorError.model` for a model failure or a table that is not a proper grid,
/// `.invalidPayload` naming the command and the `TableError` for the rest
/// (``TableError/editorError(command:)``).
public enum TableCommands {
    /// Inserts a table at the selection (``EditorState/insertTable(rows:columns:headers:)``);
    /// not handled inside a table (no nested tables).
    public static let insertTable = CommandType<InsertTableOptions>("table.insertTable") { (json) throws(EditorError) in try InsertTableOptions(json: json) }
    /// Inserts a row above the selected cells.
    public static let insertRowAbove = CommandType<Void>.scriptable("table.insertRowAbove")
    /// Inserts a row below the selected cells.
    public static let insertRowBelow = CommandType<Void>.scriptable("table.insertRowBelow")
    /// Inserts a column before the selected cells.
    public static let insertColumnBefore = CommandType<Void>.scriptable("table.insertColumnBefore")
    /// Inserts a column after the selected cells.
    public static let insertColumnAfter = CommandType<Void>.scriptable("table.insertColumnAfter")
    /// Deletes the rows of the selected cells.
    public static let deleteRows = CommandType<Void>.scriptable("table.deleteRows")
    /// Deletes the columns of the selected cells.
    public static let deleteColumns = CommandType<Void>.scriptable("table.deleteColumns")
    /// Merges the rectangle between the selection's anchor and focus cells (nil payload), or the
    /// given grid rectangle.
    public static let mergeCells = CommandType<TableCellRange?>("table.mergeCells") { (json) throws(EditorError) in
        json == .null ? nil : try TableCellRange(json: json)
    }
    /// Unmerges the cell holding the selection's focus.
    public static let unmergeCell = CommandType<Void>.scriptable("table.unmergeCell")
}

extension TableError {
    /// The editor error `command` throws for this refusal: a model failure stays one, a table
    /// that is not a proper grid is an invalid `table` node, and the rest (dimensions, grid
    /// coordinates, a selection in two tables …) is input the command refuses.
    public func editorError(command: String) -> EditorError {
        switch self {
        case .model(let error): .model(error)
        case .invalidTable: .model(.invalidNode(type: TableNodePlugin.type, reason: NodeValidationError(message: description)))
        default: .invalidPayload(command: command, reason: description)
        }
    }
}

/// Registers the table commands and Tab / Shift-Tab between cells (at `.high` priority, handled
/// only when the selection is in a table cell, so a list plugin or the view gets Tab elsewhere).
public struct TableCommandsExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        func inCell<Payload>(
            _ command: CommandType<Payload>, priority: CommandPriority = .normal, _ body: @escaping (inout EditorState, Payload) throws(TableError) -> Void
        ) throws(EditorError) -> ListenerToken {
            try registrar.registerEdit(command, priority: priority, when: Self.selectionIsInTableCell,
                                       failure: { $0.editorError(command: command.name) }, body)
        }
        return [
            try registrar.registerEdit(TableCommands.insertTable, when: { !Self.selectionIsInTable($0) },
                                       failure: { $0.editorError(command: TableCommands.insertTable.name) }) { state, options throws(TableError) in
                try state.insertTable(rows: options.rows, columns: options.columns, headers: options.headers)
            },
            try inCell(TableCommands.insertRowAbove) { state, _ throws(TableError) in try state.insertTableRow(below: false) },
            try inCell(TableCommands.insertRowBelow) { state, _ throws(TableError) in try state.insertTableRow(below: true) },
            try inCell(TableCommands.insertColumnBefore) { state, _ throws(TableError) in try state.insertTableColumn(after: false) },
            try inCell(TableCommands.insertColumnAfter) { state, _ throws(TableError) in try state.insertTableColumn(after: true) },
            try inCell(TableCommands.deleteRows) { state, _ throws(TableError) in try state.deleteTableRows() },
            try inCell(TableCommands.deleteColumns) { state, _ throws(TableError) in try state.deleteTableColumns() },
            try inCell(TableCommands.unmergeCell) { state, _ throws(TableError) in try state.unmergeTableCell() },
            // A given rectangle names its table; without one the selection must be in a cell.
            try registrar.registerCommand(TableCommands.mergeCells) { range, context throws(EditorError) in
                guard range != nil || Self.selectionIsInTableCell(context.currentState) else { return false }
                try context.update(tag: nil, { (state) throws(TableError) in
                    if let range {
                        try state.mergeTableCells(in: range.table, rows: range.rows, columns: range.columns)
                    } else {
                        try state.mergeTableCells()
                    }
                }, failure: { $0.editorError(command: TableCommands.mergeCells.name) })
                return true
            },
            try inCell(Commands.keyTab, priority: .high) { state, shift throws(TableError) in try state.selectAdjacentTableCell(backward: shift) },
        ]
    }

    /// Whether the selection's focus is anywhere in a table (a cell, or an empty row).
    static func selectionIsInTable(_ state: EditorState) -> Bool {
        guard let focus = state.selection?.focus else { return false }
        return ([focus.key] + state.ancestors(of: focus.key)).contains { state[$0]?.type == TableNodePlugin.type }
    }

    /// Whether the selection's focus is in a cell of a table.
    static func selectionIsInTableCell(_ state: EditorState) -> Bool {
        guard let focus = state.selection?.focus, let cell = state.tableCell(containing: focus.key) else { return false }
        return state.table(ofCell: cell) != nil
    }
}
