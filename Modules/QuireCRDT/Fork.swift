extension Change {
    /// The part of this change before counter `k`; nil when `k` is at or before its start. A
    /// mark is never split (callers refuse such versions first, see `splitMark(in:)`).
    /// - Complexity: O(ops).
    func prefix(before k: OpCounter) -> Change? {
        guard k > counter else { return nil }
        guard k < end else { return self }
        var ops: [Op] = []
        for op in self.ops where op.counter < k {
            let keep = k - op.counter
            guard keep < op.length else { ops.append(op); continue }
            // A mark is kept whole (see above); single-atom ops never straddle `k`.
            ops.append(op.prefix(keep) ?? op)
        }
        return Change(peer: peer, counter: counter, lamport: lamport, deps: deps, ops: ops, length: k - counter)
    }
}

extension DocStorage {
    /// The mark whose start anchor `vv` includes without its end anchor, if any.
    /// - Complexity: O(p · (log c + ops per change)).
    func splitMark(in vv: VersionVector) -> OpID? {
        for (peer, end) in vv.ends {
            guard let list = changes[peer] else { continue }
            let i = firstChange(of: peer, endingAfter: end - 1)
            guard i < list.count else { continue }
            for op in list[i].ops where op.counter == end - 1 {
                if case .mark = op.content { return OpID(peer: peer, counter: op.counter) }
            }
        }
        return nil
    }
}

extension CRDTDocument {
    /// A new, independent document with this one's committed history and state under another
    /// peer (a random one unless given). Uncommitted operations are not part of the fork.
    /// - Complexity: O(n) to copy the state; as ``fork(at:peer:)`` when operations are uncommitted.
    public func fork(peer: PeerID? = nil) -> CRDTDocument {
        let newPeer = peer ?? CRDTDocument.randomPeer(avoiding: s.peer)
        if !s.txnOps.isEmpty, s.shallowRoot == nil {
            // Leaving out uncommitted operations needs the state of the committed version.
            // The committed version never splits a mark: committed changes hold whole ops.
            return DocumentView(index: historyIndex(), version: s.version, frontiers: s.frontiers).makeDocument(peer: newPeer, history: s)
        }
        var copy = CRDTDocument(peer: newPeer)
        copy.s = s.copy()
        copy.s.peer = newPeer
        return copy
    }

    /// A new document with the history up to `frontiers` and the state of that version, under
    /// another peer (a random one unless given). Throws when a frontier is unknown or the version
    /// would split a mark.
    /// - Complexity: O(ops + n log n) for the history and the state's n runs.
    public func fork(at frontiers: Frontiers, peer: PeerID? = nil) throws(VersionError) -> CRDTDocument {
        let view = try checkout(frontiers)
        if let mark = s.splitMark(in: view.version) { throw .splitsMark(mark) }
        return view.makeDocument(peer: peer ?? CRDTDocument.randomPeer(avoiding: s.peer), history: s)
    }

    /// A random peer ID other than `avoiding` and Loro's reserved `UInt64.max`.
    static func randomPeer(avoiding: PeerID) -> PeerID {
        var g = SystemRandomNumberGenerator()
        while true {
            let p = PeerID.random(in: 0..<PeerID.max, using: &g)
            if p != avoiding { return p }
        }
    }
}

extension DocumentView {
    /// A document holding this view's state and `history` cut at this version (which must not
    /// split a mark).
    /// - Complexity: O(ops + n log n).
    func makeDocument(peer: PeerID, history: DocStorage) -> CRDTDocument {
        let st = DocStorage(peer: peer)
        for (p, list) in history.changes {
            let end = version[p]
            guard end > 0 else { continue }
            var kept: [Change] = []
            for ch in list {
                guard let part = ch.prefix(before: end) else { break }
                kept.append(part)
                st.nextLamport = max(st.nextLamport, part.lamport + Lamport(part.length))
            }
            st.changes[p] = kept
        }
        st.version = version
        st.frontiers = frontiers
        st.styles = history.styles
        for (c, h) in index.sequences {
            var elems: [Elem] = []
            var marks: [OpID: MarkInfo] = [:]
            h.forEachRun(ends) { p, offset, count, visible in
                var e = h.subRun(p.elem, offset, count)
                e.deleted = !visible && e.kind.rawValue < 2
                if e.kind == .markStart, let m = h.marks[e.id] { marks[e.id] = m }
                if e.kind == .value {
                    for i in 0..<Int(e.length) {
                        if case .container(let child) = h.values[Int(e.content) + i] { st.parents[child] = (c, .element(e.id.advanced(by: Int32(i)))) }
                    }
                }
                elems.append(e)
            }
            guard !elems.isEmpty else { continue }
            let seq = FugueSequence()
            seq.scalars = h.scalars
            seq.values = h.values
            seq.marks = marks
            _ = seq.build(elems)
            st.sequences[c] = seq
        }
        st.maps = maps
        for (c, entries) in maps {
            for (key, e) in entries { st.registerChild(e.value, parent: c, slot: .key(key)) }
        }
        st.trees = trees
        for (c, tree) in trees {
            for node in tree.nodes.keys { st.parents[.normal(id: node, type: .map)] = (c, .node(node)) }
        }
        for c in index.movableOps.keys {
            guard let replayed = DocumentView.movableList(c, index, including: { version.includes($0) }) else { continue }
            st.sequences[c] = replayed.sequences[c]
            st.movables[c] = replayed.movables[c]
            for (child, slot) in replayed.parents { st.parents[child] = slot }
        }
        st.counters = counters
        var doc = CRDTDocument(peer: peer)
        doc.s = st
        return doc
    }
}
