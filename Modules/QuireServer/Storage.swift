import QuireSyncProtocol

/// One stored update: its sequence number (unique per storage, increasing in append order within
/// one instance) and the payload as the room's codec wrote it.
public struct StoredUpdate: Sendable, Equatable {
    public var sequence: Int64
    public var payload: [UInt8]

    public init(sequence: Int64, payload: [UInt8]) {
        self.sequence = sequence
        self.payload = payload
    }
}

/// What storage holds for a room: the latest compacted snapshot with its generation, the updates
/// appended since, and the retained ephemeral payloads.
public struct StoredRoom: Sendable, Equatable {
    /// The codec that wrote the payloads (nil for a room never stored).
    public var codec: String?
    public var snapshot: [UInt8]?
    /// Increases with every compaction; a compaction that expected another generation is stale.
    public var generation: Int64
    public var updates: [StoredUpdate]
    public var ephemeral: [[UInt8]]

    public init(codec: String? = nil, snapshot: [UInt8]? = nil, generation: Int64 = 0, updates: [StoredUpdate] = [], ephemeral: [[UInt8]] = []) {
        self.codec = codec
        self.snapshot = snapshot
        self.generation = generation
        self.updates = updates
        self.ephemeral = ephemeral
    }
}

/// The result of a compaction.
public enum CompactionResult: Sendable, Equatable {
    /// The snapshot was written and the covered updates removed, in one transaction.
    case compacted(generation: Int64)
    /// Another instance compacted first: merge this snapshot (and its generation) and retry.
    case stale(snapshot: [UInt8], generation: Int64)
}

/// An update another server instance appended (PostgreSQL's LISTEN/NOTIFY).
public struct RemoteAppend: Sendable, Equatable {
    public var room: RoomKey
    public var sequence: Int64

    public init(room: RoomKey, sequence: Int64) {
        self.room = room
        self.sequence = sequence
    }
}

/// A storage failure: which operation, which room, and the database's message.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operation: String
    public var room: String?
    public var message: String

    public init(operation: String, room: RoomKey?, message: String) {
        self.operation = operation
        self.room = room?.description
        self.message = message
    }

    public var description: String { "storage \(operation)\(room.map { " of room \($0)" } ?? ""): \(message)" }
}

/// Where rooms persist. Every method commits its own transaction before it returns, so the server
/// acknowledges an update only once ``append(_:codec:payload:)`` has returned.
public protocol RoomStorage: Sendable {
    /// A description for logs (never a password).
    var description: String { get }

    /// The room as stored (an empty ``StoredRoom`` when it was never stored).
    func load(_ room: RoomKey) async throws(StorageError) -> StoredRoom

    /// Appends an update in its own transaction and returns its sequence number.
    func append(_ room: RoomKey, codec: String, payload: [UInt8]) async throws(StorageError) -> Int64

    /// One update by sequence number (nil when compaction removed it).
    func update(_ room: RoomKey, sequence: Int64) async throws(StorageError) -> [UInt8]?

    /// In one transaction: when the stored generation is still `expectedGeneration`, writes
    /// `snapshot` as the next generation and removes exactly the `covered` updates; otherwise
    /// changes nothing and returns the newer snapshot.
    func compact(_ room: RoomKey, codec: String, snapshot: [UInt8], covered: [Int64], expectedGeneration: Int64) async throws(StorageError) -> CompactionResult

    /// Replaces the retained ephemeral payloads of a `%EPS` room.
    func saveEphemeral(_ room: RoomKey, payloads: [[UInt8]]) async throws(StorageError)

    /// Updates other instances appended, for fan-out; a single-instance storage never yields.
    func remoteAppends() -> AsyncStream<RemoteAppend>

    /// Closes connections; later calls fail.
    func close() async
}
