import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle
import QuireTextStorage

/// Block quotes: Lexical's `quote` node, a block of inline content.
///
/// Editing, as Lexical's `QuoteNode`: Enter makes a paragraph after the quote (at the end, or with
/// the content after the caret in the middle; at the start an empty paragraph goes before it and
/// the quote keeps its content); Backspace at the start of a quote turns it into a paragraph
/// (`collapseAtStart`), empty or not.
public struct QuoteNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "quote"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .inlines }
    public var fields: [FieldSpec] { ElementFields.common }

    /// Lexical's `insertNewAfter` always makes a paragraph, even in the middle of a quote.
    public func blockAfterSplit(of node: Node, at position: BlockSplitPosition) -> BlockTemplate {
        .paragraph(continuing: node)
    }

    /// Backspace at the quote's start turns it into a paragraph, empty or not (Lexical's
    /// `QuoteNode.collapseAtStart`).
    public func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool {
        try state.replaceBlock(node.key, with: .paragraph(continuing: node))
        return true
    }
}

extension EditorState {
    /// Turns the selected text blocks into quotes, or back into paragraphs when they all are
    /// quotes already (Lexical's `$setBlocksType` with `$createQuoteNode`); content, keys and the
    /// selection are kept, and blocks whose parent takes no quote (list items) are left alone.
    ///
    /// - Throws: `ModelError.unknownType` when no quote plugin is registered; nothing changes.
    @discardableResult
    public mutating func toggleQuote() throws(ModelError) -> [NodeKey] {
        try toggleBlocksType(BlockTemplate(type: QuoteNodePlugin.type))
    }
}

/// The quote commands; `QuoteExtension` handles them at `.low` priority.
public enum QuoteCommands {
    /// Makes the selected blocks quotes, or paragraphs when they already are
    /// (`EditorState.toggleQuote`).
    public static let toggleQuote = CommandType<Void>.scriptable("quote.toggle", aliases: ["toggleQuote"])
}

/// What the quote plugin adds to an editor: the `QuoteCommands` handler.
public struct QuoteExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [try registrar.registerEdit(QuoteCommands.toggleQuote, priority: .low) { state, _ throws(ModelError) in try state.toggleQuote() }]
    }
}

/// The attribute through which a view styles quotes: `quire.blockQuote` true on every character
/// of a quote.
public enum QuoteAttributes {
    /// Whether the text is in a block quote.
    public static let blockQuote = AttributeKey("quire.blockQuote")

    /// The quote plugin's theme entries.
    public static let themeContribution = ThemeContribution(nodeTypes: [QuoteNodePlugin.type: [blockQuote: true]])
}

extension PluginDescriptor {
    /// The quote plugin, selected as `quote`; it has no options.
    public static let quote = PluginDescriptor(
        name: "quote", summary: "Block quotes (Lexical `quote`)", options: NoOptions.self
    ) { _ in ([QuoteNodePlugin()], [.markupMapping(QuoteNodePlugin.markupMapping), .htmlConversion(QuoteHTMLConversion()), .editor(QuoteExtension()), .theme(QuoteAttributes.themeContribution)]) }
}
