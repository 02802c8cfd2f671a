import QuireMarkup
import QuireModel

/// Code blocks: Lexical's `code` node with an optional `language`, holding `code-highlight` text,
/// `linebreak` and `tab` nodes (plain `text` is accepted too, as before highlighting runs).
public struct CodeNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "code"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .only([CodeHighlightNodePlugin.type, .text, .lineBreak, .tab]) }
    public var fields: [FieldSpec] {
        ElementFields.common + [FieldSpec("language", .optionalString, default: .null)]
    }
}

/// Lexical's `code-highlight`: a text node inside a code block (`highlightType` is kept when present).
public struct CodeHighlightNodePlugin: NodePlugin {
    public init() {}
    public static let type: NodeType = "code-highlight"
    public var type: NodeType { Self.type }
    public var role: NodeRole { .text }
    public var fields: [FieldSpec] { TextFields.common }
}

/// The code plugin's markup mapping: a code block with its language (the info string's first word).
public struct CodeMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { CodeNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .block(.codeBlock(let language)) = intent else { return nil }
        return ["language": language.map(JSONValue.string) ?? .null]
    }

    public func intent(of node: Node) -> MarkupIntent {
        let language = node.fields["language"]?.stringValue
        return .block(.codeBlock(language: language?.isEmpty == true ? nil : language))
    }
}

extension PluginDescriptor {
    /// The code plugin, selected as `code`: `code` and `code-highlight`.
    public static let code = PluginDescriptor(
        name: "code", summary: "Code blocks with a language (Lexical `code`, `code-highlight`)", options: NoOptions.self
    ) { _ in ([CodeNodePlugin(), CodeHighlightNodePlugin()], [CodeMarkupMapping()]) }
}
