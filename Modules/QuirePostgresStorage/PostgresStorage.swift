import Foundation
import Logging
import PostgresNIO
import QuireServer
import QuireSyncProtocol
import Synchronization

/// Rooms in PostgreSQL through postgres-nio, for several server instances on one database.
/// Each update is appended in its own transaction that also sends a notification (delivered by
/// PostgreSQL only when the transaction commits); every instance LISTENs, reads the updates
/// other instances appended and passes them to its members, so two clients on two instances in
/// one room see each other.
public final class PostgresStorage: RoomStorage {
    /// The notification channel every instance listens on.
    static let channel = "quire_room_updates"

    public let description: String
    private let client: PostgresClient
    private let connection: PostgresConnection.Configuration
    private let logger: Logger
    private let runner: Task<Void, Never>
    private let listener = Mutex<Task<Void, Never>?>(nil)
    private let instance = UInt64.random(in: 1...UInt64.max)
    private let appends: AsyncStream<RemoteAppend>
    private let appendsInput: AsyncStream<RemoteAppend>.Continuation

    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`), creates the schema
    /// when missing and starts listening for other instances' updates.
    public init(url: String, logger: Logger) async throws(StorageError) {
        let parsed = try Self.parse(url)
        connection = parsed
        description = "postgres://\(parsed.username)@\(parsed.host ?? "?"):\(parsed.port ?? 5432)/\(parsed.database ?? "")"
        self.logger = logger
        var configuration = PostgresClient.Configuration(host: parsed.host ?? "127.0.0.1", port: parsed.port ?? 5432, username: parsed.username,
                                                         password: parsed.password, database: parsed.database, tls: .disable)
        configuration.options.maximumConnections = 8
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let client = client
        runner = Task { await client.run() }
        (appends, appendsInput) = AsyncStream.makeStream(of: RemoteAppend.self)
        do {
            try await client.withTransaction(logger: logger) { db in
                // Two instances starting together must not both create the tables.
                try await db.query("SELECT pg_advisory_xact_lock(7261746)", logger: logger)
                try await db.query("""
                    CREATE TABLE IF NOT EXISTS quire_rooms (
                        kind TEXT NOT NULL, name TEXT NOT NULL, codec TEXT NOT NULL,
                        snapshot BYTEA, generation BIGINT NOT NULL DEFAULT 0, ephemeral BYTEA,
                        PRIMARY KEY (kind, name))
                    """, logger: logger)
                try await db.query("""
                    CREATE TABLE IF NOT EXISTS quire_updates (
                        seq BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, payload BYTEA NOT NULL)
                    """, logger: logger)
                try await db.query("CREATE INDEX IF NOT EXISTS quire_updates_by_room ON quire_updates (kind, name, seq)", logger: logger)
            }
        } catch {
            runner.cancel()
            throw StorageError(operation: "open", room: nil, message: "\(description): \(String(reflecting: error))")
        }
        try await startListening()
    }

    static func parse(_ url: String) throws(StorageError) -> PostgresConnection.Configuration {
        guard let components = URLComponents(string: url), components.scheme == "postgres" || components.scheme == "postgresql",
              let user = components.user, !user.isEmpty else {
            throw StorageError(operation: "open", room: nil, message: "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, got \(url)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        return PostgresConnection.Configuration(host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: user,
                                                password: components.password, database: database.isEmpty ? nil : database, tls: .disable)
    }

    /// A dedicated connection LISTENs; when it drops it reconnects, and the rooms loaded here
    /// catch up at their next compaction or reload.
    private func startListening() async throws(StorageError) {
        let (ready, readyInput) = AsyncStream.makeStream(of: String?.self)
        let connection = connection, logger = logger, instance = instance, input = appendsInput
        let task = Task {
            var announced = false
            while !Task.isCancelled {
                do {
                    let db = try await PostgresConnection.connect(configuration: connection, id: 1, logger: logger)
                    try await db.listen(on: Self.channel) { notifications in
                        if !announced { readyInput.yield(nil); readyInput.finish(); announced = true }
                        for try await notification in notifications {
                            if let append = Self.decode(notification.payload, skipping: instance) { input.yield(append) }
                        }
                    }
                    try await db.close()
                } catch {
                    if !announced { readyInput.yield("\(String(reflecting: error))"); readyInput.finish(); return }
                    logger.error("LISTEN connection lost; reconnecting", metadata: ["error": "\(String(reflecting: error))"])
                    do { try await Task.sleep(for: .milliseconds(200)) } catch { return }
                }
            }
        }
        listener.withLock { $0 = task }
        for await failure in ready {
            if let failure {
                throw StorageError(operation: "listen", room: nil, message: failure)
            }
        }
    }

    static func encode(instance: UInt64, sequence: Int64, room: RoomKey) -> String {
        "\(instance) \(sequence) \(room.kind) \(room.name)"
    }

    static func decode(_ payload: String, skipping instance: UInt64) -> RemoteAppend? {
        let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let from = UInt64(parts[0]), from != instance, let sequence = Int64(parts[1]),
              let kind = CRDTKind(magic: Array(parts[2].utf8)) else { return nil }
        return RemoteAppend(room: RoomKey(kind: kind, name: String(parts[3])), sequence: sequence)
    }

    private func fail(_ operation: String, _ room: RoomKey, _ error: any Error) -> StorageError {
        StorageError(operation: operation, room: room, message: String(reflecting: error))
    }

    public func load(_ room: RoomKey) async throws(StorageError) -> StoredRoom {
        let kind = room.kind.description, name = room.name
        do {
            var stored = StoredRoom()
            let rows = try await client.query("SELECT codec, snapshot, generation, ephemeral FROM quire_rooms WHERE kind = \(kind) AND name = \(name)", logger: logger)
            for try await (codec, snapshot, generation, ephemeral) in rows.decode((String?, ByteBuffer?, Int64, ByteBuffer?).self) {
                stored.codec = codec
                stored.snapshot = snapshot.map { Array($0.readableBytesView) }
                stored.generation = generation
                if let ephemeral { stored.ephemeral = try EphemeralPayloads.decode(Array(ephemeral.readableBytesView)) }
            }
            let updates = try await client.query("SELECT seq, payload FROM quire_updates WHERE kind = \(kind) AND name = \(name) ORDER BY seq", logger: logger)
            for try await (seq, payload) in updates.decode((Int64, ByteBuffer).self) {
                stored.updates.append(StoredUpdate(sequence: seq, payload: Array(payload.readableBytesView)))
            }
            return stored
        } catch {
            throw fail("load", room, error)
        }
    }

    public func append(_ room: RoomKey, codec: String, payload: [UInt8]) async throws(StorageError) -> Int64 {
        let kind = room.kind.description, name = room.name, instance = instance, logger = logger
        do {
            return try await client.withTransaction(logger: logger) { db in
                try await db.query("INSERT INTO quire_rooms (kind, name, codec) VALUES (\(kind), \(name), \(codec)) ON CONFLICT DO NOTHING", logger: logger)
                var sequence: Int64 = 0
                for try await seq in try await db.query("INSERT INTO quire_updates (kind, name, payload) VALUES (\(kind), \(name), \(ByteBuffer(bytes: payload))) RETURNING seq", logger: logger).decode(Int64.self) {
                    sequence = seq
                }
                let note = Self.encode(instance: instance, sequence: sequence, room: room)
                try await db.query("SELECT pg_notify(\(Self.channel), \(note))", logger: logger)
                return sequence
            }
        } catch {
            throw fail("append", room, error)
        }
    }

    public func update(_ room: RoomKey, sequence: Int64) async throws(StorageError) -> [UInt8]? {
        let kind = room.kind.description, name = room.name
        do {
            var payload: [UInt8]?
            for try await bytes in try await client.query("SELECT payload FROM quire_updates WHERE seq = \(sequence) AND kind = \(kind) AND name = \(name)", logger: logger).decode(ByteBuffer.self) {
                payload = Array(bytes.readableBytesView)
            }
            return payload
        } catch {
            throw fail("read update \(sequence)", room, error)
        }
    }

    public func compact(_ room: RoomKey, codec: String, snapshot: [UInt8], covered: [Int64], expectedGeneration: Int64) async throws(StorageError) -> CompactionResult {
        let kind = room.kind.description, name = room.name, logger = logger
        do {
            return try await client.withTransaction(logger: logger) { db in
                try await db.query("INSERT INTO quire_rooms (kind, name, codec) VALUES (\(kind), \(name), \(codec)) ON CONFLICT DO NOTHING", logger: logger)
                var generation: Int64 = 0
                var stored: [UInt8]?
                for try await (g, s) in try await db.query("SELECT generation, snapshot FROM quire_rooms WHERE kind = \(kind) AND name = \(name) FOR UPDATE", logger: logger).decode((Int64, ByteBuffer?).self) {
                    generation = g
                    stored = s.map { Array($0.readableBytesView) }
                }
                guard generation == expectedGeneration else { return CompactionResult.stale(snapshot: stored ?? [], generation: generation) }
                try await db.query("UPDATE quire_rooms SET snapshot = \(ByteBuffer(bytes: snapshot)), generation = \(generation + 1) WHERE kind = \(kind) AND name = \(name)", logger: logger)
                try await db.query("DELETE FROM quire_updates WHERE kind = \(kind) AND name = \(name) AND seq = ANY(\(covered))", logger: logger)
                return CompactionResult.compacted(generation: generation + 1)
            }
        } catch {
            throw fail("compact", room, error)
        }
    }

    public func saveEphemeral(_ room: RoomKey, payloads: [[UInt8]]) async throws(StorageError) {
        let kind = room.kind.description, name = room.name
        let blob = ByteBuffer(bytes: EphemeralPayloads.encode(payloads))
        do {
            try await client.query("""
                INSERT INTO quire_rooms (kind, name, codec, ephemeral) VALUES (\(kind), \(name), 'ephemeral', \(blob))
                ON CONFLICT (kind, name) DO UPDATE SET ephemeral = excluded.ephemeral
                """, logger: logger)
        } catch {
            throw fail("save presence", room, error)
        }
    }

    public func remoteAppends() -> AsyncStream<RemoteAppend> { appends }

    public func close() async {
        listener.withLock { $0?.cancel() }
        appendsInput.finish()
        runner.cancel()
    }
}
