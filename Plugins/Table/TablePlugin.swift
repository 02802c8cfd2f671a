import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle

/// Lexical's header states of a table cell (`headerState`), a bitmask: 0 none, 1 row, 2 column,
/// 3 both.
public struct TableCellHeaderState: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The cell is in a header row (Lexical `ROW`).
    public static let row = TableCellHeaderState(rawValue: 1)
    /// The cell is in a header column (Lexical `COLUMN`).
    public static let column = TableCellHeaderState(rawValue: 2)
    /// Both (Lexical `BOTH`): the top-left cell of a table with a header row and column.
    public static let both: TableCellHeaderState = [.row, .column]

    /// The header state of `cell` (none when unreadable).
    public init(of cell: Node) {
        self.init(rawValue: cell.fields["headerState"]?.intValue ?? 0)
    }
}

/// Tables: Lexical's `table`, holding `tablerow`s.
///
/// Besides the element fields it may carry Lexical's optional `colWidths` (an array of column
/// widths in pixels, one per column), `rowStriping` (boolean), `frozenColumnCount` and
/// `frozenRowCount` (non-negative integers). They are written only when set, as Lexical does, so
/// they are checked by `validate` rather than listed in `fields` (a listed field is written on
/// every new node).
///
/// In the flat string a table is its rows, each ending with "\n" when another row follows; see
/// ``TableCellNodePlugin`` for the cells.
public struct TableNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "table"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { Self.childRule }
    /// Built once: a set literal in the getter was built again on every child check.
    private static let childRule: ChildRule = .only([TableRowNodePlugin.type])
    public var fields: [FieldSpec] { ElementFields.common }

    public func validate(_ node: Node) throws(NodeValidationError) {
        if let widths = node.fields["colWidths"] {
            guard case .array(let values) = widths else {
                throw NodeValidationError(field: "colWidths", message: "must be an array of numbers, not \(widths.typeName)")
            }
            for (index, value) in values.enumerated() {
                guard case .number(let number) = value, number.doubleValue >= 0 else {
                    throw NodeValidationError(field: "colWidths", message: "element \(index) must be a non-negative number, not \(JSONWriter().string(value))")
                }
            }
        }
        if let striping = node.fields["rowStriping"], striping != .null, !FieldType.boolean.accepts(striping) {
            throw NodeValidationError(field: "rowStriping", message: "must be a boolean, not \(striping.typeName)")
        }
        for name in ["frozenColumnCount", "frozenRowCount"] {
            if let value = node.fields[name], value != .null {
                guard let count = value.intValue, FieldType.integer.accepts(value), count >= 0 else {
                    throw NodeValidationError(field: name, message: "must be a non-negative integer, not \(JSONWriter().string(value))")
                }
            }
        }
    }

    /// The table's `colWidths`, or nil when it has none.
    public static func columnWidths(of table: Node) -> [Double]? {
        guard case .array(let values)? = table.fields["colWidths"] else { return nil }
        return values.compactMap { value in
            if case .number(let number) = value { return number.doubleValue }
            return nil
        }
    }
}

/// Table rows: Lexical's `tablerow`, holding `tablecell`s. Lexical's optional `height` (pixels) is
/// written only when set and checked by `validate`.
public struct TableRowNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "tablerow"
    public var role: NodeRole { .element(inline: false) }
    public var parentTypes: Set<NodeType>? { Self.parentTypes }
    public var childRule: ChildRule { Self.childRule }
    /// Built once: set literals in the getters were built again on every check.
    private static let parentTypes: Set<NodeType> = [TableNodePlugin.type]
    private static let childRule: ChildRule = .only([TableCellNodePlugin.type])
    public var fields: [FieldSpec] { ElementFields.common }

    public func validate(_ node: Node) throws(NodeValidationError) {
        if let height = node.fields["height"], height != .null {
            guard case .number(let number) = height, number.doubleValue >= 0 else {
                throw NodeValidationError(field: "height", message: "must be a non-negative number, not \(JSONWriter().string(height))")
            }
        }
    }
}

/// Table cells: Lexical's `tablecell`, holding blocks, with `headerState` (0–3: row 1, column 2),
/// `colSpan` and `rowSpan` (at least 1) and `backgroundColor` (a CSS colour or null). Lexical's
/// optional `width` (pixels) and `verticalAlign` ("top", "middle", "bottom") are written only when
/// set and checked by `validate`.
///
/// A cell is an editing boundary (`isolatesContent`, Lexical's shadow root): Backspace at its
/// start and Delete at its end do nothing, a range deletion across cells empties text inside each
/// cell and keeps every cell and row, and Enter makes a new paragraph inside the cell.
///
/// In the flat string a cell is its blocks followed by a tab (U+0009) when another cell follows in
/// its row; a row ends with "\n". So a 2×2 table of "a", "b", "c", "d" reads "a\tb\nc\td", and the
/// caret walks through every cell. The separators are postambles — structure, never text — so no
/// edit inside a cell can delete one: deleting across a tab deletes the text on either side of it.
public struct TableCellNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "tablecell"
    /// The spans a cell may have: HTML's own limits (`colspan` 1–1,000, `rowspan` 0–65,534 with 0
    /// read as 1), so a layout sized by spans is backed by the document rather than a number.
    public static let spanRange = 1...1_000

    /// What separates two cells of a row in the flat string.
    public static let separator = "\t"
    public var role: NodeRole { .element(inline: false) }
    public var parentTypes: Set<NodeType>? { Self.parentTypes }
    /// Built once: a set literal in the getter was built again on every check.
    private static let parentTypes: Set<NodeType> = [TableRowNodePlugin.type]
    public var childRule: ChildRule { .blocks }
    public var isolatesContent: Bool { true }
    public var fields: [FieldSpec] {
        ElementFields.common + [
            FieldSpec("backgroundColor", .optionalString, default: .null),
            FieldSpec("colSpan", .integer, default: .number(.integer(1))),
            FieldSpec("headerState", .integer, default: .number(.integer(0))),
            FieldSpec("rowSpan", .integer, default: .number(.integer(1))),
        ]
    }

    public func postamble(of node: Node, in state: EditorState) -> String {
        node.nextSibling == nil ? "" : Self.separator
    }

    public func validate(_ node: Node) throws(NodeValidationError) {
        for name in ["colSpan", "rowSpan"] {
            if let span = node.fields[name]?.intValue, span < Self.spanRange.lowerBound {
                throw NodeValidationError(field: name, message: "must be at least 1, not \(span)")
            }
            if let span = node.fields[name]?.intValue, span > Self.spanRange.upperBound {
                throw NodeValidationError(field: name, message: "must be at most \(Self.spanRange.upperBound), not \(span)")
            }
        }
        if let state = node.fields["headerState"]?.intValue, !(0...3).contains(state) {
            throw NodeValidationError(field: "headerState", message: "must be 0…3 (row 1, column 2), not \(state)")
        }
        if let width = node.fields["width"], width != .null {
            guard case .number(let number) = width, number.doubleValue >= 0 else {
                throw NodeValidationError(field: "width", message: "must be a non-negative number, not \(JSONWriter().string(width))")
            }
        }
        if let align = node.fields["verticalAlign"], align != .null {
            guard let value = align.stringValue, ["top", "middle", "bottom"].contains(value) else {
                throw NodeValidationError(field: "verticalAlign", message: "must be \"top\", \"middle\" or \"bottom\", not \(JSONWriter().string(align))")
            }
        }
    }

    /// A cell's `colSpan` (1 when unreadable).
    public static func colSpan(of cell: Node) -> Int { max(1, cell.fields["colSpan"]?.intValue ?? 1) }
    /// A cell's `rowSpan` (1 when unreadable).
    public static func rowSpan(of cell: Node) -> Int { max(1, cell.fields["rowSpan"]?.intValue ?? 1) }
}

/// The table's markup mapping.
public struct TableMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { TableNodePlugin.type }
    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        if case .block(.table) = intent { return [:] }
        return nil
    }
    /// Alignments are read from the cells' paragraphs by the exporter.
    public func intent(of node: Node) -> MarkupIntent { .block(.table(alignments: [])) }
}

/// The table row's markup mapping.
public struct TableRowMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { TableRowNodePlugin.type }
    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        if case .block(.tableRow) = intent { return [:] }
        return nil
    }
    public func intent(of node: Node) -> MarkupIntent { .block(.tableRow(isHeader: false)) }
}

/// The table cell's markup mapping: a header-row cell gets the row header state.
public struct TableCellMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { TableCellNodePlugin.type }
    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .block(.tableCell) = intent else { return nil }
        return ["headerState": .number(.integer(context.isHeader ? TableCellHeaderState.row.rawValue : 0))]
    }
    public func intent(of node: Node) -> MarkupIntent { .block(.tableCell(column: 0, alignment: .none)) }
}

extension PluginDescriptor {
    /// The table plugin, selected as `table`: the `table`, `tablerow` and `tablecell` nodes, their
    /// markdown mappings, the ``TableCommandsExtension`` (table commands and Tab between cells) and
    /// the ``TableTheme`` contribution.
    public static let table = PluginDescriptor(
        name: "table", summary: "Tables with header states and spans (Lexical `table`, `tablerow`, `tablecell`)", options: NoOptions.self
    ) { _ in
        ([TableNodePlugin(), TableRowNodePlugin(), TableCellNodePlugin()],
         [.markupMapping(TableMarkupMapping()), .markupMapping(TableRowMarkupMapping()), .markupMapping(TableCellMarkupMapping()),
          .htmlConversion(TableHTMLConversion()), .htmlConversion(TableRowHTMLConversion()), .htmlConversion(TableCellHTMLConversion()),
          .editor(TableCommandsExtension()), .theme(TableTheme.contribution)])
    }
}
