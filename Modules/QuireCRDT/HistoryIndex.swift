import QuireAlgorithms
import Synchronization

/// What one delete operation removed from one peer's elements: the targets `lo ..< hi` of
/// `peer`. The target `lo` was removed by the delete atom `deleter`, and each next target by the
/// atom `step` later (+1 for forward deletes, -1 for Backspace order, as Loro's signed spans).
struct Deletion: Equatable {
    var peer: PeerID
    var lo: OpCounter
    var hi: OpCounter
    var deleter: OpID
    var step: Int32

    /// The delete atom that removed `counter` (which must lie in `lo ..< hi`).
    /// - Complexity: O(1).
    @inline(__always) func deleter(of counter: OpCounter) -> OpID {
        OpID(peer: deleter.peer, counter: deleter.counter + step * (counter - lo))
    }

    /// The targets removed by the deleting peer's atoms `a ..< b`, if any.
    /// - Complexity: O(1).
    func clipped(toDeleters a: OpCounter, _ b: OpCounter) -> Deletion? {
        let d0 = deleter.counter
        // Solve a <= d0 + step·(t - lo) < b for t.
        let from = step > 0 ? lo + (a - d0) : lo + (d0 - b) + 1
        let to = step > 0 ? lo + (b - d0) : lo + (d0 - a) + 1
        let l = max(lo, from), h = min(hi, to)
        guard l < h else { return nil }
        return Deletion(peer: peer, lo: l, hi: h, deleter: deleter(of: l), step: step)
    }
}

extension Op {
    /// Calls `body` with each contiguous range this op deletes (nothing for other ops); `peer`
    /// is the op's author.
    /// - Complexity: O(spans).
    func forEachDeletion(by peer: PeerID, _ body: (Deletion) -> Void) {
        guard case .delete(let spans) = content else { return }
        var atom = counter
        for s in spans {
            let n = s.count
            if s.length > 0 {
                body(Deletion(peer: s.peer, lo: s.start, hi: s.start + n, deleter: OpID(peer: peer, counter: atom), step: 1))
            } else {
                // start, start-1, … were removed by atom, atom+1, …: the lowest target by the last atom.
                body(Deletion(peer: s.peer, lo: s.start - n + 1, hi: s.start + 1, deleter: OpID(peer: peer, counter: atom + n - 1), step: -1))
            }
            atom += n
        }
    }
}

/// A delete atom series seen from a segment: the target at the segment's (or piece's) first
/// counter was removed by `at`, the next ones by `at + step`, … (`slot`: the deleting peer).
struct DeleterRef: Sendable {
    var slot: Int32
    var at: OpCounter
    var step: Int32
}

/// Every deletion of a history, per target peer as sorted, disjoint segments; each segment lists
/// the deletions covering it (more than one only when peers deleted the same text concurrently).
struct DeletionIndex {
    struct Segment {
        var lo: OpCounter
        var hi: OpCounter
        /// `deleters[first ..< first + count]`, rebased at `lo`.
        var first: Int32
        var count: Int32
    }

    var segments: [PeerID: [Segment]] = [:]
    var deleters: [DeleterRef] = []

    /// Builds the segments; `slot` maps a deleting peer to its slot.
    /// - Complexity: O(d log d) for d deletions.
    init(_ all: [Deletion], slot: (PeerID) -> Int32) {
        var byPeer: [PeerID: [Deletion]] = [:]
        for d in all { byPeer[d.peer, default: []].append(d) }
        for (peer, list) in byPeer {
            let sorted = list.sorted { $0.lo < $1.lo }
            var out: [Segment] = []
            var active: [Deletion] = []
            var i = 0
            var point: OpCounter = 0
            // Sweep over the boundaries; most deletions do not overlap, so `active` holds one.
            while i < sorted.count || !active.isEmpty {
                if active.isEmpty { point = sorted[i].lo }
                while i < sorted.count, sorted[i].lo <= point { active.append(sorted[i]); i += 1 }
                var next = active.reduce(OpCounter.max) { min($0, $1.hi) }
                if i < sorted.count { next = min(next, sorted[i].lo) }
                let first = Int32(deleters.count)
                for d in active {
                    deleters.append(DeleterRef(slot: slot(d.deleter.peer), at: d.deleter(of: point).counter, step: d.step))
                }
                out.append(Segment(lo: point, hi: next, first: first, count: Int32(active.count)))
                point = next
                active.removeAll { $0.hi <= point }
            }
            segments[peer] = out
        }
    }

    /// The index of the first segment of `peer` ending after `counter`.
    /// - Complexity: O(log s).
    static func firstSegment(_ segs: [Segment], after counter: OpCounter) -> Int {
        segs.partitioningIndex { $0.hi > counter }
    }
}

/// A run of a sequence in document order with the delete atoms that removed its elements,
/// so that its state at any version is a few comparisons.
struct HistoryPiece: Sendable {
    /// The run (tombstones and mark anchors included), split where its deleters change.
    var elem: Elem
    /// The slot of `elem.peer` in the index's peer table.
    var slot: Int32
    /// The deleters of the run, rebased at its first element, in the sequence's `deleters`.
    var firstDeleter: Int32
    var deleterCount: Int32
}

/// How a piece looks at one version: atoms `0 ..< deletedEnd` are tombstones, `deletedEnd ..<
/// visibleEnd` are visible, `visibleEnd ..< present` are tombstones again, the rest does not
/// exist yet.
struct PieceState: Equatable {
    var deletedEnd: Int32
    var visibleEnd: Int32
    var present: Int32
}

/// One text or list container's full history as pieces in document order.
struct SequenceHistory: Sendable {
    var pieces: [HistoryPiece] = []
    var deleters: [DeleterRef] = []
    var scalars: [Unicode.Scalar] = []
    var values: [CRDTValue] = []
    var marks: [OpID: MarkInfo] = [:]
    /// The text arena as UTF-8 and where each scalar starts in it (one more entry at the end),
    /// so that a version's text is a few memory copies instead of a loop over scalars.
    var utf8: [UInt8] = []
    var utf8Offsets: [Int32] = []

    init(scalars: [Unicode.Scalar], values: [CRDTValue], marks: [OpID: MarkInfo]) {
        self.scalars = scalars
        self.values = values
        self.marks = marks
        guard !scalars.isEmpty else { return }
        utf8Offsets.reserveCapacity(scalars.count + 1)
        for sc in scalars {
            utf8Offsets.append(Int32(utf8.count))
            utf8.append(contentsOf: UTF8.encode(sc)!)
        }
        utf8Offsets.append(Int32(utf8.count))
    }

    /// The UTF-8 bytes of the visible text at the version `ends`.
    /// - Complexity: O(n) for n pieces, plus one copy per visible run.
    func text(_ ends: [OpCounter]) -> String {
        var runs: [(Int, Int)] = []
        var total = 0
        // A plain loop, not `forEachRun`: this runs once per checkout and closures are slow in debug builds.
        pieces.withUnsafeBufferPointer { ps in
            deleters.withUnsafeBufferPointer { ds in
                ends.withUnsafeBufferPointer { es in
                    utf8Offsets.withUnsafeBufferPointer { offsets in
                        for p in ps where p.elem.kind == .text {
                            let st = SequenceHistory.state(p, ds, es)
                            guard st.visibleEnd > st.deletedEnd else { continue }
                            let from = Int(offsets[Int(p.elem.content + st.deletedEnd)])
                            let to = Int(offsets[Int(p.elem.content + st.visibleEnd)])
                            if let last = runs.last, last.1 == from { runs[runs.count - 1].1 = to } else { runs.append((from, to)) }
                            total += to - from
                        }
                    }
                }
            }
        }
        guard total > 0 else { return "" }
        return utf8.withUnsafeBufferPointer { bytes in
            String(unsafeUninitializedCapacity: total) { out in
                var i = 0
                for (from, to) in runs {
                    (out.baseAddress! + i).initialize(from: bytes.baseAddress! + from, count: to - from)
                    i += to - from
                }
                return i
            }
        }
    }

    /// The atoms `offset ..< offset + count` of `e` as a run of their own.
    /// - Complexity: O(count) for non-ASCII text, O(1) otherwise.
    func subRun(_ e: Elem, _ offset: Int32, _ count: Int32) -> Elem {
        if offset == 0 && count == e.length { return e }
        var r = e
        r.counter += offset
        r.lamport += Lamport(offset)
        r.content += offset
        r.length = count
        if offset > 0 { r.originLeft = OptID(peer: e.peer, counter: e.counter + offset - 1) }
        if e.kind == .text {
            let range = Int(r.content)..<Int(r.content + count)
            r.utf16 = e.utf16 == e.length ? count : scalars[range].reduce(0) { $0 + ($1.value > 0xFFFF ? 2 : 1) }
            r.utf8 = e.utf8 == e.length ? count : scalars[range].reduce(0) { $0 + Int32(UTF8.width($1)) }
        } else if e.kind == .value {
            r.utf16 = count
            r.utf8 = count
        }
        return r
    }

    /// The state of `p` at the version whose end counters per slot are `ends`.
    /// - Complexity: O(deleters of the piece), one in the usual case.
    @inline(__always)
    static func state(_ p: HistoryPiece, _ deleters: UnsafeBufferPointer<DeleterRef>, _ ends: UnsafeBufferPointer<OpCounter>) -> PieceState {
        // Plain comparisons instead of min/max: this is the inner loop of every checkout and the
        // generic functions are calls in debug builds.
        let length = p.elem.length
        var present = ends[Int(p.slot)] &- p.elem.counter
        if present <= 0 { return PieceState(deletedEnd: 0, visibleEnd: 0, present: 0) }
        if present > length { present = length }
        // Forward deleters remove a prefix by that version, Backspace-order ones a suffix.
        var prefix: Int32 = 0, suffix = length
        var k = Int(p.firstDeleter)
        let end = k + Int(p.deleterCount)
        while k < end {
            let d = deleters[k]
            let v = ends[Int(d.slot)]
            if d.step > 0 {
                let gone = v &- d.at
                if gone > prefix { prefix = gone > length ? length : gone }
            } else {
                let kept = d.at &- v &+ 1
                if kept < suffix { suffix = kept < 0 ? 0 : kept }
            }
            k += 1
        }
        let deletedEnd = prefix < present ? prefix : present
        let visibleEnd = suffix < present ? suffix : present
        return PieceState(deletedEnd: deletedEnd, visibleEnd: visibleEnd > deletedEnd ? visibleEnd : deletedEnd, present: present)
    }

    /// Calls `body(piece, offset, count, visible)` for every run that exists at the version
    /// `ends`, in document order (tombstones and anchors included, future elements skipped).
    /// - Complexity: O(pieces).
    func forEachRun(_ ends: [OpCounter], _ body: (HistoryPiece, Int32, Int32, Bool) -> Void) {
        pieces.withUnsafeBufferPointer { ps in
            deleters.withUnsafeBufferPointer { ds in
                ends.withUnsafeBufferPointer { es in
                    for p in ps {
                        let st = SequenceHistory.state(p, ds, es)
                        if st.present == 0 { continue }
                        if st.deletedEnd > 0 { body(p, 0, st.deletedEnd, false) }
                        if st.visibleEnd > st.deletedEnd { body(p, st.deletedEnd, st.visibleEnd - st.deletedEnd, true) }
                        if st.present > st.visibleEnd { body(p, st.visibleEnd, st.present - st.visibleEnd, false) }
                    }
                }
            }
        }
    }
}

/// An immutable index of a document's history at one version: every sequence as pieces with
/// their deleters, every map write, every tree operation. Checkouts, diffs and forks read it;
/// the document caches the last one built.
final class HistoryIndex: Sendable {
    /// The document version this index describes.
    let version: VersionVector
    /// Every peer that appears, and its slot (versions become arrays indexed by slot).
    let peers: [PeerID]
    let slots: [PeerID: Int32]
    let sequences: [ContainerID: SequenceHistory]
    /// Every write per map key, in no particular order.
    let mapWrites: [ContainerID: [String: [MapEntry]]]
    /// Every tree operation in (Lamport, peer) order.
    let treeLogs: [ContainerID: [TreeOpRecord]]
    /// Each child container's parent slots over the whole history.
    let parentSlots: [ContainerID: [(ContainerID, ParentSlot)]]
    /// Every movable list operation in (Lamport, peer) order, and the values its inserts hold.
    let movableOps: [ContainerID: [(lamport: Lamport, peer: PeerID, op: Op)]]
    let movableValues: [ContainerID: [CRDTValue]]
    /// Every counter increment.
    let counterOps: [ContainerID: [(id: OpID, delta: Double)]]

    /// Builds the index of the committed history of `st`.
    /// - Complexity: O(ops + runs + d log d) for d deletions.
    init(_ st: DocStorage, version: VersionVector) {
        self.version = version
        var peers: [PeerID] = []
        var slots: [PeerID: Int32] = [:]
        func slot(_ p: PeerID) -> Int32 {
            if let s = slots[p] { return s }
            let s = Int32(peers.count)
            peers.append(p)
            slots[p] = s
            return s
        }
        var deletions: [ContainerID: [Deletion]] = [:]
        var writes: [ContainerID: [String: [MapEntry]]] = [:]
        var movableOps: [ContainerID: [(lamport: Lamport, peer: PeerID, op: Op)]] = [:]
        var counterOps: [ContainerID: [(id: OpID, delta: Double)]] = [:]
        for (peer, list) in st.changes {
            _ = slot(peer)
            for ch in list {
                for op in ch.ops {
                    if op.container.type == .movableList {
                        movableOps[op.container, default: []].append((ch.lamport + Lamport(op.counter - ch.counter), peer, op))
                        continue
                    }
                    switch op.content {
                    case .counter(let d):
                        counterOps[op.container, default: []].append((OpID(peer: peer, counter: op.counter), d))
                    case .delete:
                        op.forEachDeletion(by: peer) { deletions[op.container, default: []].append($0) }
                    case let .mapSet(key, value):
                        let lamport = ch.lamport + Lamport(op.counter - ch.counter)
                        writes[op.container, default: [:]][key, default: []]
                            .append(MapEntry(value: value, lamport: lamport, peer: peer, counter: op.counter))
                    default:
                        break
                    }
                }
            }
        }
        var sequences: [ContainerID: SequenceHistory] = [:]
        var parentSlots: [ContainerID: [(ContainerID, ParentSlot)]] = [:]
        for (c, seq) in st.sequences where c.type != .movableList {
            let index = DeletionIndex(deletions[c] ?? [], slot: slot)
            var h = SequenceHistory(scalars: c.type == .text ? seq.scalars : [], values: seq.values, marks: seq.marks)
            seq.forEachElem { e in
                let elemSlot = slot(e.peer)
                let segs = index.segments[e.peer] ?? []
                var k = DeletionIndex.firstSegment(segs, after: e.counter)
                var offset: Int32 = 0
                while offset < e.length {
                    let at = e.counter + offset
                    var end = e.counter + e.length
                    var first = Int32(h.deleters.count), count: Int32 = 0
                    if k < segs.count, segs[k].lo <= at {
                        let seg = segs[k]
                        end = min(end, seg.hi)
                        for j in Int(seg.first)..<Int(seg.first + seg.count) {
                            var d = index.deleters[j]
                            d.at += d.step * (at - seg.lo)
                            h.deleters.append(d)
                        }
                        count = seg.count
                        if end == seg.hi { k += 1 }
                    } else {
                        if k < segs.count { end = min(end, segs[k].lo) }
                        first = 0
                    }
                    h.pieces.append(HistoryPiece(elem: h.subRun(e, offset, end - at), slot: elemSlot, firstDeleter: first, deleterCount: count))
                    offset = end - e.counter
                }
                if e.kind == .value {
                    for i in 0..<e.length {
                        if case .container(let child) = seq.values[Int(e.content + i)] {
                            parentSlots[child, default: []].append((c, .element(e.id.advanced(by: i))))
                        }
                    }
                }
            }
            sequences[c] = h
        }
        for (c, keys) in writes {
            for (key, list) in keys {
                for w in list { if case .container(let child)? = w.value { parentSlots[child, default: []].append((c, .key(key))) } }
            }
        }
        var logs: [ContainerID: [TreeOpRecord]] = [:]
        for (c, tree) in st.trees {
            logs[c] = tree.log
            for r in tree.log { _ = slot(r.peer) }
        }
        self.peers = peers
        self.slots = slots
        self.sequences = sequences
        self.mapWrites = writes
        self.treeLogs = logs
        self.parentSlots = parentSlots
        self.movableOps = movableOps.mapValues { $0.sorted { $0.lamport != $1.lamport ? $0.lamport < $1.lamport : $0.peer < $1.peer } }
        var arenas: [ContainerID: [CRDTValue]] = [:]
        for c in movableOps.keys { arenas[c] = st.sequences[c]?.values ?? [] }
        self.movableValues = arenas
        self.counterOps = counterOps
    }

    /// A version as end counters per slot (peers the index does not know are left out: they
    /// own no element here).
    /// - Complexity: O(p).
    func ends(_ vv: VersionVector) -> [OpCounter] { peers.map { vv[$0] } }
}

/// The last history index a document storage built, shared by its readers under a lock.
final class HistoryCache: Sendable {
    private let cached = Mutex<HistoryIndex?>(nil)

    /// The index for `st` at `version`, built when the cached one is for another version.
    /// - Complexity: O(1) when cached, else as ``HistoryIndex/init(_:version:)``.
    func index(_ st: DocStorage, version: VersionVector) -> HistoryIndex {
        cached.withLock { slot in
            if let c = slot, c.version == version { return c }
            let built = HistoryIndex(st, version: version)
            slot = built
            return built
        }
    }
}
