import QuireMarkup
import QuireModel

/// The table's HTML conversions: `table` ↔ `table`, `tr` ↔ `tablerow`, `td`/`th` ↔
/// `tablecell` (`colspan`, `rowspan`, a `th`'s header state: a header row's cell, or a header
/// column's with `scope="row"`; `background-color`). `thead`, `tbody` and `tfoot` are read
/// through; leading header rows are written in a `thead`, the rest in a `tbody`.
public struct TableHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { TableNodePlugin.type }
    public var importedTags: [String] { ["table"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        .node(nodeType)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("table", for: node)
        let rows = Array(writer.state.children(of: node.key))
        let headerRows = rows.prefix { row in
            row.childCount > 0 && writer.state.children(of: row.key).allSatisfy { TableCellHeaderState(of: $0).contains(.row) }
        }.count
        if headerRows > 0 && headerRows < rows.count {
            writer.openElement("thead")
            for row in rows[..<headerRows] { try writer.write(row) }
            writer.closeElement()
            writer.openElement("tbody")
            for row in rows[headerRows...] { try writer.write(row) }
            writer.closeElement()
        } else {
            for row in rows { try writer.write(row) }
        }
        writer.closeElement()
    }
}

/// `tr` ↔ `tablerow`.
public struct TableRowHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { TableRowNodePlugin.type }
    public var importedTags: [String] { ["tr"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        .node(nodeType)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("tr", for: node)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}

/// `td`/`th` ↔ `tablecell`. A cell holding one plain paragraph is written with the
/// paragraph's content directly in it.
public struct TableCellHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { TableCellNodePlugin.type }
    public var importedTags: [String] { ["td", "th"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        var fields: JSONObject = [:]
        if element.tag == "th" {
            var state: TableCellHeaderState = element.attribute("scope")?.lowercased() == "row" ? .column : .row
            if let explicit = element.attribute("data-header-state").flatMap({ Int($0) }), (1...3).contains(explicit) {
                state = TableCellHeaderState(rawValue: explicit)
            }
            fields["headerState"] = .number(.integer(state.rawValue))
        }
        for (attribute, field) in [("colspan", "colSpan"), ("rowspan", "rowSpan")] {
            if let span = element.attribute(attribute).flatMap({ Int($0) }), span > 1 { fields[field] = .number(.integer(min(span, 1000))) }
        }
        if let color = element.style["background-color"], !color.isEmpty { fields["backgroundColor"] = .string(color) }
        return .node(nodeType, fields: fields)
    }

    /// A cell always holds a block: an empty one gets an empty paragraph. A cell's alignment
    /// goes to its paragraphs, where the markdown import and Lexical keep it.
    public func finishImport(of node: NodeKey, in state: inout EditorState) throws(ModelError) {
        if state[node]?.childCount == 0 { try state.append(try state.createNode(type: .paragraph), to: node) }
        guard let alignment = state[node]?.alignment, alignment != .none else { return }
        for child in Array(state.children(of: node)) where child.type == .paragraph && child.alignment == .none {
            try state.setField("format", to: .string(alignment.rawValue), of: child.key)
        }
        try state.setField("format", to: .string(""), of: node)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        let header = TableCellHeaderState(of: node)
        var attributes: [HTMLAttribute] = []
        if header == .column { attributes.append(HTMLAttribute("scope", "row")) }
        if header == .both { attributes.append(HTMLAttribute("data-header-state", "3")) }
        for (attribute, span) in [("colspan", TableCellNodePlugin.colSpan(of: node)), ("rowspan", TableCellNodePlugin.rowSpan(of: node))] where span > 1 {
            attributes.append(HTMLAttribute(attribute, String(span)))
        }
        var styles: [String] = []
        if let color = node.fields["backgroundColor"]?.stringValue, !color.isEmpty { styles.append("background-color: \(color)") }
        let children = Array(writer.state.children(of: node.key))
        if children.count == 1, let only = children.first, only.type == .paragraph, only.direction == nil {
            // One paragraph: its content, and its alignment, are the cell's.
            if only.alignment != .none, node.alignment == .none { styles.append("text-align: \(only.alignment.rawValue)") }
            if !styles.isEmpty { attributes.append(HTMLAttribute("style", styles.joined(separator: "; "))) }
            writer.openElement(header.isEmpty ? "td" : "th", attributes: attributes, for: node)
            try writer.writeChildren(of: only)
        } else {
            if !styles.isEmpty { attributes.append(HTMLAttribute("style", styles.joined(separator: "; "))) }
            writer.openElement(header.isEmpty ? "td" : "th", attributes: attributes, for: node)
            try writer.writeChildren(of: node)
        }
        writer.closeElement()
    }
}
