import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle
import QuireTextStorage

/// A callout: a block of inline content with an emoji in front, like Notion's.
///
/// The emoji is the node's preamble, so a text view shows it and the caret skips it (the
/// selection mapper never puts a point inside a preamble).
public struct CalloutNodePlugin: NodePlugin {
    public static let type: NodeType = "callout"
    public let defaultEmoji: String

    public init(defaultEmoji: String = "💡") { self.defaultEmoji = defaultEmoji }

    public var type: NodeType { Self.type }                   // wire format: never change it
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .inlines }
    public var fields: [FieldSpec] {
        ElementFields.common + [FieldSpec("emoji", .string, default: .string(defaultEmoji))]
    }

    public func preamble(of node: Node, in state: EditorState) -> String {
        (node.fields["emoji"]?.stringValue ?? defaultEmoji) + " "
    }

    public func validate(_ node: Node) throws(NodeValidationError) {
        if node.fields["emoji"]?.stringValue?.isEmpty == true {
            throw NodeValidationError(field: "emoji", message: "must not be empty")
        }
    }

    // Enter at the end leaves the callout (the default template is a paragraph there). An empty
    // callout turns back into a paragraph on Backspace, as Lexical's quote does.
    public func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool {
        guard node.childCount == 0 else { return false }
        try state.replaceBlock(node.key, with: .paragraph(continuing: node))
        return true
    }
}

/// The callout's commands, in the plugin's namespace.
public enum CalloutCommands {
    /// Turns the selected blocks into callouts with the given emoji (nil: the default), or back
    /// into paragraphs when they all are callouts already. By name (scripts), the payload is
    /// the emoji string or null; `toggleCallout`, its name in earlier releases, still works.
    public static let toggleCallout = CommandType<String?>("callout.toggle", aliases: ["toggleCallout"]) { (json) throws(EditorError) in
        switch json {
        case .null: return nil
        case .string(let emoji): return emoji
        default: throw .invalidPayload(command: "callout.toggle", reason: "expected an emoji string or null")
        }
    }
}

extension EditorState {
    /// Toggles the selected blocks between callouts and paragraphs.
    ///
    /// - Complexity: O(selected blocks · (children + depth) · log n).
    public mutating func toggleCallout(emoji: String?, defaultEmoji: String = "💡") throws(ModelError) {
        let blocks = try selectedTextBlocks()
        if blocks.allSatisfy({ self[$0]?.type == CalloutNodePlugin.type }) {
            try setBlocksType(BlockTemplate(type: .paragraph))
        } else {
            try setBlocksType(BlockTemplate(type: CalloutNodePlugin.type, fields: ["emoji": .string(emoji ?? defaultEmoji)]))
        }
    }
}

/// Registers the toggle command. A registrar offers commands, node transforms and listeners,
/// and a handler's context reads the state, runs updates and dispatches commands: nothing else
/// of the editor (its reconciler, storage or history) is a plugin's business.
public struct CalloutEditorExtension: EditorExtension {
    public let defaultEmoji: String

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        let defaultEmoji = defaultEmoji
        // One update per toggle (one undo step). The closure names its error type because Swift
        // infers `any Error` for a closure that does not.
        return [try registrar.registerEdit(CalloutCommands.toggleCallout) { state, emoji throws(ModelError) in
            try state.toggleCallout(emoji: emoji, defaultEmoji: defaultEmoji)
        }]
    }
}

/// The callout's options in `config.yaml`: `defaultEmoji`.
public struct CalloutOptions: PluginOptions {
    public var defaultEmoji: String

    public init(from reader: inout OptionsReader) throws(OptionError) {
        defaultEmoji = try reader.string("defaultEmoji", default: "💡")
    }
}

extension Theme.Keys {
    /// On a callout's content: its emoji, so a view can tint the block.
    public static let callout = AttributeKey("example.callout")
}

extension PluginDescriptor {
    /// The callout plugin, selected as `callout` (option: `defaultEmoji`).
    public static let callout = PluginDescriptor(
        name: "callout", summary: "Callout blocks with an emoji", options: CalloutOptions.self
    ) { options in
        let theme = ThemeContribution(nodeStyles: [
            CalloutNodePlugin.type: { node in [Theme.Keys.callout: .string(node.fields["emoji"]?.stringValue ?? "")] },
        ])
        return ([CalloutNodePlugin(defaultEmoji: options.defaultEmoji)],
                [.editor(CalloutEditorExtension(defaultEmoji: options.defaultEmoji)), .theme(theme),
                 .htmlConversion(CalloutHTMLConversion(defaultEmoji: options.defaultEmoji))])
    }
}
