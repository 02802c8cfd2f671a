import QuireModel

/// Block quotes: Lexical's `quote` node, a block of inline content.
public struct QuoteNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "quote"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .inlines }
    public var fields: [FieldSpec] { ElementFields.common }
}

extension PluginDescriptor {
    /// The quote plugin, selected as `quote`; it has no options.
    public static let quote = PluginDescriptor(
        name: "quote", summary: "Block quotes (Lexical `quote`)", options: NoOptions.self
    ) { _ in ([QuoteNodePlugin()], [QuoteMarkupMapping()]) }
}
