// The state SSTable of a snapshot (loro-dev/loro `docs/encoding-container-states.md`): one
// entry per container, keyed by `ContainerID::to_bytes()`, whose value is the wrapper
//
//   u8 kind, uleb depth (a root is 1), postcard Option<ContainerID> parent, type-specific state
//
// Text:  postcard String (visible text), peer table, columnar spans (peer, counter, Lamport -
//        counter, len: > 0 scalars, 0 a style start with its mark row, -1 its end), style
//        keys, mark rows (key, postcard value, info byte)
// List:  postcard Vec<LoroValue> (visible), peer table, columnar IDs of the visible elements
// Map:   postcard map of the visible values, postcard Vec of deleted keys, peer table, then
//        (peer, Lamport) of every key in UTF-8 order
// Tree:  peer table, columnar node IDs and nodes (parent, last move, position), positions
//        (alive nodes breadth-first, then deleted ones)

/// A peer table as the state codecs build it: peers in order of first use.
struct PeerTable {
    private var peers = Interner<PeerID>()

    mutating func callAsFunction(_ p: PeerID) -> Int64 { Int64(peers(p)) }

    func write(into w: inout ByteWriter) {
        w.uvarint(peers.values.count)
        for p in peers.values { w.u64(p) }
    }

    static func read(_ r: inout ByteReader) throws(CRDTError) -> [PeerID] {
        let at = r.offset
        let n = try r.uvarint()
        guard n <= UInt64(r.remaining / 8) else { throw CRDTError.malformedBytes(offset: at, reason: "peer table of \(n) peers") }
        var out: [PeerID] = []
        for _ in 0..<Int(n) { out.append(try r.u64le()) }
        return out
    }
}

enum LoroStateEncoder {
    /// The state SSTable entries of every container with state, in key order.
    /// - Complexity: O(size of the state + c log c) for c containers.
    static func entries(_ st: DocStorage) -> [(key: [UInt8], value: [UInt8])] {
        var containers = Set<ContainerID>()
        for c in st.sequences.keys { containers.insert(c) }
        for c in st.maps.keys { containers.insert(c) }
        for c in st.counters.keys { containers.insert(c) }
        for (c, tree) in st.trees {
            containers.insert(c)
            // Every node has a property map, empty or not, as in Loro's state.
            for n in tree.nodes.keys { containers.insert(.normal(id: n, type: .map)) }
        }
        var out: [(key: [UInt8], value: [UInt8])] = containers.map { ($0.loroKey, wrapper($0, st)) }
        out.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return out
    }

    static func depth(_ c: ContainerID, _ st: DocStorage) -> Int {
        var d = 1
        var cur = c
        while let (p, _) = st.parents[cur], d < 10_000 { d += 1; cur = p }
        return d
    }

    static func wrapper(_ c: ContainerID, _ st: DocStorage) -> [UInt8] {
        var w = ByteWriter()
        w.u8(c.type.loroKind)
        w.uvarint(depth(c, st))
        if let (parent, _) = st.parents[c] { w.u8(1); Postcard.write(parent, into: &w) } else { w.u8(0) }
        switch c.type {
        case .text: text(st.sequences[c], into: &w)
        case .list: list(st.sequences[c], into: &w)
        case .map: map(st.maps[c] ?? [:], into: &w)
        case .tree: tree(st.trees[c] ?? TreeState(), into: &w)
        case .movableList: movableList(st.sequences[c], st.movables[c] ?? MovableListState(), into: &w)
        case .counter: w.u64(st.counters[c, default: 0].bitPattern)
        }
        return w.bytes
    }

    /// A movable list: the visible values, then its items (visible ones with their element and
    /// its last set when they differ from the item's own ID, each followed by the count of
    /// dead items after it; a sentinel first counts the dead items before the first one).
    static func movableList(_ seq: FugueSequence?, _ state: MovableListState, into w: inout ByteWriter) {
        var values: [CRDTValue] = []
        var peers = PeerTable()
        var invisible: [Int64] = [0], posIsElem: [Bool] = [true], elemIsSet: [Bool] = [true]
        var itemPeers: [Int64] = [], itemCounters: [Int64] = [], itemLamports: [Int64] = []
        var elemPeers: [Int64] = [], elemLamports: [Int64] = []
        var setPeers: [Int64] = [], setLamports: [Int64] = []
        seq?.forEachElem { e in
            for k in 0..<e.length {
                let id = e.id.advanced(by: k)
                guard !state.deletedItems.contains(id) else { continue }
                let lamport = e.lamport + Lamport(k)
                itemPeers.append(peers(id.peer)); itemCounters.append(Int64(id.counter)); itemLamports.append(Int64(lamport) - Int64(id.counter))
                guard e.visible else { invisible[invisible.count - 1] += 1; continue }
                let elem = state.element(ofItem: id, lamport: lamport)
                let element = state.elements[elem]!
                values.append(element.value)
                invisible.append(0)
                posIsElem.append(elem == IdLp(peer: id.peer, lamport: lamport))
                if !posIsElem.last! { elemPeers.append(peers(elem.peer)); elemLamports.append(Int64(elem.lamport)) }
                elemIsSet.append(element.valueID == elem)
                if !elemIsSet.last! { setPeers.append(peers(element.valueID.peer)); setLamports.append(Int64(element.valueID.lamport)) }
            }
        }
        w.uvarint(values.count)
        for v in values { Postcard.write(v, into: &w) }
        peers.write(into: &w)
        w.uvarint(4)
        var c0 = ByteWriter(), c1 = ByteWriter(), c2 = ByteWriter()
        Columnar.deltaRle(invisible, into: &c0)
        Columnar.boolRle(posIsElem, into: &c1)
        Columnar.boolRle(elemIsSet, into: &c2)
        Columnar.vector([c0.bytes, c1.bytes, c2.bytes], into: &w)
        Columnar.vector(Columnar.deltaRle(columns: [itemPeers, itemCounters, itemLamports]), into: &w)
        Columnar.vector(Columnar.deltaRle(columns: [elemPeers, elemLamports]), into: &w)
        Columnar.vector(Columnar.deltaRle(columns: [setPeers, setLamports]), into: &w)
    }

    static func text(_ seq: FugueSequence?, into w: inout ByteWriter) {
        w.string(seq?.string() ?? "")
        var peers = PeerTable()
        var peerColumn: [Int64] = [], counterColumn: [Int64] = [], lamportColumn: [Int64] = [], lenColumn: [Int64] = []
        var keys: [String] = [], keyIndex: [String: Int] = [:]
        var marks = ByteWriter()
        var markCount = 0
        seq?.forEachElem { e in
            let len: Int64
            switch e.kind {
            case .text:
                guard !e.deleted else { return }
                len = Int64(e.length)
            case .markStart: len = 0
            case .markEnd: len = -1
            case .value: return
            }
            // Merge a text run with the previous one when IDs and Lamports continue.
            if len > 0, let last = lenColumn.last, last > 0, peerColumn.last == peers(e.peer),
               counterColumn.last! + last == Int64(e.counter), lamportColumn.last == Int64(e.lamport) - Int64(e.counter) {
                lenColumn[lenColumn.count - 1] += len
                return
            }
            peerColumn.append(peers(e.peer))
            counterColumn.append(Int64(e.counter))
            lamportColumn.append(Int64(e.lamport) - Int64(e.counter))
            lenColumn.append(len)
            if e.kind == .markStart {
                let info = seq!.marks[e.id]
                let key = info?.key ?? ""
                let k: Int
                if let i = keyIndex[key] { k = i } else { k = keys.count; keyIndex[key] = k; keys.append(key) }
                marks.uvarint(3)
                marks.uvarint(k)
                Postcard.write(info?.value ?? .null, into: &marks)
                marks.u8(info?.expand.loroInfo ?? 0x80)
                markCount += 1
            }
        }
        peers.write(into: &w)
        w.uvarint(3)
        Columnar.vector(Columnar.deltaRle(columns: [peerColumn, counterColumn, lamportColumn, lenColumn]), into: &w)
        w.uvarint(keys.count)
        for k in keys { w.string(k) }
        w.uvarint(markCount)
        w.bytes.append(contentsOf: marks.bytes)
    }

    /// DeltaRle columns.
    static func list(_ seq: FugueSequence?, into w: inout ByteWriter) {
        var values: [CRDTValue] = []
        var peers = PeerTable()
        var peerColumn: [Int64] = [], counterColumn: [Int64] = [], lamportColumn: [Int64] = []
        seq?.forEachElem { e in
            guard e.visible, e.kind == .value else { return }
            let p = peers(e.peer)
            for k in 0..<e.length {
                values.append(seq!.values[Int(e.content + k)])
                peerColumn.append(p)
                counterColumn.append(Int64(e.counter + k))
                lamportColumn.append(Int64(e.lamport) - Int64(e.counter))
            }
        }
        w.uvarint(values.count)
        for v in values { Postcard.write(v, into: &w) }
        peers.write(into: &w)
        w.uvarint(1)
        Columnar.vector(Columnar.deltaRle(columns: [peerColumn, counterColumn, lamportColumn]), into: &w)
    }

    static func map(_ entries: [String: MapEntry], into w: inout ByteWriter) {
        let sorted = entries.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let visible = sorted.filter { entries[$0]!.value != nil }
        let deleted = sorted.filter { entries[$0]!.value == nil }
        w.uvarint(visible.count)
        for k in visible { w.string(k); Postcard.write(entries[k]!.value!, into: &w) }
        w.uvarint(deleted.count)
        for k in deleted { w.string(k) }
        var peers = PeerTable()
        var rows = ByteWriter()
        for k in sorted {
            rows.uvarint(UInt64(peers(entries[k]!.peer)))
            rows.uvarint(UInt64(entries[k]!.lamport))
        }
        peers.write(into: &w)
        w.bytes.append(contentsOf: rows.bytes)
    }

    static func tree(_ tree: TreeState, into w: inout ByteWriter) {
        // Alive nodes breadth-first, then deleted ones breadth-first from the deleted root.
        var order: [TreeID] = []
        for start in [TreeParent.root, .deleted] {
            var level = tree.children[start] ?? []
            while !level.isEmpty {
                order += level
                level = level.flatMap { tree.children[.node($0)] ?? [] }
            }
        }
        var index: [TreeID: Int] = [:]
        for (i, n) in order.enumerated() { index[n] = i }
        let positions = Set(order.map { tree.nodes[$0]!.position }).sorted { $0.lexicographicallyPrecedes($1) }
        var positionIndex: [[UInt8]: Int] = [:]
        for (i, p) in positions.enumerated() { positionIndex[p] = i }
        var peers = PeerTable()
        let nodePeers = order.map { peers($0.peer) }
        var parentColumn: [Int64] = [], setPeers: [Int64] = [], setCounters: [Int64] = [], setLamports: [Int64] = []
        var positionColumn = ByteWriter()
        positionColumn.uvarint(order.count)
        for n in order {
            let p = tree.nodes[n]!
            switch p.parent {
            case .root: parentColumn.append(0)
            case .deleted: parentColumn.append(1)
            case .node(let parent): parentColumn.append(Int64(index[parent]! + 2))
            }
            setPeers.append(peers(p.peer))
            setCounters.append(Int64(p.counter))
            setLamports.append(Int64(p.lamport) - Int64(p.counter))
            positionColumn.uvarint(positionIndex[p.position]!)
        }
        peers.write(into: &w)
        w.uvarint(4)
        Columnar.vector(Columnar.deltaRle(columns: [nodePeers, order.map { Int64($0.counter) }]), into: &w)
        Columnar.vector(Columnar.deltaRle(columns: [parentColumn, setPeers, setCounters, setLamports]) + [positionColumn.bytes], into: &w)
        var arena = ByteWriter()
        ChangeBlock.writePositionArena(positions, into: &arena)
        w.lengthPrefixed(arena.bytes)
        w.lengthPrefixed([])
    }
}

/// Builds containers from a state SSTable's entries (shallow roots and lazily loaded snapshots).
/// The state has no Fugue origins: each container's elements are chained in document order
/// (left origin the element before, no right origin), as Loro's tracker treats the elements
/// that existed before the operations it replays.
enum LoroStateDecoder {
    /// Decodes every entry into `st` (its containers must be empty), skipping the `fr` key.
    /// - Complexity: O(size of the state).
    static func load(_ entries: [(key: [UInt8], value: ByteReader)], into st: DocStorage) throws(CRDTError) {
        for (key, value) in entries where key != Array("fr".utf8) {
            let c: ContainerID
            do throws(CRDTError) { c = try ContainerID(loroKey: key) } catch {
                throw CRDTError.malformedBytes(offset: value.offset, reason: "state key: \(error)")
            }
            try container(c, value, into: st)
            // A child container nothing was written to has no state here (Loro lists every tree
            // node's property map, and every child created, written or not).
            if case .normal = c, st.hasState(c), st.isEmptyState(c) { st.removeState(c) }
        }
        // Child containers hang under the value that holds them.
        for (c, map) in st.maps {
            for (k, e) in map { st.registerChild(e.value, parent: c, slot: .key(k)) }
        }
        for (c, seq) in st.sequences where c.type == .list || c.type == .movableList {
            seq.forEachElem { e in
                guard e.kind == .value else { return }
                for k in 0..<Int(e.length) { st.registerChild(seq.values[Int(e.content) + k], parent: c, slot: .element(e.id.advanced(by: Int32(k)))) }
            }
        }
        for (c, tree) in st.trees {
            for n in tree.nodes.keys { st.parents[.normal(id: n, type: .map)] = (c, .node(n)) }
        }
    }

    /// Decodes one wrapper.
    static func container(_ c: ContainerID, _ value: ByteReader, into st: DocStorage) throws(CRDTError) {
        var r = value
        let at = r.offset
        let kind = try r.u8()
        guard kind == c.type.loroKind else {
            throw CRDTError.malformedBytes(offset: at, reason: "the wrapper of \(c) holds a \(ContainerType.loroName(ofKind: kind)) state")
        }
        let depthAt = r.offset
        guard try r.uvarint() >= 1 else { throw CRDTError.malformedBytes(offset: depthAt, reason: "depth 0") }
        let optionAt = r.offset
        switch try r.u8() {
        case 0: break
        case 1: _ = try Postcard.containerID(&r)
        case let v: throw CRDTError.malformedBytes(offset: optionAt, reason: "bad Option tag \(v)")
        }
        switch c.type {
        case .text: st.sequences[c] = try text(&r)
        case .list: st.sequences[c] = try list(&r)
        case .map: st.maps[c] = try map(&r)
        case .tree: st.trees[c] = try tree(&r)
        case .movableList: (st.sequences[c], st.movables[c]) = try movableList(&r)
        case .counter:
            guard r.remaining == 8 || r.isAtEnd else { throw CRDTError.malformedBytes(offset: r.offset, reason: "a counter state of \(r.remaining) bytes") }
            st.counters[c] = r.isAtEnd ? 0 : Double(bitPattern: try r.u64le())
        }
        try r.expectEnd("the state of \(c)")
    }

    static func movableList(_ r: inout ByteReader) throws(CRDTError) -> (FugueSequence, MovableListState) {
        let n = try r.count("movable list length")
        var values: [CRDTValue] = []
        for _ in 0..<n { values.append(try Postcard.value(&r)) }
        let peers = try PeerTable.read(&r)
        try Columnar.fields(&r, 4, "movable list state")
        let at = r.offset
        var items = try Columnar.vector(&r, columns: 3, "movable list items")
        let invisible = try Columnar.deltaRle(&items[0], range: 0...Int64(UInt32.max), "invisible item counts")
        let posIsElem = try Columnar.boolRle(&items[1], "pos_id_eq_elem_id")
        let elemIsSet = try Columnar.boolRle(&items[2], "elem_id_eq_last_set_id")
        var ids = try Columnar.vector(&r, columns: 3, "movable list item IDs")
        let itemPeers = try Columnar.deltaRle(&ids[0], range: 0...Int64(UInt32.max), "item peers")
        let itemCounters = try Columnar.deltaRle(&ids[1], range: 0...Int64(Int32.max), "item counters")
        let itemLamports = try Columnar.deltaRle(&ids[2], range: Int64(Int32.min)...Int64(Int32.max), "item Lamports")
        var elemCols = try Columnar.vector(&r, columns: 2, "element IDs")
        let elemPeers = try Columnar.deltaRle(&elemCols[0], range: 0...Int64(UInt32.max), "element peers")
        let elemLamports = try Columnar.deltaRle(&elemCols[1], range: 0...Int64(Lamport.max / 2), "element Lamports")
        var setCols = try Columnar.vector(&r, columns: 2, "last set IDs")
        let setPeers = try Columnar.deltaRle(&setCols[0], range: 0...Int64(UInt32.max), "last-set peers")
        let setLamports = try Columnar.deltaRle(&setCols[1], range: 0...Int64(Lamport.max / 2), "last-set Lamports")
        guard invisible.count == n + 1, posIsElem.count == n + 1, elemIsSet.count == n + 1, itemCounters.count == itemPeers.count,
              itemLamports.count == itemPeers.count, elemLamports.count == elemPeers.count, setLamports.count == setPeers.count else {
            throw CRDTError.malformedBytes(offset: at, reason: "movable list columns do not match its \(n) values")
        }
        let seq = FugueSequence()
        var state = MovableListState()
        var elems: [Elem] = []
        var nextItem = 0, nextElem = 0, nextSet = 0
        func item(visible: Bool) throws(CRDTError) -> (OpID, Lamport) {
            guard nextItem < itemPeers.count else { throw CRDTError.malformedBytes(offset: at, reason: "movable list items run out") }
            let (peer, counter, lamport) = try id(peers, itemPeers[nextItem], itemCounters[nextItem], itemLamports[nextItem], at: at)
            nextItem += 1
            elems.append(Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: .none, originRight: .none,
                              content: Int32(seq.values.count), utf16: 1, utf8: 1, kind: .value, deleted: !visible))
            return (OpID(peer: peer, counter: counter), lamport)
        }
        func idLp(_ peerColumn: [Int64], _ lamportColumn: [Int64], _ next: inout Int) throws(CRDTError) -> IdLp {
            guard next < peerColumn.count, let p = peers[safe: Int(peerColumn[next])] else { throw CRDTError.malformedBytes(offset: at, reason: "movable list element IDs run out") }
            defer { next += 1 }
            return IdLp(peer: p, lamport: Lamport(lamportColumn[next]))
        }
        for i in 0...n {
            if i > 0 {
                let (itemID, lamport) = try item(visible: true)
                let own = IdLp(peer: itemID.peer, lamport: lamport)
                let elem = posIsElem[i] ? own : try idLp(elemPeers, elemLamports, &nextElem)
                let set = elemIsSet[i] ? elem : try idLp(setPeers, setLamports, &nextSet)
                if elem != own { state.moveElems[itemID] = elem }
                guard state.elements[elem] == nil else { throw CRDTError.malformedBytes(offset: at, reason: "element \(elem) appears twice") }
                state.elements[elem] = MovableElement(value: values[i - 1], valueID: set, pos: itemID, posID: own)
                seq.values.append(values[i - 1])
            }
            for _ in 0..<invisible[i] {
                _ = try item(visible: false)
                seq.values.append(.null)
            }
        }
        guard nextItem == itemPeers.count, nextElem == elemPeers.count, nextSet == setPeers.count else {
            throw CRDTError.malformedBytes(offset: at, reason: "movable list ID columns have rows left over")
        }
        chain(&elems)
        guard seq.build(elems) else { throw CRDTError.malformedBytes(offset: at, reason: "overlapping item IDs in a movable list") }
        return (seq, state)
    }

    private static func id(_ peers: [PeerID], _ peer: Int64, _ counter: Int64, _ lamportDelta: Int64, at: Int) throws(CRDTError) -> (PeerID, OpCounter, Lamport) {
        let lamport = counter + lamportDelta
        // Loro reserves peer u64::MAX (for its deleted tree root); no operation has it.
        guard let p = peers[safe: Int(peer)], p != PeerID.max, counter >= 0, counter <= Int64(OpCounter.max), lamport >= 0, lamport <= Int64(Lamport.max / 2) else {
            throw CRDTError.malformedBytes(offset: at, reason: "ID (peer \(peer), counter \(counter), Lamport \(lamport)) out of range")
        }
        return (p, OpCounter(counter), Lamport(lamport))
    }

    /// Chains runs: each run's left origin is the element before it.
    private static func chain(_ elems: inout [Elem]) {
        var left = OptID.none
        for i in elems.indices {
            elems[i].originLeft = left
            elems[i].originRight = .none
            left = OptID(elems[i].lastID)
        }
    }

    /// The first three DeltaRle columns of a text's spans or a list's items: peer indexes,
    /// counters and Lamport timestamps (checked by ``id(_:_:_:_:at:)`` row by row).
    private static func idColumns(_ cols: inout [ByteReader], _ what: String) throws(CRDTError) -> ([Int64], [Int64], [Int64]) {
        (try Columnar.deltaRle(&cols[0], range: 0...Int64(UInt32.max), "\(what) peers"),
         try Columnar.deltaRle(&cols[1], range: Int64(Int32.min)...Int64(Int32.max), "\(what) counters"),
         try Columnar.deltaRle(&cols[2], range: Int64(Int32.min)...Int64(Int32.max), "\(what) Lamports"))
    }

    static func text(_ r: inout ByteReader) throws(CRDTError) -> FugueSequence {
        let seq = FugueSequence()
        seq.scalars = try r.scalars()
        let peers = try PeerTable.read(&r)
        try Columnar.fields(&r, 3, "text state")
        let at = r.offset
        var cols = try Columnar.vector(&r, columns: 4, "text spans")
        let (peerColumn, counterColumn, lamportColumn) = try idColumns(&cols, "span")
        let lenColumn = try Columnar.deltaRle(&cols[3], range: -1...Int64(Int32.max), "span lengths")
        guard counterColumn.count == peerColumn.count, lamportColumn.count == peerColumn.count, lenColumn.count == peerColumn.count else {
            throw CRDTError.malformedBytes(offset: at, reason: "text span columns of different lengths")
        }
        let keyCount = try r.count("style key count")
        var keys: [String] = []
        for _ in 0..<keyCount { keys.append(try r.string()) }
        let markCount = try r.count("mark count", minBytes: 4)
        var marks: [(String, CRDTValue, UInt8)] = []
        for _ in 0..<markCount {
            let rowAt = r.offset
            guard try r.uvarint() == 3 else { throw CRDTError.malformedBytes(offset: rowAt, reason: "a mark row must have 3 fields") }
            let k = try r.uvarint()
            guard let key = keys[safe: Int(clamping: k)] else { throw CRDTError.malformedBytes(offset: rowAt, reason: "style key \(k) out of range") }
            let value = try Postcard.value(&r)
            marks.append((key, value, try r.u8()))
        }
        var elems: [Elem] = []
        elems.reserveCapacity(peerColumn.count)
        var content: Int32 = 0
        var nextMark = 0
        var open = Set<OpID>()
        for i in peerColumn.indices {
            let (peer, counter, lamport) = try id(peers, peerColumn[i], counterColumn[i], lamportColumn[i], at: at)
            let len = lenColumn[i]
            if len > 0 {
                guard Int64(content) + len <= Int64(seq.scalars.count), Int64(counter) + len <= Int64(OpCounter.max) else {
                    throw CRDTError.malformedBytes(offset: at, reason: "text spans cover more than the \(seq.scalars.count) scalars of the text")
                }
                let n = Int32(len)
                elems.append(Elem(peer: peer, counter: counter, lamport: lamport, length: n, originLeft: .none, originRight: .none,
                                  content: content, utf16: seq.utf16Count(content, n), utf8: seq.utf8Count(content, n), kind: .text, deleted: false))
                content += n
            } else if len == 0 {
                guard nextMark < marks.count else { throw CRDTError.malformedBytes(offset: at, reason: "a style start without its mark row") }
                let (key, value, info) = marks[nextMark]
                nextMark += 1
                let markID = OpID(peer: peer, counter: counter)
                seq.marks[markID] = MarkInfo(key: key, value: value, expand: ExpandType(loroInfo: info), lamport: lamport, peer: peer)
                open.insert(markID)
                elems.append(Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: .none, originRight: .none,
                                  content: 0, utf16: 0, utf8: 0, kind: .markStart, deleted: false))
            } else {
                guard counter > 0, open.remove(OpID(peer: peer, counter: counter - 1)) != nil else {
                    throw CRDTError.malformedBytes(offset: at, reason: "a style end \(OpID(peer: peer, counter: counter)) without its start")
                }
                elems.append(Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: .none, originRight: .none,
                                  content: 0, utf16: 0, utf8: 0, kind: .markEnd, deleted: false))
            }
        }
        guard Int(content) == seq.scalars.count, nextMark == marks.count, open.isEmpty else {
            throw CRDTError.malformedBytes(offset: at, reason: "text spans do not match the text and its marks")
        }
        chain(&elems)
        guard seq.build(elems) else { throw CRDTError.malformedBytes(offset: at, reason: "overlapping element IDs in a text") }
        return seq
    }

    static func list(_ r: inout ByteReader) throws(CRDTError) -> FugueSequence {
        let seq = FugueSequence()
        let n = try r.count("list length")
        for _ in 0..<n { seq.values.append(try Postcard.value(&r)) }
        let peers = try PeerTable.read(&r)
        try Columnar.fields(&r, 1, "list state")
        let at = r.offset
        var cols = try Columnar.vector(&r, columns: 3, "list IDs")
        let (peerColumn, counterColumn, lamportColumn) = try idColumns(&cols, "list")
        guard peerColumn.count == n, counterColumn.count == n, lamportColumn.count == n else {
            throw CRDTError.malformedBytes(offset: at, reason: "\(n) list values but \(peerColumn.count) IDs")
        }
        var elems: [Elem] = []
        for i in 0..<n {
            let (peer, counter, lamport) = try id(peers, peerColumn[i], counterColumn[i], lamportColumn[i], at: at)
            if var last = elems.last, last.peer == peer, last.counter + last.length == counter, last.lamport + Lamport(last.length) == lamport {
                last.length += 1; last.utf16 += 1; last.utf8 += 1
                elems[elems.count - 1] = last
                continue
            }
            elems.append(Elem(peer: peer, counter: counter, lamport: lamport, length: 1, originLeft: .none, originRight: .none,
                              content: Int32(i), utf16: 1, utf8: 1, kind: .value, deleted: false))
        }
        chain(&elems)
        guard seq.build(elems) else { throw CRDTError.malformedBytes(offset: at, reason: "overlapping element IDs in a list") }
        return seq
    }

    static func map(_ r: inout ByteReader) throws(CRDTError) -> [String: MapEntry] {
        let n = try r.count("map size", minBytes: 2)
        var values: [String: CRDTValue?] = [:]
        for _ in 0..<n { let k = try r.string(); values[k] = .some(try Postcard.value(&r)) }
        let deletedAt = r.offset
        let d = try r.count("deleted key count")
        for _ in 0..<d {
            let k = try r.string()
            guard values[k] == nil else { throw CRDTError.malformedBytes(offset: deletedAt, reason: "key \"\(k)\" both set and deleted") }
            values[k] = .some(nil)
        }
        let peers = try PeerTable.read(&r)
        var out: [String: MapEntry] = [:]
        for k in values.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let at = r.offset
            let p = try r.uvarint()
            let lamport = try r.uvarint()
            guard let peer = peers[safe: Int(clamping: p)], lamport <= UInt64(Lamport.max / 2) else {
                throw CRDTError.malformedBytes(offset: at, reason: "map key \"\(k)\": peer \(p) or Lamport \(lamport) out of range")
            }
            // The state keeps (peer, Lamport) only; the counter is not needed to order writes.
            out[k] = MapEntry(value: values[k]!, lamport: Lamport(lamport), peer: peer, counter: 0)
        }
        return out
    }

    static func tree(_ r: inout ByteReader) throws(CRDTError) -> TreeState {
        let peers = try PeerTable.read(&r)
        try Columnar.fields(&r, 4, "tree state")
        let at = r.offset
        var ids = try Columnar.vector(&r, columns: 2, "tree node IDs")
        let nodePeers = try Columnar.deltaRle(&ids[0], range: 0...Int64(UInt32.max), "node peers")
        let nodeCounters = try Columnar.deltaRle(&ids[1], range: 0...Int64(Int32.max), "node counters")
        var cols = try Columnar.vector(&r, columns: 5, "tree nodes")
        let parents = try Columnar.deltaRle(&cols[0], range: 0...Int64(UInt32.max), "node parents")
        let setPeers = try Columnar.deltaRle(&cols[1], range: 0...Int64(UInt32.max), "last-set peers")
        let setCounters = try Columnar.deltaRle(&cols[2], range: Int64(Int32.min)...Int64(Int32.max), "last-set counters")
        let setLamports = try Columnar.deltaRle(&cols[3], range: Int64(Int32.min)...Int64(Int32.max), "last-set Lamports")
        let positionCount = try cols[4].count("fractional index count")
        var positionColumn: [Int] = []
        for _ in 0..<positionCount { positionColumn.append(try cols[4].int(max: Int(Int32.max), "fractional index")) }
        try cols[4].expectEnd("the fractional indexes")
        var arena = try r.lengthPrefixed("position arena")
        let positions = try ChangeBlock.readPositionArena(&arena)
        try arena.expectEnd("the position arena")
        _ = try r.lengthPrefixed("reserved tree field")
        let n = nodePeers.count
        guard nodeCounters.count == n, parents.count == n, setPeers.count == n, setCounters.count == n, setLamports.count == n, positionColumn.count == n else {
            throw CRDTError.malformedBytes(offset: at, reason: "tree columns of different lengths")
        }
        var nodeIDs: [TreeID] = []
        for i in 0..<n {
            guard let p = peers[safe: Int(nodePeers[i])] else { throw CRDTError.malformedBytes(offset: at, reason: "node peer \(nodePeers[i]) out of range") }
            nodeIDs.append(TreeID(peer: p, counter: OpCounter(nodeCounters[i])))
        }
        var tree = TreeState()
        for i in 0..<n {
            let parent: TreeParent
            switch parents[i] {
            case 0: parent = .root
            case 1: parent = .deleted
            case let k:
                guard let id = nodeIDs[safe: Int(k - 2)], id != nodeIDs[i] else { throw CRDTError.malformedBytes(offset: at, reason: "node parent \(k) out of range") }
                parent = .node(id)
            }
            let (peer, counter, lamport) = try id(peers, setPeers[i], setCounters[i], setLamports[i], at: at)
            guard let position = positions[safe: positionColumn[i]] else { throw CRDTError.malformedBytes(offset: at, reason: "fractional index \(positionColumn[i]) out of range") }
            guard tree.nodes[nodeIDs[i]] == nil else { throw CRDTError.malformedBytes(offset: at, reason: "tree node \(nodeIDs[i]) appears twice") }
            tree.attach(nodeIDs[i], NodePlacement(parent: parent, position: position, lamport: lamport, peer: peer, counter: counter))
        }
        // Every parent must be a node of the tree, and no node its own ancestor.
        for id in nodeIDs {
            if case .node(let p) = tree.nodes[id]!.parent, tree.nodes[p] == nil {
                throw CRDTError.malformedBytes(offset: at, reason: "tree node \(id) has an unknown parent")
            }
            if case .node(let p) = tree.nodes[id]!.parent, tree.isAncestor(id, of: p) {
                throw CRDTError.malformedBytes(offset: at, reason: "tree node \(id) is its own ancestor")
            }
        }
        return tree
    }
}
