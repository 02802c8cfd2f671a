import HashTreeCollections

/// A state's node storage, remembering which keys were written.
///
/// Two layers: the nodes of a new document stored in bulk (``NodeBatch``) sit in one immutable
/// array shared by every copy of the state, found by key in O(1); every later write goes to a
/// persistent hash trie over it (swift-collections' `TreeDictionary`, path-copying, so a copy of
/// the state is O(1) and a write copies O(log₃₂ n)), where a removed bulk node leaves a
/// tombstone. Importing a document is then one array move, with no hashing, and reading an
/// unedited node is an array index after a miss in a small trie.
struct TrackedNodes: Sendable {
    /// Nodes stored in bulk, by key from `start`; never written after storing.
    final class Base: Sendable {
        let start: Int
        let nodes: [Node]

        init(start: Int, nodes: [Node]) {
            self.start = start
            self.nodes = nodes
        }

        subscript(key: NodeKey) -> Node? {
            let index = key.rawValue - start
            return index >= 0 && index < nodes.count ? nodes[index] : nil
        }
    }

    /// A written node, or the tombstone of a removed bulk node.
    enum Slot: Hashable, Sendable {
        case node(Node)
        case removed

        var node: Node? {
            if case .node(let node) = self { return node }
            return nil
        }
    }

    private(set) var base: Base?
    private(set) var overlay: TreeDictionary<NodeKey, Slot>
    private(set) var count: Int
    var dirty: Set<NodeKey> = []

    init(root: Node) {
        base = nil
        overlay = [root.key: .node(root)]
        count = 1
    }

    /// - Complexity: O(log₃₂ w) for w written nodes, plus O(1) for a bulk node; O(1) for every
    ///   node before the first write after a bulk store.
    subscript(key: NodeKey) -> Node? {
        get {
            // Until the first write after a bulk store, the overlay holds the root alone (it is
            // never removed): the other nodes are read from the bulk layer without hashing.
            if overlay.count == 1, key != .root, let base { return base[key] }
            if let slot = overlay[key] { return slot.node }
            return base?[key]
        }
        set {
            let existed = self[key] != nil
            if let newValue {
                overlay[key] = .node(newValue)
                if !existed { count += 1 }
            } else if existed {
                overlay[key] = base?[key] != nil ? .removed : nil
                count -= 1
            }
            dirty.insert(key)
        }
    }

    /// Stores many new nodes in one pass; `tracking` says whether they count as written (a new
    /// document's nodes need not: it is rendered whole). Into a storage that holds only the root,
    /// untracked nodes with consecutive keys become the bulk layer.
    ///
    /// - Complexity: O(1) for a new document's nodes (moved, not copied), else O(k · log₃₂ n).
    mutating func storeAll(_ nodes: consuming [Node], tracking: Bool) {
        let nodes = nodes
        if !tracking, base == nil, count == 1, let first = nodes.first,
           nodes.last!.key.rawValue - first.key.rawValue == nodes.count - 1, overlay[first.key] == nil {
            base = Base(start: first.key.rawValue, nodes: nodes)
            count += nodes.count
            return
        }
        for node in nodes { self[node.key] = node }
        if !tracking {
            for node in nodes { dirty.remove(node.key) }
        }
    }

    /// Whether both storages hold the same nodes.
    ///
    /// - Complexity: O(w) when both share their bulk layer (w the written nodes), else
    ///   O(n · log₃₂ n).
    func hasSameNodes(as other: TrackedNodes) -> Bool {
        guard count == other.count else { return false }
        if base === other.base {
            if overlay == other.overlay { return true }
            for (key, _) in overlay where self[key] != other[key] { return false }
            for (key, _) in other.overlay where overlay[key] == nil && self[key] != other[key] { return false }
            return true
        }
        for (key, slot) in overlay where slot.node != other[key] { return false }
        if let base {
            for node in base.nodes where overlay[node.key] == nil && other[node.key] != node { return false }
        }
        return true
    }
}
