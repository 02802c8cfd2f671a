import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle

/// Links: Lexical's `link`, an inline element around text, with `url` (required), `rel`, `target`
/// and `title` (strings or null).
///
/// As Lexical's `LinkNode` (`canInsertTextBefore` / `canInsertTextAfter` are false), typing with
/// the caret at the very start or end of a link's text goes outside the link, so a link does not
/// grow when one types after it; typing inside it stays inside. In the flat string a link is just
/// its text.
public struct LinkNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "link"
    public var role: NodeRole { .element(inline: true) }
    public var childRule: ChildRule { .inlines }
    public var fields: [FieldSpec] {
        ElementFields.common + [
            FieldSpec("rel", .optionalString, default: .null),
            FieldSpec("target", .optionalString, default: .null),
            FieldSpec("title", .optionalString, default: .null),
            FieldSpec("url", .string, default: .string(""), required: true),
        ]
    }
    public var canInsertTextBefore: Bool { false }
    public var canInsertTextAfter: Bool { false }

    /// A link's `url` ("" when unreadable).
    public static func url(of link: Node) -> String { link.fields["url"]?.stringValue ?? "" }
}

/// The link plugin's markup mapping: destination ↔ `url`, title ↔ `title`.
public struct LinkMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { LinkNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .inline(.link(let destination, let title)) = intent else { return nil }
        return ["url": .string(destination), "title": title.map(JSONValue.string) ?? .null]
    }

    public func intent(of node: Node) -> MarkupIntent {
        .inline(.link(destination: node.fields["url"]?.stringValue ?? "", title: node.fields["title"]?.stringValue))
    }
}

extension PluginDescriptor {
    /// The link plugin, selected as `link`: the `link` node, its markdown mapping, the
    /// ``LinkCommandsExtension`` (toggle link) and the ``LinkTheme`` contribution.
    public static let link = PluginDescriptor(
        name: "link", summary: "Links (Lexical `link`)", options: NoOptions.self
    ) { _ in ([LinkNodePlugin()], [.markupMapping(LinkMarkupMapping()), .htmlConversion(LinkHTMLConversion()), .editor(LinkCommandsExtension()), .theme(LinkTheme.contribution)]) }
}
