import QuireAlgorithms

extension ByteWriter {
    mutating func treeParent(_ p: TreeParent, _ t: inout EncodeTables) {
        switch p {
        case .root: u8(0)
        case .deleted: u8(1)
        case .node(let id): u8(2); uvarint(t.peer(id.peer)); uvarint(id.counter)
        }
    }
}

extension ByteReader {
    mutating func treeParent(_ t: EncodeTables) throws(CRDTError) -> TreeParent {
        let at = offset
        switch try u8() {
        case 0: return .root
        case 1: return .deleted
        case 2: return .node(OpID(peer: try t.peer(at: &self), counter: try counter("tree parent counter")))
        default: throw CRDTError.malformedBytes(offset: at, reason: "unknown tree parent tag")
        }
    }

    mutating func id(_ t: EncodeTables) throws(CRDTError) -> OpID {
        OpID(peer: try t.peer(at: &self), counter: try counter("counter"))
    }
}

extension FugueSequence {
    /// Builds the tree from runs in document order; returns false when two runs share an ID.
    /// - Complexity: O(n log n) for the ID index.
    func build(_ elems: [Elem]) -> Bool {
        typing = nil
        var leaves: [SeqNode] = []
        let per = Self.leafCapacity * 3 / 4
        var i = 0
        while i < elems.count {
            let leaf = SeqNode(leaf: true)
            leaf.elems = Array(elems[i..<min(elems.count, i + per)])
            leaf.recomputeSummary()
            if let last = leaves.last { last.next = leaf; leaf.prev = last }
            leaves.append(leaf)
            i += per
        }
        // The ID index: collect runs per peer, sort by counter, merge neighbours in the same leaf.
        var perPeer: [PeerID: [IndexRun]] = [:]
        for leaf in leaves {
            for e in leaf.elems { perPeer[e.peer, default: []].append(IndexRun(start: e.counter, end: e.counter + e.length, leaf: leaf)) }
        }
        var unique = true
        indexSlots = [:]
        indexPeers = []
        indexRuns = []
        hotSlot = 0
        for (peer, runs) in perPeer {
            let sorted = runs.sorted { $0.start < $1.start }
            var merged: [IndexRun] = []
            merged.reserveCapacity(sorted.count)
            for r in sorted {
                if let last = merged.last, r.start < last.end { unique = false }
                if let last = merged.last, last.end == r.start, last.leaf === r.leaf { merged[merged.count - 1].end = r.end } else { merged.append(r) }
            }
            indexSlots[peer] = indexPeers.count
            indexPeers.append(peer)
            indexRuns.append(PeerRuns(sorted: merged))
        }
        guard !leaves.isEmpty else { root = SeqNode(leaf: true); return unique }
        var level = leaves
        let fan = Self.innerCapacity * 3 / 4
        while level.count > 1 {
            var up: [SeqNode] = []
            var j = 0
            while j < level.count {
                let n = SeqNode(leaf: false)
                n.children = Array(level[j..<min(level.count, j + fan)])
                for c in n.children { c.parent = n }
                n.recomputeSummary()
                up.append(n)
                j += fan
            }
            level = up
        }
        root = level[0]
        return unique
    }
}

/// The op that created a sequence element: used to complete runs when loading a snapshot.
struct Creator {
    var counter: OpCounter
    var count: Int32
    var left: OptID
    var right: OptID
    var offset: Int32
    var kind: ElemKind

    /// The creator holding `counter` in a list sorted by counter.
    /// - Complexity: O(log n).
    static func find(_ list: [Creator], _ counter: OpCounter) -> Creator? {
        let lo = list.partitioningIndex { $0.counter + $0.count > counter }
        return lo < list.count && list[lo].counter <= counter ? list[lo] : nil
    }
}

extension DocStorage {
    /// Replays the history's movable list and counter operations (a snapshot stores no state
    /// for them), in (Lamport, peer) order, storing their inserts' values in the arenas.
    /// - Complexity: O(k · log n) for k such operations.
    func rebuildMovableListsAndCounters() throws(CRDTError) {
        var ops: [(lamport: Lamport, peer: PeerID, change: Int, op: Int)] = []
        for (peer, list) in changes {
            for (i, ch) in list.enumerated() {
                for (j, op) in ch.ops.enumerated() where op.container.type == .movableList || op.container.type == .counter {
                    ops.append((ch.lamport + Lamport(op.counter - ch.counter), peer, i, j))
                }
            }
        }
        ops.sort { $0.lamport != $1.lamport ? $0.lamport < $1.lamport : $0.peer < $1.peer }
        for (lamport, peer, i, j) in ops {
            var op = changes[peer]![i].ops[j]
            // Each operation is applied right after its check, so what it refers to is in place.
            var batch = BatchIDs(), nodes: [ContainerID: Set<TreeID>] = [:], elems: [ContainerID: Set<IdLp>] = [:]
            try validate(op, peer: peer, lamport: lamport, batch: &batch, batchNodes: &nodes, batchElems: &elems)
            apply(&op, peer: peer, lamport: lamport)
            changes[peer]![i].ops[j] = op
        }
    }
}

extension CRDTDocument {
    /// Imports Quire's snapshot frame of version 2 (see ``exportSnapshot()``): its Loro snapshot
    /// as ``importLoro(_:)`` does (into an empty document without decoding it), then its
    /// waiting changes and styles. Errors in the Loro part name offsets of the whole blob.
    /// - Complexity: as ``importLoro(_:)``, plus O(size of the extras).
    @discardableResult
    mutating func importSnapshotV2(_ bytes: [UInt8]) throws(CRDTError) -> ImportStatus {
        var r = ByteReader(bytes, from: 2, to: max(2, bytes.count - 4))
        guard bytes.count >= 7 else { throw .malformedBytes(offset: bytes.count, reason: "too short for a snapshot (\(bytes.count) bytes)") }
        let lengthAt = r.offset
        let length = try r.int(max: r.remaining, "Loro snapshot length")
        let blobStart = r.offset, blobEnd = blobStart + length
        guard blobEnd <= r.end else {
            throw .malformedBytes(offset: lengthAt, reason: "a Loro snapshot of \(length) bytes runs past the end (\(r.remaining) left)")
        }
        var extras = ByteReader(bytes, from: blobEnd, to: bytes.count - 4)
        var tail = ByteReader(bytes, from: bytes.count - 4)
        let expected = try tail.u32()
        let covered = Array(bytes[0..<blobStart]) + Array(bytes[blobEnd..<(bytes.count - 4)])
        let actual = CRC32.checksum(covered, count: covered.count)
        guard expected == actual else { throw .checksumMismatch(offset: bytes.count - 4, expected: expected, actual: actual) }
        let t = try EncodeTables.read(&extras)
        let pending = try ChangeCodec.read(&extras, t)
        var styles: [String: ExpandType] = [:]
        let n = try extras.count("style count", minBytes: 2)
        for _ in 0..<n {
            let k = try extras.string()
            let at = extras.offset
            guard let e = ExpandType(rawValue: try extras.u8()) else { throw CRDTError.malformedBytes(offset: at, reason: "unknown expand type") }
            styles[k] = e
        }
        try extras.expectEnd("the snapshot")
        var staged = self
        var status: ImportStatus
        do throws(CRDTError) {
            status = try staged.importLoro(Array(bytes[blobStart..<blobEnd]))
        } catch {
            if case let .malformedBytes(offset, reason) = error { throw .malformedBytes(offset: offset + blobStart, reason: reason) }
            throw error
        }
        // Set on the storage as it is: a deferred state stays deferred.
        for (k, e) in styles where staged.storage.styles[k] == nil { staged.storage.styles[k] = e }
        if !pending.isEmpty {
            let st = staged.mutate()
            let (applied, waiting) = try st.importChanges(pending)
            status.applied += applied
            status.pending = waiting
        }
        self = staged
        return status
    }

    /// Exports the whole document (history, state, pending changes) as a snapshot blob: Quire's
    /// frame (version 2) around Loro's snapshot (``exportLoroSnapshot()``, state and history,
    /// which loads without replaying the history) and what Loro's format has no place for —
    /// the changes waiting for dependencies and the mark expand rules. Uncommitted local
    /// operations are not included; commit first. ``load(snapshot:peer:)`` also reads the
    /// version 1 frame, whose state was rebuilt from the history.
    ///
    ///     0xC7, 0x22, uleb(length) + Loro snapshot, peer and container tables, pending changes,
    ///     styles (count, then key and expand byte), CRC-32 of everything but the Loro snapshot
    ///     (which carries its own xxHash32)
    /// - Complexity: O(n) (as ``exportLoroSnapshot()``).
    public func exportSnapshot() -> [UInt8] {
        let loro = exportLoroSnapshot()
        var head = ByteWriter()
        head.u8(Frame.magic)
        head.u8(Frame.snapshotVersion << 4 | Frame.Kind.snapshot.rawValue)
        head.uvarint(loro.count)
        var extras = ByteWriter()
        var t = EncodeTables()
        var body = ByteWriter()
        ChangeCodec.write(s.pending, &body, &t, sequences: s.sequences, inlineContent: true)
        t.write(&extras)
        extras.bytes.append(contentsOf: body.bytes)
        extras.uvarint(s.styles.count)
        for k in s.styles.keys.sorted() { extras.string(k); extras.u8(s.styles[k]!.rawValue) }
        let covered = head.bytes + extras.bytes
        var out = head.bytes
        out.reserveCapacity(head.bytes.count + loro.count + extras.bytes.count + 4)
        out.append(contentsOf: loro)
        out.append(contentsOf: extras.bytes)
        var crc = ByteWriter()
        crc.u32(CRC32.checksum(covered, count: covered.count))
        return out + crc.bytes
    }

    /// Quire's snapshot frame of version 1 (history, then state rebuilt from it).
    /// - Complexity: O(n).
    func exportSnapshotV1() -> [UInt8] {
        if let full = historyDocument { return full.exportSnapshotV1() }
        let st = s
        var t = EncodeTables()
        var w = ByteWriter()
        let history = st.changes(since: VersionVector())
        ChangeCodec.write(history, &w, &t, sequences: st.sequences, inlineContent: false)
        w.uvarint(st.frontiers.ids.count)
        for f in st.frontiers.ids { w.uvarint(t.peer(f.peer)); w.uvarint(f.counter) }
        w.uvarint(st.styles.count)
        for k in st.styles.keys.sorted() { w.string(k); w.u8(st.styles[k]!.rawValue) }
        // Sequences. Each arena is rewritten in history order, so loading assigns every insert
        // op its content offset by a running sum instead of a lookup.
        var opOffsets: [ContainerID: [PeerID: [(counter: OpCounter, count: Int32, offset: Int32)]]] = [:]
        var arenas: [ContainerID: (scalars: [Unicode.Scalar], values: [CRDTValue])] = [:]
        for ch in history {
            for op in ch.ops {
                guard case let .insert(_, _, content, n) = op.content, op.container.type != .movableList, let seq = st.sequences[op.container] else { continue }
                var arena = arenas[op.container] ?? ([], [])
                let offset = Int32(op.container.type == .text ? arena.scalars.count : arena.values.count)
                if op.container.type == .text {
                    arena.scalars.append(contentsOf: seq.scalars[Int(content)..<Int(content + n)])
                } else {
                    arena.values.append(contentsOf: seq.values[Int(content)..<Int(content + n)])
                }
                arenas[op.container] = arena
                opOffsets[op.container, default: [:]][ch.peer, default: []].append((op.counter, n, offset))
            }
        }
        /// A run split where its ops' new content ranges stop being contiguous.
        func pieces(_ c: ContainerID, _ e: Elem) -> [Elem] {
            guard e.kind.rawValue < 2 else { return [e] }
            let list = opOffsets[c]?[e.peer] ?? []
            let lo = list.partitioningIndex { $0.counter + $0.count > e.counter }
            var out: [Elem] = []
            var cur = e
            cur.content = list[lo].offset + (e.counter - list[lo].counter)
            var i = lo
            while cur.counter + cur.length > list[i].counter + list[i].count {
                // The run continues into the next op; split if its content is not adjacent.
                let cut = list[i].counter + list[i].count - cur.counter
                let next = list[i + 1]
                if next.offset != cur.content + cut {
                    var right = cur
                    right.counter += cut
                    right.lamport += Lamport(cut)
                    right.length -= cut
                    right.originLeft = OptID(peer: e.peer, counter: right.counter - 1)
                    right.content = next.offset
                    cur.length = cut
                    out.append(cur)
                    cur = right
                }
                i += 1
            }
            out.append(cur)
            return out
        }
        // Movable lists and counters are rebuilt from the history when loading.
        let seqKeys = st.sequences.keys.filter { $0.type != .movableList }.sorted()
        w.uvarint(seqKeys.count)
        for c in seqKeys {
            let arena = arenas[c] ?? ([], [])
            w.uvarint(t.container(c))
            if c.type == .text {
                var v = String.UnicodeScalarView()
                v.append(contentsOf: arena.scalars)
                w.string(String(v))
            } else {
                w.uvarint(arena.values.count)
                for v in arena.values { w.value(v, &t) }
            }
            var elems: [Elem] = []
            st.sequences[c]!.forEachElem { elems.append(contentsOf: pieces(c, $0)) }
            // A run is only its ID range, kind and deletion: its Lamport, origins and content
            // offset follow from the history op that created it.
            w.uvarint(elems.count)
            var previousEnd: Int64 = 0
            for e in elems {
                // Peer index and flags (kind, deleted) share one varint.
                w.uvarint(UInt64(t.peer(e.peer)) << 3 | UInt64(e.kind.rawValue | (e.deleted ? 4 : 0)))
                w.zigzag(Int64(e.counter) - previousEnd)
                w.uvarint(e.length)
                previousEnd = Int64(e.counter + e.length)
            }
        }
        // Marks
        let markKeys = st.sequences.keys.filter { !st.sequences[$0]!.marks.isEmpty }.sorted()
        w.uvarint(markKeys.count)
        for c in markKeys {
            let table = st.sequences[c]!.marks
            w.uvarint(t.container(c))
            w.uvarint(table.count)
            for id in table.keys.sorted() {
                let m = table[id]!
                w.uvarint(t.peer(id.peer)); w.uvarint(id.counter)
                w.string(m.key); w.value(m.value, &t); w.u8(m.expand.rawValue); w.uvarint(UInt64(m.lamport))
            }
        }
        // Maps
        let mapKeys = st.maps.keys.sorted()
        w.uvarint(mapKeys.count)
        for c in mapKeys {
            let map = st.maps[c]!
            w.uvarint(t.container(c))
            w.uvarint(map.count)
            for k in map.keys.sorted() {
                let e = map[k]!
                w.string(k)
                if let v = e.value { w.u8(1); w.value(v, &t) } else { w.u8(0) }
                w.uvarint(UInt64(e.lamport)); w.uvarint(t.peer(e.peer)); w.uvarint(e.counter)
            }
        }
        // Trees: the op log is enough; the state is replayed from it.
        let treeKeys = st.trees.keys.sorted()
        w.uvarint(treeKeys.count)
        for c in treeKeys {
            let tree = st.trees[c]!
            w.uvarint(t.container(c))
            w.uvarint(tree.log.count)
            for r in tree.log {
                w.uvarint(UInt64(r.lamport)); w.uvarint(t.peer(r.peer)); w.uvarint(r.counter)
                w.uvarint(t.peer(r.target.peer)); w.uvarint(r.target.counter)
                w.treeParent(r.parent, &t)
                w.data(r.position)
            }
        }
        // Parents of child containers
        let childKeys = st.parents.keys.sorted()
        w.uvarint(childKeys.count)
        for child in childKeys {
            let (parent, slot) = st.parents[child]!
            w.uvarint(t.container(child)); w.uvarint(t.container(parent))
            switch slot {
            case .key(let k): w.u8(0); w.string(k)
            case .element(let id): w.u8(1); w.uvarint(t.peer(id.peer)); w.uvarint(id.counter)
            case .node(let id): w.u8(2); w.uvarint(t.peer(id.peer)); w.uvarint(id.counter)
            }
        }
        // Pending remote changes
        ChangeCodec.write(st.pending, &w, &t, sequences: st.sequences, inlineContent: true)
        return Frame.seal(.snapshot) { out in
            t.write(&out)
            out.bytes.append(contentsOf: w.bytes)
        }
    }

    /// Loads a snapshot into a new document for `peer`: Quire's own, or Loro's (which starts
    /// with `loro`, see ``importLoro(_:)``). Throws for malformed bytes.
    /// - Complexity: O(n).
    public static func load(snapshot bytes: [UInt8], peer: PeerID) throws(CRDTError) -> CRDTDocument {
        if LoroEnvelope.isLoro(bytes) {
            var doc = CRDTDocument(peer: peer)
            try doc.importLoro(bytes)
            return doc
        }
        if Frame.isSnapshotV2(bytes) {
            var doc = CRDTDocument(peer: peer)
            try doc.importSnapshotV2(bytes)
            return doc
        }
        let (kind, reader) = try Frame.open(bytes)
        guard kind == .snapshot else { throw .malformedBytes(offset: 1, reason: "not a snapshot") }
        var r = reader
        let t = try EncodeTables.read(&r)
        let st = DocStorage(peer: peer)
        let history = try ChangeCodec.read(&r, t)
        // Restore the history. Each arena is in history order, so an insert's content offset is
        // the running total of the inserts before it; the table of creating ops lets runs be
        // completed (Lamport, origins, content) without storing those fields twice.
        var running: [ContainerID: Int32] = [:]
        var creators: [ContainerID: [PeerID: [Creator]]] = [:]
        // Ops of one container and peer come in runs: keep their creator list and offset at hand.
        var currentKey: (ContainerID, PeerID)? = nil
        var currentCreators: [Creator] = []
        var currentOffset: Int32 = 0
        func flush() {
            guard let (c, p) = currentKey else { return }
            creators[c, default: [:]][p] = currentCreators
            running[c] = currentOffset
        }
        for var ch in history {
            guard ch.counter == st.version[ch.peer] else { throw .malformedBytes(offset: 0, reason: "history of \(ch.peer) is not contiguous") }
            for d in ch.deps {
                guard let l = st.lamport(of: d), l < ch.lamport else {
                    throw .malformedBytes(offset: 0, reason: "change \(OpID(peer: ch.peer, counter: ch.counter)) does not follow its dependency \(d)")
                }
            }
            for j in ch.ops.indices {
                let op = ch.ops[j]
                let isSequenceOp: Bool
                switch op.content {
                case .insert, .mark: isSequenceOp = true
                default: isSequenceOp = false
                }
                if isSequenceOp, currentKey.map({ $0.0 != op.container || $0.1 != ch.peer }) ?? true {
                    flush()
                    currentKey = (op.container, ch.peer)
                    currentCreators = creators[op.container]?[ch.peer] ?? []
                    currentOffset = running[op.container] ?? 0
                }
                switch op.content {
                case let .insert(l, rr, _, n):
                    guard op.container.type == .text || op.container.type == .list else {
                        throw .wrongContainerType(container: op.container, expected: .text)
                    }
                    let start = currentOffset
                    currentOffset = start + n
                    ch.ops[j].content = .insert(left: l, right: rr, content: start, count: n)
                    currentCreators.append(Creator(counter: op.counter, count: n, left: l, right: rr, offset: start,
                                                   kind: op.container.type == .text ? .text : .value))
                case let .mark(m):
                    currentCreators.append(Creator(counter: op.counter, count: 1, left: m.startLeft, right: m.startRight, offset: 0, kind: .markStart))
                    currentCreators.append(Creator(counter: op.counter + 1, count: 1, left: m.endLeft, right: m.endRight, offset: 0, kind: .markEnd))
                case .insertValues where op.container.type == .movableList:
                    break
                case .insertText, .insertValues:
                    throw .malformedBytes(offset: 0, reason: "inline insert in snapshot history")
                default: break
                }
            }
            st.changes[ch.peer, default: []].append(ch)
            st.version.extend(peer: ch.peer, to: ch.end)
            st.nextLamport = max(st.nextLamport, ch.lamport + Lamport(ch.length))
        }
        flush()
        let nf = try r.count("frontier count", minBytes: 2)
        var fr: [OpID] = []
        for _ in 0..<nf { fr.append(try r.id(t)) }
        let ns = try r.count("style count", minBytes: 2)
        for _ in 0..<ns {
            let k = try r.string()
            let at = r.offset
            guard let e = ExpandType(rawValue: try r.u8()) else { throw CRDTError.malformedBytes(offset: at, reason: "unknown expand type") }
            st.styles[k] = e
        }
        let nseq = try r.count("sequence count", minBytes: 3)
        for _ in 0..<nseq {
            let c = try t.container(at: &r)
            let seq = FugueSequence()
            var arenaCount = 0
            if c.type == .text {
                seq.scalars = try r.scalars()
                arenaCount = seq.scalars.count
            } else if c.type == .list {
                let n = try r.count("value count")
                seq.values.reserveCapacity(n)
                for _ in 0..<n { seq.values.append(try r.value(t)) }
                arenaCount = seq.values.count
            } else {
                throw CRDTError.malformedBytes(offset: r.offset, reason: "\(c) is not a sequence")
            }
            guard Int(running[c] ?? 0) <= arenaCount else {
                throw CRDTError.malformedBytes(offset: r.offset, reason: "\(c) history inserts more than its content")
            }
            let n = try r.count("run count", minBytes: 3)
            var elems: [Elem] = []
            elems.reserveCapacity(n)
            var previousEnd: Int64 = 0
            let containerCreators = creators[c] ?? [:]
            var cachedPeer: PeerID? = nil
            var peerCreators: [Creator] = []
            var peerChanges: [Change] = []
            for _ in 0..<n {
                let at = r.offset
                let head = try r.uvarint()
                guard head >> 3 < UInt64(t.peers.count) else { throw CRDTError.malformedBytes(offset: at, reason: "run peer index out of range") }
                let p = t.peers[Int(head >> 3)]
                let flags = UInt8(head & 7)
                let counter64 = previousEnd + (try r.zigzag())
                let len = try r.counter("run length")
                guard counter64 >= 0, counter64 + Int64(len) <= Int64(Int32.max), len > 0,
                      let kind = ElemKind(rawValue: flags & 3), flags & ~7 == 0 else {
                    throw CRDTError.malformedBytes(offset: at, reason: "bad run")
                }
                let counter = OpCounter(counter64)
                previousEnd = counter64 + Int64(len)
                if cachedPeer != p {
                    cachedPeer = p
                    peerCreators = containerCreators[p] ?? []
                    peerChanges = st.changes[p] ?? []
                }
                guard let op = Creator.find(peerCreators, counter), op.kind == kind,
                      Creator.find(peerCreators, counter + len - 1)?.kind == kind,
                      let lamport = DocStorage.lamport(in: peerChanges, counter) else {
                    throw CRDTError.malformedBytes(offset: at, reason: "run \(OpID(peer: p, counter: counter)) has no creating op in \(c)")
                }
                var e = Elem(peer: p, counter: counter, lamport: lamport, length: len,
                             originLeft: counter == op.counter ? op.left : OptID(peer: p, counter: counter - 1), originRight: op.right,
                             content: 0, utf16: 0, utf8: 0, kind: kind, deleted: flags & 4 != 0)
                if kind.rawValue < 2 {
                    let content = Int64(op.offset) + Int64(counter - op.counter)
                    guard content + Int64(len) <= Int64(arenaCount) else { throw CRDTError.malformedBytes(offset: at, reason: "run content out of range") }
                    e.content = Int32(content)
                    if kind == .text {
                        e.utf16 = seq.utf16Count(e.content, len)
                        e.utf8 = seq.utf8Count(e.content, len)
                    } else {
                        e.utf16 = len; e.utf8 = len
                    }
                } else if len != 1 {
                    throw CRDTError.malformedBytes(offset: at, reason: "anchor run longer than 1")
                }
                elems.append(e)
            }
            // Element IDs must be unique.
            guard seq.build(elems) else { throw CRDTError.malformedBytes(offset: r.offset, reason: "overlapping element IDs in \(c)") }
            st.sequences[c] = seq
        }
        // Every container the history inserts into must have its content.
        for (c, total) in running where total > 0 && st.sequences[c] == nil {
            throw .invalidReference(container: c, id: OpID(peer: 0, counter: 0), reason: "history inserts into a container without content")
        }
        let nm = try r.count("mark container count", minBytes: 2)
        for _ in 0..<nm {
            let c = try t.container(at: &r)
            let k = try r.count("mark count", minBytes: 5)
            var table: [OpID: MarkInfo] = [:]
            for _ in 0..<k {
                let id = try r.id(t)
                let key = try r.string(), value = try r.value(t)
                let at = r.offset
                guard let e = ExpandType(rawValue: try r.u8()) else { throw CRDTError.malformedBytes(offset: at, reason: "unknown expand type") }
                let lam = try r.int(max: Int(UInt32.max), "mark Lamport")
                table[id] = MarkInfo(key: key, value: value, expand: e, lamport: Lamport(lam), peer: id.peer)
            }
            guard let seq = st.sequences[c] else { throw CRDTError.malformedBytes(offset: r.offset, reason: "marks for a missing text") }
            seq.marks = table
        }
        let nmap = try r.count("map count", minBytes: 2)
        for _ in 0..<nmap {
            let c = try t.container(at: &r)
            let k = try r.count("entry count", minBytes: 4)
            var map: [String: MapEntry] = [:]
            for _ in 0..<k {
                let key = try r.string()
                let has = try r.u8()
                let v: CRDTValue? = has == 1 ? try r.value(t) : nil
                let lam = try r.int(max: Int(UInt32.max), "entry Lamport")
                map[key] = MapEntry(value: v, lamport: Lamport(lam), peer: try t.peer(at: &r), counter: try r.counter("entry counter"))
            }
            st.maps[c] = map
        }
        let ntree = try r.count("tree count", minBytes: 2)
        for _ in 0..<ntree {
            let c = try t.container(at: &r)
            let k = try r.count("tree op count", minBytes: 6)
            var tree = TreeState()
            var none: [TreeDiff] = []
            for _ in 0..<k {
                let lam = try r.int(max: Int(UInt32.max), "tree op Lamport")
                let p = try t.peer(at: &r)
                let counter = try r.counter("tree op counter")
                let target = try r.id(t)
                let parent = try r.treeParent(t)
                let rec = TreeOpRecord(lamport: Lamport(lam), peer: p, counter: counter, target: target, parent: parent, position: try r.data())
                tree.apply(rec, diffs: &none, record: false)
            }
            st.trees[c] = tree
        }
        let np = try r.count("parent count", minBytes: 3)
        for _ in 0..<np {
            let child = try t.container(at: &r), parent = try t.container(at: &r)
            let at = r.offset
            switch try r.u8() {
            case 0: st.parents[child] = (parent, .key(try r.string()))
            case 1: st.parents[child] = (parent, .element(try r.id(t)))
            case 2: st.parents[child] = (parent, .node(try r.id(t)))
            default: throw CRDTError.malformedBytes(offset: at, reason: "unknown parent slot")
            }
        }
        st.pending = try ChangeCodec.read(&r, t)
        guard r.isAtEnd else { throw .malformedBytes(offset: r.offset, reason: "trailing bytes after the snapshot") }
        try st.rebuildMovableListsAndCounters()
        st.frontiers = Frontiers(fr)
        var doc = CRDTDocument(peer: peer)
        doc.s = st
        return doc
    }
}
