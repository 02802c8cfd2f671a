import HashTreeCollections

/// A persistent document: a tree of nodes plus the selection.
///
/// `EditorState` is a value. Copying one (to start a pending state for an update) is O(1): the
/// nodes live in a hash-array-mapped trie (swift-collections' `TreeDictionary`) that copies only
/// the path to a node it writes, so a write into a copy of a 100,000-node state touches a handful
/// of trie nodes and shares everything else with the original.
public struct EditorState: Sendable {
    /// The node types this state was built with; it decides roles and flat-string contributions.
    public let registry: NodeRegistry
    var nodes: TrackedNodes
    var nextKeyValue: Int
    /// The selection, if the document has one.
    public var selection: RangeSelection?
    /// The operations written since `beginRecordingOperations()`; nil when not recording.
    private var recording: [EditOperation]?

    /// An empty document: a root with no children.
    public init(registry: NodeRegistry = NodeRegistry()) {
        self.registry = registry
        let rootPlugin = registry.plugin(for: .root) ?? RootNodePlugin()
        let root = Node(
            key: .root, type: .root, role: .root, isUnknown: false, text: "",
            fields: Self.defaultFields(rootPlugin)
        )
        nodes = TrackedNodes(root: root)
        nextKeyValue = 1
        selection = nil
        recording = nil
    }

    /// A document holding `paragraphs`, one paragraph of plain text each (an empty string makes an
    /// empty paragraph). Handy for tests and samples.
    public init(registry: NodeRegistry = NodeRegistry(), paragraphs: [String]) {
        self.init(registry: registry)
        do {
            for text in paragraphs {
                let paragraph = try createNode(type: .paragraph)
                try append(paragraph, to: .root)
                if !text.isEmpty {
                    try append(try createNode(type: .text, text: text), to: paragraph)
                }
            }
        } catch {
            preconditionFailure("core node types always accept paragraphs and text: \(error)")
        }
    }

    static func defaultFields(_ plugin: any NodePlugin, fields specs: [FieldSpec]? = nil) -> JSONObject {
        var fields = JSONObject()
        for spec in specs ?? plugin.fields { fields.appendUnchecked(spec.name, spec.defaultValue) }
        fields["version"] = .number(.integer(plugin.version))
        return fields
    }

    // MARK: Change tracking

    /// Every node written (created, changed, linked, unlinked or removed) since the last
    /// `clearDirtyNodes()`: what an update touched, from which its change set is computed.
    public var dirtyNodes: Set<NodeKey> { nodes.dirty }

    /// Forgets the dirty nodes; an update calls this on the pending state before it starts.
    ///
    /// - Complexity: O(1).
    public mutating func clearDirtyNodes() { nodes.dirty = [] }

    // MARK: Recording operations

    /// Whether writes are being recorded as `EditOperation`s.
    public var isRecordingOperations: Bool { recording != nil }

    /// Starts recording every write as an `EditOperation` (an editor does this on the pending state
    /// of each update). Bulk builders that do not need a transaction leave it off.
    ///
    /// - Complexity: O(1).
    public mutating func beginRecordingOperations() { recording = [] }

    /// The operations recorded so far, in order; recording goes on.
    public var recordedOperations: [EditOperation] { recording ?? [] }

    /// Stops recording and returns the operations recorded since `beginRecordingOperations()`.
    ///
    /// - Complexity: O(1).
    public mutating func endRecordingOperations() -> [EditOperation] {
        defer { recording = nil }
        return recording ?? []
    }

    mutating func record(_ operation: EditOperation) {
        if recording != nil { recording!.append(operation) }
    }

    /// Makes room for `count` more recorded operations (a batch records one per node).
    mutating func reserveRecording(_ count: Int) {
        if recording != nil { recording!.reserveCapacity(recording!.count + count) }
    }

    // MARK: Reading

    /// The node with `key`, or nil when there is none.
    ///
    /// - Complexity: O(log₃₂ n), effectively constant.
    public subscript(key: NodeKey) -> Node? { nodes[key] }

    /// The root node.
    public var root: Node { nodes[.root]! }

    /// The number of nodes, the root and detached nodes included.
    ///
    /// - Complexity: O(1).
    public var nodeCount: Int { nodes.count }

    /// Whether both states hold exactly the same nodes (keys, links, text and fields), whatever
    /// their selections.
    ///
    /// - Complexity: O(w) for states that share the nodes stored in bulk (w the nodes written
    ///   since), else O(n · log₃₂ n); subtrees of written nodes the two states share are skipped.
    public func hasSameNodes(as other: EditorState) -> Bool {
        nodes.hasSameNodes(as: other.nodes)
    }

    /// The node with `key`, or a `ModelError.nodeNotFound`.
    public func node(_ key: NodeKey) throws(ModelError) -> Node {
        guard let node = nodes[key] else { throw .nodeNotFound(key) }
        return node
    }

    /// The children of `key` in order (empty for leaves and unknown keys).
    ///
    /// - Complexity: O(1) to create; each step of the iteration is one lookup.
    public func children(of key: NodeKey) -> Children {
        Children(nodes: nodes, firstKey: nodes[key]?.firstChild)
    }

    /// The children of a node, followed through the sibling links.
    public struct Children: Sequence {
        // The node storage alone, not the state: exporters take a sequence of children for
        // every node, and a copy of the state retains and releases every storage it holds.
        let nodes: TrackedNodes
        let firstKey: NodeKey?

        /// The first child, if any.
        public var first: Node? { firstKey.flatMap { nodes[$0] } }

        public func makeIterator() -> Iterator { Iterator(nodes: nodes, upcoming: firstKey) }

        /// Follows the sibling links from the first child.
        public struct Iterator: IteratorProtocol {
            let nodes: TrackedNodes
            var upcoming: NodeKey?

            public mutating func next() -> Node? {
                guard let key = upcoming, let node = nodes[key] else { return nil }
                upcoming = node.nextSibling
                return node
            }
        }
    }

    /// The ancestors of `key`, nearest first, ending with the root.
    public func ancestors(of key: NodeKey) -> [NodeKey] {
        var result: [NodeKey] = []
        var current = nodes[key]?.parent
        while let parent = current {
            result.append(parent)
            current = nodes[parent]?.parent
        }
        return result
    }

    /// The plugin for a node, or nil for an unknown node.
    public func plugin(of node: Node) -> (any NodePlugin)? {
        node.isUnknown ? nil : registry.plugin(for: node.type)
    }

    // MARK: Creating nodes

    /// Creates a detached node of a registered type, with its fields at their defaults overlaid by
    /// `fields`.
    ///
    /// - Throws: `ModelError.unknownType`, `.fieldTypeMismatch`, `.textOnNonTextNode`.
    /// - Complexity: O(log₃₂ n).
    @discardableResult
    public mutating func createNode(type: NodeType, text: String = "", fields: JSONObject = [:]) throws(ModelError) -> NodeKey {
        guard let table = registry.table(for: type) else { throw .unknownType(type) }
        let plugin = table.plugin
        try table.checkCreating(text: text)
        let allFields = try table.fields(overlaidBy: fields)
        let node = Node(key: allocateKey(), type: type, role: plugin.role, isUnknown: false, text: text, fields: allFields)
        do { try plugin.validate(node) } catch { throw .invalidNode(type: type, reason: error) }
        storeCreated(node)
        return node.key
    }

    /// Creates a detached node of a type the registry does not know, keeping `fields` verbatim.
    /// Used by import so that unknown JSON survives a round trip.
    ///
    /// - Complexity: O(log₃₂ n).
    @discardableResult
    public mutating func createUnknownNode(type: NodeType, role: NodeRole, text: String = "", fields: JSONObject) -> NodeKey {
        let node = Node(key: allocateKey(), type: type, role: role, isUnknown: true, text: text, fields: fields)
        storeCreated(node)
        return node.key
    }

    /// Stores a new detached node (its key from `allocateKey`) and records its creation.
    mutating func storeCreated(_ node: Node) {
        nodes[node.key] = node
        record(.createNode(node))
    }

    mutating func allocateKey() -> NodeKey {
        defer { nextKeyValue += 1 }
        return NodeKey(nextKeyValue)
    }

    /// Makes sure `allocateKey` never hands out `key` or a smaller one (after a node with that key
    /// arrived from elsewhere).
    mutating func reserveKeys(through key: NodeKey) {
        nextKeyValue = Swift.max(nextKeyValue, key.rawValue + 1)
    }

    /// Stores a fully linked node built by the importer, which reserved its key with `allocateKey`.
    /// A bulk build of a new state: not recorded as operations.
    mutating func storeImported(_ node: Node) {
        nodes[node.key] = node
    }

    // MARK: Editing the tree

    /// Appends `child` (detached) as the last child of `parent`.
    ///
    /// - Complexity: O(log₃₂ n): it rewrites the child, the old last child and the parent.
    public mutating func append(_ child: NodeKey, to parent: NodeKey) throws(ModelError) {
        let parentNode = try node(parent)
        try link(child, parent: parentNode, after: parentNode.lastChild, before: nil)
    }

    /// Inserts `child` (detached) as the first child of `parent`.
    ///
    /// - Complexity: O(log₃₂ n).
    public mutating func prepend(_ child: NodeKey, to parent: NodeKey) throws(ModelError) {
        let parentNode = try node(parent)
        try link(child, parent: parentNode, after: nil, before: parentNode.firstChild)
    }

    /// Inserts `child` (detached) right before `sibling`.
    ///
    /// - Complexity: O(log₃₂ n).
    public mutating func insert(_ child: NodeKey, before sibling: NodeKey) throws(ModelError) {
        let siblingNode = try node(sibling)
        guard let parent = siblingNode.parent else { throw .notAttached(sibling) }
        try link(child, parent: try node(parent), after: siblingNode.previousSibling, before: sibling)
    }

    /// Inserts `child` (detached) right after `sibling`.
    ///
    /// - Complexity: O(log₃₂ n).
    public mutating func insert(_ child: NodeKey, after sibling: NodeKey) throws(ModelError) {
        let siblingNode = try node(sibling)
        guard let parent = siblingNode.parent else { throw .notAttached(sibling) }
        try link(child, parent: try node(parent), after: sibling, before: siblingNode.nextSibling)
    }

    mutating func insertLinking(_ key: NodeKey, parent: Node, after previous: NodeKey?, before next: NodeKey?) throws(ModelError) {
        try link(key, parent: parent, after: previous, before: next)
    }

    private mutating func link(_ key: NodeKey, parent: Node, after previous: NodeKey?, before next: NodeKey?) throws(ModelError) {
        var child = try node(key)
        guard key != .root else { throw .cannotMoveRoot }
        guard child.parent == nil else { throw .alreadyAttached(key) }
        guard parent.role.isElement else { throw .notAnElement(parent.key) }
        if parent.key == key || ancestors(of: parent.key).contains(key) { throw .wouldCreateCycle(key) }
        if !parent.isUnknown, let plugin = registry.plugin(for: parent.type),
           !plugin.childRule.accepts(type: child.type, role: child.role) {
            throw .childNotAccepted(parent: parent.type, child: child.type)
        }
        child.parent = parent.key
        child.previousSibling = previous
        child.nextSibling = next
        nodes[key] = child
        if let previous { nodes[previous]!.nextSibling = key }
        if let next { nodes[next]!.previousSibling = key }
        var updatedParent = nodes[parent.key]!
        if previous == nil { updatedParent.firstChild = key }
        if next == nil { updatedParent.lastChild = key }
        updatedParent.childCount += 1
        nodes[parent.key] = updatedParent
        record(.insertNode(key, parent: parent.key, after: previous))
    }

    /// Unlinks `key` from its parent and siblings; the node and its subtree stay in the state,
    /// ready to be inserted elsewhere.
    ///
    /// - Complexity: O(log₃₂ n).
    public mutating func detach(_ key: NodeKey) throws(ModelError) {
        var child = try node(key)
        guard let parent = child.parent else { throw .notAttached(key) }
        if let previous = child.previousSibling { nodes[previous]!.nextSibling = child.nextSibling }
        if let next = child.nextSibling { nodes[next]!.previousSibling = child.previousSibling }
        var parentNode = nodes[parent]!
        if parentNode.firstChild == key { parentNode.firstChild = child.nextSibling }
        if parentNode.lastChild == key { parentNode.lastChild = child.previousSibling }
        parentNode.childCount -= 1
        nodes[parent] = parentNode
        let previous = child.previousSibling
        child.parent = nil
        child.previousSibling = nil
        child.nextSibling = nil
        nodes[key] = child
        record(.detachNode(key, parent: parent, after: previous))
    }

    /// Removes `key` and its whole subtree from the state.
    ///
    /// - Complexity: O(s · log₃₂ n) for a subtree of s nodes.
    public mutating func remove(_ key: NodeKey) throws(ModelError) {
        guard key != .root else { throw .cannotRemoveRoot }
        let target = try node(key)
        if target.parent != nil { try detach(key) }
        var pending = [key]
        while let current = pending.popLast() {
            guard let removed = nodes[current] else { continue }
            var child = removed.firstChild
            while let childKey = child {
                pending.append(childKey)
                child = nodes[childKey]?.nextSibling
            }
            nodes[current] = nil
            record(.destroyNode(removed))
        }
    }

    /// Drops one node from the state without touching its relatives (replaying a recorded
    /// `destroyNode`, whose relatives are detached or destroyed by their own operations).
    mutating func destroy(_ key: NodeKey) throws(ModelError) {
        guard key != .root else { throw .cannotRemoveRoot }
        let removed = try node(key)
        nodes[key] = nil
        record(.destroyNode(removed))
    }

    /// Replaces a text node's text.
    ///
    /// - Complexity: O(log₃₂ n + t) for the text length t.
    /// Recorded as one splice: the changed middle between the common prefix and suffix.
    ///
    /// - Complexity: O(log₃₂ n + t) for the text length t.
    public mutating func setText(_ text: String, of key: NodeKey) throws(ModelError) {
        let old = try node(key).text
        try writeText(text, of: key, splice: TextSplice.between(old, text))
    }

    /// Replaces `count` UTF-16 units of a text node's text at `offset` with `text`.
    ///
    /// - Throws: `ModelError.notATextNode`, `.invalidPoint` when the range is outside the text or
    ///   splits a surrogate pair, `.invalidNode` when the plugin refuses the new text.
    /// - Complexity: O(log₃₂ n + t) for the text length t.
    public mutating func spliceText(_ key: NodeKey, at offset: Int, deleting count: Int, inserting text: String) throws(ModelError) {
        let node = try node(key)
        let utf16 = node.text.utf16
        guard offset >= 0, count >= 0, offset <= utf16.count, count <= utf16.count - offset else {
            throw .invalidPoint(.text(key, offset), reason: "splice of \(count) units outside the text")
        }
        let start = utf16.index(utf16.startIndex, offsetBy: offset)
        let end = utf16.index(start, offsetBy: count)
        guard start.samePosition(in: node.text.unicodeScalars) != nil, end.samePosition(in: node.text.unicodeScalars) != nil else {
            throw .invalidPoint(.text(key, offset), reason: "splice of \(count) units splits a surrogate pair")
        }
        let deleted = String(node.text[start..<end])
        var updated = node.text
        updated.replaceSubrange(start..<end, with: text)
        try writeText(updated, of: key, splice: (offset, deleted, text))
    }

    private mutating func writeText(_ text: String, of key: NodeKey, splice: (offset: Int, deleted: String, inserted: String)) throws(ModelError) {
        var target = try node(key)
        guard target.role == .text else { throw .notATextNode(key) }
        target.text = text
        if let plugin = plugin(of: target) {
            do { try plugin.validate(target) } catch { throw .invalidNode(type: target.type, reason: error) }
        }
        nodes[key] = target
        record(.spliceText(key, offset: splice.offset, deleted: splice.deleted, inserted: splice.inserted))
    }

    /// Sets (or, with nil, removes) a JSON field of a node, checked against its plugin's field type.
    ///
    /// - Complexity: O(log₃₂ n).
    public mutating func setField(_ name: String, to value: JSONValue?, of key: NodeKey) throws(ModelError) {
        var target = try node(key)
        guard !["type", "children", "text"].contains(name) else { throw .reservedField(name) }
        let spec = target.isUnknown ? nil : registry.fieldTable(for: target.type)?.specs[name]
        if let value, let spec, !spec.type.accepts(value) {
            throw .fieldTypeMismatch(type: target.type, field: name, expected: spec.type, found: value)
        }
        let old = target.fields[name]
        target.fields[name] = value
        nodes[key] = target
        record(.setField(key, name: name, old: old, new: value))
    }

    /// Sets a text node's format bitmask.
    public mutating func setTextFormat(_ format: TextFormat, of key: NodeKey) throws(ModelError) {
        guard try node(key).role == .text else { throw .notATextNode(key) }
        try setField("format", to: .number(.integer(format.rawValue)), of: key)
    }
}

/// Why a change to an `EditorState` was refused. The state is unchanged when one is thrown.
public enum ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    case nodeNotFound(NodeKey)
    case unknownType(NodeType)
    case cannotCreateRoot
    case cannotRemoveRoot
    case cannotMoveRoot
    case alreadyAttached(NodeKey)
    case notAttached(NodeKey)
    case notAnElement(NodeKey)
    case notATextNode(NodeKey)
    case textOnNonTextNode(NodeType)
    case wouldCreateCycle(NodeKey)
    case childNotAccepted(parent: NodeType, child: NodeType)
    case reservedField(String)
    case fieldTypeMismatch(type: NodeType, field: String, expected: FieldType, found: JSONValue)
    case invalidNode(type: NodeType, reason: NodeValidationError)
    /// An operation needs a selection and the state has none.
    case noSelection
    /// A point names a missing node, the wrong kind of node, or an offset out of range.
    case invalidPoint(Point, reason: String)
    /// A replayed operation does not match the state (it was recorded on another one).
    case operationMismatch(EditOperation, reason: String)

    public var description: String {
        switch self {
        case .nodeNotFound(let key): "no node with key \(key)"
        case .unknownType(let type): "node type \"\(type)\" is not registered"
        case .cannotCreateRoot: "a state has exactly one root; another cannot be created"
        case .cannotRemoveRoot: "the root cannot be removed"
        case .cannotMoveRoot: "the root cannot be inserted under another node"
        case .alreadyAttached(let key): "node \(key) already has a parent; detach it first"
        case .notAttached(let key): "node \(key) has no parent"
        case .notAnElement(let key): "node \(key) is not an element and cannot have children"
        case .notATextNode(let key): "node \(key) is not a text node"
        case .textOnNonTextNode(let type): "node type \"\(type)\" has no text"
        case .wouldCreateCycle(let key): "inserting node \(key) there would make it its own ancestor"
        case .childNotAccepted(let parent, let child): "a \"\(parent)\" node does not accept a \"\(child)\" child"
        case .reservedField(let name): "\"\(name)\" is not a field; it is part of the node's structure"
        case .fieldTypeMismatch(let type, let field, let expected, let found):
            "field \"\(field)\" of a \"\(type)\" node must be \(expected), not \(found.typeName)"
        case .invalidNode(let type, let reason):
            "invalid \"\(type)\" node" + (reason.field.map { " (field \"\($0)\")" } ?? "") + ": \(reason.message)"
        case .noSelection: "the operation needs a selection and there is none"
        case .invalidPoint(let point, let reason): "invalid point \(point): \(reason)"
        case .operationMismatch(let operation, let reason):
            "cannot apply \(operation.kindName) on node \(operation.key.map(String.init(describing:)) ?? "-"): \(reason)"
        }
    }
}
