import QuireMarkup
import QuireModel

/// Images: Lexical playground's `image`, an inline decorator (U+FFFC in the flat string, an
/// attachment in the rendering pipeline) with its JSON fields:
///
/// | field | type | default |
/// |---|---|---|
/// | `src` | string, required | — |
/// | `altText` | string | `""` |
/// | `width`, `height` | a number ≥ 0 or `"inherit"` (0 and `"inherit"`: the image's own) | `0` |
/// | `maxWidth` | number ≥ 0 | `500` |
/// | `showCaption` | boolean | `false` |
/// | `caption` | an object, the caption editor's `{"editorState": {"root": …}}` | an empty root |
/// | `title` | string or null: Quire's addition for markup titles; Lexical ignores it | `null` |
///
/// Documents written before a field existed still import (every field but `src` is optional),
/// and fields this plugin does not declare are kept through every round trip.
public struct ImageNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "image"
    public var role: NodeRole { .decorator(inline: true) }
    public var fields: [FieldSpec] {
        [
            FieldSpec("altText", .string, default: .string("")),
            FieldSpec("caption", .any, default: Self.emptyCaption),
            FieldSpec("height", .any, default: .number(.integer(0))),
            FieldSpec("maxWidth", .number, default: .number(.integer(500))),
            FieldSpec("showCaption", .boolean, default: .bool(false)),
            FieldSpec("src", .string, default: .string(""), required: true),
            FieldSpec("width", .any, default: .number(.integer(0))),
            FieldSpec("title", .optionalString, default: .null),
        ]
    }

    /// What Lexical's playground writes for a caption nobody typed: the nested caption editor's
    /// state with an empty root.
    public static let emptyCaption: JSONValue = .object([
        "editorState": .object([
            "root": .object([
                "children": .array([]), "direction": .null, "format": .string(""), "indent": .number(.integer(0)),
                "type": .string("root"), "version": .number(.integer(1)),
            ]),
        ]),
    ])

    /// `width` and `height` are a number ≥ 0 or `"inherit"`, `maxWidth` is ≥ 0, and `caption`
    /// is an object whose `editorState`, when present, is an object.
    public func validate(_ node: Node) throws(NodeValidationError) {
        for name in ["width", "height"] {
            guard let value = node.fields[name] else { continue }
            if case .string("inherit") = value { continue }
            guard let number = value.doubleValue, number >= 0, number.isFinite else {
                throw NodeValidationError(field: name, message: "expected a number ≥ 0 or \"inherit\", not \(value)")
            }
        }
        if let maxWidth = node.fields["maxWidth"]?.doubleValue, !(maxWidth >= 0) || !maxWidth.isFinite {
            throw NodeValidationError(field: "maxWidth", message: "expected a number ≥ 0, not \(maxWidth)")
        }
        if let caption = node.fields["caption"] {
            guard case .object(let object) = caption else {
                throw NodeValidationError(field: "caption", message: "expected an object ({\"editorState\": …}), not \(caption.typeName)")
            }
            if let editorState = object["editorState"] {
                guard case .object = editorState else {
                    throw NodeValidationError(field: "caption", message: "\"editorState\" must be an object, not \(editorState.typeName)")
                }
            }
        }
    }

    /// A size as JSON: an integer when it is one (what Lexical writes for whole pixels).
    static func json(_ value: Double) -> JSONValue {
        if let integer = Int(exactly: value) { return .number(.integer(integer)) }
        return .number(.double(value))
    }

    /// The image's `src`.
    public static func source(of node: Node) -> String { node.fields["src"]?.stringValue ?? "" }

    /// The image's `altText`.
    public static func altText(of node: Node) -> String { node.fields["altText"]?.stringValue ?? "" }

    /// A `width` or `height` the document sets: nil for 0, `"inherit"` or a missing field (the
    /// image's own size then).
    public static func dimension(_ name: String, of node: Node) -> Double? {
        guard let value = node.fields[name]?.doubleValue, value > 0 else { return nil }
        return value
    }
}

/// The image's markup mapping: source ↔ `src`, description ↔ `altText`, title ↔ `title`, so
/// markdown's `![alt](src "title")` round trips.
public struct ImageMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { ImageNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .inline(.image(let source, let title)) = intent else { return nil }
        return ["src": .string(source), "altText": .string(context.plainText), "title": title.map(JSONValue.string) ?? .null]
    }

    public func intent(of node: Node) -> MarkupIntent {
        .inline(.image(source: ImageNodePlugin.source(of: node), title: node.fields["title"]?.stringValue))
    }
}

extension PluginDescriptor {
    /// The image plugin, selected as `image`: the node, its markdown mapping, the
    /// ``ImageCommandsExtension`` and the ``ImageTheme`` contribution.
    public static let image = PluginDescriptor(
        name: "image", summary: "Images as inline attachments (Lexical `image`)", options: NoOptions.self
    ) { _ in
        ([ImageNodePlugin()], [.markupMapping(ImageMarkupMapping()), .editor(ImageCommandsExtension()), .theme(ImageTheme.contribution)])
    }
}
