/// A movable list element's identity: the peer and Lamport timestamp of the insert that created
/// it (Loro's `IdLp`, written `L{lamport}@{peer}`). Moves and sets are identified the same way,
/// and the larger (Lamport, peer) wins.
public struct IdLp: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var peer: PeerID
    public var lamport: Lamport

    /// - Complexity: O(1).
    public static func < (a: IdLp, b: IdLp) -> Bool { a.lamport != b.lamport ? a.lamport < b.lamport : a.peer < b.peer }

    public var description: String { "L\(lamport)@\(peer)" }
}

/// One element of a movable list: its value (and the write that set it) and the list item that
/// holds it (and the move, or the insert, that put it there).
struct MovableElement {
    var value: CRDTValue
    var valueID: IdLp
    var pos: OpID
    var posID: IdLp
}

/// A movable list, as Loro's: a Fugue sequence of *items* (in `DocStorage.sequences`) and the
/// elements they carry. An insert creates items and elements; a move creates an item for an
/// element and deletes the item it came from; the element sits at the item of its winning move
/// (largest (Lamport, peer)), and its value is the winning set. Concurrent moves of one element
/// leave the losers' items dead: invisible, but counted by Loro's positions (which count every
/// item no delete or move removed). An element is alive while the item it sits at is not
/// deleted, so a move beats a concurrent delete of the element's old item.
///
/// In the item sequence an item is visible exactly when an alive element sits at it.
struct MovableListState {
    var elements: [IdLp: MovableElement] = [:]
    /// The element of each item a move created (an inserted item carries the element its
    /// insert created: same peer, the item's Lamport).
    var moveElems: [OpID: IdLp] = [:]
    /// Items removed in Loro's position space: by a delete, or as the source of a move.
    var deletedItems: Set<OpID> = []

    /// The element item `id` (with Lamport `lamport`) carries.
    /// - Complexity: O(1) expected.
    @inline(__always) func element(ofItem id: OpID, lamport: Lamport) -> IdLp { moveElems[id] ?? IdLp(peer: id.peer, lamport: lamport) }
}

extension FugueSequence {
    /// Makes the single item `id` visible or invisible.
    /// - Complexity: O(L + log n).
    func setVisible(_ id: OpID, _ visible: Bool) {
        guard var c = splitBefore(id) else { return }
        if c.leaf.elems[c.index].length > 1, split(c.leaf, c.index, at: 1) == nil {
            guard let again = cursor(of: id) else { return }
            c = again
        }
        var e = c.leaf.elems[c.index]
        guard e.deleted == visible else { return }
        typing = nil
        let before = e.summary
        e.deleted = !visible
        c.leaf.elems[c.index] = e
        propagate(c.leaf, add: e.summary, subtract: before)
    }

    /// The Lamport timestamp of the element `id`.
    /// - Complexity: O(log r + L).
    func lamport(of id: OpID) -> Lamport? {
        guard let c = cursor(of: id) else { return nil }
        return c.leaf.elems[c.index].lamport + Lamport(c.offset)
    }
}

extension DocStorage {
    /// The visible position of item `id` when it is visible.
    /// - Complexity: O(log n · fanout).
    func visiblePosition(_ seq: FugueSequence, _ id: OpID) -> Int? {
        guard let c = seq.cursor(of: id), c.leaf.elems[c.index].visible else { return nil }
        return seq.prefix(of: c).count
    }

    /// Inserts the items of an insert (a run whose content is in `seq.values`) and creates their
    /// elements; `slot` is the known place of a local insert, nil to integrate a remote one.
    /// - Complexity: O(log n + k) for k items, plus the integration's cost.
    func applyMovableInsert(_ c: ContainerID, _ seq: FugueSequence, _ elem: Elem, slot: (SeqNode, Int)?) {
        var state = movables[c] ?? MovableListState()
        for k in 0..<elem.length {
            let id = IdLp(peer: elem.peer, lamport: elem.lamport + Lamport(k))
            let value = seq.values[Int(elem.content + k)]
            state.elements[id] = MovableElement(value: value, valueID: id, pos: elem.id.advanced(by: k), posID: id)
        }
        movables[c] = state
        // The list's own insert does the rest: placement, child registration and the event.
        applyInsert(c, seq, elem, slot: slot)
    }

    /// Deletes items; the elements sitting at them die.
    /// - Complexity: O(k · (L + log n)) for k pieces.
    func applyMovableDelete(_ c: ContainerID, _ seq: FugueSequence, _ spans: [DelSpan]) {
        var state = movables[c] ?? MovableListState()
        for span in spans {
            let s = span.ascending
            for k in s.start..<s.end { state.deletedItems.insert(OpID(peer: s.peer, counter: k)) }
        }
        movables[c] = state
        applyDelete(c, seq, spans)
    }

    /// Applies a move: the new item goes between its origins (at `slot` when local), visible
    /// when the move wins its element.
    /// - Complexity: O(log n + L), plus the integration's cost.
    func applyMove(_ c: ContainerID, _ seq: FugueSequence, _ item: Elem, elem: IdLp, from: OpID, slot: (SeqNode, Int)?) {
        var state = movables[c] ?? MovableListState()
        state.deletedItems.insert(from)
        state.moveElems[item.id] = elem
        let moveID = IdLp(peer: item.peer, lamport: item.lamport)
        var run = item
        run.content = Int32(seq.values.count)
        seq.values.append(.null)
        guard var e = state.elements[elem], e.posID < moveID else {
            run.deleted = true
            movables[c] = state
            _ = place(run, in: seq, slot: slot)
            hideSource(c, seq, from)
            return
        }
        let old = e.pos
        e.pos = run.id
        e.posID = moveID
        state.elements[elem] = e
        movables[c] = state
        // The new item first (a local slot was found with the old item in place), then the
        // element leaves its old item, if it was shown there.
        let pos = place(run, in: seq, slot: slot)
        emit(c, .list((pos > 0 ? [.retain(count: pos)] : []) + [.insert([e.value])]))
        hideSource(c, seq, old)
        hideSource(c, seq, from)
    }

    /// Hides a move's source item if an element is still shown there. That is the moved
    /// element's old item; a source that carried another element (which no history Loro writes
    /// has, only damaged input) removes that element too, as Loro does.
    /// - Complexity: O(log n · fanout).
    private func hideSource(_ c: ContainerID, _ seq: FugueSequence, _ item: OpID) {
        guard let at = visiblePosition(seq, item) else { return }
        seq.setVisible(item, false)
        emit(c, .list((at > 0 ? [.retain(count: at)] : []) + [.delete(count: 1)]))
    }

    /// Applies a set: the value changes when this write beats the element's current one.
    /// - Complexity: O(log n · fanout).
    func applySetValue(_ c: ContainerID, elem: IdLp, value: CRDTValue, id: IdLp) {
        guard var state = movables[c], var e = state.elements[elem], e.valueID < id else { return }
        e.value = value
        e.valueID = id
        state.elements[elem] = e
        movables[c] = state
        if case .container(let child) = value { parents[child] = (c, .element(e.pos)) }
        guard let seq = sequences[c], let pos = visiblePosition(seq, e.pos) else { return }
        emit(c, .list((pos > 0 ? [.retain(count: pos)] : []) + [.delete(count: 1), .insert([value])]))
    }

    /// The visible values of a movable list.
    /// - Complexity: O(n).
    func movableValues(_ c: ContainerID) -> [CRDTValue] {
        guard let seq = sequences[c], let state = movables[c] else { return [] }
        var out: [CRDTValue] = []
        seq.forEachElem { e in
            guard e.visible else { return }
            for k in 0..<e.length {
                let elem = state.element(ofItem: e.id.advanced(by: k), lamport: e.lamport + Lamport(k))
                out.append(state.elements[elem]?.value ?? .null)
            }
        }
        return out
    }

    /// The element shown at visible position `pos`.
    /// - Complexity: O(log n).
    func movableElement(_ c: ContainerID, at pos: Int) -> (IdLp, MovableElement)? {
        guard let seq = sequences[c], let state = movables[c], let cur = seq.locateAt(pos, unit: .unicodeScalar) else { return nil }
        let e = cur.leaf.elems[cur.index]
        let elem = state.element(ofItem: e.id.advanced(by: cur.offset), lamport: e.lamport + Lamport(cur.offset))
        return state.elements[elem].map { (elem, $0) }
    }
}

extension CRDTDocument {
    /// Moves the element at `from` so that it ends up at index `to` (both in the list as it is
    /// now; Loro's `mov`). Moving an element onto its own index changes nothing.
    /// - Complexity: O(log n + L).
    public mutating func move(from: Int, to: Int, in c: ContainerID) throws(CRDTError) {
        try check(c, .movableList)
        let n = length(of: c)
        guard from >= 0, from < n else { throw .outOfBounds(container: c, position: from, length: n, unit: .unicodeScalar) }
        guard to >= 0, to < n else { throw .outOfBounds(container: c, position: to, length: n, unit: .unicodeScalar) }
        guard from != to else { return }
        let st = mutate()
        let seq = st.sequence(c)
        guard let (elem, e) = st.movableElement(c, at: from) else { return }
        // The slot among the visible items with the element still in place.
        let (left, right, leaf, index) = st.insertionPoint(seq, c, at: to < from ? to : to + 1)
        let (counter, lamport) = st.nextLocalStamp()
        let item = Elem(peer: st.peer, counter: counter, lamport: lamport, length: 1, originLeft: left, originRight: right,
                        content: 0, utf16: 1, utf8: 1, kind: .value, deleted: false)
        st.record(Op(container: c, counter: counter, content: .move(elem: elem, from: e.pos, left: left, right: right)))
        st.applyMove(c, seq, item, elem: elem, from: e.pos, slot: (leaf, index))
    }

    /// Sets the value of the element at `index` of a movable list (Loro's `set`).
    /// - Complexity: O(log n).
    public mutating func set(_ value: CRDTValue, at index: Int, in c: ContainerID) throws(CRDTError) {
        try check(c, .movableList)
        let n = length(of: c)
        guard index >= 0, index < n else { throw .outOfBounds(container: c, position: index, length: n, unit: .unicodeScalar) }
        let st = mutate()
        guard let (elem, _) = st.movableElement(c, at: index) else { return }
        let (counter, lamport) = st.nextLocalStamp()
        st.record(Op(container: c, counter: counter, content: .setValue(elem: elem, value: value)))
        st.applySetValue(c, elem: elem, value: value, id: IdLp(peer: st.peer, lamport: lamport))
    }

    /// Sets the element at `index` of a movable list to a new child container and returns its ID.
    /// - Complexity: O(log n).
    @discardableResult
    public mutating func setContainer(_ type: ContainerType, at index: Int, in c: ContainerID) throws(CRDTError) -> ContainerID {
        let child = ContainerID.normal(id: OpID(peer: peer, counter: version[peer]), type: type)
        try set(.container(child), at: index, in: c)
        return child
    }
}

extension CRDTDocument {
    /// Undo for a movable list: each element the step touched (with the copies undo made of
    /// it, as one element) gets the state the operations outside `scope` give it — alive or
    /// not, at the item of its winning move, with the value of its winning set. An element that
    /// must come back is inserted anew (with the wanted value, remembered as a copy) right after
    /// the item it should sit at; a misplaced one moves right after it.
    /// - Complexity: O(ops) to read the container's history, plus O(log n) per element fixed.
    mutating func revertMovable(_ c: ContainerID, _ touched: Set<IdLp>, scope: RevertScope, aliases: inout UndoAliases) throws(CRDTError) {
        // The wanted state of each original element, from the operations that stay.
        struct Wanted { var value: CRDTValue?; var valueID: IdLp?; var pos: OpID?; var posID: IdLp?; var created = false }
        var wanted: [IdLp: Wanted] = [:]
        func include(_ root: IdLp, value: CRDTValue?, id: IdLp, pos: OpID?, created: Bool) {
            var w = wanted[root] ?? Wanted()
            if created { w.created = true }
            if let value, w.valueID.map({ $0 < id }) ?? true { w.value = value; w.valueID = id }
            if let pos, w.posID.map({ $0 < id }) ?? true { w.pos = pos; w.posID = id }
            wanted[root] = w
        }
        // A shallow document's root state holds the elements older than its history.
        for (elem, e) in s.shallowRoot?.movables[c]?.elements ?? [:] where touched.contains(aliases.root(elem)) {
            include(aliases.root(elem), value: e.value, id: e.valueID, pos: nil, created: true)
            include(aliases.root(elem), value: nil, id: e.posID, pos: e.pos, created: true)
        }
        var removedItems = Set<OpID>()
        for (peer, list) in s.changes {
            for ch in list {
                for op in ch.ops where op.container == c {
                    let id = OpID(peer: peer, counter: op.counter)
                    let lamport = ch.lamport + Lamport(op.counter - ch.counter)
                    switch op.content {
                    case let .insert(_, _, content, n):
                        for k in 0..<n {
                            let elem = IdLp(peer: peer, lamport: lamport + Lamport(k))
                            let root = aliases.root(elem)
                            guard touched.contains(root), !scope.reverts(id.advanced(by: k)) else { continue }
                            include(root, value: s.sequences[c]?.values[Int(content + k)], id: elem, pos: id.advanced(by: k), created: true)
                        }
                    case .delete:
                        guard !scope.reverts(id) else { continue }
                        op.forEachDeletion(by: peer) { d in for k in d.lo..<d.hi { removedItems.insert(OpID(peer: d.peer, counter: k)) } }
                    case let .move(elem, _, _, _):
                        guard touched.contains(aliases.root(elem)), !scope.reverts(id) else { continue }
                        include(aliases.root(elem), value: nil, id: IdLp(peer: peer, lamport: lamport), pos: id, created: false)
                    case let .setValue(elem, value):
                        guard touched.contains(aliases.root(elem)), !scope.reverts(id) else { continue }
                        include(aliases.root(elem), value: value, id: IdLp(peer: peer, lamport: lamport), pos: nil, created: false)
                    default:
                        break
                    }
                }
            }
        }
        for root in touched.sorted() {
            guard let state = s.movables[c], let seq = s.sequences[c] else { return }
            let alive = aliases.incarnations(root).filter { e in state.elements[e].map { !state.deletedItems.contains($0.pos) } ?? false }
            let w = wanted[root] ?? Wanted()
            let wantAlive = w.created && w.pos.map { !removedItems.contains($0) } == true
            if !wantAlive {
                for e in alive {
                    if let element = s.movables[c]?.elements[e], let pos = s.visiblePosition(s.sequences[c]!, element.pos) { try delete(at: pos, count: 1, in: c) }
                }
                continue
            }
            guard let target = w.pos, let value = w.value ?? alive.first.flatMap({ state.elements[$0]?.value }) else { continue }
            guard seq.cursor(of: target) != nil else { continue }
            guard let current = alive.last, let e = state.elements[current] else {
                // Back as a new element right after the item it should sit at.
                aliases.add(copy: mutate().insertMovable(c, value, after: target), of: root)
                continue
            }
            if e.pos != target { mutate().moveMovable(c, current, after: target) }
            if let now = s.movables[c]?.elements[current], now.value != value, let pos = s.visiblePosition(s.sequences[c]!, now.pos) {
                try set(value, at: pos, in: c)
            }
        }
    }

    /// Undo for a counter: take back every increment in `scope`.
    /// - Complexity: O(ops) of the history.
    mutating func revertCounter(_ c: ContainerID, scope: RevertScope) throws(CRDTError) {
        var sum = 0.0
        for ch in s.changes[scope.peer] ?? [] {
            for op in ch.ops where op.container == c {
                if case .counter(let d) = op.content, scope.reverts(OpID(peer: scope.peer, counter: op.counter)) { sum += d }
            }
        }
        if sum != 0 { try increment(c, by: -sum) }
    }
}

extension DocStorage {
    /// The origins and slot right after the item `anchor`, visible or not (undo puts elements
    /// back next to the item they sat at, as text undo puts copies next to their tombstones).
    private func slot(_ seq: FugueSequence, after anchor: OpID) -> (right: OptID, leaf: SeqNode, index: Int) {
        let cur = seq.splitAfter(anchor)!
        let right = seq.after(cur.leaf, cur.index).map { OptID($0.0.elems[$0.1].id) } ?? .none
        return (right, cur.leaf, cur.index + 1)
    }

    /// A local insert of one new element right after the item `anchor`; returns the element.
    /// - Complexity: O(log n + L).
    func insertMovable(_ c: ContainerID, _ value: CRDTValue, after anchor: OpID) -> IdLp {
        let seq = sequence(c)
        let (right, leaf, index) = slot(seq, after: anchor)
        let start = Int32(seq.values.count)
        seq.values.append(value)
        let (counter, lamport) = nextLocalStamp()
        record(Op(container: c, counter: counter, content: .insert(left: OptID(anchor), right: right, content: start, count: 1)))
        applyMovableInsert(c, seq, Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: OptID(anchor), originRight: right,
                                        content: start, utf16: 1, utf8: 1, kind: .value, deleted: false), slot: (leaf, index))
        return IdLp(peer: peer, lamport: lamport)
    }

    /// A local move of `elem` to a new item right after the item `anchor`.
    /// - Complexity: O(log n + L).
    func moveMovable(_ c: ContainerID, _ elem: IdLp, after anchor: OpID) {
        guard let from = movables[c]?.elements[elem]?.pos else { return }
        let seq = sequence(c)
        let (right, leaf, index) = slot(seq, after: anchor)
        let (counter, lamport) = nextLocalStamp()
        record(Op(container: c, counter: counter, content: .move(elem: elem, from: from, left: OptID(anchor), right: right)))
        applyMove(c, seq, Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: OptID(anchor), originRight: right,
                               content: 0, utf16: 1, utf8: 1, kind: .value, deleted: false), elem: elem, from: from, slot: (leaf, index))
    }
}
