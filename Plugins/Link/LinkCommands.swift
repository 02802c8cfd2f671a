import QuireEditor
import QuireModel
import QuireReconciler
import QuireTextStorage

/// The link plugin's commands.
public enum LinkCommands {
    /// Lexical's `TOGGLE_LINK_COMMAND`: links the selection with the attributes, or unlinks it
    /// with nil (``EditorState/toggleLink(_:)``), in one `Editor.update`. Handled whenever there is
    /// a selection; a refused edit throws from `dispatch` and changes nothing.
    public static let toggleLink = CommandType<LinkAttributes?>("link.toggle") { json in
        switch json {
        case .null: return nil
        case .object(let object):
            guard let url = object["url"]?.stringValue else {
                throw EditorError.invalidPayload(command: "link.toggle", reason: "expected null or {\"url\": String, \"rel\", \"target\", \"title\"}")
            }
            return LinkAttributes(url: url, rel: object["rel"].map { $0.stringValue } ?? "noreferrer",
                                  target: object["target"]?.stringValue, title: object["title"]?.stringValue)
        default:
            throw EditorError.invalidPayload(command: "link.toggle", reason: "expected null or an object, not \(json.typeName)")
        }
    }
}

/// Registers `LinkCommands.toggleLink`.
public struct LinkCommandsExtension: EditorExtension {
    public init() {}

    public func register(on editor: Editor) -> [ListenerToken] {
        [editor.registerCommand(LinkCommands.toggleLink) { attributes, editor in
            guard editor.read({ $0.selection != nil }) else { return false }
            try editor.update { try $0.toggleLink(attributes) }
            return true
        }]
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
