import Synchronization

/// A frame queued for one connection.
enum OutboundFrame: Sendable {
    case binary([UInt8])
    case text(String)
    /// Close with a WebSocket close code and reason, then stop.
    case close(code: UInt16, reason: String)
}

/// One connection's outgoing queue, bounded in bytes. Rooms enqueue without waiting; the
/// connection's writer drains it at the pace of the socket. A connection whose queue passes the
/// bound is a slow consumer: its queue is dropped (so its memory is freed at once), it stops
/// receiving, and `onOverflow` closes it.
final class Outbox: Sendable {
    private struct State {
        var queuedBytes = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let continuation: AsyncStream<OutboundFrame>.Continuation
    let frames: AsyncStream<OutboundFrame>
    let limit: Int
    private let onOverflow: @Sendable () -> Void

    init(limit: Int, onOverflow: @escaping @Sendable () -> Void) {
        (frames, continuation) = AsyncStream.makeStream(of: OutboundFrame.self)
        self.limit = limit
        self.onOverflow = onOverflow
    }

    static func size(_ frame: OutboundFrame) -> Int {
        switch frame {
        case let .binary(b): b.count
        case let .text(t): t.utf8.count
        case let .close(_, reason): reason.utf8.count + 2
        }
    }

    /// Queues a frame; false when the connection is closed or has just overflowed.
    /// - Complexity: O(1).
    @discardableResult
    func send(_ frame: OutboundFrame) -> Bool {
        let size = Self.size(frame)
        let overflowed = state.withLock { s -> Bool? in
            if s.closed { return nil }
            if s.queuedBytes + size > limit {
                s.closed = true
                return true
            }
            s.queuedBytes += size
            return false
        }
        switch overflowed {
        case nil: return false
        case true?:
            continuation.finish()
            onOverflow()
            return false
        case false?:
            continuation.yield(frame)
            return true
        }
    }

    /// Called by the writer once a frame is on the socket.
    func sent(_ frame: OutboundFrame) {
        let size = Self.size(frame)
        state.withLock { $0.queuedBytes -= size }
    }

    /// Bytes waiting to be written.
    var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// Queues a close frame and accepts nothing after it.
    func close(code: UInt16, reason: String) {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        continuation.yield(.close(code: code, reason: reason))
        continuation.finish()
    }

    /// Stops the writer without a close frame.
    func finish() {
        state.withLock { $0.closed = true }
        continuation.finish()
    }
}
