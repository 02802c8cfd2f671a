import Foundation
import GRDB
import QuireSyncProtocol

/// Rooms in one SQLite file through GRDB: zero configuration, one server instance. The file is
/// created with its schema on first use; writes are serialized and each is one transaction in
/// WAL mode, so an acknowledged update survives the server process being killed.
public final class SQLiteStorage: RoomStorage {
    /// How far a commit is durable before the server acknowledges it.
    public enum Durability: Sendable {
        /// `synchronous=NORMAL`: survives a crash or kill of the server process (the default).
        case processCrash
        /// `synchronous=FULL`: also survives a power loss, at one fsync per update.
        case powerLoss
    }

    private let pool: DatabasePool
    public let path: String

    public var description: String { "sqlite:\(path)" }

    public init(path: String, durability: Durability = .processCrash) throws(StorageError) {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: durability == .powerLoss ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        // Another process holding the write lock (a second server on the same file) waits briefly
        // instead of failing at once.
        configuration.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(sql: """
                    CREATE TABLE rooms (
                        kind TEXT NOT NULL, name TEXT NOT NULL, codec TEXT NOT NULL,
                        snapshot BLOB, generation INTEGER NOT NULL DEFAULT 0, ephemeral BLOB,
                        PRIMARY KEY (kind, name));
                    CREATE TABLE updates (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL);
                    CREATE INDEX updates_by_room ON updates (kind, name, seq);
                    """)
            }
            try migrator.migrate(pool)
        } catch {
            throw StorageError(operation: "open", room: nil, message: "\(path): \(error)")
        }
    }

    public func load(_ room: RoomKey) async throws(StorageError) -> StoredRoom {
        let kind = room.kind.description, name = room.name
        do {
            return try await pool.read { db in
                var stored = StoredRoom()
                if let row = try Row.fetchOne(db, sql: "SELECT codec, snapshot, generation, ephemeral FROM rooms WHERE kind = ? AND name = ?", arguments: [kind, name]) {
                    stored.codec = row["codec"]
                    stored.snapshot = (row["snapshot"] as Data?).map { Array($0) }
                    stored.generation = row["generation"]
                    if let blob = row["ephemeral"] as Data? { stored.ephemeral = try EphemeralPayloads.decode(Array(blob)) }
                }
                let rows = try Row.fetchAll(db, sql: "SELECT seq, payload FROM updates WHERE kind = ? AND name = ? ORDER BY seq", arguments: [kind, name])
                stored.updates = rows.map { StoredUpdate(sequence: $0["seq"], payload: Array($0["payload"] as Data)) }
                return stored
            }
        } catch {
            throw StorageError(operation: "load", room: room, message: "\(error)")
        }
    }

    public func append(_ room: RoomKey, codec: String, payload: [UInt8]) async throws(StorageError) -> Int64 {
        let kind = room.kind.description, name = room.name
        do {
            return try await pool.write { db in
                try db.execute(sql: "INSERT INTO rooms (kind, name, codec) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", arguments: [kind, name, codec])
                try db.execute(sql: "INSERT INTO updates (kind, name, payload) VALUES (?, ?, ?)", arguments: [kind, name, Data(payload)])
                return db.lastInsertedRowID
            }
        } catch {
            throw StorageError(operation: "append", room: room, message: "\(error)")
        }
    }

    public func update(_ room: RoomKey, sequence: Int64) async throws(StorageError) -> [UInt8]? {
        let kind = room.kind.description, name = room.name
        do {
            return try await pool.read { db in
                try (Data.fetchOne(db, sql: "SELECT payload FROM updates WHERE seq = ? AND kind = ? AND name = ?", arguments: [sequence, kind, name])).map { Array($0) }
            }
        } catch {
            throw StorageError(operation: "read update \(sequence)", room: room, message: "\(error)")
        }
    }

    public func compact(_ room: RoomKey, codec: String, snapshot: [UInt8], covered: [Int64], expectedGeneration: Int64) async throws(StorageError) -> CompactionResult {
        let kind = room.kind.description, name = room.name
        do {
            return try await pool.write { db in
                let row = try Row.fetchOne(db, sql: "SELECT snapshot, generation FROM rooms WHERE kind = ? AND name = ?", arguments: [kind, name])
                let generation: Int64 = row?["generation"] ?? 0
                if generation != expectedGeneration {
                    return .stale(snapshot: (row?["snapshot"] as Data?).map { Array($0) } ?? [], generation: generation)
                }
                try db.execute(sql: """
                    INSERT INTO rooms (kind, name, codec, snapshot, generation) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (kind, name) DO UPDATE SET snapshot = excluded.snapshot, generation = excluded.generation
                    """, arguments: [kind, name, codec, Data(snapshot), generation + 1])
                // Bound the statement size: SQLite limits the number of parameters.
                var rest = covered[...]
                while !rest.isEmpty {
                    let chunk = rest.prefix(500)
                    rest = rest.dropFirst(chunk.count)
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    try db.execute(sql: "DELETE FROM updates WHERE kind = ? AND name = ? AND seq IN (\(marks))",
                                   arguments: StatementArguments([kind, name] as [any DatabaseValueConvertible] + chunk.map { $0 as any DatabaseValueConvertible }))
                }
                return .compacted(generation: generation + 1)
            }
        } catch {
            throw StorageError(operation: "compact", room: room, message: "\(error)")
        }
    }

    public func saveEphemeral(_ room: RoomKey, payloads: [[UInt8]]) async throws(StorageError) {
        let kind = room.kind.description, name = room.name
        let blob = Data(EphemeralPayloads.encode(payloads))
        do {
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO rooms (kind, name, codec, ephemeral) VALUES (?, ?, 'ephemeral', ?)
                    ON CONFLICT (kind, name) DO UPDATE SET ephemeral = excluded.ephemeral
                    """, arguments: [kind, name, blob])
            }
        } catch {
            throw StorageError(operation: "save presence", room: room, message: "\(error)")
        }
    }

    public func remoteAppends() -> AsyncStream<RemoteAppend> { AsyncStream { $0.finish() } }

    public func close() async {
        do { try pool.close() } catch {
            // Closing only fails while statements are still running; the pool is released anyway.
        }
    }
}

/// The retained ephemeral payloads as one blob (how storages keep a `%EPS` room's presence): a
/// count, then each payload length-prefixed.
public enum EphemeralPayloads {
    public static func encode(_ payloads: [[UInt8]]) -> [UInt8] {
        var w = WireWriter()
        w.uleb(UInt64(payloads.count))
        for p in payloads { w.varBytes(p) }
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(SyncProtocolError) -> [[UInt8]] {
        var r = WireReader(bytes)
        let n = try r.length("payload count")
        var out: [[UInt8]] = []
        for i in 0..<n { out.append(try r.varBytes("payload \(i)")) }
        return out
    }
}
