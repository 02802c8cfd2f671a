import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle

/// A heading's tag, h1 (the largest) to h6.
public enum HeadingTag: String, Hashable, Sendable, CaseIterable {
    case h1, h2, h3, h4, h5, h6

    /// The level, 1 to 6.
    public var level: Int {
        switch self {
        case .h1: 1
        case .h2: 2
        case .h3: 3
        case .h4: 4
        case .h5: 5
        case .h6: 6
        }
    }

    /// The tag of a level, or nil outside 1…6.
    public init?(level: Int) {
        guard (1...6).contains(level) else { return nil }
        self = Self.allCases[level - 1]
    }
}

/// Headings h1–h6: Lexical's `heading` node, a block of inline content with a `tag`.
///
/// Editing: Enter at the end makes a paragraph, at the start an empty paragraph goes before the
/// heading, in the middle the heading splits in two (Lexical's `insertNewAfter`); Backspace at
/// the start of an empty heading turns it into a paragraph, while a non-empty heading merges
/// with the block before as any block does.
public struct HeadingNodePlugin: FixedTypeNodePlugin {
    /// The deepest heading level this editor allows; documents with deeper headings are rejected
    /// on import with the path of the offending node.
    public let maxLevel: Int

    public init(maxLevel: Int = 6) {
        self.maxLevel = min(6, max(1, maxLevel))
    }

    public static let type: NodeType = "heading"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .inlines }
    /// The tags this plugin accepts, "h1" through "h\(maxLevel)".
    public var allowedTags: [String] { (1...maxLevel).map { "h\($0)" } }
    public var fields: [FieldSpec] {
        ElementFields.common + [FieldSpec("tag", .oneOf((1...6).map { "h\($0)" }), default: .string("h1"), required: true)]
    }

    public func validate(_ node: Node) throws(NodeValidationError) {
        let tag = node.fields["tag"]?.stringValue ?? "h1"
        // `allowedTags` without building it: every imported heading is checked.
        let bytes = tag.utf8
        guard bytes.count == 2, bytes.first == UInt8(ascii: "h"), let digit = bytes.last, digit >= UInt8(ascii: "1"),
              Int(digit) - Int(UInt8(ascii: "0")) <= maxLevel else {
            throw NodeValidationError(field: "tag", message: "\"\(tag)\" is deeper than the configured maxLevel \(maxLevel)")
        }
    }

    /// An empty heading becomes a paragraph (Lexical's `collapseAtStart`); a non-empty one is
    /// left to the default merge.
    public func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool {
        guard node.childCount == 0 else { return false }
        try state.replaceBlock(node.key, with: .paragraph(continuing: node))
        return true
    }

    /// The heading level (1–6) of a heading node.
    public static func level(of node: Node) -> Int? {
        guard node.type == type, let tag = node.fields["tag"]?.stringValue, tag.count == 2,
              let level = Int(tag.dropFirst()) else { return nil }
        return level
    }
}

/// The heading plugin's options.
public struct HeadingOptions: PluginOptions, Hashable {
    /// The deepest level allowed, 1…6 (default 6).
    public var maxLevel: Int

    public init(maxLevel: Int = 6) { self.maxLevel = maxLevel }

    public init(from reader: inout OptionsReader) throws(OptionError) {
        maxLevel = try reader.int("maxLevel", default: 6, in: 1...6)
    }
}

extension PluginDescriptor {
    /// The heading plugin, selected as `heading` (options: `maxLevel`).
    public static let heading = PluginDescriptor(
        name: "heading", summary: "Headings h1–h6 (Lexical `heading`)", options: HeadingOptions.self
    ) { options in
        ([HeadingNodePlugin(maxLevel: options.maxLevel)],
         [.markupMapping(HeadingMarkupMapping(maxLevel: options.maxLevel)), .htmlConversion(HeadingHTMLConversion(maxLevel: options.maxLevel)), .editor(HeadingExtension()), .theme(HeadingAttributes.themeContribution)])
    }
}
