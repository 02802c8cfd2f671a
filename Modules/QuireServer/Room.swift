import Logging
import QuireCRDT
import QuireSyncProtocol

/// Why a room could not be loaded.
public struct RoomLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var room: String
    public var reason: String
    public var description: String { "room \(room) could not be loaded: \(reason)" }
}

/// One room: its CRDT document (or, for `%EPH`/`%EPS`, its retained presence payloads), its
/// members' outboxes, and what of the storage log the document holds. One actor per room, so a
/// room's imports are serialized while rooms run in parallel.
actor Room {
    struct Member {
        var outbox: Outbox
        var maxMessageBytes: Int
    }

    let key: RoomKey
    private let codec: any DocumentCodec
    private let ephemeralCodec: any EphemeralCodec
    private let storage: any RoomStorage
    private let logger: Logger
    private let compactionThreshold: Int

    private var document: CRDTDocument
    private var retained: [[UInt8]]
    private var members: [UInt64: Member] = [:]
    /// Sequences of stored updates the document holds and the current snapshot does not.
    private var covered: Set<Int64> = []
    private var generation: Int64
    private var compacting = false
    private var nextBatch: UInt64

    var memberCount: Int { members.count }
    var isDocument: Bool { !key.kind.isEphemeral }
    /// The document's version (for tests and logs).
    var version: VersionVector { document.version }

    private init(key: RoomKey, codec: any DocumentCodec, ephemeralCodec: any EphemeralCodec, storage: any RoomStorage,
                 logger: Logger, compactionThreshold: Int, document: CRDTDocument, retained: [[UInt8]], covered: Set<Int64>, generation: Int64) {
        self.key = key
        self.codec = codec
        self.ephemeralCodec = ephemeralCodec
        self.storage = storage
        self.logger = logger
        self.compactionThreshold = compactionThreshold
        self.document = document
        self.retained = retained
        self.covered = covered
        self.generation = generation
        nextBatch = UInt64.random(in: 1...(UInt64.max >> 1))
    }

    /// Loads a room from storage: the snapshot, then every update appended since.
    /// - Complexity: O(stored size) plus the imports.
    static func load(_ key: RoomKey, codec: any DocumentCodec, ephemeralCodec: any EphemeralCodec, storage: any RoomStorage,
                     logger: Logger, compactionThreshold: Int) async throws(RoomLoadError) -> Room {
        let stored: StoredRoom
        do { stored = try await storage.load(key) } catch { throw RoomLoadError(room: key.description, reason: error.description) }
        var document = CRDTDocument(peer: PeerID.random(in: 1...PeerID.max))
        var covered: Set<Int64> = []
        if !key.kind.isEphemeral {
            if let stored = stored.codec, stored != codec.name {
                throw RoomLoadError(room: key.description, reason: "stored with codec \(stored), the server runs \(codec.name)")
            }
            do throws(SyncProtocolError) {
                if let snapshot = stored.snapshot, !snapshot.isEmpty {
                    document = try codec.loadSnapshot(snapshot, peer: document.peer)
                }
                for update in stored.updates {
                    _ = try codec.importPayload(update.payload, into: &document)
                    covered.insert(update.sequence)
                }
            } catch {
                throw RoomLoadError(room: key.description, reason: "stored data does not import: \(error)")
            }
        }
        return Room(key: key, codec: codec, ephemeralCodec: ephemeralCodec, storage: storage, logger: logger,
                    compactionThreshold: compactionThreshold, document: document,
                    retained: key.kind == .persistedEphemeral ? stored.ephemeral : [], covered: covered, generation: stored.generation)
    }

    private func batchID() -> BatchID {
        nextBatch &+= 1
        return BatchID(nextBatch)
    }

    private func send(_ payload: [UInt8], to member: Member) {
        for message in UpdateFragmenter.messages(kind: key.kind, room: key.name, payload: payload, batch: batchID(), maxMessageBytes: member.maxMessageBytes) {
            member.outbox.send(.binary(message.encoded()))
        }
    }

    private func broadcast(_ payload: [UInt8], except sender: UInt64?) {
        for (id, member) in members where id != sender { send(payload, to: member) }
    }

    /// Adds a member: sends JoinResponseOk and then exactly what its version lacks (for
    /// documents), or the retained presence (for ephemeral rooms). A version the codec cannot
    /// read gets `JoinError version_unknown` with the room's version.
    /// - Complexity: O(size of the backfill).
    func join(_ id: UInt64, outbox: Outbox, permission: Permission, version: [UInt8], maxMessageBytes: Int) -> Bool {
        let member = Member(outbox: outbox, maxMessageBytes: maxMessageBytes)
        if key.kind.isEphemeral {
            members[id] = member
            outbox.send(.binary(SyncMessage(kind: key.kind, room: key.name, body: .joinOk(permission: permission, version: [], extra: [])).encoded()))
            for payload in retained { send(payload, to: member) }
            return true
        }
        let known: VersionVector
        do { known = try codec.decodeVersion(version) } catch {
            outbox.send(.binary(SyncMessage(kind: key.kind, room: key.name, body: .joinError(
                code: .versionUnknown, message: error.description, receiverVersion: codec.encodeVersion(document.version), appCode: nil)).encoded()))
            return false
        }
        members[id] = member
        outbox.send(.binary(SyncMessage(kind: key.kind, room: key.name, body: .joinOk(
            permission: permission, version: codec.encodeVersion(document.version), extra: [])).encoded()))
        let backfill = codec.exportPayload(document, since: known)
        if !backfill.isEmpty { send(backfill, to: member) }
        return true
    }

    /// Removes a member; returns how many are left.
    func leave(_ id: UInt64) -> Int {
        members[id] = nil
        return members.count
    }

    /// Validates payloads by importing them, stores each that brings something new (one
    /// transaction each), broadcasts them to the other members after the commit, and returns the
    /// status to acknowledge. A refused payload leaves the document unchanged and reaches nobody.
    func apply(from sender: UInt64, payloads: [[UInt8]]) async -> UpdateStatus {
        if key.kind.isEphemeral { return await applyEphemeral(from: sender, payloads: payloads) }
        for payload in payloads {
            let before = document.version
            let status: ImportStatus?
            do { status = try codec.importPayload(payload, into: &document) } catch {
                logger.notice("update refused", metadata: ["room": "\(key)", "error": "\(error)"])
                return .invalidUpdate
            }
            // A payload that brings nothing (a resend after reconnecting) is acknowledged as is.
            guard let status, document.version != before || !status.pending.isEmpty else { continue }
            do {
                let sequence = try await storage.append(key, codec: codec.name, payload: payload)
                covered.insert(sequence)
            } catch {
                logger.error("update not stored", metadata: ["room": "\(key)", "error": "\(error)"])
                return .unknown
            }
            broadcast(payload, except: sender)
        }
        if covered.count >= compactionThreshold { await compact() }
        return .ok
    }

    private func applyEphemeral(from sender: UInt64, payloads: [[UInt8]]) async -> UpdateStatus {
        for payload in payloads {
            do { retained = try ephemeralCodec.fold(retained, payload) } catch {
                logger.notice("presence update refused", metadata: ["room": "\(key)", "error": "\(error)"])
                return error.isTooLarge ? .payloadTooLarge : .invalidUpdate
            }
            if key.kind == .persistedEphemeral {
                do { try await storage.saveEphemeral(key, payloads: retained) } catch {
                    logger.error("presence not stored", metadata: ["room": "\(key)", "error": "\(error)"])
                    return .unknown
                }
            }
            broadcast(payload, except: sender)
        }
        return .ok
    }

    /// Imports an update another instance stored, and passes it on to every member here.
    func remoteAppend(_ sequence: Int64) async {
        guard isDocument, !covered.contains(sequence) else { return }
        let payload: [UInt8]?
        do { payload = try await storage.update(key, sequence: sequence) } catch {
            logger.error("remote update not read", metadata: ["room": "\(key)", "error": "\(error)"])
            return
        }
        guard let payload else {
            // Compacted away already: take everything from storage again (imports are idempotent).
            await refresh()
            return
        }
        guard !covered.contains(sequence) else { return }
        let before = document.version
        do { _ = try codec.importPayload(payload, into: &document) } catch {
            logger.error("remote update does not import", metadata: ["room": "\(key)", "error": "\(error)"])
            return
        }
        covered.insert(sequence)
        if document.version != before { broadcast(payload, except: nil) }
    }

    /// Imports the stored snapshot and log, and sends members what that added.
    func refresh() async {
        let stored: StoredRoom
        do { stored = try await storage.load(key) } catch {
            logger.error("room not reloaded", metadata: ["room": "\(key)", "error": "\(error)"])
            return
        }
        let before = document.version
        do throws(SyncProtocolError) {
            if let snapshot = stored.snapshot, !snapshot.isEmpty { _ = try codec.importPayload(snapshot, into: &document) }
            for update in stored.updates where !covered.contains(update.sequence) {
                _ = try codec.importPayload(update.payload, into: &document)
                covered.insert(update.sequence)
            }
        } catch {
            logger.error("stored data does not import", metadata: ["room": "\(key)", "error": "\(error)"])
        }
        generation = max(generation, stored.generation)
        let delta = codec.exportPayload(document, since: before)
        if !delta.isEmpty { broadcast(delta, except: nil) }
    }

    /// Folds the updates the document holds into a snapshot, in one storage transaction that also
    /// removes exactly those updates. When another instance compacted first, its snapshot is
    /// merged (members receive what it added) and the compaction is tried again.
    func compact() async {
        guard isDocument, !compacting, !covered.isEmpty else { return }
        compacting = true
        defer { compacting = false }
        for _ in 0..<3 {
            let snapshot = codec.exportSnapshot(document)
            let batch = Array(covered)
            let result: CompactionResult
            do { result = try await storage.compact(key, codec: codec.name, snapshot: snapshot, covered: batch, expectedGeneration: generation) } catch {
                logger.error("compaction failed", metadata: ["room": "\(key)", "error": "\(error)"])
                return
            }
            switch result {
            case let .compacted(next):
                generation = next
                covered.subtract(batch)
                logger.debug("compacted", metadata: ["room": "\(key)", "updates": "\(batch.count)", "snapshot.bytes": "\(snapshot.count)"])
                return
            case let .stale(stored, next):
                let before = document.version
                do { _ = try codec.importPayload(stored, into: &document) } catch {
                    logger.error("stored snapshot does not import", metadata: ["room": "\(key)", "error": "\(error)"])
                    return
                }
                generation = next
                let delta = codec.exportPayload(document, since: before)
                if !delta.isEmpty { broadcast(delta, except: nil) }
            }
        }
    }

    /// Closes every member's connection with a room error (used when the server stops).
    func evictAll(reason: String) {
        for member in members.values {
            member.outbox.send(.binary(SyncMessage(kind: key.kind, room: key.name, body: .roomError(code: .rejoinSuggested, message: reason)).encoded()))
        }
        members = [:]
    }
}

extension SyncProtocolError {
    var isTooLarge: Bool {
        if case .tooLarge = self { return true }
        return false
    }
}
