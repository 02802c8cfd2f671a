/// A position in the document: an offset into a text node (in UTF-16 units, as text views count)
/// or a child index in an element. ``text(_:_:)`` and ``element(_:_:)`` make one, each with the
/// kind its offset counts.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// What `offset` counts.
    public enum Kind: Hashable, Sendable {
        /// UTF-16 units into a text node's text.
        case text
        /// Children before the point, in an element.
        case element
    }

    public var key: NodeKey
    public var offset: Int
    public var kind: Kind

    /// A point `offset` UTF-16 units into text node `key`.
    public static func text(_ key: NodeKey, _ offset: Int) -> Point { Point(key: key, offset: offset, kind: .text) }

    /// A point before child `offset` of element `key`.
    public static func element(_ key: NodeKey, _ offset: Int) -> Point { Point(key: key, offset: offset, kind: .element) }

    public var description: String { "\(kind == .text ? "text" : "element")(\(key), \(offset))" }
}

/// A selection between two points, as Lexical's RangeSelection: the anchor stays where the
/// selection started, the focus moves; `format` and `style` are what typing at a collapsed
/// selection will use.
public struct RangeSelection: Hashable, Sendable {
    public var anchor: Point
    public var focus: Point
    public var format: TextFormat
    public var style: String

    public init(anchor: Point, focus: Point, format: TextFormat = [], style: String = "") {
        self.anchor = anchor
        self.focus = focus
        self.format = format
        self.style = style
    }

    /// A caret at `point`.
    public init(caret point: Point, format: TextFormat = [], style: String = "") {
        self.init(anchor: point, focus: point, format: format, style: style)
    }

    /// Whether anchor and focus are the same point.
    public var isCollapsed: Bool { anchor == focus }
}
