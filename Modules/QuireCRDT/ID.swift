/// A peer's identifier, a random 64-bit number as in Loro.
public typealias PeerID = UInt64
/// A per-peer operation counter; the n-th atomic operation of a peer has counter n - 1.
public typealias OpCounter = Int32
/// A Lamport timestamp.
public typealias Lamport = UInt32

/// The identifier of one atomic operation: the peer that made it and that peer's counter.
public struct OpID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The peer that created the operation.
    public var peer: PeerID
    /// The operation's counter within the peer.
    public var counter: OpCounter

    /// Creates an ID.
    public init(peer: PeerID, counter: OpCounter) {
        self.peer = peer
        self.counter = counter
    }

    /// The ID `n` atoms later in the same peer.
    /// - Complexity: O(1).
    @inline(__always)
    public func advanced(by n: Int32) -> OpID { OpID(peer: peer, counter: counter &+ n) }

    /// Orders by peer, then counter (a total order used for deterministic output only).
    /// - Complexity: O(1).
    public static func < (a: OpID, b: OpID) -> Bool {
        a.peer != b.peer ? a.peer < b.peer : a.counter < b.counter
    }

    /// Loro's textual form `counter@peer`.
    public var description: String { "\(counter)@\(peer)" }
}

/// A contiguous range of counters of one peer, `start ..< end`.
public struct IDSpan: Hashable, Sendable {
    /// The peer.
    public var peer: PeerID
    /// The first counter.
    public var start: OpCounter
    /// One past the last counter.
    public var end: OpCounter

    /// The number of atoms in the span.
    public var count: Int { Int(end - start) }

    /// Whether `id` lies in the span.
    /// - Complexity: O(1).
    public func contains(_ id: OpID) -> Bool { id.peer == peer && id.counter >= start && id.counter < end }
}

/// A version vector: for each peer, one past the last counter known (Loro's convention).
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// The end counter per peer.
    public private(set) var ends: [PeerID: OpCounter]

    /// The empty version.
    public init() { ends = [:] }

    /// Creates a version from explicit end counters.
    public init(_ ends: [PeerID: OpCounter]) { self.ends = ends.filter { $0.value > 0 } }

    /// The end counter of `peer` (0 when unknown).
    /// - Complexity: O(1) expected.
    @inline(__always)
    public subscript(peer: PeerID) -> OpCounter { ends[peer] ?? 0 }

    /// Whether the operation `id` is included.
    /// - Complexity: O(1) expected.
    @inline(__always)
    public func includes(_ id: OpID) -> Bool { id.counter < self[id.peer] }

    /// Raises the end of `peer` to at least `end`.
    /// - Complexity: O(1) expected.
    @inline(__always)
    public mutating func extend(peer: PeerID, to end: OpCounter) {
        if let i = ends.index(forKey: peer) {
            if ends.values[i] < end { ends.values[i] = end }
        } else if end > 0 {
            ends[peer] = end
        }
    }

    /// Merges another version into this one (pointwise maximum).
    /// - Complexity: O(p) for p peers in `other`.
    public mutating func merge(_ other: VersionVector) {
        for (peer, end) in other.ends { extend(peer: peer, to: end) }
    }

    /// The spans included in `self` but not in `other`.
    /// - Complexity: O(p).
    public func spans(notIn other: VersionVector) -> [IDSpan] {
        ends.compactMap { peer, end in
            let start = other[peer]
            return start < end ? IDSpan(peer: peer, start: start, end: end) : nil
        }.sorted { $0.peer < $1.peer }
    }

    /// Compares two versions in the causal partial order; nil when concurrent.
    /// - Complexity: O(p).
    public func compare(_ other: VersionVector) -> VersionOrder {
        var less = false, greater = false
        for (peer, end) in ends {
            let o = other[peer]
            if end < o { less = true } else if end > o { greater = true }
        }
        for (peer, o) in other.ends where ends[peer] == nil && o > 0 { less = true }
        switch (less, greater) {
        case (false, false): return .equal
        case (true, false): return .less
        case (false, true): return .greater
        case (true, true): return .concurrent
        }
    }

    /// The total number of atoms.
    public var totalCount: Int { ends.values.reduce(0) { $0 + Int($1) } }

    public var description: String {
        "{" + ends.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }
}

/// The result of comparing two versions.
public enum VersionOrder: Sendable, Equatable {
    case less, equal, greater, concurrent
}

/// The frontiers of a version: the IDs of the last operations that nothing else depends on.
public struct Frontiers: Hashable, Sendable {
    /// The frontier IDs, sorted.
    public private(set) var ids: [OpID]

    /// Creates frontiers from IDs (order does not matter; duplicates removed).
    public init(_ ids: [OpID] = []) { self.ids = Array(Set(ids)).sorted() }

    /// Whether there are no frontier IDs (the empty version).
    public var isEmpty: Bool { ids.isEmpty }

    /// Records a new change `first ..< last+1` whose dependencies are `deps`: the deps leave the
    /// frontier and the change's last ID joins it.
    /// - Complexity: O(f · d) for f frontier and d dependency IDs.
    mutating func advance(lastID: OpID, deps: [OpID]) {
        if ids.count == 1, deps.count == 1, ids[0] == deps[0] { ids[0] = lastID; return }
        ids.removeAll { f in f.peer == lastID.peer || deps.contains { $0.peer == f.peer && $0.counter >= f.counter } }
        ids.append(lastID)
        ids.sort()
    }

    /// Replaces the single frontier ID (a local change following its own previous one).
    /// - Complexity: O(1).
    mutating func replaceSingle(with id: OpID) { ids[0] = id }
}
