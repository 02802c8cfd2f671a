import QuireBridge
import QuireCRDT
import QuireEditor
import QuireSyncProtocol

/// What a room keeps in sync: a document the client can read the version of, export from and
/// import into, and that says when it changed locally. ``SharedDocument`` (a CRDT document) and
/// ``BoundEditor`` (an editor bound to one) are the two the client ships.
public protocol SyncedDocument: Sendable {
    func currentVersion() async -> VersionVector
    func export(using codec: any DocumentCodec, since version: VersionVector) async -> [UInt8]
    /// Imports a payload from the server and returns the versions just before and after (read
    /// together with the import, so no local change falls between them). A refused payload
    /// leaves the document unchanged.
    func importPayload(_ payload: [UInt8], using codec: any DocumentCodec) async throws(SyncProtocolError) -> (before: VersionVector, after: VersionVector)
    /// Yields once after each local change (coalescing is fine: the client sends everything
    /// since what it last sent).
    func localChanges() async -> AsyncStream<Void>
}

extension SharedDocument: SyncedDocument {
    public func currentVersion() -> VersionVector { snapshot().version }

    public func export(using codec: any DocumentCodec, since version: VersionVector) -> [UInt8] {
        codec.exportPayload(snapshot(), since: version)
    }

    public func importPayload(_ payload: [UInt8], using codec: any DocumentCodec) throws(SyncProtocolError) -> (before: VersionVector, after: VersionVector) {
        let before = snapshot().version
        guard !payload.isEmpty else { return (before, before) }
        try importUsing { (document: inout CRDTDocument) throws(SyncProtocolError) -> ImportStatus? in
            try codec.importPayload(payload, into: &document)
        }
        return (before, snapshot().version)
    }

    public func localChanges() -> AsyncStream<Void> {
        let events = events()
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            for await event in events where event.origin == .local { continuation.yield() }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// An editor bound to a CRDT document (``EditorBinding``), owned by one actor so that the client
/// can import remote changes while the app edits through ``perform(_:)``.
public actor BoundEditor: SyncedDocument {
    private let binding: EditorBinding
    private var continuations: [Int: AsyncStream<Void>.Continuation] = [:]
    private var nextListener = 0

    /// Binds `editor` to `document` (see `EditorBinding.init`); the editor moves into the actor.
    public init(editor: sending Editor, document: CRDTDocument) throws(BridgeError) {
        binding = try EditorBinding(editor: editor, document: document)
    }

    /// Runs `body` with the binding (and so the editor) on the actor, then tells the client about
    /// the local changes it made.
    public func perform<T: Sendable, E: Error>(_ body: (EditorBinding) throws(E) -> T) throws(E) -> T {
        let before = binding.document.version
        defer { if binding.document.version != before { for c in continuations.values { c.yield() } } }
        return try body(binding)
    }

    /// The CRDT document now.
    public var document: CRDTDocument { binding.document }

    public func currentVersion() -> VersionVector { binding.document.version }

    public func export(using codec: any DocumentCodec, since version: VersionVector) -> [UInt8] {
        codec.exportPayload(binding.document, since: version)
    }

    /// Imports through the binding, so the editor shows the change as one remote transaction.
    public func importPayload(_ payload: [UInt8], using codec: any DocumentCodec) throws(SyncProtocolError) -> (before: VersionVector, after: VersionVector) {
        let before = binding.document.version
        guard !payload.isEmpty else { return (before, before) }
        do {
            switch codec {
            case is LoroBinaryCodec, is QuireBinaryCodec:
                // The CRDT reads both binary formats by their header, in place.
                try binding.importUpdates(payload)
            case is LoroJSONCodec:
                try binding.importJSONUpdates(String(decoding: payload, as: UTF8.self))
            default:
                // A codec of the app's: read the payload into a copy of the document (which copies
                // it, O(n)) and hand the binding what it added, in Quire's own updates.
                var scratch = binding.document
                _ = try codec.importPayload(payload, into: &scratch)
                try binding.importUpdates(scratch.exportUpdates(since: binding.document.version))
            }
        } catch let error as SyncProtocolError {
            throw error
        } catch {
            throw .rejectedUpdate("\(error)")
        }
        return (before, binding.document.version)
    }

    public func localChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextListener
        nextListener += 1
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeListener(id) } }
        return stream
    }

    private func removeListener(_ id: Int) { continuations[id] = nil }
}
