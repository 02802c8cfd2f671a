/// Splits a payload into the messages that carry it: one `DocUpdate` when it fits, otherwise a
/// `DocUpdateFragmentHeader` and `DocUpdateFragment`s, each message at most `maxMessageBytes`.
public enum UpdateFragmenter {
    /// Room name, type byte, batch ID, index and length prefixes: what a fragment adds to its bytes.
    static let overhead = 4 + 2 + SyncMessage.maxRoomBytes + 1 + 8 + 10 + 10

    /// - Complexity: O(payload size).
    public static func messages(kind: CRDTKind, room: String, payload: [UInt8], batch: BatchID,
                                maxMessageBytes: Int = SyncMessage.maxMessageBytes) -> [SyncMessage] {
        if payload.count + overhead <= maxMessageBytes {
            return [SyncMessage(kind: kind, room: room, body: .update(updates: [payload], batch: batch))]
        }
        let chunk = max(1, maxMessageBytes - overhead)
        let count = (payload.count + chunk - 1) / chunk
        var out = [SyncMessage(kind: kind, room: room, body: .fragmentHeader(batch: batch, count: UInt64(count), totalBytes: UInt64(payload.count)))]
        out.reserveCapacity(count + 1)
        for i in 0..<count {
            let start = i * chunk
            let part = Array(payload[start..<min(payload.count, start + chunk)])
            out.append(SyncMessage(kind: kind, room: room, body: .fragment(batch: batch, index: UInt64(i), bytes: part)))
        }
        return out
    }
}

/// Why a fragment batch was refused, with the `Ack` status that reports it.
public struct FragmentError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: UpdateStatus
    public var reason: String
    public var description: String { "\(status): \(reason)" }
}

/// Reassembles fragment batches within limits: fragments per batch, bytes per batch, batches open
/// at once, and a timeout after which a batch is dropped (and reported as `fragment_timeout`).
/// Memory held is at most `maxOpenBatches · maxBatchBytes`.
public struct FragmentAssembler: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maxFragments: Int
        public var maxBatchBytes: Int
        public var maxOpenBatches: Int
        public var timeout: Duration

        public init(maxFragments: Int = 4096, maxBatchBytes: Int = 64 << 20, maxOpenBatches: Int = 4, timeout: Duration = .seconds(10)) {
            self.maxFragments = maxFragments
            self.maxBatchBytes = maxBatchBytes
            self.maxOpenBatches = maxOpenBatches
            self.timeout = timeout
        }
    }

    struct Batch {
        var room: String
        var kind: CRDTKind
        var chunks: [[UInt8]?]
        var received = 0
        var receivedBytes = 0
        var totalBytes: Int
        var started: ContinuousClock.Instant
    }

    public var limits: Limits
    private var batches: [BatchID: Batch] = [:]

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// How many batches are being reassembled.
    public var openBatches: Int { batches.count }

    /// Starts a batch announced by a header.
    /// - Complexity: O(count) for the slots.
    public mutating func begin(kind: CRDTKind, room: String, batch: BatchID, count: UInt64, totalBytes: UInt64,
                               now: ContinuousClock.Instant) throws(FragmentError) {
        guard count > 0 else { throw FragmentError(status: .invalidUpdate, reason: "a fragment batch of 0 fragments") }
        guard count <= UInt64(limits.maxFragments) else {
            throw FragmentError(status: .payloadTooLarge, reason: "\(count) fragments exceed the limit of \(limits.maxFragments)")
        }
        guard totalBytes <= UInt64(limits.maxBatchBytes) else {
            throw FragmentError(status: .payloadTooLarge, reason: "\(totalBytes) bytes exceed the limit of \(limits.maxBatchBytes)")
        }
        if batches[batch] != nil { throw FragmentError(status: .invalidUpdate, reason: "batch \(batch) is already open") }
        guard batches.count < limits.maxOpenBatches else {
            throw FragmentError(status: .rateLimited, reason: "\(batches.count) fragment batches already open")
        }
        batches[batch] = Batch(room: room, kind: kind, chunks: Array(repeating: nil, count: Int(count)), totalBytes: Int(totalBytes), started: now)
    }

    /// Adds a fragment; returns the whole payload with its room when the batch is complete.
    /// - Complexity: O(fragment) and O(total) when it completes the batch.
    public mutating func add(kind: CRDTKind, room: String, batch: BatchID, index: UInt64, bytes: [UInt8]) throws(FragmentError) -> [UInt8]? {
        guard var b = batches[batch], b.room == room, b.kind == kind else {
            throw FragmentError(status: .fragmentTimeout, reason: "no open batch \(batch) in \(kind) \(room)")
        }
        guard index < UInt64(b.chunks.count) else {
            batches[batch] = nil
            throw FragmentError(status: .invalidUpdate, reason: "fragment \(index) of a batch of \(b.chunks.count)")
        }
        let i = Int(index)
        if b.chunks[i] == nil {
            guard b.receivedBytes + bytes.count <= b.totalBytes else {
                batches[batch] = nil
                throw FragmentError(status: .invalidUpdate, reason: "fragments exceed the announced \(b.totalBytes) bytes")
            }
            b.chunks[i] = bytes
            b.received += 1
            b.receivedBytes += bytes.count
        }
        guard b.received == b.chunks.count else {
            batches[batch] = b
            return nil
        }
        batches[batch] = nil
        guard b.receivedBytes == b.totalBytes else {
            throw FragmentError(status: .invalidUpdate, reason: "fragments hold \(b.receivedBytes) bytes, the header announced \(b.totalBytes)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(b.totalBytes)
        for chunk in b.chunks { out.append(contentsOf: chunk ?? []) }
        return out
    }

    /// Drops batches older than the timeout and returns them (room, kind, batch) to report.
    /// - Complexity: O(open batches).
    public mutating func expire(now: ContinuousClock.Instant) -> [(kind: CRDTKind, room: String, batch: BatchID)] {
        var out: [(kind: CRDTKind, room: String, batch: BatchID)] = []
        for (id, b) in batches where now - b.started >= limits.timeout {
            out.append((b.kind, b.room, id))
        }
        for e in out { batches[e.batch] = nil }
        return out
    }

    /// Drops the batches of one room (after a leave).
    public mutating func drop(kind: CRDTKind, room: String) {
        batches = batches.filter { !($0.value.room == room && $0.value.kind == kind) }
    }
}
