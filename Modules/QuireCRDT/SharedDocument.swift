/// The one actor that owns a document for concurrent use: imports and edits run on it (for
/// example on a background task), while any thread reads the latest published ``CRDTDocument``
/// value, a Sendable copy-on-write snapshot.
///
/// Isolation model: a ``CRDTDocument`` value is never shared mutably; the actor holds the only
/// mutable copy. After each mutation it publishes a new value to `snapshot()` readers; a reader
/// that keeps an old value keeps reading that version (copy-on-write clones the state the first
/// time the actor mutates while an old value is still alive).
public actor SharedDocument {
    private var document: CRDTDocument
    private var continuations: [Int: AsyncStream<DocumentEvent>.Continuation] = [:]
    private var nextSubscriber = 0

    /// Wraps a document; events are recorded so subscribers receive them.
    public init(_ document: CRDTDocument) {
        var d = document
        d.recordsEvents = true
        self.document = d
    }

    /// The current state as a Sendable value.
    /// - Complexity: O(1) (copy-on-write).
    public func snapshot() -> CRDTDocument { document }

    /// Runs an edit in place and commits it; subscribers get the events. Each document operation
    /// is atomic; when `body` throws, the operations it completed before the error are committed.
    /// - Complexity: the edit's plus O(events).
    public func edit<T: Sendable>(_ body: @Sendable (inout CRDTDocument) throws(CRDTError) -> T) throws(CRDTError) -> T {
        defer { if let event = document.commit() { publish(event) } }
        return try body(&document)
    }

    /// Imports update or snapshot bytes; a failure leaves the document unchanged.
    /// - Complexity: as ``CRDTDocument/importUpdates(_:)``.
    @discardableResult
    public func importUpdates(_ bytes: [UInt8]) throws(CRDTError) -> ImportStatus {
        let status = try document.importUpdates(bytes)
        if let event = status.event { publish(event) }
        return status
    }

    /// Imports through `body` (another format's import, such as a sync codec's), publishing the
    /// events it reports (nil when it imported nothing); a throwing `body` must leave the
    /// document unchanged.
    /// - Complexity: as `body`.
    @discardableResult
    public func importUsing<E: Error>(_ body: @Sendable (inout CRDTDocument) throws(E) -> ImportStatus?) throws(E) -> ImportStatus? {
        let status = try body(&document)
        if let event = status?.event { publish(event) }
        return status
    }

    /// Updates since a version, for sending to a peer.
    /// - Complexity: O(size of the exported changes).
    public func exportUpdates(since version: VersionVector) -> [UInt8] { document.exportUpdates(since: version) }

    /// A stream of events for every later commit and import.
    /// - Complexity: O(1).
    public func events() -> AsyncStream<DocumentEvent> {
        let (stream, continuation) = AsyncStream<DocumentEvent>.makeStream()
        let id = nextSubscriber
        nextSubscriber += 1
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: Int) { continuations[id] = nil }

    private func publish(_ event: DocumentEvent) {
        for c in continuations.values { c.yield(event) }
    }
}
