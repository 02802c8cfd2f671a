import QuireModel

/// Which header cells a new table gets (Lexical's `includeHeaders`): `true` in Lexical is both.
public struct TableHeaders: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The first row is a header row (its cells get the row header state).
    public static let firstRow = TableHeaders(rawValue: 1)
    /// The first column is a header column (its cells get the column header state).
    public static let firstColumn = TableHeaders(rawValue: 2)
    /// Both, Lexical's default.
    public static let both: TableHeaders = [.firstRow, .firstColumn]
}

/// Table editing on a (pending) state: Lexical's table utilities as pure state functions.
///
/// Each operation either completes or throws `TableError` and leaves the state as it was. Grid
/// positions count spans, as ``TableMap`` lays them out. Operations that act "at the selection"
/// use the table cells of the selection's anchor and focus (the focus decides when the anchor is
/// outside the focus's table). An editor's ``TableCommandsExtension`` runs them inside
/// `Editor.update`.
extension EditorState {
    // MARK: Finding cells

    /// The nearest `tablecell` holding `key` (the node itself included), or nil.
    ///
    /// - Complexity: O(depth).
    public func tableCell(containing key: NodeKey) -> NodeKey? {
        var current: NodeKey? = key
        while let candidate = current, let node = self[candidate] {
            if node.type == TableCellNodePlugin.type && !node.isUnknown { return candidate }
            current = node.parent
        }
        return nil
    }

    /// The `table` a cell belongs to (its row's parent), or nil when it is not in one.
    ///
    /// - Complexity: O(1).
    public func table(ofCell cell: NodeKey) -> NodeKey? {
        guard let row = self[cell]?.parent, self[row]?.type == TableRowNodePlugin.type,
              let table = self[row]?.parent, self[table]?.type == TableNodePlugin.type else { return nil }
        return table
    }

    /// The cells of the selection's anchor and focus and their table.
    ///
    /// - Throws: `TableError.notInTableCell` when the focus is not in a table's cell.
    /// - Complexity: O(depth).
    public func selectedTableCells() throws(TableError) -> (anchor: NodeKey, focus: NodeKey, table: NodeKey) {
        guard let selection else { throw .model(.noSelection) }
        guard let focus = tableCell(containing: selection.focus.key), let focusTable = table(ofCell: focus) else {
            throw .notInTableCell(selection.focus)
        }
        var anchor = focus
        if let cell = tableCell(containing: selection.anchor.key), table(ofCell: cell) == focusTable { anchor = cell }
        return (anchor, focus, focusTable)
    }

    /// The selection's table laid out, with its anchor and focus cells on the grid.
    func selectedTableGrid() throws(TableError) -> (map: TableMap, anchor: TableMap.Cell, focus: TableMap.Cell) {
        let (anchorKey, focusKey, table) = try selectedTableCells()
        let map = try TableMap(table: table, in: self)
        guard let anchor = map.cell(anchorKey), let focus = map.cell(focusKey) else { throw .notACell(focusKey) }
        return (map, anchor, focus)
    }

    // MARK: Inserting tables

    /// Lexical's `INSERT_TABLE_COMMAND`: inserts a `rows` × `columns` table at the selection's
    /// focus, splitting the blocks there up to the root (both halves stay, as in Lexical), and puts
    /// the caret in the first cell. Every cell holds an empty paragraph; `headers` gives the first
    /// row the row header state and the first column the column header state.
    ///
    /// - Throws: `TableError.invalidDimensions`, `.nestedTable` when the caret is in a table,
    ///   `.model` when the blocks cannot be split there.
    /// - Complexity: O(rows × columns · log n) plus the split, O(depth · children moved · log n).
    @discardableResult
    public mutating func insertTable(rows: Int, columns: Int, headers: TableHeaders = .both) throws(TableError) -> NodeKey {
        guard rows >= 1, columns >= 1, rows <= TableLimits.maximumCells / columns else {
            throw .invalidDimensions(rows: rows, columns: columns)
        }
        guard let selection else { throw .model(.noSelection) }
        if ([selection.focus.key] + ancestors(of: selection.focus.key)).contains(where: { self[$0]?.type == TableNodePlugin.type || self[$0]?.type == TableCellNodePlugin.type }) {
            throw .nestedTable
        }
        var attempt = self
        let table: NodeKey
        do {
            table = try attempt.createNode(type: TableNodePlugin.type)
            for row in 0..<rows {
                let rowKey = try attempt.createNode(type: TableRowNodePlugin.type)
                try attempt.append(rowKey, to: table)
                for column in 0..<columns {
                    var header = TableCellHeaderState()
                    if row == 0 && headers.contains(.firstRow) { header.insert(.row) }
                    if column == 0 && headers.contains(.firstColumn) { header.insert(.column) }
                    try attempt.append(try attempt.makeTableCell(header: header), to: rowKey)
                }
            }
            try attempt.insertBlockAtNearestRoot(table)
        } catch { throw .model(error) }
        attempt.selectStart(ofCell: attempt.firstCell(of: table))
        self = attempt
        return table
    }

    /// A detached cell holding an empty paragraph.
    mutating func makeTableCell(header: TableCellHeaderState) throws(ModelError) -> NodeKey {
        let cell = try createNode(type: TableCellNodePlugin.type, fields: ["headerState": .number(.integer(header.rawValue))])
        try append(try createNode(type: .paragraph), to: cell)
        return cell
    }

    func firstCell(of table: NodeKey) -> NodeKey? {
        children(of: table).lazy.compactMap { $0.firstChild }.first
    }

    /// Puts the caret at the start of a cell's first text block (Lexical's `$moveSelectionToCell`).
    mutating func selectStart(ofCell cell: NodeKey?) {
        guard let cell, let block = firstTextBlock(in: cell, crossingBoundaries: true) else { return }
        selection = RangeSelection(caret: startPoint(of: block), format: selection?.format ?? [], style: selection?.style ?? "")
    }

    /// Puts the caret at the end of a cell's last text block (Lexical's `selectEnd`).
    mutating func selectEnd(ofCell cell: NodeKey) {
        guard let block = lastTextBlock(in: cell, crossingBoundaries: true) else { return }
        selection = RangeSelection(caret: endPoint(of: block), format: selection?.format ?? [], style: selection?.style ?? "")
    }

    /// The header state a cell inserted next to a cell of `state` gets: `kept` when that cell has
    /// exactly `kept` or both states, none otherwise (Lexical's `getHeaderState`).
    static func insertedHeader(next state: TableCellHeaderState, keeping kept: TableCellHeaderState) -> TableCellHeaderState {
        state == .both || state == kept ? kept : []
    }

    // MARK: Rows and columns

    /// Lexical's `$insertTableRowAtSelection`: inserts a row below the lowest (or above the
    /// highest) row of the selected cells. Cells spanning across the new row's place grow by one
    /// row instead of getting a new cell; new cells keep only the column header state of the cell
    /// above or below them. The selection stays where it was. Returns the new row.
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable`.
    /// - Complexity: O(rows × columns + columns · log n).
    @discardableResult
    public mutating func insertTableRow(below: Bool) throws(TableError) -> NodeKey {
        let (map, anchor, focus) = try selectedTableGrid()
        let target = below
            ? (anchor.rows.upperBound > focus.rows.upperBound ? anchor : focus)
            : (focus.row < anchor.row ? focus : anchor)
        return try insertTableRow(at: below ? target.rows.upperBound : target.row, below: below, map: map)
    }

    /// Inserts a row below (or above) grid row `gridRow` of the table `map` lays out.
    mutating func insertTableRow(at gridRow: Int, below: Bool, map: TableMap) throws(TableError) -> NodeKey {
        var attempt = self
        let row: NodeKey
        do {
            row = try attempt.createNode(type: TableRowNodePlugin.type)
            var grown = Set<NodeKey>()
            for column in 0..<map.columnCount {
                guard let slot = map[gridRow, column] else { continue }
                let continues = below ? slot.rows.upperBound > gridRow : slot.row < gridRow
                if continues {
                    if grown.insert(slot.key).inserted {
                        try attempt.setField("rowSpan", to: .number(.integer(slot.rowSpan + 1)), of: slot.key)
                    }
                } else {
                    let header = Self.insertedHeader(next: attempt.headerState(of: slot.key), keeping: .column)
                    try attempt.append(try attempt.makeTableCell(header: header), to: row)
                }
            }
            if below { try attempt.insert(row, after: map.rows[gridRow]) } else { try attempt.insert(row, before: map.rows[gridRow]) }
        } catch { throw .model(error) }
        self = attempt
        return row
    }

    func headerState(of cell: NodeKey) -> TableCellHeaderState {
        self[cell].map { TableCellHeaderState(of: $0) } ?? []
    }

    /// Lexical's `$insertTableColumnAtSelection`: inserts a column after the rightmost (or before
    /// the leftmost) column of the selected cells. Cells spanning across the new column's place
    /// grow by one column; new cells keep only the row header state of their neighbour; `colWidths`
    /// gets a copy of the neighbour's width. The caret moves to the first new cell, which is
    /// returned (nil when every row grew a span instead).
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable`.
    /// - Complexity: O(rows × columns + rows · (cells in a row + log n)).
    @discardableResult
    public mutating func insertTableColumn(after: Bool) throws(TableError) -> NodeKey? {
        let (map, anchor, focus) = try selectedTableGrid()
        let target = after
            ? (anchor.columns.upperBound > focus.columns.upperBound ? anchor : focus)
            : (focus.column < anchor.column ? focus : anchor)
        return try insertTableColumn(after: after ? target.columns.upperBound : target.column - 1, map: map)
    }

    /// Inserts a column after grid column `column` (-1: before the first) of the table `map` lays out.
    mutating func insertTableColumn(after column: Int, map: TableMap) throws(TableError) -> NodeKey? {
        var attempt = self
        var first: NodeKey?
        do {
            var grown = Set<NodeKey>()
            for gridRow in 0..<map.rowCount {
                if column >= 0, let spanning = map[gridRow, column], spanning.columns.upperBound > column {
                    if grown.insert(spanning.key).inserted {
                        try attempt.setField("colSpan", to: .number(.integer(spanning.colSpan + 1)), of: spanning.key)
                    }
                    continue
                }
                let neighbour = map[gridRow, max(column, 0)].map { attempt.headerState(of: $0.key) } ?? []
                let cell = try attempt.makeTableCell(header: Self.insertedHeader(next: neighbour, keeping: .row))
                if let previous = map.cells(startingInRow: gridRow).last(where: { $0.columns.upperBound <= column }) {
                    try attempt.insert(cell, after: previous.key)
                } else {
                    try attempt.prepend(cell, to: map.rows[gridRow])
                }
                first = first ?? cell
            }
            if var widths = attempt[map.table].flatMap(TableNodePlugin.columnWidths(of:)), !widths.isEmpty {
                let source = min(max(column, 0), widths.count - 1)
                widths.insert(widths[source], at: min(column + 1, widths.count))
                try attempt.setField("colWidths", to: .array(widths.map { .number(.double($0)) }), of: map.table)
            }
        } catch { throw .model(error) }
        attempt.selectStart(ofCell: first)
        self = attempt
        return first
    }

    /// Lexical's `$deleteTableRowAtSelection`: deletes the rows the selected cells cover. A cell
    /// spanning into them from above shrinks; one spanning out of them below moves down to the
    /// next row and shrinks; deleting every row deletes the table. The caret goes to the first
    /// cell of the row after (else before) the deleted ones, or where the table was.
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable`.
    /// - Complexity: O(rows × columns + removed nodes · log n).
    public mutating func deleteTableRows() throws(TableError) {
        let (map, anchor, focus) = try selectedTableGrid()
        try deleteTableRows(min(anchor.row, focus.row)...max(anchor.rows.upperBound, focus.rows.upperBound), map: map)
    }

    /// Deletes grid rows `rows` of `table`; see ``deleteTableRows()``.
    ///
    /// - Throws: `TableError.notATable`, `.invalidTable`, `.outsideTable`.
    /// - Complexity: O(rows × columns + removed nodes · log n).
    public mutating func deleteTableRows(_ rows: ClosedRange<Int>, in table: NodeKey) throws(TableError) {
        let map = try TableMap(table: table, in: self)
        guard rows.lowerBound >= 0, rows.upperBound < map.rowCount else {
            throw .outsideTable(rows: rows, columns: 0...max(0, map.columnCount - 1), rowCount: map.rowCount, columnCount: map.columnCount)
        }
        try deleteTableRows(rows, map: map)
    }

    mutating func deleteTableRows(_ range: ClosedRange<Int>, map: TableMap) throws(TableError) {
        if range.count == map.rowCount {
            try removeTable(map.table)
            return
        }
        var attempt = self
        do {
            var moving: [(cell: TableMap.Cell, span: Int)] = []
            for cell in map.cells(inRows: range, columns: 0...(map.columnCount - 1)) {
                if cell.row < range.lowerBound {
                    let overlap = min(cell.rows.upperBound, range.upperBound) - range.lowerBound + 1
                    try attempt.setField("rowSpan", to: .number(.integer(cell.rowSpan - overlap)), of: cell.key)
                } else if cell.rows.upperBound > range.upperBound {
                    moving.append((cell, cell.rows.upperBound - range.upperBound))
                }
            }
            let nextRow = range.upperBound + 1
            var placed = map.cells(startingInRow: nextRow).map { (column: $0.column, key: $0.key) }
            for (cell, span) in moving.sorted(by: { $0.cell.column < $1.cell.column }) {
                try attempt.detach(cell.key)
                if let previous = placed.last(where: { $0.column < cell.column }) {
                    try attempt.insert(cell.key, after: previous.key)
                } else {
                    try attempt.prepend(cell.key, to: map.rows[nextRow])
                }
                placed.append((cell.column, cell.key))
                placed.sort { $0.column < $1.column }
                try attempt.setField("rowSpan", to: .number(.integer(span)), of: cell.key)
            }
            for row in range { try attempt.remove(map.rows[row]) }
        } catch { throw .model(error) }
        let after = try TableMap(table: map.table, in: attempt)
        let row = range.lowerBound < after.rowCount ? range.lowerBound : range.lowerBound - 1
        attempt.selectStart(ofCell: after[row, 0]?.key)
        self = attempt
    }

    /// Lexical's `$deleteTableColumnAtSelection`: deletes the columns the selected cells cover. A
    /// cell spanning into them shrinks; deleting every column deletes the table; `colWidths` loses
    /// the deleted columns. The caret goes to the cell after (else before) them in the focus's row.
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable`.
    /// - Complexity: O(rows × columns + removed nodes · log n).
    public mutating func deleteTableColumns() throws(TableError) {
        let (map, anchor, focus) = try selectedTableGrid()
        let columns = min(anchor.column, focus.column)...max(anchor.columns.upperBound, focus.columns.upperBound)
        try deleteTableColumns(columns, map: map, caretRow: focus.row)
    }

    /// Deletes grid columns `columns` of `table`; see ``deleteTableColumns()``.
    ///
    /// - Throws: `TableError.notATable`, `.invalidTable`, `.outsideTable`.
    /// - Complexity: O(rows × columns + removed nodes · log n).
    public mutating func deleteTableColumns(_ columns: ClosedRange<Int>, in table: NodeKey) throws(TableError) {
        let map = try TableMap(table: table, in: self)
        guard columns.lowerBound >= 0, columns.upperBound < map.columnCount else {
            throw .outsideTable(rows: 0...max(0, map.rowCount - 1), columns: columns, rowCount: map.rowCount, columnCount: map.columnCount)
        }
        try deleteTableColumns(columns, map: map, caretRow: 0)
    }

    mutating func deleteTableColumns(_ range: ClosedRange<Int>, map: TableMap, caretRow: Int) throws(TableError) {
        if range.count == map.columnCount {
            try removeTable(map.table)
            return
        }
        var attempt = self
        do {
            for cell in map.cells(inRows: 0...(map.rowCount - 1), columns: range) {
                let inside = min(cell.columns.upperBound, range.upperBound) - max(cell.column, range.lowerBound) + 1
                if inside == cell.colSpan {
                    try attempt.remove(cell.key)
                } else {
                    try attempt.setField("colSpan", to: .number(.integer(cell.colSpan - inside)), of: cell.key)
                }
            }
            if var widths = attempt[map.table].flatMap(TableNodePlugin.columnWidths(of:)), widths.count == map.columnCount {
                widths.removeSubrange(range)
                try attempt.setField("colWidths", to: .array(widths.map { .number(.double($0)) }), of: map.table)
            }
        } catch { throw .model(error) }
        let after = try TableMap(table: map.table, in: attempt)
        let column = range.lowerBound < after.columnCount ? range.lowerBound : range.lowerBound - 1
        attempt.selectStart(ofCell: after[min(caretRow, after.rowCount - 1), column]?.key)
        self = attempt
    }

    /// Removes a whole table and puts the caret where it was.
    mutating func removeTable(_ table: NodeKey) throws(TableError) {
        guard let parent = self[table]?.parent, let index = indexInParent(table) else { throw .model(.notAttached(table)) }
        var attempt = self
        do {
            try attempt.remove(table)
            attempt.selection = RangeSelection(
                caret: try attempt.caretWhereBlockWas(parent: parent, index: index),
                format: selection?.format ?? [], style: selection?.style ?? ""
            )
        } catch { throw .model(error) }
        self = attempt
    }

    // MARK: Merging

    /// Lexical's `$mergeCells` for the rectangle between the selection's anchor and focus cells.
    /// See ``mergeTableCells(in:rows:columns:)``.
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable`.
    /// - Complexity: O(rows × columns · (rows + columns) + moved nodes · log n).
    @discardableResult
    public mutating func mergeTableCells() throws(TableError) -> NodeKey {
        let (map, anchor, focus) = try selectedTableGrid()
        return try mergeTableCells(map.rectangle(enclosing: anchor, focus), map: map)
    }

    /// Merges the cells covering grid `rows` × `columns` of `table` into its top-left cell, after
    /// growing the rectangle until it cuts no cell in two. The top-left cell takes the spans and,
    /// row by row, the blocks of every other cell (cells holding a single empty paragraph give
    /// nothing), and the others go. Rows left without cells stay (their slots are spanned), as in
    /// Lexical. The caret goes to the start of the merged cell, which is returned.
    ///
    /// - Throws: `TableError.notATable`, `.invalidTable`, `.outsideTable`.
    /// - Complexity: O(rows × columns · (rows + columns) + moved nodes · log n).
    @discardableResult
    public mutating func mergeTableCells(in table: NodeKey, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws(TableError) -> NodeKey {
        let map = try TableMap(table: table, in: self)
        guard let first = map[rows.lowerBound, columns.lowerBound], let last = map[rows.upperBound, columns.upperBound] else {
            throw .outsideTable(rows: rows, columns: columns, rowCount: map.rowCount, columnCount: map.columnCount)
        }
        return try mergeTableCells(map.rectangle(enclosing: first, last), map: map)
    }

    mutating func mergeTableCells(_ rectangle: (rows: ClosedRange<Int>, columns: ClosedRange<Int>), map: TableMap) throws(TableError) -> NodeKey {
        guard let target = map[rectangle.rows.lowerBound, rectangle.columns.lowerBound] else {
            throw .outsideTable(rows: rectangle.rows, columns: rectangle.columns, rowCount: map.rowCount, columnCount: map.columnCount)
        }
        var attempt = self
        do {
            try attempt.setField("colSpan", to: .number(.integer(rectangle.columns.count)), of: target.key)
            try attempt.setField("rowSpan", to: .number(.integer(rectangle.rows.count)), of: target.key)
            for cell in map.cells(inRows: rectangle.rows, columns: rectangle.columns) where cell.key != target.key {
                if !attempt.holdsOnlyAnEmptyParagraph(cell.key) {
                    try attempt.moveChildren(of: cell.key, from: 0, to: target.key, at: attempt[target.key]?.childCount ?? 0)
                }
                try attempt.remove(cell.key)
            }
            if attempt[target.key]?.childCount == 0 {
                try attempt.append(try attempt.createNode(type: .paragraph), to: target.key)
            }
        } catch { throw .model(error) }
        attempt.selectStart(ofCell: target.key)
        self = attempt
        return target.key
    }

    func holdsOnlyAnEmptyParagraph(_ cell: NodeKey) -> Bool {
        guard let node = self[cell], node.childCount == 1, let only = node.firstChild.flatMap({ self[$0] }) else { return false }
        return only.type == .paragraph && only.childCount == 0
    }

    /// Lexical's `$unmergeCell` for the cell holding the selection's focus (Lexical takes the
    /// anchor; Quire's table operations all decide by the focus).
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable`.
    /// - Complexity: as ``unmergeTableCell(_:)``.
    public mutating func unmergeTableCell() throws(TableError) {
        try unmergeTableCell(try selectedTableCells().focus)
    }

    /// Lexical's `$unmergeCellNode`: splits a merged cell back into single cells. The cell keeps
    /// its content at the top left; every other slot gets a new cell with an empty paragraph,
    /// whose header state is the cell's row (column) header state where every cell of that grid
    /// row (column) has it. Does nothing for a cell without spans.
    ///
    /// - Throws: `TableError.notACell`, `.invalidTable`.
    /// - Complexity: O(rows × columns + new cells · log n).
    public mutating func unmergeTableCell(_ cell: NodeKey) throws(TableError) {
        guard let table = table(ofCell: cell) else { throw .notACell(cell) }
        let map = try TableMap(table: table, in: self)
        guard let merged = map.cell(cell) else { throw .notACell(cell) }
        guard merged.colSpan > 1 || merged.rowSpan > 1 else { return }
        let header = headerState(of: cell)
        let columnStates = (0..<merged.colSpan).map { offset in
            (0..<map.rowCount).reduce(header.intersection(.column)) { state, row in
                state.intersection(map[row, merged.column + offset].map { headerState(of: $0.key) } ?? [])
            }
        }
        let rowStates = (0..<merged.rowSpan).map { offset in
            (0..<map.columnCount).reduce(header.intersection(.row)) { state, column in
                state.intersection(map[merged.row + offset, column].map { headerState(of: $0.key) } ?? [])
            }
        }
        var attempt = self
        do {
            var previous = cell
            for offset in 1..<max(1, merged.colSpan) {
                let created = try attempt.makeTableCell(header: columnStates[offset].union(rowStates[0]))
                try attempt.insert(created, after: previous)
                previous = created
            }
            for rowOffset in 1..<max(1, merged.rowSpan) {
                let gridRow = merged.row + rowOffset
                var anchor = map.cells(startingInRow: gridRow).last(where: { $0.column < merged.column })?.key
                for offset in 0..<merged.colSpan {
                    let created = try attempt.makeTableCell(header: columnStates[offset].union(rowStates[rowOffset]))
                    if let anchor { try attempt.insert(created, after: anchor) } else { try attempt.prepend(created, to: map.rows[gridRow]) }
                    anchor = created
                }
            }
            try attempt.setField("colSpan", to: .number(.integer(1)), of: cell)
            try attempt.setField("rowSpan", to: .number(.integer(1)), of: cell)
        } catch { throw .model(error) }
        self = attempt
    }

    // MARK: Tab

    /// Tab (Shift-Tab with `backward`) in a table, as Lexical's `$selectAdjacentCell`: the caret
    /// goes to the end of the next (previous) cell, row by row. Tab in the last cell adds a row
    /// below it and moves into its first cell; Shift-Tab in the first cell moves to the end of the
    /// text block before the table, and stays when there is none. Returns the cell the caret is
    /// in afterwards, or nil when it left the table.
    ///
    /// - Throws: `TableError.notInTableCell`, `.invalidTable` (adding a row to a broken table).
    /// - Complexity: O(depth + rows walked); adding a row is O(rows × columns).
    @discardableResult
    public mutating func selectAdjacentTableCell(backward: Bool) throws(TableError) -> NodeKey? {
        guard let selection else { throw .model(.noSelection) }
        guard let cell = tableCell(containing: selection.focus.key), let table = table(ofCell: cell),
              let row = self[cell]?.parent else { throw .notInTableCell(selection.focus) }
        if let sibling = backward ? self[cell]?.previousSibling : self[cell]?.nextSibling {
            selectEnd(ofCell: sibling)
            return sibling
        }
        var nextRow = backward ? self[row]?.previousSibling : self[row]?.nextSibling
        while let candidate = nextRow {
            if let target = backward ? self[candidate]?.lastChild : self[candidate]?.firstChild {
                selectEnd(ofCell: target)
                return target
            }
            nextRow = backward ? self[candidate]?.previousSibling : self[candidate]?.nextSibling
        }
        if backward {
            if let block = previousTextBlock(before: table, crossingBoundaries: true) {
                self.selection = RangeSelection(caret: endPoint(of: block), format: selection.format, style: selection.style)
                return nil
            }
            return cell
        }
        let map = try TableMap(table: table, in: self)
        guard let mapped = map.cell(cell) else { throw .notACell(cell) }
        var attempt = self
        let added = try attempt.insertTableRow(at: mapped.rows.upperBound, below: true, map: map)
        let first = attempt[added]?.firstChild
        attempt.selectStart(ofCell: first)
        self = attempt
        return first
    }

    // MARK: Cell and table fields

    /// Sets a cell's `headerState`.
    ///
    /// - Throws: `TableError.notACell`.
    /// - Complexity: O(log n).
    public mutating func setTableCellHeaderState(_ header: TableCellHeaderState, of cell: NodeKey) throws(TableError) {
        try setTableField("headerState", to: .number(.integer(header.rawValue)), of: cell, type: TableCellNodePlugin.type)
    }

    /// Sets (or, with nil, clears) a cell's `backgroundColor`, a CSS colour.
    ///
    /// - Throws: `TableError.notACell`.
    /// - Complexity: O(log n).
    public mutating func setTableCellBackgroundColor(_ color: String?, of cell: NodeKey) throws(TableError) {
        try setTableField("backgroundColor", to: color.map(JSONValue.string) ?? .null, of: cell, type: TableCellNodePlugin.type)
    }

    /// Sets (or, with nil, removes) a cell's `width` in pixels.
    ///
    /// - Throws: `TableError.notACell`, `.invalidField` for a negative or non-finite width.
    /// - Complexity: O(log n).
    public mutating func setTableCellWidth(_ width: Double?, of cell: NodeKey) throws(TableError) {
        try setTableField("width", to: width.map { .number(.double($0)) }, of: cell, type: TableCellNodePlugin.type)
    }

    /// Sets (or, with nil, removes) a table's `colWidths`, one width in pixels per grid column.
    ///
    /// - Throws: `TableError.notATable`, `.invalidTable`, `.invalidField` when the count is not the
    ///   number of columns or a width is negative.
    /// - Complexity: O(rows × columns + log n).
    public mutating func setTableColumnWidths(_ widths: [Double]?, of table: NodeKey) throws(TableError) {
        if let widths {
            let map = try TableMap(table: table, in: self)
            guard widths.count == map.columnCount else {
                throw .invalidField(field: "colWidths", message: "\(widths.count) widths for \(map.columnCount) columns")
            }
        }
        try setTableField("colWidths", to: widths.map { .array($0.map { .number(.double($0)) }) }, of: table, type: TableNodePlugin.type)
    }

    private mutating func setTableField(_ name: String, to value: JSONValue?, of key: NodeKey, type: NodeType) throws(TableError) {
        guard let node = self[key], node.type == type, !node.isUnknown else {
            throw type == TableNodePlugin.type ? .notATable(key) : .notACell(key)
        }
        if case .number(let number)? = value, !number.doubleValue.isFinite {
            throw .invalidField(field: name, message: "must be a finite number")
        }
        var attempt = self
        do { try attempt.setField(name, to: value, of: key) } catch { throw .model(error) }
        if let updated = attempt[key], let plugin = attempt.plugin(of: updated) {
            do { try plugin.validate(updated) } catch { throw .invalidField(field: error.field ?? name, message: error.message) }
        }
        self = attempt
    }
}
