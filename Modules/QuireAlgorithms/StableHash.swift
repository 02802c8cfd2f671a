/// FNV-1a, 64 bits: a hash that is the same in every process and on every machine, for values
/// that peers must agree on (Swift's `Hasher` is seeded per process). Not for security.
public struct StableHash: Sendable {
    /// The hash of what has been combined so far.
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    /// An empty hash.
    public init() {}

    /// Mixes `bytes` in.
    /// - Complexity: O(bytes).
    public mutating func combine<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0100_0000_01B3
        }
    }

    /// The hash of `bytes`.
    /// - Complexity: O(bytes).
    public static func of<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = StableHash()
        hash.combine(bytes)
        return hash.value
    }
}
