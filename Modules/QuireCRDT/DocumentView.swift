/// The read-only queries a ``CRDTDocument`` and a past version of it (``DocumentView``) share, so
/// that rendering code works on both.
public protocol DocumentReading: Sendable {
    /// The version shown.
    var version: VersionVector { get }
    /// The frontiers of the version shown.
    var frontiers: Frontiers { get }
    /// Every container that has state in this version, sorted.
    var containers: [ContainerID] { get }
    /// The length of a text or list container in `unit`.
    func length(of c: ContainerID, unit: TextUnit) -> Int
    /// The plain text of a text container.
    func text(_ c: ContainerID) -> String
    /// The rich text as inserts with attributes (null-valued keys omitted).
    func toDelta(_ c: ContainerID) -> [TextDelta]
    /// The values of a list or movable list container.
    func list(_ c: ContainerID) -> [CRDTValue]
    /// The value of a counter.
    func counterValue(_ c: ContainerID) -> Double
    /// The entries of a map container (deleted keys omitted).
    func map(_ c: ContainerID) -> [String: CRDTValue]
    /// One map value.
    func get(_ key: String, in c: ContainerID) -> CRDTValue?
    /// The alive children of `parent` (nil: the root level), in sibling order.
    func children(of parent: TreeID?, in c: ContainerID) -> [TreeID]
    /// Whether the node exists and is neither deleted nor under a deleted ancestor.
    func isAlive(_ node: TreeID, in c: ContainerID) -> Bool
    /// The parent of an alive node (nil at the root level).
    func parent(of node: TreeID, in c: ContainerID) throws(CRDTError) -> TreeID?
    /// The position of a stable cursor in `unit`.
    func resolve(_ cursor: Cursor, unit: TextUnit) throws(CRDTError) -> Int
}

extension CRDTDocument: DocumentReading {}

/// A read-only view of a document at a past version (``CRDTDocument/checkout(_:)``).
///
/// Loro's `checkout` detaches the document itself and rejects edits until it is attached again.
/// A Swift value cannot be "detached" without every holder seeing it, so Quire returns a
/// separate value instead: the document stays attached and editable, and the view has no
/// editing API at all (edits are a compile-time error, not a runtime one). To edit from a past
/// version, ``CRDTDocument/fork(at:peer:)`` it.
///
/// Creating a view is O(c + m + t) (causal walk, map writes, tree operations); text and list
/// queries walk the container's history pieces, O(n) for n runs, whatever the version.
public struct DocumentView: DocumentReading {
    let index: HistoryIndex
    let ends: [OpCounter]
    /// The version shown.
    public let version: VersionVector
    /// The frontiers of the version shown.
    public let frontiers: Frontiers
    let maps: [ContainerID: [String: MapEntry]]
    let trees: [ContainerID: TreeState]
    /// Movable lists and counters, replayed from their operations in this version.
    let movableLists: [ContainerID: [CRDTValue]]
    let counters: [ContainerID: Double]

    init(index: HistoryIndex, version: VersionVector, frontiers: Frontiers) {
        self.index = index
        self.ends = index.ends(version)
        self.version = version
        self.frontiers = frontiers
        var maps: [ContainerID: [String: MapEntry]] = [:]
        for (c, keys) in index.mapWrites {
            var entries: [String: MapEntry] = [:]
            for (key, writes) in keys {
                for w in writes where version.includes(OpID(peer: w.peer, counter: w.counter)) {
                    if let old = entries[key], !old.isBeaten(lamport: w.lamport, peer: w.peer) { continue }
                    entries[key] = w
                }
            }
            if !entries.isEmpty { maps[c] = entries }
        }
        self.maps = maps
        self.trees = DocumentView.trees(index, including: { version.includes($0) })
        var lists: [ContainerID: [CRDTValue]] = [:]
        for c in index.movableOps.keys {
            guard let st = DocumentView.movableList(c, index, including: { version.includes($0) }) else { continue }
            lists[c] = st.movableValues(c)
        }
        movableLists = lists
        var counters: [ContainerID: Double] = [:]
        for (c, ops) in index.counterOps {
            for (id, d) in ops where version.includes(id) { counters[c, default: 0] += d }
        }
        self.counters = counters
    }

    /// A movable list replayed from the operations `included` accepts, in a scratch storage
    /// (nil when it has none): operations in (Lamport, peer) order find their origins and
    /// elements already there.
    /// - Complexity: O(k · log n) for k operations of the list.
    static func movableList(_ c: ContainerID, _ index: HistoryIndex, including included: (OpID) -> Bool) -> DocStorage? {
        let ops = (index.movableOps[c] ?? []).filter { included(OpID(peer: $0.peer, counter: $0.op.counter)) }
        guard !ops.isEmpty else { return nil }
        let st = DocStorage(peer: 0)
        let seq = st.sequence(c)
        // The document's arena as is: the inserts of the history point into it.
        seq.values = index.movableValues[c] ?? []
        for (lamport, peer, op) in ops {
            var stored = op
            st.apply(&stored, peer: peer, lamport: lamport)
        }
        return st
    }

    /// The trees replayed from the operations `included` accepts.
    /// - Complexity: O(t · depth) for t tree operations.
    static func trees(_ index: HistoryIndex, including included: (OpID) -> Bool) -> [ContainerID: TreeState] {
        var out: [ContainerID: TreeState] = [:]
        for (c, log) in index.treeLogs {
            var tree = TreeState()
            var none: [TreeDiff] = []
            for r in log where included(OpID(peer: r.peer, counter: r.counter)) {
                // The log is in (Lamport, peer) order, so each op is the newest: no undo/redo.
                tree.apply(TreeOpRecord(lamport: r.lamport, peer: r.peer, counter: r.counter, target: r.target, parent: r.parent, position: r.position),
                           diffs: &none, record: false)
            }
            if !tree.log.isEmpty { out[c] = tree }
        }
        return out
    }

    /// Every container with state at this version, sorted.
    /// - Complexity: O(C · n) in the worst case (a sequence is checked up to its first element
    ///   of this version).
    public var containers: [ContainerID] {
        var out = Array(maps.keys) + Array(trees.keys) + Array(movableLists.keys) + Array(counters.keys)
        for (c, h) in index.sequences where h.pieces.contains(where: { $0.elem.counter < ends[Int($0.slot)] }) { out.append(c) }
        return out.sorted()
    }

    // MARK: sequences

    /// Whether the mark `id` (its start anchor's ID) exists at this version: both anchors do.
    @inline(__always) func hasMark(_ id: OpID) -> Bool { version.includes(id.advanced(by: 1)) }

    /// The length of a text or list container in `unit`.
    /// - Complexity: O(n) for n runs in the container's history.
    public func length(of c: ContainerID, unit: TextUnit = .unicodeScalar) -> Int {
        if c.type == .movableList { return movableLists[c]?.count ?? 0 }
        guard let h = index.sequences[c] else { return 0 }
        var total = 0
        h.forEachRun(ends) { p, offset, count, visible in
            guard visible, p.elem.kind.rawValue < 2 else { return }
            total += h.subRun(p.elem, offset, count).summary.measure(unit)
        }
        return total
    }

    /// The plain text of a text container.
    /// - Complexity: O(n) for n runs of history, plus one memory copy per visible run.
    public func text(_ c: ContainerID) -> String { index.sequences[c]?.text(ends) ?? "" }

    /// The rich text as inserts with attributes (null-valued keys omitted).
    /// - Complexity: O(n + M) for n runs and M marks.
    public func toDelta(_ c: ContainerID) -> [TextDelta] {
        guard let h = index.sequences[c] else { return [] }
        var out: [TextDelta] = []
        var active = Set<OpID>()
        var attrs: [String: CRDTValue] = [:]
        var pending = String.UnicodeScalarView()
        var pendingAttrs: [String: CRDTValue] = [:]
        h.forEachRun(ends) { p, offset, count, visible in
            let e = p.elem
            switch e.kind {
            case .markStart, .markEnd:
                let mark = e.kind == .markStart ? e.id : e.id.advanced(by: -1)
                guard hasMark(mark) else { return }
                if e.kind == .markStart { active.insert(mark) } else { active.remove(mark) }
                attrs = MarkInfo.winners(active, h.marks).compactMapValues { $0.value == .null ? nil : $0.value }
            case .text where visible:
                if attrs != pendingAttrs {
                    if !pending.isEmpty { out.append(.insert(String(pending), attributes: pendingAttrs)) }
                    pending = String.UnicodeScalarView()
                    pendingAttrs = attrs
                }
                let start = Int(e.content + offset)
                pending.append(contentsOf: h.scalars[start..<start + Int(count)])
            default:
                break
            }
        }
        if !pending.isEmpty { out.append(.insert(String(pending), attributes: pendingAttrs)) }
        return out
    }

    /// The values of a list container.
    /// - Complexity: O(n + k) for n runs and k values.
    public func list(_ c: ContainerID) -> [CRDTValue] {
        if c.type == .movableList { return movableLists[c] ?? [] }
        guard let h = index.sequences[c] else { return [] }
        var out: [CRDTValue] = []
        h.forEachRun(ends) { p, offset, count, visible in
            guard visible, p.elem.kind == .value else { return }
            let start = Int(p.elem.content + offset)
            out.append(contentsOf: h.values[start..<start + Int(count)])
        }
        return out
    }

    /// The position of a stable cursor at this version, in `unit`. A cursor whose anchor did not
    /// exist yet throws ``CRDTError/unknownCursorAnchor(container:anchor:)``.
    /// - Complexity: O(n) for n runs.
    public func resolve(_ cursor: Cursor, unit: TextUnit = .unicodeScalar) throws(CRDTError) -> Int {
        let c = cursor.container
        guard let anchor = cursor.anchor else { return cursor.side == .before ? 0 : length(of: c, unit: unit) }
        var before = 0
        var found = false
        if let h = index.sequences[c] {
            h.forEachRun(ends) { p, offset, count, visible in
                guard !found else { return }
                let run = h.subRun(p.elem, offset, count)
                if run.contains(anchor) {
                    found = true
                    let k = anchor.counter - run.counter + (cursor.side == .after && visible ? 1 : 0)
                    if visible, run.kind.rawValue < 2 { before += h.subRun(run, 0, k).summary.measure(unit) }
                } else if visible, run.kind.rawValue < 2 {
                    before += run.summary.measure(unit)
                }
            }
        }
        guard found else { throw .unknownCursorAnchor(container: c, anchor: anchor) }
        return before
    }

    /// The value of a counter at this version.
    /// - Complexity: O(1).
    public func counterValue(_ c: ContainerID) -> Double { counters[c] ?? 0 }

    // MARK: maps and trees

    /// The entries of a map container (deleted keys omitted).
    /// - Complexity: O(k) for k keys.
    public func map(_ c: ContainerID) -> [String: CRDTValue] { (maps[c] ?? [:]).compactMapValues { $0.value } }

    /// One map value.
    /// - Complexity: O(1).
    public func get(_ key: String, in c: ContainerID) -> CRDTValue? { maps[c]?[key]?.value }

    /// The alive children of `parent` (nil: the root level), in sibling order.
    /// - Complexity: O(k) for k children.
    public func children(of parent: TreeID?, in c: ContainerID) -> [TreeID] {
        guard let tree = trees[c] else { return [] }
        if let parent, !tree.isAlive(parent) { return [] }
        return tree.children[parent.map { .node($0) } ?? .root] ?? []
    }

    /// Whether the node exists at this version and is alive.
    /// - Complexity: O(depth).
    public func isAlive(_ node: TreeID, in c: ContainerID) -> Bool { trees[c]?.isAlive(node) ?? false }

    /// The parent of an alive node (nil at the root level); throws for unknown or deleted nodes.
    /// - Complexity: O(depth).
    public func parent(of node: TreeID, in c: ContainerID) throws(CRDTError) -> TreeID? {
        guard let tree = trees[c], tree.isAlive(node), let p = tree.nodes[node] else { throw .unknownTreeNode(container: c, node: node) }
        if case .node(let n) = p.parent { return n }
        return nil
    }
}

extension MarkInfo {
    /// The winning mark per key among `active` marks (nulls included), by (Lamport, peer).
    /// - Complexity: O(a) for a active marks.
    static func winners(_ active: Set<OpID>, _ table: [OpID: MarkInfo], where included: (OpID) -> Bool = { _ in true }) -> [String: MarkInfo] {
        var out: [String: MarkInfo] = [:]
        for id in active where included(id) {
            guard let m = table[id] else { continue }
            if let w = out[m.key], w.beats(m) { continue }
            out[m.key] = m
        }
        return out
    }
}

extension CRDTDocument {
    /// A read-only view of the document at `frontiers` (Loro's `checkout`, without detaching:
    /// see ``DocumentView``). Throws when a frontier is not in the committed history, and for a
    /// document whose history starts at a shallow root (``VersionError/historyTrimmed(root:)``).
    /// - Complexity: O(c · d) for the causal walk, plus O(m + t) for map writes and tree
    ///   operations, plus O(ops + runs) the first time after a change (the history index is
    ///   cached until the document changes).
    public func checkout(_ frontiers: Frontiers) throws(VersionError) -> DocumentView {
        if let full = historyDocument { return try full.checkout(frontiers) }
        if let root = s.shallowRoot { throw .historyTrimmed(root: root.frontiers) }
        let vv = try versionVector(of: frontiers)
        return DocumentView(index: historyIndex(), version: vv, frontiers: s.frontiers(of: vv))
    }
}
