// loro-kv-store's SSTable (encoding.md §4), the container of every snapshot section:
//
//   "LORO" 00  block…  meta  u32le(meta offset)
//   meta  := u32le count, per block (u32le offset, u16le+first key, flags, [u16le+last key]),
//            u32le xxHash32 of the per-block entries
//   block := body or LZ4 frame of it, then u32le xxHash32 of the stored bytes
//   body  := entries, u16le offsets[n], u16le n   (entry 0: value; entry i: prefix length u8,
//            u16le+key suffix, value)          or, for one large value, the value itself
//
// The metadata is parsed and checked up front; blocks are decoded when first read.

struct SSTable {
    struct BlockMeta {
        var offset: Int
        var end: Int
        var isLarge: Bool
        var compressed: Bool
        var firstKey: [UInt8]
        var lastKey: [UInt8]
    }

    static let magic: [UInt8] = Array("LORO".utf8)
    /// Loro's stores use 4 KiB blocks; larger values get a block of their own.
    static let blockSize = 4096

    let reader: ByteReader
    let blocks: [BlockMeta]

    /// An empty store (a zero-length section).
    var isEmpty: Bool { blocks.isEmpty }

    /// Parses and checks the metadata of the SSTable that occupies the whole reader (zero bytes:
    /// an empty store). Block contents are not read.
    /// - Complexity: O(number of blocks + key lengths).
    init(_ r: ByteReader) throws(CRDTError) {
        reader = r
        guard !r.isAtEnd else { blocks = []; return }
        let start = r.offset
        guard r.remaining >= 9 else { throw CRDTError.malformedBytes(offset: start, reason: "SSTable of \(r.remaining) bytes is too short") }
        guard Array(r.bytes[start..<start + 4]) == Self.magic else { throw CRDTError.malformedBytes(offset: start, reason: "SSTable magic is not \"LORO\"") }
        guard r.bytes[start + 4] == 0 else { throw CRDTError.malformedBytes(offset: start + 4, reason: "SSTable schema version \(r.bytes[start + 4]) is not 0") }
        var footer = ByteReader(r.bytes, from: r.end - 4, to: r.end)
        let metaOffset = start + Int(try footer.u32())
        guard metaOffset >= start + 5, metaOffset + 8 <= r.end - 4 else {
            throw CRDTError.malformedBytes(offset: r.end - 4, reason: "SSTable metadata offset \(metaOffset - start) out of range")
        }
        var m = ByteReader(r.bytes, from: metaOffset, to: r.end - 4)
        // The checksum covers the entries: after the count, before the checksum itself.
        let stored = UInt32(r.bytes[r.end - 8]) | UInt32(r.bytes[r.end - 7]) << 8 | UInt32(r.bytes[r.end - 6]) << 16 | UInt32(r.bytes[r.end - 5]) << 24
        let actual = XXHash32.hash(r.bytes, (metaOffset + 4)..<(r.end - 8), seed: XXHash32.loroSeed)
        guard stored == actual else { throw .checksumMismatch(offset: r.end - 8, expected: stored, actual: actual) }
        m = ByteReader(r.bytes, from: metaOffset, to: r.end - 8)
        let countAt = m.offset
        let count = Int(try m.u32())
        guard count >= 1, count <= 10_000_000, count <= m.remaining / 8 else {
            throw CRDTError.malformedBytes(offset: countAt, reason: "SSTable with \(count) blocks")
        }
        var metas: [BlockMeta] = []
        metas.reserveCapacity(count)
        for i in 0..<count {
            let at = m.offset
            let offset = start + Int(try m.u32())
            let firstKey = try Self.key(&m)
            let flags = try m.u8()
            let isLarge = flags & 0x80 != 0
            guard flags & 0x7F <= 1 else { throw CRDTError.malformedBytes(offset: m.offset - 1, reason: "SSTable compression type \(flags & 0x7F)") }
            let lastKey = isLarge ? firstKey : try Self.key(&m)
            guard offset >= (metas.last.map { $0.offset + 4 } ?? start + 5), offset + 4 <= metaOffset else {
                throw CRDTError.malformedBytes(offset: at, reason: "SSTable block \(i) at \(offset - start) out of order or range")
            }
            if let last = metas.last {
                metas[metas.count - 1].end = offset
                guard last.lastKey.lexicographicallyPrecedes(firstKey) else {
                    throw CRDTError.malformedBytes(offset: at, reason: "SSTable block \(i) keys are not after the previous block's")
                }
            }
            guard !firstKey.isEmpty, !lastKey.lexicographicallyPrecedes(firstKey) else {
                throw CRDTError.malformedBytes(offset: at, reason: "SSTable block \(i) has bad keys")
            }
            metas.append(BlockMeta(offset: offset, end: metaOffset, isLarge: isLarge, compressed: flags & 0x7F == 1, firstKey: firstKey, lastKey: lastKey))
        }
        try m.expectEnd("the SSTable metadata")
        blocks = metas
    }

    private static func key(_ r: inout ByteReader) throws(CRDTError) -> [UInt8] {
        let n = Int(try r.u16le())
        guard n <= r.remaining else { throw r.fail("SSTable key of \(n) bytes runs past the metadata") }
        defer { r.offset += n }
        return Array(r.bytes[r.offset..<r.offset + n])
    }

    /// Checks every block's xxHash32 without decoding the block.
    /// - Complexity: O(size of the store).
    func verifyChecksums() throws(CRDTError) {
        for b in blocks { try verifyChecksum(b) }
    }

    private func verifyChecksum(_ b: BlockMeta) throws(CRDTError) {
        let stored = UInt32(reader.bytes[b.end - 4]) | UInt32(reader.bytes[b.end - 3]) << 8 | UInt32(reader.bytes[b.end - 2]) << 16 | UInt32(reader.bytes[b.end - 1]) << 24
        let actual = XXHash32.hash(reader.bytes, b.offset..<(b.end - 4), seed: XXHash32.loroSeed)
        guard stored == actual else { throw .checksumMismatch(offset: b.end - 4, expected: stored, actual: actual) }
    }

    /// The key-value pairs of block `i`, checked (checksum, offsets, key order, last key).
    /// - Complexity: O(size of the block).
    func entries(ofBlock i: Int) throws(CRDTError) -> [(key: [UInt8], value: ByteReader)] {
        let b = blocks[i]
        try verifyChecksum(b)
        let stored_ = ByteReader(reader.bytes, from: b.offset, to: b.end - 4)
        let body = b.compressed ? ByteReader(try LZ4Frame.decompress(stored_)) : stored_
        if b.isLarge { return [(b.firstKey, body)] }
        // Offsets in the errors below count the decompressed body when it was compressed.
        guard body.remaining >= 4 else { throw CRDTError.malformedBytes(offset: body.offset, reason: "SSTable block \(i) is too short") }
        var tail = ByteReader(body.bytes, from: body.end - 2, to: body.end)
        let n = Int(try tail.u16le())
        let dataEnd = body.end - 2 - 2 * n
        guard n >= 1, dataEnd >= body.offset else { throw CRDTError.malformedBytes(offset: body.end - 2, reason: "SSTable block \(i) claims \(n) entries") }
        var offsets = ByteReader(body.bytes, from: dataEnd, to: body.end - 2)
        var starts: [Int] = []
        for _ in 0..<n { starts.append(body.offset + Int(try offsets.u16le())) }
        guard starts[0] == body.offset else { throw CRDTError.malformedBytes(offset: dataEnd, reason: "SSTable block \(i): first entry offset is not 0") }
        var out: [(key: [UInt8], value: ByteReader)] = []
        out.reserveCapacity(n)
        var previous: [UInt8] = []
        for k in 0..<n {
            let from = starts[k], to = k + 1 < n ? starts[k + 1] : dataEnd
            guard from <= to, to <= dataEnd else { throw CRDTError.malformedBytes(offset: dataEnd + 2 * k, reason: "SSTable block \(i): entry \(k) offsets out of order") }
            if k == 0 {
                out.append((b.firstKey, ByteReader(body.bytes, from: from, to: to)))
                previous = b.firstKey
                continue
            }
            var e = ByteReader(body.bytes, from: from, to: to)
            let prefix = Int(try e.u8())
            guard prefix <= b.firstKey.count else { throw CRDTError.malformedBytes(offset: from, reason: "SSTable block \(i): prefix of \(prefix) bytes") }
            let suffixLength = Int(try e.u16le())
            let suffix = try e.sub(suffixLength, "SSTable key suffix")
            let key = Array(b.firstKey[..<prefix]) + body.bytes[suffix.offset..<suffix.end]
            guard previous.lexicographicallyPrecedes(key) else { throw CRDTError.malformedBytes(offset: from, reason: "SSTable block \(i): keys out of order") }
            out.append((key, e.rest()))
            previous = key
        }
        guard previous == b.lastKey else { throw CRDTError.malformedBytes(offset: body.offset, reason: "SSTable block \(i): last key differs from the metadata") }
        return out
    }

    /// Every key-value pair, in key order.
    /// - Complexity: O(size of the store).
    func allEntries() throws(CRDTError) -> [(key: [UInt8], value: ByteReader)] {
        var out: [(key: [UInt8], value: ByteReader)] = []
        for i in blocks.indices { out += try entries(ofBlock: i) }
        return out
    }

    /// The index of the block that would hold `key`.
    /// - Complexity: O(log blocks).
    func block(holding key: [UInt8]) -> Int? {
        var lo = 0, hi = blocks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if blocks[mid].lastKey.lexicographicallyPrecedes(key) { lo = mid + 1 } else { hi = mid }
        }
        guard lo < blocks.count, !key.lexicographicallyPrecedes(blocks[lo].firstKey) else { return nil }
        return lo
    }

    /// The value of `key`, reading only its block.
    /// - Complexity: O(log blocks + size of the block).
    func value(_ key: [UInt8]) throws(CRDTError) -> ByteReader? {
        guard let i = block(holding: key) else { return nil }
        return try entries(ofBlock: i).first { $0.key == key }?.value
    }

    // MARK: writing

    /// An SSTable of `entries`, whose keys must be strictly increasing (no entries: zero bytes).
    /// - Complexity: O(total size).
    static func encode(_ entries: [(key: [UInt8], value: [UInt8])]) -> [UInt8] {
        guard !entries.isEmpty else { return [] }
        var w = ByteWriter()
        w.bytes.append(contentsOf: magic)
        w.u8(0)
        var metas: [(offset: Int, large: Bool, compressed: Bool, first: [UInt8], last: [UInt8])] = []
        func store(_ body: [UInt8], large: Bool, first: [UInt8], last: [UInt8]) {
            let frame = LZ4Frame.compress(body)
            let compressed = frame.count <= body.count
            let stored = compressed ? frame : body
            metas.append((w.bytes.count, large, compressed, first, last))
            w.bytes.append(contentsOf: stored)
            w.u32(XXHash32.hash(stored, 0..<stored.count, seed: XXHash32.loroSeed))
        }
        var i = 0
        while i < entries.count {
            let (first, value) = entries[i]
            if value.count > blockSize {
                store(value, large: true, first: first, last: first)
                i += 1
                continue
            }
            var data = value
            var offsets = [0]
            var last = first
            i += 1
            while i < entries.count {
                let (k, v) = entries[i]
                guard v.count <= blockSize, 2 + 2 * offsets.count + data.count + 4 + k.count + v.count + 3 <= blockSize else { break }
                var prefix = 0
                while prefix < min(first.count, k.count, 255), first[prefix] == k[prefix] { prefix += 1 }
                offsets.append(data.count)
                data.append(UInt8(prefix))
                let suffix = k[prefix...]
                data.append(UInt8(suffix.count & 0xFF)); data.append(UInt8(suffix.count >> 8))
                data.append(contentsOf: suffix)
                data.append(contentsOf: v)
                last = k
                i += 1
            }
            var body = ByteWriter()
            body.bytes = data
            for o in offsets { body.u16le(UInt16(o)) }
            body.u16le(UInt16(offsets.count))
            store(body.bytes, large: false, first: first, last: last)
        }
        let metaOffset = w.bytes.count
        w.u32(UInt32(metas.count))
        for m in metas {
            w.u32(UInt32(m.offset))
            w.u16le(UInt16(m.first.count)); w.bytes.append(contentsOf: m.first)
            w.u8((m.large ? 0x80 : 0) | (m.compressed ? 1 : 0))
            if !m.large { w.u16le(UInt16(m.last.count)); w.bytes.append(contentsOf: m.last) }
        }
        w.u32(XXHash32.hash(w.bytes, (metaOffset + 4)..<w.bytes.count, seed: XXHash32.loroSeed))
        w.u32(UInt32(metaOffset))
        return w.bytes
    }
}
