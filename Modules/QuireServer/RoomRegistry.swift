import Logging
import QuireSyncProtocol

/// The loaded rooms: a room loads on its first join (concurrent joins wait for the same load)
/// and unloads, after a compaction, once it has had no members for the idle timeout.
actor RoomRegistry {
    private var rooms: [RoomKey: Room] = [:]
    private var loading: [RoomKey: Task<Room, any Error>] = [:]
    /// Per room, a counter that invalidates pending unloads when someone joins again.
    private var epochs: [RoomKey: Int] = [:]
    private let configuration: SyncServerConfiguration
    private let storage: any RoomStorage
    private let logger: Logger
    private var stopping = false

    init(configuration: SyncServerConfiguration, storage: any RoomStorage, logger: Logger) {
        self.configuration = configuration
        self.storage = storage
        self.logger = logger
    }

    var loadedRooms: [RoomKey] { Array(rooms.keys) }

    /// The loaded room, loading it when needed.
    func room(_ key: RoomKey) async throws(RoomLoadError) -> Room {
        guard !stopping else { throw RoomLoadError(room: key.description, reason: "the server is stopping") }
        epochs[key, default: 0] += 1
        if let room = rooms[key] { return room }
        let task: Task<Room, any Error>
        if let pending = loading[key] {
            task = pending
        } else {
            let configuration = configuration, storage = storage, logger = logger
            task = Task {
                try await Room.load(key, codec: configuration.codec, ephemeralCodec: configuration.ephemeral, storage: storage,
                                    logger: logger, compactionThreshold: configuration.compactionThreshold)
            }
            loading[key] = task
        }
        do {
            let room = try await task.value
            loading[key] = nil
            rooms[key] = room
            return room
        } catch let error as RoomLoadError {
            loading[key] = nil
            throw error
        } catch {
            loading[key] = nil
            throw RoomLoadError(room: key.description, reason: "\(error)")
        }
    }

    /// Called when a room's last member left: unloads it after the idle timeout unless someone
    /// joined in between.
    func released(_ key: RoomKey) {
        let epoch = epochs[key, default: 0]
        let timeout = configuration.idleRoomTimeout
        Task {
            try? await Task.sleep(for: timeout)
            await self.unloadIfIdle(key, epoch: epoch)
        }
    }

    private func unloadIfIdle(_ key: RoomKey, epoch: Int) async {
        guard epochs[key, default: 0] == epoch, let room = rooms[key], await room.memberCount == 0 else { return }
        await room.compact()
        guard epochs[key, default: 0] == epoch, await room.memberCount == 0 else { return }
        rooms[key] = nil
        epochs[key] = nil
        logger.debug("room unloaded", metadata: ["room": "\(key)"])
    }

    /// Hands an update another instance stored to the room, when it is loaded here.
    func remoteAppend(_ append: RemoteAppend) async {
        guard let room = rooms[append.room] else { return }
        await room.remoteAppend(append.sequence)
    }

    /// Stops loading rooms, compacts every loaded room and tells members to rejoin elsewhere.
    func shutdown() async {
        stopping = true
        for (_, room) in rooms {
            await room.compact()
            await room.evictAll(reason: "server stopping")
        }
        rooms = [:]
    }
}
