/// The 4-byte prefix of every message: which kind of CRDT the room holds. The same room name with
/// two kinds is two rooms.
public struct CRDTKind: Hashable, Sendable, CustomStringConvertible {
    public let magic: [UInt8]

    /// "%LOR": a Loro document.
    public static let loro = CRDTKind(unchecked: "%LOR")
    /// "%EPH": a Loro ephemeral store (presence), relayed and kept in memory only.
    public static let ephemeral = CRDTKind(unchecked: "%EPH")
    /// "%EPS": a Loro ephemeral store the server persists, so new peers hydrate at once.
    public static let persistedEphemeral = CRDTKind(unchecked: "%EPS")
    /// "%YJS": a Yjs document (not served by Quire's server).
    public static let yjs = CRDTKind(unchecked: "%YJS")
    /// "%YAW": Yjs awareness (not served by Quire's server).
    public static let yjsAwareness = CRDTKind(unchecked: "%YAW")
    /// "%ELO": end-to-end encrypted Loro (not served by Quire's server).
    public static let encryptedLoro = CRDTKind(unchecked: "%ELO")
    /// "%FLO": a Flock document (not served by Quire's server).
    public static let flock = CRDTKind(unchecked: "%FLO")

    /// Every prefix the protocol defines.
    public static let all: [CRDTKind] = [.loro, .ephemeral, .persistedEphemeral, .yjs, .yjsAwareness, .encryptedLoro, .flock]

    private init(unchecked s: StaticString) {
        magic = Array(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// The kind with this prefix, when the protocol defines one.
    public init?(magic: [UInt8]) {
        guard let known = CRDTKind.all.first(where: { $0.magic == magic }) else { return nil }
        self = known
    }

    /// Whether payloads are ephemeral-store states (relayed as opaque bytes) rather than
    /// document updates.
    public var isEphemeral: Bool { self == .ephemeral || self == .persistedEphemeral }

    public var description: String { String(decoding: magic, as: UTF8.self) }
}

/// A room: its CRDT kind and its name (the same name with two kinds is two rooms).
public struct RoomKey: Hashable, Sendable, CustomStringConvertible {
    public var kind: CRDTKind
    public var name: String

    public init(kind: CRDTKind, name: String) {
        self.kind = kind
        self.name = name
    }

    public var description: String { "\(kind):\(name)" }
}

/// The 8 raw bytes that correlate an update batch (or fragment batch) with its `Ack`.
public struct BatchID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// - Precondition: exactly 8 bytes.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 8, "a batch ID has 8 bytes")
        self.bytes = bytes
    }

    /// The big-endian bytes of `value`.
    public init(_ value: UInt64) {
        bytes = (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    public var value: UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
    public var description: String { "0x" + bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

/// A member's right in a room, as the JoinResponseOk states it.
public enum Permission: String, Sendable, Equatable {
    case read
    case write
}

/// JoinError codes; unknown codes are kept as they came.
public struct JoinErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let unknown = JoinErrorCode(rawValue: 0x00)
    /// The receiver cannot interpret the requester's version; carries the receiver's version.
    public static let versionUnknown = JoinErrorCode(rawValue: 0x01)
    public static let authFailed = JoinErrorCode(rawValue: 0x02)
    /// Application-defined; carries an app code string.
    public static let appError = JoinErrorCode(rawValue: 0x7F)
}

/// RoomError codes: the peer has been removed from the room.
public struct RoomErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A hint to rejoin once (for example after missed updates).
    public static let rejoinSuggested = RoomErrorCode(rawValue: 0x01)
    /// Removed on purpose; clients must not rejoin on their own.
    public static let evicted = RoomErrorCode(rawValue: 0x02)
    public static let unknown = RoomErrorCode(rawValue: 0x7F)
}

/// The status byte of an `Ack`.
public struct UpdateStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let ok = UpdateStatus(rawValue: 0x00)
    public static let unknown = UpdateStatus(rawValue: 0x01)
    public static let permissionDenied = UpdateStatus(rawValue: 0x03)
    public static let invalidUpdate = UpdateStatus(rawValue: 0x04)
    public static let payloadTooLarge = UpdateStatus(rawValue: 0x05)
    public static let rateLimited = UpdateStatus(rawValue: 0x06)
    public static let fragmentTimeout = UpdateStatus(rawValue: 0x07)
    public static let appError = UpdateStatus(rawValue: 0x7F)

    public var description: String {
        switch self {
        case .ok: "ok"
        case .unknown: "unknown"
        case .permissionDenied: "permission_denied"
        case .invalidUpdate: "invalid_update"
        case .payloadTooLarge: "payload_too_large"
        case .rateLimited: "rate_limited"
        case .fragmentTimeout: "fragment_timeout"
        case .appError: "app_error"
        default: "status 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// One message of the Loro sync protocol (version 1): the CRDT kind, the room, and what it says.
public struct SyncMessage: Sendable, Equatable {
    public var kind: CRDTKind
    public var room: String
    public var body: Body

    public enum Body: Sendable, Equatable {
        /// 0x00: join with an application payload (Quire's server reads a UTF-8 token) and the
        /// requester's version (empty for none).
        case joinRequest(auth: [UInt8], version: [UInt8])
        /// 0x01: joined, with the receiver's version and extra metadata.
        case joinOk(permission: Permission, version: [UInt8], extra: [UInt8])
        /// 0x02: not joined. `receiverVersion` only with `versionUnknown`, `appCode` only with `appError`.
        case joinError(code: JoinErrorCode, message: String, receiverVersion: [UInt8]?, appCode: String?)
        /// 0x03: updates, acknowledged by `batch`.
        case update(updates: [[UInt8]], batch: BatchID)
        /// 0x04: the start of a fragmented update.
        case fragmentHeader(batch: BatchID, count: UInt64, totalBytes: UInt64)
        /// 0x05: one fragment.
        case fragment(batch: BatchID, index: UInt64, bytes: [UInt8])
        /// 0x06: removed from the room.
        case roomError(code: RoomErrorCode, message: String)
        /// 0x07: unsubscribe.
        case leave
        /// 0x08: the result of an update batch or fragment batch.
        case ack(batch: BatchID, status: UpdateStatus)
    }

    public init(kind: CRDTKind, room: String, body: Body) {
        self.kind = kind
        self.room = room
        self.body = body
    }

    /// The protocol's limits.
    public static let maxRoomBytes = 128
    /// The largest message the protocol allows (256 KiB).
    public static let maxMessageBytes = 256 * 1024
    /// The out-of-band keepalive text frames.
    public static let ping = "ping"
    public static let pong = "pong"

    /// The message's bytes.
    /// - Complexity: O(size).
    public func encoded() -> [UInt8] {
        var w = WireWriter(capacity: 16 + room.utf8.count + payloadSizeHint)
        w.raw(kind.magic)
        w.varString(room)
        switch body {
        case let .joinRequest(auth, version):
            w.byte(0x00)
            w.varBytes(auth)
            w.varBytes(version)
        case let .joinOk(permission, version, extra):
            w.byte(0x01)
            w.varString(permission.rawValue)
            w.varBytes(version)
            w.varBytes(extra)
        case let .joinError(code, message, receiverVersion, appCode):
            w.byte(0x02)
            w.byte(code.rawValue)
            w.varString(message)
            if code == .versionUnknown, let receiverVersion { w.varBytes(receiverVersion) }
            if code == .appError, let appCode { w.varString(appCode) }
        case let .update(updates, batch):
            w.byte(0x03)
            w.uleb(UInt64(updates.count))
            for u in updates { w.varBytes(u) }
            w.raw(batch.bytes)
        case let .fragmentHeader(batch, count, totalBytes):
            w.byte(0x04)
            w.raw(batch.bytes)
            w.uleb(count)
            w.uleb(totalBytes)
        case let .fragment(batch, index, bytes):
            w.byte(0x05)
            w.raw(batch.bytes)
            w.uleb(index)
            w.varBytes(bytes)
        case let .roomError(code, message):
            w.byte(0x06)
            w.byte(code.rawValue)
            w.varString(message)
        case .leave:
            w.byte(0x07)
        case let .ack(batch, status):
            w.byte(0x08)
            w.raw(batch.bytes)
            w.byte(status.rawValue)
        }
        return w.bytes
    }

    private var payloadSizeHint: Int {
        switch body {
        case let .update(updates, _): updates.reduce(8) { $0 + $1.count + 4 }
        case let .fragment(_, _, bytes): bytes.count + 16
        default: 32
        }
    }

    /// Reads one message. Trailing bytes, unknown types, over-long room names and truncated
    /// fields are errors naming the byte offset.
    /// - Complexity: O(size).
    public init(decoding bytes: [UInt8]) throws(SyncProtocolError) {
        var r = WireReader(bytes)
        let magic = try r.raw(4, "CRDT type")
        guard let kind = CRDTKind(magic: magic) else { throw .unknownCRDTType(magic) }
        let roomStart = r.offset
        let room = try r.varString("room id")
        guard room.utf8.count <= Self.maxRoomBytes else {
            throw .malformed(offset: roomStart, reason: "room id of \(room.utf8.count) bytes exceeds \(Self.maxRoomBytes)")
        }
        let typeOffset = r.offset
        let type = try r.byte("message type")
        func batchID(_ r: inout WireReader) throws(SyncProtocolError) -> BatchID { BatchID(bytes: try r.raw(8, "batch id")) }
        let body: Body
        switch type {
        case 0x00:
            body = .joinRequest(auth: try r.varBytes("join payload"), version: try r.varBytes("version"))
        case 0x01:
            let at = r.offset
            let p = try r.varString("permission")
            guard let permission = Permission(rawValue: p) else { throw .malformed(offset: at, reason: "permission \"\(p)\" is neither read nor write") }
            body = .joinOk(permission: permission, version: try r.varBytes("version"), extra: try r.varBytes("extra"))
        case 0x02:
            let code = JoinErrorCode(rawValue: try r.byte("join error code"))
            let message = try r.varString("join error message")
            var receiverVersion: [UInt8]?
            var appCode: String?
            if code == .versionUnknown, !r.isAtEnd { receiverVersion = try r.varBytes("receiver version") }
            if code == .appError, !r.isAtEnd { appCode = try r.varString("app code") }
            body = .joinError(code: code, message: message, receiverVersion: receiverVersion, appCode: appCode)
        case 0x03:
            // Each update takes at least its one length byte, so the count is bounded by the input.
            let count = try r.length("update count")
            var updates: [[UInt8]] = []
            updates.reserveCapacity(count)
            for i in 0..<count { updates.append(try r.varBytes("update \(i)")) }
            body = .update(updates: updates, batch: try batchID(&r))
        case 0x04:
            body = .fragmentHeader(batch: try batchID(&r), count: try r.uleb("fragment count"), totalBytes: try r.uleb("total size"))
        case 0x05:
            body = .fragment(batch: try batchID(&r), index: try r.uleb("fragment index"), bytes: try r.varBytes("fragment"))
        case 0x06:
            body = .roomError(code: RoomErrorCode(rawValue: try r.byte("room error code")), message: try r.varString("room error message"))
        case 0x07:
            body = .leave
        case 0x08:
            body = .ack(batch: try batchID(&r), status: UpdateStatus(rawValue: try r.byte("ack status")))
        default:
            throw .malformed(offset: typeOffset, reason: "unknown message type 0x\(String(type, radix: 16))")
        }
        guard r.isAtEnd else { throw .malformed(offset: r.offset, reason: "\(r.remaining) trailing bytes") }
        self.init(kind: kind, room: room, body: body)
    }
}
