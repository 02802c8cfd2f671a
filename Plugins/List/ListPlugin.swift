import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle

/// The kind of a Lexical list (`listType`).
public enum ListType: String, Hashable, Sendable, CaseIterable {
    case bullet, number, check

    /// The HTML tag Lexical stores with it (`tag`).
    public var tag: String { self == .number ? "ol" : "ul" }

    /// The fields of a new list of this type, as Lexical's `$createListNode(type)` writes them.
    public var listFields: JSONObject {
        ["listType": .string(rawValue), "start": .number(.integer(1)), "tag": .string(tag)]
    }
}

/// Lists: Lexical's `list` node, a block holding `listitem`s, with `listType` (bullet, number,
/// check), `start` and `tag` (ul/ol). A list adds nothing to the flat string: its markers (bullet,
/// number, check box) are attributes (`ListAttributes`), so the caret can never stand in one.
public struct ListNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "list"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { Self.childRule }
    /// Built once: a set literal in the getter was built again on every child check.
    private static let childRule: ChildRule = .only([ListItemNodePlugin.type])
    public var fields: [FieldSpec] {
        ElementFields.common + [
            FieldSpec("listType", .oneOf(ListType.allCases.map(\.rawValue)), default: .string("bullet")),
            FieldSpec("start", .integer, default: .number(.integer(1))),
            FieldSpec("tag", .oneOf(["ul", "ol"]), default: .string("ul")),
        ]
    }

    /// The numbers a list may start at and its items may carry: the integers a JavaScript number
    /// holds exactly (±(2⁵³ − 1)), all Lexical itself can write. Bounded so that a list's last
    /// number, and every renderer's arithmetic on it, stays far from overflow; a document outside
    /// it is refused at import with the field's JSON path.
    public static let startRange = -((1 << 53) - 1)...((1 << 53) - 1)

    public func validate(_ node: Node) throws(NodeValidationError) {
        try Self.validateNumber("start", of: node)
    }

    /// Refuses a list number outside `startRange`.
    static func validateNumber(_ field: String, of node: Node) throws(NodeValidationError) {
        if let number = node.fields[field]?.intValue, !startRange.contains(number) {
            throw NodeValidationError(field: field, message: "must be from \(startRange.lowerBound) to \(startRange.upperBound), not \(number)")
        }
    }

    /// The list type of a list node (bullet when unreadable).
    public static func listType(of node: Node) -> ListType {
        node.fields["listType"]?.stringValue.flatMap(ListType.init(rawValue:)) ?? .bullet
    }
}

/// List items: Lexical's `listitem`, holding inline content, or a single nested `list` (Lexical
/// nests a list in an item of its own, right after the item it belongs to). `value` is its
/// number; `checked` (present in check lists only) its checkbox; `indent` its nesting depth, as
/// Lexical's `getIndent()` exports it.
///
/// Editing hooks: Enter splits the item into two items (an empty item exits the list, or
/// outdents when nested); Backspace at its start outdents a nested item and turns a top-level one
/// into a paragraph, splitting the list. See `EditorState.insertListItemParagraph(in:at:)` and
/// `EditorState.collapseListItemAtStart(_:)`.
public struct ListItemNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "listitem"
    public var role: NodeRole { .element(inline: false) }
    /// Inline content or a nested list; `ChildRule` cannot say "inlines plus list", so the rule is
    /// `.any` and the list commands keep the shape (a wrapper item holds exactly one list).
    public var parentTypes: Set<NodeType>? { Self.parentTypes }
    /// Built once: a set literal in the getter was built again on every check.
    private static let parentTypes: Set<NodeType> = [ListNodePlugin.type]
    public var childRule: ChildRule { .any }
    public var fields: [FieldSpec] {
        ElementFields.common + [FieldSpec("value", .integer, default: .number(.integer(1)))]
    }

    public func validate(_ node: Node) throws(NodeValidationError) {
        if let checked = node.fields["checked"], checked != .null, !FieldType.boolean.accepts(checked) {
            throw NodeValidationError(field: "checked", message: "must be a boolean, not \(checked.typeName)")
        }
        try ListNodePlugin.validateNumber("value", of: node)
    }

    /// Whether a check-list item is checked (nil when the item has no `checked`).
    public static func isChecked(_ node: Node) -> Bool? {
        if case .bool(let value)? = node.fields["checked"] { return value }
        return nil
    }

    /// Enter always makes another item (Lexical's `insertNewAfter` copies the item): the copy
    /// keeps the item's fields, with an unchecked box.
    public func blockAfterSplit(of node: Node, at position: BlockSplitPosition) -> BlockTemplate {
        BlockTemplate(type: Self.type, fields: Self.fieldsForCopy(of: node))
    }

    /// Enter: see `EditorState.insertListItemParagraph(in:at:)`.
    public func insertParagraph(in node: Node, at position: BlockSplitPosition, state: inout EditorState) throws(ModelError) -> Bool {
        try state.insertListItemParagraph(in: node.key, at: position)
    }

    /// Backspace at the item's start: see `EditorState.collapseListItemAtStart(_:)`.
    public func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool {
        try state.collapseListItemAtStart(node.key)
    }

    /// The fields of a new item copied from `node` (Lexical's `$copyNode`): a checked box starts
    /// unchecked.
    static func fieldsForCopy(of node: Node) -> JSONObject {
        var fields = node.fields
        if fields["checked"] != nil && fields["checked"] != .null { fields["checked"] = .bool(false) }
        return fields
    }
}

/// The list plugin's markup mapping: bullet, ordered (with start) and task lists.
public struct ListMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { ListNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .block(.list(let style, _)) = intent else { return nil }
        switch style {
        case .bullet: return Self.fields(.bullet, start: 1)
        case .ordered(let start): return Self.fields(.number, start: start)
        case .task: return Self.fields(.check, start: 1)
        }
    }

    static func fields(_ type: ListType, start: Int) -> JSONObject {
        var fields = type.listFields
        fields["start"] = .number(.integer(start))
        return fields
    }

    public func intent(of node: Node) -> MarkupIntent {
        switch ListNodePlugin.listType(of: node) {
        case .bullet: .block(.list(.bullet, tight: true))
        case .number: .block(.list(.ordered(start: node.fields["start"]?.intValue ?? 1), tight: true))
        case .check: .block(.list(.task, tight: true))
        }
    }
}

/// The list item's markup mapping: `value` is the item's ordinal, `checked` its task state.
public struct ListItemMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { ListItemNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .block(.listItem(let checked)) = intent else { return nil }
        var fields: JSONObject = ["value": .number(.integer(context.ordinal))]
        if let checked { fields["checked"] = .bool(checked) }
        return fields
    }

    public func intent(of node: Node) -> MarkupIntent {
        .block(.listItem(checked: ListItemNodePlugin.isChecked(node)))
    }
}

extension PluginDescriptor {
    /// The list plugin, selected as `list`: `list` and `listitem`, their markup mappings, the
    /// list commands and numbering transforms (`ListExtension`) and the marker attributes
    /// (`ListAttributes.themeContribution`).
    public static let list = PluginDescriptor(
        name: "list", summary: "Bullet, numbered and check lists, nested (Lexical `list`, `listitem`)", options: NoOptions.self
    ) { _ in
        ([ListNodePlugin(), ListItemNodePlugin()],
         [.markupMapping(ListMarkupMapping()), .markupMapping(ListItemMarkupMapping()), .htmlConversion(ListHTMLConversion()), .htmlConversion(ListItemHTMLConversion()), .editor(ListExtension()),
          .theme(ListAttributes.themeContribution)])
    }
}
