import QuireModel
import QuireTextStorage

/// Decides the attributes of every part of the flat string: a node's attributes are its
/// ancestors' type attributes, root first, then its own type's, then (for text) its formats'.
/// The leaf wins.
public struct Theme: Sendable {
    /// Attributes for every character.
    public var base: Attributes
    /// Attributes by node type.
    public var nodeTypes: [NodeType: Attributes]
    /// Attributes that depend on a node's fields (a heading's level), applied after `nodeTypes`.
    public var nodeStyles: [NodeType: @Sendable (Node) -> Attributes]
    /// Attributes for each text format bit.
    public var formats: [TextFormat: Attributes]

    public init(
        base: Attributes = .empty, nodeTypes: [NodeType: Attributes] = [:],
        nodeStyles: [NodeType: @Sendable (Node) -> Attributes] = [:], formats: [TextFormat: Attributes] = [:]
    ) {
        self.base = base
        self.nodeTypes = nodeTypes
        self.nodeStyles = nodeStyles
        self.formats = formats
    }

    /// The attribute keys the default theme uses.
    public enum Keys {
        public static let nodeType = AttributeKey("quire.nodeType")
        public static let bold = AttributeKey("quire.bold")
        public static let italic = AttributeKey("quire.italic")
        public static let strikethrough = AttributeKey("quire.strikethrough")
        public static let underline = AttributeKey("quire.underline")
        public static let code = AttributeKey("quire.code")
        public static let `subscript` = AttributeKey("quire.subscript")
        public static let superscript = AttributeKey("quire.superscript")
        public static let highlight = AttributeKey("quire.highlight")
        public static let textTransform = AttributeKey("quire.textTransform")
        public static let inlineStyle = AttributeKey("quire.style")
        /// On the U+FFFC of a decorator: the node's type, so the view knows what to draw.
        public static let attachment = AttributeKey("quire.attachment", scope: .attachment)
    }

    /// Every format as a boolean attribute, and each element tagged with its type.
    public static let standard = Theme(
        formats: [
            .bold: [Keys.bold: true], .italic: [Keys.italic: true], .strikethrough: [Keys.strikethrough: true],
            .underline: [Keys.underline: true], .code: [Keys.code: true], .subscript: [Keys.subscript: true],
            .superscript: [Keys.superscript: true], .highlight: [Keys.highlight: true],
            .lowercase: [Keys.textTransform: "lowercase"], .uppercase: [Keys.textTransform: "uppercase"],
            .capitalize: [Keys.textTransform: "capitalize"],
        ]
    )

    /// The attributes a node's type (and fields) contribute on their own.
    package func ownAttributes(of node: Node) -> Attributes {
        var result = Attributes.empty
        if node.role.isElement && node.role != .root { result = result.merging([Keys.nodeType: .string(node.type.rawValue)]) }
        if let typeAttributes = nodeTypes[node.type] { result = result.merging(typeAttributes) }
        if let style = nodeStyles[node.type] { result = result.merging(style(node)) }
        return result
    }

    /// The inherited attributes of an element: its ancestors' and its own.
    ///
    /// - Complexity: O(depth).
    public func elementAttributes(of key: NodeKey, in state: EditorState) -> Attributes {
        var chain: [Node] = []
        var current: NodeKey? = key
        while let node = current.flatMap({ state[$0] }) {
            chain.append(node)
            current = node.parent
        }
        var result = base
        for node in chain.reversed() { result = result.merging(ownAttributes(of: node)) }
        return result
    }

    /// The attributes of a node's content: a text node's formats and style, a decorator's
    /// attachment marker, over its parent's inherited attributes.
    public func contentAttributes(of node: Node, inherited: Attributes) -> Attributes {
        switch node.role {
        case .text:
            var result = inherited.merging(ownAttributes(of: node))
            let format = node.textFormat
            for (bit, attributes) in formats.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where format.contains(bit) {
                result = result.merging(attributes)
            }
            if !node.textStyle.isEmpty { result = result.merging([Keys.inlineStyle: .string(node.textStyle)]) }
            return result
        case .decorator:
            return inherited.merging(ownAttributes(of: node)).merging([Keys.attachment: .string(node.type.rawValue)])
        case .lineBreak:
            return inherited.merging(ownAttributes(of: node))
        case .root, .element:
            return inherited.merging(ownAttributes(of: node))
        }
    }
}


/// The attributes a node plugin gives its node types. A plugin descriptor contributes one
/// (`PluginContribution.theme(_:)`); `Theme.including(_:)` adds them to a theme, the theme's own
/// entries winning.
public struct ThemeContribution: Sendable {
    /// Attributes by node type.
    public var nodeTypes: [NodeType: Attributes]
    /// Attributes that depend on a node's fields, by node type.
    public var nodeStyles: [NodeType: @Sendable (Node) -> Attributes]

    public init(nodeTypes: [NodeType: Attributes] = [:], nodeStyles: [NodeType: @Sendable (Node) -> Attributes] = [:]) {
        self.nodeTypes = nodeTypes
        self.nodeStyles = nodeStyles
    }
}

extension ContributionKey where Value == ThemeContribution {
    /// Theme entries (`style.theme`), read by `Theme.including(_:)`.
    public static var theme: ContributionKey<ThemeContribution> { ContributionKey("style.theme") }
}

extension PluginContribution {
    /// Theme entries for the plugin's node types.
    public static func theme(_ contribution: ThemeContribution) -> PluginContribution {
        PluginContribution(.theme, contribution)
    }
}

extension Theme {
    /// This theme plus `contributions`. An entry the theme already has for a type is kept: the
    /// app's theme wins; among contributions, the first (the higher-priority plugin's) wins.
    public func including(_ contributions: [ThemeContribution]) -> Theme {
        var result = self
        for contribution in contributions {
            result.nodeTypes.merge(contribution.nodeTypes) { mine, _ in mine }
            result.nodeStyles.merge(contribution.nodeStyles) { mine, _ in mine }
        }
        return result
    }

    /// This theme plus the theme entries among a configuration's contributions
    /// (`configuration.plugins.contributions`).
    public func including(_ contributions: [PluginContribution]) -> Theme {
        including(contributions.values(for: .theme))
    }
}
