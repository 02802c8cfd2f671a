import QuireMarkup
import QuireModel

/// Lexical's header states of a table cell (`headerState`), a bitmask.
public struct TableCellHeaderState: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The cell heads its row… of the header row (Lexical `ROW`).
    public static let row = TableCellHeaderState(rawValue: 1)
    /// The cell heads its column (Lexical `COLUMN`).
    public static let column = TableCellHeaderState(rawValue: 2)
}

/// Tables: Lexical's `table`, holding `tablerow`s.
public struct TableNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "table"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .only([TableRowNodePlugin.type]) }
    public var fields: [FieldSpec] { ElementFields.common }
}

/// Table rows: Lexical's `tablerow`, holding `tablecell`s.
public struct TableRowNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "tablerow"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .only([TableCellNodePlugin.type]) }
    public var fields: [FieldSpec] { ElementFields.common }
}

/// Table cells: Lexical's `tablecell`, holding blocks, with `headerState` (bitmask: row 1,
/// column 2), `colSpan`, `rowSpan` and `backgroundColor`.
public struct TableCellNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "tablecell"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .blocks }
    public var fields: [FieldSpec] {
        ElementFields.common + [
            FieldSpec("backgroundColor", .optionalString, default: .null),
            FieldSpec("colSpan", .integer, default: .number(.integer(1))),
            FieldSpec("headerState", .integer, default: .number(.integer(0))),
            FieldSpec("rowSpan", .integer, default: .number(.integer(1))),
        ]
    }

    public func validate(_ node: Node) throws(NodeValidationError) {
        for name in ["colSpan", "rowSpan"] {
            if let span = node.fields[name]?.intValue, span < 1 {
                throw NodeValidationError(field: name, message: "must be at least 1, not \(span)")
            }
        }
        if let state = node.fields["headerState"]?.intValue, !(0...3).contains(state) {
            throw NodeValidationError(field: "headerState", message: "must be 0…3 (row 1, column 2), not \(state)")
        }
    }
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
    /// The table plugin, selected as `table`: `table`, `tablerow`, `tablecell`.
    public static let table = PluginDescriptor(
        name: "table", summary: "Tables with header states and spans (Lexical `table`, `tablerow`, `tablecell`)", options: NoOptions.self
    ) { _ in
        ([TableNodePlugin(), TableRowNodePlugin(), TableCellNodePlugin()],
         [TableMarkupMapping(), TableRowMarkupMapping(), TableCellMarkupMapping()])
    }
}
