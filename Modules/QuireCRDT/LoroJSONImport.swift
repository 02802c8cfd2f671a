/// A Loro JSON change waiting for its dependencies: its positions can only be resolved against
/// the state at those dependencies.
struct PendingJSONChange {
    var change: LoroJSONChange
    /// Where it came from, for error messages: `$.changes[3]` of the import that brought it.
    var source: String
}

extension CRDTDocument {
    /// Imports Loro JSON updates text (see ``importJSONUpdates(_:)-(LoroJSONUpdates)``).
    /// - Complexity: O(size of the text) plus the import.
    @discardableResult
    public mutating func importJSONUpdates(_ json: String) throws(LoroJSONError) -> ImportStatus {
        try importJSONUpdates(LoroJSONUpdates(json: json))
    }

    /// Imports Loro JSON updates, as Loro's `import_json_updates` does.
    ///
    /// Loro's operations carry positions counted at their change's dependencies; each change is
    /// resolved against a version-scoped view of its containers (`VersionTracker`) into
    /// operations with Fugue origins, then imported like binary updates. Changes already known
    /// are skipped (imports are idempotent); changes whose dependencies are missing wait in the
    /// document and are reported in ``ImportStatus/pending`` — they are retried by the next JSON
    /// import (binary imports do not look at them). Pending local operations are committed first.
    /// Timestamps and commit messages are kept with the changes.
    ///
    /// Everything is resolved and validated before anything is applied: on a thrown error (a
    /// position out of range, an unknown ID, a child container whose ID is not its op's ID, a
    /// mark without its mark_end, a tree op the document refuses…) the document is unchanged.
    /// - Complexity: O(k · log n) for k imported operations in a history whose changes each
    ///   follow the previous version (the usual case); a change concurrent with what the document
    ///   or the batch already has also costs a walk of its causal past (O(c) changes) and the
    ///   replay of the operations between the versions, and the first one that goes below the
    ///   document's own version indexes the document's history once (O(h)).
    @discardableResult
    public mutating func importJSONUpdates(_ updates: LoroJSONUpdates) throws(LoroJSONError) -> ImportStatus {
        try importPositional(updates.changes.enumerated().map { PendingJSONChange(change: $1, source: "$.changes[\($0)]") })
    }

    /// Imports position-based changes (Loro's JSON or binary updates), each with where it came
    /// from for error messages; see ``importJSONUpdates(_:)-(LoroJSONUpdates)``.
    mutating func importPositional(_ incoming: [PendingJSONChange]) throws(LoroJSONError) -> ImportStatus {
        // Loro reserves peer u64::MAX (its deleted tree root); Quire's packed IDs mean "none" by it.
        if let bad = incoming.first(where: { $0.change.id.peer == PeerID.max }) {
            throw .invalidOperation(path: bad.source, reason: "a change by peer \(PeerID.max), which Loro reserves")
        }
        // Changes concurrent with a deferred snapshot's version need its history.
        if storage.deferred != nil, let root = s.shallowRoot, incoming.contains(where: { !root.followedBy($0.change.deps) && s.version[$0.change.id.peer] < $0.change.id.counter + OpCounter($0.change.length) }) {
            materializeHistory()
        }
        if !s.txnOps.isEmpty {
            // Resolve against a committed copy so that a failure leaves this value untouched.
            var staged = self
            staged.commit()
            let status = try staged.importPositionalCommitted(incoming)
            self = staged
            return status
        }
        return try importPositionalCommitted(incoming)
    }

    private mutating func importPositionalCommitted(_ incoming: [PendingJSONChange]) throws(LoroJSONError) -> ImportStatus {
        if isPristine, !incoming.isEmpty { return try importIntoPristine(incoming) }
        return try importConverted(incoming)
    }

    /// Resolves the changes (with those still pending) by version-scoped views and imports them.
    mutating func importConverted(_ incoming: [PendingJSONChange]) throws(LoroJSONError) -> ImportStatus {
        let candidates = s.pendingJSON + incoming
        // The importer reads the storage; it must be gone before `mutate()` below, or the whole
        // document would be copied.
        let (converted, waiting) = try { () throws(LoroJSONError) in
            var importer = LoroJSONImporter(storage: s)
            return try importer.convertReady(candidates)
        }()
        let waitingSpans = waiting.map { IDSpan(peer: $0.change.id.peer, start: $0.change.id.counter, end: $0.change.id.counter + OpCounter($0.change.length)) }
        if converted.isEmpty && waiting.map(\.change.id).sorted() == s.pendingJSON.map(\.change.id).sorted() {
            // Nothing new (duplicates only, or still waiting): leave the storage unshared.
            return ImportStatus(applied: [], pending: s.pending.map { IDSpan(peer: $0.peer, start: $0.counter, end: $0.end) } + waitingSpans, event: nil)
        }
        let result: (applied: [IDSpan], pending: [IDSpan])
        do throws(CRDTError) { result = try mutate().importChanges(converted) } catch { throw .rejected(error) }
        mutate().pendingJSON = waiting
        return ImportStatus(applied: result.applied, pending: result.pending + waitingSpans, event: takeEvents(.import))
    }
}

/// Resolves Loro JSON changes (position-based) into changes with Fugue origins, in causal order,
/// without touching the document.
struct LoroJSONImporter {
    let storage: DocStorage
    /// The document's version plus everything converted so far.
    private var known: VersionVector
    private var trackers: [ContainerID: VersionTracker] = [:]
    /// The sequence operations converted so far, for trackers moving between versions.
    private var batch = TrackedOpIndex()
    /// The document's own sequence operations, indexed the first time a tracker must go below
    /// the document's version.
    private var history: TrackedOpIndex?
    /// Built the first time a change does not follow a tracker's version.
    private var graph: CausalGraph?
    private var convertedSpans: [(peer: PeerID, start: OpCounter, end: OpCounter, deps: [OpID])] = []

    init(storage: DocStorage) {
        self.storage = storage
        known = storage.version
    }

    /// Converts every candidate whose dependencies are (or become) known, oldest first; returns
    /// the converted changes and the candidates still waiting.
    /// - Complexity: see ``CRDTDocument/importJSONUpdates(_:)-(LoroJSONUpdates)``.
    mutating func convertReady(_ candidates: [PendingJSONChange]) throws(LoroJSONError) -> ([Change], [PendingJSONChange]) {
        var remaining = candidates.sorted {
            $0.change.lamport != $1.change.lamport ? $0.change.lamport < $1.change.lamport : $0.change.id.peer < $1.change.id.peer
        }
        var converted: [Change] = []
        var progress = true
        while progress {
            progress = false
            var waiting: [PendingJSONChange] = []
            for candidate in remaining {
                let change = candidate.change
                let peer = change.id.peer
                let have = known[peer]
                let end = change.id.counter + OpCounter(change.length)
                if end <= have { continue }
                if change.id.counter > have || !change.deps.allSatisfy({ known.includes($0) }) {
                    waiting.append(candidate)
                    continue
                }
                let (part, skipped) = try Self.slice(change, from: have, source: candidate.source)
                converted.append(try convert(part, source: candidate.source, opOffset: skipped))
                known.extend(peer: peer, to: end)
                progress = true
            }
            remaining = waiting
        }
        // The same change may arrive again while it waits: keep one copy, the longest.
        var kept: [PendingJSONChange] = []
        var slot: [OpID: Int] = [:]
        for candidate in remaining {
            if let i = slot[candidate.change.id] {
                if candidate.change.length > kept[i].change.length { kept[i] = candidate }
            } else {
                slot[candidate.change.id] = kept.count
                kept.append(candidate)
            }
        }
        return (converted, kept)
    }

    /// The part of a change from counter `k` on, as Loro slices changes (a cut insert moves its
    /// position by the dropped atoms; a cut backward delete moves its position back); also
    /// returns how many leading ops were dropped.
    static func slice(_ change: LoroJSONChange, from k: OpCounter, source: String) throws(LoroJSONError) -> (LoroJSONChange, Int) {
        guard k > change.id.counter else { return (change, 0) }
        var ops: [LoroJSONOp] = []
        var dropped = 0
        for op in change.ops {
            let end = op.counter + OpCounter(op.length)
            if end <= k { dropped += 1; continue }
            if op.counter >= k { ops.append(op); continue }
            let cut = Int(k - op.counter)
            let content: LoroJSONOpContent
            switch op.content {
            case let .insertText(pos, text):
                content = .insertText(position: pos + cut, text: String(String.UnicodeScalarView(text.unicodeScalars.dropFirst(cut))))
            case let .insertValues(pos, values):
                content = .insertValues(position: pos + cut, values: Array(values.dropFirst(cut)))
            case let .delete(pos, len, start):
                content = len > 0 ? .delete(position: pos, length: len - cut, startID: start.advanced(by: Int32(cut)))
                    : .delete(position: pos - cut, length: len + cut, startID: start)
            default:
                throw .invalidOperation(path: "\(source).ops[\(dropped)]", reason: "cannot split a one-atom op at counter \(k)")
            }
            ops.append(LoroJSONOp(container: op.container, counter: k, content: content))
        }
        let cut = k - change.id.counter
        return (LoroJSONChange(id: OpID(peer: change.id.peer, counter: k), timestamp: change.timestamp, deps: [OpID(peer: change.id.peer, counter: k - 1)],
                               lamport: change.lamport + Lamport(cut), message: change.message, ops: ops), dropped)
    }

    // MARK: converting one change

    private mutating func convert(_ change: LoroJSONChange, source: String, opOffset: Int) throws(LoroJSONError) -> Change {
        let peer = change.id.peer
        if let root = storage.shallowRoot, !root.followedBy(change.deps) {
            throw .invalidOperation(path: source, reason: "the change depends on history before the shallow root \(root.frontiers.ids), which this document does not have")
        }
        var scope = ChangeTrackers(peer: peer, deps: change.deps)
        var ops: [Op] = []
        ops.reserveCapacity(change.ops.count)

        /// The tracker of `c`, at this change's dependencies the first time this change uses it.
        func tracker(_ c: ContainerID) -> VersionTracker {
            if let t = scope.tracker(for: c) { return t }
            let t = trackers[c] ?? VersionTracker(elements: storage.sequences[c], allFuture: false, removed: c.type == .movableList ? storage.movables[c]?.deletedItems ?? [] : nil,
                                                  version: storage.version, frontiers: storage.frontiers.ids)
            trackers[c] = t
            if scope.use(t, for: c) {
                let vv = scope.target ?? versionVector(of: scope.deps)
                scope.target = vv
                move(t, c, to: vv, frontiers: scope.deps)
            }
            return t
        }

        var j = 0
        while j < change.ops.count {
            let op = change.ops[j]
            let c = op.container
            let path = "\(source).ops[\(j + opOffset)]"
            switch op.content {
            case let .insertText(pos, text):
                let t = tracker(c)
                let scalars = Array(text.unicodeScalars)
                guard let (left, right) = t.insert(at: pos, peer: peer, counter: op.counter, length: Int32(scalars.count)) else {
                    throw Self.beyond(path, "insert position \(pos)", t)
                }
                batch.append(TrackedOp(counter: op.counter, length: Int32(scalars.count)), peer: peer, container: c)
                ops.append(Op(container: c, counter: op.counter, content: .insertText(left: left, right: right, scalars)))
            case let .insertValues(pos, values):
                for (k, v) in values.enumerated() {
                    try Self.checkCreatedContainer(v, expected: OpID(peer: peer, counter: op.counter + OpCounter(k)), path: "\(path).content.value[\(k)]")
                }
                let t = tracker(c)
                guard let (left, right) = t.insert(at: pos, peer: peer, counter: op.counter, length: Int32(values.count)) else {
                    throw Self.beyond(path, "insert position \(pos)", t)
                }
                batch.append(TrackedOp(counter: op.counter, length: Int32(values.count)), peer: peer, container: c)
                ops.append(Op(container: c, counter: op.counter, content: .insertValues(left: left, right: right, values)))
            case let .delete(pos, len, _):
                let t = tracker(c)
                let n = Int(len.magnitude)
                let first = len > 0 ? pos : pos - n + 1
                guard first >= 0, let runs = t.activeRuns(from: first, count: n) else {
                    throw Self.beyond(path, "delete of \(n) at \(first)", t)
                }
                // Atom i of a forward delete removes the element at pos + i; of a backward one, at pos - i.
                let spans: [DelSpan] = len > 0 ? runs.map { DelSpan($0) } : runs.reversed().map {
                    $0.count == 1 ? DelSpan($0) : DelSpan(peer: $0.peer, start: $0.end - 1, length: -Int32($0.count))
                }
                for r in runs { t.update(r, future: nil, deleteDelta: 1) }
                batch.append(TrackedOp(counter: op.counter, length: Int32(n), deletes: spans), peer: peer, container: c)
                ops.append(Op(container: c, counter: op.counter, content: .delete(spans)))
            case let .mark(start, end, key, value, info):
                guard j + 1 < change.ops.count, case .markEnd = change.ops[j + 1].content, change.ops[j + 1].container == c else {
                    throw .invalidOperation(path: path, reason: "a mark must be followed by its mark_end in the same change")
                }
                guard start < end else { throw .invalidOperation(path: path, reason: "mark start \(start) is not before its end \(end)") }
                try Self.checkNoContainers(value, path: "\(path).content.style_value")
                let t = tracker(c)
                guard end <= t.activeCount, let (sl, sr) = t.insert(at: start, peer: peer, counter: op.counter, length: 1) else {
                    throw Self.beyond(path, "mark range \(start)..<\(end)", t)
                }
                // Loro puts the end anchor after the `end`-th atom, counted with the start anchor in.
                guard let (el, er) = t.insert(at: min(end + 1, t.activeCount), peer: peer, counter: op.counter + 1, length: 1) else {
                    throw Self.beyond(path, "mark end \(end)", t)
                }
                batch.append(TrackedOp(counter: op.counter, length: 2), peer: peer, container: c)
                ops.append(Op(container: c, counter: op.counter, content: .mark(MarkPayload(
                    key: key, value: value, expand: ExpandType(loroInfo: info), startLeft: sl, startRight: sr, endLeft: el, endRight: er))))
                j += 2
                continue
            case .markEnd:
                throw .invalidOperation(path: path, reason: "mark_end without the mark before it")
            case let .mapInsert(key, value):
                try Self.checkCreatedContainer(value, expected: OpID(peer: peer, counter: op.counter), path: "\(path).content.value")
                ops.append(Op(container: c, counter: op.counter, content: .mapSet(key: key, value: value)))
            case let .mapDelete(key):
                ops.append(Op(container: c, counter: op.counter, content: .mapSet(key: key, value: nil)))
            case let .treeCreate(node, parent, index):
                guard node == OpID(peer: peer, counter: op.counter) else {
                    throw .invalidOperation(path: "\(path).content.target", reason: "a created node must have the op's ID \(OpID(peer: peer, counter: op.counter)), got \(node)")
                }
                ops.append(Op(container: c, counter: op.counter, content: .tree(target: node, parent: parent.map { .node($0) } ?? .root, position: index)))
            case let .treeMove(node, parent, index):
                ops.append(Op(container: c, counter: op.counter, content: .tree(target: node, parent: parent.map { .node($0) } ?? .root, position: index)))
            case let .treeDelete(node):
                ops.append(Op(container: c, counter: op.counter, content: .tree(target: node, parent: .deleted, position: [])))
            case let .move(from, to, elem):
                let t = tracker(c)
                guard let source = t.activeRuns(from: from, count: 1)?.first else { throw Self.beyond(path, "move from \(from)", t) }
                let sourceID = OpID(peer: source.peer, counter: source.start)
                t.update(source, future: nil, deleteDelta: 1)
                guard let (left, right) = t.insert(at: to, peer: peer, counter: op.counter, length: 1) else { throw Self.beyond(path, "move to \(to)", t) }
                var tracked = TrackedOp(counter: op.counter, length: 1)
                tracked.source = sourceID
                batch.append(tracked, peer: peer, container: c)
                ops.append(Op(container: c, counter: op.counter, content: .move(elem: elem, from: sourceID, left: left, right: right)))
            case let .setValue(elem, value):
                try Self.checkCreatedContainer(value, expected: OpID(peer: peer, counter: op.counter), path: "\(path).content.value")
                ops.append(Op(container: c, counter: op.counter, content: .setValue(elem: elem, value: value)))
            case let .counter(delta):
                ops.append(Op(container: c, counter: op.counter, content: .counter(delta)))
            }
            j += 1
        }
        let end = change.id.counter + OpCounter(change.length)
        scope.finish(end: end)
        convertedSpans.append((peer, change.id.counter, end, change.deps))
        graph?.add(peer: peer, start: change.id.counter, end: end, deps: change.deps)
        return Change(peer: peer, counter: change.id.counter, lamport: change.lamport, deps: change.deps, ops: ops, length: end - change.id.counter,
                      timestamp: change.timestamp, message: change.message)
    }

    /// The version vector of `deps` over the document's history and the converted changes.
    private mutating func versionVector(of deps: [OpID]) -> VersionVector {
        if graph == nil {
            var g = CausalGraph(history: storage.changes, root: storage.shallowRoot)
            for s in convertedSpans { g.add(peer: s.peer, start: s.start, end: s.end, deps: s.deps) }
            graph = g
        }
        return graph!.versionVector(of: deps)
    }

    /// Moves a tracker to `target`; going below the document's version first indexes the
    /// document's history and makes the tracker's delete counts exact.
    private mutating func move(_ t: VersionTracker, _ c: ContainerID, to target: VersionVector, frontiers: [OpID]) {
        let docVersion = storage.version
        let crossesHistory = (t.version.spans(notIn: target) + target.spans(notIn: t.version)).contains { $0.start < docVersion[$0.peer] }
        if crossesHistory {
            if history == nil { history = TrackedOpIndex(history: storage.changes) }
            if t.approximateTombstones != nil { t.makeCountsExact(historyDeletes: history!.allDeleteTargets(in: c)) }
        }
        t.checkout(to: target, frontiers: frontiers, container: c, indexes: history.map { [$0, batch] } ?? [batch])
    }

    private static func beyond(_ path: String, _ what: String, _ t: VersionTracker) -> LoroJSONError {
        .invalidOperation(path: path, reason: "\(what) is beyond the length \(t.activeCount) at this change's version")
    }

    /// A value that creates a child container must name the container by its op's ID (Loro's rule);
    /// other values may not hold container references at all.
    /// The path is only built for the error.
    static func checkCreatedContainer(_ v: CRDTValue, expected: OpID, path: @autoclosure () -> String) throws(LoroJSONError) {
        if case .container(let cid) = v {
            guard case .normal(let id, _) = cid, id == expected else {
                throw .invalidOperation(path: path(), reason: "a created child container must have the op's ID \(expected), got \(cid)")
            }
            return
        }
        try checkNoContainers(v, path: path())
    }

    static func checkNoContainers(_ v: CRDTValue, path: @autoclosure () -> String) throws(LoroJSONError) {
        switch v {
        case .container(let cid): throw .invalidOperation(path: path(), reason: "container \(cid) nested inside a value")
        case .list(let l): for x in l { try checkNoContainers(x, path: path()) }
        case .map(let m): for x in m.values { try checkNoContainers(x, path: path()) }
        default: break
        }
    }
}

extension TrackedOp {
    /// An op that inserts its own atoms.
    init(counter: OpCounter, length: Int32) {
        self.counter = counter
        self.length = length
        deletes = nil
    }

    /// A delete op.
    init(counter: OpCounter, length: Int32, deletes: [DelSpan]) {
        self.counter = counter
        self.length = length
        self.deletes = deletes
    }
}
