/// Many new nodes built at once for one state: the one bulk-build path that markdown import,
/// Lexical JSON import and pastes of many blocks go through.
///
/// A batch holds its nodes in an array indexed by key, so creating a node and linking it under
/// another node of the batch are O(1) writes to that array: no trie path is copied, no operation
/// is recorded, no node is marked dirty and no change set or transform runs while the batch is
/// built. Field specs and defaults come from the registry's per-type tables, looked up once per
/// type. ``EditorState/insert(_:roots:under:after:)`` then stores the batch in one pass and links
/// its top-level nodes under a parent; inside an editor update that records operations it
/// records one `createNode` per node and one `insertNode` per top-level node, so the commit's
/// transaction replays and inverts exactly like any other.
///
/// ```swift
/// var batch = state.makeBatch()
/// let paragraph = try batch.create(type: .paragraph)
/// try batch.append(try batch.create(type: .text, text: "Hello"), to: paragraph)
/// try state.insert(batch, roots: [paragraph], under: .root, after: state.root.lastChild)
/// ```
public struct NodeBatch: Sendable {
    /// The registry of the state the batch was made for.
    public let registry: NodeRegistry
    /// The key of the first node; the others follow in creation order.
    let firstKey: Int
    /// The nodes, the one with key `firstKey + i` at index `i`.
    private(set) var nodes: [Node] = []
    /// Per node, the index in `tables` of its type's table; -1 for a node whose type the batch
    /// did not look up (unknown types, nodes an importer added itself).
    private var tableOfNode: [Int32] = []
    /// The tables of the types created so far, so that creating a node and checking a parent's
    /// child rule cost an array index instead of hashing the type name.
    private var tables: [TypeTable] = []
    /// The index in `tables` of the type created last: runs of one type are common.
    private var lastTable = 0

    init(registry: NodeRegistry, firstKey: Int) {
        self.registry = registry
        self.firstKey = firstKey
    }

    /// The number of nodes created.
    public var count: Int { nodes.count }

    /// Whether the batch has no nodes.
    public var isEmpty: Bool { nodes.isEmpty }

    /// Reserves room for `count` nodes in all.
    ///
    /// - Complexity: O(count).
    public mutating func reserveCapacity(_ count: Int) {
        nodes.reserveCapacity(count)
        tableOfNode.reserveCapacity(count)
    }

    /// The batch's node with `key`, or nil when the key is not one of the batch's.
    ///
    /// - Complexity: O(1).
    public subscript(key: NodeKey) -> Node? {
        let index = key.rawValue - firstKey
        return index >= 0 && index < nodes.count ? nodes[index] : nil
    }

    /// The keys of the batch's nodes, in creation order.
    public var keys: [NodeKey] { (0..<nodes.count).map { NodeKey(firstKey + $0) } }

    private func index(of key: NodeKey) throws(ModelError) -> Int {
        let index = key.rawValue - firstKey
        guard index >= 0 && index < nodes.count else { throw .nodeNotFound(key) }
        return index
    }

    /// The index in `tables` of `type`'s table, added from the registry on first use.
    ///
    /// - Complexity: O(t) for the t types the batch has met (a handful), O(1) for a repeat.
    private mutating func tableIndex(for type: NodeType) throws(ModelError) -> Int {
        if lastTable < tables.count && tables[lastTable].type == type { return lastTable }
        if let index = type.index(among: tables.count, { tables[$0].type }) {
            lastTable = index
            return index
        }
        guard let table = registry.table(for: type) else { throw .unknownType(type) }
        tables.append(table)
        lastTable = tables.count - 1
        return lastTable
    }

    /// The child rule of the batch node at `index`, nil for an unknown type.
    private func childRule(ofNodeAt index: Int) -> ChildRule? {
        let table = Int(tableOfNode[index])
        if table >= 0 { return tables[table].childRule }
        return nodes[index].isUnknown ? nil : registry.table(for: nodes[index].type)?.childRule
    }

    // MARK: Creating

    /// Creates a detached node of a registered type with its fields at their defaults overlaid
    /// by `fields`, as `EditorState.createNode(type:text:fields:)` does.
    ///
    /// - Throws: `ModelError.unknownType`, `.cannotCreateRoot`, `.textOnNonTextNode`,
    ///   `.fieldTypeMismatch`, `.invalidNode`; the batch is unchanged then.
    /// - Complexity: O(1) amortized, plus the fields given.
    @discardableResult
    public mutating func create(type: NodeType, text: String = "", fields: JSONObject = JSONObject()) throws(ModelError) -> NodeKey {
        let tableIndex = try tableIndex(for: type)
        // The table is read in place: a copy would retain its plugin, specs and defaults.
        try tables[tableIndex].checkCreating(text: text)
        let allFields = try tables[tableIndex].fields(overlaidBy: fields)
        return try add(Node(key: NodeKey(firstKey + nodes.count), type: type, role: tables[tableIndex].role, isUnknown: false, text: text,
                            fields: allFields),
                       tableIndex: tableIndex)
    }

    /// Creates a detached node of a registered type whose fields are exactly `fields` (checked
    /// against the type's specs, nothing added): what an importer of a document that lists every
    /// field uses, so that the document exports back as it was.
    ///
    /// - Throws: as ``create(type:text:fields:)``, and `.fieldTypeMismatch` with a `null` found
    ///   value when a required field is missing.
    /// - Complexity: O(1) amortized, plus the fields given.
    @discardableResult
    public mutating func createVerbatim(type: NodeType, text: String = "", fields: JSONObject) throws(ModelError) -> NodeKey {
        let tableIndex = try tableIndex(for: type)
        try tables[tableIndex].checkCreating(text: text)
        try tables[tableIndex].check(fields)
        return try add(Node(key: NodeKey(firstKey + nodes.count), type: type, role: tables[tableIndex].role, isUnknown: false, text: text,
                            fields: fields),
                       tableIndex: tableIndex)
    }

    /// Creates a detached node of a type the registry does not know, keeping `fields` verbatim.
    ///
    /// - Complexity: O(1) amortized.
    @discardableResult
    public mutating func createUnknown(type: NodeType, role: NodeRole, text: String = "", fields: JSONObject) -> NodeKey {
        let key = NodeKey(firstKey + nodes.count)
        nodes.append(Node(key: key, type: type, role: role, isUnknown: true, text: text, fields: fields))
        tableOfNode.append(-1)
        return key
    }

    private mutating func add(_ node: consuming Node, tableIndex: Int) throws(ModelError) -> NodeKey {
        do { try tables[tableIndex].plugin.validate(node) } catch { throw .invalidNode(type: node.type, reason: error) }
        let key = node.key
        nodes.append(node)
        tableOfNode.append(Int32(tableIndex))
        return key
    }

    // MARK: Linking

    /// Appends `child` (a detached node of the batch) as the last child of `parent` (a node of
    /// the batch).
    ///
    /// - Throws: `ModelError.nodeNotFound` (a key outside the batch), `.alreadyAttached`,
    ///   `.notAnElement`, `.childNotAccepted`, `.wouldCreateCycle`; the batch is unchanged then.
    /// - Complexity: O(1), or O(depth of `parent`) when `child` already has children (the cycle
    ///   check; a new leaf cannot be an ancestor).
    public mutating func append(_ child: NodeKey, to parent: NodeKey) throws(ModelError) {
        let childIndex = try index(of: child)
        let parentIndex = try index(of: parent)
        // Fields are read in place: a copy of a node would retain its strings and fields.
        guard nodes[childIndex].parent == nil else { throw .alreadyAttached(child) }
        guard nodes[parentIndex].role.isElement else { throw .notAnElement(parent) }
        if let rule = childRule(ofNodeAt: parentIndex), !rule.accepts(type: nodes[childIndex].type, role: nodes[childIndex].role) {
            throw .childNotAccepted(parent: nodes[parentIndex].type, child: nodes[childIndex].type)
        }
        if nodes[childIndex].firstChild != nil || child == parent {
            var current: NodeKey? = parent
            while let key = current {
                if key == child { throw .wouldCreateCycle(child) }
                current = self[key]?.parent
            }
        }
        let previous = nodes[parentIndex].lastChild
        nodes[childIndex].parent = parent
        nodes[childIndex].previousSibling = previous
        if let previous { nodes[previous.rawValue - firstKey].nextSibling = child } else { nodes[parentIndex].firstChild = child }
        nodes[parentIndex].lastChild = child
        nodes[parentIndex].childCount += 1
    }

    /// Unlinks `key` (a node of the batch) from its parent and siblings; it and its subtree stay
    /// in the batch, detached (stored detached unless linked again).
    ///
    /// - Throws: `ModelError.nodeNotFound` (a key outside the batch), `.notAttached`; the batch
    ///   is unchanged then.
    /// - Complexity: O(1).
    public mutating func detach(_ key: NodeKey) throws(ModelError) {
        let index = try index(of: key)
        let child = nodes[index]
        guard let parent = child.parent else { throw .notAttached(key) }
        let parentIndex = try self.index(of: parent)
        if let previous = child.previousSibling { nodes[previous.rawValue - firstKey].nextSibling = child.nextSibling }
        if let next = child.nextSibling { nodes[next.rawValue - firstKey].previousSibling = child.previousSibling }
        if nodes[parentIndex].firstChild == key { nodes[parentIndex].firstChild = child.nextSibling }
        if nodes[parentIndex].lastChild == key { nodes[parentIndex].lastChild = child.previousSibling }
        nodes[parentIndex].childCount -= 1
        nodes[index].parent = nil
        nodes[index].previousSibling = nil
        nodes[index].nextSibling = nil
    }

    /// Appends `text` to a text node of the batch (an importer joining adjacent runs).
    ///
    /// - Throws: `ModelError.nodeNotFound`, `.notATextNode`.
    /// - Complexity: O(length of `text`) amortized.
    public mutating func appendText(_ text: String, to key: NodeKey) throws(ModelError) {
        let index = try index(of: key)
        guard nodes[index].role == .text else { throw .notATextNode(key) }
        nodes[index].text += text
    }

    /// The key the next node created will get.
    var nextKey: NodeKey { NodeKey(firstKey + nodes.count) }

    /// Moves the nodes of `later`, a batch for the same state built apart from this one (on
    /// another thread, say), after this batch's nodes, adding the returned offset to every key
    /// of `later` (its nodes' keys and the links between them): `later`'s key `k` is this
    /// batch's `k + offset` afterwards. What `later` linked stays linked; its detached nodes stay
    /// detached, for the caller to pass as roots with their new keys.
    ///
    /// - Precondition: `later` links only among its own nodes (a batch's nodes are linked into
    ///   the state only by ``EditorState/insert(_:roots:under:after:)``), and was made for a
    ///   state with the same registry.
    /// - Complexity: O(m) for the m nodes of `later`.
    public mutating func append(contentsOf later: consuming NodeBatch) -> Int {
        let later = later
        let offset = firstKey + nodes.count - later.firstKey
        let start = nodes.count
        // The later batch's type tables by this batch's indices, added where this batch has
        // not met the type yet.
        var tableIndices: [Int32] = []
        for table in later.tables {
            if let index = table.type.index(among: tables.count, { tables[$0].type }) {
                tableIndices.append(Int32(index))
            } else {
                tables.append(table)
                tableIndices.append(Int32(tables.count - 1))
            }
        }
        nodes.append(contentsOf: later.nodes)
        tableOfNode.reserveCapacity(tableOfNode.count + later.tableOfNode.count)
        for table in later.tableOfNode { tableOfNode.append(table >= 0 ? tableIndices[Int(table)] : -1) }
        func moved(_ key: NodeKey?) -> NodeKey? { key.map { NodeKey($0.rawValue + offset) } }
        for index in start..<nodes.count {
            nodes[index].key = NodeKey(nodes[index].key.rawValue + offset)
            nodes[index].parent = moved(nodes[index].parent)
            nodes[index].previousSibling = moved(nodes[index].previousSibling)
            nodes[index].nextSibling = moved(nodes[index].nextSibling)
            nodes[index].firstChild = moved(nodes[index].firstChild)
            nodes[index].lastChild = moved(nodes[index].lastChild)
        }
        return offset
    }

    /// Adds a node an importer built and checked itself (its key is ``nextKey``).
    mutating func addChecked(_ node: consuming Node) {
        nodes.append(node)
        tableOfNode.append(-1)
    }

    /// Appends `child` under `parent` (both in the batch) without the checks of
    /// ``append(_:to:)``: for an importer that checked the child rule itself.
    mutating func appendChecked(_ child: NodeKey, to parent: NodeKey) {
        let childIndex = child.rawValue - firstKey
        let parentIndex = parent.rawValue - firstKey
        let previous = nodes[parentIndex].lastChild
        nodes[childIndex].parent = parent
        nodes[childIndex].previousSibling = previous
        if let previous { nodes[previous.rawValue - firstKey].nextSibling = child } else { nodes[parentIndex].firstChild = child }
        nodes[parentIndex].lastChild = child
        nodes[parentIndex].childCount += 1
    }

    /// Links `key`, a detached node of the batch, under `parent` (a node outside the batch, of
    /// type `type`, whose rule is `rule`: nil accepts anything) after `previous`, whose next
    /// sibling it becomes when `previous` is in the batch.
    ///
    /// - Throws: `ModelError.nodeNotFound` (a key outside the batch), `.alreadyAttached`,
    ///   `.childNotAccepted`.
    /// - Complexity: O(1).
    mutating func linkRoot(_ key: NodeKey, under parent: NodeKey, type: NodeType, accepting rule: ChildRule?, after previous: NodeKey?) throws(ModelError) {
        let index = try index(of: key)
        guard nodes[index].parent == nil else { throw .alreadyAttached(key) }
        if let rule, !rule.accepts(type: nodes[index].type, role: nodes[index].role) {
            throw .childNotAccepted(parent: type, child: nodes[index].type)
        }
        nodes[index].parent = parent
        nodes[index].previousSibling = previous
        if let previous {
            let previousIndex = previous.rawValue - firstKey
            if previousIndex >= 0 && previousIndex < nodes.count { nodes[previousIndex].nextSibling = key }
        }
    }

    /// The nodes, leaving the batch empty (so that storing them moves rather than copies).
    mutating func takeNodes() -> [Node] {
        defer {
            nodes = []
            tableOfNode = []
        }
        return nodes
    }

    mutating func setNextSibling(_ next: NodeKey?, of key: NodeKey) {
        nodes[key.rawValue - firstKey].nextSibling = next
    }
}

extension EditorState {
    /// An empty batch of new nodes for this state; its keys follow the state's. Build it and
    /// store it with ``insert(_:roots:under:after:)`` before the state creates other nodes.
    ///
    /// - Complexity: O(1).
    public func makeBatch() -> NodeBatch { NodeBatch(registry: registry, firstKey: nextKeyValue) }

    /// Stores every node of `batch` and links `roots` (its detached top-level nodes, in order)
    /// under `parent`, right after `after` (nil: before the first child). Nodes of the batch that
    /// are neither roots nor linked under one are stored detached.
    ///
    /// When the state records operations (an editor update), this records one `createNode` per
    /// node, in creation order, and one `insertNode` per root, and marks the nodes dirty; when it
    /// does not (an importer building a new document), it writes no record and, for a state that
    /// holds only its root, builds the node storage in one pass.
    ///
    /// - Throws: `ModelError.operationMismatch` when the state created nodes after `makeBatch()`
    ///   (the keys would collide), `.nodeNotFound`, `.notAnElement`, `.childNotAccepted`,
    ///   `.alreadyAttached` (a root that is linked), `.notAttached` (`after` not a child of
    ///   `parent`); nothing changes then.
    /// - Complexity: O(b · log₃₂ n) for b nodes in the batch and n in the state.
    public mutating func insert(_ batch: consuming NodeBatch, roots: [NodeKey], under parent: NodeKey, after: NodeKey?) throws(ModelError) {
        // Moved, not copied: linking the roots writes into the nodes, and a second owner would
        // make that write copy every node of the batch.
        var linked = consume batch
        guard linked.firstKey >= nextKeyValue else {
            throw .operationMismatch(.createNode(linked.nodes.first ?? root), reason: "the state created nodes after the batch was made")
        }
        let parentNode = try node(parent)
        guard parentNode.role.isElement else { throw .notAnElement(parent) }
        let parentRule = parentNode.isUnknown ? nil : registry.table(for: parentNode.type)?.childRule
        // What a replay does: create every node (the roots detached, as they are still), then
        // insert the roots in order. So the creations are taken before the roots are linked.
        let creations = isRecordingOperations ? linked.nodes.map { EditOperation.createNode($0) } : []
        // Link the roots in the batch, which checks each (a root given twice is linked the
        // second time); the state itself is written only once everything is checked. The roots
        // are new and `parent` is not, so no cycle can form.
        var previous = after
        for key in roots {
            try linked.linkRoot(key, under: parent, type: parentNode.type, accepting: parentRule, after: previous)
            previous = key
        }
        let next: NodeKey?
        if let after {
            guard try node(after).parent == parent else { throw .notAttached(after) }
            next = nodes[after]!.nextSibling
        } else {
            next = parentNode.firstChild
        }
        nextKeyValue = linked.firstKey + linked.nodes.count
        reserveRecording(creations.count + roots.count)
        for operation in creations { record(operation) }
        var updatedParent = parentNode
        if let first = roots.first {
            if let after { nodes[after]!.nextSibling = first } else { updatedParent.firstChild = first }
        }
        if let last = roots.last {
            linked.setNextSibling(next, of: last)
            if let next { nodes[next]!.previousSibling = last } else { updatedParent.lastChild = last }
            updatedParent.childCount += roots.count
            nodes[parent] = updatedParent
        }
        let tracking = isRecordingOperations || nodeCount > 1
        nodes.storeAll(linked.takeNodes(), tracking: tracking)
        if isRecordingOperations {
            var previous = after
            for key in roots {
                record(.insertNode(key, parent: parent, after: previous))
                previous = key
            }
        }
    }

    /// Replaces the fields of the root (an importer reading a document's root), unrecorded.
    mutating func setRootFields(_ fields: JSONObject) {
        var updated = root
        updated.fields = fields
        storeImported(updated)
    }
}
