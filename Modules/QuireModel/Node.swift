/// Identifies a node within an `EditorState` and every state derived from it.
///
/// Keys are never reused inside one editor, so a key held across updates either finds the same
/// node or finds nothing.
public struct NodeKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// The key of every state's root node.
    public static let root = NodeKey(0)

    public static func < (lhs: NodeKey, rhs: NodeKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { self == .root ? "root" : String(rawValue) }

    /// The raw value a node stores for a missing link (no parent, sibling or child).
    static let noLink = Int.min

    /// The key a node's stored link holds, or nil for ``noLink``.
    @inline(__always)
    init?(link: Int) {
        guard link != Self.noLink else { return nil }
        self.init(link)
    }
}

extension Optional<NodeKey> {
    /// The raw value a node stores for this link.
    @inline(__always)
    var link: Int { self?.rawValue ?? NodeKey.noLink }
}

/// A node type's wire-stable name, the `type` field of Lexical JSON ("paragraph", "text", …).
public struct NodeType: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// The first of `count` types, read by `type(at:)`, that is this one; the bulk builders keep
    /// per-type entries for the handful of types a document has, where this scan costs less than
    /// hashing the name for every node. Type names are short (stored in the string itself) or
    /// shared by a plugin's constant, so an entry met before almost always holds the very same
    /// bits: those are compared first, without a call; then byte counts, then the names.
    ///
    /// - Complexity: O(count).
    @inline(__always)
    func index(among count: Int, _ type: (Int) -> NodeType) -> Int? {
        let bits = unsafeBitCast(rawValue, to: (UInt64, UInt64).self)
        for index in 0..<count where unsafeBitCast(type(index).rawValue, to: (UInt64, UInt64).self) == bits { return index }
        let length = rawValue.utf8.count
        for index in 0..<count where type(index).rawValue.utf8.count == length && type(index) == self { return index }
        return nil
    }

    public static let root: NodeType = "root"
    public static let paragraph: NodeType = "paragraph"
    public static let text: NodeType = "text"
    public static let lineBreak: NodeType = "linebreak"
    public static let tab: NodeType = "tab"
}

/// How a node takes part in the tree and in the flat string.
public enum NodeRole: Hashable, Sendable {
    /// The one root of a state; holds blocks.
    case root
    /// An element with children: a block (paragraph, heading, list item) or an inline element (link).
    case element(inline: Bool)
    /// A leaf whose `text` is its content in the flat string (text, tab).
    case text
    /// A line break inside a block: "\n" in the flat string.
    case lineBreak
    /// A leaf the host renders itself (image, embed, horizontal rule): U+FFFC in the flat string.
    case decorator(inline: Bool)

    /// Whether the node sits inside a block's inline content rather than being a block itself.
    public var isInline: Bool {
        switch self {
        case .root: false
        case .element(let inline), .decorator(let inline): inline
        case .text, .lineBreak: true
        }
    }

    /// Whether the node can have children.
    public var isElement: Bool {
        switch self {
        case .root, .element: true
        case .text, .lineBreak, .decorator: false
        }
    }
}

/// Text formats as Lexical's bitmask: bold 1, italic 2, strikethrough 4, underline 8, code 16,
/// subscript 32, superscript 64, highlight 128, lowercase 256, uppercase 512, capitalize 1024.
public struct TextFormat: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let bold = TextFormat(rawValue: 1)
    public static let italic = TextFormat(rawValue: 1 << 1)
    public static let strikethrough = TextFormat(rawValue: 1 << 2)
    public static let underline = TextFormat(rawValue: 1 << 3)
    public static let code = TextFormat(rawValue: 1 << 4)
    public static let `subscript` = TextFormat(rawValue: 1 << 5)
    public static let superscript = TextFormat(rawValue: 1 << 6)
    public static let highlight = TextFormat(rawValue: 1 << 7)
    public static let lowercase = TextFormat(rawValue: 1 << 8)
    public static let uppercase = TextFormat(rawValue: 1 << 9)
    public static let capitalize = TextFormat(rawValue: 1 << 10)

    /// Every format with the name Lexical's `FORMAT_TEXT_COMMAND` uses for it.
    public static let named: [(name: String, format: TextFormat)] = [
        ("bold", .bold), ("italic", .italic), ("strikethrough", .strikethrough),
        ("underline", .underline), ("code", .code), ("subscript", .subscript),
        ("superscript", .superscript), ("highlight", .highlight), ("lowercase", .lowercase),
        ("uppercase", .uppercase), ("capitalize", .capitalize),
    ]

    /// Every format bit that has a name.
    public static let known = TextFormat(named.map(\.format))

    /// The format called `name` ("bold", "italic", …), or nil.
    public init?(named name: String) {
        guard let entry = Self.named.first(where: { $0.name == name }) else { return nil }
        self = entry.format
    }
}

/// How a text node behaves under editing, as Lexical's `mode`.
public enum TextMode: String, Hashable, Sendable, CaseIterable {
    /// Ordinary text.
    case normal
    /// An atomic unit: deleting any part deletes all of it (a mention).
    case token
    /// Deleted a space-separated segment at a time.
    case segmented
}

/// A block's writing direction, Lexical's `direction` (null when not set).
public enum TextDirection: String, Hashable, Sendable, CaseIterable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"
}

/// A block's alignment, Lexical's element `format` ("" when not set).
public enum ElementAlignment: String, Hashable, Sendable, CaseIterable {
    case none = ""
    case left, start, center, right, end, justify
}

/// One node of an `EditorState`: its place in the tree and its data.
///
/// Siblings are linked (previous / next) and an element knows its first and last child and its
/// child count, as in Lexical, so inserting or removing a node rewrites a constant number of
/// nodes. Everything a node serializes besides `type`, `children` and `text` lives in `fields`,
/// exactly as it appears in Lexical JSON, so unknown and future fields survive a round trip.
public struct Node: Hashable, Sendable {
    public internal(set) var key: NodeKey
    public let type: NodeType
    /// How the node takes part in the tree; fixed by its plugin, or inferred for an unknown type.
    public let role: NodeRole
    /// Whether no registered plugin knows `type`: the node keeps its JSON so it can be written back.
    public let isUnknown: Bool
    public internal(set) var parent: NodeKey? {
        get { NodeKey(link: parentLink) }
        set { parentLink = newValue.link }
    }
    public internal(set) var previousSibling: NodeKey? {
        get { NodeKey(link: previousSiblingLink) }
        set { previousSiblingLink = newValue.link }
    }
    public internal(set) var nextSibling: NodeKey? {
        get { NodeKey(link: nextSiblingLink) }
        set { nextSiblingLink = newValue.link }
    }
    public internal(set) var firstChild: NodeKey? {
        get { NodeKey(link: firstChildLink) }
        set { firstChildLink = newValue.link }
    }
    public internal(set) var lastChild: NodeKey? {
        get { NodeKey(link: lastChildLink) }
        set { lastChildLink = newValue.link }
    }
    // The links as raw keys, `NodeKey.noLink` for none: an optional key takes 16 bytes in a
    // struct (9, padded) and a raw one 8, which made nodes 144 bytes instead of 104, and a large
    // document has millions of them.
    private var parentLink = NodeKey.noLink
    private var previousSiblingLink = NodeKey.noLink
    private var nextSiblingLink = NodeKey.noLink
    private var firstChildLink = NodeKey.noLink
    private var lastChildLink = NodeKey.noLink
    public internal(set) var childCount: Int
    /// The node's text content: the text of a text node, empty for every other role.
    public internal(set) var text: String
    /// The node's JSON fields other than `type`, `children` and `text` (`format`, `version`, …).
    public internal(set) var fields: JSONObject

    init(key: NodeKey, type: NodeType, role: NodeRole, isUnknown: Bool, text: String, fields: JSONObject) {
        self.key = key
        self.type = type
        self.role = role
        self.isUnknown = isUnknown
        self.text = text
        self.fields = fields
        self.childCount = 0
    }

    /// Whether the node is attached under a parent (the root is never attached).
    public var isAttached: Bool { parent != nil }

    // MARK: Typed views of Lexical's common fields

    /// The text format bitmask of a text node (`format`).
    public var textFormat: TextFormat { TextFormat(rawValue: fields["format"]?.intValue ?? 0) }

    /// The editing mode of a text node (`mode`).
    public var textMode: TextMode { fields["mode"]?.stringValue.flatMap(TextMode.init(rawValue:)) ?? .normal }

    /// The `detail` bitmask of a text node (directionless 1, unmergeable 2).
    public var textDetail: Int { fields["detail"]?.intValue ?? 0 }

    /// The inline CSS `style` of a text node.
    public var textStyle: String { fields["style"]?.stringValue ?? "" }

    /// An element's writing direction; nil when unset.
    public var direction: TextDirection? { fields["direction"]?.stringValue.flatMap(TextDirection.init(rawValue:)) }

    /// An element's alignment (`format` on elements).
    public var alignment: ElementAlignment {
        fields["format"]?.stringValue.flatMap(ElementAlignment.init(rawValue:)) ?? .none
    }

    /// An element's indent level.
    public var indent: Int { fields["indent"]?.intValue ?? 0 }

    /// Whether a text node is "simple": normal mode, so it merges with equal neighbours.
    public var isSimpleText: Bool { role == .text && type == .text && textMode == .normal }
}
