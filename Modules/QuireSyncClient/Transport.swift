import HummingbirdWSClient
import Logging
import NIOCore
import Synchronization

/// A frame on the wire: protocol messages are binary, the keepalive is text.
public enum TransportFrame: Sendable, Equatable {
    case binary([UInt8])
    case text(String)
}

/// Why the client could not connect, join or send.
public enum SyncClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transport could not connect (or lost the connection while sending).
    case connection(String)
    /// The server refused the join: its code and message.
    case joinRefused(code: UInt8, message: String)
    /// The room is not joined (or was left).
    case notJoined(String)
    /// The client was closed.
    case closed
    /// The server did not answer in time.
    case timedOut(String)

    public var description: String {
        switch self {
        case let .connection(m): "connection failed: \(m)"
        case let .joinRefused(code, m): "join refused (code 0x\(String(code, radix: 16))): \(m)"
        case let .notJoined(room): "room \(room) is not joined"
        case .closed: "the client is closed"
        case let .timedOut(what): "timed out waiting for \(what)"
        }
    }
}

/// An open connection to a sync server.
public protocol SyncConnection: Sendable {
    /// Frames from the server; the stream ends when the connection closes.
    var incoming: AsyncStream<TransportFrame> { get }
    func send(_ frame: TransportFrame) async throws(SyncClientError)
    func close() async
}

/// How the client reaches a server: hummingbird-websocket's client on Linux (``WebSocketTransport``);
/// an app on Apple platforms may wrap `URLSessionWebSocketTask` in the same two protocols.
public protocol SyncTransport: Sendable {
    func connect(to url: String) async throws(SyncClientError) -> any SyncConnection
}

/// The WebSocket transport on hummingbird-websocket's client (SwiftNIO).
public struct WebSocketTransport: SyncTransport {
    public var maxMessageBytes: Int
    public var logger: Logger

    public init(maxMessageBytes: Int = 256 * 1024, logger: Logger = Logger(label: "quire.sync.transport")) {
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
    }

    public func connect(to url: String) async throws(SyncClientError) -> any SyncConnection {
        let (incoming, input) = AsyncStream.makeStream(of: TransportFrame.self)
        let (ready, readyInput) = AsyncStream.makeStream(of: Result<WebSocketOutboundWriter, SyncClientError>.self)
        let maxMessageBytes = maxMessageBytes, logger = logger
        let task = Task {
            do {
                try await WebSocketClient.connect(
                    url: url,
                    configuration: .init(maxFrameSize: maxMessageBytes, closeTimeout: .seconds(2), autoPing: .disabled),
                    logger: logger
                ) { inbound, outbound, _ in
                    readyInput.yield(.success(outbound))
                    readyInput.finish()
                    for try await message in inbound.messages(maxSize: maxMessageBytes) {
                        switch message {
                        case let .binary(buffer): input.yield(.binary(Array(buffer.readableBytesView)))
                        case let .text(text): input.yield(.text(text))
                        }
                    }
                }
            } catch {
                readyInput.yield(.failure(.connection("\(error)")))
            }
            readyInput.finish()
            input.finish()
        }
        var iterator = ready.makeAsyncIterator()
        switch await iterator.next() {
        case let .success(outbound)?:
            return WebSocketConnection(incoming: incoming, outbound: outbound, task: task)
        case let .failure(error)?:
            throw error
        case nil:
            throw .connection("the connection closed during the handshake")
        }
    }
}

final class WebSocketConnection: SyncConnection {
    let incoming: AsyncStream<TransportFrame>
    private let outbound: WebSocketOutboundWriter
    private let task: Task<Void, Never>

    init(incoming: AsyncStream<TransportFrame>, outbound: WebSocketOutboundWriter, task: Task<Void, Never>) {
        self.incoming = incoming
        self.outbound = outbound
        self.task = task
    }

    func send(_ frame: TransportFrame) async throws(SyncClientError) {
        do {
            switch frame {
            case let .binary(bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
            case let .text(text): try await outbound.write(.text(text))
            }
        } catch {
            throw .connection("send failed: \(error)")
        }
    }

    func close() async {
        do { try await outbound.close(.normalClosure, reason: nil) } catch {
            // Already closed by the server or the network: nothing left to close politely.
        }
        task.cancel()
        await task.value
    }
}
