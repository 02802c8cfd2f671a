import CXXHash

// Loro's binary formats (loro-dev/loro `docs/encoding.md`, normative): the primitives every
// section uses. There is no single integer rule: fixed-width integers are little-endian except
// where noted, `uleb`/`sleb` are LEB128 (the `leb128` crate), and postcard signed integers are
// zigzag varints — `-1` is `7f` as sleb but `01` in postcard.

/// xxHash32 through Debian's libxxhash (the reference implementation).
enum XXHash32 {
    /// Loro's seed: `u32::from_le_bytes(*b"LORO")`.
    static let loroSeed: UInt32 = 0x4F52_4F4C

    /// The hash of `bytes[range]`.
    /// - Complexity: O(count).
    static func hash(_ bytes: [UInt8], _ range: Range<Int>, seed: UInt32) -> UInt32 {
        bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { return UInt32(XXH32(nil, 0, seed)) }
            return UInt32(XXH32(base + range.lowerBound, range.count, seed))
        }
    }
}

extension ByteWriter {
    /// Signed LEB128 with sign extension.
    @inline(__always) mutating func sleb(_ v: Int64) {
        var x = v
        while true {
            let byte = UInt8(truncatingIfNeeded: x & 0x7F)
            x >>= 7
            if (x == 0 && byte & 0x40 == 0) || (x == -1 && byte & 0x40 != 0) {
                bytes.append(byte)
                return
            }
            bytes.append(byte | 0x80)
        }
    }

    mutating func u16le(_ v: UInt16) { fixed(v, bigEndian: false) }
    mutating func u16be(_ v: UInt16) { fixed(v, bigEndian: true) }
    mutating func u64be(_ v: UInt64) { fixed(v, bigEndian: true) }
    mutating func u32be(_ v: UInt32) { fixed(v, bigEndian: true) }

    /// `uleb(count)` then the bytes (Loro's `bytes` fields and postcard byte strings alike).
    mutating func lengthPrefixed(_ b: [UInt8]) { uvarint(b.count); bytes.append(contentsOf: b) }

    /// Writes `u32le` at `offset` (a length or checksum patched in after the body).
    mutating func patchU32(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8((v >> (8 * UInt32(i))) & 0xFF) }
    }
}

extension ByteReader {
    /// Signed LEB128 (up to 64 bits).
    mutating func sleb() throws(CRDTError) -> Int64 {
        var result: Int64 = 0
        var shift: Int64 = 0
        while true {
            guard offset < end else { throw fail("unexpected end of data in a signed LEB128") }
            let b = bytes[offset]
            offset += 1
            if shift == 63 && b != 0 && b != 0x7F { throw fail("signed LEB128 overflows 64 bits") }
            result |= Int64(b & 0x7F) << shift
            shift += 7
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 { result |= -1 << shift }
                return result
            }
            if shift > 63 { throw fail("signed LEB128 too long") }
        }
    }

    /// A postcard `u32` (an unsigned varint that must fit 32 bits).
    mutating func postcardU32(_ what: String) throws(CRDTError) -> UInt32 {
        let at = offset
        let v = try uvarint()
        guard v <= UInt64(UInt32.max) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what) \(v) does not fit 32 bits") }
        return UInt32(v)
    }

    /// A postcard `i32` (zigzag).
    mutating func postcardI32(_ what: String) throws(CRDTError) -> Int32 {
        let at = offset
        let v = try zigzag()
        guard let x = Int32(exactly: v) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what) \(v) does not fit 32 bits") }
        return x
    }

    mutating func u16le() throws(CRDTError) -> UInt16 { try fixed(UInt16.self, bigEndian: false) }
    mutating func u16be() throws(CRDTError) -> UInt16 { try fixed(UInt16.self, bigEndian: true) }
    mutating func u64le() throws(CRDTError) -> UInt64 { try fixed(UInt64.self, bigEndian: false) }
    mutating func u64be() throws(CRDTError) -> UInt64 { try fixed(UInt64.self, bigEndian: true) }
    mutating func u32be() throws(CRDTError) -> UInt32 { try fixed(UInt32.self, bigEndian: true) }

    /// The next `n` bytes as a reader of their own (sharing the storage, offsets stay absolute).
    mutating func sub(_ n: Int, _ what: String) throws(CRDTError) -> ByteReader {
        guard n >= 0, n <= remaining else { throw fail("\(what) of \(n) bytes runs past the end (\(remaining) left)") }
        defer { offset += n }
        return ByteReader(bytes, from: offset, to: offset + n)
    }

    /// `uleb(length)` then that many bytes, as a reader of their own.
    mutating func lengthPrefixed(_ what: String) throws(CRDTError) -> ByteReader {
        let at = offset
        let n = try uvarint()
        guard n <= UInt64(remaining) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what) of \(n) bytes runs past the end (\(remaining) left)") }
        return try sub(Int(n), what)
    }

    /// The rest of the reader as a new reader; this one ends up at its end.
    mutating func rest() -> ByteReader {
        defer { offset = end }
        return ByteReader(bytes, from: offset, to: end)
    }

    /// The bytes `offset ..< end` copied out.
    var remainingBytes: [UInt8] { Array(bytes[offset..<end]) }

    /// Fails unless every byte was consumed.
    func expectEnd(_ what: String) throws(CRDTError) {
        guard isAtEnd else { throw fail("\(remaining) unexpected bytes after \(what)") }
    }

    /// A UTF-8 string of `n` bytes.
    mutating func utf8(_ n: Int, _ what: String) throws(CRDTError) -> String {
        guard n >= 0, n <= remaining else { throw fail("\(what) of \(n) bytes runs past the end") }
        let start = offset
        offset += n
        guard let s = String(checkingUTF8: bytes, start..<start + n) else {
            throw CRDTError.malformedBytes(offset: start, reason: "\(what) is not valid UTF-8")
        }
        return s
    }
}

/// The 22-byte envelope of every current Loro blob (encoding.md §2): magic `loro`, 12 bytes the
/// encoder writes as zero, `u32le` xxHash32 (Loro seed) of everything from byte 20, and the mode
/// as `u16be`.
enum LoroEnvelope {
    static let magic: [UInt8] = [0x6C, 0x6F, 0x72, 0x6F]
    static let headerSize = 22

    enum Mode: UInt16 {
        case fastSnapshot = 3
        case fastUpdates = 4
    }

    /// Whether `bytes` start with Loro's magic (a Loro blob rather than a Quire one).
    static func isLoro(_ bytes: [UInt8]) -> Bool { bytes.count >= 4 && Array(bytes[0..<4]) == magic }

    /// The blob for `body`.
    /// - Complexity: O(body).
    static func seal(_ mode: Mode, _ body: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.bytes.reserveCapacity(headerSize + body.count)
        w.bytes.append(contentsOf: magic)
        w.bytes.append(contentsOf: [UInt8](repeating: 0, count: 16))
        w.u16be(mode.rawValue)
        w.bytes.append(contentsOf: body)
        w.patchU32(XXHash32.hash(w.bytes, 20..<w.bytes.count, seed: XXHash32.loroSeed), at: 16)
        return w.bytes
    }

    /// Checks magic, checksum and mode and returns the mode and a reader over the body.
    /// - Complexity: O(n) for the checksum.
    static func open(_ bytes: [UInt8]) throws(CRDTError) -> (Mode, ByteReader) {
        guard bytes.count >= headerSize else { throw .malformedBytes(offset: bytes.count, reason: "a Loro blob needs a 22-byte header, got \(bytes.count) bytes") }
        guard isLoro(bytes) else { throw .malformedBytes(offset: 0, reason: "not a Loro blob (magic is not \"loro\")") }
        var r = ByteReader(bytes, from: 16)
        let stored = try r.u32()
        let actual = XXHash32.hash(bytes, 20..<bytes.count, seed: XXHash32.loroSeed)
        guard stored == actual else { throw .checksumMismatch(offset: 16, expected: stored, actual: actual) }
        let raw = try r.u16be()
        guard let mode = Mode(rawValue: raw) else {
            throw .malformedBytes(offset: 20, reason: "unsupported Loro encode mode \(raw) (this build reads 3, FastSnapshot, and 4, FastUpdates)")
        }
        return (mode, ByteReader(bytes, from: headerSize))
    }
}
