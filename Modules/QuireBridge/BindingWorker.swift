import QuireCRDT
import QuireEditor
import QuireModel

/// Does a binding's heavy work off the editor's thread: building a CRDT document from Lexical
/// JSON, projecting a document into an editor state, and importing a peer's bytes. Only applying
/// the result touches the editor (``EditorBinding/apply(_:)``, ``EditorBinding/init(editor:prepared:mergeInterval:clock:)``).
///
/// ```swift
/// let worker = BindingWorker()
/// let prepared = try await worker.prepareImport(bytes, into: binding.document)
/// try binding.apply(prepared)          // on the editor's thread
/// ```
public actor BindingWorker {
    public init() {}

    /// A CRDT document in the schema holding a Lexical JSON document (one commit by `peer`).
    ///
    /// - Throws: `LexicalJSONError` for a document that does not import, `BridgeError` when the
    ///   CRDT refuses it.
    /// - Complexity: O(n · log n).
    public func document(fromLexicalJSON bytes: [UInt8], registry: NodeRegistry, peer: PeerID) throws -> CRDTDocument {
        let state = try LexicalJSON.importState(from: bytes, registry: registry)
        var document = CRDTDocument(peer: peer)
        try Projection.seed(&document, from: state)
        return document
    }

    /// The projection of `document` under `registry`, ready for a binding.
    ///
    /// - Complexity: O(n · log n).
    public func project(_ document: CRDTDocument, registry: NodeRegistry) throws(BridgeError) -> PreparedProjection {
        var document = document
        DocumentSchema.configure(&document)
        let runs = TextRuns(delta: document.toDelta(DocumentSchema.text))
        let projected = try Projection.project(document, registry: registry, runs: runs)
        return PreparedProjection(document: document, state: projected.state, runs: runs, keys: projected.keys)
    }

    /// Imports `bytes` into a copy of `document` (a binding's document as it is now).
    ///
    /// - Throws: `BridgeError.crdt` for bytes the CRDT refuses.
    /// - Complexity: the import's, plus copying the document's storage once.
    public func prepareImport(_ bytes: [UInt8], into document: CRDTDocument) throws(BridgeError) -> PreparedImport {
        var copy = document
        copy.recordsEvents = true
        let status: ImportStatus
        do { status = try copy.importUpdates(bytes) } catch { throw .crdt(error) }
        return PreparedImport(bytes: bytes, base: document.version, document: copy, status: status)
    }
}

/// A CRDT document and its projection, prepared off the editor's thread.
public struct PreparedProjection: Sendable {
    public let document: CRDTDocument
    /// The editor state the document stands for.
    public let state: EditorState
    let runs: TextRuns
    let keys: [TreeID: NodeKey]
}

/// A peer's bytes imported into a copy of a binding's document, off the editor's thread.
public struct PreparedImport: Sendable {
    /// The bytes, kept in case the binding's document moved on meanwhile.
    public let bytes: [UInt8]
    /// The version the import was made on.
    public let base: VersionVector
    let document: CRDTDocument
    /// What the import applied and what waits for missing changes.
    public let status: ImportStatus
}

extension EditorBinding {
    /// Binds `editor` to a document projected off the editor's thread: the editor shows the
    /// projection (one whole-state swap) without computing it here.
    public convenience init(
        editor: Editor, prepared: PreparedProjection, mergeInterval: Double = 1000,
        clock: @escaping CRDTUndoManager.Clock = CRDTUndoManager.systemClock
    ) throws(BridgeError) {
        try self.init(editor: editor, document: prepared.document, projection: (prepared.state, prepared.runs, prepared.keys), mergeInterval: mergeInterval, clock: clock)
    }

    /// Shows a prepared import in the editor. When the document changed since the worker copied
    /// it (local edits in between), the bytes are imported again here instead.
    @discardableResult
    public func apply(_ prepared: PreparedImport) throws(BridgeError) -> ImportStatus {
        guard document.version == prepared.base else { return try importUpdates(prepared.bytes) }
        let carried = SelectionCursors(capturing: editor, binding: self)
        adopt(prepared.document, events: prepared.status.event, selection: carried)
        return prepared.status
    }
}
