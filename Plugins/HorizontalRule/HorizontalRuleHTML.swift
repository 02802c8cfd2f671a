import QuireMarkup
import QuireModel

/// The horizontal rule's HTML conversion: `hr` ↔ `horizontalrule`.
public struct HorizontalRuleHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { HorizontalRuleNodePlugin.type }
    public var importedTags: [String] { ["hr"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        .leaf(nodeType)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.voidElement("hr")
    }
}
