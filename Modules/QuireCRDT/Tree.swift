import QuireAlgorithms

/// One applied tree operation, kept in (Lamport, peer) order for undo-do-redo.
struct TreeOpRecord {
    var lamport: Lamport
    var peer: PeerID
    var counter: OpCounter
    var target: TreeID
    var parent: TreeParent
    var position: [UInt8]
    /// The target's placement before this op (nil: it did not exist); filled when applied.
    var old: NodePlacement?
    /// Whether the op took effect (a cyclic move is skipped).
    var effective = false

    init(lamport: Lamport, peer: PeerID, counter: OpCounter, target: TreeID, parent: TreeParent, position: [UInt8]) {
        self.lamport = lamport
        self.peer = peer
        self.counter = counter
        self.target = target
        self.parent = parent
        self.position = position
    }

    @inline(__always) func precedes(_ o: TreeOpRecord) -> Bool { lamport != o.lamport ? lamport < o.lamport : peer < o.peer }
}

/// Where a node is: its parent and fractional index, and the ID and Lamport of the op that put it there.
struct NodePlacement: Equatable {
    var parent: TreeParent
    var position: [UInt8]
    var lamport: Lamport
    var peer: PeerID
    var counter: OpCounter = 0

    /// Sibling order: fractional index bytes, then (Lamport, peer) of the placing op.
    @inline(__always) func sortsBefore(_ o: NodePlacement) -> Bool {
        if position != o.position { return position.lexicographicallyPrecedes(o.position) }
        return lamport != o.lamport ? lamport < o.lamport : peer < o.peer
    }
}

/// A movable tree (Kleppmann et al.), siblings ordered by fractional index then by the placing
/// op's (Lamport, peer), as Loro orders them. Deleted nodes live under `.deleted`.
struct TreeState {
    var nodes: [TreeID: NodePlacement] = [:]
    var children: [TreeParent: [TreeID]] = [:]
    var log: [TreeOpRecord] = []

    /// Whether `ancestor` is `node` or one of its ancestors.
    /// - Complexity: O(depth).
    func isAncestor(_ ancestor: TreeID, of node: TreeID) -> Bool {
        var cur: TreeID? = node
        var steps = 0
        while let c = cur, steps <= nodes.count {
            if c == ancestor { return true }
            guard case .node(let p)? = nodes[c]?.parent else { return false }
            cur = p
            steps += 1
        }
        return false
    }

    /// Whether the node is alive (neither it nor an ancestor is deleted).
    /// - Complexity: O(depth).
    func isAlive(_ node: TreeID) -> Bool {
        var cur = node
        var steps = 0
        while let p = nodes[cur], steps <= nodes.count {
            switch p.parent {
            case .root: return true
            case .deleted: return false
            case .node(let n): cur = n
            }
            steps += 1
        }
        return false
    }

    /// The visible position (parent, index) of an alive node.
    /// - Complexity: O(depth + siblings).
    func position(of node: TreeID) -> TreePosition? {
        guard isAlive(node), let p = nodes[node] else { return nil }
        let index = children[p.parent]?.firstIndex(of: node) ?? 0
        if case .node(let parent) = p.parent { return TreePosition(parent: parent, index: index) }
        return TreePosition(parent: nil, index: index)
    }

    mutating func detach(_ node: TreeID) {
        guard let p = nodes[node] else { return }
        children[p.parent]?.removeAll { $0 == node }
    }

    mutating func attach(_ node: TreeID, _ placement: NodePlacement) {
        nodes[node] = placement
        // The search's reference to the siblings ends with the call, so the insertion happens in
        // place (a live copy would make it copy every sibling).
        let index = Self.insertionIndex(of: placement, among: children[placement.parent] ?? [], nodes: nodes)
        children[placement.parent, default: []].insert(node, at: index)
    }

    /// Where a node with `placement` goes among `siblings` in sibling order.
    /// - Complexity: O(log k) for k siblings.
    static func insertionIndex(of placement: NodePlacement, among siblings: [TreeID], nodes: [TreeID: NodePlacement]) -> Int {
        siblings.partitioningIndex { !nodes[$0]!.sortsBefore(placement) }
    }

    /// Sets a node's placement (nil removes it) and returns the visibility transition diffs.
    mutating func place(_ node: TreeID, _ placement: NodePlacement?, diffs: inout [TreeDiff], record: Bool) {
        let before = record ? position(of: node) : nil
        detach(node)
        if let placement { attach(node, placement) } else { nodes[node] = nil }
        guard record else { return }
        let after = position(of: node)
        switch (before, after) {
        case let (b?, a?): diffs.append(.move(node: node, from: b, to: a))
        case let (b?, nil): diffs.append(.delete(node: node, from: b))
        case (nil, .some): appendCreates(node, &diffs)
        case (nil, nil): break
        }
    }

    /// Create diffs for a node that became visible and its visible descendants, pre-order.
    func appendCreates(_ node: TreeID, _ diffs: inout [TreeDiff]) {
        guard let at = position(of: node) else { return }
        diffs.append(.create(node: node, at: at))
        for child in children[.node(node)] ?? [] { appendCreates(child, &diffs) }
    }

    /// Applies one record on top of the current state (do): skipped when it would create a cycle
    /// or its parent is unknown.
    mutating func perform(_ r: inout TreeOpRecord, diffs: inout [TreeDiff], record: Bool) {
        r.old = nodes[r.target]
        if case .node(let p) = r.parent, nodes[p] == nil || isAncestor(r.target, of: p) {
            r.effective = false
            return
        }
        r.effective = true
        place(r.target, NodePlacement(parent: r.parent, position: r.position, lamport: r.lamport, peer: r.peer, counter: r.counter), diffs: &diffs, record: record)
    }

    /// Reverts one record (undo).
    mutating func revert(_ r: TreeOpRecord, diffs: inout [TreeDiff], record: Bool) {
        guard r.effective else { return }
        place(r.target, r.old, diffs: &diffs, record: record)
    }

    /// Kleppmann et al.: insert the op in timestamp order, undoing and redoing later ones.
    /// - Complexity: O(k · depth) for k ops later than this one; O(depth + siblings) when it is the newest.
    mutating func apply(_ new: TreeOpRecord, diffs: inout [TreeDiff], record: Bool) {
        var r = new
        var i = log.count
        while i > 0, r.precedes(log[i - 1]) { i -= 1 }
        for j in stride(from: log.count - 1, through: i, by: -1) { revert(log[j], diffs: &diffs, record: record) }
        perform(&r, diffs: &diffs, record: record)
        log.insert(r, at: i)
        for j in (i + 1)..<log.count {
            var later = log[j]
            perform(&later, diffs: &diffs, record: record)
            log[j] = later
        }
    }
}

/// Loro's fractional index byte strings (terminator 128), generated between neighbours.
enum FractionalIndex {
    static let terminator: UInt8 = 128

    static func before(_ b: [UInt8]) -> [UInt8] {
        for i in b.indices {
            if b[i] > terminator { return Array(b[..<i]) + [terminator] }
            if b[i] > 0 { var a = Array(b[...i]); a[i] -= 1; return a + [terminator] }
        }
        return b + [0, terminator]
    }

    static func after(_ b: [UInt8]) -> [UInt8] {
        for i in b.indices {
            if b[i] < terminator { return Array(b[..<i]) + [terminator] }
            if b[i] < 255 { var a = Array(b[...i]); a[i] += 1; return a + [terminator] }
        }
        return b + [255, terminator]
    }

    /// A key strictly between `l` and `r`, or nil when none exists (equal keys).
    static func between(_ l: [UInt8], _ r: [UInt8]) -> [UInt8]? {
        guard !l.isEmpty, !r.isEmpty else { return nil }
        let shorter = min(l.count, r.count) - 1
        for i in 0..<shorter {
            let diff = Int(r[i]) - Int(l[i])
            if diff > 1 { var a = Array(l[...i]); a[i] += UInt8((Int(r[i]) - Int(l[i])) / 2); return a + [terminator] }
            if diff == 1 {
                let suffix = Array(l[(i + 1)...])
                return Array(l[...i]) + afterUnterminated(suffix) + [terminator]
            }
            if diff < 0 { return nil }
        }
        if l.count < r.count {
            let prefix = Array(r[...shorter])
            guard prefix.last! >= terminator else { return nil }
            return prefix + beforeUnterminated(Array(r[(shorter + 1)...])) + [terminator]
        } else if l.count > r.count {
            let prefix = Array(l[...shorter])
            guard prefix.last! < terminator else { return nil }
            return prefix + afterUnterminated(Array(l[(shorter + 1)...])) + [terminator]
        }
        return nil
    }

    private static func afterUnterminated(_ b: [UInt8]) -> [UInt8] {
        for i in b.indices {
            if b[i] < terminator { return Array(b[..<i]) }
            if b[i] < 255 { var a = Array(b[...i]); a[i] += 1; return a }
        }
        return b + [255]
    }

    private static func beforeUnterminated(_ b: [UInt8]) -> [UInt8] {
        for i in b.indices {
            if b[i] > terminator { return Array(b[..<i]) }
            if b[i] > 0 { var a = Array(b[...i]); a[i] -= 1; return a }
        }
        return b + [0]
    }

    /// The key for a new sibling between `left` and `right` (either may be absent).
    static func new(_ left: [UInt8]?, _ right: [UInt8]?) -> [UInt8] {
        switch (left, right) {
        case (nil, nil): return [terminator]
        case let (l?, nil): return after(l)
        case let (nil, r?): return before(r)
        case let (l?, r?): return between(l, r) ?? after(l)
        }
    }
}

extension DocStorage {
    func applyTree(_ c: ContainerID, _ r: TreeOpRecord) {
        var tree = trees.removeValue(forKey: c) ?? TreeState()
        var diffs: [TreeDiff] = []
        tree.apply(r, diffs: &diffs, record: recordEvents)
        if r.parent != .deleted || tree.nodes[r.target] != nil {
            parents[.normal(id: r.target, type: .map)] = (c, .node(r.target))
        }
        trees[c] = tree
        if !diffs.isEmpty { emit(c, .tree(diffs)) }
    }
}

extension CRDTDocument {
    /// The alive children of `parent` (nil: the root level), in sibling order.
    /// - Complexity: O(k) for k children.
    public func children(of parent: TreeID?, in c: ContainerID) -> [TreeID] {
        guard let tree = s.trees[c] else { return [] }
        if let parent, !tree.isAlive(parent) { return [] }
        return tree.children[parent.map { .node($0) } ?? .root] ?? []
    }

    /// The parent of an alive node (nil for a root-level node); throws for unknown or deleted nodes.
    /// - Complexity: O(depth).
    public func parent(of node: TreeID, in c: ContainerID) throws(CRDTError) -> TreeID? {
        guard let tree = s.trees[c], tree.isAlive(node), let p = tree.nodes[node] else { throw .unknownTreeNode(container: c, node: node) }
        if case .node(let n) = p.parent { return n }
        return nil
    }

    /// Whether the node exists and is not deleted (nor under a deleted ancestor).
    /// - Complexity: O(depth).
    public func isAlive(_ node: TreeID, in c: ContainerID) -> Bool { s.trees[c]?.isAlive(node) ?? false }

    /// The property map of a tree node (it may hold a text, e.g. a block's inline content).
    /// - Complexity: O(1).
    public func properties(of node: TreeID) -> ContainerID { .normal(id: node, type: .map) }

    /// The fractional index of an alive node, as bytes.
    /// - Complexity: O(1) expected.
    public func fractionalIndex(of node: TreeID, in c: ContainerID) -> [UInt8]? { s.trees[c]?.nodes[node]?.position }

    private mutating func treeOp(_ c: ContainerID, target: TreeID?, parent: TreeParent, index: Int?) throws(CRDTError) -> TreeID {
        let st = mutate()
        // The position is computed in a function of its own so that no copy of the tree state
        // is alive when `applyTree` mutates it (a live copy would make that copy the whole tree).
        let position = parent == .deleted ? [] : Self.newPosition(in: st.trees[c], under: parent, index: index, moving: target)
        let (counter, lamport) = st.nextLocalStamp()
        let id = target ?? OpID(peer: st.peer, counter: counter)
        st.record(Op(container: c, counter: counter, content: .tree(target: id, parent: parent, position: position)))
        st.applyTree(c, TreeOpRecord(lamport: lamport, peer: st.peer, counter: counter, target: id, parent: parent, position: position))
        return id
    }

    /// The fractional index for a node placed at sibling `index` under `parent`.
    /// - Complexity: O(siblings).
    private static func newPosition(in tree: TreeState?, under parent: TreeParent, index: Int?, moving target: TreeID?) -> [UInt8] {
        guard let tree else { return FractionalIndex.new(nil, nil) }
        let all = tree.children[parent] ?? []
        // The siblings as they will be once the target leaves its place (without copying them).
        let skip = target.flatMap { all.firstIndex(of: $0) }
        let count = all.count - (skip == nil ? 0 : 1)
        func sibling(_ i: Int) -> TreeID { all[skip.map { i >= $0 ? i + 1 : i } ?? i] }
        let i = min(max(0, index ?? count), count)
        let left = i > 0 ? tree.nodes[sibling(i - 1)]!.position : nil
        // Siblings sharing an index (placed concurrently at one spot) leave no room between
        // them: the node goes right after them, below the next index up. `after(left)`
        // alone could reach or pass that index and land further on, tied with the nodes
        // there (Loro gives the tie's later members fresh indexes instead).
        var j = i
        while let left, j < count, tree.nodes[sibling(j)]!.position == left { j += 1 }
        let right = j < count ? tree.nodes[sibling(j)]!.position : nil
        return FractionalIndex.new(left, right)
    }

    /// Creates a node under `parent` (nil: root level) at sibling `index` (nil: last). An
    /// `index` among siblings that share a fractional index (placed concurrently at one spot)
    /// puts the node right after them.
    /// - Complexity: O(depth + siblings).
    @discardableResult
    public mutating func createNode(under parent: TreeID? = nil, at index: Int? = nil, in c: ContainerID) throws(CRDTError) -> TreeID {
        try check(c, .tree)
        if let parent, !(s.trees[c]?.isAlive(parent) ?? false) { throw .unknownTreeNode(container: c, node: parent) }
        return try treeOp(c, target: nil, parent: parent.map { .node($0) } ?? .root, index: index)
    }

    /// Moves an alive node under `parent` (nil: root level) at sibling `index` (nil: last);
    /// among siblings that share a fractional index, right after them.
    /// A move into the node's own subtree throws ``CRDTError/cyclicMove(container:node:parent:)``.
    /// - Complexity: O(depth + siblings).
    public mutating func moveNode(_ node: TreeID, under parent: TreeID?, at index: Int? = nil, in c: ContainerID) throws(CRDTError) {
        try check(c, .tree)
        guard let tree = s.trees[c], tree.isAlive(node) else { throw .unknownTreeNode(container: c, node: node) }
        if let parent {
            guard tree.isAlive(parent) else { throw .unknownTreeNode(container: c, node: parent) }
            if tree.isAncestor(node, of: parent) { throw .cyclicMove(container: c, node: node, parent: parent) }
        }
        _ = try treeOp(c, target: node, parent: parent.map { .node($0) } ?? .root, index: index)
    }

    /// Creates a node under `parent` (nil: root level) right after the sibling `sibling` (nil: as
    /// the first child). Where `sibling` shares its fractional index with the siblings after it
    /// (they were placed concurrently at one spot), no index fits between them: those siblings are
    /// moved to fresh indexes after the new node, so the order is exactly the one asked for.
    /// - Complexity: O(depth + log siblings), plus O(siblings) for each tied sibling moved.
    @discardableResult
    public mutating func createNode(under parent: TreeID?, after sibling: TreeID?, in c: ContainerID) throws(CRDTError) -> TreeID {
        let tied = try tiedSuccessors(of: sibling, under: parent, moving: nil, in: c)
        let index = try siblingIndex(after: sibling, under: parent, moving: nil, in: c)
        let id = try createNode(under: parent, at: index, in: c)
        try reorder(tied, after: id, under: parent, in: c)
        return id
    }

    /// Moves an alive node under `parent` (nil: root level) right after the sibling `sibling` (nil:
    /// as the first child); tied siblings after `sibling` are moved after it as
    /// ``createNode(under:after:in:)`` does.
    /// - Complexity: O(depth + siblings).
    public mutating func moveNode(_ node: TreeID, under parent: TreeID?, after sibling: TreeID?, in c: ContainerID) throws(CRDTError) {
        let tied = try tiedSuccessors(of: sibling, under: parent, moving: node, in: c)
        let index = try siblingIndex(after: sibling, under: parent, moving: node, in: c)
        try moveNode(node, under: parent, at: index, in: c)
        try reorder(tied, after: node, under: parent, in: c)
    }

    /// The siblings right after `sibling` that share its fractional index (without `moving`).
    private func tiedSuccessors(of sibling: TreeID?, under parent: TreeID?, moving: TreeID?, in c: ContainerID) throws(CRDTError) -> [TreeID] {
        guard let sibling, let tree = s.trees[c], let placement = tree.nodes[sibling] else { return [] }
        let siblings = tree.children[parent.map { .node($0) } ?? .root] ?? []
        var index = TreeState.insertionIndex(of: placement, among: siblings, nodes: tree.nodes) + 1
        var tied: [TreeID] = []
        while index < siblings.count, let next = tree.nodes[siblings[index]], next.position == placement.position {
            if siblings[index] != moving { tied.append(siblings[index]) }
            index += 1
        }
        return tied
    }

    /// Moves `nodes`, in order, right after `first`.
    private mutating func reorder(_ nodes: [TreeID], after first: TreeID, under parent: TreeID?, in c: ContainerID) throws(CRDTError) {
        var previous = first
        for node in nodes {
            let index = try siblingIndex(after: previous, under: parent, moving: node, in: c)
            try moveNode(node, under: parent, at: index, in: c)
            previous = node
        }
    }

    /// The sibling index right after `sibling` under `parent`, counted without `moving`.
    private func siblingIndex(after sibling: TreeID?, under parent: TreeID?, moving: TreeID?, in c: ContainerID) throws(CRDTError) -> Int {
        try check(c, .tree)
        guard let sibling else { return 0 }
        let key: TreeParent = parent.map { .node($0) } ?? .root
        guard let tree = s.trees[c], let placement = tree.nodes[sibling], placement.parent == key, tree.isAlive(sibling) else {
            throw .unknownTreeNode(container: c, node: sibling)
        }
        let siblings = tree.children[key] ?? []
        var index = TreeState.insertionIndex(of: placement, among: siblings, nodes: tree.nodes) + 1
        if let moving, let at = tree.nodes[moving], at.parent == key, at.sortsBefore(placement) { index -= 1 }
        return index
    }

    /// Deletes an alive node and so its subtree.
    /// - Complexity: O(depth + siblings).
    public mutating func deleteNode(_ node: TreeID, in c: ContainerID) throws(CRDTError) {
        try check(c, .tree)
        guard let tree = s.trees[c], tree.isAlive(node) else { throw .unknownTreeNode(container: c, node: node) }
        _ = try treeOp(c, target: node, parent: .deleted, index: nil)
    }
}
