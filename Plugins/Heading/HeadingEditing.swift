import QuireEditor
import QuireModel
import QuireStyle
import QuireTextStorage

extension EditorState {
    /// Turns the selected text blocks into headings with `tag`, or into paragraphs for nil
    /// (Lexical's `$setBlocksType` with `$createHeadingNode`). Content, keys, alignment, direction
    /// and the selection are kept; blocks whose parent takes no heading (list items) are left
    /// alone. Returns the blocks now in place.
    ///
    /// - Throws: `ModelError.invalidNode` (field `tag`) when `tag` is deeper than the registered
    ///   heading plugin's `maxLevel`; `ModelError.unknownType` when no heading plugin is
    ///   registered. Nothing changes then.
    @discardableResult
    public mutating func setHeading(_ tag: HeadingTag?) throws(ModelError) -> [NodeKey] {
        guard let tag else { return try setBlocksType(BlockTemplate(type: .paragraph)) }
        return try setBlocksType(try headingTemplate(tag))
    }

    /// Turns the selected text blocks into headings with `tag`, or back into paragraphs when they
    /// all are headings with that tag already (a toolbar's heading button).
    ///
    /// - Throws: as `setHeading(_:)`.
    @discardableResult
    public mutating func toggleHeading(_ tag: HeadingTag) throws(ModelError) -> [NodeKey] {
        try toggleBlocksType(try headingTemplate(tag))
    }

    /// A heading with `tag`, checked against the registered plugin's `maxLevel`.
    private func headingTemplate(_ tag: HeadingTag) throws(ModelError) -> BlockTemplate {
        guard let plugin = registry.plugin(for: HeadingNodePlugin.type) else { throw .unknownType(HeadingNodePlugin.type) }
        let maxLevel = (plugin as? HeadingNodePlugin)?.maxLevel ?? 6
        guard tag.level <= maxLevel else {
            throw .invalidNode(type: HeadingNodePlugin.type, reason: NodeValidationError(
                field: "tag", message: "\"\(tag.rawValue)\" is deeper than the configured maxLevel \(maxLevel)"))
        }
        return BlockTemplate(type: HeadingNodePlugin.type, fields: ["tag": .string(tag.rawValue)])
    }
}

/// The heading commands; `HeadingExtension` handles them at `.low` priority.
public enum HeadingCommands {
    /// Makes the selected blocks headings with the tag, or paragraphs for nil
    /// (`EditorState.setHeading`).
    public static let setHeading = CommandType<HeadingTag?>.scriptable("heading.set", aliases: ["setHeading"])
    /// Makes the selected blocks headings with the tag, or paragraphs when they already are
    /// (`EditorState.toggleHeading`).
    public static let toggleHeading = CommandType<HeadingTag>.scriptable("heading.toggle", aliases: ["toggleHeading"])
}

/// What the heading plugin adds to an editor: the `HeadingCommands` handlers. A tag deeper than
/// the configured `maxLevel` makes the command throw `ModelError.invalidNode` and change nothing.
public struct HeadingExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [
            try registrar.registerEdit(HeadingCommands.setHeading, priority: .low) { state, tag throws(ModelError) in try state.setHeading(tag) },
            try registrar.registerEdit(HeadingCommands.toggleHeading, priority: .low) { state, tag throws(ModelError) in try state.toggleHeading(tag) },
        ]
    }
}

/// The attribute through which a view styles headings: `quire.headingLevel` (1–6) on every
/// character of a heading (and `quire.nodeType` "heading", which every theme sets).
public enum HeadingAttributes {
    /// The heading's level, 1 to 6.
    public static let level = AttributeKey("quire.headingLevel")

    /// The heading plugin's theme entries.
    public static let themeContribution = ThemeContribution(nodeStyles: [
        HeadingNodePlugin.type: { node in [level: .int(HeadingNodePlugin.level(of: node) ?? 1)] },
    ])
}
