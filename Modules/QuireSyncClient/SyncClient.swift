import Logging
import QuireCRDT
import QuireSyncProtocol

/// When to try again after a lost connection: exponential backoff with jitter, and the
/// keepalive that notices a dead connection.
public struct ReconnectPolicy: Sendable {
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// How often the client sends the protocol's text "ping"; a connection that has not answered
    /// by the next one is closed and reconnected. Nil turns the keepalive off.
    public var pingInterval: Duration?

    public init(initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5), pingInterval: Duration? = .seconds(20)) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.pingInterval = pingInterval
    }
}

/// What happened to the connection or a room.
public enum SyncClientEvent: Sendable, Equatable {
    case connected
    case disconnected(String)
    case joined(room: String, permission: Permission)
    case joinFailed(room: String, code: UInt8, message: String)
    /// The server refused an update batch (for example `permission_denied` or `invalid_update`).
    case updateRejected(room: String, status: UpdateStatus)
    /// The server removed this client from a room.
    case roomError(room: String, code: UInt8, message: String)
}

/// A client of the Loro sync protocol: one connection to a server, several rooms on it. Each
/// document room keeps a ``SyncedDocument`` (a `SharedDocument` or a ``BoundEditor``) in step
/// with the server: local changes are sent as they happen, remote ones imported as they arrive.
/// A lost connection is retried with backoff; on every (re)join the client sends its version,
/// receives exactly what it lacks, and sends everything the server lacks — so edits made while
/// offline are not lost. Presence rooms (`%EPH`/`%EPS`) relay ephemeral payloads.
public actor SyncClient {
    struct RoomState {
        var auth: [UInt8]
        var document: (any SyncedDocument)?
        var joined = false
        var permission: Permission?
        /// Everything up to this version has been handed to the connection.
        var lastSent = VersionVector()
        /// The server's version when it accepted the join: what the backfill brings us to.
        var serverVersion = VersionVector()
        var presence: [UInt8]?
        var presenceListeners: [AsyncStream<[UInt8]>.Continuation] = []
        var joinWaiters: [CheckedContinuation<Result<Permission, SyncClientError>, Never>] = []
        var watcher: Task<Void, Never>?
        var rejoinedOnce = false
        var emptyVersion = false
    }

    /// The servers tried in turn (instances sharing one PostgreSQL database are interchangeable).
    public let urls: [String]
    private var urlIndex = 0
    public let codec: any DocumentCodec
    private let transport: any SyncTransport
    private let policy: ReconnectPolicy
    private let logger: Logger
    private var rooms: [RoomKey: RoomState] = [:]
    private var outgoing: AsyncStream<TransportFrame>.Continuation?
    private var connection: (any SyncConnection)?
    private var unacknowledged: [BatchID: (room: RoomKey, payload: [UInt8])] = [:]
    private var assembler = FragmentAssembler()
    private var runner: Task<Void, Never>?
    private var closed = false
    private var nextBatch = UInt64.random(in: 1...(UInt64.max >> 1))
    private var eventListeners: [AsyncStream<SyncClientEvent>.Continuation] = []
    private var awaitingPong = false
    /// How many connections were made (for tests of reconnection).
    public private(set) var connectionCount = 0

    /// A client of the server at `url` (`ws://HOST:PORT/`); it connects on the first join.
    public init(url: String, transport: any SyncTransport = WebSocketTransport(), codec: any DocumentCodec = LoroBinaryCodec(),
                reconnect: ReconnectPolicy = ReconnectPolicy(), logger: Logger = Logger(label: "quire.sync.client")) {
        self.init(urls: [url], transport: transport, codec: codec, reconnect: reconnect, logger: logger)
    }

    /// A client of interchangeable servers: after a lost connection it tries the next one.
    public init(urls: [String], transport: any SyncTransport = WebSocketTransport(), codec: any DocumentCodec = LoroBinaryCodec(),
                reconnect: ReconnectPolicy = ReconnectPolicy(), logger: Logger = Logger(label: "quire.sync.client")) {
        precondition(!urls.isEmpty, "a client needs a server")
        self.urls = urls
        self.transport = transport
        self.codec = codec
        policy = reconnect
        self.logger = logger
    }

    /// Connection and room events, from now on.
    public func events() -> AsyncStream<SyncClientEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncClientEvent.self)
        eventListeners.append(continuation)
        return stream
    }

    private func emit(_ event: SyncClientEvent) {
        for listener in eventListeners { listener.yield(event) }
    }

    public var isConnected: Bool { connection != nil }

    // MARK: Rooms

    /// Joins a document room and keeps `document` in sync with it until ``leave(_:)`` or
    /// ``close()``; returns the permission once the server accepted the join.
    public func join(_ room: String, auth: [UInt8] = [], document: any SyncedDocument, timeout: Duration = .seconds(10)) async throws(SyncClientError) -> Permission {
        let key = RoomKey(kind: .loro, name: room)
        var state = RoomState(auth: auth, document: document)
        state.watcher = Task { [weak self] in
            for await _ in await document.localChanges() { await self?.localChange(key) }
        }
        return try await join(key, state: state, timeout: timeout)
    }

    /// Joins a presence room; the stream yields every payload other members publish (and, on
    /// joining, the presence the server retained).
    public func joinPresence(_ room: String, auth: [UInt8] = [], persisted: Bool = false, timeout: Duration = .seconds(10)) async throws(SyncClientError) -> AsyncStream<[UInt8]> {
        let key = RoomKey(kind: persisted ? .persistedEphemeral : .ephemeral, name: room)
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        var state = RoomState(auth: auth, document: nil)
        state.presenceListeners = [continuation]
        _ = try await join(key, state: state, timeout: timeout)
        return stream
    }

    /// Publishes this client's presence (for example its caret as an encoded ephemeral store);
    /// it is published again after every reconnection.
    public func publishPresence(_ payload: [UInt8], room: String, persisted: Bool = false) throws(SyncClientError) {
        let key = RoomKey(kind: persisted ? .persistedEphemeral : .ephemeral, name: room)
        guard rooms[key] != nil else { throw .notJoined(room) }
        rooms[key]?.presence = payload
        if rooms[key]?.joined == true { sendPayload(payload, room: key) }
    }

    private func join(_ key: RoomKey, state: RoomState, timeout: Duration) async throws(SyncClientError) -> Permission {
        guard !closed else { throw .closed }
        if let old = rooms[key] { old.watcher?.cancel() }
        rooms[key] = state
        start()
        if outgoing != nil { await sendJoin(key) }
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.failJoin(key, .timedOut("joining \(key)"))
        }
        defer { timer.cancel() }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Permission, SyncClientError>, Never>) in
            if let permission = rooms[key]?.permission, rooms[key]?.joined == true {
                continuation.resume(returning: .success(permission))
            } else if rooms[key] == nil {
                continuation.resume(returning: .failure(.notJoined(key.name)))
            } else {
                rooms[key]?.joinWaiters.append(continuation)
            }
        }
        return try result.get()
    }

    private func failJoin(_ key: RoomKey, _ error: SyncClientError) {
        guard var room = rooms[key], !room.joinWaiters.isEmpty else { return }
        for waiter in room.joinWaiters { waiter.resume(returning: .failure(error)) }
        room.joinWaiters = []
        rooms[key] = room
    }

    /// Leaves a room: the server stops sending it, the document stops being synced.
    public func leave(_ room: String, kind: CRDTKind = .loro) {
        let key = RoomKey(kind: kind, name: room)
        guard let state = rooms.removeValue(forKey: key) else { return }
        state.watcher?.cancel()
        for listener in state.presenceListeners { listener.finish() }
        for waiter in state.joinWaiters { waiter.resume(returning: .failure(.notJoined(room))) }
        if state.joined { enqueue(SyncMessage(kind: key.kind, room: key.name, body: .leave)) }
    }

    /// Waits until every joined room is joined, every local change has been sent and every sent
    /// update acknowledged (so it is stored on the server).
    public func flush(timeout: Duration = .seconds(10)) async throws(SyncClientError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if closed { throw .closed }
            if await isSettled() { return }
            guard ContinuousClock.now < deadline else { throw .timedOut("acknowledgements") }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .timedOut("acknowledgements (cancelled)") }
        }
    }

    private func isSettled() async -> Bool {
        guard connection != nil, unacknowledged.isEmpty else { return false }
        for (_, room) in rooms {
            guard room.joined else { return false }
            if let document = room.document {
                let version = await document.currentVersion()
                guard room.serverVersion.ends.allSatisfy({ version[$0.key] >= $0.value }) else { return false }
                if room.permission == .write {
                    guard version.ends.allSatisfy({ room.lastSent[$0.key] >= $0.value }) else { return false }
                }
            }
        }
        return unacknowledged.isEmpty
    }

    /// Closes the connection and stops reconnecting.
    public func close() async {
        closed = true
        runner?.cancel()
        for (_, room) in rooms {
            room.watcher?.cancel()
            for listener in room.presenceListeners { listener.finish() }
            for waiter in room.joinWaiters { waiter.resume(returning: .failure(.closed)) }
        }
        rooms = [:]
        outgoing?.finish()
        if let connection { await connection.close() }
        connection = nil
        for listener in eventListeners { listener.finish() }
        eventListeners = []
    }

    /// Drops the current connection as a network failure would (for tests of resumption).
    public func dropConnection() async {
        if let connection { await connection.close() }
    }

    // MARK: Connection

    private func start() {
        guard runner == nil else { return }
        runner = Task { [weak self] in await self?.run() }
    }

    private func run() async {
        var delay = policy.initialDelay
        while !closed && !Task.isCancelled {
            let url = urls[urlIndex % urls.count]
            let connection: any SyncConnection
            do { connection = try await transport.connect(to: url) } catch {
                urlIndex += 1
                logger.debug("connect failed", metadata: ["url": "\(url)", "error": "\(error)"])
                emit(.disconnected(error.description))
                await sleep(jittered(delay))
                delay = min(delay * 2, policy.maxDelay)
                continue
            }
            guard !closed else {
                await connection.close()
                return
            }
            delay = policy.initialDelay
            await serve(connection)
            guard !closed else { return }
            urlIndex += 1
            emit(.disconnected("connection closed"))
            await sleep(jittered(delay))
            delay = min(delay * 2, policy.maxDelay)
        }
    }

    private func sleep(_ duration: Duration) async {
        do { try await Task.sleep(for: duration) } catch {
            // Cancelled by close(): the loop ends.
        }
    }

    private func jittered(_ delay: Duration) -> Duration { delay * Double.random(in: 0.5...1.0) }

    private func serve(_ connection: any SyncConnection) async {
        connectionCount += 1
        self.connection = connection
        let (frames, continuation) = AsyncStream.makeStream(of: TransportFrame.self)
        outgoing = continuation
        let writer = Task {
            for await frame in frames {
                do { try await connection.send(frame) } catch { break }
            }
        }
        let pinger = Task { [weak self, policy] in
            guard let interval = policy.pingInterval else { return }
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let self, await self.keepalive() else { await connection.close(); return }
            }
        }
        assembler = FragmentAssembler()
        awaitingPong = false
        emit(.connected)
        for key in Array(rooms.keys) { await sendJoin(key) }
        for await frame in connection.incoming {
            await receive(frame)
        }
        pinger.cancel()
        continuation.finish()
        writer.cancel()
        outgoing = nil
        self.connection = nil
        // Unacknowledged batches are sent again after the next join, from the server's version.
        unacknowledged = [:]
        for key in rooms.keys { rooms[key]?.joined = false }
    }

    /// Sends a ping; false when the previous one was never answered.
    private func keepalive() -> Bool {
        guard !awaitingPong else { return false }
        awaitingPong = true
        outgoing?.yield(.text(SyncMessage.ping))
        return true
    }

    private func enqueue(_ message: SyncMessage) {
        outgoing?.yield(.binary(message.encoded()))
    }

    private func sendJoin(_ key: RoomKey) async {
        guard let room = rooms[key] else { return }
        var version: [UInt8] = []
        if let document = room.document, !room.emptyVersion { version = codec.encodeVersion(await document.currentVersion()) }
        guard rooms[key] != nil else { return }
        enqueue(SyncMessage(kind: key.kind, room: key.name, body: .joinRequest(auth: room.auth, version: version)))
    }

    private func sendPayload(_ payload: [UInt8], room key: RoomKey) {
        nextBatch &+= 1
        let batch = BatchID(nextBatch)
        unacknowledged[batch] = (key, payload)
        for message in UpdateFragmenter.messages(kind: key.kind, room: key.name, payload: payload, batch: batch) { enqueue(message) }
    }

    private func localChange(_ key: RoomKey) async {
        guard let room = rooms[key], room.joined, room.permission == .write, let document = room.document else { return }
        let version = await document.currentVersion()
        guard let since = rooms[key]?.lastSent, rooms[key]?.joined == true else { return }
        let payload = await document.export(using: codec, since: since)
        guard rooms[key]?.joined == true else { return }
        rooms[key]?.lastSent.merge(version)
        if !payload.isEmpty { sendPayload(payload, room: key) }
    }

    // MARK: Receiving

    private func receive(_ frame: TransportFrame) async {
        switch frame {
        case .text(SyncMessage.ping): outgoing?.yield(.text(SyncMessage.pong))
        case .text(SyncMessage.pong): awaitingPong = false
        case let .text(other): logger.notice("unexpected text frame", metadata: ["text": "\(other.prefix(40))"])
        case let .binary(bytes):
            let message: SyncMessage
            do { message = try SyncMessage(decoding: bytes) } catch {
                logger.error("undecodable message from the server", metadata: ["error": "\(error)"])
                await connection?.close()
                return
            }
            await receive(message)
        }
    }

    private func receive(_ message: SyncMessage) async {
        let key = RoomKey(kind: message.kind, name: message.room)
        for expired in assembler.expire(now: .now) {
            enqueue(SyncMessage(kind: expired.kind, room: expired.room, body: .ack(batch: expired.batch, status: .fragmentTimeout)))
        }
        switch message.body {
        case let .joinOk(permission, version, _):
            await joined(key, permission: permission, serverVersion: version)
        case let .joinError(code, text, _, _):
            if code == .versionUnknown, rooms[key]?.emptyVersion == false {
                rooms[key]?.emptyVersion = true
                await sendJoin(key)
                return
            }
            emit(.joinFailed(room: key.name, code: code.rawValue, message: text))
            failJoin(key, .joinRefused(code: code.rawValue, message: text))
            if let state = rooms.removeValue(forKey: key) { state.watcher?.cancel() }
        case let .update(updates, batch):
            for payload in updates { await deliver(payload, room: key, batch: batch) }
        case let .fragmentHeader(batch, count, total):
            do { try assembler.begin(kind: key.kind, room: key.name, batch: batch, count: count, totalBytes: total, now: .now) } catch {
                enqueue(SyncMessage(kind: key.kind, room: key.name, body: .ack(batch: batch, status: error.status)))
            }
        case let .fragment(batch, index, bytes):
            do {
                if let payload = try assembler.add(kind: key.kind, room: key.name, batch: batch, index: index, bytes: bytes) {
                    await deliver(payload, room: key, batch: batch)
                }
            } catch {
                enqueue(SyncMessage(kind: key.kind, room: key.name, body: .ack(batch: batch, status: error.status)))
            }
        case let .ack(batch, status):
            guard let sent = unacknowledged.removeValue(forKey: batch) else { return }
            if status == .fragmentTimeout {
                sendPayload(sent.payload, room: sent.room)
            } else if status != .ok {
                logger.notice("update refused", metadata: ["room": "\(key)", "status": "\(status)"])
                emit(.updateRejected(room: key.name, status: status))
            }
        case let .roomError(code, text):
            emit(.roomError(room: key.name, code: code.rawValue, message: text))
            guard var room = rooms[key] else { return }
            room.joined = false
            if code == .rejoinSuggested && !room.rejoinedOnce {
                room.rejoinedOnce = true
                rooms[key] = room
                await sendJoin(key)
            } else {
                rooms[key] = nil
                room.watcher?.cancel()
            }
        case .joinRequest, .leave:
            logger.notice("a server does not send \(message.body)")
        }
    }

    private func joined(_ key: RoomKey, permission: Permission, serverVersion: [UInt8]) async {
        guard var room = rooms[key] else { return }
        room.joined = true
        room.permission = permission
        rooms[key] = room
        emit(.joined(room: key.name, permission: permission))
        if let document = room.document {
            let server: VersionVector
            do { server = try codec.decodeVersion(serverVersion) } catch {
                logger.error("unreadable server version", metadata: ["room": "\(key)", "error": "\(error)"])
                server = VersionVector()
            }
            rooms[key]?.serverVersion = server
            // Send what the server lacks: edits made offline, and batches never acknowledged.
            let version = await document.currentVersion()
            if permission == .write {
                let payload = await document.export(using: codec, since: server)
                if !payload.isEmpty, rooms[key]?.joined == true { sendPayload(payload, room: key) }
            }
            rooms[key]?.lastSent = version
        } else if let presence = room.presence {
            sendPayload(presence, room: key)
        }
        if let waiters = rooms[key]?.joinWaiters {
            rooms[key]?.joinWaiters = []
            for waiter in waiters { waiter.resume(returning: .success(permission)) }
        }
    }

    private func deliver(_ payload: [UInt8], room key: RoomKey, batch: BatchID) async {
        guard let room = rooms[key] else { return }
        if let document = room.document {
            let versions: (before: VersionVector, after: VersionVector)
            do { versions = try await document.importPayload(payload, using: codec) } catch {
                logger.error("server update does not import", metadata: ["room": "\(key)", "error": "\(error)"])
                enqueue(SyncMessage(kind: key.kind, room: key.name, body: .ack(batch: batch, status: .invalidUpdate)))
                return
            }
            // Nothing of ours was waiting to be sent: what arrived needs no sending back.
            if rooms[key]?.lastSent == versions.before { rooms[key]?.lastSent = versions.after }
        } else {
            for listener in room.presenceListeners { listener.yield(payload) }
        }
    }
}
