// Postcard-encoded values Loro's snapshots, cursors and ephemeral stores use
// (encoding-container-states.md §2.1, §3; encoding.md §5.2, §5.3), and the custom byte form of a
// container ID that keys the state SSTable (§1.1).

extension ContainerType {
    /// The historical kind byte used only inside postcard container IDs: Text 0, Map 1, List 2,
    /// MovableList 3, Tree 4, Counter 5.
    var historicalKind: UInt8 {
        switch self {
        case .text: return 0
        case .map: return 1
        case .list: return 2
        case .movableList: return 3
        case .tree: return 4
        case .counter: return 5
        }
    }

    init?(historicalKind k: UInt8) {
        switch k {
        case 0: self = .text
        case 1: self = .map
        case 2: self = .list
        case 3: self = .movableList
        case 4: self = .tree
        case 5: self = .counter
        default: return nil
        }
    }

    /// Loro's name of a historical kind byte.
    static func loroName(ofHistoricalKind k: UInt8) -> String {
        ["Text", "Map", "List", "MovableList", "Tree", "Counter"][safe: Int(k)] ?? "Unknown(\(k))"
    }
}

enum Postcard {
    // MARK: container IDs

    static func write(_ c: ContainerID, into w: inout ByteWriter) {
        switch c {
        case let .root(name, type):
            w.u8(0); w.string(name); w.u8(type.historicalKind)
        case let .normal(id, type):
            w.u8(1); w.uvarint(id.peer); w.zigzag(Int64(id.counter)); w.u8(type.historicalKind)
        }
    }

    static func containerID(_ r: inout ByteReader) throws(CRDTError) -> ContainerID {
        let at = r.offset
        switch try r.uvarint() {
        case 0:
            let name = try r.string()
            return .root(name: name, type: try historicalType(&r))
        case 1:
            let peer = try r.uvarint()
            let counter = try r.postcardI32("container counter")
            guard counter >= 0 else { throw CRDTError.malformedBytes(offset: at, reason: "negative container counter \(counter)") }
            return .normal(id: OpID(peer: peer, counter: counter), type: try historicalType(&r))
        case let v:
            throw CRDTError.malformedBytes(offset: at, reason: "container ID variant \(v)")
        }
    }

    private static func historicalType(_ r: inout ByteReader) throws(CRDTError) -> ContainerType {
        let at = r.offset
        let k = try r.u8()
        guard let t = ContainerType(historicalKind: k) else {
            throw CRDTError.malformedBytes(offset: at, reason: "container kind \(ContainerType.loroName(ofHistoricalKind: k)) is not supported")
        }
        return t
    }

    // MARK: values

    /// A LoroValue as postcard writes it (states, cursors, ephemeral values).
    static func write(_ v: CRDTValue, into w: inout ByteWriter) {
        switch v {
        case .null: w.u8(0)
        case .bool(let b): w.u8(1); w.u8(b ? 1 : 0)
        case .double(let d): w.u8(2); w.u64(d.bitPattern)
        case .int(let i): w.u8(3); w.zigzag(i)
        case .string(let s): w.u8(4); w.string(s)
        case .list(let l): w.u8(5); w.uvarint(l.count); for x in l { write(x, into: &w) }
        case .map(let m):
            w.u8(6); w.uvarint(m.count)
            for k in m.keys.sorted() { w.string(k); write(m[k]!, into: &w) }
        case .container(let c): w.u8(7); write(c, into: &w)
        case .binary(let b): w.u8(8); w.lengthPrefixed(b)
        }
    }

    static func value(_ r: inout ByteReader, depth: Int = 0, maxDepth: Int = 128) throws(CRDTError) -> CRDTValue {
        let at = r.offset
        guard depth < maxDepth else { throw CRDTError.malformedBytes(offset: at, reason: "values nested deeper than \(maxDepth)") }
        switch try r.uvarint() {
        case 0: return .null
        case 1:
            let b = try r.u8()
            guard b <= 1 else { throw CRDTError.malformedBytes(offset: at + 1, reason: "bad bool \(b)") }
            return .bool(b == 1)
        case 2: return .double(Double(bitPattern: try r.u64le()))
        case 3: return .int(try r.zigzag())
        case 4: return .string(try r.string())
        case 5:
            let n = try r.count("list length")
            var out: [CRDTValue] = []
            out.reserveCapacity(n)
            for _ in 0..<n { out.append(try value(&r, depth: depth + 1, maxDepth: maxDepth)) }
            return .list(out)
        case 6:
            let n = try r.count("map size", minBytes: 2)
            var out: [String: CRDTValue] = [:]
            for _ in 0..<n { let k = try r.string(); out[k] = try value(&r, depth: depth + 1, maxDepth: maxDepth) }
            return .map(out)
        case 7: return .container(try containerID(&r))
        case 8: return .binary(try r.data())
        case let tag: throw CRDTError.malformedBytes(offset: at, reason: "value variant \(tag)")
        }
    }

    // MARK: versions

    static func write(_ vv: VersionVector, into w: inout ByteWriter) {
        w.uvarint(vv.ends.count)
        for peer in vv.ends.keys.sorted() { w.uvarint(peer); w.zigzag(Int64(vv.ends[peer]!)) }
    }

    static func versionVector(_ r: inout ByteReader) throws(CRDTError) -> VersionVector {
        let n = try r.count("version vector size", minBytes: 2)
        var ends: [PeerID: OpCounter] = [:]
        for _ in 0..<n {
            let peer = try r.uvarint()
            let at = r.offset
            let end = try r.postcardI32("version vector counter")
            guard end >= 0 else { throw CRDTError.malformedBytes(offset: at, reason: "negative counter \(end)") }
            ends[peer] = max(ends[peer] ?? 0, end)
        }
        return VersionVector(ends)
    }

    static func write(_ f: Frontiers, into w: inout ByteWriter) {
        w.uvarint(f.ids.count)
        for id in f.ids { w.uvarint(id.peer); w.zigzag(Int64(id.counter)) }
    }

    static func frontiers(_ r: inout ByteReader) throws(CRDTError) -> Frontiers {
        let n = try r.count("frontier count", minBytes: 2)
        var ids: [OpID] = []
        for _ in 0..<n {
            let peer = try r.uvarint()
            let at = r.offset
            let counter = try r.postcardI32("frontier counter")
            guard counter >= 0 else { throw CRDTError.malformedBytes(offset: at, reason: "negative counter \(counter)") }
            ids.append(OpID(peer: peer, counter: counter))
        }
        return Frontiers(ids)
    }
}

extension ContainerID {
    /// `ContainerID::to_bytes()`: the state SSTable key (root: kind | 0x80, uleb name length,
    /// name; normal: kind, u64le peer, i32le counter).
    var loroKey: [UInt8] {
        var w = ByteWriter()
        switch self {
        case let .root(name, type): w.u8(type.loroKind | 0x80); w.string(name)
        case let .normal(id, type): w.u8(type.loroKind); w.u64(id.peer); w.u32(UInt32(bitPattern: id.counter))
        }
        return w.bytes
    }

    /// Parses a state SSTable key.
    init(loroKey bytes: [UInt8]) throws(CRDTError) {
        var r = ByteReader(bytes)
        let kind = try r.u8()
        guard let type = ContainerType(loroKind: kind & 0x7F) else {
            throw CRDTError.malformedBytes(offset: 0, reason: "container kind \(ContainerType.loroName(ofKind: kind & 0x7F)) is not supported")
        }
        if kind & 0x80 != 0 {
            let n = try r.count("root name length")
            self = .root(name: try r.utf8(n, "a root container name"), type: type)
        } else {
            let peer = try r.u64le()
            let counter = Int32(bitPattern: try r.u32())
            guard counter >= 0 else { throw CRDTError.malformedBytes(offset: 9, reason: "negative container counter \(counter)") }
            self = .normal(id: OpID(peer: peer, counter: counter), type: type)
        }
        try r.expectEnd("a container key")
    }
}

extension OpID {
    /// `ID::to_bytes()`: u64be peer, i32be counter (the ChangeStore's block keys).
    var loroKey: [UInt8] {
        var w = ByteWriter()
        w.u64be(peer)
        w.u32be(UInt32(bitPattern: counter))
        return w.bytes
    }
}
