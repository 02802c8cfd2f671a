import QuireAlgorithms

/// A version-scoped view of one text or list container, as Loro's tracker keeps it: every element
/// the history knows, in document (Fugue) order, each with a status at the tracker's current
/// version — *future* (not inserted yet at that version) and a *delete count* (how many deletes
/// of that version removed it). Loro's JSON operations are position-based, so converting them
/// from and to our ID-based operations needs the positions at each change's dependencies:
/// this view answers "which element is at active position p" and "at which position is element
/// x", in O(log n), and moves between versions by retreating and forwarding operations.
///
/// Positions count *active* atoms: elements present and not deleted; a text's mark anchors are
/// atoms like characters (Loro's entity index).
///
/// It reuses `FugueSequence`: each atom is a `.value` element whose `deleted` flag means "not
/// active" and whose `trackerStatus` holds the future bit and the delete count, so Fugue
/// integration, splitting and the summed B-tree come for free.
final class VersionTracker {
    static let futureBit: UInt16 = 0x8000
    static let countMask: UInt16 = 0x7FFF

    let sequence = FugueSequence()
    /// The version whose state the statuses describe.
    var version: VersionVector
    /// The frontiers of `version` (sorted), for the no-checkout fast path.
    var frontiers: [OpID]
    /// Spans of elements loaded as deleted from a document whose delete counts are not known
    /// exactly (assumed 1); nil once counts are exact. See ``makeCountsExact(historyDeletes:)``.
    private(set) var approximateTombstones: [IDSpan]?

    /// A tracker over the elements of a document's sequence.
    /// - Parameters:
    ///   - elements: the document's sequence (nil: an empty container).
    ///   - allFuture: true to start at the empty version (every element future, counts exact);
    ///     false to start at the document's version (deleted elements counted once, approximately).
    ///   - present: with `allFuture`, the elements this version includes start active instead:
    ///     a shallow document's root, whose operations are not in the history to replay.
    ///   - removed: a movable list's items that deletes and moves removed (its sequence's
    ///     visibility is the elements', not Loro's positions); nil for texts and lists.
    /// - Complexity: O(n log n) for n runs (O(atoms) for a movable list).
    init(elements: FugueSequence?, allFuture: Bool, present: VersionVector? = nil, removed: Set<OpID>? = nil, version: VersionVector, frontiers: [OpID]) {
        self.version = version
        self.frontiers = frontiers.sorted()
        var runs: [Elem] = []
        var tombstones: [IDSpan] = []
        elements?.forEachElem { whole in
            var e = whole
            if allFuture, let present {
                // Active up to the root's end for this peer, future after it.
                let end = present[e.peer]
                if end > e.counter && end < e.counter + e.length {
                    let k = end - e.counter
                    runs.append(Self.atomRun(peer: e.peer, counter: e.counter, length: k, left: e.originLeft, right: e.originRight, status: 0))
                    e = Elem(peer: e.peer, counter: end, lamport: e.lamport + Lamport(k), length: e.length - k, originLeft: OptID(peer: e.peer, counter: end - 1),
                             originRight: e.originRight, content: 0, utf16: 0, utf8: 0, kind: e.kind, deleted: e.deleted)
                } else if end >= e.counter + e.length {
                    runs.append(Self.atomRun(peer: e.peer, counter: e.counter, length: e.length, left: e.originLeft, right: e.originRight, status: 0))
                    return
                }
            }
            if let removed, !allFuture {
                // Runs of atoms with one status each.
                var start: Int32 = 0
                while start < e.length {
                    let gone = removed.contains(e.id.advanced(by: start))
                    var end = start + 1
                    while end < e.length, removed.contains(e.id.advanced(by: end)) == gone { end += 1 }
                    let left = start == 0 ? e.originLeft : OptID(peer: e.peer, counter: e.counter + start - 1)
                    runs.append(Self.atomRun(peer: e.peer, counter: e.counter + start, length: end - start, left: left, right: e.originRight, status: gone ? 1 : 0))
                    if gone { tombstones.append(IDSpan(peer: e.peer, start: e.counter + start, end: e.counter + end)) }
                    start = end
                }
                return
            }
            let status: UInt16 = allFuture ? Self.futureBit : (e.deleted ? 1 : 0)
            if e.deleted && !allFuture { tombstones.append(IDSpan(peer: e.peer, start: e.counter, end: e.counter + e.length)) }
            runs.append(Self.atomRun(peer: e.peer, counter: e.counter, length: e.length, left: e.originLeft, right: e.originRight, status: status))
        }
        if !runs.isEmpty { _ = sequence.build(runs) }
        approximateTombstones = allFuture || tombstones.isEmpty ? nil : tombstones
    }

    /// A run of atoms as the tracker stores it: content mirrors the counter so that consecutive
    /// atoms merge into one run.
    static func atomRun(peer: PeerID, counter: OpCounter, length: Int32, left: OptID, right: OptID, status: UInt16) -> Elem {
        Elem(peer: peer, counter: counter, lamport: Lamport(counter), length: length, originLeft: left, originRight: right,
             content: counter, utf16: length, utf8: length, kind: .value, deleted: status != 0, trackerStatus: status)
    }

    /// The number of active atoms.
    var activeCount: Int { sequence.summary.count }

    // MARK: positions

    /// The origins Loro gives an insert at active position `pos`: the left origin is the active
    /// atom at `pos - 1`, the right origin the first atom after it that is not in the future
    /// (deleted or not). Nil when `pos` is beyond the active count.
    /// - Complexity: O(log n + f) for f future elements right after the left origin.
    func origins(at pos: Int) -> (left: OptID, right: OptID)? {
        guard pos >= 0, pos <= activeCount else { return nil }
        var left: OpID? = nil
        var next: (SeqNode, Int)?
        if pos > 0 {
            guard let cur = sequence.locateAfter(pos, unit: .unicodeScalar) else { return nil }
            let e = cur.leaf.elems[cur.index]
            left = OpID(peer: e.peer, counter: e.counter + cur.offset - 1)
            if cur.offset < e.length { return (OptID(left), OptID(peer: e.peer, counter: e.counter + cur.offset)) }
            next = sequence.after(cur.leaf, cur.index)
        } else {
            next = sequence.first()
        }
        while let (leaf, index) = next {
            let e = leaf.elems[index]
            if e.trackerStatus & Self.futureBit == 0 { return (OptID(left), OptID(e.id)) }
            next = sequence.after(leaf, index)
        }
        return (OptID(left), .none)
    }

    /// The number of active atoms before `id` (its position when active); nil when unknown.
    /// - Complexity: O(log n · fanout).
    func position(of id: OpID) -> Int? {
        guard let c = sequence.cursor(of: id) else { return nil }
        return sequence.prefix(of: c).count
    }

    /// The number of active atoms up to and including `id`: the position right after it.
    /// - Complexity: O(log n · fanout).
    func position(after id: OpID) -> Int? {
        guard let c = sequence.cursor(of: id) else { return nil }
        return sequence.prefix(of: c).count + (c.leaf.elems[c.index].visible ? 1 : 0)
    }

    /// Whether `id` is known and active.
    /// - Complexity: O(log r + L).
    func isActive(_ id: OpID) -> Bool {
        guard let c = sequence.cursor(of: id) else { return false }
        return c.leaf.elems[c.index].visible
    }

    /// The IDs of the active atoms at positions `pos ..< pos + count`, as ascending ID runs in
    /// position order; nil when the range goes beyond the active count.
    /// - Complexity: O(log n + k) for k runs.
    func activeRuns(from pos: Int, count: Int) -> [IDSpan]? {
        guard pos >= 0, count >= 0, pos + count <= activeCount else { return nil }
        guard count > 0, let start = sequence.locateAt(pos, unit: .unicodeScalar) else { return [] }
        var out: [IDSpan] = []
        var remaining = count
        var offset = start.offset
        var it: (SeqNode, Int)? = (start.leaf, start.index)
        while remaining > 0, let (leaf, index) = it {
            let e = leaf.elems[index]
            if e.visible {
                let take = min(Int32(remaining), e.length - offset)
                let s = e.counter + offset
                if var last = out.last, last.peer == e.peer, last.end == s {
                    last.end += take
                    out[out.count - 1] = last
                } else {
                    out.append(IDSpan(peer: e.peer, start: s, end: s + take))
                }
                remaining -= Int(take)
            }
            offset = 0
            it = sequence.after(leaf, index)
        }
        return out
    }

    // MARK: changing statuses

    /// Integrates a new run (an insert, or a mark anchor) with its origins, active.
    /// - Complexity: O(log n) plus O(k · log n) for k concurrent elements between the origins.
    func insert(peer: PeerID, counter: OpCounter, length: Int32, left: OptID, right: OptID) {
        sequence.integrate(Self.atomRun(peer: peer, counter: counter, length: length, left: left, right: right, status: 0), wantPosition: false)
    }

    /// Inserts a run (an insert, or a mark anchor) at active position `pos` with the origins
    /// Loro gives it, and returns them; nil when `pos` is beyond the active count. When the left
    /// origin is directly followed by an element that exists at this version (always so in a
    /// history without concurrency) the run goes right there; otherwise Fugue integration places
    /// it among the future elements.
    /// - Complexity: O(log n + L), plus the integration's cost in the concurrent case.
    func insert(at pos: Int, peer: PeerID, counter: OpCounter, length: Int32) -> (left: OptID, right: OptID)? {
        guard pos >= 0, pos <= activeCount else { return nil }
        func run(_ left: OptID, _ right: OptID) -> Elem { Self.atomRun(peer: peer, counter: counter, length: length, left: left, right: right, status: 0) }
        func exists(_ slot: (SeqNode, Int)?) -> Bool { slot.map { $0.0.elems[$0.1].trackerStatus & Self.futureBit == 0 } ?? true }
        if pos > 0 {
            guard let cur = sequence.locateAfter(pos, unit: .unicodeScalar) else { return nil }
            let e = cur.leaf.elems[cur.index]
            let left = OptID(peer: e.peer, counter: e.counter + cur.offset - 1)
            if cur.offset < e.length {
                // Inside a run: the next atom of the run is the right origin; the new run goes between.
                let right = OpID(peer: e.peer, counter: e.counter + cur.offset)
                if let i = sequence.split(cur.leaf, cur.index, at: cur.offset) {
                    sequence.insertElem(run(left, OptID(right)), leaf: cur.leaf, at: i)
                } else if let c = sequence.cursor(of: right) {
                    sequence.insertElem(run(left, OptID(right)), leaf: c.leaf, at: c.index)
                }
                return (left, OptID(right))
            }
            let next = sequence.after(cur.leaf, cur.index)
            if exists(next) {
                let right = next.map { OptID($0.0.elems[$0.1].id) } ?? .none
                sequence.insertElem(run(left, right), leaf: cur.leaf, at: cur.index + 1)
                return (left, right)
            }
        } else {
            let first = sequence.first()
            if exists(first) {
                let right = first.map { OptID($0.0.elems[$0.1].id) } ?? .none
                sequence.insertElem(run(.none, right), leaf: sequence.firstLeaf, at: 0)
                return (.none, right)
            }
        }
        guard let (left, right) = origins(at: pos) else { return nil }
        insert(peer: peer, counter: counter, length: length, left: left, right: right)
        return (left, right)
    }

    /// Sets or clears the future flag of the atoms of `span` and adds `deleteDelta` to their
    /// delete counts. Atoms the tracker does not know are skipped.
    /// - Complexity: O(k · (L + log n)) for k runs touched.
    func update(_ span: IDSpan, future: Bool?, deleteDelta: Int) {
        var c = span.start
        while c < span.end {
            let id = OpID(peer: span.peer, counter: c)
            guard var cur = sequence.splitBefore(id) else {
                // Unknown here: skip to the next known counter, if any.
                guard let end = sequence.knownEnd(from: id) else { c += 1; continue }
                c = end
                continue
            }
            let take = min(span.end - c, cur.leaf.elems[cur.index].length)
            if take < cur.leaf.elems[cur.index].length, sequence.split(cur.leaf, cur.index, at: take) == nil {
                guard let again = sequence.cursor(of: id) else { return }
                cur = again
            }
            var e = cur.leaf.elems[cur.index]
            let before = e.summary
            var status = e.trackerStatus
            if let future { status = future ? status | Self.futureBit : status & ~Self.futureBit }
            let count = max(0, min(Int(Self.countMask), Int(status & Self.countMask) + deleteDelta))
            status = (status & Self.futureBit) | UInt16(count)
            e.trackerStatus = status
            e.deleted = status != 0
            cur.leaf.elems[cur.index] = e
            sequence.propagate(cur.leaf, add: e.summary, subtract: before)
            c += take
        }
    }

    /// Replaces the approximate delete counts of tombstones loaded from a document with exact
    /// ones: +1 for every delete in the document's history, then -1 for each loaded tombstone.
    /// - Complexity: O((h + t) · log n) for h history delete targets and t tombstone runs.
    func makeCountsExact(historyDeletes: [IDSpan]) {
        guard let tombstones = approximateTombstones else { return }
        for span in historyDeletes { update(span, future: nil, deleteDelta: 1) }
        for span in tombstones { update(span, future: nil, deleteDelta: -1) }
        approximateTombstones = nil
    }
}

/// The trackers one change uses: each is moved to the change's dependencies the first time the
/// change uses it, and all of them end at the dependencies plus the change.
struct ChangeTrackers {
    let peer: PeerID
    /// The change's dependencies, sorted.
    let deps: [OpID]
    private(set) var used: [(ContainerID, VersionTracker)] = []
    /// The version vector of `deps`, once computed.
    var target: VersionVector?

    init(peer: PeerID, deps: [OpID]) {
        self.peer = peer
        self.deps = deps.sorted()
    }

    /// The tracker of `c` when the change already uses it.
    func tracker(for c: ContainerID) -> VersionTracker? { used.first { $0.0 == c }?.1 }

    /// Records that the change uses `t`; true when it must first be moved to the dependencies.
    mutating func use(_ t: VersionTracker, for c: ContainerID) -> Bool {
        used.append((c, t))
        return t.frontiers != deps
    }

    /// After the change (ending at counter `end`): every tracker it used is at its dependencies plus the change.
    func finish(end: OpCounter) {
        for (_, t) in used {
            var vv = target ?? t.version
            vv.extend(peer: peer, to: end)
            t.version = vv
            t.frontiers = [OpID(peer: peer, counter: end - 1)]
        }
    }
}

/// An operation of a sequence container as the tracker replays it: either it inserts its own
/// atoms (text, list values, the two mark anchors, a movable list's items) or it deletes the
/// targets of its spans; a move inserts its item and deletes the item it came from.
struct TrackedOp {
    var counter: OpCounter
    var length: Int32
    /// nil: the op inserts the elements `counter ..< counter + length`.
    var deletes: [DelSpan]?
    /// A move's source item.
    var source: OpID? = nil

    /// The targets (ascending ID spans) of atoms `from ..< to` of a delete op.
    /// - Complexity: O(spans).
    func deleteTargets(atoms from: OpCounter, _ to: OpCounter) -> [IDSpan] {
        guard let deletes else { return [] }
        var out: [IDSpan] = []
        var atom = counter
        for d in deletes {
            let n = d.count
            let a = max(from, atom), b = min(to, atom + n)
            if a < b {
                let i = a - atom, j = b - atom
                if d.length > 0 {
                    out.append(IDSpan(peer: d.peer, start: d.start + i, end: d.start + j))
                } else {
                    out.append(IDSpan(peer: d.peer, start: d.start - j + 1, end: d.start - i + 1))
                }
            }
            atom += n
            if atom >= to { break }
        }
        return out
    }

    /// The sequence op of a stored operation (nil for maps and trees).
    init?(_ op: Op) {
        counter = op.counter
        switch op.content {
        case .insert(_, _, _, let n): length = n
        case .insertText(_, _, let s): length = Int32(s.count)
        case .insertValues(_, _, let v): length = Int32(v.count)
        case .mark: length = 2
        case .delete(let spans): length = op.length; deletes = spans
        case .move(_, let from, _, _): length = 1; source = from
        case .mapSet, .tree, .setValue, .counter: return nil
        }
    }
}

/// Sequence operations by container and peer, sorted by counter, so that a tracker can replay
/// exactly the operations of its container inside a span of IDs.
struct TrackedOpIndex {
    var ops: [ContainerID: [PeerID: [TrackedOp]]] = [:]

    /// Appends an operation (per container and peer, counters must come in increasing order).
    /// - Complexity: O(1) amortized.
    mutating func append(_ op: TrackedOp, peer: PeerID, container: ContainerID) {
        ops[container, default: [:]][peer, default: []].append(op)
    }

    /// Every sequence operation of a history.
    /// - Complexity: O(total ops).
    init(history: [PeerID: [Change]]) {
        for (peer, list) in history {
            for change in list {
                for op in change.ops where op.container.type.isSequence {
                    if let t = TrackedOp(op) { append(t, peer: peer, container: op.container) }
                }
            }
        }
    }

    init() {}

    /// Calls `body` with each op of `container` overlapping `span` and the overlapping atoms.
    /// - Complexity: O(log m + k) for m ops of the peer in the container and k visited.
    func forEach(in container: ContainerID, _ span: IDSpan, _ body: (TrackedOp, OpCounter, OpCounter) -> Void) {
        guard let list = ops[container]?[span.peer] else { return }
        var lo = list.partitioningIndex { $0.counter + $0.length > span.start }
        while lo < list.count, list[lo].counter < span.end {
            let op = list[lo]
            body(op, max(op.counter, span.start), min(op.counter + op.length, span.end))
            lo += 1
        }
    }

    /// Every delete target of the container's ops.
    /// - Complexity: O(ops of the container).
    func allDeleteTargets(in container: ContainerID) -> [IDSpan] {
        var out: [IDSpan] = []
        for (_, list) in ops[container] ?? [:] {
            for op in list where op.deletes != nil { out += op.deleteTargets(atoms: op.counter, op.counter + op.length) }
            for op in list { if let s = op.source { out.append(IDSpan(peer: s.peer, start: s.counter, end: s.counter + 1)) } }
        }
        return out
    }
}

extension VersionTracker {
    /// Moves the statuses to `target` by retreating the operations of `container` in
    /// `version − target` and forwarding those in `target − version`, found in `indexes`.
    /// - Complexity: O(k · (L + log n)) for k operations replayed.
    func checkout(to target: VersionVector, frontiers targetFrontiers: [OpID], container: ContainerID, indexes: [TrackedOpIndex]) {
        for span in version.spans(notIn: target) { replay(span, container: container, indexes: indexes, forward: false) }
        for span in target.spans(notIn: version) { replay(span, container: container, indexes: indexes, forward: true) }
        version = target
        frontiers = targetFrontiers.sorted()
    }

    private func replay(_ span: IDSpan, container: ContainerID, indexes: [TrackedOpIndex], forward: Bool) {
        for index in indexes {
            index.forEach(in: container, span) { op, a, b in
                if op.deletes == nil {
                    update(IDSpan(peer: span.peer, start: a, end: b), future: !forward, deleteDelta: 0)
                    if let s = op.source { update(IDSpan(peer: s.peer, start: s.counter, end: s.counter + 1), future: nil, deleteDelta: forward ? 1 : -1) }
                } else {
                    for target in op.deleteTargets(atoms: a, b) { update(target, future: nil, deleteDelta: forward ? 1 : -1) }
                }
            }
        }
    }
}

/// The causal graph of a history plus changes being converted, for computing the version
/// vector of a change's dependencies.
struct CausalGraph {
    /// Per peer, the changes' (first counter, end, deps), sorted by counter.
    private var changes: [PeerID: [(start: OpCounter, end: OpCounter, deps: [OpID])]] = [:]
    private var cache: [[OpID]: VersionVector] = [:]
    /// A shallow document's root: its operations are not in `changes`, but a version that
    /// includes the root's frontiers includes all of them.
    private let root: ShallowRoot?

    /// - Complexity: O(c) for c changes.
    init(history: [PeerID: [Change]], root: ShallowRoot? = nil) {
        self.root = root
        for (peer, list) in history { changes[peer] = list.map { ($0.counter, $0.end, $0.deps) } }
    }

    /// Records a change (after the history's changes of its peer).
    mutating func add(peer: PeerID, start: OpCounter, end: OpCounter, deps: [OpID]) {
        changes[peer, default: []].append((start, end, deps))
    }

    /// The version vector of everything `frontiers` causally include.
    /// - Complexity: O(c) for the c changes in their causal past not yet cached (each visited once).
    mutating func versionVector(of frontiers: [OpID]) -> VersionVector {
        let key = frontiers.sorted()
        if let known = cache[key] { return known }
        var vv = VersionVector()
        var stack = key
        while let id = stack.popLast() {
            let known = vv[id.peer]
            if id.counter < known { continue }
            vv.extend(peer: id.peer, to: id.counter + 1)
            guard let list = changes[id.peer] else { continue }
            // The changes of this peer holding counters known ..< id.counter + 1.
            var i = min(list.partitioningIndex { $0.end > id.counter }, list.count - 1)
            while i >= 0, list[i].end > known {
                stack.append(contentsOf: list[i].deps)
                i -= 1
            }
        }
        if let root, root.frontiers.ids.allSatisfy({ vv.includes($0) }) { vv.merge(root.version) }
        cache[key] = vv
        return vv
    }

    /// The frontiers of a version: the last ID of each peer that no other included ID depends on.
    /// - Complexity: O(p · c) for p peers in the version.
    mutating func frontiers(of vv: VersionVector) -> Frontiers {
        let candidates = vv.ends.map { OpID(peer: $0.key, counter: $0.value - 1) }
        var out: [OpID] = []
        for x in candidates {
            let dominated = candidates.contains { y in
                guard y != x else { return false }
                return versionVector(of: [y]).includes(x)
            }
            if !dominated { out.append(x) }
        }
        return Frontiers(out)
    }
}
