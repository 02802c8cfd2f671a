import QuireMarkup
import QuireModel

/// The link's HTML conversion: `a` with an `href` ↔ `link` (`href` → `url`, and `title`,
/// `target`, `rel`). An `a` without `href` (an anchor) is not a link: its text stays.
public struct LinkHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { LinkNodePlugin.type }
    public var importedTags: [String] { ["a"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        guard let href = element.urlAttribute("href") else { return nil }
        var fields: JSONObject = ["url": .string(href)]
        for name in ["title", "target", "rel"] {
            if let value = element.attribute(name) { fields[name] = .string(value) }
        }
        return .node(nodeType, fields: fields)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        var attributes = [HTMLAttribute("href", LinkNodePlugin.url(of: node))]
        for name in ["title", "target", "rel"] {
            if let value = node.fields[name]?.stringValue { attributes.append(HTMLAttribute(name, value)) }
        }
        writer.openElement("a", attributes: attributes)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}
