extension DocStorage {
    // MARK: insertion points

    /// Whether new text typed next to `anchor` goes before it (Loro's prefer_insert_before).
    func prefersInsertBefore(_ anchor: Elem, marks table: [OpID: MarkInfo]) -> Bool {
        let markID = anchor.kind == .markStart ? anchor.id : OpID(peer: anchor.peer, counter: anchor.counter - 1)
        guard let info = table[markID] else { return false }
        return anchor.kind == .markStart ? !info.expand.expandsBefore : info.expand.expandsAfter
    }

    /// The origins and the slot for a local insertion at visible scalar `pos`, choosing a side of
    /// any mark anchors at that spot by their expand rules (Loro's find_best_insert_pos).
    /// - Complexity: O(log n + g) for g invisible elements at the insertion point.
    func insertionPoint(_ seq: FugueSequence, _ c: ContainerID, at pos: Int) -> (left: OptID, right: OptID, leaf: SeqNode, index: Int) {
        var after: (SeqNode, Int)? = nil
        if pos > 0 {
            let cur = seq.locateAfter(pos, unit: .unicodeScalar)!
            let e = cur.leaf.elems[cur.index]
            if cur.offset < e.length {
                let leftID = OptID(peer: e.peer, counter: e.counter + cur.offset - 1)
                let rightID = OpID(peer: e.peer, counter: e.counter + cur.offset)
                if let i = seq.split(cur.leaf, cur.index, at: cur.offset) { return (leftID, OptID(rightID), cur.leaf, i) }
                let rc = seq.cursor(of: rightID)!
                return (leftID, OptID(rightID), rc.leaf, rc.index)
            }
            // Fast path: without marks there are no anchors to choose a side of.
            if seq.marks.isEmpty { return plainSlot(seq, after: cur.leaf, cur.index) }
            after = (cur.leaf, cur.index)
        }
        let next: (SeqNode, Int)? = after.map { seq.after($0.0, $0.1) } ?? seq.first()
        // Fast path: no anchors can be in the gap.
        let table = seq.marks
        if table.isEmpty || next == nil || next.map({ $0.0.elems[$0.1].visible }) == true {
            return slot(seq, after: after, next: next)
        }
        // Gather the anchors in the gap (tombstones are skipped but kept in place).
        var anchors: [(SeqNode, Int)] = []
        var it = next
        while let (l, i) = it, !l.elems[i].visible {
            if l.elems[i].kind.rawValue >= 2 { anchors.append((l, i)) }
            it = seq.after(l, i)
        }
        if anchors.isEmpty { return slot(seq, after: after, next: next) }
        var k = 0
        var visited: [Int] = []
        while k < anchors.count {
            let a = anchors[k].0.elems[anchors[k].1]
            visited.append(k)
            if a.kind == .markStart, let info = table[a.id], info.value == .null || info.value == .bool(false) { break }
            if prefersInsertBefore(a, marks: table) { break }
            k += 1
        }
        while let top = visited.popLast() {
            let a = anchors[top].0.elems[anchors[top].1]
            if !prefersInsertBefore(a, marks: table) { break }
            k = top
        }
        if k == 0 { return slot(seq, after: after, next: next) }
        let prevAnchor = anchors[k - 1]
        return slot(seq, after: prevAnchor, next: seq.after(prevAnchor.0, prevAnchor.1))
    }

    /// ``slot(_:after:next:)`` right after element `index` of `leaf`, its neighbours read in
    /// place (the general path passes strong references around, a retain and release each).
    private func plainSlot(_ seq: FugueSequence, after leaf: SeqNode, _ index: Int) -> (left: OptID, right: OptID, leaf: SeqNode, index: Int) {
        let (left, nextInLeaf): (OptID, OptID?) = leaf.elems.withUnsafeBufferPointer { elems in
            (OptID(elems[index].lastID), index + 1 < elems.count ? OptID(elems[index + 1].id) : nil)
        }
        if let right = nextInLeaf { return (left, right, leaf, index + 1) }
        let right = seq.after(leaf, index).map { OptID($0.0.elems[$0.1].id) } ?? .none
        return (left, right, leaf, index + 1)
    }

    private func slot(_ seq: FugueSequence, after: (SeqNode, Int)?, next: (SeqNode, Int)?) -> (left: OptID, right: OptID, leaf: SeqNode, index: Int) {
        let left = after.map { OptID($0.0.elems[$0.1].lastID) } ?? .none
        let right = next.map { OptID($0.0.elems[$0.1].id) } ?? .none
        if let (l, i) = after { return (left, right, l, i + 1) }
        return (left, right, seq.firstLeaf, 0)
    }

    // MARK: styles

    /// The mark IDs covering the element at global element index `elementIndex`, summed from
    /// the mark edges the sequence's nodes cache (so a text with a mark per paragraph costs what a
    /// text with a handful does).
    /// - Complexity: O(log n · (B + edges) + L) once the edges are known.
    func activeMarks(_ seq: FugueSequence, _ c: ContainerID, at elementIndex: Int) -> Set<OpID> {
        seq.marksActive(before: elementIndex).filter { seq.marks[$0] != nil }
    }

    /// The winning value per key among `active` marks (nulls included).
    func attributes(of active: Set<OpID>, _ table: [OpID: MarkInfo]) -> [String: CRDTValue] {
        var winners: [String: MarkInfo] = [:]
        for id in active {
            guard let m = table[id] else { continue }
            if let w = winners[m.key], !m.beats(w) { continue }
            winners[m.key] = m
        }
        return winners.mapValues { $0.value }
    }

    /// Text runs with their full attributes (null values kept) for `count` visible scalars from `start`.
    /// - Complexity: O(M · log n + k) for k elements in the range.
    func styledRuns(_ seq: FugueSequence, _ c: ContainerID, from start: Int, count: Int) -> [(Int, [String: CRDTValue])] {
        guard count > 0, let cur = seq.locateAt(start, unit: .unicodeScalar) else { return [] }
        let table = seq.marks
        if table.isEmpty { return [(count, [:])] }
        var active = activeMarks(seq, c, at: seq.prefix(of: cur).elements)
        var attrs = attributes(of: active, table)
        var runs: [(Int, [String: CRDTValue])] = []
        var remaining = count
        var it: (SeqNode, Int)? = (cur.leaf, cur.index)
        var offset = Int(cur.offset)
        while remaining > 0, let (l, i) = it {
            let e = l.elems[i]
            switch e.kind {
            case .markStart: active.insert(e.id); attrs = attributes(of: active, table)
            case .markEnd: active.remove(OpID(peer: e.peer, counter: e.counter - 1)); attrs = attributes(of: active, table)
            default:
                if e.visible {
                    let take = min(remaining, Int(e.length) - offset)
                    if let last = runs.last, last.1 == attrs { runs[runs.count - 1].0 += take } else { runs.append((take, attrs)) }
                    remaining -= take
                }
            }
            offset = 0
            it = seq.after(l, i)
        }
        return runs
    }

    /// The rich text as insert-only delta.
    /// - Complexity: O(n + M).
    func delta(_ c: ContainerID) -> [TextDelta] {
        guard let seq = sequences[c] else { return [] }
        let table = seq.marks
        var active = Set<OpID>()
        var attrs: [String: CRDTValue] = [:]
        var out: [TextDelta] = []
        var text = String.UnicodeScalarView()
        var runAttrs: [String: CRDTValue] = [:]
        func flush() {
            if !text.isEmpty { out.append(.insert(String(text), attributes: runAttrs)); text = String.UnicodeScalarView() }
        }
        seq.forEachElem { e in
            switch e.kind {
            case .markStart: active.insert(e.id); attrs = attributes(of: active, table).filter { $0.value != .null }
            case .markEnd: active.remove(OpID(peer: e.peer, counter: e.counter - 1)); attrs = attributes(of: active, table).filter { $0.value != .null }
            case .text where e.visible:
                if attrs != runAttrs { flush(); runAttrs = attrs }
                text.append(contentsOf: seq.scalars[Int(e.content)..<Int(e.content + e.length)])
            default: break
            }
        }
        flush()
        return out
    }

    // MARK: applying operations (local and remote share these)

    /// Inserts a run at a known slot or by Fugue integration; returns its visible position when
    /// events are recorded (else 0).
    /// - Complexity: O(log n + L), plus the integration's cost.
    func place(_ elem: Elem, in seq: FugueSequence, slot: (SeqNode, Int)?) -> Int {
        guard let (leaf, index) = slot else { return seq.integrate(elem, wantPosition: recordEvents) }
        seq.insertElem(elem, leaf: leaf, at: index)
        return recordEvents ? seq.prefix(of: seq.cursor(of: elem.id)!).count : 0
    }

    /// Inserts a run into a sequence at a known slot or by Fugue integration and emits the event.
    func applyInsert(_ c: ContainerID, _ seq: FugueSequence, _ elem: Elem, slot: (SeqNode, Int)?) {
        let pos = place(elem, in: seq, slot: slot)
        if elem.kind == .value {
            for k in 0..<Int(elem.length) {
                registerChild(seq.values[Int(elem.content) + k], parent: c, slot: .element(elem.id.advanced(by: Int32(k))))
            }
        }
        guard recordEvents else { return }
        var d: [TextDelta] = []
        var ld: [ListDelta] = []
        if elem.kind == .text {
            if pos > 0 { d.append(.retain(count: pos, attributes: nil)) }
            var offset = 0
            for (n, attrs) in styledRuns(seq, c, from: pos, count: Int(elem.length)) {
                let s = seq.scalars[Int(elem.content) + offset..<Int(elem.content) + offset + n]
                d.append(.insert(String(String.UnicodeScalarView(s)), attributes: attrs.filter { $0.value != .null }))
                offset += n
            }
            emit(c, .text(d))
        } else if elem.kind == .value {
            if pos > 0 { ld.append(.retain(count: pos)) }
            ld.append(.insert(Array(seq.values[Int(elem.content)..<Int(elem.content + elem.length)])))
            emit(c, .list(ld))
        }
    }

    /// Deletes the elements of `spans` and emits the event.
    func applyDelete(_ c: ContainerID, _ seq: FugueSequence, _ spans: [DelSpan]) {
        var pieces: [(Int, Int)] = []
        let record = recordEvents
        for span in spans { seq.deleteSpan(span.ascending, wantPositions: record) { if record { pieces.append(($0, $1)) } } }
        guard recordEvents, !pieces.isEmpty else { return }
        // Each piece's position was taken right before it was deleted, so apply them in order.
        for (pos, n) in pieces {
            if c.type == .text {
                emit(c, .text((pos > 0 ? [.retain(count: pos, attributes: nil)] : []) + [.delete(count: n)]))
            } else {
                emit(c, .list((pos > 0 ? [.retain(count: pos)] : []) + [.delete(count: n)]))
            }
        }
    }

    /// Emits the deletion of `count` visible units at `pos`.
    func emitDelete(_ c: ContainerID, at pos: Int, count: Int) {
        guard recordEvents else { return }
        if c.type == .text {
            emit(c, .text((pos > 0 ? [.retain(count: pos, attributes: nil)] : []) + [.delete(count: count)]))
        } else {
            emit(c, .list((pos > 0 ? [.retain(count: pos)] : []) + [.delete(count: count)]))
        }
    }

    /// Registers a mark whose anchors are already in the sequence and emits the style change.
    func emitMark(_ c: ContainerID, _ seq: FugueSequence, markID: OpID, key: String) {
        guard recordEvents, let s = seq.cursor(of: markID), let e = seq.cursor(of: markID.advanced(by: 1)) else { return }
        let start = seq.prefix(of: s).count
        let end = seq.prefix(of: e).count
        guard end > start else { return }
        var d: [TextDelta] = start > 0 ? [.retain(count: start, attributes: nil)] : []
        for (n, attrs) in styledRuns(seq, c, from: start, count: end - start) {
            d.append(.retain(count: n, attributes: [key: attrs[key] ?? .null]))
        }
        emit(c, .text(d))
    }

    /// Applies a map write if it wins (Lamport, then peer) and emits the update.
    func applyMapSet(_ c: ContainerID, key: String, value: CRDTValue?, lamport: Lamport, peer: PeerID, counter: OpCounter) {
        var map = maps.removeValue(forKey: c) ?? [:]
        defer { maps[c] = map }
        if let old = map[key], !old.isBeaten(lamport: lamport, peer: peer) { return }
        map[key] = MapEntry(value: value, lamport: lamport, peer: peer, counter: counter)
        registerChild(value, parent: c, slot: .key(key))
        emit(c, .map([key: value]))
    }
}
