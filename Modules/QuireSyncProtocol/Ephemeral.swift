/// What a room of ephemeral state (`%EPH`, `%EPS`: presence, remote carets) keeps so that a joiner
/// receives the current presence at once: the retained payloads, folded one update at a time.
///
/// Until QuireCRDT reads Loro's `EphemeralStore` encoding, ``OpaqueEphemeralRelay`` treats payloads
/// as opaque bytes; a Loro-aware fold (merging by key and timestamp) slots in here.
public protocol EphemeralCodec: Sendable {
    var name: String { get }

    /// The retained payloads after `update`, or a thrown error for an update the room refuses.
    func fold(_ retained: [[UInt8]], _ update: [UInt8]) throws(SyncProtocolError) -> [[UInt8]]
}

/// Keeps the most recent payloads, bounded in count and bytes. A store's own timestamps order
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
