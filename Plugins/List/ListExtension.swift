import QuireEditor
import QuireModel
import QuireStyle
import QuireTextStorage

/// The list commands (Lexical's `INSERT_*_LIST_COMMAND`, `REMOVE_LIST_COMMAND`,
/// `UPDATE_LIST_START_COMMAND`, indent and outdent, check boxes). `ListExtension` handles them at
/// `.low` priority, as Lexical registers its list commands.
public enum ListCommands {
    /// Turns the selected blocks into items of a list of the type (`EditorState.insertList`).
    public static let insertList = CommandType<ListType>.scriptable("list.insert", aliases: ["insertList"])
    /// Removes the lists when the selection is all in lists of the type, else inserts one
    /// (`EditorState.toggleList`).
    public static let toggleList = CommandType<ListType>.scriptable("list.toggle", aliases: ["toggleList"])
    /// Turns the lists holding the selection back into paragraphs (`EditorState.removeList`).
    public static let removeList = CommandType<Void>.scriptable("list.remove", aliases: ["removeList"])
    /// Indents the selected list items (`EditorState.indentListItems`); not handled (false) when
    /// the selection holds no list item.
    public static let indent = CommandType<Void>.scriptable("list.indent", aliases: ["indentListItem"])
    /// Outdents the selected list items (`EditorState.outdentListItems`); not handled (false)
    /// when the selection holds no list item.
    public static let outdent = CommandType<Void>.scriptable("list.outdent", aliases: ["outdentListItem"])
    /// Toggles the check box of the given item, or of the selected check-list items for nil
    /// (`EditorState.toggleListItemChecked`).
    public static let toggleChecked = CommandType<NodeKey?>("list.toggleChecked", aliases: ["toggleListItemChecked"]) { (json) throws(EditorError) in
        switch json {
        case .null: return nil
        case .number(let number) where number.isInteger: return json.intValue.map(NodeKey.init)
        default: throw .invalidPayload(command: "list.toggleChecked", reason: "expected a node key or null, not \(json.typeName)")
        }
    }
    /// Sets where the numbered list at the selection starts counting (`EditorState.setListStart`).
    public static let setStart = CommandType<Int>.scriptable("list.setStart", aliases: ["setListStart"])
}

/// What the list plugin adds to an editor: the `ListCommands` handlers, Tab and Shift-Tab in list
/// items (`Commands.keyTab` at `.normal`, below a table's cell navigation), and two node
/// transforms that keep lists in Lexical's shape after any edit, the list commands' own or not:
///
/// - each update's written list items, as one batch: `indent` is the item's depth, `checked` is
///   present exactly in check lists, an item outside a list gets a bullet list of its own, and
///   each list is renumbered once from its first written item
///   (`EditorState.normalizeListItems(afterWriting:)`: O(items from there to the first
///   consistent item after the last written one), never once per written item);
/// - each written list: removed when empty, merged with a list of the same type next to it
///   (Lexical's list transform, `mergeNextSiblingListIfSameType`).
public struct ListExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        // Indent and outdent are not handled without list items, so that Tab reaches the view.
        let inList = { (state: EditorState) throws(ModelError) -> Bool in
            guard state.selection != nil else { return false }
            return try !state.selectedListItems().isEmpty
        }
        return [
            try registrar.registerEdit(ListCommands.insertList, priority: .low) { state, type throws(ModelError) in try state.insertList(type) },
            try registrar.registerEdit(ListCommands.toggleList, priority: .low) { state, type throws(ModelError) in try state.toggleList(type) },
            try registrar.registerEdit(ListCommands.removeList, priority: .low) { state, _ throws(ModelError) in try state.removeList() },
            try registrar.registerEdit(ListCommands.indent, priority: .low, when: inList) { state, _ throws(ModelError) in try state.indentListItems() },
            try registrar.registerEdit(ListCommands.outdent, priority: .low, when: inList) { state, _ throws(ModelError) in try state.outdentListItems() },
            try registrar.registerEdit(ListCommands.toggleChecked, priority: .low) { state, item throws(ModelError) in try state.toggleListItemChecked(item) },
            try registrar.registerEdit(ListCommands.setStart, priority: .low) { state, start throws(ModelError) in try state.setListStart(start) },
            try registrar.registerEdit(Commands.keyTab, priority: .normal, when: inList) { state, shift throws(ModelError) in
                if shift { try state.outdentListItems() } else { try state.indentListItems() }
            },
            registrar.registerNodeTransform(ListItemNodePlugin.type, batch: { state, items throws(ModelError) in
                try state.normalizeListItems(afterWriting: items)
            }),
            registrar.registerNodeTransform(ListNodePlugin.type) { state, list throws(ModelError) in
                try state.normalizeList(list)
            },
        ]
    }
}

/// The attributes through which a view draws list markers. Markers are never part of the flat
/// string (it stays Lexical iOS's: an item is its content plus "\n"), so the caret cannot enter
/// a marker and offsets match Lexical's; instead every character of an item carries what its
/// marker needs:
///
/// - `quire.listType` ("bullet", "number", "check"), from the list the item is in (a nested
///   list's items carry their own list's type: the nearest list wins);
/// - `quire.listItemValue`: the item's number (its `value`), for "N." in numbered lists;
/// - `quire.listItemIndent`: its depth (0 at the top), for indentation and bullet shapes;
/// - `quire.listItemChecked`: its check box, on items of check lists (read it only when the
///   type is "check": a list nested in a check list item inherits it).
///
/// A view draws the marker at the first character of each line whose attributes name a list
/// item. When a number changes, the reconciler restyles just that item.
public enum ListAttributes {
    /// The list type of the item's list.
    public static let listType = AttributeKey("quire.listType")
    /// The item's number.
    public static let itemValue = AttributeKey("quire.listItemValue")
    /// The item's nesting depth.
    public static let itemIndent = AttributeKey("quire.listItemIndent")
    /// Whether the item's box is checked.
    public static let itemChecked = AttributeKey("quire.listItemChecked")

    /// The list plugin's theme entries; `Theme.including(_:)` adds them from a configuration's
    /// contributions.
    public static let themeContribution = ThemeContribution(nodeStyles: [
        ListNodePlugin.type: { node in [listType: .string(ListNodePlugin.listType(of: node).rawValue)] },
        ListItemNodePlugin.type: { node in
            var attributes: Attributes = [itemValue: .int(node.fields["value"]?.intValue ?? 1), itemIndent: .int(node.indent)]
            if let checked = ListItemNodePlugin.isChecked(node) { attributes[itemChecked] = .bool(checked) }
            return attributes
        },
    ])
}

extension EditorState {
    /// Keeps one written list in Lexical's shape: an empty list goes (with the wrappers it
    /// empties); a list next to a list of the same type merges with it (Lexical's list
    /// transform). This is the list's editor transform.
    ///
    /// - Complexity: O(depth + items moved by a merge).
    public mutating func normalizeList(_ list: NodeKey) throws(ModelError) {
        guard let node = self[list], node.type == ListNodePlugin.type, node.parent != nil else { return }
        if node.childCount == 0 {
            try removeWithEmptyListAncestors(list)
        } else if let previous = node.previousSibling, isList(previous), listType(of: previous) == listType(of: list) {
            try mergeLists(previous, list)
        } else if let next = node.nextSibling, isList(next), listType(of: next) == listType(of: list) {
            try mergeLists(list, next)
        }
    }

    /// Appends the items of `second` to `first` and removes `second` (Lexical's `mergeLists`):
    /// when `first` ends and `second` starts with a wrapper, their nested lists merge first.
    ///
    /// - Complexity: O(items moved · log n + items renumbered).
    public mutating func mergeLists(_ first: NodeKey, _ second: NodeKey) throws(ModelError) {
        if let last = self[first]?.lastChild, let head = self[second]?.firstChild,
           isNestedListWrapper(last), isNestedListWrapper(head),
           let lastInner = self[last]?.firstChild, let headInner = self[head]?.firstChild {
            try mergeLists(lastInner, headInner)
            try remove(head)
        }
        let firstMoved = self[second]?.firstChild
        try moveAllChildren(of: second, to: first)
        try remove(second)
        try renumberListItems(around: [firstMoved])
    }
}
