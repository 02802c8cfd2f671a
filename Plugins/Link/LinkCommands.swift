import QuireEditor
import QuireModel
import QuireStyle
import QuireTextStorage

/// The link plugin's commands.
public enum LinkCommands {
    /// Lexical's `TOGGLE_LINK_COMMAND`: links the selection with the attributes, or unlinks it
    /// with nil (``EditorState/toggleLink(_:)``), in one `Editor.update`. Handled whenever there is
    /// a selection; a refused edit throws from `dispatch` and changes nothing.
    public static let toggleLink = CommandType<LinkAttributes?>("link.toggle") { (json) throws(EditorError) in
        switch json {
        case .null: return nil
        case .object(let object):
            guard let url = object["url"]?.stringValue else {
                throw .invalidPayload(command: "link.toggle", reason: "expected null or {\"url\": String, \"rel\", \"target\", \"title\"}")
            }
            return LinkAttributes(url: url, rel: object["rel"].map { $0.stringValue } ?? "noreferrer",
                                  target: object["target"]?.stringValue, title: object["title"]?.stringValue)
        default:
            throw .invalidPayload(command: "link.toggle", reason: "expected null or an object, not \(json.typeName)")
        }
    }
}

/// Registers `LinkCommands.toggleLink`.
public struct LinkCommandsExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [try registrar.registerEdit(LinkCommands.toggleLink, when: { $0.selection != nil }) { state, attributes throws(ModelError) in try state.toggleLink(attributes) }]
    }
}

/// The attributes the link plugin gives a link's text: `quire.link`, its `url`, so that a view can
/// draw and open it. An app's own theme entries win.
public enum LinkTheme {
    /// The attribute keys.
    public enum Keys {
        /// On every character of a link: its `url`.
        public static let link = AttributeKey("quire.link")
    }

    /// The contribution the link plugin's descriptor returns among its extensions.
    public static let contribution = ThemeContribution(
        nodeStyles: [LinkNodePlugin.type: { link in [Keys.link: .string(LinkNodePlugin.url(of: link))] }]
    )
}
