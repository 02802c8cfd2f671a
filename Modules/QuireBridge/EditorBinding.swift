import QuireCRDT
import QuireEditor
import QuireModel

/// Binds one `Editor` to one CRDT document in the schema of ``DocumentSchema``: the CRDT document
/// is the source of truth and the editor state its projection.
///
/// - Local commits become CRDT operations in one CRDT commit each (an undo step unless merged
///   into the previous one), with the transaction's tag as the commit's origin. Typing never
///   touches the tree; splitting and merging blocks insert and delete markers, so no character
///   changes place and concurrent typing stays where it was typed.
/// - Remote changes (``importUpdates(_:)``, ``importJSONUpdates(_:)``, or a
///   ``BindingWorker``-prepared import) become one `.remote` transaction that changes only the
///   blocks they touched; nothing goes to local history and nothing is echoed back.
/// - The selection (and, during IME composition, the marked range) is carried across remote
///   changes by stable cursors.
/// - The editor's history is the CRDT's undo manager (``CRDTHistory``): undo and redo revert this
///   peer's changes only, also after remote changes, and restore the selection.
///
/// A binding is used from the editor's thread, like the editor.
public final class EditorBinding {
    /// The editor kept in step.
    public let editor: Editor
    /// The CRDT document, the source of truth.
    public internal(set) var document: CRDTDocument
    /// Where every block's run is in the shared text.
    var runs: TextRuns
    /// Editor key ↔ tree node of every shown block.
    var treeOfKey: [NodeKey: TreeID] = [:]
    var keyOfTree: [TreeID: NodeKey] = [:]
    /// The undo manager behind the editor's history.
    var undoManager: CRDTUndoManager
    /// The commits of one undo step: the tag and time of the last local commit.
    var lastLocalTag: String?
    var lastLocalTime: Double = -.infinity
    var isGroupOpen = false
    /// While the binding applies a change to the editor: how many of the transaction's
    /// operations it wrote itself (any more were written by transforms and normalization, and go
    /// to the CRDT as a derived commit).
    var ownOperationCount: Int?
    private var listener: ListenerToken?
    private var transforms: [ListenerToken] = []
    /// Called with what went wrong when a local commit could not be written to the CRDT document
    /// (the editor is then shown the CRDT's projection again, so nothing diverges).
    public var onError: ((BridgeError) -> Void)?
    /// A diagnostic hook: told what each translation did (tests set it to explain a failure).
    var trace: ((String) -> Void)?

    /// The origin prefix of commits the binding makes for writes it did not get from the user
    /// (transforms run on a remote change): never an undo step.
    public static let derivedOrigin = "quire.bridge.derived"

    /// Binds `editor` to `document`. An empty document is seeded with the editor's state (one
    /// commit); otherwise the editor shows the document's projection (a whole-state swap) and
    /// the editor's previous content is dropped.
    ///
    /// - Parameters:
    ///   - mergeInterval: consecutive commits with the same tag closer than this (in milliseconds)
    ///     are one undo step, as the editor's own history merges typing.
    ///   - clock: the undo manager's clock in milliseconds, replaceable in tests.
    /// - Throws: `BridgeError` when the document cannot be read or written; nothing is bound.
    public convenience init(
        editor: Editor, document: CRDTDocument, mergeInterval: Double = 1000,
        clock: @escaping CRDTUndoManager.Clock = CRDTUndoManager.systemClock
    ) throws(BridgeError) {
        try self.init(editor: editor, document: document, projection: nil, mergeInterval: mergeInterval, clock: clock)
    }

    /// The one initializer: `projection`, when given, is the document's projection computed
    /// elsewhere (``BindingWorker``).
    init(
        editor: Editor, document: CRDTDocument, projection: (state: EditorState, runs: TextRuns, keys: [TreeID: NodeKey])?,
        mergeInterval: Double, clock: @escaping CRDTUndoManager.Clock
    ) throws(BridgeError) {
        self.editor = editor
        var document = document
        DocumentSchema.configure(&document)
        let isEmpty = document.length(of: DocumentSchema.text) == 0 && document.children(of: nil, in: DocumentSchema.blocks).isEmpty
        if isEmpty {
            treeOfKey = try Projection.seed(&document, from: editor.state)
            for (key, id) in treeOfKey { keyOfTree[id] = key }
            runs = TextRuns(delta: document.toDelta(DocumentSchema.text))
        } else {
            let projected: (state: EditorState, runs: TextRuns, keys: [TreeID: NodeKey])
            if let projection {
                projected = projection
            } else {
                let runs = TextRuns(delta: document.toDelta(DocumentSchema.text))
                let result = try Projection.project(document, registry: editor.state.registry, runs: runs)
                projected = (result.state, runs, result.keys)
            }
            runs = projected.runs
            do { try editor.setState(projected.state) } catch { throw .editor(error.description) }
            keyOfTree = projected.keys
            for (id, key) in keyOfTree { treeOfKey[key] = id }
        }
        document.recordsEvents = true
        self.document = document
        var undo = CRDTUndoManager(document, clock: clock)
        undo.addExcludeOriginPrefix(Self.derivedOrigin)
        undoManager = undo
        self.mergeInterval = mergeInterval
        self.clock = clock
        editor.history = CRDTHistory(binding: self)
        listener = editor.registerUpdateListener { [unowned self] update in self.editorDidCommit(update) }
        transforms = Self.registerInlineFirst(on: editor)
    }

    /// The shared document holds a block's inline content as its run and its block children as
    /// tree children, so it shows the inline content first. A block that takes both (a list item
    /// holding a nested list) keeps its inline children before its block children in a bound
    /// editor too: a transform moves any that come after.
    private static func registerInlineFirst(on editor: Editor) -> [ListenerToken] {
        let registry = editor.state.registry
        return registry.registeredTypes.compactMap { type -> ListenerToken? in
            guard let plugin = registry.plugin(for: type), plugin.role == .element(inline: false),
                  plugin.childRule.accepts(type: .text, role: .text), plugin.childRule.accepts(type: .paragraph, role: .element(inline: false))
            else { return nil }
            return editor.registerNodeTransform(type) { (state: inout EditorState, key: NodeKey) throws(ModelError) in
                guard let firstBlock = state.children(of: key).first(where: { !$0.role.isInline })?.key else { return }
                let late = state.children(of: key).drop { $0.key != firstBlock }.filter(\.role.isInline).map(\.key)
                for child in late {
                    try state.detach(child)
                    try state.insert(child, before: firstBlock)
                }
            }
        }
    }

    let mergeInterval: Double
    let clock: CRDTUndoManager.Clock

    /// Stops following the editor; its history goes back to a fresh snapshot history.
    public func unbind() {
        for token in transforms { editor.unregister(token) }
        if let listener { editor.unregister(listener) }
        listener = nil
        editor.history = History()
    }

    deinit {
        if let listener { editor.unregister(listener) }
    }

    // MARK: Updates

    /// The updates (Quire's binary format) holding what `version` lacks.
    public func exportUpdates(since version: VersionVector = VersionVector()) -> [UInt8] {
        document.exportUpdates(since: version)
    }

    /// Imports a peer's updates (Quire's binary updates or snapshot) and shows them in the editor
    /// as one `.remote` transaction.
    ///
    /// - Throws: `BridgeError.crdt` for bytes the CRDT refuses; nothing changes.
    @discardableResult
    public func importUpdates(_ bytes: [UInt8]) throws(BridgeError) -> ImportStatus {
        try importChange { (document: inout CRDTDocument) throws(BridgeError) -> ImportStatus in
            do throws(CRDTError) { return try document.importUpdates(bytes) } catch { throw .crdt(error) }
        }
    }

    /// Imports Loro's JSON updates and shows them in the editor as one `.remote` transaction.
    ///
    /// - Throws: `BridgeError.crdt` wrapping the JSON error; nothing changes.
    @discardableResult
    public func importJSONUpdates(_ json: String) throws(BridgeError) -> ImportStatus {
        try importChange { (document: inout CRDTDocument) throws(BridgeError) -> ImportStatus in
            do throws(LoroJSONError) { return try document.importJSONUpdates(json) } catch { throw .schema("Loro JSON: \(error)") }
        }
    }

    /// Imports through `body` (in place: the CRDT leaves the document unchanged when it refuses
    /// the bytes), then shows the events in the editor. When the editor refuses the change (a bug,
    /// not bad input), it is shown the CRDT's projection again, so the two never part.
    private func importChange(_ body: (inout CRDTDocument) throws(BridgeError) -> ImportStatus) throws(BridgeError) -> ImportStatus {
        let carried = SelectionCursors(capturing: editor, binding: self)
        let status = try body(&document)
        do {
            try applyRemote(status.event, origin: .remote, selection: carried)
        } catch {
            onError?(error)
            resynchronize()
        }
        return status
    }

    /// Takes over a document that is this one plus imported changes, and shows `events` (what
    /// the import changed) in the editor. ``BindingWorker`` calls it with work done off the
    /// editor's thread.
    func adopt(_ imported: CRDTDocument, events: DocumentEvent?, selection: SelectionCursors) {
        document = imported
        do {
            try applyRemote(events, origin: .remote, selection: selection)
        } catch {
            onError?(error)
            resynchronize()
        }
    }
}
