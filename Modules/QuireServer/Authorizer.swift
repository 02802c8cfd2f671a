import Foundation
import Logging
import QuireSyncProtocol
import Synchronization

/// Decides who may join a room and with which permission, from the JoinRequest's payload.
public protocol Authorizer: Sendable {
    /// The permission for this join, or nil to refuse it (the requester gets `JoinError auth_failed`).
    func authorize(room: RoomKey, payload: [UInt8]) async -> Permission?
}

/// Everyone joins every room with one permission (for local use and tests).
public struct OpenAuthorizer: Authorizer {
    public var permission: Permission
    public init(permission: Permission = .write) { self.permission = permission }
    public func authorize(room: RoomKey, payload: [UInt8]) async -> Permission? { permission }
}

/// A line of a token file that could not be read.
public struct TokenFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var reason: String
    public var description: String { "\(path):\(line): \(reason)" }
}

/// The built-in authorizer: a text file with one grant per line, `ROOM TOKEN read|write`, where
/// ROOM may be `*` for every room; blank lines and lines starting with `#` are ignored. The
/// JoinRequest's payload is the token as UTF-8. The file is read again when its modification time
/// or size changes (checked at every join); a file that no longer parses keeps the
/// previous grants in force and is logged.
public final class TokenFileAuthorizer: Authorizer {
    struct Grants: Sendable {
        var byRoom: [String: [String: Permission]] = [:]
        var stamp: FileStamp?
    }

    struct FileStamp: Equatable, Sendable {
        var modified: Date
        var size: Int
    }

    public let path: String
    private let logger: Logger
    private let state: Mutex<Grants>

    /// Reads the file; a missing or malformed file is an error here (later reloads only log).
    public init(path: String, logger: Logger = Logger(label: "quire.auth")) throws(TokenFileError) {
        self.path = path
        self.logger = logger
        let stamp = Self.stamp(path)
        let grants = try Self.parse(path: path)
        state = Mutex(Grants(byRoom: grants, stamp: stamp))
    }

    /// Parses the grants of a token file.
    /// - Complexity: O(file size).
    static func parse(path: String) throws(TokenFileError) -> [String: [String: Permission]] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw TokenFileError(path: path, line: 0, reason: "cannot read: \(error.localizedDescription)")
        }
        var grants: [String: [String: Permission]] = [:]
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 3 else {
                throw TokenFileError(path: path, line: i + 1, reason: "expected `ROOM TOKEN read|write`, found \(fields.count) fields")
            }
            guard let permission = Permission(rawValue: String(fields[2])) else {
                throw TokenFileError(path: path, line: i + 1, reason: "permission \"\(fields[2])\" is neither read nor write")
            }
            grants[String(fields[0]), default: [:]][String(fields[1])] = permission
        }
        return grants
    }

    static func stamp(_ path: String) -> FileStamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return FileStamp(modified: attributes[.modificationDate] as? Date ?? .distantPast, size: (attributes[.size] as? NSNumber)?.intValue ?? 0)
    }

    /// - Complexity: one `stat` per join; a parse when the file changed.
    private func reloadIfChanged() {
        let previous = state.withLock { $0.stamp }
        let stamp = Self.stamp(path)
        guard stamp != previous else { return }
        do {
            let grants = try Self.parse(path: path)
            state.withLock { $0.byRoom = grants; $0.stamp = stamp }
            logger.info("token file reloaded", metadata: ["path": "\(path)", "rooms": "\(grants.count)"])
        } catch {
            state.withLock { $0.stamp = stamp }
            logger.error("token file not reloaded, previous grants stay in force", metadata: ["error": "\(error)"])
        }
    }

    public func authorize(room: RoomKey, payload: [UInt8]) async -> Permission? {
        reloadIfChanged()
        guard let token = String(validating: payload, as: UTF8.self), !token.isEmpty else { return nil }
        return state.withLock { g in g.byRoom[room.name]?[token] ?? g.byRoom["*"]?[token] }
    }
}
