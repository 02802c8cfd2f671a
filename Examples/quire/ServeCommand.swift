import ArgumentParser
import Foundation
import Logging
import QuireCRDT
import QuirePostgresStorage
import QuireServer
import QuireSyncClient
import QuireSyncProtocol

/// `--log-level` for the server commands.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `quire serve`: the sync server (the Loro protocol over WebSocket at ws://HOST:PORT/).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server: rooms over the Loro sync protocol, stored in SQLite (default) or PostgreSQL.",
        discussion: """
            Prints one line `quire serve: listening on ws://HOST:PORT/ …` on standard output when it accepts \
            connections; logs go to standard error. SIGTERM or SIGINT stop it gracefully: connections are \
            closed, rooms compacted, storage closed.
            """
    )

    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one; the readiness line names it).")
    var port = 8787

    @Option(help: "Storage: sqlite:PATH or postgres://USER[:PASSWORD]@HOST:PORT/DB.")
    var database = "sqlite:./quire-rooms.sqlite"

    @Option(help: "A token file: one `ROOM TOKEN read|write` per line (ROOM may be *); reloaded on change. Without it every join may write.")
    var tokenFile: String?

    @Option(help: "The largest message accepted, in bytes.")
    var maxMessageBytes = SyncMessage.maxMessageBytes

    @Option(help: "Payload format of document rooms: \(DocumentCodecs.all.map(\.name).joined(separator: ", ")).")
    var codec = LoroBinaryCodec().name

    @Option(help: "What presence rooms keep for joiners: loro (Loro EphemeralStore updates, one entry per key) or opaque (the last 64 payloads as bytes).")
    var presence = LoroEphemeralFold().name

    @Option(help: "Rooms one connection may join at once.")
    var maxRooms = 64

    @Option(help: "Messages per second per connection (sustained).")
    var rate = 500.0

    @Option(help: "Bytes queued for one connection before it is dropped as a slow consumer.")
    var maxQueuedBytes = 16 << 20

    @Option(help: "Updates in a room's log before it is folded into a snapshot.")
    var compactEvery = 1000

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "quire.serve")
        guard let codec = DocumentCodecs.named(codec) else {
            throw ValidationError("unknown codec \(codec); known: \(DocumentCodecs.all.map(\.name).joined(separator: ", "))")
        }
        guard let ephemeral = EphemeralCodecs.named(presence) else {
            throw ValidationError("unknown presence codec \(presence); known: \(EphemeralCodecs.all.map(\.name).joined(separator: ", "))")
        }
        let storage: any RoomStorage
        if database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            storage = try await PostgresStorage(url: database, logger: logger)
        } else if database.hasPrefix("sqlite:") {
            storage = try SQLiteStorage(path: String(database.dropFirst("sqlite:".count)))
        } else {
            throw ValidationError("--database takes sqlite:PATH or postgres://USER@HOST:PORT/DB, not \(database)")
        }
        let authorizer: any Authorizer = try tokenFile.map { try TokenFileAuthorizer(path: $0, logger: logger) } ?? OpenAuthorizer()
        let configuration = SyncServerConfiguration(
            host: host, port: port, codec: codec, ephemeral: ephemeral, maxMessageBytes: maxMessageBytes, maxRoomsPerConnection: maxRooms,
            messagesPerSecond: rate, messageBurst: rate * 2, maxQueuedBytesPerConnection: maxQueuedBytes, compactionThreshold: compactEvery
        )
        let server = SyncServer(configuration: configuration, storage: storage, authorizer: authorizer, logger: logger)
        let host = host, description = storage.description, codecName = codec.name
        try await server.run(signals: [.sigterm, .sigint]) { port in
            // Scripts and tests wait for this line: written unbuffered, so no pipe holds it back.
            FileHandle.standardOutput.write(Data("quire serve: listening on ws://\(host):\(port)/ (storage \(description), codec \(codecName))\n".utf8))
        }
    }
}

/// `quire sync`: push and pull a document once, for scripting.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Join a room, send what the server lacks, receive what the file lacks, write the file back.",
        discussion: """
            FILE holds Quire's binary updates or snapshot, or Loro's JSON updates; it is written back in the \
            same format (a missing file is created as a Quire snapshot). Exits non-zero when the server refuses \
            the join or an update.
            """
    )

    @Option(help: "The server, ws://HOST:PORT/.")
    var server: String

    @Option(help: "The room.")
    var room: String

    @Option(help: "The token sent as the join payload.")
    var token = ""

    @Option(help: "Payload format: \(DocumentCodecs.all.map(\.name).joined(separator: ", ")).")
    var codec = LoroBinaryCodec().name

    @Option(help: "Seconds to wait for the server.")
    var timeout = 10.0

    @Argument(help: "The document file.")
    var file: String

    func run() async throws {
        guard let codec = DocumentCodecs.named(codec) else { throw ValidationError("unknown codec \(codec)") }
        var document = CRDTDocument(peer: PeerID.random(in: 1...PeerID.max))
        var writesJSON = false
        if FileManager.default.fileExists(atPath: file) {
            let bytes = try InputFile.read(file)
            if bytes.first == 0xC7 {
                try document.importUpdates(bytes)
            } else if !bytes.isEmpty {
                writesJSON = true
                try document.importJSONUpdates(LoroJSONUpdates(json: bytes))
            }
        }
        let before = document.version
        let shared = SharedDocument(document)
        let client = SyncClient(url: server, codec: codec, reconnect: ReconnectPolicy(pingInterval: nil))
        let events = await client.events()
        let watcher = Task {
            var refusals: [String] = []
            for await event in events {
                if case let .updateRejected(room, status) = event { refusals.append("room \(room): update refused (\(status))") }
            }
            return refusals
        }
        let limit = Duration.milliseconds(Int(timeout * 1000))
        do {
            let permission = try await client.join(room, auth: Array(token.utf8), document: shared, timeout: limit)
            try await client.flush(timeout: limit)
            await client.close()
            let refusals = await watcher.value
            if let refusal = refusals.first { throw SyncFailure(description: refusal) }
            let merged = await shared.snapshot()
            let out = writesJSON ? merged.exportJSONUpdates().jsonBytes() : merged.exportSnapshot()
            try Data(out).write(to: URL(fileURLWithPath: file))
            let received = merged.version.totalCount - before.totalCount
            print("synced \(room) (\(permission.rawValue)): \(received) operations received, version \(merged.version)")
        } catch let error as SyncClientError {
            await client.close()
            throw SyncFailure(description: "\(error.description) (\(server), room \(room))")
        }
    }
}

/// A refused or failed exchange: status 1, not a usage error.
struct SyncFailure: Error, CustomStringConvertible {
    let description: String
}
