/// Appends primitive values in the compact binary format.
struct ByteWriter {
    var bytes: [UInt8] = []

    @inline(__always) mutating func u8(_ v: UInt8) { bytes.append(v) }

    @inline(__always) mutating func uvarint(_ v: UInt64) {
        var x = v
        while x >= 0x80 { bytes.append(UInt8(x & 0x7F) | 0x80); x >>= 7 }
        bytes.append(UInt8(x))
    }

    @inline(__always) mutating func uvarint(_ v: Int) { uvarint(UInt64(v)) }
    @inline(__always) mutating func uvarint(_ v: Int32) { uvarint(UInt64(UInt32(bitPattern: v))) }

    @inline(__always) mutating func zigzag(_ v: Int64) { uvarint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { buf in uvarint(buf.count); bytes.append(contentsOf: buf) }
    }

    mutating func data(_ d: [UInt8]) { uvarint(d.count); bytes.append(contentsOf: d) }

    mutating func u32(_ v: UInt32) { fixed(v, bigEndian: false) }
    mutating func u64(_ v: UInt64) { fixed(v, bigEndian: false) }

    /// A fixed-width unsigned integer, little- or big-endian.
    @inline(__always) mutating func fixed<T: FixedWidthInteger & UnsignedInteger>(_ v: T, bigEndian: Bool) {
        let n = T.bitWidth / 8
        for i in 0..<n { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * (bigEndian ? n - 1 - i : i)))) }
    }
}

/// Reads the compact binary format; every read is bounds-checked and failures name the offset.
/// Values numbered in order of first use: the peer, key and container tables of Loro's
/// encodings.
struct Interner<Value: Hashable> {
    private(set) var values: [Value] = []
    private(set) var index: [Value: Int] = [:]

    /// The number of `value`, which is registered if it is new.
    /// - Complexity: O(1) expected.
    mutating func callAsFunction(_ value: Value) -> Int {
        if let i = index[value] { return i }
        index[value] = values.count
        values.append(value)
        return values.count - 1
    }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from: Int = 0, to: Int? = nil) {
        self.bytes = bytes
        offset = from
        end = to ?? bytes.count
    }

    var isAtEnd: Bool { offset >= end }
    var remaining: Int { end - offset }

    func fail(_ reason: String) -> CRDTError { .malformedBytes(offset: offset, reason: reason) }

    @inline(__always) mutating func u8() throws(CRDTError) -> UInt8 {
        guard offset < end else { throw fail("unexpected end of data") }
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always) mutating func uvarint() throws(CRDTError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw fail("unexpected end of data in a varint") }
            let b = bytes[offset]
            offset += 1
            if shift == 63 && b > 1 { throw fail("varint overflows 64 bits") }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift > 63 { throw fail("varint too long") }
        }
    }

    /// A non-negative integer no larger than `limit`.
    @inline(__always) mutating func int(max limit: Int, _ what: String) throws(CRDTError) -> Int {
        let start = offset
        let v = try uvarint()
        // A negative limit (an index into an empty table) admits nothing.
        guard limit >= 0, v <= UInt64(limit) else { throw CRDTError.malformedBytes(offset: start, reason: "\(what) \(v) exceeds \(limit)") }
        return Int(v)
    }

    /// A count of items that each take at least `minBytes` bytes, checked against what remains
    /// after the count itself.
    @inline(__always) mutating func count(_ what: String, minBytes: Int = 1) throws(CRDTError) -> Int {
        let start = offset
        let v = try uvarint()
        let limit = remaining / max(1, minBytes)
        // A negative limit (an index into an empty table) admits nothing.
        guard limit >= 0, v <= UInt64(limit) else { throw CRDTError.malformedBytes(offset: start, reason: "\(what) \(v) exceeds \(limit)") }
        return Int(v)
    }

    @inline(__always) mutating func counter(_ what: String) throws(CRDTError) -> OpCounter {
        OpCounter(try int(max: Int(Int32.max), what))
    }

    @inline(__always) mutating func zigzag() throws(CRDTError) -> Int64 {
        let u = try uvarint()
        return Int64(bitPattern: (u >> 1)) ^ -Int64(bitPattern: u & 1)
    }

    mutating func string() throws(CRDTError) -> String {
        try stringAndScalarCount().string
    }

    /// A length-prefixed UTF-8 string and the number of its scalars, counted while it is checked
    /// (a text insert's length, which would otherwise take another pass over the text).
    mutating func stringAndScalarCount() throws(CRDTError) -> (string: String, scalars: Int) {
        let n = try count("string length")
        let start = offset
        offset += n
        guard let checked = String.checkingUTF8(bytes, start..<start + n) else {
            throw CRDTError.malformedBytes(offset: start, reason: "invalid UTF-8")
        }
        return checked
    }

    /// A length-prefixed UTF-8 string decoded straight into scalars (validated, one pass).
    mutating func scalars() throws(CRDTError) -> [Unicode.Scalar] {
        let n = try count("string length")
        let start = offset
        offset += n
        // ASCII (most text) is widened in one pass over the bytes in place; the generic decoder
        // below costs several times as much per byte.
        let ascii: [Unicode.Scalar]? = bytes.withUnsafeBufferPointer { whole in
            let part = UnsafeBufferPointer(rebasing: whole[start..<start + n])
            guard part.isASCII else { return nil }
            return [Unicode.Scalar].written(count: n) { out in for i in 0..<n { out.initializeElement(at: i, to: Unicode.Scalar(part[i])) } }
        }
        if let ascii { return ascii }
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(n)
        var iterator = bytes[start..<start + n].makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): out.append(s)
            case .emptyInput: return out
            case .error: throw CRDTError.malformedBytes(offset: start, reason: "invalid UTF-8")
            }
        }
    }

    mutating func data() throws(CRDTError) -> [UInt8] {
        let n = try count("byte string length")
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    mutating func u32() throws(CRDTError) -> UInt32 { try fixed(UInt32.self, bigEndian: false) }

    /// A fixed-width unsigned integer, little- or big-endian.
    @inline(__always) mutating func fixed<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, bigEndian: Bool) throws(CRDTError) -> T {
        let n = T.bitWidth / 8
        guard remaining >= n else { throw fail("unexpected end of data in a u\(T.bitWidth)") }
        var v: T = 0
        for i in 0..<n { v |= T(bytes[offset + i]) << (8 * (bigEndian ? n - 1 - i : i)) }
        offset += n
        return v
    }
}

/// CRC-32 (IEEE 802.3, the zlib polynomial), slicing-by-8.
enum CRC32 {
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 { t[k * 256 + i] = (t[(k - 1) * 256 + i] >> 8) ^ t[Int(t[(k - 1) * 256 + i] & 0xFF)] }
        }
        return t
    }()

    /// - Complexity: O(n).
    static func checksum(_ bytes: [UInt8], count: Int) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        bytes.withUnsafeBufferPointer { buf in
            tables.withUnsafeBufferPointer { t in
                var i = 0
                while i + 8 <= count {
                    let lo = c ^ (UInt32(buf[i]) | UInt32(buf[i + 1]) << 8 | UInt32(buf[i + 2]) << 16 | UInt32(buf[i + 3]) << 24)
                    let hi = UInt32(buf[i + 4]) | UInt32(buf[i + 5]) << 8 | UInt32(buf[i + 6]) << 16 | UInt32(buf[i + 7]) << 24
                    c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)] ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                        ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)] ^ t[256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                    i += 8
                }
                while i < count { c = t[Int((c ^ UInt32(buf[i])) & 0xFF)] ^ (c >> 8); i += 1 }
            }
        }
        return c ^ 0xFFFF_FFFF
    }
}

/// A small LZ77 block codec in the style of LZ4 (literal runs and back-references of at least
/// four bytes, offsets up to 65,535), used for large update and snapshot bodies.
enum LZ {
    /// - Complexity: O(n).
    static func compress(_ src: [UInt8]) -> [UInt8] {
        let n = src.count
        var out: [UInt8] = []
        out.reserveCapacity(n / 2 + 16)
        var table = [Int32](repeating: -1, count: 1 << 15)
        var anchor = 0
        var i = 0
        src.withUnsafeBufferPointer { s in
            @inline(__always) func read32(_ p: Int) -> UInt32 {
                UInt32(s[p]) | UInt32(s[p + 1]) << 8 | UInt32(s[p + 2]) << 16 | UInt32(s[p + 3]) << 24
            }
            @inline(__always) func length(_ v: Int, into out: inout [UInt8]) {
                var rest = v
                while rest >= 255 { out.append(255); rest -= 255 }
                out.append(UInt8(rest))
            }
            while i + 4 <= n {
                let word = read32(i)
                let h = Int((word &* 2_654_435_761) >> 17)
                let candidate = Int(table[h])
                table[h] = Int32(i)
                guard candidate >= 0, i - candidate <= 65_535, read32(candidate) == word else { i += 1; continue }
                var match = 4
                while i + match < n && s[candidate + match] == s[i + match] { match += 1 }
                let literals = i - anchor
                let ml = match - 4
                out.append(UInt8(min(literals, 15) << 4 | min(ml, 15)))
                if literals >= 15 { length(literals - 15, into: &out) }
                out.append(contentsOf: s[anchor..<i])
                let offset = i - candidate
                out.append(UInt8(offset & 0xFF))
                out.append(UInt8(offset >> 8))
                if ml >= 15 { length(ml - 15, into: &out) }
                i += match
                anchor = i
            }
            let literals = n - anchor
            out.append(UInt8(min(literals, 15) << 4))
            if literals >= 15 { length(literals - 15, into: &out) }
            out.append(contentsOf: s[anchor..<n])
        }
        return out
    }

    /// Decompresses exactly `count` bytes; malformed input throws (offsets are into `src`).
    /// - Complexity: O(count).
    static func decompress(_ src: ArraySlice<UInt8>, count: Int) throws(CRDTError) -> [UInt8] {
        let base = src.startIndex
        // Decoded through raw buffers in one pass: a buffer access per literal run or match (and
        // a byte-by-byte match copy) cost as much as the rest of the decoder.
        let result: Result<[UInt8], CRDTError> = src.withUnsafeBufferPointer { s in
            let end = s.count
            var ip = 0
            var op = 0
            func fail(_ why: String) -> CRDTError { .malformedBytes(offset: base + ip, reason: "compressed body: \(why)") }
            /// A 4-bit length; 15 continues in bytes of 255 until a smaller byte.
            func extendedLength(_ nibble: UInt8, _ what: String) throws(CRDTError) -> Int {
                var n = Int(nibble)
                guard n == 15 else { return n }
                while true {
                    guard ip < end else { throw fail("truncated \(what) length") }
                    let b = s[ip]
                    ip += 1
                    n += Int(b)
                    if b != 255 { return n }
                }
            }
            var failure: CRDTError?
            let out = [UInt8](unsafeUninitializedCapacity: count) { o, initialized in
                func decode() throws(CRDTError) {
                    while ip < end {
                        let token = s[ip]
                        ip += 1
                        let literals = try extendedLength(token >> 4, "literal")
                        guard literals <= end - ip, literals <= count - op else { throw fail("literal run too long") }
                        if literals > 0 {
                            (o.baseAddress! + op).initialize(from: s.baseAddress! + ip, count: literals)
                        }
                        ip += literals
                        op += literals
                        if ip == end { break }
                        guard end - ip >= 2 else { throw fail("truncated offset") }
                        let offset = Int(s[ip]) | Int(s[ip + 1]) << 8
                        ip += 2
                        guard offset > 0, offset <= op else { throw fail("offset \(offset) outside the output") }
                        let match = try extendedLength(token & 15, "match") + 4
                        guard match <= count - op else { throw fail("match runs past the declared size") }
                        if offset >= match {
                            (o.baseAddress! + op).initialize(from: o.baseAddress! + op - offset, count: match)
                        } else {
                            // Overlapping: the match repeats the last `offset` bytes, byte by byte.
                            for k in 0..<match { (o.baseAddress! + op + k).initialize(to: o[op - offset + k]) }
                        }
                        op += match
                    }
                    guard op == count else { throw fail("decoded \(op) bytes, expected \(count)") }
                }
                do throws(CRDTError) { try decode() } catch { failure = error }
                initialized = op
            }
            if let failure { return .failure(failure) }
            return .success(out)
        }
        return try result.get()
    }
}

extension String {
    /// The text of `bytes[range]`, or nil when those bytes are not valid UTF-8.
    ///
    /// `String(validating:as:)` is generic and, unspecialized, costs about 25 instructions a byte;
    /// the binary formats decode a string per text insert, so this takes the standard library's
    /// specialized UTF-8 path instead: `String(decoding:)` validates fast and repairs, and its
    /// result is always valid UTF-8, so the input was valid exactly when the result has the same
    /// bytes (compared only when some byte is not ASCII).
    /// - Complexity: O(range.count).
    init?(checkingUTF8 bytes: [UInt8], _ range: Range<Int>) {
        guard let checked = String.checkingUTF8(bytes, range) else { return nil }
        self = checked.string
    }

    /// As ``init(checkingUTF8:_:)``, with the number of scalars of the text (its bytes that do
    /// not continue a scalar; all of them for ASCII).
    /// - Complexity: O(range.count).
    static func checkingUTF8(_ bytes: [UInt8], _ range: Range<Int>) -> (string: String, scalars: Int)? {
        bytes.withUnsafeBufferPointer { whole in
            let part = UnsafeBufferPointer(rebasing: whole[range])
            var s = String(decoding: part, as: UTF8.self)
            if part.isASCII { return (s, part.count) }
            guard s.withUTF8({ $0.elementsEqual(part) }) else { return nil }
            var scalars = 0
            for b in part where b & 0xC0 != 0x80 { scalars += 1 }
            return (s, scalars)
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether every byte is ASCII, tested eight bytes at a time (texts are checked and counted
    /// at every insert the binary formats decode).
    /// - Complexity: O(count).
    var isASCII: Bool {
        guard let base = baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < count {
            if base[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }
}

extension Array where Element: BitwiseCopyable {
    /// An array of `count` elements that `body` initializes, every one of them (or throws),
    /// written in temporary storage and copied once. The copy allocates through code
    /// specialized for `Element`; `init(unsafeUninitializedCapacity:)`, `init(repeating:count:)`
    /// and `reserveCapacity` reach the standard library's unspecialized allocator, whose
    /// generic metadata lookup costs about 300 instructions per array (an op decoded).
    /// - Complexity: O(count).
    @inline(__always)
    static func written<E: Error>(count: Int, _ body: (UnsafeMutableBufferPointer<Element>) throws(E) -> Void) throws(E) -> [Element] {
        try withUnsafeTemporaryAllocation(of: Element.self, capacity: count) { (buffer) throws(E) -> [Element] in
            try body(buffer)
            return Array(UnsafeBufferPointer(buffer))
        }
    }
}
