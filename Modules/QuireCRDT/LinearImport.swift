// Position-based changes (Loro's JSON and binary updates) whose dependencies are exactly the
// document's frontiers need no version-scoped view: at that version every element of the
// document exists, so a position is read off the document itself, the right origin is the
// element right after the left one, and the insert goes straight into its slot, as a local
// insert does. A whole history imported into an empty document takes this path change after
// change; it hands over to the general importer (`LoroJSONImporter`) at the first change that
// is concurrent, touches a text with marks or a movable list, or that it cannot check.

extension DocStorage {
    /// Whether `change` can be applied by ``applyLinearly(_:source:)``: it starts at this peer's
    /// next counter, depends on exactly the frontiers, and only uses positions in texts without
    /// marks and in lists (maps, trees and counters take no positions).
    /// - Complexity: O(ops + d log d) for d dependencies (a dictionary lookup per run of
    ///   operations on one container).
    func canApplyLinearly(_ change: LoroJSONChange) -> Bool {
        guard change.id.counter == version[change.id.peer], change.deps.sorted() == frontiers.ids else { return false }
        for d in change.deps {
            guard let l = lamport(of: d), l < change.lamport else { return false }
        }
        // Consecutive operations mostly share their container: look its marks up once. The ops
        // are read in place (copying each one out would retain its text and container).
        var unmarked = -1
        return change.ops.withUnsafeBufferPointer { ops in
            for i in ops.indices {
                let type = ops[i].container.type
                switch ops[i].content {
                case .insertText, .delete, .insertValues:
                    guard type == .text || type == .list else { return false }
                    // Compared in place with the last op checked (no container copied out).
                    if unmarked < 0 || ops[i].container != ops[unmarked].container {
                        if let seq = sequences[ops[i].container], !seq.marks.isEmpty { return false }
                        unmarked = i
                    }
                case .mark, .markEnd, .move, .setValue:
                    return false
                case .mapInsert, .mapDelete:
                    guard type == .map else { return false }
                case .treeCreate, .treeMove, .treeDelete:
                    guard type == .tree else { return false }
                case .counter:
                    guard type == .counter else { return false }
                }
            }
            return true
        }
    }

    /// Applies a change that ``canApplyLinearly(_:)`` accepted. A position out of range or a
    /// reference to nothing throws after earlier operations were applied: callers run it on a
    /// storage they can throw away.
    /// - Complexity: O(k · log n) for k operations (plus the events when recorded).
    /// `capacity` is the text each container will receive, to reserve before its first insert.
    func applyLinearly(_ change: LoroJSONChange, source: String, capacity: [ContainerID: Int] = [:]) throws(LoroJSONError) {
        let peer = change.id.peer
        var ops: [Op] = []
        ops.reserveCapacity(change.ops.count)
        // Each op is read in place (copying it out would retain and release its container and
        // content), and its sequence looked up only when the container changes.
        var seqOf: (op: Int, seq: FugueSequence)?
        for j in change.ops.indices {
            let c = change.ops[j].container
            let opCounter = change.ops[j].counter
            let lamport = change.lamport + Lamport(opCounter - change.id.counter)
            /// The sequence of the op's container.
            func opSequence() -> FugueSequence {
                if let cached = seqOf, change.ops[cached.op].container == change.ops[j].container { seqOf = (j, cached.seq); return cached.seq }
                let seq = sequence(c)
                seqOf = (j, seq)
                return seq
            }
            // Only errors need the path: building it for every operation cost as much as a delete.
            var path: String { "\(source).ops[\(j)]" }
            func beyond(_ what: String, _ length: Int) -> LoroJSONError {
                .invalidOperation(path: path, reason: "\(what) is beyond the length \(length) at this change's version")
            }
            switch change.ops[j].content {
            case let .insertText(pos, text):
                let seq = opSequence()
                guard pos <= seq.summary.count else { throw beyond("insert position \(pos)", seq.summary.count) }
                let (left, right, leaf, index) = insertionPoint(seq, c, at: pos)
                if seq.scalars.isEmpty, let n = capacity[c] { seq.scalars.reserveCapacity(n) }
                let start = Int32(seq.scalars.count)
                let (n, u16, u8) = seq.appendScalars(of: text)
                applyInsert(c, seq, Elem(peer: peer, counter: opCounter, lamport: lamport, length: n, originLeft: left, originRight: right,
                                         content: start, utf16: u16, utf8: u8, kind: .text, deleted: false), slot: (leaf, index))
                ops.append(Op(container: c, counter: opCounter, content: .insert(left: left, right: right, content: start, count: n)))
            case let .insertValues(pos, values):
                for (k, v) in values.enumerated() {
                    try LoroJSONImporter.checkCreatedContainer(v, expected: OpID(peer: peer, counter: opCounter + OpCounter(k)), path: "\(path).content.value[\(k)]")
                }
                let seq = opSequence()
                guard pos <= seq.summary.count else { throw beyond("insert position \(pos)", seq.summary.count) }
                let (left, right, leaf, index) = insertionPoint(seq, c, at: pos)
                let start = Int32(seq.values.count)
                seq.values.append(contentsOf: values)
                let n = Int32(values.count)
                applyInsert(c, seq, Elem(peer: peer, counter: opCounter, lamport: lamport, length: n, originLeft: left, originRight: right,
                                         content: start, utf16: n, utf8: n, kind: .value, deleted: false), slot: (leaf, index))
                ops.append(Op(container: c, counter: opCounter, content: .insert(left: left, right: right, content: start, count: n)))
            case let .delete(pos, len, _):
                let seq = opSequence()
                let n = Int(len.magnitude)
                let first = len > 0 ? pos : pos - n + 1
                guard first >= 0, first + n <= seq.summary.count else { throw beyond("delete of \(n) at \(first)", seq.summary.count) }
                var spans = seq.deleteVisible(from: first, count: n)
                emitDelete(c, at: first, count: n)
                // Atom i of a forward delete removes the element at pos + i; of a backward one, at
                // pos - i: the runs in reverse, each counting down (turned in place, no new array).
                if len < 0 {
                    spans.reverse()
                    for i in spans.indices where spans[i].length > 1 {
                        spans[i] = DelSpan(peer: spans[i].peer, start: spans[i].start + spans[i].length - 1, length: -spans[i].length)
                    }
                }
                ops.append(Op(container: c, counter: opCounter, content: .delete(spans)))
            case let .mapInsert(key, value):
                try LoroJSONImporter.checkCreatedContainer(value, expected: OpID(peer: peer, counter: opCounter), path: "\(path).content.value")
                applyMapSet(c, key: key, value: value, lamport: lamport, peer: peer, counter: opCounter)
                ops.append(Op(container: c, counter: opCounter, content: .mapSet(key: key, value: value)))
            case let .mapDelete(key):
                applyMapSet(c, key: key, value: nil, lamport: lamport, peer: peer, counter: opCounter)
                ops.append(Op(container: c, counter: opCounter, content: .mapSet(key: key, value: nil)))
            case let .treeCreate(node, parent, index), let .treeMove(node, parent, index):
                let isCreate = if case .treeCreate = change.ops[j].content { true } else { false }
                let opID = OpID(peer: peer, counter: opCounter)
                guard isCreate ? node == opID : trees[c]?.nodes[node] != nil else {
                    throw .invalidOperation(path: "\(path).content.target", reason: isCreate ? "a created node must have the op's ID \(opID), got \(node)" : "no such tree node \(node)")
                }
                if let parent, parent != node, trees[c]?.nodes[parent] == nil {
                    throw .invalidOperation(path: "\(path).content.parent", reason: "no such parent node \(parent)")
                }
                let target: TreeParent = parent.map { .node($0) } ?? .root
                applyTree(c, TreeOpRecord(lamport: lamport, peer: peer, counter: opCounter, target: node, parent: target, position: index))
                ops.append(Op(container: c, counter: opCounter, content: .tree(target: node, parent: target, position: index)))
            case let .treeDelete(node):
                guard trees[c]?.nodes[node] != nil else { throw .invalidOperation(path: "\(path).content.target", reason: "no such tree node \(node)") }
                applyTree(c, TreeOpRecord(lamport: lamport, peer: peer, counter: opCounter, target: node, parent: .deleted, position: []))
                ops.append(Op(container: c, counter: opCounter, content: .tree(target: node, parent: .deleted, position: [])))
            case let .counter(delta):
                applyCounter(c, delta)
                ops.append(Op(container: c, counter: opCounter, content: .counter(delta)))
            case .mark, .markEnd, .move, .setValue:
                throw .invalidOperation(path: path, reason: "not an operation of a linear change")
            }
        }
        let length = OpCounter(change.length)
        changes[peer, default: []].append(Change(peer: peer, counter: change.id.counter, lamport: change.lamport, deps: change.deps, ops: ops,
                                                 length: length, timestamp: change.timestamp, message: change.message))
        version.extend(peer: peer, to: change.id.counter + length)
        frontiers.advance(lastID: OpID(peer: peer, counter: change.id.counter + length - 1), deps: change.deps)
        nextLamport = max(nextLamport, change.lamport + Lamport(length))
    }
}

extension FugueSequence {
    /// Deletes the visible atoms at positions `pos ..< pos + count` (which must exist) and
    /// returns their IDs as ascending runs in position order (as the delete spans an operation
    /// stores, so that no caller converts them).
    ///
    /// The first atom is located from the root; each following run is the next visible element
    /// in document order, reached by stepping over the tombstones after the deleted one (or
    /// located again from the root when there are many of them).
    /// - Complexity: O(log n + k · (L + log n)) for k runs touched, leaf capacity L.
    func deleteVisible(from pos: Int, count: Int) -> [DelSpan] {
        var remaining = Int32(count)
        // Most deletes remove one run of IDs: it is kept aside and its array made at its size
        // in the end (growing an empty array costs twice as much); `spans` holds two or more.
        var single: DelSpan?
        var spans: [DelSpan] = []
        var next = locateAt(pos, unit: .unicodeScalar)
        while remaining > 0, let cur = next {
            let e = cur.leaf.elems[cur.index]
            let take = min(remaining, e.length - cur.offset)
            let id = OpID(peer: e.peer, counter: e.counter + cur.offset)
            if let last = spans.last ?? single, last.peer == id.peer, last.start + last.length == id.counter {
                if spans.isEmpty { single!.length += take } else { spans[spans.count - 1].length += take }
            } else if let first = single {
                spans = [first, DelSpan(peer: id.peer, start: id.counter, length: take)]
                single = nil
            } else if spans.isEmpty {
                single = DelSpan(peer: id.peer, start: id.counter, length: take)
            } else {
                spans.append(DelSpan(peer: id.peer, start: id.counter, length: take))
            }
            var leaf = cur.leaf
            var index = cur.index
            if cur.offset > 0 {
                if let i = split(leaf, index, at: cur.offset) { index = i } else { let c2 = cursor(of: id)!; leaf = c2.leaf; index = c2.index }
            }
            if take < leaf.elems[index].length, split(leaf, index, at: take) == nil {
                let c3 = cursor(of: id)!
                leaf = c3.leaf
                index = c3.index
            }
            index = markDeleted(leaf, index, count: take)
            remaining -= take
            guard remaining > 0 else { break }
            next = nil
            var step = after(leaf, index)
            var skipped = 0
            while let (l, i) = step, skipped < 32 {
                if l.elems[i].visible { next = SeqCursor(leaf: l, index: i, offset: 0); break }
                step = after(l, i)
                skipped += 1
            }
            // Past many tombstones the tree's counts find the next atom faster.
            if next == nil { next = locateAt(pos, unit: .unicodeScalar) }
        }
        if let single { return [single] }
        return spans
    }
}

extension CRDTDocument {
    /// Imports position-based changes into a document with nothing in it: the changes that
    /// follow each other are applied straight away, the rest goes through the general importer.
    /// Any failure leaves the document empty, as it was.
    /// - Complexity: O(k · log n) for k operations of linear changes, plus the general import's
    ///   cost for the rest.
    mutating func importIntoPristine(_ incoming: [PendingJSONChange]) throws(LoroJSONError) -> ImportStatus {
        let fresh = (s.peer, s.styles, s.recordEvents)
        var candidates = incoming.sorted {
            $0.change.lamport != $1.change.lamport ? $0.change.lamport < $1.change.lamport : $0.change.id.peer < $1.change.id.peer
        }
        let st = mutate()
        // The texts' content arrives in pieces: make room for all of it at once.
        var inserted: [ContainerID: Int] = [:]
        for candidate in candidates {
            // Summed per run of ops on one container, so the dictionary is hashed once per run.
            var run: (container: ContainerID, scalars: Int)?
            candidate.change.ops.withUnsafeBufferPointer { ops in
                for i in ops.indices {
                    guard case .insertText = ops[i].content else { continue }
                    if run?.container == ops[i].container { run!.scalars += ops[i].length; continue }
                    if let r = run { inserted[r.container, default: 0] += r.scalars }
                    run = (ops[i].container, ops[i].length)
                }
            }
            if let r = run { inserted[r.container, default: 0] += r.scalars }
        }
        var applied: [IDSpan] = []
        do throws(LoroJSONError) {
            var i = 0
            while i < candidates.count {
                let change = candidates[i].change
                if change.id.counter + OpCounter(change.length) <= st.version[change.id.peer] { i += 1; continue }
                guard st.canApplyLinearly(change) else { break }
                try st.applyLinearly(change, source: candidates[i].source, capacity: inserted)
                applied.append(IDSpan(peer: change.id.peer, start: change.id.counter, end: change.id.counter + OpCounter(change.length)))
                i += 1
            }
            candidates.removeFirst(i)
            if candidates.isEmpty { return ImportStatus(applied: applied, pending: [], event: takeEvents(.import)) }
            var status = try importConverted(candidates)
            status.applied = applied + status.applied
            return status
        } catch {
            s = DocStorage(peer: fresh.0)
            s.styles = fresh.1
            s.recordEvents = fresh.2
            throw error
        }
    }
}
