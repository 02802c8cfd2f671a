/// SplitMix64: a small, fast, seedable random number generator, so that every randomized test,
/// benchmark and treap shape (ours and an app team's) is reproducible from its seed.
///
/// The one generator of the project: the text storage's and the position index's treap
/// priorities, the randomized tests and the benchmarks all draw from it.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    // Visible to inlined code so that `next()` inlines into the treaps' priority draws.
    @usableFromInline var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    ///
    /// - Complexity: O(1).
    @inlinable
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
