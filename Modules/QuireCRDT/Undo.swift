import QuireAlgorithms

/// Which operations an undo or redo takes back: this peer's operations from `start` on, except
/// the spans that count as remote (commits whose origin the undo manager excludes).
///
/// The state an undo restores is the state of every operation *outside* the scope: all remote
/// operations, and the local ones before the step. Undo steps are taken newest first, so every
/// local operation after the step has been taken back already; that is why "everything local
/// from `start` on" is the right thing to leave out (Loro gets there by transforming the inverse
/// diff over the remote diffs; here element IDs do that work).
struct RevertScope {
    var peer: PeerID
    var start: OpCounter
    /// Sorted, disjoint local counter ranges that count as remote.
    var foreign: [Range<OpCounter>]

    /// Whether the operation `id` is taken back.
    /// - Complexity: O(log f) for f foreign ranges.
    func reverts(_ id: OpID) -> Bool {
        guard id.peer == peer, id.counter >= start else { return false }
        let lo = foreign.partitioningIndex { $0.upperBound > id.counter }
        return !(lo < foreign.count && foreign[lo].contains(id.counter))
    }

    /// This peer's counters whose operations stay: those before `start` and the foreign ranges
    /// (every operation of another peer stays).
    var kept: [Range<OpCounter>] {
        [0..<start] + foreign.filter { $0.upperBound > start }.map { max($0.lowerBound, start)..<$0.upperBound }
    }
}

/// The copies undo made of deleted elements. A Fugue element cannot come back once deleted, so
/// undoing a deletion inserts a copy; later steps must treat the copy as the original (undoing
/// the insertion of "hello" also removes a restored copy of its "ll").
struct UndoAliases: Sendable {
    /// Originals and their copies, for one kind of ID.
    struct Table<ID: Hashable & Sendable>: Sendable {
        private var rootOf: [ID: ID] = [:]
        private var copiesOf: [ID: [ID]] = [:]

        /// The original `id` stands for.
        /// - Complexity: O(1) expected.
        func root(_ id: ID) -> ID { rootOf[id] ?? id }

        /// The original and its copies, oldest first.
        /// - Complexity: O(copies).
        func incarnations(_ root: ID) -> [ID] { [root] + (copiesOf[root] ?? []) }

        mutating func add(copy: ID, of root: ID) {
            rootOf[copy] = root
            copiesOf[root, default: []].append(copy)
        }
    }

    private var sequenceElements = Table<OpID>()
    // Movable list elements come back as new elements too.
    private var movableElements = Table<IdLp>()

    func root(_ id: OpID) -> OpID { sequenceElements.root(id) }
    func incarnations(_ root: OpID) -> [OpID] { sequenceElements.incarnations(root) }
    mutating func add(copy: OpID, of root: OpID) { sequenceElements.add(copy: copy, of: root) }
    func root(_ id: IdLp) -> IdLp { movableElements.root(id) }
    func incarnations(_ root: IdLp) -> [IdLp] { movableElements.incarnations(root) }
    mutating func add(copy: IdLp, of root: IdLp) { movableElements.add(copy: copy, of: root) }
}

extension FugueSequence {
    /// Whether the element `id` is visible; nil when it is not in this sequence.
    /// - Complexity: O(log r + L).
    func isVisible(_ id: OpID) -> Bool? {
        guard let c = cursor(of: id) else { return nil }
        return c.leaf.elems[c.index].visible
    }

    /// The element before `(leaf, index)` in document order.
    func before(_ leaf: SeqNode, _ index: Int) -> (SeqNode, Int)? {
        if index > 0 { return (leaf, index - 1) }
        var l = leaf.prev
        while let x = l { if !x.elems.isEmpty { return (x, x.elems.count - 1) }; l = x.prev }
        return nil
    }

    /// The run holding the element `id` and the offset of `id` in it, if it is in this sequence.
    /// - Complexity: O(log r + L).
    func elem(_ id: OpID) -> (Elem, Int32)? {
        guard let c = cursor(of: id) else { return nil }
        return (c.leaf.elems[c.index], c.offset)
    }
}

extension TreeState {
    /// The placements under `parent` that put `n` back in the sibling order of `wanted` (the
    /// tree without the reverted operations): `n`'s first, then any sibling that has to make
    /// room; none when `n` already sits there.
    ///
    /// Siblings are compared by their placement in `wanted` when they sit under `parent` there
    /// (so nodes restored earlier in the same step count where they belong), else by their
    /// current one. When `n` is under `parent` and every sibling already falls on the right side
    /// of it, nothing is placed, even if its index or placing operation differ from the wanted
    /// ones: the order is what the user sees, and a move that changes nothing would give the
    /// opposite step (redo after undo) nothing to do.
    ///
    /// Otherwise the old index bytes `b` are reused when they still fall between the left and
    /// right neighbours' current bytes (a tie with the left one is fine: the restoring operation
    /// is newer, so it sorts after); else a fresh index between the neighbours is made.
    ///
    /// When the neighbours' bytes tie (siblings placed concurrently at one spot), no index fits
    /// between them: as Loro does when a node is created between siblings sharing an index, the
    /// siblings on one side of `n` that share the index get fresh, increasing indexes along with
    /// `n` — those on the right (Loro's choice) when they are all nodes `peer` created, else
    /// those on the left when they are. Another peer's node is never moved: the move would
    /// override that peer's concurrent moves of it and reorder the siblings it concurrently
    /// placed next to it (an index given to it here can fall on either side of theirs). With
    /// other peers' nodes on both sides, `n` keeps its old bytes and lands after the tie.
    /// - Complexity: O(siblings · length of an index).
    func restoredPlacements(of n: TreeID, under parent: TreeParent, in wanted: TreeState, peer: PeerID) -> [(node: TreeID, position: [UInt8])] {
        guard let target = wanted.nodes[n] else { return [] }
        let siblings = (children[parent] ?? []).filter { $0 != n && nodes[$0] != nil }
        let goesLeft = siblings.map { s in (wanted.nodes[s].flatMap { $0.parent == parent ? $0 : nil } ?? nodes[s]!).sortsBefore(target) }
        // `children` is in current sibling order: n is in place when its left-keyed siblings
        // come exactly before it.
        if let have = nodes[n], have.parent == parent, let at = children[parent]?.firstIndex(of: n) {
            let before = children[parent]![..<at].filter { $0 != n && nodes[$0] != nil }.count
            if goesLeft.prefix(before).allSatisfy({ $0 }) && !goesLeft.dropFirst(before).contains(true) { return [] }
        }
        var left: [UInt8]?, right: [UInt8]?
        for (s, isLeft) in zip(siblings, goesLeft) {
            let now = nodes[s]!.position
            if isLeft {
                if left.map({ $0.lexicographicallyPrecedes(now) }) ?? true { left = now }
            } else if right.map({ now.lexicographicallyPrecedes($0) }) ?? true {
                right = now
            }
        }
        let b = target.position
        let fitsLeft = left.map { !b.lexicographicallyPrecedes($0) } ?? true
        let fitsRight = right.map { b.lexicographicallyPrecedes($0) } ?? true
        if fitsLeft && fitsRight { return [(n, b)] }
        guard let left, let right, !left.lexicographicallyPrecedes(right) else { return [(n, FractionalIndex.new(left, right))] }
        // Neighbours out of order: some sibling sits on the other side of another one than
        // `wanted` has it, and no index is right for all of them; the old bytes are kept.
        guard left == right else { return [(n, b)] }
        // A tie: `siblings` is in current order, so each group keeps its order.
        let tie = left
        let leftGroup = zip(siblings, goesLeft).filter { $0.1 && nodes[$0.0]!.position == tie }.map(\.0)
        let rightGroup = zip(siblings, goesLeft).filter { !$0.1 && nodes[$0.0]!.position == tie }.map(\.0)
        let rightIsOwn = rightGroup.allSatisfy { $0.peer == peer }
        guard rightIsOwn || leftGroup.allSatisfy({ $0.peer == peer }) else { return [(n, b)] }
        let moveLeft = !rightIsOwn
        let moving = moveLeft ? leftGroup + [n] : [n] + rightGroup
        // The free interval next to the tie: up to the nearest other index on that side.
        var lo: [UInt8]? = moveLeft ? nil : tie, hi: [UInt8]? = moveLeft ? tie : nil
        for s in siblings {
            let now = nodes[s]!.position
            if moveLeft, now.lexicographicallyPrecedes(tie), lo.map({ $0.lexicographicallyPrecedes(now) }) ?? true { lo = now }
            if !moveLeft, tie.lexicographicallyPrecedes(now), hi.map({ now.lexicographicallyPrecedes($0) }) ?? true { hi = now }
        }
        var out: [(node: TreeID, position: [UInt8])] = []
        for s in moving {
            let p = FractionalIndex.new(lo, hi)
            // Malformed neighbouring bytes can leave no room: keep the old bytes then.
            guard lo.map({ $0.lexicographicallyPrecedes(p) }) ?? true, hi.map({ p.lexicographicallyPrecedes($0) }) ?? true else { return [(n, b)] }
            out.append((s, p))
            lo = p
        }
        return moveLeft ? [out.last!] + out.dropLast() : out
    }
}

/// A formatting change undo makes: `key` becomes `value` on the elements from `first` through
/// `last` in document order (text, or at the ends the anchors of other marks).
struct MarkFix {
    var first: OpID
    var last: OpID
    var key: String
    var value: CRDTValue
}

/// What one step touched, gathered from its operations.
struct TouchedState {
    /// Per text or list: the original elements the step inserted or deleted.
    var elements: [ContainerID: Set<OpID>] = [:]
    /// Per text: the marks the step added.
    var marks: [ContainerID: [OpID]] = [:]
    var keys: [ContainerID: Set<String>] = [:]
    var nodes: [ContainerID: [TreeID]] = [:]
    /// Per movable list: the elements the step inserted, deleted, moved or set.
    var movable: [ContainerID: Set<IdLp>] = [:]
    /// The counters the step changed.
    var counters: Set<ContainerID> = []
}

extension DocStorage {
    /// What the local operations `span` of this peer touched.
    /// - Complexity: O(ops + atoms) of the span.
    func touched(_ span: Range<OpCounter>, aliases: UndoAliases) -> TouchedState {
        var t = TouchedState()
        guard let list = changes[peer] else { return t }
        var i = firstChange(of: peer, endingAfter: span.lowerBound)
        while i < list.count, list[i].counter < span.upperBound {
            for op in list[i].ops where op.counter < span.upperBound && op.counter + op.length > span.lowerBound {
                let c = op.container
                if c.type == .movableList {
                    t.movable[c, default: []].formUnion(touchedElements(op, list[i], span).map { aliases.root($0) })
                    continue
                }
                switch op.content {
                case let .insert(_, _, _, n):
                    for k in max(span.lowerBound, op.counter)..<min(span.upperBound, op.counter + n) {
                        t.elements[c, default: []].insert(aliases.root(OpID(peer: peer, counter: k)))
                    }
                case .delete:
                    op.forEachDeletion(by: peer) { d in
                        guard let d = d.clipped(toDeleters: span.lowerBound, span.upperBound) else { return }
                        for k in d.lo..<d.hi { t.elements[c, default: []].insert(aliases.root(OpID(peer: d.peer, counter: k))) }
                    }
                case .mark:
                    t.marks[c, default: []].append(OpID(peer: peer, counter: op.counter))
                case .mapSet(let key, _):
                    t.keys[c, default: []].insert(key)
                case .tree(let target, _, _):
                    if !(t.nodes[c]?.contains(target) ?? false) { t.nodes[c, default: []].append(target) }
                case .counter:
                    t.counters.insert(c)
                case .insertText, .insertValues, .move, .setValue:
                    break
                }
            }
            i += 1
        }
        return t
    }

    /// The movable list elements an op of this peer's change `ch` touches within `span`.
    /// - Complexity: O(atoms of the op).
    private func touchedElements(_ op: Op, _ ch: Change, _ span: Range<OpCounter>) -> [IdLp] {
        let c = op.container
        guard let state = movables[c], let seq = sequences[c] else { return [] }
        switch op.content {
        case let .insert(_, _, _, n):
            return (max(span.lowerBound, op.counter)..<min(span.upperBound, op.counter + n)).map {
                IdLp(peer: peer, lamport: ch.lamport + Lamport($0 - ch.counter))
            }
        case .delete:
            var out: [IdLp] = []
            op.forEachDeletion(by: peer) { d in
                guard let d = d.clipped(toDeleters: span.lowerBound, span.upperBound) else { return }
                for k in d.lo..<d.hi {
                    let item = OpID(peer: d.peer, counter: k)
                    if let l = seq.lamport(of: item) { out.append(state.element(ofItem: item, lamport: l)) }
                }
            }
            return out
        case .move(let elem, _, _, _), .setValue(let elem, _):
            return [elem]
        default:
            return []
        }
    }

    /// The atoms among `targets` that an operation outside `scope` deletes. Deletions come after
    /// what they delete, so only changes newer than `minLamport` are read.
    /// - Complexity: O(ops newer than `minLamport` · log t).
    func deletedOutside(_ scope: RevertScope, among targets: [OpID], minLamport: Lamport) -> Set<OpID> {
        var byPeer: [PeerID: [OpCounter]] = [:]
        for t in targets { byPeer[t.peer, default: []].append(t.counter) }
        for k in byPeer.keys { byPeer[k]!.sort() }
        var out = Set<OpID>()
        for (peer, list) in changes {
            let lo = list.partitioningIndex { $0.lamport + Lamport($0.length) > minLamport }
            let local = peer == scope.peer
            let kept = scope.kept
            func collect(_ d: Deletion) {
                guard let counters = byPeer[d.peer] else { return }
                var i = counters.partitioningIndex { $0 >= d.lo }
                while i < counters.count, counters[i] < d.hi { out.insert(OpID(peer: d.peer, counter: counters[i])); i += 1 }
            }
            for ch in list[lo...] {
                for op in ch.ops {
                    op.forEachDeletion(by: peer) { whole in
                        guard local else { collect(whole); return }
                        for range in kept { if let d = whole.clipped(toDeleters: range.lowerBound, range.upperBound) { collect(d) } }
                    }
                }
            }
        }
        return out
    }

    /// The runs of text elements (tombstones included) between the anchors of mark `m` whose
    /// value for its key must change, and to what: the winner among the marks outside `scope`
    /// that cover them. Tombstones count because undo may bring them back as copies right next
    /// to them, which must then show the right formatting.
    ///
    /// Only a visible element that keeps its value splits a fix, as the ranges of Loro's
    /// inverse diff split only there. Tombstones that keep theirs between two runs getting one
    /// value, or between the mark's own anchor and the nearest such run, are covered by the fix
    /// all the same and get their value back from a fix nested inside it (listed after the
    /// others, so that it is newer and wins), and a fix reaching the mark's anchor that way
    /// starts (or ends) right next to it, outside other marks' anchors there: text a remote
    /// peer typed in such places concurrently, not known yet, then lands inside the fix instead
    /// of in a gap where the undone formatting would stay.
    /// - Complexity: O(M · log n + r · a) for r runs between the anchors and a active marks.
    func markFixes(_ c: ContainerID, _ m: OpID, scope: RevertScope) -> [MarkFix] {
        guard let seq = sequences[c], let key = seq.marks[m]?.key, let start = seq.cursor(of: m) else { return [] }
        let table = seq.marks
        var active = activeMarks(seq, c, at: seq.prefix(of: start).elements)
        var current = CRDTValue.null, wanted = CRDTValue.null
        var fixes: [MarkFix] = []
        var nested: [MarkFix] = []
        // The runs of tombstones that keep their value since the last fix (or the mark's start),
        // as nested fixes; `bridging` while no visible element keeping its value came since.
        var gap: [MarkFix] = []
        var bridging = true
        // The elements right after the mark's start anchor and right before its end anchor.
        var firstInside: OpID?, lastInside: OpID?
        var it: (SeqNode, Int)? = (start.leaf, start.index)
        let end = m.advanced(by: 1)
        while let (leaf, i) = it {
            let e = leaf.elems[i]
            if e.id != m {
                if firstInside == nil { firstInside = e.id }
                if e.id != end { lastInside = e.lastID }
            }
            if e.kind == .markStart || e.kind == .markEnd {
                if e.id == end { break }
                if e.kind == .markStart { active.insert(e.id) } else { active.remove(e.id.advanced(by: -1)) }
                current = MarkInfo.winners(active, table)[key]?.value ?? .null
                wanted = MarkInfo.winners(active, table, where: { !scope.reverts($0) })[key]?.value ?? .null
            } else if e.kind == .text {
                if current == wanted {
                    if bridging, !e.visible {
                        if let last = gap.last, last.value == wanted { gap[gap.count - 1].last = e.lastID } else {
                            gap.append(MarkFix(first: e.id, last: e.lastID, key: key, value: wanted))
                        }
                    } else {
                        bridging = false
                        gap = []
                    }
                } else {
                    if bridging, let last = fixes.last, last.value == wanted {
                        fixes[fixes.count - 1].last = e.lastID
                    } else {
                        // The first fix takes in what lies between the mark's start and it; a
                        // gap before a fix of another value stays out.
                        let fromStart = bridging && fixes.isEmpty
                        fixes.append(MarkFix(first: fromStart ? firstInside ?? e.id : e.id, last: e.lastID, key: key, value: wanted))
                        if !fromStart { gap = [] }
                    }
                    nested += gap
                    gap = []
                    bridging = true
                }
            }
            it = seq.after(leaf, i)
        }
        // The last fix takes in what lies between it and the mark's end.
        if bridging, let last = lastInside, !fixes.isEmpty {
            fixes[fixes.count - 1].last = last
            nested += gap
        }
        return fixes + nested
    }

    /// Records and applies a local mark whose anchors sit right before `fix.first` and right
    /// after `fix.last` (``CRDTDocument/mark(_:key:value:in:unit:)`` places them by visible
    /// position, which may take in tombstones at the edges).
    /// - Complexity: O(log n + L) plus the event when recorded.
    func applyMarkFix(_ c: ContainerID, _ fix: MarkFix) {
        let seq = sequence(c)
        let configured = styles[fix.key] ?? .after
        let expand = fix.value == .null ? configured.reversed : configured
        let (counter, lamport) = nextLocalStamp()
        let markID = OpID(peer: peer, counter: counter)
        seq.marks[markID] = MarkInfo(key: fix.key, value: fix.value, expand: expand, lamport: lamport, peer: peer)
        let first = seq.splitBefore(fix.first)!
        let startLeft = seq.before(first.leaf, first.index).map { OptID($0.0.elems[$0.1].lastID) } ?? .none
        seq.insertElem(Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: startLeft, originRight: OptID(fix.first),
                            content: 0, utf16: 0, utf8: 0, kind: .markStart, deleted: false), leaf: first.leaf, at: first.index)
        let last = seq.splitAfter(fix.last)!
        let endRight = seq.after(last.leaf, last.index).map { OptID($0.0.elems[$0.1].id) } ?? .none
        seq.insertElem(Elem(peer: peer, counter: counter + 1, lamport: lamport + 1, length: 1, originLeft: OptID(fix.last), originRight: endRight,
                            content: 0, utf16: 0, utf8: 0, kind: .markEnd, deleted: false), leaf: last.leaf, at: last.index + 1)
        record(Op(container: c, counter: counter, content: .mark(MarkPayload(
            key: fix.key, value: fix.value, expand: expand, startLeft: startLeft, startRight: OptID(fix.first), endLeft: OptID(fix.last), endRight: endRight))))
        emitMark(c, seq, markID: markID, key: fix.key)
    }

    /// Inserts copies of deleted content right after the element `anchor`, as a local
    /// operation, and returns the first copy's ID.
    /// - Complexity: O(log n + k) for k copied elements.
    func insertCopy(_ c: ContainerID, _ seq: FugueSequence, after anchor: OpID, scalars: [Unicode.Scalar], values: [CRDTValue]) -> OpID {
        let cur = seq.splitAfter(anchor)!
        let right = seq.after(cur.leaf, cur.index).map { OptID($0.0.elems[$0.1].id) } ?? .none
        let isText = c.type == .text
        let start = Int32(isText ? seq.scalars.count : seq.values.count)
        let n = Int32(isText ? scalars.count : values.count)
        var u16 = n, u8 = n
        if isText {
            seq.scalars.append(contentsOf: scalars)
            u16 = scalars.reduce(0) { $0 + ($1.value > 0xFFFF ? 2 : 1) }
            u8 = scalars.reduce(0) { $0 + Int32(UTF8.width($1)) }
        } else {
            seq.values.append(contentsOf: values)
        }
        let (counter, lamport) = nextLocalStamp()
        let left = OptID(anchor)
        let e = Elem(peer: peer, counter: counter, lamport: lamport, length: n, originLeft: left, originRight: right,
                     content: start, utf16: u16, utf8: u8, kind: isText ? .text : .value, deleted: false)
        record(Op(container: c, counter: counter, content: .insert(left: left, right: right, content: start, count: n)))
        applyInsert(c, seq, e, slot: (cur.leaf, cur.index + 1))
        return e.id
    }

    /// Records and applies a local tree operation with an explicit parent and position (undo
    /// moves a node back to the exact fractional index it had, and may revive a deleted node).
    /// - Complexity: as ``TreeState/apply(_:diffs:record:)``.
    func placeTreeNode(_ c: ContainerID, _ node: TreeID, parent: TreeParent, position: [UInt8]) {
        let (counter, lamport) = nextLocalStamp()
        record(Op(container: c, counter: counter, content: .tree(target: node, parent: parent, position: position)))
        applyTree(c, TreeOpRecord(lamport: lamport, peer: peer, counter: counter, target: node, parent: parent, position: position))
    }
}

extension CRDTDocument {
    /// Appends local operations that take back what this peer's operations `span` did, against
    /// the current state: everything the span touched is brought to its state without the
    /// operations in `scope` (see ``RevertScope``).
    ///
    /// - Text and list: an element the span inserted is deleted (with any copy of it that is
    ///   visible); an element it deleted gets a copy inserted right after it, unless a remote
    ///   peer deleted it too. Copies of adjacent elements form one run when each element's
    ///   left origin is the one before it (a word typed in one go is one insertion and keeps
    ///   its place between mark anchors, its formatting); elements of different insertions get
    ///   copies of their own, since an unseen concurrent insertion may still come between them.
    /// - Marks: for each character the span's mark covers, the key's value becomes the winner
    ///   among the marks outside the scope (the previous value, or a later remote one).
    /// - Map: each key the span wrote gets the winning value among writes outside the scope.
    /// - Tree: each node the span created, moved or deleted goes back to its parent and sibling
    ///   order outside the scope (deleted when it did not exist), unless it already sits
    ///   there; this peer's own siblings sharing its index may move with it (see
    ///   `TreeState.restoredPlacements(of:under:in:peer:)`); a move that would now form a
    ///   cycle is skipped, as Loro skips it.
    ///
    /// - Complexity: O(a · log n) for the a atoms of the span and their copies, plus
    ///   O(ops newer than the oldest touched element) to find remote deletions, O(M · log n + r)
    ///   per mark over r covered runs, O(ops) when map keys were written, and per tree
    ///   O(L · (d + s)) to rebuild it without the scope (L operations, depth d, s siblings of a
    ///   node) plus O(s · i) per touched node (i the length of an index).
    mutating func revert(_ span: Range<OpCounter>, scope: RevertScope, aliases: inout UndoAliases) throws(CRDTError) {
        // No storage reference is held across these calls: a second reference would make the
        // next `mutate()` copy the whole document.
        let touched = s.touched(span, aliases: aliases)
        for c in touched.elements.keys.sorted() {
            revertElements(c, roots: touched.elements[c]!.sorted(), scope: scope, aliases: &aliases)
        }
        for c in touched.marks.keys.sorted() {
            for m in touched.marks[c]! {
                for fix in s.markFixes(c, m, scope: scope) { mutate().applyMarkFix(c, fix) }
            }
        }
        if !touched.keys.isEmpty { try revertKeys(touched.keys, scope: scope) }
        for c in touched.nodes.keys.sorted() { revertNodes(c, touched.nodes[c]!, scope: scope) }
        for c in touched.movable.keys.sorted() { try revertMovable(c, touched.movable[c]!, scope: scope, aliases: &aliases) }
        for c in touched.counters.sorted() { try revertCounter(c, scope: scope) }
    }

    private mutating func revertElements(_ c: ContainerID, roots: [OpID], scope: RevertScope, aliases: inout UndoAliases) {
        let st = mutate()
        guard let seq = st.sequences[c] else { return }
        var all: [OpID] = []
        var minLamport = Lamport.max
        for r in roots {
            for x in aliases.incarnations(r) {
                guard let (e, offset) = seq.elem(x) else { continue }
                all.append(x)
                minLamport = min(minLamport, e.lamport + Lamport(offset))
            }
        }
        let deletedElsewhere = st.deletedOutside(scope, among: all, minLamport: minLamport)
        var doomed: [OpID] = []
        var revive: [(root: OpID, anchor: OpID, index: Int)] = []
        for r in roots {
            let incarnations = aliases.incarnations(r).filter { seq.isVisible($0) != nil }
            guard let latest = incarnations.last else { continue }
            let visible = incarnations.filter { seq.isVisible($0) == true }
            let wanted = incarnations.contains { !scope.reverts($0) && !deletedElsewhere.contains($0) }
            if wanted, visible.isEmpty {
                revive.append((r, latest, seq.elementIndex(of: latest) ?? 0))
            } else if !wanted {
                doomed.append(contentsOf: visible)
            }
        }
        // Deletions first: they leave tombstones, so the element indexes of `revive` hold.
        for span in CRDTDocument.spans(doomed) {
            let (counter, _) = st.nextLocalStamp()
            st.record(Op(container: c, counter: counter, content: .delete([DelSpan(span)])))
            st.applyDelete(c, seq, [DelSpan(span)])
        }
        // Copies of elements that sit next to each other form one run after the last of them,
        // but only along an insertion chain (each element's left origin the one before it).
        // Elements that are merely adjacent here may have come from concurrent insertions,
        // and an insertion concurrent with this undo that is not known yet can still land
        // between them (Fugue orders concurrent runs at one spot by origin and peer): a copy
        // anchored after a later neighbour would then jump over it. Along a chain nothing
        // lands in between unless typed right next to those elements.
        // Groups are inserted right to left so that indexes to the left stay valid.
        revive.sort { $0.index < $1.index }
        var groups: [[(root: OpID, anchor: OpID, index: Int)]] = []
        for item in revive {
            if let last = groups.last?.last, last.index + 1 == item.index, seq.originLeft(ofAtom: item.anchor) == OptID(last.anchor) {
                groups[groups.count - 1].append(item)
            } else {
                groups.append([item])
            }
        }
        for group in groups.reversed() {
            var scalars: [Unicode.Scalar] = []
            var values: [CRDTValue] = []
            for item in group {
                let (e, offset) = seq.elem(item.anchor)!
                if c.type == .text { scalars.append(seq.scalars[Int(e.content + offset)]) } else { values.append(seq.values[Int(e.content + offset)]) }
            }
            let first = st.insertCopy(c, seq, after: group.last!.anchor, scalars: scalars, values: values)
            for (k, item) in group.enumerated() { aliases.add(copy: first.advanced(by: Int32(k)), of: item.root) }
        }
    }

    /// Sorted IDs as maximal spans of consecutive counters.
    static func spans(_ ids: [OpID]) -> [IDSpan] {
        var out: [IDSpan] = []
        for id in ids.sorted() {
            if let last = out.last, last.peer == id.peer, last.end == id.counter { out[out.count - 1].end += 1 } else {
                out.append(IDSpan(peer: id.peer, start: id.counter, end: id.counter + 1))
            }
        }
        return out
    }

    private mutating func revertKeys(_ keys: [ContainerID: Set<String>], scope: RevertScope) throws(CRDTError) {
        // The winner among the writes that stay; the map keeps only the current winner, so the
        // history is read.
        var best: [ContainerID: [String: MapEntry]] = [:]
        // A shallow document's root state holds the writes before its history.
        for (c, map) in s.shallowRoot?.maps ?? [:] {
            for (key, entry) in map where keys[c]?.contains(key) == true { best[c, default: [:]][key] = entry }
        }
        for (peer, list) in s.changes {
            for ch in list {
                for op in ch.ops {
                    guard case let .mapSet(key, value) = op.content, keys[op.container]?.contains(key) == true,
                          !scope.reverts(OpID(peer: peer, counter: op.counter)) else { continue }
                    let lamport = ch.lamport + Lamport(op.counter - ch.counter)
                    if let old = best[op.container]?[key], !old.isBeaten(lamport: lamport, peer: peer) { continue }
                    best[op.container, default: [:]][key] = MapEntry(value: value, lamport: lamport, peer: peer, counter: op.counter)
                }
            }
        }
        for c in keys.keys.sorted() {
            for key in keys[c]!.sorted() {
                let wanted = best[c]?[key]?.value
                guard wanted != get(key, in: c) else { continue }
                if let wanted { try set(key, wanted, in: c) } else { try removeKey(key, in: c) }
            }
        }
    }

    private mutating func revertNodes(_ c: ContainerID, _ nodes: [TreeID], scope: RevertScope) {
        let st = mutate()
        guard let log = st.trees[c]?.log else { return }
        var wanted = st.shallowRoot?.trees[c] ?? TreeState()
        var none: [TreeDiff] = []
        for r in log where !scope.reverts(OpID(peer: r.peer, counter: r.counter)) { wanted.apply(r, diffs: &none, record: false) }
        func depth(_ n: TreeID) -> Int {
            var d = 0
            var cur = wanted.nodes[n]
            while case .node(let p)? = cur?.parent, d <= wanted.nodes.count { d += 1; cur = wanted.nodes[p] }
            return wanted.nodes[n] == nil ? -1 : d
        }
        // Parents before children, so a restored subtree is rebuilt top-down without cycles;
        // siblings in their wanted order, so each finds its left neighbour already in place.
        let order = nodes.sorted { x, y in
            let dx = depth(x), dy = depth(y)
            if dx != dy { return dx < dy }
            guard let px = wanted.nodes[x], let py = wanted.nodes[y] else { return x < y }
            return px.sortsBefore(py)
        }
        for n in order {
            guard let have = st.trees[c]?.nodes[n] else { continue }
            let target = wanted.nodes[n]
            let parent = target?.parent ?? .deleted
            if parent == .deleted {
                if have.parent != .deleted { st.placeTreeNode(c, n, parent: .deleted, position: []) }
                continue
            }
            // Placed by the very operation the wanted state has: nothing to do.
            if have == target { continue }
            if case .node(let p) = parent, st.trees[c]!.isAncestor(n, of: p) { continue }
            for (node, position) in st.trees[c]!.restoredPlacements(of: n, under: parent, in: wanted, peer: st.peer) {
                st.placeTreeNode(c, node, parent: parent, position: position)
            }
        }
    }
}
