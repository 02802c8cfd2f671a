import QuireMarkup
import QuireModel

/// The heading's HTML conversion: `h1`…`h6` ↔ `heading` with that tag. Levels deeper than the
/// configured `maxLevel` import as `maxLevel` headings.
public struct HeadingHTMLConversion: HTMLConversion {
    /// The deepest level headings import as.
    public let maxLevel: Int

    /// A conversion; `maxLevel` is clamped to 1…6.
    public init(maxLevel: Int = 6) { self.maxLevel = min(6, max(1, maxLevel)) }

    public var nodeType: NodeType { HeadingNodePlugin.type }
    public var importedTags: [String] { HeadingTag.allCases.map(\.rawValue) }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        guard let level = HeadingTag(rawValue: element.tag)?.level else { return nil }
        return .node(nodeType, fields: ["tag": .string("h\(min(level, maxLevel))")])
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("h\(HeadingNodePlugin.level(of: node) ?? 1)", for: node)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}
