import QuireCRDT
import QuireModel

/// How a Lexical document lives in a CRDT document (the DocC article *Document schema* explains
/// the choices): a movable tree of blocks with one property map per block, and one document-wide
/// rich text in which every text block owns a marker character.
public enum DocumentSchema {
    /// The movable tree: one node per block (paragraph, heading, quote, code, list, list item,
    /// table, row, cell, horizontal rule, …), sibling order by fractional index. Each node's
    /// property map holds `type` and the block's Lexical fields.
    public static let blocks = ContainerID.root(name: "blocks", type: .tree)
    /// The rich text holding every text block's inline content, each block's run starting with
    /// its marker (``markerScalar`` marked ``blockKey`` = the block's tree ID).
    public static let text = ContainerID.root(name: "text", type: .text)
    /// The root node's Lexical fields.
    public static let root = ContainerID.root(name: "root", type: .map)

    /// The character that starts a text block's run: PARAGRAPH SEPARATOR, so a plain-text reader
    /// of the shared text sees paragraphs. It is a marker only when it carries ``blockKey``.
    public static let markerScalar: Unicode.Scalar = "\u{2029}"
    /// The mark naming the block a marker starts (value: the block's tree ID, `"counter@peer"`).
    public static let blockKey = "block"
    /// The mark on U+FFFC for an inline decorator or unknown inline leaf (value: `{type, fields}`).
    public static let embedKey = "embed"
    /// The mark for a link (value: the link's Lexical fields).
    public static let linkKey = "link"
    /// The prefix of the mark for any other inline element (`inline:TYPE`, value: its fields).
    public static let inlineElementPrefix = "inline:"
    /// Text-node fields other than the format bits, as marks.
    public static let styleKey = "style"
    public static let modeKey = "mode"
    public static let detailKey = "detail"
    /// A text-role node of another type than `text` (a tab, a code-highlight token).
    public static let textTypeKey = "textType"
    /// The remaining fields of such a node (or of an unknown text node).
    public static let textFieldsKey = "textFields"
    /// A block's type in its property map.
    public static let typeKey = "type"
    /// For a block of a type this build does not know: `"decorator"` when it is a leaf.
    public static let unknownRoleKey = "$role"

    /// The expand rule of every mark key the schema uses (Loro's `configTextStyle`): formats and
    /// style grow with text typed at their end, as typing after bold text stays bold; links,
    /// markers, embeds and node identities never grow. Every peer must configure the same rules.
    public static let expandRules: [String: ExpandType] = {
        var rules: [String: ExpandType] = [
            blockKey: .none, embedKey: .none, linkKey: .none, styleKey: .after,
            modeKey: .none, detailKey: .none, textTypeKey: .none, textFieldsKey: .none,
        ]
        for (name, _) in TextFormat.named { rules[name] = .after }
        return rules
    }()

    /// Applies ``expandRules`` to a document (its rules are per document value, not synced).
    public static func configure(_ document: inout CRDTDocument) {
        for (key, rule) in expandRules { document.setExpand(rule, forKey: key) }
    }

    /// A mark key the schema gives meaning to, whatever other keys a foreign peer adds.
    static func isInlineElementKey(_ key: String) -> Bool {
        key == linkKey || key.hasPrefix(inlineElementPrefix)
    }

    /// The tree ID written as a mark value or a property (`"counter@peer"`).
    static func string(_ id: TreeID) -> String { "\(id.counter)@\(id.peer)" }

    /// The tree ID a mark value names, or nil.
    static func treeID(_ value: CRDTValue?) -> TreeID? {
        guard case .string(let text)? = value else { return nil }
        let parts = text.split(separator: "@")
        guard parts.count == 2, let counter = OpCounter(parts[0]), let peer = PeerID(parts[1]) else { return nil }
        return OpID(peer: peer, counter: counter)
    }
}

/// Why the bridge could not do what was asked; the editor and the CRDT document are as they were.
public enum BridgeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The CRDT refused an operation or an import.
    case crdt(CRDTError)
    /// The undo manager refused a step.
    case undo(UndoError)
    /// The editor refused the transaction that carries a remote change.
    case editor(String)
    /// The CRDT document does not follow the schema: `reason` says where.
    case schema(String)

    public var description: String {
        switch self {
        case .crdt(let error): "CRDT: \(error)"
        case .undo(let error): "undo: \(error)"
        case .editor(let message): "editor: \(message)"
        case .schema(let reason): "the CRDT document does not follow the schema: \(reason)"
        }
    }
}
