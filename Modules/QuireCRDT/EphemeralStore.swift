import Foundation

/// Presence and other short-lived state shared between peers, compatible with Loro's
/// `EphemeralStore`: a map from keys (by convention a peer's ID or name) to values, each with
/// the time it was written. The newer write of a key wins; entries older than the timeout are
/// left out of encodings and dropped by ``removeOutdated()``. It is not part of any document's
/// history: apps send ``encode(_:)``/``encodeAll()`` over their channel (Loro's sync protocol
/// has one for it) and ``apply(_:)`` what arrives.
///
/// The encoding is Loro's: postcard `Vec<{key: String, value: Option<LoroValue>, timestamp: i64}>`,
/// timestamps in milliseconds since 1970. A deleted key is kept as an entry without value (its
/// timestamp still orders later writes) until it times out.
public struct EphemeralStore: Sendable {
    /// Milliseconds since 1970.
    public typealias Clock = @Sendable () -> Int64

    /// What ``apply(_:)`` changed.
    public struct Change: Sendable, Equatable {
        public var added: [String] = []
        public var updated: [String] = []
        public var removed: [String] = []
    }

    struct Entry: Sendable {
        var value: CRDTValue?
        var timestamp: Int64
    }

    /// Entries older than this many milliseconds are outdated.
    public var timeout: Int64
    private let clock: Clock
    private var entries: [String: Entry] = [:]

    /// Loro's limit on how deeply received values nest.
    static let maxDepth = 512

    /// The wall clock, in milliseconds since 1970: the default of every store and relay.
    public static let systemClock: Clock = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A store whose entries time out after `timeout` milliseconds; `clock` is injectable for tests.
    public init(timeout: Int64, clock: @escaping Clock = systemClock) {
        self.timeout = timeout
        self.clock = clock
    }

    /// Sets a key to a value, stamped now.
    /// - Complexity: O(1).
    public mutating func set(_ key: String, _ value: CRDTValue) { entries[key] = Entry(value: value, timestamp: clock()) }

    /// Deletes a key (the deletion is stamped and travels like a write).
    /// - Complexity: O(1).
    public mutating func delete(_ key: String) { entries[key] = Entry(value: nil, timestamp: clock()) }

    /// The value of a key.
    /// - Complexity: O(1).
    public func get(_ key: String) -> CRDTValue? { entries[key]?.value }

    /// Whether the store has no entries that are not outdated (deletions count: they order
    /// later writes).
    /// - Complexity: O(k).
    public var isEmpty: Bool {
        let now = clock()
        return !entries.values.contains { !isOutdated($0, now: now) }
    }

    /// The key of the entry written longest ago (ties: the smallest key), or nil when empty.
    /// - Complexity: O(k).
    public var oldestKey: String? {
        entries.min { ($0.value.timestamp, $0.key) < ($1.value.timestamp, $1.key) }?.key
    }

    /// Drops a key's entry altogether (no deletion travels: for a relay trimming what it keeps,
    /// not for a peer leaving, which ``delete(_:)`` says).
    /// - Complexity: O(1).
    public mutating func forget(_ key: String) { entries[key] = nil }

    /// Every key with a value, and its value.
    /// - Complexity: O(k).
    public var all: [String: CRDTValue] { entries.compactMapValues(\.value) }

    /// The keys that have a value, sorted.
    /// - Complexity: O(k log k).
    public var keys: [String] { entries.filter { $0.value.value != nil }.keys.sorted() }

    private func isOutdated(_ e: Entry, now: Int64) -> Bool { now - e.timestamp > timeout }

    /// The entry of one key for other peers (nothing when it is missing or outdated).
    /// - Complexity: O(size of the value).
    public func encode(_ key: String) -> [UInt8] {
        let now = clock()
        return Self.encode(entries[key].flatMap { isOutdated($0, now: now) ? nil : [(key, $0)] } ?? [])
    }

    /// Every entry that is not outdated, for other peers.
    /// - Complexity: O(size of the entries).
    public func encodeAll() -> [UInt8] {
        let now = clock()
        return Self.encode(entries.keys.sorted().compactMap { k in isOutdated(entries[k]!, now: now) ? nil : (k, entries[k]!) })
    }

    private static func encode(_ list: [(String, Entry)]) -> [UInt8] {
        var w = ByteWriter()
        w.uvarint(list.count)
        for (key, e) in list {
            w.string(key)
            if let v = e.value { w.u8(1); Postcard.write(v, into: &w) } else { w.u8(0) }
            w.zigzag(e.timestamp)
        }
        return w.bytes
    }

    /// Applies entries from another peer: each newer than what the store has (and not
    /// outdated) replaces it. Malformed bytes throw, naming the offset, and change nothing.
    /// - Complexity: O(size of the input).
    @discardableResult
    public mutating func apply(_ bytes: [UInt8]) throws(CRDTError) -> Change {
        var r = ByteReader(bytes)
        let n = try r.count("entry count", minBytes: 3)
        var incoming: [(String, Entry)] = []
        for _ in 0..<n {
            let key = try r.string()
            let at = r.offset
            let value: CRDTValue?
            switch try r.u8() {
            case 0: value = nil
            case 1: value = try Postcard.value(&r, maxDepth: Self.maxDepth)
            case let tag: throw CRDTError.malformedBytes(offset: at, reason: "bad Option tag \(tag)")
            }
            incoming.append((key, Entry(value: value, timestamp: try r.zigzag())))
        }
        try r.expectEnd("the ephemeral entries")
        var change = Change()
        let now = clock()
        for (key, e) in incoming where !isOutdated(e, now: now) {
            let old = entries[key]
            if let old, old.timestamp >= e.timestamp { continue }
            entries[key] = e
            switch (old?.value, e.value) {
            case (.some, .some): change.updated.append(key)
            case (nil, .some): change.added.append(key)
            case (.some, nil): change.removed.append(key)
            case (nil, nil): break
            }
        }
        return change
    }

    /// Drops the outdated entries and returns the keys that had a value.
    /// - Complexity: O(k).
    @discardableResult
    public mutating func removeOutdated() -> [String] {
        let now = clock()
        let gone = entries.filter { isOutdated($0.value, now: now) }
        for k in gone.keys { entries[k] = nil }
        return gone.filter { $0.value.value != nil }.keys.sorted()
    }
}
