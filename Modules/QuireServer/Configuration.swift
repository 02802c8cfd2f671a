import QuireSyncProtocol

/// What a ``SyncServer`` listens on, the limits it enforces per connection and room, and how it
/// keeps rooms.
public struct SyncServerConfiguration: Sendable {
    /// The address to bind; port 0 picks a free port (reported by the `onReady` callback).
    public var host: String
    public var port: Int
    /// The payload format of `%LOR` rooms.
    public var codec: any DocumentCodec
    /// What `%EPH`/`%EPS` rooms retain for joiners.
    public var ephemeral: any EphemeralCodec
    /// The largest WebSocket message accepted; a larger one closes the connection (1009).
    public var maxMessageBytes: Int
    /// Reassembly limits for fragmented updates.
    public var fragments: FragmentAssembler.Limits
    /// How many rooms one connection may be in at once.
    public var maxRoomsPerConnection: Int
    /// Sustained messages per second per connection, with bursts up to `messageBurst`.
    public var messagesPerSecond: Double
    public var messageBurst: Double
    /// Bytes queued for one connection before it counts as a slow consumer and is disconnected.
    public var maxQueuedBytesPerConnection: Int
    /// How long a room without members stays loaded.
    public var idleRoomTimeout: Duration
    /// Updates appended to a room's log before it is folded into a snapshot.
    public var compactionThreshold: Int

    public init(
        host: String = "127.0.0.1",
        port: Int = 8787,
        codec: any DocumentCodec = LoroBinaryCodec(),
        ephemeral: any EphemeralCodec = LoroEphemeralFold(),
        maxMessageBytes: Int = SyncMessage.maxMessageBytes,
        fragments: FragmentAssembler.Limits = FragmentAssembler.Limits(),
        maxRoomsPerConnection: Int = 64,
        messagesPerSecond: Double = 500,
        messageBurst: Double = 1000,
        maxQueuedBytesPerConnection: Int = 16 << 20,
        idleRoomTimeout: Duration = .seconds(30),
        compactionThreshold: Int = 1000
    ) {
        self.host = host
        self.port = port
        self.codec = codec
        self.ephemeral = ephemeral
        self.maxMessageBytes = maxMessageBytes
        self.fragments = fragments
        self.maxRoomsPerConnection = maxRoomsPerConnection
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.maxQueuedBytesPerConnection = maxQueuedBytesPerConnection
        self.idleRoomTimeout = idleRoomTimeout
        self.compactionThreshold = compactionThreshold
    }
}

/// A token bucket: `rate` tokens a second, at most `burst` saved up.
struct RateLimiter {
    var rate: Double
    var burst: Double
    var tokens: Double
    var last: ContinuousClock.Instant

    init(rate: Double, burst: Double, now: ContinuousClock.Instant = .now) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        last = now
    }

    /// Takes one token; false when none is left.
    /// - Complexity: O(1).
    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        tokens = min(burst, tokens + seconds * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
