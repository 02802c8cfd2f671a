import QuireAlgorithms
import Synchronization

/// A CRDT document with Loro's semantics: text, list, map and movable-tree containers, a history
/// of changes, version vectors, updates, snapshots, events and cursors.
///
/// `CRDTDocument` is a Sendable value type with copy-on-write storage: copying it is O(1) and the
/// first mutation of a shared copy clones the state (O(n)). Edits apply immediately to the state
/// and are grouped into a change by ``commit()``; reading never needs a commit.
public struct CRDTDocument: Sendable {
    /// The storage as it is: its state may still be deferred (a lazily loaded Loro snapshot).
    var storage: DocStorage
    /// The storage with its state decoded.
    var s: DocStorage {
        get { storage.ensureState(); return storage }
        set { storage = newValue }
    }

    /// Creates an empty document for `peer`.
    public init(peer: PeerID) { storage = DocStorage(peer: peer) }

    @inline(__always) mutating func mutate() -> DocStorage {
        storage.ensureState()
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// This document's peer ID.
    public var peer: PeerID { storage.peer }

    /// The version including uncommitted local operations.
    public var version: VersionVector {
        var v = storage.version
        if !storage.txnOps.isEmpty { v.extend(peer: storage.peer, to: storage.txnCounter + storage.txnLength) }
        return v
    }

    /// The committed version's frontiers.
    public var frontiers: Frontiers { storage.frontiers }

    /// The Lamport timestamp the next local operation gets.
    public var nextLamport: Lamport { s.txnOps.isEmpty ? s.nextLamport : s.txnLamport + Lamport(s.txnLength) }

    /// Whether commits and imports collect events (off by default; events cost time).
    public var recordsEvents: Bool {
        get { s.recordEvents }
        set { mutate().recordEvents = newValue }
    }

    /// Sets the expand rule of a mark key (default `.after`), as Loro's `configTextStyle`.
    /// - Complexity: O(1).
    public mutating func setExpand(_ expand: ExpandType, forKey key: String) { mutate().styles[key] = expand }

    /// Commits the pending local operations as one change (merged into the previous local change
    /// when nothing else happened in between) and returns the events, if recorded.
    /// - Complexity: O(ops) amortized O(1) per operation.
    @discardableResult
    public mutating func commit() -> DocumentEvent? {
        // No reference to the storage may outlive the write: `takeEvents` would see it shared
        // and copy the whole document.
        mutate().commit()
        return takeEvents(.local)
    }

    /// The events recorded since the last call. Callers hold no reference to the storage of
    /// their own when they call it, or the storage would be copied (O(n)) to take them.
    mutating func takeEvents(_ origin: EventOrigin) -> DocumentEvent? {
        guard s.recordEvents, !s.events.isEmpty else { return nil }
        let st = mutate()
        let e = DocumentEvent(origin: origin, events: st.events)
        st.events.removeAll()
        return e
    }

    func check(_ c: ContainerID, _ type: ContainerType) throws(CRDTError) {
        guard c.type == type else { throw .wrongContainerType(container: c, expected: type) }
    }

    // MARK: text

    /// The length of a text (or list) container in `unit`.
    /// - Complexity: O(1).
    public func length(of c: ContainerID, unit: TextUnit = .unicodeScalar) -> Int {
        s.sequences[c]?.summary.measure(unit) ?? 0
    }

    /// The plain text of a text container.
    /// - Complexity: O(n) (a lazily loaded snapshot's text is read from its bytes).
    public func text(_ c: ContainerID) -> String {
        if let t = storage.deferredText(c) { return t }
        return s.sequences[c]?.string() ?? ""
    }

    /// Converts a position between units.
    /// - Complexity: O(log n).
    public func convert(_ pos: Int, from: TextUnit, to: TextUnit, in c: ContainerID) throws(CRDTError) -> Int {
        let len = length(of: c, unit: from)
        guard pos >= 0, pos <= len else { throw .outOfBounds(container: c, position: pos, length: len, unit: from) }
        if pos == 0 || from == to { return pos }
        guard let seq = s.sequences[c] else { return 0 }
        guard let cur = seq.locateAfter(pos, unit: from) else { throw .notAScalarBoundary(container: c, position: pos, unit: from) }
        return seq.prefix(of: cur).measure(to)
    }

    /// The text between two positions.
    /// - Complexity: O(log n + k) for k scalars returned.
    public func slice(_ c: ContainerID, _ range: Range<Int>, unit: TextUnit = .unicodeScalar) throws(CRDTError) -> String {
        let a = try convert(range.lowerBound, from: unit, to: .unicodeScalar, in: c)
        let b = try convert(range.upperBound, from: unit, to: .unicodeScalar, in: c)
        guard b > a, let seq = s.sequences[c], var cur = seq.locateAt(a, unit: .unicodeScalar) else { return "" }
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(b - a)
        var remaining = b - a
        var it: (SeqNode, Int)? = (cur.leaf, cur.index)
        while remaining > 0, let (l, i) = it {
            let e = l.elems[i]
            if e.visible {
                let take = min(remaining, Int(e.length - cur.offset))
                let from = Int(e.content + cur.offset)
                out.append(contentsOf: seq.scalars[from..<from + take])
                remaining -= take
            }
            cur.offset = 0
            it = seq.after(l, i)
        }
        return String(scalars: out)
    }

    /// Inserts `string` at `pos` (counted in `unit`) in a text container.
    /// - Complexity: O(log n + m) for m inserted scalars (plus anchors at the spot when marks exist).
    public mutating func insertText(_ string: String, at pos: Int, in c: ContainerID, unit: TextUnit = .unicodeScalar) throws(CRDTError) {
        try check(c, .text)
        let p = unit == .unicodeScalar ? pos : try convert(pos, from: unit, to: .unicodeScalar, in: c)
        let st = mutate()
        let existing = st.existingSequence(c)
        let len = existing?.summary.count ?? 0
        guard p >= 0, p <= len else { throw .outOfBounds(container: c, position: pos, length: length(of: c, unit: unit), unit: unit) }
        guard !string.isEmpty else { return }
        let seq = existing ?? st.sequence(c)
        let start = Int32(seq.scalars.count)
        var u16: Int32 = 0, u8: Int32 = 0, n: Int32 = 0
        for sc in string.unicodeScalars {
            seq.scalars.append(sc)
            u16 += sc.value > 0xFFFF ? 2 : 1
            u8 += Int32(UTF8.width(sc))
            n += 1
        }
        let (counter, lamport) = st.nextLocalStamp()
        // Typing fast path: continuing the run the previous local insert extended.
        if let t = seq.typing, t.position == p, t.end == counter, !st.recordEvents, t.index < t.leaf.elems.count {
            let run = t.leaf.elems[t.index]
            if run.peer == st.peer, run.counter + run.length == counter, run.lamport + Lamport(run.length) == lamport,
               run.content + run.length == start, run.visible, run.kind == .text {
                let left = OptID(peer: st.peer, counter: counter - 1)
                t.leaf.elems[t.index].length += n
                t.leaf.elems[t.index].utf16 += u16
                t.leaf.elems[t.index].utf8 += u8
                seq.propagate(t.leaf, add: SeqSummary(elements: Int(n), count: Int(n), utf16: Int(u16), utf8: Int(u8)), subtract: SeqSummary())
                seq.assignIndex(peer: st.peer, start: counter, end: counter + n, leaf: t.leaf)
                seq.typing = (t.leaf, t.index, counter + n, p + Int(n))
                st.record(Op(container: c, counter: counter, content: .insert(left: left, right: run.originRight, content: start, count: n)))
                return
            }
        }
        let (left, right, leaf, index) = st.insertionPoint(seq, c, at: p)
        let e = Elem(peer: st.peer, counter: counter, lamport: lamport, length: n, originLeft: left, originRight: right,
                     content: start, utf16: u16, utf8: u8, kind: .text, deleted: false)
        st.record(Op(container: c, counter: counter, content: .insert(left: left, right: right, content: start, count: n)))
        st.applyInsert(c, seq, e, slot: (leaf, index))
        if !st.recordEvents, seq.marks.isEmpty, let cur = seq.cursor(of: e.lastID), cur.offset == cur.leaf.elems[cur.index].length - 1 {
            seq.typing = (cur.leaf, cur.index, counter + n, p + Int(n))
        }
    }

    /// Deletes `count` units from `pos` in a text or list container (either kind of list).
    /// - Complexity: O((k + 1) · log n) for k runs touched.
    public mutating func delete(at pos: Int, count: Int, in c: ContainerID, unit: TextUnit = .unicodeScalar) throws(CRDTError) {
        guard c.type.isSequence else { throw .wrongContainerType(container: c, expected: .text) }
        let st = mutate()
        let len = st.existingSequence(c)?.summary.measure(unit) ?? 0
        guard pos >= 0, count >= 0, pos + count <= len else { throw .outOfBounds(container: c, position: pos + count, length: len, unit: unit) }
        let a = unit == .unicodeScalar ? pos : try convert(pos, from: unit, to: .unicodeScalar, in: c)
        let b = unit == .unicodeScalar ? pos + count : try convert(pos + count, from: unit, to: .unicodeScalar, in: c)
        guard b > a else { return }
        let seq = st.sequence(c)
        let spans = seq.deleteVisible(from: a, count: b - a)
        for span in spans {
            let (counter, _) = st.nextLocalStamp()
            st.record(Op(container: c, counter: counter, content: .delete([span])))
        }
        if c.type == .movableList {
            for span in spans {
                for k in span.start..<span.start + span.length { st.movables[c, default: MovableListState()].deletedItems.insert(OpID(peer: span.peer, counter: k)) }
            }
        }
        st.emitDelete(c, at: a, count: b - a)
    }

    /// Applies a style to `range` of a text container: `value` `.null` removes the key (unmark).
    /// For each key, the mark with the highest Lamport (then peer) wins per character.
    /// - Complexity: O(log n + g) plus O(M · log n + k) for the event when recorded.
    public mutating func mark(_ range: Range<Int>, key: String, value: CRDTValue, in c: ContainerID, unit: TextUnit = .unicodeScalar) throws(CRDTError) {
        try check(c, .text)
        let a = try convert(range.lowerBound, from: unit, to: .unicodeScalar, in: c)
        let b = try convert(range.upperBound, from: unit, to: .unicodeScalar, in: c)
        guard b > a else { throw .emptyRange(container: c, position: range.lowerBound) }
        let st = mutate()
        let seq = st.sequence(c)
        let configured = st.styles[key] ?? .after
        let expand = value == .null ? configured.reversed : configured
        let (counter, lamport) = st.nextLocalStamp()
        let markID = OpID(peer: st.peer, counter: counter)
        seq.marks[markID] = MarkInfo(key: key, value: value, expand: expand, lamport: lamport, peer: st.peer)
        let (sl, sr, sLeaf, sIndex) = st.insertionPoint(seq, c, at: a)
        seq.insertElem(Elem(peer: st.peer, counter: counter, lamport: lamport, length: 1, originLeft: sl, originRight: sr,
                            content: 0, utf16: 0, utf8: 0, kind: .markStart, deleted: false), leaf: sLeaf, at: sIndex)
        let (el, er, eLeaf, eIndex) = st.insertionPoint(seq, c, at: b)
        seq.insertElem(Elem(peer: st.peer, counter: counter + 1, lamport: lamport + 1, length: 1, originLeft: el, originRight: er,
                            content: 0, utf16: 0, utf8: 0, kind: .markEnd, deleted: false), leaf: eLeaf, at: eIndex)
        st.record(Op(container: c, counter: counter, content: .mark(MarkPayload(
            key: key, value: value, expand: expand, startLeft: sl, startRight: sr, endLeft: el, endRight: er))))
        st.emitMark(c, seq, markID: markID, key: key)
    }

    /// Removes a style key from a range (a mark with value null).
    /// - Complexity: as ``mark(_:key:value:in:unit:)``.
    public mutating func unmark(_ range: Range<Int>, key: String, in c: ContainerID, unit: TextUnit = .unicodeScalar) throws(CRDTError) {
        try mark(range, key: key, value: .null, in: c, unit: unit)
    }

    /// The rich text as a delta of inserts with attributes (null-valued keys omitted).
    /// - Complexity: O(n + M).
    public func toDelta(_ c: ContainerID) -> [TextDelta] { s.delta(c) }

    // MARK: list

    /// The values of a list or movable list container (child containers appear as `.container`).
    /// - Complexity: O(n).
    public func list(_ c: ContainerID) -> [CRDTValue] {
        c.type == .movableList ? s.movableValues(c) : s.sequences[c]?.listValues() ?? []
    }

    /// Inserts values at `pos` in a list or movable list container.
    /// - Complexity: O(log n + m).
    public mutating func insert(_ values: [CRDTValue], at pos: Int, in c: ContainerID) throws(CRDTError) {
        if c.type != .movableList { try check(c, .list) }
        let len = length(of: c)
        guard pos >= 0, pos <= len else { throw .outOfBounds(container: c, position: pos, length: len, unit: .unicodeScalar) }
        guard !values.isEmpty else { return }
        let st = mutate()
        let seq = st.sequence(c)
        let start = Int32(seq.values.count)
        seq.values.append(contentsOf: values)
        let n = Int32(values.count)
        let (counter, lamport) = st.nextLocalStamp()
        let (left, right, leaf, index) = st.insertionPoint(seq, c, at: pos)
        let e = Elem(peer: st.peer, counter: counter, lamport: lamport, length: n, originLeft: left, originRight: right,
                     content: start, utf16: n, utf8: n, kind: .value, deleted: false)
        st.record(Op(container: c, counter: counter, content: .insert(left: left, right: right, content: start, count: n)))
        if c.type == .movableList { st.applyMovableInsert(c, seq, e, slot: (leaf, index)) } else { st.applyInsert(c, seq, e, slot: (leaf, index)) }
    }

    /// Inserts a new child container at `pos` in a list or movable list and returns its ID.
    /// - Complexity: O(log n).
    @discardableResult
    public mutating func insertContainer(_ type: ContainerType, at pos: Int, in c: ContainerID) throws(CRDTError) -> ContainerID {
        let child = ContainerID.normal(id: OpID(peer: peer, counter: version[peer]), type: type)
        try insert([.container(child)], at: pos, in: c)
        return child
    }

    // MARK: map

    /// The entries of a map container (deleted keys omitted).
    /// - Complexity: O(k) for k keys.
    public func map(_ c: ContainerID) -> [String: CRDTValue] {
        (s.maps[c] ?? [:]).compactMapValues { $0.value }
    }

    /// One map value.
    /// - Complexity: O(1).
    public func get(_ key: String, in c: ContainerID) -> CRDTValue? { s.maps[c]?[key]?.value }

    /// Sets a map key (last writer by Lamport, then peer, wins).
    /// - Complexity: O(1).
    public mutating func set(_ key: String, _ value: CRDTValue, in c: ContainerID) throws(CRDTError) {
        try check(c, .map)
        let st = mutate()
        let (counter, lamport) = st.nextLocalStamp()
        st.record(Op(container: c, counter: counter, content: .mapSet(key: key, value: value)))
        st.applyMapSet(c, key: key, value: value, lamport: lamport, peer: st.peer, counter: counter)
    }

    /// Deletes a map key.
    /// - Complexity: O(1).
    public mutating func removeKey(_ key: String, in c: ContainerID) throws(CRDTError) {
        try check(c, .map)
        let st = mutate()
        let (counter, lamport) = st.nextLocalStamp()
        st.record(Op(container: c, counter: counter, content: .mapSet(key: key, value: nil)))
        st.applyMapSet(c, key: key, value: nil, lamport: lamport, peer: st.peer, counter: counter)
    }

    /// Sets a map key to a new child container and returns its ID.
    /// - Complexity: O(1).
    @discardableResult
    public mutating func setContainer(_ key: String, _ type: ContainerType, in c: ContainerID) throws(CRDTError) -> ContainerID {
        let child = ContainerID.normal(id: OpID(peer: peer, counter: version[peer]), type: type)
        try set(key, .container(child), in: c)
        return child
    }

    /// Every container that has state, sorted.
    public var containers: [ContainerID] {
        (Array(s.sequences.keys) + Array(s.maps.keys) + Array(s.trees.keys) + Array(s.counters.keys)).sorted()
    }
}
