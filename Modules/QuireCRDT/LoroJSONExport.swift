import QuireAlgorithms
extension CRDTDocument {
    /// Exports the committed changes in `to − from` as Loro JSON updates (Loro's
    /// `export_json_updates(start_vv, end_vv)`); `to` nil means everything. Write them with
    /// ``LoroJSONUpdates/jsonString(prettyPrinted:)``.
    ///
    /// Our operations hold Fugue origins; Loro's hold positions at the change's dependencies.
    /// Each change is converted against a version-scoped view of its containers
    /// (`VersionTracker`) that starts at the empty version and follows the changes in causal
    /// order. A delete whose targets are not contiguous at that version becomes several Loro
    /// delete ops, as Loro would have recorded it. Imported changes keep their timestamps and
    /// messages; local commits have timestamp 0 and no message.
    /// - Complexity: O(n + h) to index the document (n elements, h operations in the history),
    ///   plus O(k · log n) for k exported operations in a history whose changes each follow the
    ///   previous version; a change concurrent with the one before it also costs a walk of its
    ///   causal past (O(c) changes) and the replay of the operations between the two versions.
    public func exportJSONUpdates(from: VersionVector = VersionVector(), to: VersionVector? = nil) -> LoroJSONUpdates {
        if needsHistory(below: from), let full = historyDocument { return full.exportJSONUpdates(from: from, to: to) }
        var list = s.changes(since: from)
        if let to { list = list.compactMap { $0.prefix(upTo: to[$0.peer]) } }
        var exporter = LoroJSONExporter(storage: s)
        let changes = list.map { exporter.convert($0) }
        var start = VersionVector()
        for (peer, end) in from.ends { start.extend(peer: peer, to: min(end, s.version[peer])) }
        return LoroJSONUpdates(startVersion: start.ends.isEmpty ? Frontiers() : exporter.frontiers(of: start), changes: changes)
    }
}

extension Change {
    /// The part of this change before counter `end` (nil when nothing is left).
    func prefix(upTo end: OpCounter) -> Change? {
        guard end > counter else { return nil }
        guard end < self.end else { return self }
        var kept: [Op] = []
        for op in ops {
            if op.counter >= end { break }
            if op.counter + op.length <= end { kept.append(op); continue }
            // A mark's two anchors cannot be separated: a mark cut by `end` is left out.
            guard let cut = op.prefix(end - op.counter) else { continue }
            kept.append(cut)
        }
        guard let last = kept.last else { return nil }
        var c = self
        c.ops = kept
        c.length = last.counter + last.length - counter
        return c
    }
}

/// Converts stored changes (Fugue origins) into Loro JSON changes (positions at their deps).
struct LoroJSONExporter {
    let storage: DocStorage
    private var trackers: [ContainerID: VersionTracker] = [:]
    private let index: TrackedOpIndex
    private var graph: CausalGraph?

    init(storage: DocStorage) {
        self.storage = storage
        index = TrackedOpIndex(history: storage.changes)
    }

    mutating func frontiers(of vv: VersionVector) -> Frontiers {
        if graph == nil { graph = CausalGraph(history: storage.changes, root: storage.shallowRoot) }
        return graph!.frontiers(of: vv)
    }

    /// - Complexity: see ``CRDTDocument/exportJSONUpdates(from:to:)``.
    mutating func convert(_ change: Change) -> LoroJSONChange {
        let peer = change.peer
        var scope = ChangeTrackers(peer: peer, deps: change.deps)
        var out: [LoroJSONOp] = []

        /// The tracker of `c`, at this change's dependencies the first time this change uses it.
        func tracker(_ c: ContainerID) -> VersionTracker {
            if let t = scope.tracker(for: c) { return t }
            let root = storage.shallowRoot
            let t = trackers[c] ?? VersionTracker(elements: storage.sequences[c], allFuture: true, present: root?.version,
                                                  version: root?.version ?? VersionVector(), frontiers: root?.frontiers.ids ?? [])
            trackers[c] = t
            if scope.use(t, for: c) {
                if graph == nil { graph = CausalGraph(history: storage.changes, root: storage.shallowRoot) }
                let vv = scope.target ?? graph!.versionVector(of: scope.deps)
                scope.target = vv
                t.checkout(to: vv, frontiers: scope.deps, container: c, indexes: [index])
            }
            return t
        }

        for op in change.ops {
            let c = op.container
            switch op.content {
            case let .insert(left, _, content, count):
                let t = tracker(c)
                let pos = left.id.flatMap { t.position(after: $0) } ?? 0
                t.update(IDSpan(peer: peer, start: op.counter, end: op.counter + count), future: false, deleteDelta: 0)
                let seq = storage.sequences[c]
                let range = Int(content)..<Int(content + count)
                if c.type == .text {
                    let text = seq.map { String(scalars: $0.scalars[range]) } ?? ""
                    out.append(LoroJSONOp(container: c, counter: op.counter, content: .insertText(position: pos, text: text)))
                } else {
                    out.append(LoroJSONOp(container: c, counter: op.counter, content: .insertValues(position: pos, values: seq.map { Array($0.values[range]) } ?? [])))
                }
            case let .insertText(left, _, scalars):
                let t = tracker(c)
                let pos = left.id.flatMap { t.position(after: $0) } ?? 0
                t.update(IDSpan(peer: peer, start: op.counter, end: op.counter + Int32(scalars.count)), future: false, deleteDelta: 0)
                out.append(LoroJSONOp(container: c, counter: op.counter, content: .insertText(position: pos, text: String(scalars: scalars))))
            case let .insertValues(left, _, values):
                let t = tracker(c)
                let pos = left.id.flatMap { t.position(after: $0) } ?? 0
                t.update(IDSpan(peer: peer, start: op.counter, end: op.counter + Int32(values.count)), future: false, deleteDelta: 0)
                out.append(LoroJSONOp(container: c, counter: op.counter, content: .insertValues(position: pos, values: values)))
            case let .delete(spans):
                let t = tracker(c)
                var atom = op.counter
                for d in spans { Self.deletePieces(d, atom: &atom, tracker: t, container: c, into: &out) }
            case let .mark(m):
                let t = tracker(c)
                let start = m.startLeft.id.flatMap { t.position(after: $0) } ?? 0
                t.update(IDSpan(peer: peer, start: op.counter, end: op.counter + 1), future: false, deleteDelta: 0)
                // Loro's end counts the atoms before the end anchor, the start anchor excluded.
                let endAfter = m.endLeft.id.flatMap { t.position(after: $0) } ?? 0
                t.update(IDSpan(peer: peer, start: op.counter + 1, end: op.counter + 2), future: false, deleteDelta: 0)
                out.append(LoroJSONOp(container: c, counter: op.counter, content: .mark(
                    start: start, end: endAfter - 1, key: m.key, value: m.value, info: m.expand.loroInfo)))
                out.append(LoroJSONOp(container: c, counter: op.counter + 1, content: .markEnd))
            case let .mapSet(key, value):
                out.append(LoroJSONOp(container: c, counter: op.counter, content: value.map { .mapInsert(key: key, value: $0) } ?? .mapDelete(key: key)))
            case let .tree(node, parent, position):
                let content: LoroJSONOpContent
                switch parent {
                case .deleted: content = .treeDelete(target: node)
                case .root, .node:
                    let p: TreeID? = if case .node(let id) = parent { id } else { nil }
                    content = node == OpID(peer: peer, counter: op.counter)
                        ? .treeCreate(target: node, parent: p, fractionalIndex: position)
                        : .treeMove(target: node, parent: p, fractionalIndex: position)
                }
                out.append(LoroJSONOp(container: c, counter: op.counter, content: content))
            case let .move(elem, from, left, _):
                let t = tracker(c)
                let fromPosition = t.position(of: from) ?? 0
                t.update(IDSpan(peer: from.peer, start: from.counter, end: from.counter + 1), future: nil, deleteDelta: 1)
                let to = left.id.flatMap { t.position(after: $0) } ?? 0
                t.update(IDSpan(peer: peer, start: op.counter, end: op.counter + 1), future: false, deleteDelta: 0)
                out.append(LoroJSONOp(container: c, counter: op.counter, content: .move(from: fromPosition, to: to, elem: elem)))
            case let .setValue(elem, value):
                out.append(LoroJSONOp(container: c, counter: op.counter, content: .setValue(elem: elem, value: value)))
            case let .counter(delta):
                out.append(LoroJSONOp(container: c, counter: op.counter, content: .counter(delta)))
            }
        }
        scope.finish(end: change.end)
        return LoroJSONChange(id: OpID(peer: peer, counter: change.counter), timestamp: change.timestamp, deps: change.deps, lamport: change.lamport,
                              message: change.message, ops: out)
    }

    /// Splits one delete span into Loro delete ops whose targets are contiguous at the tracker's
    /// version (Loro's ops are position ranges), in atom order, and applies them.
    /// - Complexity: O(k · log n) for k deleted atoms.
    static func deletePieces(_ d: DelSpan, atom: inout OpCounter, tracker t: VersionTracker, container c: ContainerID, into out: inout [LoroJSONOp]) {
        let n = d.count
        var i: Int32 = 0
        while i < n {
            var m: Int32 = 1
            if d.length > 0 {
                let first = OpID(peer: d.peer, counter: d.start + i)
                let p = t.position(of: first) ?? 0
                while i + m < n, t.isActive(first.advanced(by: m)), t.position(of: first.advanced(by: m)) == p + Int(m) { m += 1 }
                out.append(LoroJSONOp(container: c, counter: atom, content: .delete(position: p, length: Int(m), startID: first)))
                t.update(IDSpan(peer: d.peer, start: first.counter, end: first.counter + m), future: nil, deleteDelta: 1)
            } else {
                // Backward (Backspace): atom i removes the element left of the previous one.
                let last = OpID(peer: d.peer, counter: d.start - i)
                let p = t.position(of: last) ?? 0
                while i + m < n, t.isActive(last.advanced(by: -m)), t.position(of: last.advanced(by: -m)) == p - Int(m) { m += 1 }
                let leftmost = last.advanced(by: -(m - 1))
                out.append(LoroJSONOp(container: c, counter: atom, content: .delete(position: p, length: m == 1 ? 1 : -Int(m), startID: leftmost)))
                t.update(IDSpan(peer: d.peer, start: leftmost.counter, end: last.counter + 1), future: nil, deleteDelta: 1)
            }
            i += m
            atom += m
        }
    }
}
