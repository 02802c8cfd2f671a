import Logging
import QuireSyncProtocol

/// One WebSocket connection: its rooms and permissions, its fragment reassembly and its rate
/// limit. Everything it receives is handled in order, so acknowledgements follow the order of the
/// updates; what it sends goes through its bounded ``Outbox``.
actor Connection {
    /// WebSocket close codes the server uses.
    enum CloseCode {
        static let protocolError: UInt16 = 1002
        static let unsupportedData: UInt16 = 1003
        static let policyViolation: UInt16 = 1008
        static let goingAway: UInt16 = 1001
    }

    struct Membership {
        var room: Room
        var permission: Permission
    }

    let id: UInt64
    let outbox: Outbox
    private let registry: RoomRegistry
    private let authorizer: any Authorizer
    private let configuration: SyncServerConfiguration
    private let logger: Logger
    private var rooms: [RoomKey: Membership] = [:]
    private var assembler: FragmentAssembler
    private var limiter: RateLimiter
    private(set) var closed = false

    init(id: UInt64, outbox: Outbox, registry: RoomRegistry, authorizer: any Authorizer, configuration: SyncServerConfiguration, logger: Logger) {
        self.id = id
        self.outbox = outbox
        self.registry = registry
        self.authorizer = authorizer
        self.configuration = configuration
        self.logger = logger
        assembler = FragmentAssembler(limits: configuration.fragments)
        limiter = RateLimiter(rate: configuration.messagesPerSecond, burst: configuration.messageBurst)
    }

    private func send(_ message: SyncMessage) { outbox.send(.binary(message.encoded())) }

    private func ack(_ key: RoomKey, _ batch: BatchID, _ status: UpdateStatus) {
        send(SyncMessage(kind: key.kind, room: key.name, body: .ack(batch: batch, status: status)))
    }

    /// Closes the connection with an error: the peer learns why, other connections see nothing.
    func fail(code: UInt16, reason: String) {
        guard !closed else { return }
        closed = true
        logger.notice("closing connection", metadata: ["connection": "\(id)", "reason": "\(reason)"])
        outbox.close(code: code, reason: String(reason.utf8.prefix(120)) ?? "protocol error")
    }

    /// A text frame: the keepalive, or a protocol error.
    func receive(text: String) {
        guard !closed else { return }
        switch text {
        case SyncMessage.ping: outbox.send(.text(SyncMessage.pong))
        case SyncMessage.pong: break
        default: fail(code: CloseCode.unsupportedData, reason: "text frames other than ping/pong are not part of the protocol")
        }
    }

    /// A binary frame: one protocol message. Bytes that are no message close this connection.
    func receive(binary bytes: [UInt8]) async {
        guard !closed else { return }
        expireFragments()
        let message: SyncMessage
        do { message = try SyncMessage(decoding: bytes) } catch {
            fail(code: CloseCode.protocolError, reason: error.description)
            return
        }
        let key = RoomKey(kind: message.kind, name: message.room)
        let allowed = limiter.take()
        switch message.body {
        case let .joinRequest(auth, version):
            guard allowed else {
                send(SyncMessage(kind: key.kind, room: key.name, body: .joinError(code: .appError, message: "too many messages", receiverVersion: nil, appCode: "rate_limited")))
                return
            }
            await join(key, auth: auth, version: version)
        case let .update(updates, batch):
            guard allowed else { return ack(key, batch, .rateLimited) }
            guard let membership = writable(key, batch) else { return }
            if let size = updates.map(\.count).max(), size > configuration.fragments.maxBatchBytes {
                return ack(key, batch, .payloadTooLarge)
            }
            ack(key, batch, await membership.room.apply(from: id, payloads: updates))
        case let .fragmentHeader(batch, count, totalBytes):
            guard allowed else { return ack(key, batch, .rateLimited) }
            guard writable(key, batch) != nil else { return }
            do { try assembler.begin(kind: key.kind, room: key.name, batch: batch, count: count, totalBytes: totalBytes, now: .now) } catch {
                ack(key, batch, error.status)
            }
        case let .fragment(batch, index, fragment):
            // Fragments of an admitted batch are not rate limited: the header was.
            guard let membership = writable(key, batch) else { return }
            do {
                if let payload = try assembler.add(kind: key.kind, room: key.name, batch: batch, index: index, bytes: fragment) {
                    ack(key, batch, await membership.room.apply(from: id, payloads: [payload]))
                }
            } catch {
                ack(key, batch, error.status)
            }
        case .leave:
            await leave(key)
        case let .ack(batch, status):
            if status != .ok {
                logger.notice("client could not apply an update", metadata: ["connection": "\(id)", "room": "\(key)", "batch": "\(batch)", "status": "\(status)"])
            }
        case .joinOk, .joinError, .roomError:
            fail(code: CloseCode.protocolError, reason: "a client does not send \(message.body.name)")
        }
    }

    /// The membership of a room this connection may write to, or nil after acknowledging the
    /// refusal.
    private func writable(_ key: RoomKey, _ batch: BatchID) -> Membership? {
        guard let membership = rooms[key], membership.permission == .write else {
            ack(key, batch, .permissionDenied)
            return nil
        }
        return membership
    }

    private func join(_ key: RoomKey, auth: [UInt8], version: [UInt8]) async {
        func refuse(_ code: JoinErrorCode, _ message: String, appCode: String? = nil) {
            send(SyncMessage(kind: key.kind, room: key.name, body: .joinError(code: code, message: message, receiverVersion: nil, appCode: appCode)))
        }
        guard key.kind == .loro || key.kind.isEphemeral else {
            return refuse(.unknown, "this server serves %LOR, %EPH and %EPS rooms, not \(key.kind)")
        }
        guard rooms[key] != nil || rooms.count < configuration.maxRoomsPerConnection else {
            return refuse(.appError, "at most \(configuration.maxRoomsPerConnection) rooms per connection", appCode: "too_many_rooms")
        }
        guard let permission = await authorizer.authorize(room: key, payload: auth) else {
            logger.notice("join refused", metadata: ["connection": "\(id)", "room": "\(key)"])
            return refuse(.authFailed, "authentication failed")
        }
        if rooms[key] != nil { await leave(key) }
        let room: Room
        do { room = try await registry.room(key) } catch {
            logger.error("room not loaded", metadata: ["room": "\(key)", "error": "\(error)"])
            return refuse(.unknown, error.description)
        }
        guard !closed else { return }
        if await room.join(id, outbox: outbox, permission: permission, version: version, maxMessageBytes: configuration.maxMessageBytes) {
            rooms[key] = Membership(room: room, permission: permission)
        } else if await room.memberCount == 0 {
            await registry.released(key)
        }
    }

    private func leave(_ key: RoomKey) async {
        guard let membership = rooms.removeValue(forKey: key) else { return }
        assembler.drop(kind: key.kind, room: key.name)
        if await membership.room.leave(id) == 0 { await registry.released(key) }
    }

    /// Drops fragment batches that timed out and tells the sender.
    func expireFragments() {
        for expired in assembler.expire(now: .now) {
            ack(RoomKey(kind: expired.kind, name: expired.room), expired.batch, .fragmentTimeout)
        }
    }

    /// Leaves every room (the connection ended).
    func disconnect() async {
        closed = true
        for key in Array(rooms.keys) { await leave(key) }
        outbox.finish()
    }
}

extension SyncMessage.Body {
    /// The message type's name in the protocol.
    var name: String {
        switch self {
        case .joinRequest: "JoinRequest"
        case .joinOk: "JoinResponseOk"
        case .joinError: "JoinError"
        case .update: "DocUpdate"
        case .fragmentHeader: "DocUpdateFragmentHeader"
        case .fragment: "DocUpdateFragment"
        case .roomError: "RoomError"
        case .leave: "Leave"
        case .ack: "Ack"
        }
    }
}
