// A change block (encoding.md §7, §9, §10): the changes of one peer with contiguous counters, as
// FastUpdates carry them and the ChangeStore of a snapshot stores them. Operations are
// position-based, like Loro's JSON updates, so a block decodes into `LoroJSONChange`s and the
// JSON import and export do the rest (positions ↔ Fugue origins).
//
//   block := pvar(counter_start) pvar(counter_len) pvar(lamport_start) pvar(lamport_len)
//            pvar(n_changes) bytes(header) bytes(change_meta) bytes(cids) bytes(keys)
//            bytes(positions) bytes(ops) bytes(delete_start_ids) bytes(values)

/// The operation value kinds of the `ops.value_type` column.
enum LoroValueKind: UInt8 {
    case null = 0, trueValue, falseValue, i64, f64, string, binary, containerIndex, deleteOnce, deleteSeq
    case deltaInt, loroValue, markStart, treeMove, listMove, listSet, rawTreeMove
}

/// The reserved parent of a deleted tree node.
let loroDeletedTreeRoot = OpID(peer: .max, counter: .max)

extension ContainerType {
    /// Loro's raw container kind byte (state keys, wrappers, `cids`, values): Map 0, List 1,
    /// Text 2, Tree 3, MovableList 4, Counter 5.
    var loroKind: UInt8 {
        switch self {
        case .map: return 0
        case .list: return 1
        case .text: return 2
        case .tree: return 3
        case .movableList: return 4
        case .counter: return 5
        }
    }

    /// The type of a raw kind byte; nil for kinds this build does not have.
    init?(loroKind: UInt8) {
        switch loroKind {
        case 0: self = .map
        case 1: self = .list
        case 2: self = .text
        case 3: self = .tree
        case 4: self = .movableList
        case 5: self = .counter
        default: return nil
        }
    }

    /// The name Loro prints (`Text`, `MovableList`, `Unknown(k)` …) for a raw kind byte.
    static func loroName(ofKind k: UInt8) -> String {
        ["Map", "List", "Text", "Tree", "MovableList", "Counter"][safe: Int(k)] ?? "Unknown(\(k))"
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { i >= 0 && i < count ? self[i] : nil }
}

/// Peers, keys, containers and positions registered while encoding one block.
private struct BlockTables {
    var peer = Interner<PeerID>()
    var key = Interner<String>()
    var cids = Interner<ContainerID>()
    var positionIndex: [[UInt8]: Int] = [:]

    /// The container's number; its name or peer is registered first, as Loro does.
    mutating func container(_ c: ContainerID) -> Int {
        if cids.index[c] == nil {
            switch c {
            case .root(let name, _): _ = key(name)
            case .normal(let id, _): _ = peer(id.peer)
            }
        }
        return cids(c)
    }
}

enum ChangeBlock {
    // MARK: encoding

    /// Encodes changes of one peer with contiguous counters (at least one).
    /// - Complexity: O(size of the changes + p log p) for p distinct tree positions.
    static func encode(_ changes: ArraySlice<LoroJSONChange>) -> [UInt8] {
        let first = changes.first!, last = changes.last!
        var t = BlockTables()
        _ = t.peer(first.id.peer)
        // Positions are sorted and deduplicated before any op refers to them.
        var positions = Set<[UInt8]>()
        for ch in changes {
            for op in ch.ops {
                switch op.content {
                case .treeCreate(_, _, let p), .treeMove(_, _, let p): positions.insert(p)
                default: break
                }
            }
        }
        let sortedPositions = positions.sorted { $0.lexicographicallyPrecedes($1) }
        for (i, p) in sortedPositions.enumerated() { t.positionIndex[p] = i }

        var containerColumn: [Int64] = [], propColumn: [Int64] = [], kindColumn: [Int64] = [], lenColumn: [Int64] = []
        var deletePeers: [Int64] = [], deleteCounters: [Int64] = [], deleteLengths: [Int64] = []
        var values = ByteWriter()
        for ch in changes {
            for op in ch.ops {
                var prop: Int64 = 0
                let kind: LoroValueKind
                switch op.content {
                case let .insertText(pos, text):
                    prop = Int64(pos); kind = .string
                    values.string(text)
                case let .insertValues(pos, items):
                    prop = Int64(pos); kind = .loroValue
                    writeValue(.list(items), &values, &t)
                case let .delete(pos, len, start):
                    prop = Int64(pos); kind = .deleteSeq
                    deletePeers.append(Int64(t.peer(start.peer)))
                    deleteCounters.append(Int64(start.counter))
                    deleteLengths.append(Int64(len))
                case let .mark(start, end, key, value, info):
                    prop = Int64(start); kind = .markStart
                    values.u8(info)
                    values.uvarint(UInt64(max(0, end - start)))
                    values.uvarint(t.key(key))
                    writeValue(value, &values, &t)
                case .markEnd:
                    kind = .null
                case let .mapInsert(key, value):
                    prop = Int64(t.key(key)); kind = .loroValue
                    writeValue(value, &values, &t)
                case let .mapDelete(key):
                    prop = Int64(t.key(key)); kind = .deleteOnce
                case let .treeCreate(target, parent, index), let .treeMove(target, parent, index):
                    kind = .rawTreeMove
                    writeTreeMove(target: target, parent: parent, position: t.positionIndex[index]!, &values, &t)
                case let .treeDelete(target):
                    kind = .rawTreeMove
                    writeTreeMove(target: target, parent: loroDeletedTreeRoot, position: 0, &values, &t)
                case let .move(from, to, elem):
                    prop = Int64(to); kind = .listMove
                    values.uvarint(UInt64(from)); values.uvarint(t.peer(elem.peer)); values.uvarint(UInt64(elem.lamport))
                case let .setValue(elem, value):
                    kind = .listSet
                    values.uvarint(t.peer(elem.peer)); values.uvarint(UInt64(elem.lamport))
                    writeValue(value, &values, &t)
                case let .counter(delta):
                    // A whole number below 2^27 in magnitude is an I64, anything else an F64, as
                    // Loro writes them, except that Loro's test (`fract() < EPSILON`) also turns
                    // a delta such as 1e-300 into I64 0; an exact test keeps it (Loro reads both).
                    let a = delta.magnitude
                    if a.rounded(.towardZero) == a, a < Double(2 << 26) {
                        kind = .i64; values.sleb(Int64(delta))
                    } else {
                        kind = .f64; values.u64be(delta.bitPattern)
                    }
                }
                containerColumn.append(Int64(t.container(op.container)))
                propColumn.append(prop)
                kindColumn.append(Int64(kind.rawValue))
                lenColumn.append(Int64(op.length))
            }
        }

        var header = ByteWriter()
        // The block peer must be index 0: register dependency peers only now.
        var depOnSelf: [Bool] = [], depCounts: [Int64] = [], depPeers: [Int64] = [], depCounters: [Int64] = []
        for ch in changes {
            let selfDep = OpID(peer: ch.id.peer, counter: ch.id.counter - 1)
            let others = ch.deps.filter { $0 != selfDep }.sorted()
            depOnSelf.append(ch.deps.contains(selfDep))
            depCounts.append(Int64(others.count))
            for d in others { depPeers.append(Int64(t.peer(d.peer))); depCounters.append(Int64(d.counter)) }
        }
        header.uvarint(t.peer.values.count)
        for p in t.peer.values { header.u64(p) }
        for ch in changes.dropLast() { header.uvarint(ch.length) }
        Columnar.boolRle(depOnSelf, into: &header)
        Columnar.anyRle(depCounts, .unsigned, into: &header)
        Columnar.anyRle(depPeers, .unsigned, into: &header)
        Columnar.deltaOfDelta(depCounters, into: &header)
        Columnar.deltaOfDelta(changes.dropLast().map { Int64($0.lamport) }, into: &header)

        var meta = ByteWriter()
        Columnar.deltaOfDelta(changes.map(\.timestamp), into: &meta)
        Columnar.anyRle(changes.map { Int64($0.message?.utf8.count ?? 0) }, .unsigned, into: &meta)
        for ch in changes { if let m = ch.message { meta.bytes.append(contentsOf: m.utf8) } }

        var cids = ByteWriter()
        cids.uvarint(t.cids.values.count)
        for c in t.cids.values {
            cids.uvarint(4)
            switch c {
            case let .root(name, type):
                cids.u8(1); cids.u8(type.loroKind); cids.uvarint(0); cids.zigzag(Int64(t.key.index[name]!))
            case let .normal(id, type):
                cids.u8(0); cids.u8(type.loroKind); cids.uvarint(t.peer.index[id.peer]!); cids.zigzag(Int64(id.counter))
            }
        }

        var keys = ByteWriter()
        for k in t.key.values { keys.string(k) }

        var positionBytes = ByteWriter()
        if !sortedPositions.isEmpty { writePositionArena(sortedPositions, into: &positionBytes) }

        var ops = ByteWriter()
        ops.uvarint(1)
        var c0 = ByteWriter(), c1 = ByteWriter(), c2 = ByteWriter(), c3 = ByteWriter()
        Columnar.deltaRle(containerColumn, into: &c0)
        Columnar.deltaRle(propColumn, into: &c1)
        Columnar.anyRle(kindColumn, .byte, into: &c2)
        Columnar.anyRle(lenColumn, .unsigned, into: &c3)
        Columnar.vector([c0.bytes, c1.bytes, c2.bytes, c3.bytes], into: &ops)

        var deletes = ByteWriter()
        if !deletePeers.isEmpty {
            deletes.uvarint(1)
            Columnar.vector(Columnar.deltaRle(columns: [deletePeers, deleteCounters, deleteLengths]), into: &deletes)
        }

        var w = ByteWriter()
        let counterEnd = last.id.counter + OpCounter(last.length)
        w.uvarint(first.id.counter)
        w.uvarint(counterEnd - first.id.counter)
        w.uvarint(UInt64(first.lamport))
        w.uvarint(UInt64(last.lamport) + UInt64(last.length) - UInt64(first.lamport))
        w.uvarint(changes.count)
        for section in [header, meta, cids, keys, positionBytes, ops, deletes, values] { w.lengthPrefixed(section.bytes) }
        return w.bytes
    }

    private static func writeTreeMove(target: TreeID, parent: TreeID?, position: Int, _ w: inout ByteWriter, _ t: inout BlockTables) {
        w.uvarint(t.peer(target.peer))
        w.uvarint(target.counter)
        w.uvarint(position)
        if let parent {
            w.u8(0)
            w.uvarint(t.peer(parent.peer))
            w.uvarint(UInt64(UInt32(bitPattern: parent.counter)))
        } else {
            w.u8(1)
        }
    }

    /// The custom value encoding of an operation's LoroValue (encoding.md §10.1): map keys are
    /// indexes into the block's keys; a container is only its kind (its ID follows from the op).
    private static func writeValue(_ v: CRDTValue, _ w: inout ByteWriter, _ t: inout BlockTables) {
        switch v {
        case .null: w.u8(0)
        case .bool(let b): w.u8(b ? 1 : 2)
        case .int(let i): w.u8(3); w.sleb(i)
        case .double(let d): w.u8(4); w.u64be(d.bitPattern)
        case .string(let s): w.u8(5); w.string(s)
        case .binary(let b): w.u8(6); w.lengthPrefixed(b)
        case .list(let l):
            w.u8(7); w.uvarint(l.count)
            for x in l { writeValue(x, &w, &t) }
        case .map(let m):
            w.u8(8); w.uvarint(m.count)
            for k in m.keys.sorted() { w.uvarint(t.key(k)); writeValue(m[k]!, &w, &t) }
        case .container(let c): w.u8(9); w.u8(c.type.loroKind)
        }
    }

    /// Fractional indexes as a PositionArena: each one as the length of the prefix it shares
    /// with the previous one and the rest.
    static func writePositionArena(_ sorted: [[UInt8]], into w: inout ByteWriter) {
        var prefixes: [Int64] = []
        var rests = ByteWriter()
        rests.uvarint(sorted.count)
        var previous: [UInt8] = []
        for p in sorted {
            var k = 0
            while k < min(p.count, previous.count, 255), p[k] == previous[k] { k += 1 }
            prefixes.append(Int64(k))
            rests.lengthPrefixed(Array(p[k...]))
            previous = p
        }
        var c0 = ByteWriter()
        Columnar.anyRle(prefixes, .unsigned, into: &c0)
        w.uvarint(1)
        Columnar.vector([c0.bytes, rests.bytes], into: &w)
    }

    static func readPositionArena(_ r: inout ByteReader) throws(CRDTError) -> [[UInt8]] {
        try Columnar.fields(&r, 1, "position arena")
        var cols = try Columnar.vector(&r, columns: 2, "position arena")
        let prefixes = try Columnar.anyRle(&cols[0], .unsigned, "position prefix lengths")
        let at = cols[1].offset
        let n = try cols[1].count("position count")
        guard n == prefixes.count else { throw CRDTError.malformedBytes(offset: at, reason: "\(n) positions but \(prefixes.count) prefix lengths") }
        var out: [[UInt8]] = []
        out.reserveCapacity(n)
        var previous: [UInt8] = []
        for i in 0..<n {
            let rest = try cols[1].data()
            let k = Int(prefixes[i])
            guard k <= previous.count, i > 0 || k == 0 else {
                throw CRDTError.malformedBytes(offset: at, reason: "position \(i) shares \(k) bytes with a previous one of \(previous.count)")
            }
            let p = Array(previous[..<k]) + rest
            out.append(p)
            previous = p
        }
        try cols[1].expectEnd("the positions")
        return out
    }

    // MARK: decoding

    /// Decodes one block into its changes. Everything is checked: exact consumption of every
    /// section, indexes in range, operation lengths partitioning the changes exactly.
    /// - Complexity: O(size of the block).
    static func decode(_ reader: ByteReader) throws(CRDTError) -> [LoroJSONChange] {
        var r = reader
        let blockAt = r.offset
        let counterStart = try r.postcardU32("counter_start")
        let counterLen = try r.postcardU32("counter_len")
        let lamportStart = try r.postcardU32("lamport_start")
        let lamportLen = try r.postcardU32("lamport_len")
        let nAt = r.offset
        let n = Int(try r.postcardU32("n_changes"))
        guard UInt64(counterStart) + UInt64(counterLen) <= UInt64(OpCounter.max) else {
            throw CRDTError.malformedBytes(offset: blockAt, reason: "counters \(counterStart) + \(counterLen) overflow")
        }
        guard UInt64(lamportStart) + UInt64(lamportLen) <= UInt64(Lamport.max / 2) else {
            throw CRDTError.malformedBytes(offset: blockAt, reason: "Lamports \(lamportStart) + \(lamportLen) out of range")
        }
        guard n >= 1, n <= Int(counterLen) else { throw CRDTError.malformedBytes(offset: nAt, reason: "\(n) changes in \(counterLen) atoms") }
        var header = try r.lengthPrefixed("header")
        var meta = try r.lengthPrefixed("change_meta")
        var cidsR = try r.lengthPrefixed("cids")
        var keysR = try r.lengthPrefixed("keys")
        var positionsR = try r.lengthPrefixed("positions")
        var opsR = try r.lengthPrefixed("ops")
        var deletesR = try r.lengthPrefixed("delete_start_ids")
        var values = try r.lengthPrefixed("values")
        try r.expectEnd("the change block")

        // Header.
        let peerAt = header.offset
        let peerCount = try header.uvarint()
        guard peerCount >= 1, peerCount <= UInt64(header.remaining / 8) else {
            throw CRDTError.malformedBytes(offset: peerAt, reason: "peer table of \(peerCount) peers")
        }
        var peers: [PeerID] = []
        for _ in 0..<Int(peerCount) { peers.append(try header.u64le()) }
        let peer = peers[0]
        var lengths: [Int32] = []
        var sum: Int64 = 0
        for i in 0..<(n - 1) {
            let at = header.offset
            let len = try header.uvarint()
            guard len >= 1, Int64(len) + sum < Int64(counterLen) else {
                throw CRDTError.malformedBytes(offset: at, reason: "change \(i) has \(len) atoms of \(counterLen) in the block")
            }
            sum += Int64(len)
            lengths.append(Int32(len))
        }
        lengths.append(Int32(Int64(counterLen) - sum))
        let depOnSelf = try Columnar.boolRle(&header, count: n, "dep_on_self")
        let depCounts = try Columnar.anyRle(&header, .unsigned, count: n, "dependency counts")
        var totalDeps = 0
        for c in depCounts {
            guard c <= Int64(header.remaining) else { throw CRDTError.malformedBytes(offset: header.offset, reason: "\(c) dependencies in \(header.remaining) bytes") }
            totalDeps += Int(c)
        }
        let depPeers = try Columnar.anyRle(&header, .unsigned, count: totalDeps, "dependency peers")
        let depCounters = try Columnar.deltaOfDelta(&header, count: totalDeps, "dependency counters")
        let lamports = try Columnar.deltaOfDelta(&header, count: n - 1, "change Lamports")
        try header.expectEnd("the header")
        let lastLamport = Int64(lamportStart) + Int64(lamportLen) - Int64(lengths[n - 1])
        guard lamports.first ?? lastLamport == Int64(lamportStart), lastLamport >= Int64(lamportStart) else {
            throw CRDTError.malformedBytes(offset: blockAt, reason: "change Lamports do not match lamport_start \(lamportStart)")
        }

        // Change metadata.
        let timestamps = try Columnar.deltaOfDelta(&meta, count: n, "timestamps")
        let messageLengths = try Columnar.anyRle(&meta, .unsigned, count: n, "commit message lengths")
        var messages: [String?] = []
        for len in messageLengths {
            messages.append(len == 0 ? nil : try meta.utf8(Int(clamping: len), "a commit message"))
        }
        try meta.expectEnd("the commit messages")

        // Keys, containers, positions.
        var keys: [String] = []
        while !keysR.isAtEnd { keys.append(try keysR.string()) }
        let cidCount = try cidsR.count("container count", minBytes: 5)
        var cids: [ContainerID] = []
        for _ in 0..<cidCount {
            let at = cidsR.offset
            guard try cidsR.uvarint() == 4 else { throw CRDTError.malformedBytes(offset: at, reason: "a container row must have 4 fields") }
            let rootAt = cidsR.offset
            let isRoot = try cidsR.u8()
            guard isRoot <= 1 else { throw CRDTError.malformedBytes(offset: rootAt, reason: "bad bool \(isRoot)") }
            let kindAt = cidsR.offset
            let kind = try cidsR.u8()
            guard let type = ContainerType(loroKind: kind) else {
                throw CRDTError.malformedBytes(offset: kindAt, reason: "container kind \(ContainerType.loroName(ofKind: kind)) is not supported")
            }
            let peerIndex = try cidsR.uvarint()
            let keyOrCounter = try cidsR.postcardI32("container key or counter")
            if isRoot == 1 {
                guard let name = keys[safe: Int(keyOrCounter)], peerIndex == 0 else {
                    throw CRDTError.malformedBytes(offset: at, reason: "root container key \(keyOrCounter) out of range")
                }
                cids.append(.root(name: name, type: type))
            } else {
                guard peerIndex < UInt64(peers.count), keyOrCounter >= 0 else {
                    throw CRDTError.malformedBytes(offset: at, reason: "container peer \(peerIndex) or counter \(keyOrCounter) out of range")
                }
                cids.append(.normal(id: OpID(peer: peers[Int(peerIndex)], counter: keyOrCounter), type: type))
            }
        }
        try cidsR.expectEnd("the containers")
        let positions = positionsR.isAtEnd ? [] : try readPositionArena(&positionsR)
        try positionsR.expectEnd("the positions")

        // Operation columns.
        try Columnar.fields(&opsR, 1, "ops")
        var opCols = try Columnar.vector(&opsR, columns: 4, "ops")
        try opsR.expectEnd("the ops")
        let containerColumn = try Columnar.deltaRle(&opCols[0], range: 0...Int64(UInt32.max), "container indexes")
        let propColumn = try Columnar.deltaRle(&opCols[1], range: Int64(Int32.min)...Int64(Int32.max), "props")
        let kindColumn = try Columnar.anyRle(&opCols[2], .byte, "value kinds")
        let lenColumn = try Columnar.anyRle(&opCols[3], .unsigned, "op lengths")
        let opCount = containerColumn.count
        guard propColumn.count == opCount, kindColumn.count == opCount, lenColumn.count == opCount else {
            throw CRDTError.malformedBytes(offset: opsR.offset, reason: "op columns of different lengths (\(opCount), \(propColumn.count), \(kindColumn.count), \(lenColumn.count))")
        }
        var deletePeers: [Int64] = [], deleteCounters: [Int64] = [], deleteLengths: [Int64] = []
        if !deletesR.isAtEnd {
            try Columnar.fields(&deletesR, 1, "delete_start_ids")
            var cols = try Columnar.vector(&deletesR, columns: 3, "delete_start_ids")
            try deletesR.expectEnd("the delete starts")
            deletePeers = try Columnar.deltaRle(&cols[0], range: 0...Int64(peers.count - 1), "delete peers")
            deleteCounters = try Columnar.deltaRle(&cols[1], range: 0...Int64(Int32.max), "delete counters")
            deleteLengths = try Columnar.deltaRle(&cols[2], range: -Int64(Int32.max)...Int64(Int32.max), "delete lengths")
            guard deleteCounters.count == deletePeers.count, deleteLengths.count == deletePeers.count else {
                throw CRDTError.malformedBytes(offset: deletesR.offset, reason: "delete columns of different lengths")
            }
        }

        // Operations, cut into changes by the atom lengths.
        var changes: [LoroJSONChange] = []
        changes.reserveCapacity(n)
        // How many ops each change has, read off the length column first so that each change's
        // list is allocated once (a hint: the loop below checks the lengths).
        var opsPerChange = [Int](repeating: 0, count: n)
        var hintChange = 0, hintAtoms: Int64 = 0
        for row in 0..<opCount where hintChange < n {
            opsPerChange[hintChange] += 1
            hintAtoms += lenColumn[row]
            if hintAtoms >= Int64(lengths[hintChange]) { hintChange += 1; hintAtoms = 0 }
        }
        var ops: [LoroJSONOp] = []
        ops.reserveCapacity(opsPerChange[0])
        var changeIndex = 0
        var counter = OpCounter(counterStart)
        var changeStart = counter
        var changeEnd = counter + lengths[0]
        var deleteRow = 0
        for row in 0..<opCount {
            let at = values.offset
            guard changeIndex < n else { throw CRDTError.malformedBytes(offset: at, reason: "op \(row) is beyond the block's \(counterLen) atoms") }
            let containerIndex = Int(containerColumn[row])
            guard containerIndex >= 0, containerIndex < cids.count else {
                throw CRDTError.malformedBytes(offset: opCols[0].offset, reason: "op \(row): container index \(containerColumn[row]) out of range")
            }
            let container = cids[containerIndex]
            let prop = Int(propColumn[row])
            let rawKind = UInt8(kindColumn[row]) & 0x7F
            guard let kind = LoroValueKind(rawValue: rawKind) else {
                throw CRDTError.malformedBytes(offset: at, reason: "op \(row): value kind \(rawKind) is not known to this build")
            }
            let opID = OpID(peer: peer, counter: counter)
            func bad(_ why: String) -> CRDTError { .malformedBytes(offset: at, reason: "op \(row) (\(opID) in \(container)): \(why)") }
            func position(_ p: Int) throws(CRDTError) -> Int {
                guard p >= 0 else { throw bad("negative position \(p)") }
                return p
            }
            let content: LoroJSONOpContent
            // The atoms the op spans, known here without walking its content again.
            var length = 1
            switch (container.type, kind) {
            case (.text, .string):
                let (text, scalars) = try values.stringAndScalarCount()
                content = .insertText(position: try position(prop), text: text)
                length = scalars
            case (.text, .deleteSeq), (.list, .deleteSeq), (.movableList, .deleteSeq):
                guard deleteRow < deletePeers.count else { throw bad("no delete_start_ids row left") }
                let start = OpID(peer: peers[Int(deletePeers[deleteRow])], counter: OpCounter(deleteCounters[deleteRow]))
                let len = Int(deleteLengths[deleteRow])
                deleteRow += 1
                guard len != 0 else { throw bad("a delete of length 0") }
                content = .delete(position: try position(prop), length: len, startID: start)
                length = len.magnitude > Int.max ? Int.max : Int(len.magnitude)
            case (.text, .markStart):
                let info = try values.u8()
                let len = try values.uvarint()
                let keyIndex = try values.uvarint()
                guard let key = keys[safe: Int(clamping: keyIndex)] else { throw bad("mark key \(keyIndex) out of range") }
                guard len <= UInt64(Int32.max) else { throw bad("mark length \(len) out of range") }
                let value = try readValue(&values, keys: keys, id: opID, topLevel: true, depth: 0)
                content = .mark(start: try position(prop), end: prop + Int(len), key: key, value: value, info: info)
            case (.text, .null):
                content = .markEnd
            case (.list, .loroValue), (.movableList, .loroValue):
                guard case .list(let items) = try readValue(&values, keys: keys, id: opID, topLevel: true, depth: 0) else {
                    throw bad("a list insert's value must be a list")
                }
                content = .insertValues(position: try position(prop), values: items)
                length = items.count
            case (.movableList, .listMove):
                let from = try values.uvarint()
                let elem = try idLp(&values, peers)
                guard from <= UInt64(Int32.max) else { throw bad("move source \(from) out of range") }
                content = .move(from: Int(from), to: try position(prop), elem: elem)
            case (.movableList, .listSet):
                let elem = try idLp(&values, peers)
                content = .setValue(elem: elem, value: try readValue(&values, keys: keys, id: opID, topLevel: true, depth: 0))
            case (.counter, .i64):
                content = .counter(Double(try values.sleb()))
            case (.counter, .f64):
                content = .counter(Double(bitPattern: try values.u64be()))
            case (.map, .loroValue), (.map, .deleteOnce):
                guard let key = keys[safe: prop] else { throw bad("map key \(prop) out of range") }
                content = kind == .deleteOnce ? .mapDelete(key: key) : .mapInsert(key: key, value: try readValue(&values, keys: keys, id: opID, topLevel: true, depth: 0))
            case (.tree, .rawTreeMove):
                let subject = try treeID(&values, peers)
                let positionIndex = try values.uvarint()
                let parentNull = try values.u8() != 0
                let parent: OpID? = parentNull ? nil : try treeID(&values, peers, allowDeletedRoot: true)
                if parent == loroDeletedTreeRoot {
                    content = .treeDelete(target: subject)
                } else {
                    guard let index = positions[safe: Int(clamping: positionIndex)] else { throw bad("tree position \(positionIndex) out of range") }
                    content = subject == opID ? .treeCreate(target: subject, parent: parent, fractionalIndex: index)
                        : .treeMove(target: subject, parent: parent, fractionalIndex: index)
                }
            default:
                throw bad("value kind \(kind) is not an operation of a \(container.type) container")
            }
            guard lenColumn[row] == Int64(length), length > 0 else {
                throw bad("the length column says \(lenColumn[row]) atoms, the operation has \(length)")
            }
            ops.append(LoroJSONOp(container: container, counter: counter, content: content, length: length))
            counter += OpCounter(length)
            guard counter <= changeEnd else { throw bad("the operation crosses the end \(changeEnd) of its change") }
            if counter == changeEnd {
                let deps: [OpID] = depOnSelf[changeIndex] ? [OpID(peer: peer, counter: changeStart - 1)] : []
                if depOnSelf[changeIndex], changeStart == 0 { throw bad("a change at counter 0 depends on its own peer") }
                changes.append(LoroJSONChange(id: OpID(peer: peer, counter: changeStart), timestamp: timestamps[changeIndex], deps: deps,
                                              lamport: changeIndex < n - 1 ? Lamport(lamports[changeIndex]) : Lamport(lastLamport), message: messages[changeIndex], ops: ops))
                ops = []
                changeIndex += 1
                changeStart = counter
                if changeIndex < n {
                    changeEnd = counter + lengths[changeIndex]
                    ops.reserveCapacity(opsPerChange[changeIndex])
                }
            }
        }
        guard changeIndex == n else { throw CRDTError.malformedBytes(offset: values.offset, reason: "the ops cover \(changeIndex) of \(n) changes") }
        guard deleteRow == deletePeers.count else { throw CRDTError.malformedBytes(offset: deletesR.offset, reason: "\(deletePeers.count - deleteRow) delete_start_ids rows left over") }
        try values.expectEnd("the values")

        // Dependencies on other peers, in change order.
        var d = 0
        for i in 0..<n {
            for _ in 0..<Int(depCounts[i]) {
                guard let p = peers[safe: Int(depPeers[d])], depCounters[d] >= 0, depCounters[d] <= Int64(OpCounter.max) else {
                    throw CRDTError.malformedBytes(offset: blockAt, reason: "dependency \(d): peer \(depPeers[d]) or counter \(depCounters[d]) out of range")
                }
                changes[i].deps.append(OpID(peer: p, counter: OpCounter(depCounters[d])))
                d += 1
            }
            // Lamports of the changes after the first must follow their own peer's changes.
            if i > 0, changes[i].lamport < changes[i - 1].lamport + Lamport(changes[i - 1].length) {
                throw CRDTError.malformedBytes(offset: blockAt, reason: "change \(changes[i].id) has Lamport \(changes[i].lamport), below its predecessor's end")
            }
        }
        return changes
    }

    private static func idLp(_ r: inout ByteReader, _ peers: [PeerID]) throws(CRDTError) -> IdLp {
        let at = r.offset
        let p = try r.uvarint()
        let l = try r.uvarint()
        guard let peer = peers[safe: Int(clamping: p)], l <= UInt64(Lamport.max / 2) else {
            throw CRDTError.malformedBytes(offset: at, reason: "element peer \(p) or Lamport \(l) out of range")
        }
        return IdLp(peer: peer, lamport: Lamport(l))
    }

    private static func treeID(_ r: inout ByteReader, _ peers: [PeerID], allowDeletedRoot: Bool = false) throws(CRDTError) -> OpID {
        let at = r.offset
        let p = try r.uvarint()
        let c = try r.uvarint()
        guard let peer = peers[safe: Int(clamping: p)] else { throw CRDTError.malformedBytes(offset: at, reason: "tree peer \(p) out of range") }
        if allowDeletedRoot, peer == loroDeletedTreeRoot.peer, c == UInt64(OpCounter.max) { return loroDeletedTreeRoot }
        guard c <= UInt64(OpCounter.max) else { throw CRDTError.malformedBytes(offset: at, reason: "tree counter \(c) out of range") }
        return OpID(peer: peer, counter: OpCounter(c))
    }

    /// A nested LoroValue of an operation. A container is its kind byte; its ID is the op's, or
    /// for a direct element `i` of a top-level list the op's ID plus `i`.
    static func readValue(_ r: inout ByteReader, keys: [String], id: OpID, topLevel: Bool, depth: Int) throws(CRDTError) -> CRDTValue {
        let at = r.offset
        guard depth < 128 else { throw CRDTError.malformedBytes(offset: at, reason: "values nested deeper than 128") }
        switch try r.u8() {
        case 0: return .null
        case 1: return .bool(true)
        case 2: return .bool(false)
        case 3: return .int(try r.sleb())
        case 4: return .double(Double(bitPattern: try r.u64be()))
        case 5: return .string(try r.string())
        case 6: return .binary(try r.data())
        case 7:
            let n = try r.count("list length")
            var out: [CRDTValue] = []
            out.reserveCapacity(n)
            for i in 0..<n {
                out.append(try readValue(&r, keys: keys, id: topLevel ? id.advanced(by: Int32(i)) : id, topLevel: false, depth: depth + 1))
            }
            return .list(out)
        case 8:
            let n = try r.count("map size", minBytes: 2)
            var out: [String: CRDTValue] = [:]
            for _ in 0..<n {
                let ka = r.offset
                let k = try r.uvarint()
                guard let key = keys[safe: Int(clamping: k)] else { throw CRDTError.malformedBytes(offset: ka, reason: "map key \(k) out of range") }
                out[key] = try readValue(&r, keys: keys, id: id, topLevel: false, depth: depth + 1)
            }
            return .map(out)
        case 9:
            let ka = r.offset
            let kind = try r.u8()
            guard let type = ContainerType(loroKind: kind) else {
                throw CRDTError.malformedBytes(offset: ka, reason: "container kind \(ContainerType.loroName(ofKind: kind)) is not supported")
            }
            return .container(.normal(id: id, type: type))
        case let tag:
            throw CRDTError.malformedBytes(offset: at, reason: "unknown value tag \(tag)")
        }
    }
}
