import QuireModel

/// A table laid out on its grid, with spans counted: Lexical's `$computeTableMap`.
///
/// Rows are the table's `tablerow` children in order; each row's cells take, left to right, the
/// first grid slots not already covered by a cell spanning down from a row above, and cover
/// `rowSpan × colSpan` slots. A table is valid when every slot is covered exactly once (the rows
/// cover the same number of columns, no spans overlap or reach past the last row) and every cell
/// holds at least one block; ``TableMap/violations(of:in:)`` says what is wrong otherwise, and
/// the initializer refuses such a table.
public struct TableMap: Hashable, Sendable {
    /// One cell and the slots it covers.
    public struct Cell: Hashable, Sendable {
        /// The `tablecell` node.
        public let key: NodeKey
        /// The grid row of its top-left slot.
        public let row: Int
        /// The grid column of its top-left slot.
        public let column: Int
        /// Its `rowSpan`.
        public let rowSpan: Int
        /// Its `colSpan`.
        public let colSpan: Int

        public init(key: NodeKey, row: Int, column: Int, rowSpan: Int, colSpan: Int) {
            self.key = key
            self.row = row
            self.column = column
            self.rowSpan = rowSpan
            self.colSpan = colSpan
        }

        /// The grid rows it covers.
        public var rows: ClosedRange<Int> { row...(row + rowSpan - 1) }
        /// The grid columns it covers.
        public var columns: ClosedRange<Int> { column...(column + colSpan - 1) }
    }

    /// The `table` node.
    public let table: NodeKey
    /// The `tablerow` nodes, top to bottom.
    public let rows: [NodeKey]
    /// Every cell in document order (row by row, left to right).
    public let cells: [Cell]
    /// The number of grid columns.
    public let columnCount: Int
    /// For every slot, row-major, the index of the cell covering it.
    private let slots: [Int]
    private let cellIndex: [NodeKey: Int]
    /// For every row, the range of `cells` that start in it (cells are in row order).
    private let rowCells: [Range<Int>]

    /// The number of grid rows (the number of `tablerow` nodes).
    public var rowCount: Int { rows.count }

    /// Lays out `table`.
    ///
    /// - Throws: `TableError.notATable`, or `.invalidTable` with the violations of a table that
    ///   is not a proper grid.
    /// - Complexity: O(rows × columns + cells).
    public init(table: NodeKey, in state: EditorState) throws(TableError) {
        let layout = try Layout(table: table, in: state)
        guard layout.violations.isEmpty else { throw .invalidTable(table, layout.violations) }
        self.table = table
        rows = layout.rows
        cells = layout.cells
        columnCount = layout.columnCount
        slots = layout.slots.map { $0 ?? -1 }
        var index: [NodeKey: Int] = [:]
        var ranges = [Range<Int>](repeating: 0..<0, count: layout.rows.count)
        for (position, cell) in cells.enumerated() {
            index[cell.key] = position
            ranges[cell.row] = ranges[cell.row].isEmpty ? position..<(position + 1) : ranges[cell.row].lowerBound..<(position + 1)
        }
        cellIndex = index
        rowCells = ranges
    }

    /// The cell covering slot (`row`, `column`), or nil outside the grid.
    ///
    /// - Complexity: O(1).
    public subscript(row: Int, column: Int) -> Cell? {
        guard (0..<rowCount).contains(row), (0..<columnCount).contains(column) else { return nil }
        return cells[slots[row * columnCount + column]]
    }

    /// The cell `key` on the grid, or nil when it is not one of this table's cells.
    ///
    /// - Complexity: O(1).
    public func cell(_ key: NodeKey) -> Cell? {
        cellIndex[key].map { cells[$0] }
    }

    /// The cells that start in grid row `row`, left to right: the row node's children.
    ///
    /// - Complexity: O(1) to slice.
    public func cells(startingInRow row: Int) -> ArraySlice<Cell> {
        guard rowCells.indices.contains(row) else { return [] }
        return cells[rowCells[row]]
    }

    /// The smallest rectangle of slots that holds both cells and cuts no cell in two: it grows
    /// until every cell it touches lies inside it (Lexical's `$computeTableCellRectBoundary`).
    ///
    /// - Complexity: O(rows × columns) per growth step, at most rows + columns steps.
    public func rectangle(enclosing first: Cell, _ second: Cell) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
        var rows = min(first.row, second.row)...max(first.rows.upperBound, second.rows.upperBound)
        var columns = min(first.column, second.column)...max(first.columns.upperBound, second.columns.upperBound)
        var grew = true
        while grew {
            grew = false
            for cell in cells where cell.rows.overlaps(rows) && cell.columns.overlaps(columns) {
                let newRows = min(rows.lowerBound, cell.row)...max(rows.upperBound, cell.rows.upperBound)
                let newColumns = min(columns.lowerBound, cell.column)...max(columns.upperBound, cell.columns.upperBound)
                if newRows != rows || newColumns != columns {
                    rows = newRows
                    columns = newColumns
                    grew = true
                }
            }
        }
        return (rows, columns)
    }

    /// The distinct cells with a slot in the given rows and columns, in document order.
    ///
    /// - Complexity: O(cells).
    public func cells(inRows rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> [Cell] {
        cells.filter { $0.rows.overlaps(rows) && $0.columns.overlaps(columns) }
    }

    // MARK: Validity

    /// What is wrong with `table`; empty when it is a valid table.
    ///
    /// - Complexity: O(rows × columns + cells + blocks in cells).
    public static func violations(of table: NodeKey, in state: EditorState) -> [TableViolation] {
        do { return try Layout(table: table, in: state).violations } catch {
            return [.notATable(table)]
        }
    }

    /// Every table violation in the document: each table's own (``violations(of:in:)``), plus rows
    /// outside tables and cells outside rows.
    ///
    /// - Complexity: O(n) in the document's nodes plus every table's grid.
    public static func violations(in state: EditorState) -> [TableViolation] {
        var result: [TableViolation] = []
        var pending: [NodeKey] = [.root]
        while let key = pending.popLast() {
            guard let node = state[key] else { continue }
            let parentType = node.parent.flatMap { state[$0]?.type }
            switch node.type {
            case TableNodePlugin.type where !node.isUnknown:
                result += violations(of: key, in: state)
            case TableRowNodePlugin.type where !node.isUnknown && parentType != TableNodePlugin.type:
                result.append(.rowOutsideTable(row: key, parent: node.parent))
            case TableCellNodePlugin.type where !node.isUnknown && parentType != TableRowNodePlugin.type:
                result.append(.cellOutsideRow(cell: key, parent: node.parent))
            default:
                break
            }
            var child = node.lastChild
            while let current = child {
                pending.append(current)
                child = state[current]?.previousSibling
            }
        }
        return result
    }

    /// Throws the first table violation in the document, if there is one.
    ///
    /// - Throws: `TableError.invalidTable`.
    /// - Complexity: as ``violations(in:)``.
    public static func validate(_ state: EditorState) throws(TableError) {
        let found = violations(in: state)
        guard let first = found.first else { return }
        throw .invalidTable(first.table ?? .root, found)
    }

    /// The grid of a table, built leniently so that every problem can be reported.
    private struct Layout {
        var rows: [NodeKey] = []
        var cells: [Cell] = []
        var slots: [Int?] = []
        var columnCount = 0
        var violations: [TableViolation] = []

        init(table: NodeKey, in state: EditorState) throws(TableError) {
            guard let tableNode = state[table], tableNode.type == TableNodePlugin.type, !tableNode.isUnknown else {
                throw .notATable(table)
            }
            rows = state.children(of: table).map(\.key)
            var grid = [[Int?]](repeating: [], count: rows.count)
            if rows.isEmpty { violations.append(.emptyTable(table)) }
            for (rowIndex, rowKey) in rows.enumerated() {
                var column = 0
                for cell in state.children(of: rowKey) {
                    while column < grid[rowIndex].count, grid[rowIndex][column] != nil { column += 1 }
                    let rowSpan = TableCellNodePlugin.rowSpan(of: cell)
                    let colSpan = TableCellNodePlugin.colSpan(of: cell)
                    let mapped = Cell(key: cell.key, row: rowIndex, column: column, rowSpan: rowSpan, colSpan: colSpan)
                    let index = cells.count
                    cells.append(mapped)
                    if let plugin = state.plugin(of: cell) {
                        do { try plugin.validate(cell) } catch {
                            violations.append(.invalidField(node: cell.key, field: error.field, message: error.message))
                        }
                    }
                    if cell.childCount == 0 { violations.append(.cellWithoutBlocks(cell.key)) }
                    if rowIndex + rowSpan > rows.count {
                        violations.append(.spanBeyondTable(cell: cell.key, rowSpan: rowSpan, rowsLeft: rows.count - rowIndex))
                    }
                    for gridRow in rowIndex..<min(rowIndex + rowSpan, rows.count) {
                        for gridColumn in column..<(column + colSpan) {
                            while grid[gridRow].count <= gridColumn { grid[gridRow].append(nil) }
                            if let other = grid[gridRow][gridColumn] {
                                violations.append(.overlappingCells(cells[other].key, cell.key, row: gridRow, column: gridColumn))
                            } else {
                                grid[gridRow][gridColumn] = index
                            }
                        }
                    }
                    column += colSpan
                }
            }
            columnCount = grid.map(\.count).max() ?? 0
            for (rowIndex, row) in grid.enumerated() {
                let covered = row.filter { $0 != nil }.count
                if covered != columnCount {
                    violations.append(.raggedRow(row: rows[rowIndex], index: rowIndex, columns: covered, expected: columnCount))
                }
            }
            slots = grid.flatMap { $0 + Array(repeating: nil, count: columnCount - $0.count) }
            if let widths = TableNodePlugin.columnWidths(of: tableNode), widths.count != columnCount {
                violations.append(.columnWidthsMismatch(table: table, widths: widths.count, columns: columnCount))
            }
            if let plugin = state.plugin(of: tableNode) {
                do { try plugin.validate(tableNode) } catch {
                    violations.append(.invalidField(node: table, field: error.field, message: error.message))
                }
            }
        }
    }
}

/// One way in which a document's tables are not proper grids.
public enum TableViolation: Hashable, Sendable, CustomStringConvertible {
    /// The node is not a `table`.
    case notATable(NodeKey)
    /// A table without rows.
    case emptyTable(NodeKey)
    /// A `tablerow` whose parent is not a `table`.
    case rowOutsideTable(row: NodeKey, parent: NodeKey?)
    /// A `tablecell` whose parent is not a `tablerow`.
    case cellOutsideRow(cell: NodeKey, parent: NodeKey?)
    /// A cell with no block to hold the caret.
    case cellWithoutBlocks(NodeKey)
    /// A field value its plugin refuses (set without validation).
    case invalidField(node: NodeKey, field: String?, message: String)
    /// A cell whose `rowSpan` reaches below the last row.
    case spanBeyondTable(cell: NodeKey, rowSpan: Int, rowsLeft: Int)
    /// Two cells covering the same slot.
    case overlappingCells(NodeKey, NodeKey, row: Int, column: Int)
    /// A row covering another number of columns than the widest row, spans counted.
    case raggedRow(row: NodeKey, index: Int, columns: Int, expected: Int)
    /// A `colWidths` array whose length is not the number of columns.
    case columnWidthsMismatch(table: NodeKey, widths: Int, columns: Int)

    /// The table the violation is in, when it is known.
    public var table: NodeKey? {
        switch self {
        case .notATable(let key), .emptyTable(let key): key
        case .columnWidthsMismatch(let table, _, _): table
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .notATable(let key): "node \(key) is not a table"
        case .emptyTable(let key): "table \(key) has no rows"
        case .rowOutsideTable(let row, let parent): "row \(row) is not in a table (its parent is \(parent.map(String.init(describing:)) ?? "none"))"
        case .cellOutsideRow(let cell, let parent): "cell \(cell) is not in a row (its parent is \(parent.map(String.init(describing:)) ?? "none"))"
        case .cellWithoutBlocks(let cell): "cell \(cell) holds no block"
        case .invalidField(let node, let field, let message): "node \(node)" + (field.map { " field \"\($0)\"" } ?? "") + ": \(message)"
        case .spanBeyondTable(let cell, let rowSpan, let rowsLeft): "cell \(cell) spans \(rowSpan) rows but only \(rowsLeft) are left"
        case .overlappingCells(let first, let second, let row, let column): "cells \(first) and \(second) both cover row \(row), column \(column)"
        case .raggedRow(let row, let index, let columns, let expected): "row \(index) (node \(row)) covers \(columns) columns, not \(expected)"
        case .columnWidthsMismatch(let table, let widths, let columns): "table \(table) has \(widths) column widths for \(columns) columns"
        }
    }
}

/// Why a table operation was refused. The state is unchanged when one is thrown.
public enum TableError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The selection (or the point) is not inside a table cell.
    case notInTableCell(Point)
    /// The selection's ends are in different tables.
    case selectionSpansTables
    /// The node is not a `table` (or not a `tablecell`).
    case notATable(NodeKey)
    case notACell(NodeKey)
    /// A table needs at least one row and one column, and at most `TableLimits.maximumCells` cells.
    case invalidDimensions(rows: Int, columns: Int)
    /// Tables do not nest (as in Lexical without `hasNestedTables`): the caret is in a cell.
    case nestedTable
    /// Grid coordinates outside the table.
    case outsideTable(rows: ClosedRange<Int>, columns: ClosedRange<Int>, rowCount: Int, columnCount: Int)
    /// The table is not a proper grid, so the operation cannot tell rows and columns apart.
    case invalidTable(NodeKey, [TableViolation])
    /// A field value its plugin refuses.
    case invalidField(field: String, message: String)
    /// The underlying model operation failed.
    case model(ModelError)

    public var description: String {
        switch self {
        case .notInTableCell(let point): "the selection (\(point)) is not inside a table cell"
        case .selectionSpansTables: "the selection's ends are in different tables"
        case .notATable(let key): "node \(key) is not a table"
        case .notACell(let key): "node \(key) is not a table cell"
        case .invalidDimensions(let rows, let columns):
            "a table needs 1…\(TableLimits.maximumCells) cells in at least one row and column, not \(rows) × \(columns)"
        case .nestedTable: "a table cannot be inserted inside a table cell"
        case .outsideTable(let rows, let columns, let rowCount, let columnCount):
            "rows \(rows), columns \(columns) are outside the \(rowCount) × \(columnCount) table"
        case .invalidTable(let table, let violations):
            "table \(table) is not a proper grid: " + violations.map(\.description).joined(separator: "; ")
        case .invalidField(let field, let message): "field \"\(field)\": \(message)"
        case .model(let error): error.description
        }
    }
}

/// Limits on table operations, so that a bad payload cannot allocate without bound.
public enum TableLimits {
    /// The most cells `insertTable` creates.
    public static let maximumCells = 1_000_000
}
