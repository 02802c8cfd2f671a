import QuireMarkup
import QuireModel

/// The quote's HTML conversion: `blockquote` ↔ `quote`. A quote holds inline content, so the
/// paragraphs of a `blockquote` continue it line by line, and a list, table or code block
/// inside one ends the quote and goes after it (the rest continues in a new quote).
public struct QuoteHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { QuoteNodePlugin.type }
    public var importedTags: [String] { ["blockquote"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        .node(nodeType, content: .inlines(splitsForBlocks: true))
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("blockquote", for: node)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}
