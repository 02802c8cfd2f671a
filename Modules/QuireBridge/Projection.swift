import QuireAlgorithms
import QuireCRDT
import QuireModel

/// The two whole-document conversions: a CRDT document's projection (the editor state it stands
/// for) and seeding a CRDT document from an editor state.
public enum Projection {
    /// The editor state a CRDT document stands for, under `registry`.
    ///
    /// A tree node is a block of its property map's `type` with the rest of the map as its
    /// fields; a block that takes inline content shows the run its marker starts, and is not shown
    /// (nor its subtree) when it has no marker. Text before the first marker and runs whose block
    /// is gone are not shown. A type the registry does not know, or fields its plugin refuses,
    /// make an unknown node that keeps them.
    ///
    /// - Complexity: O(n · log n) for the blocks and scalars of the document (plus the CRDT's
    ///   rich-text reads).
    public static func state(of document: CRDTDocument, registry: NodeRegistry) throws(BridgeError) -> EditorState {
        try project(document, registry: registry, runs: TextRuns(delta: document.toDelta(DocumentSchema.text))).state
    }

    /// The projection and the key of every shown block's tree node.
    static func project(_ document: CRDTDocument, registry: NodeRegistry, runs: TextRuns) throws(BridgeError) -> (state: EditorState, keys: [TreeID: NodeKey]) {
        var state = EditorState(registry: registry)
        var keys: [TreeID: NodeKey] = [:]
        do {
            for (name, value) in document.map(DocumentSchema.root).sorted(by: { $0.key < $1.key }) {
                try state.setField(name, to: InlineContent.json(value), of: .root)
            }
            var pending: [(TreeID, NodeKey)] = document.children(of: nil, in: DocumentSchema.blocks).reversed().map { ($0, .root) }
            while let (id, parent) = pending.popLast() {
                guard let key = try makeBlock(id, in: document, runs: runs, state: &state) else { continue }
                try state.append(key, to: parent)
                keys[id] = key
                if let range = runs.contentRange(of: id), state[key].map({ InlineContent.hasRun($0, in: state) }) == true {
                    try InlineContent.build(try styledRuns(document, range), into: key, in: &state)
                }
                for child in document.children(of: id, in: DocumentSchema.blocks).reversed() { pending.append((child, key)) }
            }
        } catch let error as ModelError {
            throw .schema("the projection was refused by the model: \(error)")
        } catch let error as BridgeError {
            throw error
        } catch {
            throw .schema("\(error)")
        }
        state.selection = state.textBlocks().first.map { RangeSelection(caret: .element($0, 0)) }
        return (state, keys)
    }

    /// A detached editor node for the tree node `id`, or nil when the block is not shown.
    static func makeBlock(_ id: TreeID, in document: CRDTDocument, runs: TextRuns, state: inout EditorState) throws(BridgeError) -> NodeKey? {
        let (type, role, fields) = blockDescription(id, in: document, registry: state.registry)
        let known = state.registry.plugin(for: type) != nil ? type : nil
        if InlineContent.hasRun(type: known, role: role, registry: state.registry), !runs.contains(id) { return nil }
        do { return try InlineContent.makeNode(type: type, role: role, text: "", fields: fields, in: &state) } catch {
            throw .schema("block \(DocumentSchema.string(id)) of type \"\(type)\": \(error)")
        }
    }

    /// A block's type, role and fields from its property map.
    static func blockDescription(_ id: TreeID, in document: CRDTDocument, registry: NodeRegistry) -> (NodeType, NodeRole, JSONObject) {
        var meta = document.map(document.properties(of: id))
        let type = NodeType(meta.removeValue(forKey: DocumentSchema.typeKey).flatMap { value -> String? in
            if case .string(let name) = value { return name }
            return nil
        } ?? "paragraph")
        let role: NodeRole = if let plugin = registry.plugin(for: type) {
            plugin.role
        } else if meta.removeValue(forKey: DocumentSchema.unknownRoleKey) == .string("decorator") {
            .decorator(inline: false)
        } else {
            .element(inline: false)
        }
        meta[DocumentSchema.unknownRoleKey] = nil
        let fields = JSONObject(meta.keys.sorted().map { ($0, InlineContent.json(meta[$0]!)) })
        return (type, role, fields)
    }

    /// The styled runs of part of the shared text.
    static func styledRuns(_ document: CRDTDocument, _ range: Range<Int>) throws(BridgeError) -> [StyledRun] {
        guard !range.isEmpty else { return [] }
        do {
            return try document.richText(DocumentSchema.text, in: range).compactMap { step in
                guard case .insert(let text, let attributes) = step else { return nil }
                return StyledRun(scalars: Array(text.unicodeScalars), attributes: attributes)
            }
        } catch {
            throw .crdt(error)
        }
    }

    /// A state's Lexical JSON as the shared document can hold it: without empty text nodes, which
    /// an editor keeps only while the caret is in one (to type with its format) and which carry
    /// no content. Two peers hold the same document when these are equal.
    ///
    /// - Complexity: O(n).
    public static func canonicalJSON(of state: EditorState) -> JSONValue {
        func strip(_ value: JSONValue) -> JSONValue {
            guard case .object(var object) = value else { return value }
            if case .array(let children)? = object["children"] {
                object["children"] = .array(children.compactMap { child -> JSONValue? in
                    if case .object(let node) = child, node["text"] == .string(""), node["children"] == nil { return nil }
                    return strip(child)
                })
            }
            if case .object? = object["root"] { object["root"] = strip(object["root"]!) }
            return .object(object)
        }
        return strip(LexicalJSON.export(state))
    }

    // MARK: Seeding

    /// Writes `state` into an empty CRDT document in the schema (one commit), and returns the
    /// tree node of every block.
    ///
    /// - Throws: `BridgeError.schema` when the document is not empty; `.crdt` when an operation
    ///   is refused.
    /// - Complexity: O(n · log n).
    @discardableResult
    public static func seed(_ document: inout CRDTDocument, from state: EditorState) throws(BridgeError) -> [NodeKey: TreeID] {
        guard document.length(of: DocumentSchema.text) == 0, document.children(of: nil, in: DocumentSchema.blocks).isEmpty else {
            throw .schema("a document is seeded only when it is empty")
        }
        DocumentSchema.configure(&document)
        var trees: [NodeKey: TreeID] = [:]
        var writer = TextWriter()
        do throws(CRDTError) {
            for (name, value) in state.root.fields { try document.set(name, CRDTValue(value), in: DocumentSchema.root) }
            var pending: [(NodeKey, TreeID?)] = state.children(of: .root).reversed().map { ($0.key, nil) }
            while let (key, parent) = pending.popLast() {
                guard let node = state[key], isBlock(node) else { continue }
                let id = try document.createNode(under: parent, in: DocumentSchema.blocks)
                trees[key] = id
                try writeMeta(of: node, to: id, in: &document, state: state)
                if InlineContent.hasRun(node, in: state) { writer.append(block: id, runs: InlineContent.runs(of: key, in: state)) }
                for child in state.children(of: key).reversed() { pending.append((child.key, id)) }
            }
            try writer.flush(into: &document, at: 0)
        } catch {
            throw .crdt(error)
        }
        document.commit()
        return trees
    }

    /// A new document that holds `state` as one change made by a peer that follows from the
    /// state's content (``seedPeer(for:)``), forked to `peer` for everything after it.
    ///
    /// Apps that find a room empty and seed it at the same moment with the same content write
    /// the very same change (same peer, counters and operations), and a merge keeps it once;
    /// each seeding under its own peer with ``seed(_:from:)`` would leave the room two copies.
    /// Different content gets another seed peer, so two different seeds both land and nothing
    /// is lost. The operations follow only from the blocks in order and their fields in their
    /// JSON order, never from a process's hashing, so every process and machine writes the same.
    ///
    /// - Parameter peer: the returned document's peer (random unless given).
    /// - Throws: `BridgeError.crdt` when an operation is refused.
    /// - Complexity: O(n · log n).
    public static func seededDocument(from state: EditorState, peer: PeerID? = nil) throws(BridgeError) -> CRDTDocument {
        var document = CRDTDocument(peer: seedPeer(for: state))
        try seed(&document, from: state)
        return document.fork(peer: peer)
    }

    /// The peer that ``seededDocument(from:peer:)`` seeds `state` as: the stable hash of its
    /// Lexical JSON, never 0 nor Loro's reserved `UInt64.max`.
    /// - Complexity: O(n).
    public static func seedPeer(for state: EditorState) -> PeerID {
        let hash = StableHash.of(LexicalJSON.exportBytes(state))
        return hash == 0 || hash == .max ? 1 : hash
    }

    /// A block in the tree: a non-inline element or decorator.
    static func isBlock(_ node: Node) -> Bool {
        node.role == .element(inline: false) || node.role == .decorator(inline: false)
    }

    /// Writes a block's type and fields into its tree node's property map.
    static func writeMeta(of node: Node, to id: TreeID, in document: inout CRDTDocument, state: EditorState) throws(CRDTError) {
        let map = document.properties(of: id)
        try document.set(DocumentSchema.typeKey, .string(node.type.rawValue), in: map)
        if node.isUnknown, node.role == .decorator(inline: false) {
            try document.set(DocumentSchema.unknownRoleKey, .string("decorator"), in: map)
        }
        for (name, value) in node.fields { try document.set(name, CRDTValue(value), in: map) }
    }
}
