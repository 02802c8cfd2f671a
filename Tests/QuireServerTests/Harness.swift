import Foundation
import Logging
import QuireCRDT
import QuireServer
import QuireSyncClient
import QuireSyncProtocol
import Testing

/// A real server on loopback (port 0), stopped by `stop()`.
final class TestServer: Sendable {
    let server: SyncServer
    let port: Int
    private let task: Task<Void, any Error>

    var url: String { "ws://127.0.0.1:\(port)/" }

    private init(server: SyncServer, port: Int, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.task = task
    }

    static func start(_ configuration: SyncServerConfiguration = SyncServerConfiguration(), storage: (any RoomStorage)? = nil,
                      authorizer: any Authorizer = OpenAuthorizer(), port: Int = 0) async throws -> TestServer {
        var configuration = configuration
        configuration.port = port
        let storage = try storage ?? SQLiteStorage(path: TestFiles.temporary("rooms.sqlite"))
        var logger = Logger(label: "quire.test.server")
        logger.logLevel = .warning
        let server = SyncServer(configuration: configuration, storage: storage, authorizer: authorizer, logger: logger)
        let (ports, input) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            do {
                try await server.run { port in input.yield(port); input.finish() }
            } catch {
                input.finish()
                throw error
            }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw TestFailure("the server stopped before listening")
        }
        return TestServer(server: server, port: port, task: task)
    }

    func stop() async throws {
        await server.shutdown()
        try await task.value
    }

    /// Starts a server on a port below Linux's ephemeral range (32768–60999), for a test that stops
    /// the server and starts it again on the same port. A port the kernel hands out for port 0 or
    /// to an outgoing connection could be taken by a test running beside this one while the server
    /// is down (CI saw "Address already in use" on the restart); no one is given these ports
    /// automatically. A port some other program already holds is skipped.
    static func startOnFixedPort(storage: @escaping @Sendable () throws -> any RoomStorage) async throws -> TestServer {
        var lastError: (any Error)?
        for _ in 0..<20 {
            do {
                return try await start(storage: try storage(), port: Int.random(in: 20_000..<32_000))
            } catch {
                lastError = error
            }
        }
        throw TestFailure("no free port below the ephemeral range after 20 tries: \(String(describing: lastError))")
    }

    /// Starts a server again on `port` (one `startOnFixedPort` chose), retrying for a few seconds
    /// while the old listener's socket is still being released.
    static func restart(on port: Int, storage: @escaping @Sendable () throws -> any RoomStorage) async throws -> TestServer {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                return try await start(storage: try storage(), port: port)
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw TestFailure("port \(port) stayed busy for 5 seconds: \(String(describing: lastError))")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum TestFiles {
    /// A path in a fresh temporary directory.
    static func temporary(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("quire-server-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }
}

/// A protocol client that sends and reads raw messages, for the tests that look at the wire.
final class RawClient: Sendable {
    let connection: any SyncConnection
    private let frames: Frames

    final class Frames: @unchecked Sendable {
        // Only the test task that owns the client reads frames.
        var iterator: AsyncStream<TransportFrame>.AsyncIterator
        init(_ iterator: AsyncStream<TransportFrame>.AsyncIterator) { self.iterator = iterator }
    }

    init(url: String, maxMessageBytes: Int = 1 << 22) async throws {
        connection = try await WebSocketTransport(maxMessageBytes: maxMessageBytes).connect(to: url)
        frames = Frames(connection.incoming.makeAsyncIterator())
    }

    func send(_ message: SyncMessage) async throws { try await connection.send(.binary(message.encoded())) }
    func send(bytes: [UInt8]) async throws { try await connection.send(.binary(bytes)) }
    func send(text: String) async throws { try await connection.send(.text(text)) }

    /// The next frame, or nil when the connection closed.
    func next(timeout: Duration = .seconds(10)) async throws -> TransportFrame? {
        let frames = frames
        return try await withThrowingTaskGroup(of: TransportFrame?.self) { group in
            group.addTask { await frames.iterator.next() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TestFailure("no frame within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The next protocol message (skipping keepalive text).
    func message(timeout: Duration = .seconds(10)) async throws -> SyncMessage {
        while true {
            guard let frame = try await next(timeout: timeout) else { throw TestFailure("connection closed") }
            if case let .binary(bytes) = frame { return try SyncMessage(decoding: bytes) }
        }
    }

    /// Joins and returns the JoinResponseOk (or the JoinError) body.
    func join(_ room: String, kind: CRDTKind = .loro, token: String = "", version: [UInt8] = []) async throws -> SyncMessage.Body {
        try await send(SyncMessage(kind: kind, room: room, body: .joinRequest(auth: Array(token.utf8), version: version)))
        return try await message().body
    }

    func close() async { await connection.close() }
}

extension CRDTDocument {
    static let text = ContainerID.root(name: "t", type: .text)

    /// A document with one text, typed by `peer`.
    static func typed(_ text: String, peer: PeerID) throws -> CRDTDocument {
        var doc = CRDTDocument(peer: peer)
        try doc.insertText(text, at: 0, in: Self.text)
        doc.commit()
        return doc
    }
}

extension SharedDocument {
    func type(_ text: String, at position: Int? = nil) throws {
        try edit { (doc: inout CRDTDocument) throws(CRDTError) in
            try doc.insertText(text, at: position ?? doc.length(of: CRDTDocument.text), in: CRDTDocument.text)
        }
    }

    func text() -> String { snapshot().text(CRDTDocument.text) }
}

/// Waits until `condition` holds (polling; the timeout only stops a test that would hang).
func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("never: \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
