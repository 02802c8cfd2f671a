import QuireMarkup
import QuireModel

/// The callout's own HTML conversion, contributed next to its node type: a callout is written
/// as `<aside class="callout" data-emoji="💡">…</aside>`, and such an `aside` (or any element
/// with a `data-callout` attribute) is read back as one. Other `aside`s stay plain text.
public struct CalloutHTMLConversion: HTMLConversion {
    public let defaultEmoji: String

    public init(defaultEmoji: String = "💡") { self.defaultEmoji = defaultEmoji }

    public var nodeType: NodeType { CalloutNodePlugin.type }
    public var importedTags: [String] { ["aside", "div"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        guard element.classNames.contains("callout") || element.attribute("data-callout") != nil else { return nil }
        let emoji = element.attribute("data-emoji").flatMap { $0.isEmpty ? nil : $0 } ?? defaultEmoji
        return .node(nodeType, fields: ["emoji": .string(emoji)])
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        let emoji = node.fields["emoji"]?.stringValue ?? defaultEmoji
        writer.openElement("aside", attributes: [HTMLAttribute("class", "callout"), HTMLAttribute("data-emoji", emoji)], for: node)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}
