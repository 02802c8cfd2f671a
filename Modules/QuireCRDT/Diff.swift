extension CRDTDocument {
    /// The events that turn the state at `from` into the state at `to` (Loro's `diff`): per
    /// changed container, a text delta (with attribute changes), a list delta, the changed map
    /// keys or tree create/move/delete steps, each with the container's path. Applying them in
    /// order to a mirror of `from` yields `to`. Either version may be earlier, later or
    /// concurrent. Throws when a frontier is unknown.
    ///
    /// Containers come parents first (roots, then by creation). A tree node inside a subtree
    /// that is deleted reappears with `create`, as an event consumer no longer has it.
    /// - Complexity: O(c · d) for the causal walks, plus O(n + M) per text or list (n runs of
    ///   history, M marks), O(m) for map writes and O(t · depth + nodes) per tree.
    public func diff(from: Frontiers, to: Frontiers) throws(VersionError) -> [ContainerEvent] {
        let a = try checkout(from)
        let b = try checkout(to)
        let index = a.index
        var all = Set(index.sequences.keys)
        all.formUnion(index.mapWrites.keys)
        all.formUnion(index.treeLogs.keys)
        all.formUnion(index.movableOps.keys)
        all.formUnion(index.counterOps.keys)
        let ordered = all.sorted { x, y in
            switch (x, y) {
            case (.root, .normal): return true
            case (.normal, .root): return false
            case let (.normal(i, _), .normal(j, _)):
                let li = s.lamport(of: i) ?? 0, lj = s.lamport(of: j) ?? 0
                return li != lj ? li < lj : x < y
            default: return x < y
            }
        }
        var events: [ContainerEvent] = []
        for c in ordered {
            let diff: ContainerDiff?
            switch c.type {
            case .text, .list: diff = DocumentView.sequenceDiff(c, a, b)
            case .map: diff = DocumentView.mapDiff(c, a, b)
            case .tree: diff = DocumentView.treeDiff(c, a, b)
            case .movableList: diff = DocumentView.valuesDiff(a.list(c), b.list(c))
            case .counter: diff = a.counterValue(c) == b.counterValue(c) ? nil : .counter(b.counterValue(c) - a.counterValue(c))
            }
            guard let diff else { continue }
            let view = b.containers.contains(c) ? b : a
            let (containers, steps) = view.path(of: c)
            events.append(ContainerEvent(target: c, pathContainers: containers, path: steps, diff: diff))
        }
        return events
    }
}

extension DocumentView {
    // MARK: paths

    /// Where a child container sits at this version, if it is attached.
    /// - Complexity: O(s + trees) for s recorded slots, plus O(n) for a list slot.
    func parentSlot(of child: ContainerID) -> (ContainerID, PathStep)? {
        if case .normal(let node, .map) = child {
            for (t, tree) in trees where tree.nodes[node] != nil { return (t, .node(node)) }
        }
        for (parent, slot) in (index.parentSlots[child] ?? []).reversed() {
            switch slot {
            case .key(let k):
                if case .container(child)? = get(k, in: parent) { return (parent, .key(k)) }
            case .element(let id):
                if version.includes(id) { return (parent, .index(visibleCount(before: id, in: parent))) }
            case .node:
                break
            }
        }
        return nil
    }

    /// The number of visible elements before `id` at this version.
    /// - Complexity: O(n).
    func visibleCount(before id: OpID, in c: ContainerID) -> Int {
        guard let h = index.sequences[c] else { return 0 }
        var count = 0
        var found = false
        h.forEachRun(ends) { p, offset, n, visible in
            guard !found else { return }
            let run = h.subRun(p.elem, offset, n)
            if run.contains(id) {
                found = true
                if visible { count += Int(id.counter - run.counter) }
            } else if visible, run.kind.rawValue < 2 {
                count += Int(n)
            }
        }
        return count
    }

    /// The containers from a root down to `c` (excluded) and the step taken in each.
    /// - Complexity: O(depth · (s + n)).
    func path(of c: ContainerID) -> ([ContainerID], [PathStep]) {
        var containers: [ContainerID] = []
        var steps: [PathStep] = []
        var cur = c
        var seen: Set<ContainerID> = [c]
        while let (parent, step) = parentSlot(of: cur), seen.insert(parent).inserted {
            containers.append(parent)
            steps.append(step)
            cur = parent
        }
        return (containers.reversed(), steps.reversed())
    }

    // MARK: per container

    /// The visible attributes (null values dropped) of the `active` marks that exist here.
    func attributes(_ active: Set<OpID>, _ table: [OpID: MarkInfo]) -> [String: CRDTValue] {
        MarkInfo.winners(active, table).compactMapValues { $0.value == .null ? nil : $0.value }
    }

    /// A list delta from the values `a` to the values `b`: the common prefix and suffix kept,
    /// the middle replaced (movable lists, whose elements move and change in place).
    /// - Complexity: O(n).
    static func valuesDiff(_ a: [CRDTValue], _ b: [CRDTValue]) -> ContainerDiff? {
        guard a != b else { return nil }
        var prefix = 0
        while prefix < min(a.count, b.count), a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(a.count, b.count) - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        var out: [ListDelta] = prefix > 0 ? [.retain(count: prefix)] : []
        if a.count - prefix - suffix > 0 { out.append(.delete(count: a.count - prefix - suffix)) }
        if b.count - prefix - suffix > 0 { out.append(.insert(Array(b[prefix..<(b.count - suffix)]))) }
        return .list(out)
    }

    /// The text or list delta from `a` to `b`, nil when nothing changed.
    /// - Complexity: O(n + M · a) for n pieces, M anchors and a active marks.
    static func sequenceDiff(_ c: ContainerID, _ a: DocumentView, _ b: DocumentView) -> ContainerDiff? {
        guard let h = a.index.sequences[c] else { return nil }
        var text = DeltaBuilder()
        var activeA = Set<OpID>(), activeB = Set<OpID>()
        var attrsA: [String: CRDTValue] = [:], attrsB: [String: CRDTValue] = [:]
        h.pieces.withUnsafeBufferPointer { ps in
            h.deleters.withUnsafeBufferPointer { ds in
                a.ends.withUnsafeBufferPointer { ea in
                    b.ends.withUnsafeBufferPointer { eb in
                        for p in ps {
                            let sa = SequenceHistory.state(p, ds, ea), sb = SequenceHistory.state(p, ds, eb)
                            if sa.present == 0 && sb.present == 0 { continue }
                            let e = p.elem
                            if e.kind.rawValue >= 2 {
                                let mark = e.kind == .markStart ? e.id : e.id.advanced(by: -1)
                                if sa.present > 0, a.hasMark(mark) {
                                    if e.kind == .markStart { activeA.insert(mark) } else { activeA.remove(mark) }
                                    attrsA = a.attributes(activeA, h.marks)
                                }
                                if sb.present > 0, b.hasMark(mark) {
                                    if e.kind == .markStart { activeB.insert(mark) } else { activeB.remove(mark) }
                                    attrsB = b.attributes(activeB, h.marks)
                                }
                                continue
                            }
                            let cuts = Set([0, sa.deletedEnd, sa.visibleEnd, sa.present, sb.deletedEnd, sb.visibleEnd, sb.present, e.length]).sorted()
                            for (x, y) in zip(cuts, cuts.dropFirst()) where x < y {
                                let inA = x >= sa.deletedEnd && y <= sa.visibleEnd
                                let inB = x >= sb.deletedEnd && y <= sb.visibleEnd
                                switch (inA, inB) {
                                case (true, true): text.retain(Int(y - x), changes: attrsA == attrsB ? nil : changed(attrsA, attrsB))
                                case (true, false): text.delete(Int(y - x))
                                case (false, true):
                                    let from = Int(e.content + x), to = Int(e.content + y)
                                    if e.kind == .text { text.insert(h.scalars[from..<to], attrsB) } else { text.insert(Array(h.values[from..<to])) }
                                case (false, false): break
                                }
                            }
                        }
                    }
                }
            }
        }
        return c.type == .text ? text.text : text.list
    }

    /// The keys whose visible value differs, with the value in `b` (`.null` for a removed key).
    static func changed(_ a: [String: CRDTValue], _ b: [String: CRDTValue]) -> [String: CRDTValue] {
        var out: [String: CRDTValue] = [:]
        for k in Set(a.keys).union(b.keys) where a[k] != b[k] { out[k] = b[k] ?? .null }
        return out
    }

    /// The changed keys of a map, nil when none changed.
    /// - Complexity: O(k) for k keys.
    static func mapDiff(_ c: ContainerID, _ a: DocumentView, _ b: DocumentView) -> ContainerDiff? {
        let ma = a.map(c), mb = b.map(c)
        var out: [String: CRDTValue?] = [:]
        for k in Set(ma.keys).union(mb.keys) where ma[k] != mb[k] { out[k] = .some(mb[k]) }
        return out.isEmpty ? nil : .map(out)
    }

    /// Steps that turn tree `a` into tree `b`: first the topmost nodes that are gone are deleted
    /// (their subtrees go with them), then `b` is walked parents first and each node is moved to,
    /// or created at, its place; so no step ever forms a cycle or names a hidden position.
    /// - Complexity: O(nodes · siblings).
    static func treeDiff(_ c: ContainerID, _ a: DocumentView, _ b: DocumentView) -> ContainerDiff? {
        var children: [TreeID?: [TreeID]] = [:]
        var parentOf: [TreeID: TreeID?] = [:]
        func load(_ parent: TreeID?) {
            let list = a.children(of: parent, in: c)
            children[parent] = list
            for n in list { parentOf[n] = .some(parent); load(n) }
        }
        load(nil)
        var diffs: [TreeDiff] = []
        func forget(_ n: TreeID) {
            parentOf[n] = nil
            for k in children.removeValue(forKey: n) ?? [] { forget(k) }
        }
        func deleteGone(_ parent: TreeID?) {
            for n in children[parent] ?? [] {
                if b.isAlive(n, in: c) { deleteGone(n); continue }
                let i = children[parent]!.firstIndex(of: n)!
                diffs.append(.delete(node: n, from: TreePosition(parent: parent, index: i)))
                children[parent]!.remove(at: i)
                forget(n)
            }
        }
        deleteGone(nil)
        func place(_ parent: TreeID?) {
            for (i, n) in b.children(of: parent, in: c).enumerated() {
                let to = TreePosition(parent: parent, index: i)
                if let old = parentOf[n] {
                    let j = children[old]!.firstIndex(of: n)!
                    if old != parent || j != i {
                        diffs.append(.move(node: n, from: TreePosition(parent: old, index: j), to: to))
                        children[old]!.remove(at: j)
                        children[parent, default: []].insert(n, at: i)
                        parentOf[n] = .some(parent)
                    }
                } else {
                    diffs.append(.create(node: n, at: to))
                    children[parent, default: []].insert(n, at: i)
                    children[n] = []
                    parentOf[n] = .some(parent)
                }
                place(n)
            }
        }
        place(nil)
        return diffs.isEmpty ? nil : .tree(diffs)
    }
}

/// Builds a text or list delta, merging neighbouring steps of the same kind and dropping a
/// trailing plain retain.
struct DeltaBuilder {
    var text: ContainerDiff? { ops.isEmpty ? nil : .text(ops) }
    var list: ContainerDiff? { listOps.isEmpty ? nil : .list(listOps) }
    private var ops: [TextDelta] = []
    private var listOps: [ListDelta] = []
    private var plainRetain = 0

    /// Keeps `n` items; `changes` are attribute changes (text only).
    mutating func retain(_ n: Int, changes: [String: CRDTValue]?) {
        guard let changes else { plainRetain += n; return }
        flushRetain()
        if case let .retain(m, attrs)? = ops.last, attrs == changes { ops[ops.count - 1] = .retain(count: m + n, attributes: changes) } else {
            ops.append(.retain(count: n, attributes: changes))
        }
        listOps.append(.retain(count: n))
    }

    mutating func delete(_ n: Int) {
        flushRetain()
        if case .delete(let m)? = ops.last { ops[ops.count - 1] = .delete(count: m + n) } else { ops.append(.delete(count: n)) }
        if case .delete(let m)? = listOps.last { listOps[listOps.count - 1] = .delete(count: m + n) } else { listOps.append(.delete(count: n)) }
    }

    mutating func insert(_ scalars: ArraySlice<Unicode.Scalar>, _ attrs: [String: CRDTValue]) {
        flushRetain()
        let s = String(String.UnicodeScalarView(scalars))
        if case let .insert(t, a)? = ops.last, a == attrs { ops[ops.count - 1] = .insert(t + s, attributes: attrs) } else {
            ops.append(.insert(s, attributes: attrs))
        }
    }

    mutating func insert(_ values: [CRDTValue]) {
        flushRetain()
        if case .insert(let v)? = listOps.last { listOps[listOps.count - 1] = .insert(v + values) } else { listOps.append(.insert(values)) }
    }

    private mutating func flushRetain() {
        guard plainRetain > 0 else { return }
        if case let .retain(m, nil)? = ops.last { ops[ops.count - 1] = .retain(count: m + plainRetain, attributes: nil) } else {
            ops.append(.retain(count: plainRetain, attributes: nil))
        }
        if case .retain(let m)? = listOps.last { listOps[listOps.count - 1] = .retain(count: m + plainRetain) } else {
            listOps.append(.retain(count: plainRetain))
        }
        plainRetain = 0
    }
}
