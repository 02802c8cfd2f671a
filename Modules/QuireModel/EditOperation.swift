/// One primitive write to an `EditorState`: what every editing operation, node transform and
/// plugin command is made of.
///
/// `EditorState` records these where every write already passes (node creation, linking,
/// unlinking, removal, text and field writes), so a plugin's edits are recorded without any code
/// of its own. Each operation carries what its inverse needs (the text a splice deleted, a field's
/// previous value, a removed node as it was), so a recorded sequence can be replayed on the
/// previous state (`EditorState.apply(_:)`) or undone (`inverted`).
public enum EditOperation: Hashable, Sendable {
    /// A node enters the state, detached (a new node) or exactly as it was before it was destroyed
    /// (the inverse of `destroyNode`, links included).
    case createNode(Node)
    /// A node leaves the state. Its parent has already unlinked it, or is itself being destroyed
    /// in the same transaction; the value is the node as it was, for the inverse.
    case destroyNode(Node)
    /// A detached node is linked under `parent`, right after `after` (nil: as the first child).
    /// A move is a `detachNode` followed by an `insertNode` of the same key.
    case insertNode(NodeKey, parent: NodeKey, after: NodeKey?)
    /// A node is unlinked from `parent`, where it followed `after` (nil: it was the first child);
    /// its subtree stays in the state.
    case detachNode(NodeKey, parent: NodeKey, after: NodeKey?)
    /// A text node's text: `deleted` (UTF-16 units from `offset`) becomes `inserted`.
    case spliceText(NodeKey, offset: Int, deleted: String, inserted: String)
    /// A JSON field changes from `old` to `new` (nil: absent). A text node's `format`, `style` and
    /// `mode` are fields too.
    case setField(NodeKey, name: String, old: JSONValue?, new: JSONValue?)
    /// The selection changes.
    case setSelection(old: RangeSelection?, new: RangeSelection?)

    /// The operation that undoes this one.
    ///
    /// - Complexity: O(1) (the payloads are shared, not copied).
    public var inverted: EditOperation {
        switch self {
        case .createNode(let node): .destroyNode(node)
        case .destroyNode(let node): .createNode(node)
        case .insertNode(let key, let parent, let after): .detachNode(key, parent: parent, after: after)
        case .detachNode(let key, let parent, let after): .insertNode(key, parent: parent, after: after)
        case .spliceText(let key, let offset, let deleted, let inserted):
            .spliceText(key, offset: offset, deleted: inserted, inserted: deleted)
        case .setField(let key, let name, let old, let new): .setField(key, name: name, old: new, new: old)
        case .setSelection(let old, let new): .setSelection(old: new, new: old)
        }
    }

    /// The node the operation writes; nil for a selection change.
    public var key: NodeKey? {
        switch self {
        case .createNode(let node), .destroyNode(let node): node.key
        case .insertNode(let key, _, _), .detachNode(let key, _, _), .spliceText(let key, _, _, _), .setField(let key, _, _, _): key
        case .setSelection: nil
        }
    }

    /// The name a transaction listing gives the operation (`quire edit-script --transactions`).
    public var kindName: String {
        switch self {
        case .createNode: "createNode"
        case .destroyNode: "removeNode"
        case .insertNode: "insertNode"
        case .detachNode: "detachNode"
        case .spliceText(_, _, let deleted, let inserted):
            deleted.isEmpty ? "insertText" : inserted.isEmpty ? "deleteText" : "replaceText"
        case .setField(_, let name, _, _):
            switch name {
            case "format": "setFormat"
            case "style": "setStyle"
            case "mode": "setMode"
            default: "setField"
            }
        case .setSelection: "select"
        }
    }
}

extension Array where Element == EditOperation {
    /// The operations that undo these, last first.
    ///
    /// - Complexity: O(count).
    public var inverted: [EditOperation] { reversed().map(\.inverted) }
}

/// Where a transaction came from. Stages of the commit and listeners decide by it: only local
/// commits enter the history, remote ones never scroll the caret into view, and so on.
public enum TransactionOrigin: Hashable, Sendable, CustomStringConvertible {
    /// The user, through the editor (typing, commands, selection changes).
    case local
    /// A collaborator's change arriving through a CRDT binding.
    case remote
    /// An undo step.
    case undo
    /// A redo step.
    case redo
    /// A whole document loaded into the editor.
    case load
    /// A new version of the text from a plain-string source (live reload).
    case reload
    /// An app-defined origin.
    case custom(String)

    /// The origin's name: `local`, `remote`, …, or the custom name.
    public var description: String {
        switch self {
        case .local: "local"
        case .remote: "remote"
        case .undo: "undo"
        case .redo: "redo"
        case .load: "load"
        case .reload: "reload"
        case .custom(let name): name
        }
    }
}

/// What one commit did: its operations in the order they were performed, where it came from, and
/// the selection around it.
///
/// Applying `operations` to the state before the commit yields the state after it; applying
/// `operations.inverted` to the state after yields the one before.
public struct Transaction: Sendable {
    /// Every write of the commit in order: the update body's, then the node transforms' and text
    /// normalization's, then the selection change (if any).
    public var operations: [EditOperation]
    /// Where the commit came from.
    public var origin: TransactionOrigin
    /// The update's tag ("typing", "delete", "paste", …), which history uses to merge steps.
    public var tag: String?
    /// The selection before the commit.
    public var selectionBefore: RangeSelection?
    /// The selection after the commit.
    public var selectionAfter: RangeSelection?
    /// Every node the commit wrote (created, linked, unlinked, removed, text or fields), and the
    /// siblings and parents whose links changed: what the change set is computed from.
    public var writtenNodes: Set<NodeKey>

    public init(
        operations: [EditOperation], origin: TransactionOrigin, tag: String? = nil,
        selectionBefore: RangeSelection? = nil, selectionAfter: RangeSelection? = nil, writtenNodes: Set<NodeKey> = []
    ) {
        self.operations = operations
        self.origin = origin
        self.tag = tag
        self.selectionBefore = selectionBefore
        self.selectionAfter = selectionAfter
        self.writtenNodes = writtenNodes
    }

    /// Whether the commit changed nothing but (possibly) the selection.
    public var isSelectionOnly: Bool {
        operations.allSatisfy { if case .setSelection = $0 { true } else { false } }
    }

    /// The text splices per text node, in order, as the reconciler applies them.
    ///
    /// - Complexity: O(operations).
    public var textSplices: [NodeKey: [TextSplice]] {
        var result: [NodeKey: [TextSplice]] = [:]
        for operation in operations {
            if case .spliceText(let key, let offset, let deleted, let inserted) = operation {
                result[key, default: []].append(TextSplice(offset: offset, deletedLength: deleted.utf16.count, inserted: inserted))
            }
        }
        return result
    }
}

/// A replacement inside one text node's text, in UTF-16 units, relative to the text as the
/// previous splices of the same transaction left it.
public struct TextSplice: Hashable, Sendable {
    public var offset: Int
    public var deletedLength: Int
    public var inserted: String
}

extension TextSplice {
    /// The one splice that turns `old` into `new`: everything between their longest common
    /// UTF-16 prefix and suffix, widened so that it never cuts a surrogate pair.
    ///
    /// - Complexity: O(t) for the lengths of the texts.
    public static func between(_ old: String, _ new: String) -> (offset: Int, deleted: String, inserted: String) {
        let oldUnits = Array(old.utf16)
        let newUnits = Array(new.utf16)
        let (prefix, suffix) = commonAffixes(oldUnits, newUnits)
        let deleted = String(decoding: oldUnits[prefix..<(oldUnits.count - suffix)], as: UTF16.self)
        let inserted = String(decoding: newUnits[prefix..<(newUnits.count - suffix)], as: UTF16.self)
        return (prefix, deleted, inserted)
    }

    /// The lengths of the longest common prefix and suffix of two UTF-16 texts, which do not
    /// overlap and never end inside a surrogate pair: what stays when `old` becomes `new`.
    ///
    /// - Complexity: O(t) for the lengths of the texts.
    public static func commonAffixes(_ old: [UInt16], _ new: [UInt16]) -> (prefix: Int, suffix: Int) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        func isTrail(_ units: [UInt16], _ index: Int) -> Bool { index >= 0 && index < units.count && UTF16.isTrailSurrogate(units[index]) }
        func isLead(_ units: [UInt16], _ index: Int) -> Bool { index >= 0 && index < units.count && UTF16.isLeadSurrogate(units[index]) }
        while prefix > 0, isTrail(old, prefix) || isTrail(new, prefix) { prefix -= 1 }
        while suffix > 0, isLead(old, old.count - suffix - 1) || isLead(new, new.count - suffix - 1) { suffix -= 1 }
        return (prefix, suffix)
    }
}
