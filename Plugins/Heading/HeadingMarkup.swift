import QuireMarkup
import QuireModel

/// The heading plugin's markup mapping: a heading intent of level n is a `heading` with tag "hn".
/// Levels deeper than the configured `maxLevel` import as `maxLevel` headings.
public struct HeadingMarkupMapping: MarkupNodeMapping {
    /// The deepest level headings import as.
    public let maxLevel: Int

    /// A mapping; `maxLevel` is clamped to 1…6.
    public init(maxLevel: Int = 6) { self.maxLevel = min(6, max(1, maxLevel)) }

    /// `heading`.
    public var nodeType: NodeType { HeadingNodePlugin.type }

    /// A heading intent becomes a heading node with its tag.
    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .block(.heading(let level)) = intent else { return nil }
        return ["tag": .string("h\(min(maxLevel, max(1, level)))")]
    }

    /// The heading intent of the node's tag (h1 when the tag is unreadable).
    public func intent(of node: Node) -> MarkupIntent {
        .block(.heading(level: HeadingNodePlugin.level(of: node) ?? 1))
    }
}
