import QuireMarkup
import QuireModel

/// Images: Lexical's `image`, an inline decorator (U+FFFC in the flat string, an attachment in
/// the rendering pipeline) with `src`, `altText`, `width`, `height` and `maxWidth` (0 width or
/// height means "the image's own"). `title` is Quire's addition for markup titles; Lexical ignores it.
public struct ImageNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "image"
    public var role: NodeRole { .decorator(inline: true) }
    public var fields: [FieldSpec] {
        [
            FieldSpec("altText", .string, default: .string("")),
            FieldSpec("height", .number, default: .number(.integer(0))),
            FieldSpec("maxWidth", .number, default: .number(.integer(500))),
            FieldSpec("src", .string, default: .string(""), required: true),
            FieldSpec("width", .number, default: .number(.integer(0))),
            FieldSpec("title", .optionalString, default: .null),
        ]
    }
}

/// The image's markup mapping: source ↔ `src`, description ↔ `altText`, title ↔ `title`.
public struct ImageMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { ImageNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .inline(.image(let source, let title)) = intent else { return nil }
        return ["src": .string(source), "altText": .string(context.plainText), "title": title.map(JSONValue.string) ?? .null]
    }

    public func intent(of node: Node) -> MarkupIntent {
        .inline(.image(source: node.fields["src"]?.stringValue ?? "", title: node.fields["title"]?.stringValue))
    }
}

extension PluginDescriptor {
    /// The image plugin, selected as `image`.
    public static let image = PluginDescriptor(
        name: "image", summary: "Images as inline attachments (Lexical `image`)", options: NoOptions.self
    ) { _ in ([ImageNodePlugin()], [.markupMapping(ImageMarkupMapping())]) }
}
