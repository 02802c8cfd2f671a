/// What was wrong with bytes received over the sync protocol, and where.
public enum SyncProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes do not form a message: the byte offset where reading failed and why.
    case malformed(offset: Int, reason: String)
    /// A message, reassembled update or field is larger than the limit in force.
    case tooLarge(what: String, size: Int, limit: Int)
    /// The 4-byte prefix names no CRDT type of the protocol.
    case unknownCRDTType([UInt8])
    /// A version the document codec cannot read.
    case badVersion(offset: Int, reason: String)
    /// The document (or ephemeral store) refused an update.
    case rejectedUpdate(String)

    public var description: String {
        switch self {
        case let .malformed(offset, reason): return "malformed message at byte \(offset): \(reason)"
        case let .tooLarge(what, size, limit): return "\(what) of \(size) bytes exceeds the limit of \(limit) bytes"
        case let .unknownCRDTType(bytes): return "unknown CRDT type prefix \(bytes.map { String($0, radix: 16) })"
        case let .badVersion(offset, reason): return "unreadable version at byte \(offset): \(reason)"
        case let .rejectedUpdate(reason): return "update refused: \(reason)"
        }
    }
}

/// Appends the protocol's primitives: bytes, LEB128 unsigned integers, `varBytes`, `varString`.
public struct WireWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func byte(_ b: UInt8) { bytes.append(b) }
    public mutating func raw<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }

    /// - Complexity: O(1) (at most 10 bytes).
    public mutating func uleb(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Zigzag then LEB128, as postcard writes signed integers.
    public mutating func zigzag(_ value: Int64) { uleb(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    public mutating func varBytes<C: Collection>(_ data: C) where C.Element == UInt8 {
        uleb(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    public mutating func varString(_ s: String) { varBytes(Array(s.utf8)) }
}

/// Reads the protocol's primitives from a byte array; every failure names the byte offset.
public struct WireReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    func fail(_ reason: String) -> SyncProtocolError { .malformed(offset: offset, reason: reason) }

    public mutating func byte(_ what: String) throws(SyncProtocolError) -> UInt8 {
        guard offset < bytes.count else { throw fail("truncated: expected \(what)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func raw(_ count: Int, _ what: String) throws(SyncProtocolError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw fail("truncated: \(what) needs \(count) bytes, \(remaining) left") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// - Complexity: O(1) (at most 10 bytes).
    public mutating func uleb(_ what: String) throws(SyncProtocolError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = offset
        while true {
            guard offset < bytes.count else { throw fail("truncated: \(what)") }
            let b = bytes[offset]
            offset += 1
            if shift == 63, b > 1 { offset = start; throw fail("\(what) overflows 64 bits") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { offset = start; throw fail("\(what) overflows 64 bits") }
        }
    }

    public mutating func zigzag(_ what: String) throws(SyncProtocolError) -> Int64 {
        let u = try uleb(what)
        return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
    }

    /// A length that must fit in what is left of the input, so a hostile length never allocates.
    public mutating func length(_ what: String) throws(SyncProtocolError) -> Int {
        let start = offset
        let n = try uleb(what)
        guard n <= UInt64(remaining) else {
            offset = start
            throw fail("\(what) of \(n) bytes, only \(remaining) left")
        }
        return Int(n)
    }

    public mutating func varBytes(_ what: String) throws(SyncProtocolError) -> [UInt8] {
        let n = try length("length of \(what)")
        return try raw(n, what)
    }

    public mutating func varString(_ what: String) throws(SyncProtocolError) -> String {
        let start = offset
        let data = try varBytes(what)
        guard let s = String(validating: data, as: UTF8.self) else {
            offset = start
            throw fail("\(what) is not valid UTF-8")
        }
        return s
    }
}
