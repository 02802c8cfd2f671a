// The binary format (version 1). All integers are LEB128 varints unless noted; signed values
// are zigzag varints.
//
//   frame    := 0xC7, (version << 4 | kind | 0x08 if compressed), body', crc32 (4 bytes LE)
//   body'    := body, or (decoded size, LZ block of body) when compressed (bodies > 1 KiB)
//   updates  := tables, changes
//   snapshot := tables, changes (inserts without content), frontiers, styles, sequences, marks,
//               maps, trees, child-container parents, pending changes (with content)
//   tables   := peers (count, varints), containers (count, each: type byte (| 0x80 for a child
//               container, then peer index and counter) or the root name string)
//   change   := peer index, counter, zigzag(lamport - counter), deps (0 = only the peer's previous
//               op, else count + 1 then peer index/counter pairs), op count, ops
//   op       := container index, tag, payload; an op's counter follows from its predecessors
//   origin   := 0 (none) | (distance back within the same peer) << 1 | 1 | (peer index + 1) << 1, counter
//   sequence := content arena in history order (UTF-8 text or values), runs (peer index << 3 |
//               kind | deleted << 2, zigzag counter delta, length); Lamport, origins and
//               content offsets of a run come from the op that created it.

/// Peer and container tables shared by one encoded blob.
struct EncodeTables {
    var peers: [PeerID] = []
    var peerIndex: [PeerID: Int] = [:]
    var containers: [ContainerID] = []
    var containerIndex: [ContainerID: Int] = [:]

    mutating func peer(_ p: PeerID) -> Int {
        if let i = peerIndex[p] { return i }
        peerIndex[p] = peers.count
        peers.append(p)
        return peers.count - 1
    }

    mutating func container(_ c: ContainerID) -> Int {
        if let i = containerIndex[c] { return i }
        if case .normal(let id, _) = c { _ = peer(id.peer) }
        containerIndex[c] = containers.count
        containers.append(c)
        return containers.count - 1
    }

    func write(_ w: inout ByteWriter) {
        w.uvarint(peers.count)
        for p in peers { w.uvarint(p) }
        w.uvarint(containers.count)
        for c in containers {
            switch c {
            case let .root(name, type):
                w.u8(type.rawValue)
                w.string(name)
            case let .normal(id, type):
                w.u8(type.rawValue | 0x80)
                w.uvarint(peerIndex[id.peer]!)
                w.uvarint(id.counter)
            }
        }
    }

    static func read(_ r: inout ByteReader) throws(CRDTError) -> EncodeTables {
        var t = EncodeTables()
        let np = try r.count("peer count")
        for _ in 0..<np { t.peers.append(try r.uvarint()) }
        let nc = try r.count("container count", minBytes: 2)
        for _ in 0..<nc {
            let at = r.offset
            let tag = try r.u8()
            guard let type = ContainerType(rawValue: tag & 0x7F) else { throw CRDTError.malformedBytes(offset: at, reason: "unknown container type \(tag & 0x7F)") }
            if tag & 0x80 == 0 {
                t.containers.append(.root(name: try r.string(), type: type))
            } else {
                let p = try t.peer(at: &r)
                t.containers.append(.normal(id: OpID(peer: p, counter: try r.counter("container counter")), type: type))
            }
        }
        return t
    }

    func peer(at r: inout ByteReader) throws(CRDTError) -> PeerID {
        peers[try r.int(max: peers.count - 1, "peer index")]
    }

    func container(at r: inout ByteReader) throws(CRDTError) -> ContainerID {
        containers[try r.int(max: containers.count - 1, "container index")]
    }
}

/// Value tags.
private enum VTag: UInt8 { case null, bfalse, btrue, int, double, string, binary, list, map, container }

extension ByteWriter {
    mutating func value(_ v: CRDTValue, _ t: inout EncodeTables) {
        switch v {
        case .null: u8(VTag.null.rawValue)
        case .bool(let b): u8(b ? VTag.btrue.rawValue : VTag.bfalse.rawValue)
        case .int(let i): u8(VTag.int.rawValue); zigzag(i)
        case .double(let d): u8(VTag.double.rawValue); u64(d.bitPattern)
        case .string(let s): u8(VTag.string.rawValue); string(s)
        case .binary(let b): u8(VTag.binary.rawValue); data(b)
        case .list(let l): u8(VTag.list.rawValue); uvarint(l.count); for x in l { value(x, &t) }
        case .map(let m):
            u8(VTag.map.rawValue)
            uvarint(m.count)
            for k in m.keys.sorted() { string(k); value(m[k]!, &t) }
        case .container(let c): u8(VTag.container.rawValue); uvarint(t.container(c))
        }
    }

    /// An origin relative to the op (same peer: distance back; other peer: table index + counter).
    mutating func origin(_ o: OptID, opPeer: PeerID, opCounter: OpCounter, _ t: inout EncodeTables) {
        guard let id = o.id else { uvarint(0); return }
        if id.peer == opPeer && id.counter < opCounter {
            uvarint(UInt64(opCounter - id.counter - 1) << 1 | 1)
        } else {
            uvarint(UInt64(t.peer(id.peer) + 1) << 1)
            uvarint(id.counter)
        }
    }
}

extension ByteReader {
    mutating func value(_ t: EncodeTables, depth: Int = 0) throws(CRDTError) -> CRDTValue {
        guard depth < 64 else { throw fail("values nested deeper than 64") }
        let at = offset
        guard let tag = VTag(rawValue: try u8()) else { throw CRDTError.malformedBytes(offset: at, reason: "unknown value tag") }
        switch tag {
        case .null: return .null
        case .bfalse: return .bool(false)
        case .btrue: return .bool(true)
        case .int: return .int(try zigzag())
        case .double:
            guard remaining >= 8 else { throw fail("unexpected end of data in a double") }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return .double(Double(bitPattern: v))
        case .string: return .string(try string())
        case .binary: return .binary(try data())
        case .list:
            let n = try count("list length")
            var l: [CRDTValue] = []
            for _ in 0..<n { l.append(try value(t, depth: depth + 1)) }
            return .list(l)
        case .map:
            let n = try count("map size", minBytes: 2)
            var m: [String: CRDTValue] = [:]
            for _ in 0..<n { let k = try string(); m[k] = try value(t, depth: depth + 1) }
            return .map(m)
        case .container: return .container(try t.container(at: &self))
        }
    }

    mutating func origin(opPeer: PeerID, opCounter: OpCounter, _ t: EncodeTables) throws(CRDTError) -> OptID {
        let at = offset
        let v = try uvarint()
        if v == 0 { return .none }
        if v & 1 == 1 {
            let back = Int64(v >> 1) + 1
            guard back <= Int64(opCounter) else { throw CRDTError.malformedBytes(offset: at, reason: "origin before counter 0") }
            return OptID(peer: opPeer, counter: opCounter - OpCounter(back))
        }
        let idx = Int(clamping: v >> 1) - 1
        guard idx >= 0, idx < t.peers.count else { throw CRDTError.malformedBytes(offset: at, reason: "origin peer index \(idx) out of range") }
        return OptID(peer: t.peers[idx], counter: try counter("origin counter"))
    }
}

/// Op tags.
private enum OTag: UInt8 { case insertText, insertValues, delete, mark, mapSet, mapDelete, tree, insertRef, move, setValue, counter }

/// Writing and reading changes.
enum ChangeCodec {
    /// Encodes changes; with `contentFrom` nil inserts carry their content, otherwise (snapshots)
    /// text and list content is omitted and restored from the state.
    static func write(_ changes: [Change], _ w: inout ByteWriter, _ t: inout EncodeTables, sequences: [ContainerID: FugueSequence], inlineContent: Bool) {
        w.uvarint(changes.count)
        for ch in changes {
            w.uvarint(t.peer(ch.peer))
            w.uvarint(ch.counter)
            w.zigzag(Int64(ch.lamport) - Int64(ch.counter))
            if ch.deps.count == 1, ch.deps[0] == OpID(peer: ch.peer, counter: ch.counter - 1) {
                w.uvarint(0)
            } else {
                w.uvarint(ch.deps.count + 1)
                for d in ch.deps { w.uvarint(t.peer(d.peer)); w.uvarint(d.counter) }
            }
            w.uvarint(ch.ops.count)
            for op in ch.ops {
                w.uvarint(t.container(op.container))
                let p = ch.peer, c = op.counter
                switch op.content {
                case let .insert(l, r, content, n):
                    let seq = sequences[op.container]!
                    // A movable list is rebuilt from its history, which needs the inserted values.
                    if !inlineContent && op.container.type != .movableList {
                        w.u8(OTag.insertRef.rawValue); w.origin(l, opPeer: p, opCounter: c, &t); w.origin(r, opPeer: p, opCounter: c, &t); w.uvarint(n)
                    } else if op.container.type == .text {
                        w.u8(OTag.insertText.rawValue); w.origin(l, opPeer: p, opCounter: c, &t); w.origin(r, opPeer: p, opCounter: c, &t)
                        var s = String.UnicodeScalarView()
                        s.append(contentsOf: seq.scalars[Int(content)..<Int(content + n)])
                        w.string(String(s))
                    } else {
                        w.u8(OTag.insertValues.rawValue); w.origin(l, opPeer: p, opCounter: c, &t); w.origin(r, opPeer: p, opCounter: c, &t)
                        w.uvarint(n)
                        for v in seq.values[Int(content)..<Int(content + n)] { w.value(v, &t) }
                    }
                case let .insertText(l, r, s):
                    w.u8(OTag.insertText.rawValue); w.origin(l, opPeer: p, opCounter: c, &t); w.origin(r, opPeer: p, opCounter: c, &t)
                    var v = String.UnicodeScalarView(); v.append(contentsOf: s); w.string(String(v))
                case let .insertValues(l, r, vs):
                    w.u8(OTag.insertValues.rawValue); w.origin(l, opPeer: p, opCounter: c, &t); w.origin(r, opPeer: p, opCounter: c, &t)
                    w.uvarint(vs.count); for v in vs { w.value(v, &t) }
                case let .delete(spans):
                    w.u8(OTag.delete.rawValue)
                    w.uvarint(spans.count)
                    for s in spans {
                        if s.peer == p { w.uvarint(0) } else { w.uvarint(t.peer(s.peer) + 1) }
                        // Targets are usually recent: store the distance back from this op.
                        w.zigzag(Int64(c) - Int64(s.start)); w.zigzag(Int64(s.length))
                    }
                case let .mark(m):
                    w.u8(OTag.mark.rawValue); w.string(m.key); w.value(m.value, &t); w.u8(m.expand.rawValue)
                    w.origin(m.startLeft, opPeer: p, opCounter: c, &t); w.origin(m.startRight, opPeer: p, opCounter: c, &t)
                    w.origin(m.endLeft, opPeer: p, opCounter: c + 1, &t); w.origin(m.endRight, opPeer: p, opCounter: c + 1, &t)
                case let .mapSet(key, value):
                    if let value { w.u8(OTag.mapSet.rawValue); w.string(key); w.value(value, &t) } else { w.u8(OTag.mapDelete.rawValue); w.string(key) }
                case let .tree(target, parent, position):
                    w.u8(OTag.tree.rawValue)
                    w.origin(OptID(target), opPeer: p, opCounter: c + 1, &t)
                    switch parent {
                    case .root: w.u8(0)
                    case .deleted: w.u8(1)
                    case .node(let id): w.u8(2); w.origin(OptID(id), opPeer: p, opCounter: c + 1, &t)
                    }
                    w.data(position)
                case let .move(elem, from, l, r):
                    w.u8(OTag.move.rawValue); w.uvarint(t.peer(elem.peer)); w.uvarint(UInt64(elem.lamport))
                    w.origin(OptID(from), opPeer: p, opCounter: c, &t); w.origin(l, opPeer: p, opCounter: c, &t); w.origin(r, opPeer: p, opCounter: c, &t)
                case let .setValue(elem, value):
                    w.u8(OTag.setValue.rawValue); w.uvarint(t.peer(elem.peer)); w.uvarint(UInt64(elem.lamport)); w.value(value, &t)
                case let .counter(delta):
                    w.u8(OTag.counter.rawValue); w.u64(delta.bitPattern)
                }
            }
        }
    }

    static func read(_ r: inout ByteReader, _ t: EncodeTables) throws(CRDTError) -> [Change] {
        let n = try r.count("change count", minBytes: 5)
        var out: [Change] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            let changeAt = r.offset
            let peer = try t.peer(at: &r)
            let counter = try r.counter("change counter")
            let lam = Int64(counter) + (try r.zigzag())
            guard lam >= 0, lam <= Int64(UInt32.max / 2) else { throw CRDTError.malformedBytes(offset: changeAt, reason: "Lamport \(lam) out of range") }
            let depCode = try r.count("dependency count", minBytes: 2)
            var deps: [OpID] = []
            if depCode == 0 {
                guard counter > 0 else { throw CRDTError.malformedBytes(offset: changeAt, reason: "implicit dependency of counter 0") }
                deps = [OpID(peer: peer, counter: counter - 1)]
            } else {
                for _ in 0..<(depCode - 1) { deps.append(OpID(peer: try t.peer(at: &r), counter: try r.counter("dependency counter"))) }
            }
            let nops = try r.count("op count", minBytes: 2)
            var ops: [Op] = []
            ops.reserveCapacity(nops)
            var c = counter
            for _ in 0..<nops {
                let container = try t.container(at: &r)
                let at = r.offset
                guard let tag = OTag(rawValue: try r.u8()) else { throw CRDTError.malformedBytes(offset: at, reason: "unknown op tag") }
                let content: OpContent
                switch tag {
                case .insertText:
                    let l = try r.origin(opPeer: peer, opCounter: c, t), rr = try r.origin(opPeer: peer, opCounter: c, t)
                    let s = try r.scalars()
                    guard !s.isEmpty else { throw CRDTError.malformedBytes(offset: at, reason: "empty insert") }
                    content = .insertText(left: l, right: rr, s)
                case .insertValues:
                    let l = try r.origin(opPeer: peer, opCounter: c, t), rr = try r.origin(opPeer: peer, opCounter: c, t)
                    let k = try r.count("value count")
                    guard k > 0 else { throw CRDTError.malformedBytes(offset: at, reason: "empty insert") }
                    var vs: [CRDTValue] = []
                    for _ in 0..<k { vs.append(try r.value(t)) }
                    content = .insertValues(left: l, right: rr, vs)
                case .insertRef:
                    let l = try r.origin(opPeer: peer, opCounter: c, t), rr = try r.origin(opPeer: peer, opCounter: c, t)
                    let k = try r.int(max: Int(Int32.max), "insert length")
                    guard k > 0 else { throw CRDTError.malformedBytes(offset: at, reason: "empty insert") }
                    content = .insert(left: l, right: rr, content: -1, count: Int32(k))
                case .delete:
                    let k = try r.count("span count", minBytes: 3)
                    // Allocated once at its size (growing from empty costs twice as much).
                    let spans = try [DelSpan].written(count: k) { (out) throws(CRDTError) in
                        for i in 0..<k {
                            let pi = try r.int(max: t.peers.count, "span peer")
                            let back = try r.zigzag()
                            guard back <= Int64(c), Int64(c) - back <= Int64(Int32.max) else {
                                throw CRDTError.malformedBytes(offset: at, reason: "delete span start out of range")
                            }
                            let start = OpCounter(Int64(c) - back)
                            let len = try r.zigzag()
                            guard len != 0, Int64(start) + len <= Int64(Int32.max), Int64(start) + len >= -1, abs(len) < Int64(Int32.max) else {
                                throw CRDTError.malformedBytes(offset: at, reason: "bad delete span")
                            }
                            out.initializeElement(at: i, to: DelSpan(peer: pi == 0 ? peer : t.peers[pi - 1], start: start, length: Int32(len)))
                        }
                    }
                    guard !spans.isEmpty else { throw CRDTError.malformedBytes(offset: at, reason: "empty delete") }
                    content = .delete(spans)
                case .mark:
                    let key = try r.string(), value = try r.value(t)
                    let ea = r.offset
                    guard let expand = ExpandType(rawValue: try r.u8()) else { throw CRDTError.malformedBytes(offset: ea, reason: "unknown expand type") }
                    let sl = try r.origin(opPeer: peer, opCounter: c, t), sr = try r.origin(opPeer: peer, opCounter: c, t)
                    let el = try r.origin(opPeer: peer, opCounter: c + 1, t), er = try r.origin(opPeer: peer, opCounter: c + 1, t)
                    content = .mark(MarkPayload(key: key, value: value, expand: expand, startLeft: sl, startRight: sr, endLeft: el, endRight: er))
                case .mapSet: content = .mapSet(key: try r.string(), value: try r.value(t))
                case .mapDelete: content = .mapSet(key: try r.string(), value: nil)
                case .tree:
                    guard let target = try r.origin(opPeer: peer, opCounter: c + 1, t).id else { throw CRDTError.malformedBytes(offset: at, reason: "tree op without target") }
                    let pa = r.offset
                    let parent: TreeParent
                    switch try r.u8() {
                    case 0: parent = .root
                    case 1: parent = .deleted
                    case 2:
                        guard let p = try r.origin(opPeer: peer, opCounter: c + 1, t).id else { throw CRDTError.malformedBytes(offset: pa, reason: "missing parent") }
                        parent = .node(p)
                    default: throw CRDTError.malformedBytes(offset: pa, reason: "unknown tree parent tag")
                    }
                    content = .tree(target: target, parent: parent, position: try r.data())
                case .move:
                    let elem = IdLp(peer: try t.peer(at: &r), lamport: Lamport(try r.int(max: Int(Lamport.max / 2), "element Lamport")))
                    guard let from = try r.origin(opPeer: peer, opCounter: c, t).id else { throw CRDTError.malformedBytes(offset: at, reason: "move without a source item") }
                    let l = try r.origin(opPeer: peer, opCounter: c, t), rr = try r.origin(opPeer: peer, opCounter: c, t)
                    content = .move(elem: elem, from: from, left: l, right: rr)
                case .setValue:
                    let elem = IdLp(peer: try t.peer(at: &r), lamport: Lamport(try r.int(max: Int(Lamport.max / 2), "element Lamport")))
                    content = .setValue(elem: elem, value: try r.value(t))
                case .counter:
                    var v: UInt64 = 0
                    guard r.remaining >= 8 else { throw CRDTError.malformedBytes(offset: r.offset, reason: "unexpected end of data in a counter delta") }
                    for i in 0..<8 { v |= UInt64(try r.u8()) << (8 * UInt64(i)) }
                    content = .counter(Double(bitPattern: v))
                }
                let op = Op(container: container, counter: c, content: content)
                guard Int64(c) + Int64(op.length) <= Int64(Int32.max) else { throw CRDTError.malformedBytes(offset: at, reason: "counter overflow") }
                c += op.length
                ops.append(op)
            }
            guard !ops.isEmpty else { throw CRDTError.malformedBytes(offset: changeAt, reason: "change without ops") }
            out.append(Change(peer: peer, counter: counter, lamport: Lamport(lam), deps: deps, ops: ops, length: c - counter))
        }
        return out
    }
}

/// The container frame: magic byte, version (high nibble) with kind and a compression flag (low
/// nibble), body, CRC-32 of everything before it. Bodies above 1 KiB are LZ-compressed; a
/// compressed body is its decoded size (varint) then the block.
enum Frame {
    static let magic: UInt8 = 0xC7
    static let version: UInt8 = 1
    /// Snapshots are written in version 2 (a Loro snapshot inside, see `exportSnapshot()`).
    static let snapshotVersion: UInt8 = 2

    static func isSnapshotV2(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == magic && bytes[1] == snapshotVersion << 4 | Kind.snapshot.rawValue
    }
    static let compressedFlag: UInt8 = 0x08
    static let compressThreshold = 1024
    enum Kind: UInt8 { case updates = 1, snapshot = 2 }

    static func seal(_ kind: Kind, _ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var inner = ByteWriter()
        body(&inner)
        var w = ByteWriter()
        w.u8(magic)
        if inner.bytes.count > compressThreshold {
            w.u8(version << 4 | kind.rawValue | compressedFlag)
            w.uvarint(inner.bytes.count)
            w.bytes.append(contentsOf: LZ.compress(inner.bytes))
        } else {
            w.u8(version << 4 | kind.rawValue)
            w.bytes.append(contentsOf: inner.bytes)
        }
        w.u32(CRC32.checksum(w.bytes, count: w.bytes.count))
        return w.bytes
    }

    /// Checks the frame and returns a reader over the (decompressed) body and the kind. Error
    /// offsets inside a compressed body count bytes of the decompressed body.
    static func open(_ bytes: [UInt8]) throws(CRDTError) -> (Kind, ByteReader) {
        guard bytes.count >= 6 else { throw .malformedBytes(offset: bytes.count, reason: "too short for a frame (\(bytes.count) bytes)") }
        guard bytes[0] == magic else { throw .malformedBytes(offset: 0, reason: "bad magic byte") }
        var sr = ByteReader(bytes, from: bytes.count - 4)
        let expected = try sr.u32()
        let actual = CRC32.checksum(bytes, count: bytes.count - 4)
        guard expected == actual else { throw .checksumMismatch(offset: bytes.count - 4, expected: expected, actual: actual) }
        guard bytes[1] >> 4 == version else { throw .unsupportedVersion(bytes[1] >> 4) }
        guard let kind = Kind(rawValue: bytes[1] & 0x07) else { throw .malformedBytes(offset: 1, reason: "unknown blob kind") }
        guard bytes[1] & compressedFlag != 0 else { return (kind, ByteReader(bytes, from: 2, to: bytes.count - 4)) }
        var header = ByteReader(bytes, from: 2, to: bytes.count - 4)
        // LZ expands at most 255:1; larger claims are hostile.
        let size = try header.int(max: min(Int(Int32.max), 256 * bytes.count), "decompressed size")
        let body = try LZ.decompress(bytes[header.offset..<(bytes.count - 4)], count: size)
        return (kind, ByteReader(body))
    }
}
