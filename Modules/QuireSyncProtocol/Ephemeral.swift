import QuireCRDT

/// What a room of ephemeral state (`%EPH`, `%EPS`: presence, remote carets) keeps so that a joiner
/// receives the current presence at once: the retained payloads, folded one update at a time.
///
/// ``LoroEphemeralFold`` (the server's default) reads the payloads as Loro `EphemeralStore`
/// updates and keeps one entry per key; ``OpaqueEphemeralRelay`` keeps the last payloads as
/// opaque bytes, for rooms whose clients send something else.
public protocol EphemeralCodec: Sendable {
    var name: String { get }

    /// The retained payloads after `update`, or a thrown error for an update the room refuses.
    func fold(_ retained: [[UInt8]], _ update: [UInt8]) throws(SyncProtocolError) -> [[UInt8]]
}

/// Keeps the most recent payloads, bounded in count and bytes: a joiner may miss the presence of
/// a peer whose last update is older than the bound until that peer refreshes it. A store's own timestamps order
/// them on the receiving side, so replaying them oldest first yields the latest presence.
public struct OpaqueEphemeralRelay: EphemeralCodec {
    public var maxPayloads: Int
    public var maxBytes: Int

    public init(maxPayloads: Int = 64, maxBytes: Int = 1 << 20) {
        self.maxPayloads = maxPayloads
        self.maxBytes = maxBytes
    }

    public var name: String { "opaque" }

    /// - Complexity: O(retained payloads).
    public func fold(_ retained: [[UInt8]], _ update: [UInt8]) throws(SyncProtocolError) -> [[UInt8]] {
        guard update.count <= maxBytes else { throw .tooLarge(what: "ephemeral update", size: update.count, limit: maxBytes) }
        guard !update.isEmpty else { return retained }
        var out = retained
        out.append(update)
        var bytes = out.reduce(0) { $0 + $1.count }
        var drop = 0
        while out.count - drop > maxPayloads || bytes > maxBytes {
            bytes -= out[drop].count
            drop += 1
        }
        return Array(out[drop...])
    }
}

/// Keeps presence as a Loro `EphemeralStore` does: one entry per key, the newer write of a key
/// winning, entries older than `timeout` left out. A joiner gets every peer's latest presence in
/// one payload however many updates came before, and the presence of a peer that went away
/// without saying so drops out after the timeout. Payloads are Loro `EphemeralStore` encodings
/// (QuireCRDT's `EphemeralStore` writes them); an update that is not one is refused.
public struct LoroEphemeralFold: EphemeralCodec {
    /// Milliseconds after which an entry is outdated (at least the clients' own timeout, so that
    /// a client's refreshes keep its entry).
    public var timeout: Int64
    /// The largest update, and the largest retained presence, in bytes.
    public var maxBytes: Int
    private let clock: EphemeralStore.Clock

    /// A fold; `clock` (milliseconds since 1970) is injectable for tests.
    public init(timeout: Int64 = 60_000, maxBytes: Int = 1 << 20,
                clock: @escaping EphemeralStore.Clock = EphemeralStore.systemClock) {
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.clock = clock
    }

    public var name: String { "loro" }

    /// The retained presence merged with `update`, as one payload (none when no entry is left);
    /// when the merged presence is larger than `maxBytes`, its oldest entries are left out. An
    /// empty update changes nothing.
    ///
    /// - Throws: `SyncProtocolError.tooLarge` for an update past `maxBytes`, `.rejectedUpdate`
    ///   naming the byte offset for an update that is not an `EphemeralStore` encoding.
    /// - Complexity: O(retained bytes + update bytes), times the entries left out when the
    ///   limit is passed.
    public func fold(_ retained: [[UInt8]], _ update: [UInt8]) throws(SyncProtocolError) -> [[UInt8]] {
        guard update.count <= maxBytes else { throw .tooLarge(what: "ephemeral update", size: update.count, limit: maxBytes) }
        var store = EphemeralStore(timeout: timeout, clock: clock)
        for payload in retained {
            do { try store.apply(payload) } catch {
                // Kept by another codec before the room was served with this one (a persisted
                // %EPS room): presence that cannot be read is not carried over. Its peers'
                // next refresh brings it back.
                continue
            }
        }
        guard !update.isEmpty else { return retained }
        do { try store.apply(update) } catch { throw .rejectedUpdate("presence update: \(error)") }
        guard !store.isEmpty else { return [] }
        // Past the byte limit the oldest entries go (as the opaque relay drops its oldest
        // payloads): refusing every later update instead would stop all presence in the room.
        var merged = store.encodeAll()
        while merged.count > maxBytes, let oldest = store.oldestKey {
            store.forget(oldest)
            merged = store.encodeAll()
        }
        return store.isEmpty ? [] : [merged]
    }
}

/// The ephemeral codecs a server can be configured with, by name.
public enum EphemeralCodecs {
    public static let all: [any EphemeralCodec] = [LoroEphemeralFold(), OpaqueEphemeralRelay()]

    public static func named(_ name: String) -> (any EphemeralCodec)? { all.first { $0.name == name } }
}
