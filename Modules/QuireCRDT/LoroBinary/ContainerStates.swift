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
    var peers: [PeerID] = []
    var index: [PeerID: Int] = [:]

    mutating func callAsFunction(_ p: PeerID) -> Int64 {
        if let i = index[p] { return Int64(i) }
        index[p] = peers.count
        peers.append(p)
        return Int64(peers.count - 1)
    }

    func write(into w: inout ByteWriter) {
        w.uvarint(peers.count)
        for p in peers { w.u64(p) }
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
        }
        return w.bytes
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
        Columnar.vector(columns([peerColumn, counterColumn, lamportColumn, lenColumn]), into: &w)
        w.uvarint(keys.count)
        for k in keys { w.string(k) }
        w.uvarint(markCount)
        w.bytes.append(contentsOf: marks.bytes)
    }

    /// DeltaRle columns.
    static func columns(_ values: [[Int64]]) -> [[UInt8]] {
        values.map { v in var c = ByteWriter(); Columnar.deltaRle(v, into: &c); return c.bytes }
    }

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
        Columnar.vector(columns([peerColumn, counterColumn, lamportColumn]), into: &w)
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
        Columnar.vector(columns([nodePeers, order.map { Int64($0.counter) }]), into: &w)
        Columnar.vector(columns([parentColumn, setPeers, setCounters, setLamports]) + [positionColumn.bytes], into: &w)
        var arena = ByteWriter()
        ChangeBlock.writePositionArena(positions, into: &arena)
        w.lengthPrefixed(arena.bytes)
        w.lengthPrefixed([])
    }
}
