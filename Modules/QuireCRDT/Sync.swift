import QuireAlgorithms

/// What an import did: the spans applied now and the spans waiting for missing dependencies.
public struct ImportStatus: Sendable, Equatable {
    /// Operation spans applied by this import (including earlier pending ones unblocked now).
    public var applied: [IDSpan]
    /// Operation spans still waiting for dependencies.
    public var pending: [IDSpan]
    /// The events of the import, when the document records them.
    public var event: DocumentEvent?
}

extension Change {
    /// The part of this change from counter `k` on (k inside the change).
    func slice(from k: OpCounter) -> Change? {
        guard k > counter else { return self }
        guard k < end else { return nil }
        var ops: [Op] = []
        // Ops are in counter order: skip those ending at or before k by binary search.
        for op in self.ops[self.ops.partitioningIndex { $0.counter + $0.length > k }...] {
            let opEnd = op.counter + op.length
            if opEnd <= k { continue }
            if op.counter >= k { ops.append(op); continue }
            let cut = k - op.counter
            var o = op
            o.counter = k
            switch op.content {
            case let .insert(_, r, content, n):
                o.content = .insert(left: OptID(peer: peer, counter: k - 1), right: r, content: content + cut, count: n - cut)
            case let .insertText(_, r, s):
                o.content = .insertText(left: OptID(peer: peer, counter: k - 1), right: r, Array(s[Int(cut)...]))
            case let .insertValues(_, r, v):
                o.content = .insertValues(left: OptID(peer: peer, counter: k - 1), right: r, Array(v[Int(cut)...]))
            case let .delete(spans):
                var skip = cut
                var rest: [DelSpan] = []
                for sp in spans {
                    if skip >= sp.count { skip -= sp.count; continue }
                    rest.append(sp.dropping(skip))
                    skip = 0
                }
                o.content = .delete(rest)
            case .mark, .mapSet, .tree, .move, .setValue, .counter:
                continue
            }
            ops.append(o)
        }
        guard let first = ops.first else { return nil }
        return Change(peer: peer, counter: first.counter, lamport: lamport + Lamport(first.counter - counter),
                      deps: [OpID(peer: peer, counter: first.counter - 1)], ops: ops, length: end - first.counter, timestamp: timestamp, message: message)
    }
}

/// Element IDs created earlier in the batch being validated (one container), per peer as sorted
/// ranges. Peers are few, so they are searched linearly (no hashing on the hot path).
struct BatchIDs {
    var peers: [PeerID] = []
    var ranges: [[(OpCounter, OpCounter)]] = []

    @inline(__always) func slot(_ peer: PeerID) -> Int? {
        for i in peers.indices where peers[i] == peer { return i }
        return nil
    }

    /// - Complexity: O(p) to find the peer, then O(1) when appending in counter order (the
    ///   usual case), O(r) otherwise.
    mutating func insert(peer: PeerID, start: OpCounter, end: OpCounter) {
        guard let i = slot(peer) else {
            peers.append(peer)
            ranges.append([(start, end)])
            return
        }
        BatchIDs.add(&ranges[i], start, end)
    }

    private static func add(_ list: inout [(OpCounter, OpCounter)], _ start: OpCounter, _ end: OpCounter) {
        if let last = list.last {
            if last.1 == start { list[list.count - 1].1 = end; return }
            if last.1 < start { list.append((start, end)); return }
        } else {
            list.append((start, end)); return
        }
        let i = list.firstIndex { $0.0 > start } ?? list.count
        list.insert((start, end), at: i)
    }

    /// One past the last counter of the range holding `id`, when it is in the batch.
    /// - Complexity: O(p + log r).
    func knownEnd(from id: OpID) -> OpCounter? {
        guard let i = slot(id.peer) else { return nil }
        return ranges[i].withUnsafeBufferPointer { list in
            let lo = list.partitioningIndex { $0.1 > id.counter }
            return lo < list.count && list[lo].0 <= id.counter ? list[lo].1 : nil
        }
    }

    /// - Complexity: O(p + log r).
    func contains(_ id: OpID) -> Bool { knownEnd(from: id) != nil }
}

extension DocStorage {
    /// Committed changes not included in `vv`, in causal (Lamport) order.
    /// - Complexity: O(c log c) for c changes.
    func changes(since vv: VersionVector) -> [Change] {
        var out: [Change] = []
        for (peer, list) in changes {
            let known = vv[peer]
            guard let last = list.last, last.end > known else { continue }
            for i in list.partitioningIndex(where: { $0.end > known })..<list.count {
                if let c = list[i].slice(from: known) { out.append(c) }
            }
        }
        out.sort { $0.lamport != $1.lamport ? $0.lamport < $1.lamport : ($0.peer != $1.peer ? $0.peer < $1.peer : $0.counter < $1.counter) }
        return out
    }

    /// Checks that every reference of `op` exists in this document or earlier in the batch.
    /// `batch` holds what the batch created in `op.container`.
    func validate(_ op: Op, peer: PeerID, lamport: Lamport, batch: inout BatchIDs, batchNodes: inout [ContainerID: Set<TreeID>],
                  batchElems: inout [ContainerID: Set<IdLp>]) throws(CRDTError) {
        let c = op.container
        let seq = c.type.isSequence ? existingSequence(c) : nil
        func known(_ o: OptID) throws(CRDTError) {
            guard let id = o.id else { return }
            if seq?.leaf(of: id) != nil { return }
            if batch.contains(id) { return }
            throw .invalidReference(container: c, id: id, reason: "no such element")
        }
        switch op.content {
        case let .insertText(l, r, s):
            guard c.type == .text else { throw .wrongContainerType(container: c, expected: .text) }
            try known(l); try known(r)
            batch.insert(peer: peer, start: op.counter, end: op.counter + Int32(s.count))
        case let .insertValues(l, r, v):
            guard c.type == .list || c.type == .movableList else { throw .wrongContainerType(container: c, expected: .list) }
            try known(l); try known(r)
            batch.insert(peer: peer, start: op.counter, end: op.counter + Int32(v.count))
            if c.type == .movableList {
                for k in 0..<v.count { batchElems[c, default: []].insert(IdLp(peer: peer, lamport: lamport + Lamport(k))) }
            }
        case .insert:
            throw .invalidReference(container: c, id: OpID(peer: peer, counter: op.counter), reason: "insert without content")
        case let .delete(spans):
            guard c.type.isSequence else { throw .wrongContainerType(container: c, expected: .list) }
            // Every targeted element must exist, in the document or earlier in the batch.
            for d in spans {
                let s = d.ascending
                var counter = s.start
                while counter < s.end {
                    let id = OpID(peer: s.peer, counter: counter)
                    guard let end = seq?.knownEnd(from: id) ?? batch.knownEnd(from: id) else {
                        throw .invalidReference(container: c, id: id, reason: "deleting an unknown element")
                    }
                    counter = end
                }
            }
        case let .mark(m):
            guard c.type == .text else { throw .wrongContainerType(container: c, expected: .text) }
            try known(m.startLeft); try known(m.startRight)
            batch.insert(peer: peer, start: op.counter, end: op.counter + 1)
            if m.endLeft.id != OpID(peer: peer, counter: op.counter) { try known(m.endLeft) }
            if m.endRight.id != OpID(peer: peer, counter: op.counter) { try known(m.endRight) }
            batch.insert(peer: peer, start: op.counter + 1, end: op.counter + 2)
        case .mapSet:
            guard c.type == .map else { throw .wrongContainerType(container: c, expected: .map) }
        case let .tree(target, parent, _):
            guard c.type == .tree else { throw .wrongContainerType(container: c, expected: .tree) }
            let opID = OpID(peer: peer, counter: op.counter)
            func exists(_ n: TreeID) -> Bool { trees[c]?.nodes[n] != nil || batchNodes[c]?.contains(n) == true }
            if target != opID, !exists(target) { throw .invalidReference(container: c, id: target, reason: "no such tree node") }
            if case .node(let p) = parent, p != target, !exists(p) { throw .invalidReference(container: c, id: p, reason: "no such parent node") }
            batchNodes[c, default: []].insert(target)
        case let .move(elem, from, l, r):
            guard c.type == .movableList else { throw .wrongContainerType(container: c, expected: .movableList) }
            try known(l); try known(r); try known(OptID(from))
            guard movables[c]?.elements[elem] != nil || batchElems[c]?.contains(elem) == true else {
                throw .invalidReference(container: c, id: OpID(peer: elem.peer, counter: 0), reason: "moving an unknown element \(elem)")
            }
            batch.insert(peer: peer, start: op.counter, end: op.counter + 1)
        case let .setValue(elem, _):
            guard c.type == .movableList else { throw .wrongContainerType(container: c, expected: .movableList) }
            guard movables[c]?.elements[elem] != nil || batchElems[c]?.contains(elem) == true else {
                throw .invalidReference(container: c, id: OpID(peer: elem.peer, counter: 0), reason: "setting an unknown element \(elem)")
            }
        case .counter:
            guard c.type == .counter else { throw .wrongContainerType(container: c, expected: .counter) }
        }
    }

    /// Applies a remote change whose dependencies are present (already validated), turning its
    /// ops into their stored form in place: when `change` holds the only reference to its ops
    /// (an import's decoded changes), no op is copied and each decoded content is freed as it
    /// is converted.
    func apply(_ change: inout Change) {
        for i in change.ops.indices {
            let counter = change.ops[i].counter
            apply(&change.ops[i], peer: change.peer, lamport: change.lamport + Lamport(counter - change.counter))
        }
        changes[change.peer, default: []].append(change)
        version.extend(peer: change.peer, to: change.end)
        frontiers.advance(lastID: change.lastID, deps: change.deps)
        nextLamport = max(nextLamport, change.lamport + Lamport(change.length))
    }

    /// Applies one remote operation (validated) and turns a decoded insert into the stored form
    /// whose content lives in the container's arena. A stored insert into a movable list
    /// (content already in the arena) is replayed as is: rebuilding a list from its history.
    /// - Complexity: O(log n) per run, plus Fugue integration and events.
    func apply(_ op: inout Op, peer: PeerID, lamport: Lamport) {
        let c = op.container
        switch op.content {
        case let .insertText(l, r, scalars):
            let seq = sequence(c)
            let start = Int32(seq.scalars.count)
            var u16: Int32 = 0, u8: Int32 = 0
            for sc in scalars { u16 += sc.value > 0xFFFF ? 2 : 1; u8 += Int32(UTF8.width(sc)) }
            seq.scalars.append(contentsOf: scalars)
            let n = Int32(scalars.count)
            applyInsert(c, seq, Elem(peer: peer, counter: op.counter, lamport: lamport, length: n, originLeft: l, originRight: r,
                                     content: start, utf16: u16, utf8: u8, kind: .text, deleted: false), slot: nil)
            op.content = .insert(left: l, right: r, content: start, count: n)
        case let .insertValues(l, r, values):
            let seq = sequence(c)
            let start = Int32(seq.values.count)
            seq.values.append(contentsOf: values)
            let n = Int32(values.count)
            let run = Elem(peer: peer, counter: op.counter, lamport: lamport, length: n, originLeft: l, originRight: r,
                           content: start, utf16: n, utf8: n, kind: .value, deleted: false)
            if c.type == .movableList { applyMovableInsert(c, seq, run, slot: nil) } else { applyInsert(c, seq, run, slot: nil) }
            op.content = .insert(left: l, right: r, content: start, count: n)
        case let .insert(l, r, content, n):
            guard c.type == .movableList else { break }
            applyMovableInsert(c, sequence(c), Elem(peer: peer, counter: op.counter, lamport: lamport, length: n, originLeft: l, originRight: r,
                                                    content: content, utf16: n, utf8: n, kind: .value, deleted: false), slot: nil)
        case let .delete(spans):
            if c.type == .movableList { applyMovableDelete(c, sequence(c), spans) } else { applyDelete(c, sequence(c), spans) }
        case let .move(elem, from, l, r):
            let item = Elem(peer: peer, counter: op.counter, lamport: lamport, length: 1, originLeft: l, originRight: r,
                            content: 0, utf16: 1, utf8: 1, kind: .value, deleted: false)
            applyMove(c, sequence(c), item, elem: elem, from: from, slot: nil)
        case let .setValue(elem, value):
            applySetValue(c, elem: elem, value: value, id: IdLp(peer: peer, lamport: lamport))
        case let .counter(delta):
            applyCounter(c, delta)
        case let .mark(m):
            let seq = sequence(c)
            let markID = OpID(peer: peer, counter: op.counter)
            seq.marks[markID] = MarkInfo(key: m.key, value: m.value, expand: m.expand, lamport: lamport, peer: peer)
            seq.integrate(Elem(peer: peer, counter: op.counter, lamport: lamport, length: 1, originLeft: m.startLeft, originRight: m.startRight,
                               content: 0, utf16: 0, utf8: 0, kind: .markStart, deleted: false))
            seq.integrate(Elem(peer: peer, counter: op.counter + 1, lamport: lamport + 1, length: 1, originLeft: m.endLeft, originRight: m.endRight,
                               content: 0, utf16: 0, utf8: 0, kind: .markEnd, deleted: false))
            emitMark(c, seq, markID: markID, key: m.key)
        case let .mapSet(key, value):
            applyMapSet(c, key: key, value: value, lamport: lamport, peer: peer, counter: op.counter)
        case let .tree(target, parent, position):
            applyTree(c, TreeOpRecord(lamport: lamport, peer: peer, counter: op.counter, target: target, parent: parent, position: position))
        }
    }

    /// Imports decoded changes: validates everything first (throwing leaves the document
    /// unchanged), then applies what is ready in causal order and keeps the rest pending.
    /// The decoded changes are taken over (`incoming` consumed, the lists below released before
    /// applying) so that the ready list holds the only reference to their ops.
    func importChanges(_ incoming: consuming [Change]) throws(CRDTError) -> (applied: [IDSpan], pending: [IDSpan]) {
        var candidates = pending
        candidates.append(contentsOf: consume incoming)
        candidates.sort { $0.lamport != $1.lamport ? $0.lamport < $1.lamport : $0.peer < $1.peer }
        var vv = version
        if !txnOps.isEmpty { vv.extend(peer: peer, to: txnCounter + txnLength) }
        var ready: [Change] = []
        var waiting: [Change] = []
        var progress = true
        var remaining = consume candidates
        while progress {
            progress = false
            waiting.removeAll()
            for ch in remaining {
                let known = vv[ch.peer]
                if ch.end <= known { continue }
                if ch.counter > known || !ch.deps.allSatisfy({ vv.includes($0) }) { waiting.append(ch); continue }
                guard let part = ch.slice(from: known) else { continue }
                ready.append(part)
                vv.extend(peer: part.peer, to: part.end)
                progress = true
            }
            remaining = waiting
        }
        // Validate before touching anything. Lamport timestamps must grow along dependencies.
        var readyByPeer: [PeerID: [Change]] = [:]
        for ch in ready {
            for d in ch.deps {
                // Operations before a shallow root have no recorded Lamport (the root is older).
                if lamport(of: d) == nil, shallowRoot?.version.includes(d) == true { continue }
                let l = lamport(of: d) ?? readyByPeer[d.peer].flatMap { DocStorage.lamport(in: $0, d.counter) }
                guard let l, l < ch.lamport else {
                    throw .invalidReference(container: .root(name: "", type: .map), id: OpID(peer: ch.peer, counter: ch.counter),
                                            reason: "Lamport \(ch.lamport) does not exceed its dependency \(d)")
                }
            }
            readyByPeer[ch.peer, default: []].append(ch)
        }
        var batches: [ContainerID: BatchIDs] = [:]
        var batchNodes: [ContainerID: Set<TreeID>] = [:]
        var batchElems: [ContainerID: Set<IdLp>] = [:]
        // Ops of one container come in runs: keep that container's batch at hand.
        var currentContainer: ContainerID? = nil
        var current = BatchIDs()
        for ch in ready {
            // Ops are validated in place, through the buffer: copying each out (which indexing
            // the array still did) retained and released its content.
            try ch.ops.withUnsafeBufferPointer { (ops) throws(CRDTError) in
                for i in ops.indices {
                    if currentContainer.map({ $0 != ops[i].container }) ?? true {
                        if let previous = currentContainer { batches[previous] = current }
                        currentContainer = ops[i].container
                        current = batches.removeValue(forKey: ops[i].container) ?? BatchIDs()
                    }
                    let opCounter = ops[i].counter
                    do throws(CRDTError) {
                        try validate(ops[i], peer: ch.peer, lamport: ch.lamport + Lamport(opCounter - ch.counter), batch: &current, batchNodes: &batchNodes, batchElems: &batchElems)
                    } catch {
                        // Name the refused operation, which importers map back to where it came from.
                        let reason: String
                        if case let .invalidReference(_, target, why) = error { reason = "refers to \(target): \(why)" } else { reason = error.description }
                        throw .invalidReference(container: ops[i].container, id: OpID(peer: ch.peer, counter: opCounter), reason: reason)
                    }
                }
            }
        }
        commit()
        readyByPeer = [:]
        remaining = []
        for k in ready.indices { apply(&ready[k]) }
        pending = waiting
        func spans(_ list: [Change]) -> [IDSpan] { list.map { IDSpan(peer: $0.peer, start: $0.counter, end: $0.end) } }
        return (spans(ready), spans(waiting))
    }
}

extension CRDTDocument {
    /// Exports the committed changes not included in `version` as an update blob.
    /// - Complexity: O(size of the exported changes).
    public func exportUpdates(since version: VersionVector = VersionVector()) -> [UInt8] {
        if needsHistory(below: version), let full = historyDocument { return full.exportUpdates(since: version) }
        let list = s.changes(since: version)
        var t = EncodeTables()
        var body = ByteWriter()
        ChangeCodec.write(list, &body, &t, sequences: s.sequences, inlineContent: true)
        return Frame.seal(.updates) { w in
            t.write(&w)
            w.bytes.append(contentsOf: body.bytes)
        }
    }

    /// Imports an update or snapshot blob. Idempotent and order-independent: changes whose
    /// dependencies are missing wait and apply when they arrive. Malformed, corrupted or hostile
    /// bytes throw and leave the document unchanged. Pending local operations are committed first.
    /// Loro's binary blobs (they start with `loro`) go to ``importLoro(_:)``.
    /// - Complexity: O(ops · log n) plus O(k · log n) per concurrent run integrated.
    @discardableResult
    public mutating func importUpdates(_ bytes: [UInt8]) throws(CRDTError) -> ImportStatus {
        if LoroEnvelope.isLoro(bytes) { return try importLoro(bytes) }
        if Frame.isSnapshotV2(bytes) { return try importSnapshotV2(bytes) }
        // Quire's updates carry Fugue origins, which a deferred snapshot's state does not have.
        materializeHistory()
        let (kind, reader) = try Frame.open(bytes)
        var r = reader
        let incoming: [Change]
        switch kind {
        case .updates:
            let t = try EncodeTables.read(&r)
            incoming = try ChangeCodec.read(&r, t)
            guard r.isAtEnd else { throw .malformedBytes(offset: r.offset, reason: "trailing bytes after the changes") }
        case .snapshot:
            let other = try CRDTDocument.load(snapshot: bytes, peer: peer)
            // A fresh document takes the snapshot's state as is (no events are produced, so a
            // document that records events goes through the update path instead).
            if s.changes.isEmpty && s.txnOps.isEmpty && s.pending.isEmpty && !s.recordEvents {
                let keep = (s.peer, s.recordEvents, s.styles)
                s = other.s
                s.peer = keep.0
                s.recordEvents = keep.1
                for (k, v) in keep.2 { s.styles[k] = v }
                let status = ImportStatus(applied: s.version.spans(notIn: VersionVector()), pending: s.pending.map { IDSpan(peer: $0.peer, start: $0.counter, end: $0.end) }, event: nil)
                return status
            }
            let u = other.exportUpdates(since: version)
            return try importUpdates(u)
        }
        let (applied, pendingSpans) = try mutate().importChanges(consume incoming)
        return ImportStatus(applied: applied, pending: pendingSpans, event: takeEvents(.import))
    }
}
