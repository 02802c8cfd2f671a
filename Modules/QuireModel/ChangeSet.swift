/// What an update changed, node by node: the currency the reconciler, the position index and the
/// selection mapper consume. Computed from the nodes the update wrote, never from the whole tree.
public struct ChangeSet: Hashable, Sendable {
    /// Nodes in the document after the update that were not in it before.
    public var created: Set<NodeKey> = []
    /// Nodes in the document before the update that are not in it after.
    public var removed: Set<NodeKey> = []
    /// Nodes in the document before and after whose parent changed, or that the commit inserted
    /// again (when its operations are known; otherwise: whose order among the siblings that
    /// stayed changed).
    public var moved: Set<NodeKey> = []
    /// Nodes in the document before and after, in the same place, that were written (text,
    /// fields or sibling links changed).
    public var updated: Set<NodeKey> = []
    /// For updated text nodes, the splices that changed their text, in order: the reconciler
    /// writes them as they are instead of diffing the old and new text.
    public var textSplices: [NodeKey: [TextSplice]] = [:]

    public init() {}

    /// The change set of a committed transaction: the nodes it wrote, classified against the
    /// states before and after, with its text splices.
    ///
    /// - Complexity: O(d · (depth + s)) as `init(from:to:dirty:)`, plus O(operations).
    public init(_ transaction: Transaction, from previous: EditorState, to next: EditorState) {
        self.init(from: previous, to: next, dirty: transaction.writtenNodes, reattached: Self.reattached(by: transaction.operations))
        for (key, splices) in transaction.textSplices where updated.contains(key) { textSplices[key] = splices }
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { created.isEmpty && removed.isEmpty && moved.isEmpty && updated.isEmpty }

    /// Every key the change set names.
    public var allKeys: Set<NodeKey> { created.union(removed).union(moved).union(updated) }

    /// The change set between two states, from the nodes `next` wrote since its dirty set was
    /// cleared (which an update does on the pending state before it runs).
    ///
    /// - Complexity: O(d · (depth + s)) for d dirty nodes, s the created or removed siblings next
    ///   to each; independent of the document size.
    public init(from previous: EditorState, to next: EditorState) {
        let operations = next.recordedOperations
        self.init(from: previous, to: next, dirty: next.dirtyNodes, reattached: operations.isEmpty ? nil : Self.reattached(by: operations))
    }

    /// The nodes that `operations` inserted (created ones, and ones detached and inserted again).
    /// - Complexity: O(operations).
    public static func reattached(by operations: [EditOperation]) -> Set<NodeKey> {
        var keys = Set<NodeKey>()
        for operation in operations {
            if case .insertNode(let key, _, _) = operation { keys.insert(key) }
        }
        return keys
    }

    /// The change set for an explicit set of written nodes.
    ///
    /// - Parameter reattached: the nodes the commit inserted (``reattached(by:)``), when its
    ///   operations are known. A node in both documents under the same parent is then moved
    ///   exactly when the commit inserted it again: nodes that were never detached keep their
    ///   order among themselves, so only the reinserted ones need placing. Without them, a node
    ///   counts as moved when the nearest previous sibling under the same parent differs, which
    ///   misses blocks of siblings that trade places (`[a, b, c, d]` → `[c, d, a, b]` leaves `b`
    ///   and `d` "in place").
    public init(from previous: EditorState, to next: EditorState, dirty: Set<NodeKey>, reattached: Set<NodeKey>? = nil) {
        var wasAttached = AttachmentMemo(previous, capacity: dirty.count)
        var isAttached = AttachmentMemo(next, capacity: dirty.count)
        func before(_ key: NodeKey) -> Bool { wasAttached.isAttached(key) }
        func after(_ key: NodeKey) -> Bool { isAttached.isAttached(key) }
        /// A sibling that stayed: in both documents under the same parent.
        func stayed(_ key: NodeKey) -> Bool {
            before(key) && after(key) && previous[key]?.parent == next[key]?.parent
        }
        for key in dirty {
            switch (before(key), after(key)) {
            case (false, true): created.insert(key)
            case (true, false): removed.insert(key)
            case (true, true):
                guard previous[key]?.parent == next[key]?.parent else {
                    moved.insert(key)
                    continue
                }
                if let reattached {
                    if reattached.contains(key) { moved.insert(key) } else { updated.insert(key) }
                    continue
                }
                // In order when the nearest previous sibling that stayed is the same before and after.
                var afterPrevious = next[key]?.previousSibling
                while let candidate = afterPrevious, !stayed(candidate) { afterPrevious = next[candidate]?.previousSibling }
                var beforePrevious = previous[key]?.previousSibling
                while let candidate = beforePrevious, !stayed(candidate) { beforePrevious = previous[candidate]?.previousSibling }
                if afterPrevious == beforePrevious { updated.insert(key) } else { moved.insert(key) }
            case (false, false):
                continue
            }
        }
    }
}

/// Whether nodes are attached in one state, remembered for every node on the paths walked: a
/// node is attached exactly when its parent is, so a walk up stops at the first node already
/// known (siblings share all but their own step).
struct AttachmentMemo {
    let state: EditorState
    var known: [NodeKey: Bool] = [:]
    /// The nodes of the walk in progress, kept to reuse the buffer.
    var path: [NodeKey] = []

    /// A memo for `state`, with room for about `capacity` nodes (the memo then never grows
    /// while a change set of that many written nodes is classified).
    init(_ state: EditorState, capacity: Int = 0) {
        self.state = state
        known.reserveCapacity(capacity)
    }

    /// - Complexity: O(k) for the k nodes between `key` and its nearest ancestor already known
    ///   (or the root): amortized O(1) per node over a set of written nodes.
    mutating func isAttached(_ key: NodeKey) -> Bool {
        path.removeAll(keepingCapacity: true)
        var current: NodeKey? = key
        var attached = false
        while let candidate = current {
            if let value = known[candidate] {
                attached = value
                break
            }
            guard let node = state[candidate] else { break }
            path.append(candidate)
            if candidate == .root {
                attached = true
                break
            }
            current = node.parent
        }
        for node in path { known[node] = attached }
        return attached
    }
}
