import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle
import QuireTextStorage

/// Horizontal rules: Lexical's `horizontalrule`, a block decorator with no fields of its own. In
/// the flat string it is U+FFFC (followed by "\n" when a block follows), carrying the theme's
/// attachment attribute so that a view draws a rule there.
///
/// Editing around it (the model's rules for block decorators): Backspace right after it (at the
/// start of the next block) or Delete right before it (at the end of the previous block) removes
/// it, and so does a text view's deletion of the line break beside it; in an empty block the
/// empty block goes first and the caret lands beside the rule. Typing or Enter with the caret
/// beside it makes a new paragraph there.
public struct HorizontalRuleNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "horizontalrule"
    public var role: NodeRole { .decorator(inline: false) }
}

extension EditorState {
    /// Lexical's `INSERT_HORIZONTAL_RULE_COMMAND`, placed as Quire's editors expect: the rule goes
    /// right after the block holding the selection's focus (the block directly under the root or
    /// the table cell), or at the caret when it sits between blocks that may hold a rule; the
    /// caret moves to the start
    /// of the next block, and a new empty paragraph is made there when no block with text
    /// follows. Nothing is deleted. Returns the rule.
    ///
    /// - Throws: `ModelError` (no selection, or the container refuses a rule); nothing changes then.
    /// - Complexity: O(depth + siblings before the block) · log n.
    @discardableResult
    public mutating func insertHorizontalRule() throws(ModelError) -> NodeKey {
        guard let selection else { throw .noSelection }
        let focus = selection.focus
        var attempt = self
        let rule = try attempt.createNode(type: HorizontalRuleNodePlugin.type)
        if focus.kind == .element, let container = self[focus.key], isBlockContainer(container),
           plugin(of: container)?.childRule.accepts(type: HorizontalRuleNodePlugin.type, role: .decorator(inline: false)) == true {
            // Between blocks: the rule goes right there.
            if let next = child(at: focus.offset, of: focus.key) {
                try attempt.insert(rule, before: next)
            } else {
                try attempt.append(rule, to: focus.key)
            }
        } else {
            try attempt.insert(rule, after: topBlock(holding: focus.key))
        }
        let next = attempt[rule]?.nextSibling.flatMap { attempt.firstTextBlock(in: $0, crossingBoundaries: true) }
        let caret: Point
        if let next {
            caret = attempt.startPoint(of: next)
        } else {
            let paragraph = try attempt.createNode(type: .paragraph)
            try attempt.insert(paragraph, after: rule)
            caret = .element(paragraph, 0)
        }
        attempt.selection = RangeSelection(caret: caret, format: selection.format, style: selection.style)
        self = attempt
        return rule
    }

    /// The ancestor-or-self of `key` directly under the root or an editing boundary (a cell).
    func topBlock(holding key: NodeKey) -> NodeKey {
        var current = key
        while let parent = self[current]?.parent, parent != .root, !isolatesContent(parent) { current = parent }
        return current
    }
}

/// The horizontal rule's commands.
public enum HorizontalRuleCommands {
    /// Inserts a rule after the selection's block (``EditorState/insertHorizontalRule()``), in one
    /// `Editor.update`.
    public static let insertHorizontalRule = CommandType<Void>.scriptable("horizontalRule.insert")
}

/// Registers `HorizontalRuleCommands.insertHorizontalRule`.
public struct HorizontalRuleCommandsExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [try registrar.registerEdit(HorizontalRuleCommands.insertHorizontalRule, when: { $0.selection != nil }) { state, _ throws(ModelError) in
            try state.insertHorizontalRule()
        }]
    }
}

/// The attributes the horizontal rule plugin gives its U+FFFC besides the theme's
/// `quire.attachment` ("horizontalrule"): `quire.horizontalRule`, true, in attachment scope (so it
/// never spreads to the text around).
public enum HorizontalRuleTheme {
    /// The attribute keys.
    public enum Keys {
        /// On a rule's U+FFFC: true.
        public static let rule = AttributeKey("quire.horizontalRule", scope: .attachment)
    }

    /// The contribution the plugin's descriptor returns among its extensions.
    public static let contribution = ThemeContribution(nodeTypes: [HorizontalRuleNodePlugin.type: [Keys.rule: true]])
}

extension HorizontalRuleNodePlugin {
    /// The horizontal rule's markup mapping: a thematic break.
    public static let markupMapping = FixedIntentMapping(type, intent: .block(.thematicBreak))
}

extension PluginDescriptor {
    /// The horizontal rule plugin, selected as `horizontalrule`: the node, its markdown mapping,
    /// the ``HorizontalRuleCommandsExtension`` and the ``HorizontalRuleTheme`` contribution.
    public static let horizontalRule = PluginDescriptor(
        name: "horizontalrule", summary: "Horizontal rules (Lexical `horizontalrule`)", options: NoOptions.self
    ) { _ in
        ([HorizontalRuleNodePlugin()],
         [.markupMapping(HorizontalRuleNodePlugin.markupMapping), .htmlConversion(HorizontalRuleHTMLConversion()), .editor(HorizontalRuleCommandsExtension()), .theme(HorizontalRuleTheme.contribution)])
    }
}
