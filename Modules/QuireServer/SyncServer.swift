import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import QuireSyncProtocol
import ServiceLifecycle
import UnixSignals
import Synchronization

/// The Loro sync protocol over WebSocket on Hummingbird: the endpoint is the root path
/// (`ws://HOST:PORT/`), rooms are named inside the messages. Rooms hold a CRDT document each,
/// loaded from ``RoomStorage`` on first join; updates are validated by importing them,
/// acknowledged after their storage transaction commits and broadcast to the other members.
///
/// ```swift
/// let server = SyncServer(configuration: .init(port: 8787), storage: try SQLiteStorage(path: "quire-rooms.sqlite"),
///                         authorizer: OpenAuthorizer(), logger: Logger(label: "quire.serve"))
/// try await server.run(signals: [.sigterm, .sigint]) { port in print("listening on \(port)") }
/// ```
public final class SyncServer: Sendable {
    public let configuration: SyncServerConfiguration
    public let storage: any RoomStorage
    public let authorizer: any Authorizer
    private let logger: Logger
    private let registry: RoomRegistry
    private let group = Mutex<ServiceGroup?>(nil)
    private let stopRequested = Mutex(false)
    private let connectionIDs = Atomic<UInt64>(0)

    public init(configuration: SyncServerConfiguration, storage: any RoomStorage, authorizer: any Authorizer, logger: Logger) {
        self.configuration = configuration
        self.storage = storage
        self.authorizer = authorizer
        self.logger = logger
        registry = RoomRegistry(configuration: configuration, storage: storage, logger: logger)
    }

    /// Serves until ``shutdown()`` or one of `signals`, then closes every connection, compacts
    /// every loaded room and closes the storage. `onReady` gets the bound port once the server
    /// accepts connections.
    public func run(signals: [UnixSignal] = [], onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = Router()
        router.get("/") { _, _ in "Quire sync server: connect with a WebSocket to this address.\n" }
        let application = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: .init(
                maxFrameSize: configuration.maxMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)), closeTimeout: .seconds(2)))
            ) { [self] request, channel, _ in
                guard request.path == "/" || request.path?.hasPrefix("/?") == true else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    await self.serve(inbound: inbound, outbound: outbound, channel: channel)
                }
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let fanOut = FanOutService(storage: storage, registry: registry)
        let serviceGroup = ServiceGroup(configuration: .init(
            services: [.init(service: fanOut), .init(service: application)],
            gracefulShutdownSignals: signals,
            logger: logger
        ))
        group.withLock { $0 = serviceGroup }
        if stopRequested.withLock({ $0 }) { await serviceGroup.triggerGracefulShutdown() }
        do {
            try await serviceGroup.run()
        } catch {
            await finish()
            throw error
        }
        await finish()
    }

    private func finish() async {
        await registry.shutdown()
        await storage.close()
        logger.notice("stopped; every acknowledged update is stored")
    }

    /// Starts a graceful shutdown: no new connections, open ones closed, rooms compacted.
    public func shutdown() async {
        stopRequested.withLock { $0 = true }
        if let serviceGroup = group.withLock({ $0 }) { await serviceGroup.triggerGracefulShutdown() }
    }

    /// Rooms loaded right now (for tests and monitoring).
    public func loadedRooms() async -> [RoomKey] { await registry.loadedRooms }

    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async {
        let id = connectionIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let logger = logger
        let outbox = Outbox(limit: configuration.maxQueuedBytesPerConnection) {
            // A slow consumer: its socket is not draining, so a close frame could not get through.
            logger.notice("slow consumer disconnected", metadata: ["connection": "\(id)"])
            channel.close(promise: nil)
        }
        let connection = Connection(id: id, outbox: outbox, registry: registry, authorizer: authorizer, configuration: configuration, logger: logger)
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await Self.write(outbox, to: outbound) }
            tasks.addTask {
                // Fragment batches that stall are reported even when the peer sends nothing else.
                while !Task.isCancelled {
                    do { try await Task.sleep(for: .seconds(1)) } catch { return }
                    await connection.expireFragments()
                }
            }
            do {
                for try await message in inbound.messages(maxSize: configuration.maxMessageBytes) {
                    switch message {
                    case let .text(text): await connection.receive(text: text)
                    case let .binary(buffer): await connection.receive(binary: Array(buffer.readableBytesView))
                    }
                    if await connection.closed { break }
                }
            } catch {
                logger.notice("connection ended", metadata: ["connection": "\(id)", "error": "\(error)"])
            }
            await connection.disconnect()
            // The writer ends after the queued frames (or the close frame) are written.
            await tasks.next()
            tasks.cancelAll()
        }
    }

    private static func write(_ outbox: Outbox, to outbound: WebSocketOutboundWriter) async {
        do {
            for await frame in outbox.frames {
                switch frame {
                case let .binary(bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                case let .text(text): try await outbound.write(.text(text))
                case let .close(code, reason):
                    try await outbound.close(.init(codeNumber: Int(code)), reason: reason)
                    return
                }
                outbox.sent(frame)
            }
        } catch {
            outbox.finish()
        }
    }
}

/// Hands updates other instances stored (PostgreSQL's notifications) to the loaded rooms.
struct FanOutService: Service {
    let storage: any RoomStorage
    let registry: RoomRegistry

    func run() async throws {
        for await append in storage.remoteAppends().cancelOnGracefulShutdown() {
            await registry.remoteAppend(append)
        }
        // A storage without fan-out ends its stream at once: stay until the shutdown all the same
        // (a service that returns early stops the whole group).
        do { try await gracefulShutdown() } catch {
            // Cancelled: the group is stopping anyway.
        }
    }
}
