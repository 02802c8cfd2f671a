import QuireAlgorithms

/// The units a text position can be counted in.
public enum TextUnit: Sendable, Hashable {
    /// Unicode scalars (code points): the native unit.
    case unicodeScalar
    /// UTF-16 code units, as NSString and UITextView count.
    case utf16
    /// UTF-8 bytes.
    case utf8
}

/// What an element of a sequence holds.
enum ElemKind: UInt8 {
    case text = 0, value = 1, markStart = 2, markEnd = 3
}

/// An optional ID packed without the Optional tag (peer `UInt64.max` means none).
struct OptID: Equatable {
    var peer: PeerID
    var counter: OpCounter
    static let none = OptID(peer: .max, counter: 0)
    @inline(__always) init(peer: PeerID, counter: OpCounter) { self.peer = peer; self.counter = counter }
    @inline(__always) init(_ id: OpID?) {
        if let id { peer = id.peer; counter = id.counter } else { self = .none }
    }
    @inline(__always) var id: OpID? { peer == .max ? nil : OpID(peer: peer, counter: counter) }
}

/// A run of consecutive sequence elements: same peer, consecutive counters and Lamports, each
/// element's left origin the previous one, and one shared right origin (Loro's FugueSpan).
struct Elem {
    var peer: PeerID
    var counter: OpCounter
    var lamport: Lamport
    var length: Int32
    var originLeft: OptID
    var originRight: OptID
    /// Offset of the first element's content in the sequence's arena.
    var content: Int32
    /// UTF-16 and UTF-8 size of the whole run's content (text only).
    var utf16: Int32
    var utf8: Int32
    var kind: ElemKind
    var deleted: Bool
    /// Only version trackers (Loro JSON positions) use this: a future flag and a delete count
    /// at the tracker's version. Always 0 in a document's own sequences.
    var trackerStatus: UInt16 = 0

    @inline(__always) var visible: Bool { !deleted && kind.rawValue < 2 }
    @inline(__always) var id: OpID { OpID(peer: peer, counter: counter) }
    @inline(__always) var lastID: OpID { OpID(peer: peer, counter: counter + length - 1) }
    @inline(__always) func contains(_ id: OpID) -> Bool {
        id.peer == peer && id.counter >= counter && id.counter < counter + length
    }
    @inline(__always) var summary: SeqSummary {
        visible ? SeqSummary(elements: Int(length), count: Int(length), utf16: Int(utf16), utf8: Int(utf8))
            : SeqSummary(elements: Int(length), count: 0, utf16: 0, utf8: 0)
    }
}

/// Subtree totals: all elements (tombstones and anchors included), visible count, UTF-16, UTF-8.
struct SeqSummary {
    var elements = 0
    var count = 0
    var utf16 = 0
    var utf8 = 0
    @inline(__always) static func += (a: inout SeqSummary, b: SeqSummary) {
        a.elements += b.elements; a.count += b.count; a.utf16 += b.utf16; a.utf8 += b.utf8
    }
    @inline(__always) static func -= (a: inout SeqSummary, b: SeqSummary) {
        a.elements -= b.elements; a.count -= b.count; a.utf16 -= b.utf16; a.utf8 -= b.utf8
    }
    @inline(__always) func measure(_ unit: TextUnit) -> Int {
        switch unit {
        case .unicodeScalar: return count
        case .utf16: return utf16
        case .utf8: return utf8
        }
    }
}

/// A B-tree node; leaves hold runs, inner nodes hold children. Leaves are doubly linked.
final class SeqNode {
    /// The parent, unretained (the tree owns its nodes): summaries are added up the path at
    /// every insert and delete, where a strong reference cost a retain and release per level.
    @exclusivity(unchecked) var parentRef: Unmanaged<SeqNode>?
    var parent: SeqNode? {
        get { parentRef?.takeUnretainedValue() }
        set { parentRef = newValue.map { Unmanaged.passUnretained($0) } }
    }
    unowned(unsafe) var next: SeqNode?
    unowned(unsafe) var prev: SeqNode?
    @exclusivity(unchecked) var summary = SeqSummary()
    @exclusivity(unchecked) var elems: [Elem] = []
    @exclusivity(unchecked) var children: [SeqNode] = []
    /// The marks whose anchors this subtree holds only one of, once asked for (nil: unknown).
    @exclusivity(unchecked) var markEdges: MarkEdges?
    let isLeaf: Bool
    init(leaf: Bool) { isLeaf = leaf }

    func recomputeSummary() {
        var s = SeqSummary()
        if isLeaf { for e in elems { s += e.summary } } else { for c in children { s += c.summary } }
        summary = s
        markEdges = nil
    }

    /// Forgets the mark edges of this node and its ancestors (its anchors changed).
    @inline(__always) func invalidateMarkEdges() {
        var n: SeqNode? = self
        while let x = n, x.markEdges != nil {
            x.markEdges = nil
            n = x.parent
        }
    }
}

/// The marks a subtree opens (holds the start anchor of, not the end) and closes (holds the end
/// anchor of, not the start): what the marks active at a position are summed from.
struct MarkEdges {
    var opens: Set<OpID> = []
    var closes: Set<OpID> = []

    /// The edges of a subtree followed by `next`.
    mutating func append(_ next: MarkEdges) {
        closes.formUnion(next.closes.subtracting(opens))
        opens.subtract(next.closes)
        opens.formUnion(next.opens)
    }

    /// What `active` (the marks active before a subtree) becomes after it.
    func apply(to active: inout Set<OpID>) {
        active.subtract(closes)
        active.formUnion(opens)
    }
}

/// A position in the sequence: element `index` of `leaf`, `offset` atoms into it.
struct SeqCursor {
    unowned(unsafe) var leaf: SeqNode
    var index: Int
    var offset: Int32

    /// Runs `body` with the leaf unretained (the tree owns it throughout): handing the unowned
    /// reference to a function retained and released it around every call.
    @discardableResult @inline(__always) func withLeaf<R>(_ body: (SeqNode) -> R) -> R {
        Unmanaged.passUnretained(leaf)._withUnsafeGuaranteedRef(body)
    }

    /// The element under the cursor, read in place (indexing retained the leaf and its array).
    @inline(__always) var elem: Elem { leaf.elems.withUnsafeBufferPointer { $0[index] } }
}

/// A run of the ID index: counters `start ..< end` of one peer live in `leaf`.
struct IndexRun {
    var start: OpCounter
    var end: OpCounter
    unowned(unsafe) var leaf: SeqNode
}

/// One peer's index runs in counter order, kept in chunks of at most `chunkCapacity` runs: a
/// run inserted in the middle (a leaf split re-indexing part of a run) shifts one chunk, not
/// every run of the peer, which a long history has tens of thousands of. Chunks are never empty.
struct PeerRuns {
    static let chunkCapacity = 128
    var chunks: [[IndexRun]] = []
    /// The end of each chunk's last run: the binary search for a counter's chunk reads only these.
    var ends: [OpCounter] = []

    init() {}

    /// The index of runs already sorted by counter and disjoint.
    /// - Complexity: O(r).
    init(sorted runs: [IndexRun]) {
        var i = 0
        while i < runs.count {
            let chunk = Array(runs[i..<min(runs.count, i + Self.chunkCapacity)])
            chunks.append(chunk)
            ends.append(chunk[chunk.count - 1].end)
            i += Self.chunkCapacity
        }
    }

    /// Records that counters `start ..< end` live in `leaf`, replacing what they pointed at.
    /// - Complexity: O(log r + C + k) for r runs, chunk capacity C, k runs overwritten.
    mutating func assign(start: OpCounter, end: OpCounter, leaf: SeqNode) {
        guard let lastEnd = ends.last else {
            chunks = [[IndexRun(start: start, end: end, leaf: leaf)]]
            ends = [end]
            return
        }
        // New counters (the usual case): extend the last run or append, in a new chunk when full.
        if lastEnd <= start {
            let c = chunks.count - 1
            let extends = lastEnd == start && chunks[c][chunks[c].count - 1].leaf === leaf
            if extends || chunks[c].count < Self.chunkCapacity {
                FugueSequence.assign(&chunks[c], start: start, end: end, leaf: leaf)
                ends[c] = end
            } else {
                chunks.append([IndexRun(start: start, end: end, leaf: leaf)])
                ends.append(end)
            }
            return
        }
        // The chunk of the first run ending after `start`; the range stays in it unless it
        // reaches the runs of the next chunk.
        let a = ends.partitioningIndex { $0 > start }
        var b = a
        while b + 1 < chunks.count, chunks[b + 1][0].start < end { b += 1 }
        if b > a {
            var merged = Array(chunks[a...b].joined())
            FugueSequence.assign(&merged, start: start, end: end, leaf: leaf)
            let pieces = PeerRuns(sorted: merged)
            chunks.replaceSubrange(a...b, with: pieces.chunks)
            ends.replaceSubrange(a...b, with: pieces.ends)
            return
        }
        FugueSequence.assign(&chunks[a], start: start, end: end, leaf: leaf)
        let count = chunks[a].count
        ends[a] = chunks[a][count - 1].end
        if count > Self.chunkCapacity {
            let right = Array(chunks[a][(count / 2)...])
            chunks[a].removeSubrange((count / 2)...)
            ends[a] = chunks[a][count / 2 - 1].end
            chunks.insert(right, at: a + 1)
            ends.insert(right[right.count - 1].end, at: a + 1)
        }
    }

    /// The run holding `counter`, if any.
    /// - Complexity: O(log r).
    @inline(__always) func run(containing counter: OpCounter) -> IndexRun? {
        let a = ends.withUnsafeBufferPointer { ends in ends.partitioningIndex { $0 > counter } }
        guard a < chunks.count else { return nil }
        return chunks[a].withUnsafeBufferPointer { runs in
            let lo = runs.partitioningIndex { $0.end > counter }
            guard lo < runs.count, runs[lo].start <= counter else { return nil }
            return runs[lo]
        }
    }
}

/// The Fugue sequence of one text or list container: a run-length-encoded B-tree of elements in
/// document order (tombstones kept), with subtree summaries in every unit and an ID index.
final class FugueSequence {
    static let leafCapacity = 64
    static let innerCapacity = 32

    @exclusivity(unchecked) var root: SeqNode
    /// Text content: every scalar ever inserted, in arrival order.
    @exclusivity(unchecked) var scalars: [Unicode.Scalar] = []
    /// List content: every value ever inserted.
    @exclusivity(unchecked) var values: [CRDTValue] = []
    /// Where each peer's elements live: peer → slot, and per slot the sorted index runs.
    @exclusivity(unchecked) var indexSlots: [PeerID: Int] = [:]
    @exclusivity(unchecked) var indexPeers: [PeerID] = []
    @exclusivity(unchecked) var indexRuns: [PeerRuns] = []
    /// The slot used last by a mutation; lookups try it before hashing (reads never write it).
    @exclusivity(unchecked) var hotSlot = 0
    /// The run the last local insert extended and the visible position right after it; any
    /// other structural change clears it (the typing fast path).
    @exclusivity(unchecked) var typing: (leaf: SeqNode, index: Int, end: OpCounter, position: Int)?
    /// The marks of a text: mark ID (its start anchor's ID) to style.
    @exclusivity(unchecked) var marks: [OpID: MarkInfo] = [:]

    init() {
        root = SeqNode(leaf: true)
    }

    /// A deep copy (used by copy-on-write of the document).
    /// - Complexity: O(n).
    func copy() -> FugueSequence {
        let other = FugueSequence()
        other.scalars = scalars
        other.values = values
        other.marks = marks
        var leaves: [SeqNode] = []
        func clone(_ node: SeqNode) -> SeqNode {
            let n = SeqNode(leaf: node.isLeaf)
            n.summary = node.summary
            if node.isLeaf {
                n.elems = node.elems
                leaves.append(n)
            } else {
                n.children = node.children.map { c in let cc = clone(c); cc.parent = n; return cc }
            }
            return n
        }
        other.root = clone(root)
        for i in leaves.indices {
            if i > 0 { leaves[i].prev = leaves[i - 1] }
            if i + 1 < leaves.count { leaves[i].next = leaves[i + 1] }
            for e in leaves[i].elems { other.assignIndex(peer: e.peer, start: e.counter, end: e.counter + e.length, leaf: leaves[i]) }
        }
        return other
    }

    var summary: SeqSummary { root.summary }

    var firstLeaf: SeqNode {
        var n = root
        while !n.isLeaf { n = n.children[0] }
        return n
    }

    // MARK: measures

    @inline(__always) func utf16Count(_ start: Int32, _ count: Int32) -> Int32 {
        var n: Int32 = 0
        for i in Int(start)..<Int(start + count) { n += scalars[i].value > 0xFFFF ? 2 : 1 }
        return n
    }

    @inline(__always) func utf8Count(_ start: Int32, _ count: Int32) -> Int32 {
        var n: Int32 = 0
        for i in Int(start)..<Int(start + count) { n += Int32(UTF8.width(scalars[i])) }
        return n
    }

    /// The summary of the first `offset` atoms of `e`.
    @inline(__always) func prefixSummary(_ e: Elem, _ offset: Int32) -> SeqSummary {
        guard e.visible else { return SeqSummary(elements: Int(offset), count: 0, utf16: 0, utf8: 0) }
        if e.kind == .value { return SeqSummary(elements: Int(offset), count: Int(offset), utf16: Int(offset), utf8: Int(offset)) }
        let u16 = e.utf16 == e.length ? offset : utf16Count(e.content, offset)
        let u8 = e.utf8 == e.length ? offset : utf8Count(e.content, offset)
        return SeqSummary(elements: Int(offset), count: Int(offset), utf16: Int(u16), utf8: Int(u8))
    }

    /// Converts `units` of `unit` inside the visible element `e` into an atom offset; nil when it
    /// falls inside a scalar.
    func atomOffset(_ e: Elem, units: Int, unit: TextUnit) -> Int32? {
        switch unit {
        case .unicodeScalar: return Int32(units)
        case .utf16 where e.utf16 == e.length || e.kind == .value: return Int32(units)
        case .utf8 where e.utf8 == e.length || e.kind == .value: return Int32(units)
        default:
            var acc = 0
            var i: Int32 = 0
            while acc < units {
                let s = scalars[Int(e.content + i)]
                acc += unit == .utf16 ? (s.value > 0xFFFF ? 2 : 1) : UTF8.width(s)
                i += 1
            }
            return acc == units ? i : nil
        }
    }

    // MARK: ID index

    /// Records that counters `start ..< end` of `peer` live in `leaf`.
    /// - Complexity: O(log r + C + k) for r runs of the peer, index chunk capacity C, k runs
    ///   overwritten.
    func assignIndex(peer: PeerID, start: OpCounter, end: OpCounter, leaf: SeqNode) {
        let s: Int
        if let existing = slot(of: peer) {
            s = existing
        } else {
            s = indexPeers.count
            indexPeers.append(peer)
            indexRuns.append(PeerRuns())
            indexSlots[peer] = s
        }
        hotSlot = s
        indexRuns[s].assign(start: start, end: end, leaf: leaf)
    }

    /// The index slot of a peer.
    /// - Complexity: O(1) expected.
    @inline(__always) func slot(of peer: PeerID) -> Int? {
        if hotSlot < indexPeers.count && indexPeers[hotSlot] == peer { return hotSlot }
        return indexSlots[peer]
    }

    /// Records `start ..< end` → `leaf` in sorted disjoint runs (one chunk of ``PeerRuns``).
    /// - Complexity: O(log r + k) for r runs, k runs overwritten, plus shifting the runs after.
    static func assign(_ runs: inout [IndexRun], start: OpCounter, end: OpCounter, leaf: SeqNode) {
        // Fast path: append or extend at the end.
        if let last = runs.last, last.end <= start {
            if last.end == start && last.leaf === leaf { runs[runs.count - 1].end = end } else {
                runs.append(IndexRun(start: start, end: end, leaf: leaf))
            }
            return
        }
        if runs.isEmpty { runs.append(IndexRun(start: start, end: end, leaf: leaf)); return }
        // First run whose end > start.
        let lo = runs.partitioningIndex { $0.end > start }
        // Fast path (a leaf split moving whole runs): the range is exactly one run.
        if lo < runs.count, runs[lo].start == start, runs[lo].end == end {
            runs[lo].leaf = leaf
            return
        }
        // Fast path (a leaf split moving part of a run): the range lies inside one run and is
        // cut off in place, joining the neighbour run when that one points at `leaf` already.
        if lo < runs.count, runs[lo].start <= start, end <= runs[lo].end {
            let run = runs[lo]
            if run.leaf === leaf { return }
            if run.start == start {
                runs[lo].start = end
                if lo > 0, runs[lo - 1].end == start, runs[lo - 1].leaf === leaf {
                    runs[lo - 1].end = end
                } else {
                    runs.insert(IndexRun(start: start, end: end, leaf: leaf), at: lo)
                }
                return
            }
            if run.end == end {
                runs[lo].end = start
                if lo + 1 < runs.count, runs[lo + 1].start == end, runs[lo + 1].leaf === leaf {
                    runs[lo + 1].start = start
                } else {
                    runs.insert(IndexRun(start: start, end: end, leaf: leaf), at: lo + 1)
                }
                return
            }
        }
        var j = lo
        var replacement: [IndexRun] = []
        if j < runs.count, runs[j].start < start {
            replacement.append(IndexRun(start: runs[j].start, end: start, leaf: runs[j].leaf))
        }
        replacement.append(IndexRun(start: start, end: end, leaf: leaf))
        var k = j
        while k < runs.count, runs[k].start < end { k += 1 }
        if k > j, runs[k - 1].end > end {
            replacement.append(IndexRun(start: end, end: runs[k - 1].end, leaf: runs[k - 1].leaf))
        }
        // Merge with neighbours pointing at the same leaf.
        if j > 0, runs[j - 1].end == replacement[0].start, runs[j - 1].leaf === replacement[0].leaf {
            replacement[0].start = runs[j - 1].start
            j -= 1
        }
        if k < runs.count, let lastNew = replacement.last, runs[k].start == lastNew.end, runs[k].leaf === lastNew.leaf {
            replacement[replacement.count - 1].end = runs[k].end
            k += 1
        }
        runs.replaceSubrange(j..<k, with: replacement)
    }

    /// The index run holding `id`, if the element exists.
    /// - Complexity: O(log r).
    @inline(__always) func run(containing id: OpID) -> IndexRun? {
        guard let s = slot(of: id.peer) else { return nil }
        return indexRuns[s].run(containing: id.counter)
    }

    /// The leaf holding `id`, if the element exists.
    /// - Complexity: O(log r).
    @inline(__always) func leaf(of id: OpID) -> SeqNode? { run(containing: id)?.leaf }

    /// One past the last counter of the index run holding `id`, when `id` is known.
    /// - Complexity: O(log r).
    func knownEnd(from id: OpID) -> OpCounter? { run(containing: id)?.end }

    /// The cursor at `id` (element containing it, offset inside).
    /// - Complexity: O(log r + L) for leaf capacity L.
    func cursor(of id: OpID) -> SeqCursor? {
        // The leaf stays unowned (a strong copy retained and released it) and is scanned in
        // place: enumerating the array would retain it and copy every element out.
        guard let run = run(containing: id) else { return nil }
        let found: (Int, Int32)? = run.leaf.elems.withUnsafeBufferPointer { elems in
            for i in elems.indices where elems[i].contains(id) { return (i, id.counter - elems[i].counter) }
            return nil
        }
        return found.map { SeqCursor(leaf: run.leaf, index: $0.0, offset: $0.1) }
    }

    /// The summary of everything before the cursor.
    /// - Complexity: O(log n · fanout).
    func prefix(of c: SeqCursor) -> SeqSummary {
        var s = SeqSummary()
        let elems = c.leaf.elems
        for i in 0..<c.index { s += elems[i].summary }
        s += prefixSummary(elems[c.index], c.offset)
        var node = c.leaf
        while let parent = node.parent {
            for child in parent.children {
                if child === node { break }
                s += child.summary
            }
            node = parent
        }
        return s
    }

    // MARK: locating visible positions

    /// The leaf that holds the `pos`-th visible unit, and how many of the leaf's visible units
    /// come before it: a child is skipped while `pos` lies past it (with `endInclusive`, a
    /// position at a child's end stays in that child).
    /// - Complexity: O(log n).
    @inline(__always) private func descend(to pos: Int, unit: TextUnit, endInclusive: Bool) -> (leaf: SeqNode, rest: Int)? {
        var node = root
        var p = pos
        while !node.isLeaf {
            // Children are read in place: iterating the array would retain each one it passes.
            let found: Int? = node.children.withUnsafeBufferPointer { children in
                for i in children.indices {
                    let m = children[i].summary.measure(unit)
                    if p < m || (endInclusive && p == m) { return i }
                    p -= m
                }
                return nil
            }
            guard let i = found else { return nil }
            node = node.children[i]
        }
        return (node, p)
    }

    /// The cursor just after the `pos`-th visible unit (`pos` > 0), preferring the left side
    /// (the end of the element holding that unit). Returns nil when `pos` is beyond the end or
    /// splits a scalar.
    /// - Complexity: O(log n).
    func locateAfter(_ pos: Int, unit: TextUnit) -> SeqCursor? {
        guard let (node, rest) = descend(to: pos, unit: unit, endInclusive: true) else { return nil }
        var p = rest
        // Tombstones are most of a long-edited leaf: they cost one flag test each.
        let elems = node.elems
        for i in elems.indices where elems[i].visible {
            let e = elems[i]
            let m = unit == .unicodeScalar ? Int(e.length) : e.summary.measure(unit)
            if p <= m {
                guard let off = atomOffset(e, units: p, unit: unit) else { return nil }
                return SeqCursor(leaf: node, index: i, offset: off)
            }
            p -= m
        }
        return nil
    }

    /// The cursor at the `pos`-th visible unit (`pos` < count), i.e. at the start of that unit.
    /// - Complexity: O(log n).
    func locateAt(_ pos: Int, unit: TextUnit) -> SeqCursor? {
        guard pos >= 0, pos < root.summary.measure(unit), let (node, rest) = descend(to: pos, unit: unit, endInclusive: false) else { return nil }
        var p = rest
        // Scanned in place: reading `node.elems[i]` retained the array and copied each element.
        let found: Int? = node.elems.withUnsafeBufferPointer { elems in
            for i in elems.indices where elems[i].visible {
                let m = unit == .unicodeScalar ? Int(elems[i].length) : elems[i].summary.measure(unit)
                if p < m { return i }
                p -= m
            }
            return nil
        }
        guard let i = found, let off = atomOffset(node.elems[i], units: p, unit: unit) else { return nil }
        return SeqCursor(leaf: node, index: i, offset: off)
    }

    // MARK: structural edits

    /// Adds `delta` to the summaries of `node` and its ancestors.
    @inline(__always) func propagate(_ node: SeqNode, add: SeqSummary, subtract: SeqSummary) {
        // Walked without retaining each ancestor (an atomic increment and decrement per level,
        // on every insert and delete): the tree owns them for the whole walk.
        var n = Unmanaged.passUnretained(node)
        while true {
            let up = n._withUnsafeGuaranteedRef { x in
                x.summary += add
                x.summary -= subtract
                return x.parentRef
            }
            guard let next = up else { break }
            n = next
        }
        if !marks.isEmpty { node.invalidateMarkEdges() }
    }

    /// The mark edges of a node, computed from its elements or children when not known.
    /// - Complexity: O(L) for a leaf or O(children · edges) for an inner node, plus the children
    ///   not known yet; O(1) when known.
    func markEdges(of node: SeqNode) -> MarkEdges {
        if let known = node.markEdges { return known }
        var edges = MarkEdges()
        if node.isLeaf {
            for e in node.elems {
                switch e.kind {
                case .markStart:
                    edges.opens.insert(e.id)
                case .markEnd:
                    let mark = OpID(peer: e.peer, counter: e.counter - 1)
                    if edges.opens.remove(mark) == nil { edges.closes.insert(mark) }
                default:
                    continue
                }
            }
        } else {
            for child in node.children { edges.append(markEdges(of: child)) }
        }
        node.markEdges = edges
        return edges
    }

    /// The marks whose start anchor lies before element `elementIndex` and whose end anchor does
    /// not: the marks active at that element.
    /// - Complexity: O(log n · (B + edges)) with the edges cached, O(L) in the leaf.
    func marksActive(before elementIndex: Int) -> Set<OpID> {
        var active = Set<OpID>()
        var remaining = elementIndex
        var node = root
        while !node.isLeaf {
            var next: SeqNode?
            for child in node.children {
                if remaining >= child.summary.elements {
                    markEdges(of: child).apply(to: &active)
                    remaining -= child.summary.elements
                } else {
                    next = child
                    break
                }
            }
            guard let child = next else { return active }
            node = child
        }
        for e in node.elems {
            guard remaining > 0 else { break }
            switch e.kind {
            case .markStart: active.insert(e.id)
            case .markEnd: active.remove(OpID(peer: e.peer, counter: e.counter - 1))
            default: break
            }
            remaining -= Int(e.length)
        }
        return active
    }

    /// Splits element `index` of `leaf` at `offset` (0 < offset < length); the right part follows.
    /// Returns the right part's index, or nil when the leaf overflowed and was split (look up again).
    /// - Complexity: O(L) plus the arena scan for non-ASCII text.
    @discardableResult
    func split(_ leaf: SeqNode, _ index: Int, at offset: Int32) -> Int? {
        typing = nil
        let e = leaf.elems[index]
        var left = e, right = e
        var u16 = offset, u8 = offset
        if e.kind == .text {
            u16 = e.utf16 == e.length ? offset : utf16Count(e.content, offset)
            u8 = e.utf8 == e.length ? offset : utf8Count(e.content, offset)
        }
        left.length = offset
        left.utf16 = u16
        left.utf8 = u8
        right.counter += offset
        right.lamport += Lamport(offset)
        right.length -= offset
        right.content += offset
        right.utf16 -= u16
        right.utf8 -= u8
        right.originLeft = OptID(peer: e.peer, counter: e.counter + offset - 1)
        leaf.elems[index] = left
        leaf.elems.insert(right, at: index + 1)
        if !marks.isEmpty { leaf.invalidateMarkEdges() }
        if leaf.elems.count > Self.leafCapacity { splitLeaf(leaf); return nil }
        return index + 1
    }

    /// Ensures an element boundary right before `id`; returns the cursor of the element starting there.
    func splitBefore(_ id: OpID) -> SeqCursor? {
        guard var c = cursor(of: id) else { return nil }
        if c.offset > 0 {
            let cut = c
            if let i = cut.withLeaf({ split($0, cut.index, at: cut.offset) }) { return SeqCursor(leaf: c.leaf, index: i, offset: 0) }
            c = cursor(of: id)!
        }
        return c
    }

    /// Ensures an element boundary right after `id`; returns the cursor of the element ending there.
    func splitAfter(_ id: OpID) -> SeqCursor? {
        guard let c = cursor(of: id) else { return nil }
        if c.offset + 1 < c.elem.length {
            // The left part keeps its index unless the leaf itself split.
            if c.withLeaf({ split($0, c.index, at: c.offset + 1) }) != nil { return c }
            return cursor(of: id)
        }
        return c
    }

    /// Moves the upper half of an overfull leaf into a new right sibling.
    /// - Complexity: O(L + k · log r) for leaf capacity L, k ranges of consecutive IDs among the
    ///   moved elements and r index runs of their peers (plus shifting those runs).
    func splitLeaf(_ leaf: SeqNode) {
        typing = nil
        let half = leaf.elems.count / 2
        let right = SeqNode(leaf: true)
        right.elems = Array(leaf.elems[half...])
        leaf.elems.removeSubrange(half...)
        leaf.recomputeSummary()
        right.recomputeSummary()
        right.next = leaf.next
        right.prev = leaf
        leaf.next?.prev = right
        leaf.next = right
        // Neighbours with consecutive IDs (the pieces of a run that deletes or inserts cut) are
        // re-indexed as one range: each assignment can shift the peer's index runs.
        right.elems.withUnsafeBufferPointer { moved in
            var i = 0
            while i < moved.count {
                let peer = moved[i].peer
                let start = moved[i].counter
                var end = start + moved[i].length
                var j = i + 1
                while j < moved.count, moved[j].peer == peer, moved[j].counter == end {
                    end += moved[j].length
                    j += 1
                }
                assignIndex(peer: peer, start: start, end: end, leaf: right)
                i = j
            }
        }
        leaf.parent?.invalidateMarkEdges()
        insertSibling(right, after: leaf)
    }

    private func insertSibling(_ node: SeqNode, after left: SeqNode) {
        guard let parent = left.parent else {
            let newRoot = SeqNode(leaf: false)
            newRoot.children = [left, node]
            left.parent = newRoot
            node.parent = newRoot
            newRoot.recomputeSummary()
            root = newRoot
            return
        }
        let i = parent.children.firstIndex { $0 === left }!
        parent.children.insert(node, at: i + 1)
        node.parent = parent
        parent.invalidateMarkEdges()
        if parent.children.count > Self.innerCapacity {
            let half = parent.children.count / 2
            let right = SeqNode(leaf: false)
            right.children = Array(parent.children[half...])
            parent.children.removeSubrange(half...)
            for c in right.children { c.parent = right }
            parent.recomputeSummary()
            right.recomputeSummary()
            insertSibling(right, after: parent)
        }
    }

    /// Whether `b` may be appended to run `a` (Loro's FugueSpan merge rule).
    @inline(__always) func canMerge(_ a: Elem, _ b: Elem) -> Bool {
        a.peer == b.peer && a.kind == b.kind && a.kind.rawValue < 2 && a.deleted == b.deleted
            && a.counter + a.length == b.counter && a.lamport + Lamport(a.length) == b.lamport
            && b.originLeft == OptID(peer: a.peer, counter: a.counter + a.length - 1)
            && a.originRight == b.originRight && a.content + a.length == b.content
            && a.trackerStatus == b.trackerStatus
    }

    /// Appends the scalars of `text` to the arena in one pass over its UTF-8 and returns their
    /// number and their UTF-16 and UTF-8 sizes (what an inserted run records).
    /// - Complexity: O(UTF-8 size of `text`).
    func appendScalars(of text: String) -> (count: Int32, utf16: Int32, utf8: Int32) {
        var text = text
        return text.withUTF8 { bytes in
            var n = 0
            if bytes.isASCII { n = bytes.count } else { for b in bytes where b & 0xC0 != 0x80 { n += 1 } }
            var astral = 0
            // Decoded into a temporary buffer and appended in one copy: appending element by
            // element (or from a lazy map) re-checks the arena's capacity at every scalar.
            withUnsafeTemporaryAllocation(of: Unicode.Scalar.self, capacity: n) { out in
                if n == bytes.count {
                    // ASCII (most text): each byte is a scalar.
                    for i in 0..<n { out.initializeElement(at: i, to: Unicode.Scalar(bytes[i])) }
                } else {
                    // `text` is valid UTF-8: each lead byte says how many continuation bytes follow.
                    var i = 0
                    var k = 0
                    while i < bytes.count {
                        let b0 = UInt32(bytes[i])
                        var v: UInt32
                        if b0 < 0x80 {
                            v = b0
                            i += 1
                        } else if b0 < 0xE0 {
                            v = (b0 & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
                            i += 2
                        } else if b0 < 0xF0 {
                            v = (b0 & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6
                            v |= UInt32(bytes[i + 2] & 0x3F)
                            i += 3
                        } else {
                            v = (b0 & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12
                            v |= UInt32(bytes[i + 2] & 0x3F) << 6 | UInt32(bytes[i + 3] & 0x3F)
                            i += 4
                            astral += 1
                        }
                        out.initializeElement(at: k, to: Unicode.Scalar(v).unsafelyUnwrapped)
                        k += 1
                    }
                }
                scalars.append(contentsOf: UnsafeBufferPointer(out))
            }
            return (Int32(n), Int32(n + astral), Int32(bytes.count))
        }
    }

    /// Inserts `e` into `leaf` at element index `at`, merging with the left neighbour when possible.
    /// - Complexity: O(L + log n).
    func insertElem(_ e: Elem, leaf: SeqNode, at: Int) {
        typing = nil
        // Merged in place: element by element, `leaf.elems` would be retained at every access.
        let merged = at > 0 && leaf.elems.withUnsafeMutableBufferPointer { elems in
            guard canMerge(elems[at - 1], e) else { return false }
            elems[at - 1].length += e.length
            elems[at - 1].utf16 += e.utf16
            elems[at - 1].utf8 += e.utf8
            return true
        }
        if merged {
            propagate(leaf, add: e.summary, subtract: SeqSummary())
            assignIndex(peer: e.peer, start: e.counter, end: e.counter + e.length, leaf: leaf)
            return
        }
        leaf.elems.insert(e, at: at)
        propagate(leaf, add: e.summary, subtract: SeqSummary())
        assignIndex(peer: e.peer, start: e.counter, end: e.counter + e.length, leaf: leaf)
        if leaf.elems.count > Self.leafCapacity { splitLeaf(leaf) }
    }

    /// The element after `(leaf, index)` in document order.
    @inline(__always) func after(_ leaf: SeqNode, _ index: Int) -> (SeqNode, Int)? {
        if index + 1 < leaf.elems.count { return (leaf, index + 1) }
        var l = leaf.next
        while let x = l { if !x.elems.isEmpty { return (x, 0) }; l = x.next }
        return nil
    }

    /// The first element in document order.
    func first() -> (SeqNode, Int)? {
        var l: SeqNode? = firstLeaf
        while let x = l { if !x.elems.isEmpty { return (x, 0) }; l = x.next }
        return nil
    }

    /// Marks element `index` of `leaf` (`count` atoms long) deleted and merges it with deleted
    /// neighbours; returns the index of the element that holds it afterwards.
    /// - Complexity: O(L + log n).
    @discardableResult
    func markDeleted(_ leaf: SeqNode, _ index: Int, count: Int32) -> Int {
        typing = nil
        _ = count
        // Worked on in place: each `leaf.elems[i]` read or write would retain and release the
        // array, a dozen atomic operations per delete.
        var mergesNext = false, mergesPrevious = false
        let (after, before) = leaf.elems.withUnsafeMutableBufferPointer { elems in
            let before = elems[index].summary
            elems[index].deleted = true
            let after = elems[index].summary
            // Merge with deleted neighbours for run-length compactness.
            if index + 1 < elems.count, canMerge(elems[index], elems[index + 1]) {
                elems[index].length += elems[index + 1].length
                elems[index].utf16 += elems[index + 1].utf16
                elems[index].utf8 += elems[index + 1].utf8
                mergesNext = true
            }
            if index > 0, canMerge(elems[index - 1], elems[index]) {
                elems[index - 1].length += elems[index].length
                elems[index - 1].utf16 += elems[index].utf16
                elems[index - 1].utf8 += elems[index].utf8
                mergesPrevious = true
            }
            return (after, before)
        }
        propagate(leaf, add: after, subtract: before)
        switch (mergesPrevious, mergesNext) {
        case (true, true): leaf.elems.removeSubrange(index...(index + 1))
        case (true, false): leaf.elems.remove(at: index)
        case (false, true): leaf.elems.remove(at: index + 1)
        case (false, false): break
        }
        return mergesPrevious ? index - 1 : index
    }

    /// All elements in document order.
    func forEachElem(_ body: (Elem) -> Void) {
        var l: SeqNode? = firstLeaf
        while let x = l { for e in x.elems { body(e) }; l = x.next }
    }

    /// The visible text.
    /// - Complexity: O(n).
    func string() -> String {
        let total = root.summary.utf8
        guard total > 0 else { return "" }
        return scalars.withUnsafeBufferPointer { arena in
            String(unsafeUninitializedCapacity: total) { out in
                var i = 0
                forEachElem { e in
                    guard e.visible && e.kind == .text else { return }
                    for k in Int(e.content)..<Int(e.content + e.length) { i = FugueSequence.encodeUTF8(arena[k], into: out, at: i) }
                }
                return i
            }
        }
    }

    /// Writes one scalar as UTF-8 at `i` and returns the next index.
    @inline(__always) static func encodeUTF8(_ s: Unicode.Scalar, into out: UnsafeMutableBufferPointer<UInt8>, at i: Int) -> Int {
        let v = s.value
        switch v {
        case 0..<0x80:
            out[i] = UInt8(v); return i + 1
        case 0x80..<0x800:
            out[i] = UInt8(0xC0 | (v >> 6)); out[i + 1] = UInt8(0x80 | (v & 0x3F)); return i + 2
        case 0x800..<0x10000:
            out[i] = UInt8(0xE0 | (v >> 12)); out[i + 1] = UInt8(0x80 | ((v >> 6) & 0x3F)); out[i + 2] = UInt8(0x80 | (v & 0x3F)); return i + 3
        default:
            out[i] = UInt8(0xF0 | (v >> 18)); out[i + 1] = UInt8(0x80 | ((v >> 12) & 0x3F))
            out[i + 2] = UInt8(0x80 | ((v >> 6) & 0x3F)); out[i + 3] = UInt8(0x80 | (v & 0x3F)); return i + 4
        }
    }

    /// The visible list values.
    func listValues() -> [CRDTValue] {
        var out: [CRDTValue] = []
        forEachElem { e in
            if e.visible && e.kind == .value { out.append(contentsOf: values[Int(e.content)..<Int(e.content + e.length)]) }
        }
        return out
    }
}
