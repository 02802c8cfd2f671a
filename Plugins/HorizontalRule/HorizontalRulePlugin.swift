import QuireMarkup
import QuireModel

/// Horizontal rules: Lexical's `horizontalrule`, a block decorator (U+FFFC in the flat string).
public struct HorizontalRuleNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "horizontalrule"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .decorator(inline: false) }
}

/// The horizontal rule's markup mapping: a thematic break.
public struct HorizontalRuleMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { HorizontalRuleNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        intent == .block(.thematicBreak) ? [:] : nil
    }

    public func intent(of node: Node) -> MarkupIntent { .block(.thematicBreak) }
}

extension PluginDescriptor {
    /// The horizontal rule plugin, selected as `horizontalrule`.
    public static let horizontalRule = PluginDescriptor(
        name: "horizontalrule", summary: "Horizontal rules (Lexical `horizontalrule`)", options: NoOptions.self
    ) { _ in ([HorizontalRuleNodePlugin()], [HorizontalRuleMarkupMapping()]) }
}
