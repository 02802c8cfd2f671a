// serde_columnar 0.3.14 as Loro uses it (encoding.md §8): an outer struct is `pvar(field count)`
// then its fields; a `class = "vec"` field is `pvar(column count)` then each column as
// `uleb(length) + payload`. A strategy payload infers its row count by consuming its bytes; inside
// a change-block header the streams follow each other and are read by count instead.

/// How one element of an AnyRle stream is spelled.
enum ColumnElement {
    /// A raw byte (postcard `u8`).
    case byte
    /// An unsigned varint (postcard `u32`, `u64`, `usize`).
    case unsigned
    /// A zigzag varint (postcard `i32`, `i64`, `isize`, `i128`).
    case signed
}

enum Columnar {
    // MARK: writing

    /// AnyRle: runs of equal values as `zigzag(+k) value`, other stretches as `zigzag(-k) values…`.
    /// - Complexity: O(n).
    static func anyRle(_ values: [Int64], _ element: ColumnElement, into w: inout ByteWriter) {
        func put(_ v: Int64) {
            switch element {
            case .byte: w.u8(UInt8(truncatingIfNeeded: v))
            case .unsigned: w.uvarint(UInt64(bitPattern: v))
            case .signed: w.zigzag(v)
            }
        }
        var i = 0
        let n = values.count
        while i < n {
            var j = i + 1
            while j < n, values[j] == values[i] { j += 1 }
            if j - i >= 2 {
                w.zigzag(Int64(j - i))
                put(values[i])
                i = j
                continue
            }
            // A literal stretch up to the next run of two or more.
            var k = i + 1
            while k < n, !(k + 1 < n && values[k + 1] == values[k]) { k += 1 }
            w.zigzag(-Int64(k - i))
            for x in values[i..<k] { put(x) }
            i = k
        }
    }

    /// Each column DeltaRle-encoded on its own, for ``vector(_:into:)``.
    /// - Complexity: O(total values).
    static func deltaRle(columns: [[Int64]]) -> [[UInt8]] {
        columns.map { v in var c = ByteWriter(); deltaRle(v, into: &c); return c.bytes }
    }

    /// DeltaRle: the differences from the previous value (the first from 0), as AnyRle of i128.
    /// - Complexity: O(n).
    static func deltaRle(_ values: [Int64], into w: inout ByteWriter) {
        var deltas: [Int64] = []
        deltas.reserveCapacity(values.count)
        var previous: Int64 = 0
        for v in values { deltas.append(v &- previous); previous = v }
        anyRle(deltas, .signed, into: &w)
    }

    /// BoolRle: alternating run lengths, starting with a (possibly empty) run of false.
    /// - Complexity: O(n).
    static func boolRle(_ values: [Bool], into w: inout ByteWriter) {
        guard !values.isEmpty else { return }
        var state = false
        var run: UInt64 = 0
        for v in values {
            if v == state { run += 1 } else { w.uvarint(run); state = v; run = 1 }
        }
        w.uvarint(run)
    }

    /// DeltaOfDelta: `Option<i64>` first value, the number of valid bits in the last byte, and an
    /// MSB-first bitstream of delta-of-deltas with prefix codes.
    /// - Complexity: O(n).
    static func deltaOfDelta(_ values: [Int64], into w: inout ByteWriter) {
        guard let first = values.first else { w.u8(0); w.u8(0); return }
        w.u8(1)
        w.zigzag(first)
        var bits = BitWriter()
        var previousDelta: Int64 = 0
        for i in values.indices.dropFirst() {
            let delta = values[i] &- values[i - 1]
            let dod = delta &- previousDelta
            previousDelta = delta
            if dod == 0 {
                bits.write(0, count: 1)
            } else if dod >= -63, dod <= 64 {
                bits.write(0b10, count: 2); bits.write(UInt64(dod + 63), count: 7)
            } else if dod >= -255, dod <= 256 {
                bits.write(0b110, count: 3); bits.write(UInt64(dod + 255), count: 9)
            } else if dod >= -2047, dod <= 2048 {
                bits.write(0b1110, count: 4); bits.write(UInt64(dod + 2047), count: 12)
            } else if dod >= -1_048_575, dod <= 1_048_576 {
                bits.write(0b11110, count: 5); bits.write(UInt64(dod + 1_048_575), count: 21)
            } else {
                bits.write(0b11111, count: 5); bits.write(UInt64(bitPattern: dod), count: 64)
            }
        }
        let (bytes, lastBits) = bits.finish()
        w.u8(lastBits)
        w.bytes.append(contentsOf: bytes)
    }

    /// A class-vector field: the column count then each column, length-prefixed.
    static func vector(_ columns: [[UInt8]], into w: inout ByteWriter) {
        w.uvarint(columns.count)
        for c in columns { w.lengthPrefixed(c) }
    }

    // MARK: reading

    @inline(__always) static func element(_ r: inout ByteReader, _ e: ColumnElement) throws(CRDTError) -> Int64 {
        switch e {
        case .byte: return Int64(try r.u8())
        case .unsigned:
            let at = r.offset
            let v = try r.uvarint()
            guard v <= UInt64(Int64.max) else { throw CRDTError.malformedBytes(offset: at, reason: "column value \(v) is out of range") }
            return Int64(v)
        case .signed: return try r.zigzag()
        }
    }

    /// Reads an AnyRle stream: `count` values (nil: until the reader ends).
    /// - Complexity: O(n); a claimed run longer than the limit throws before allocating.
    static func anyRle(_ r: inout ByteReader, _ e: ColumnElement, count: Int? = nil, _ what: String) throws(CRDTError) -> [Int64] {
        var out: [Int64] = []
        // Every literal takes a byte at least, so the bytes bound the rows but for long runs.
        out.reserveCapacity(min(count ?? r.remaining, r.remaining))
        // A run of one value can be long, but no column has more rows than this blob's limit.
        let limit = count ?? maxRows
        let untilEnd = count == nil
        while untilEnd ? !r.isAtEnd : out.count < limit {
            let at = r.offset
            guard !r.isAtEnd else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): \(out.count) of \(count ?? 0) values") }
            let k = try r.zigzag()
            guard k != 0 else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): a run of length 0") }
            guard k.magnitude <= UInt64(limit - out.count) else {
                throw CRDTError.malformedBytes(offset: at, reason: "\(what): a run of \(k.magnitude) values exceeds the \(limit - out.count) expected")
            }
            // Appended one by one: most runs are short, and the generic `append(contentsOf:)` of
            // a repeated value costs more than a short loop.
            if k > 0 {
                let v = try element(&r, e)
                for _ in 0..<Int(k) { out.append(v) }
            } else {
                for _ in 0..<Int(-k) { out.append(try element(&r, e)) }
            }
        }
        return out
    }

    /// The most rows a column without a count may claim (run lengths are checked against it).
    static let maxRows = 1 << 28

    /// Reads a DeltaRle stream of values in `range`.
    /// - Complexity: O(n).
    static func deltaRle(_ r: inout ByteReader, count: Int? = nil, range: ClosedRange<Int64>, _ what: String) throws(CRDTError) -> [Int64] {
        let at = r.offset
        var values = try anyRle(&r, .signed, count: count, what)
        var sum: Int64 = 0
        for i in values.indices {
            let (s, overflow) = sum.addingReportingOverflow(values[i])
            guard !overflow, range.contains(s) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): value \(overflow ? "overflow" : String(s)) out of range") }
            sum = s
            values[i] = s
        }
        return values
    }

    /// Reads a BoolRle stream of `count` values (nil: until the reader ends).
    /// - Complexity: O(n).
    static func boolRle(_ r: inout ByteReader, count: Int? = nil, _ what: String) throws(CRDTError) -> [Bool] {
        var out: [Bool] = []
        var state = false
        let limit = count ?? maxRows
        while count.map({ out.count < $0 }) ?? !r.isAtEnd {
            let at = r.offset
            guard !r.isAtEnd else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): \(out.count) of \(count ?? 0) values") }
            let k = try r.uvarint()
            guard k <= UInt64(limit - out.count) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): a run of \(k) values exceeds the \(limit - out.count) expected") }
            out.append(contentsOf: repeatElement(state, count: Int(k)))
            state.toggle()
        }
        return out
    }

    /// Reads a DeltaOfDelta stream: `count` values and only the bytes they use (inside a header),
    /// or (count nil) every value the reader holds, checking the final byte's bit count.
    /// - Complexity: O(n).
    static func deltaOfDelta(_ r: inout ByteReader, count: Int? = nil, _ what: String) throws(CRDTError) -> [Int64] {
        let at = r.offset
        let tag = try r.uvarint()
        guard tag <= 1 else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): bad Option tag \(tag)") }
        let first: Int64? = tag == 1 ? try r.zigzag() : nil
        let bitsAt = r.offset
        let lastBits = Int(try r.u8())
        guard lastBits <= 8 else { throw CRDTError.malformedBytes(offset: bitsAt, reason: "\(what): \(lastBits) bits in the last byte") }
        guard let first else {
            guard count ?? 0 == 0, lastBits == 0 else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): no values where \(count ?? 0) were expected") }
            if count == nil { try r.expectEnd(what) }
            return []
        }
        guard count != 0 else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): values where none were expected") }
        let byteCount = r.remaining
        // Inside a header the stream is followed by others: its true length is not known, so
        // every remaining bit is readable and reading stops after `count` values.
        let totalBits: Int
        if count == nil {
            guard (byteCount == 0) == (lastBits == 0) else {
                throw CRDTError.malformedBytes(offset: bitsAt, reason: "\(what): \(lastBits) bits in the last of \(byteCount) bytes")
            }
            totalBits = byteCount == 0 ? 0 : (byteCount - 1) * 8 + lastBits
        } else {
            totalBits = byteCount * 8
        }
        var bits = BitReader(reader: r, total: totalBits)
        var out: [Int64] = [first]
        var value = first
        var delta: Int64 = 0
        let limit = count ?? maxRows
        while out.count < limit {
            if count == nil, bits.remaining == 0 { break }
            let dod: Int64
            if try bits.read(1, what) == 0 {
                dod = 0
            } else if try bits.read(1, what) == 0 {
                dod = Int64(try bits.read(7, what)) - 63
            } else if try bits.read(1, what) == 0 {
                dod = Int64(try bits.read(9, what)) - 255
            } else if try bits.read(1, what) == 0 {
                dod = Int64(try bits.read(12, what)) - 2047
            } else if try bits.read(1, what) == 0 {
                dod = Int64(try bits.read(21, what)) - 1_048_575
            } else {
                dod = Int64(bitPattern: try bits.read(64, what))
            }
            delta = delta &+ dod
            value = value &+ delta
            out.append(value)
        }
        r.offset = bits.byteOffsetAfter
        if count == nil { r.offset = r.end }
        return out
    }

    /// Reads a class-vector field: the column count (which must be `expected`) and each column.
    static func vector(_ r: inout ByteReader, columns expected: Int, _ what: String) throws(CRDTError) -> [ByteReader] {
        let at = r.offset
        let n = try r.uvarint()
        guard n == UInt64(expected) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): \(n) columns, expected \(expected)") }
        var out: [ByteReader] = []
        for i in 0..<expected { out.append(try r.lengthPrefixed("\(what) column \(i)")) }
        return out
    }

    /// Reads an outer struct's field count, which must be `expected`.
    static func fields(_ r: inout ByteReader, _ expected: Int, _ what: String) throws(CRDTError) {
        let at = r.offset
        let n = try r.uvarint()
        guard n == UInt64(expected) else { throw CRDTError.malformedBytes(offset: at, reason: "\(what): \(n) fields, expected \(expected)") }
    }
}

/// MSB-first bit packing for DeltaOfDelta.
struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt8 = 0
    private var used = 0

    mutating func write(_ value: UInt64, count: Int) {
        var i = count - 1
        while i >= 0 {
            current = current << 1 | UInt8((value >> UInt64(i)) & 1)
            used += 1
            if used == 8 { bytes.append(current); current = 0; used = 0 }
            i -= 1
        }
    }

    /// The bytes and the number of valid bits in the last one (8 when it is full, 0 when empty).
    func finish() -> ([UInt8], UInt8) {
        if used == 0 { return (bytes, bytes.isEmpty ? 0 : 8) }
        return (bytes + [current << UInt8(8 - used)], UInt8(used))
    }
}

/// Reads bits MSB-first from a byte reader's remaining bytes.
struct BitReader {
    let reader: ByteReader
    let total: Int
    private var position = 0

    init(reader: ByteReader, total: Int) {
        self.reader = reader
        self.total = total
    }

    var remaining: Int { total - position }

    /// The offset of the first byte not touched by the bits read.
    var byteOffsetAfter: Int { reader.offset + (position + 7) / 8 }

    mutating func read(_ n: Int, _ what: String) throws(CRDTError) -> UInt64 {
        guard n <= remaining else {
            throw CRDTError.malformedBytes(offset: reader.offset + position / 8, reason: "\(what): the bitstream ends inside a value")
        }
        var v: UInt64 = 0
        for _ in 0..<n {
            let byte = reader.bytes[reader.offset + position / 8]
            v = v << 1 | UInt64((byte >> UInt8(7 - position % 8)) & 1)
            position += 1
        }
        return v
    }
}
