import Foundation
import QuireModel
import QuirePositionIndex
import QuireReconciler
import QuireSelection
import QuireStyle
import QuireTextStorage

/// The runtime: owns the current `EditorState`, runs update transactions, dispatches commands,
/// runs node transforms, keeps history, and keeps a `TextStorage` (or, headless, just the
/// position index) in step through the reconciler.
///
/// Every change is a commit, and every commit is a `Transaction`: the operations it performed,
/// its origin and tag. The commit runs the stages of `Editor.commitStages` in that order.
/// Edits from the text view come in through the native entry points (`replaceCharacters`,
/// `setMarkedText`, `selectionDidChange`) and flow one way: native range → selection →
/// transaction → reconciler → storage. The editor writes the storage only as its controller.
///
/// An editor is used from one thread or task at a time, like the text view it serves (it is not
/// `Sendable`; the states and transactions it hands out are).
public final class Editor {
    /// The committed state.
    public private(set) var state: EditorState
    /// The storage the text view shows; nil in headless mode.
    public var storage: TextStorage? { reconciler.storage }
    /// The reconciler and its position index.
    public let reconciler: Reconciler
    /// Undo and redo: the commit's history stage records local commits here. A CRDT binding
    /// installs its own (the CRDT's undo manager).
    public var history: any EditorHistory

    /// True while update bodies, transforms and normalization run on a pending state; an update
    /// called then is queued (`queuedBodies`) and runs on the same pending state.
    private var isRunningBodies = false
    private var queuedBodies: [(inout EditorState) throws(EditorError) -> Void] = []
    var updateListeners: [(id: Int, body: (EditorUpdate) -> Void)] = []
    var textListeners: [(id: Int, body: (TextContentChange) -> Void)] = []
    var errorListeners: [(id: Int, body: (EditorError) -> Void)] = []
    var followUps: [(id: Int, body: (EditorUpdate, Editor) -> Void)] = []
    var commandListeners: [String: [(id: Int, priority: CommandPriority, body: (Any, Editor) throws -> Bool)]] = [:]
    var payloadDecoders: [String: (JSONValue) throws -> Any] = [:]
    var commandNames = CommandNames()
    var transforms: [NodeType: [(id: Int, body: (inout EditorState, NodeKey) throws -> Void)]] = [:]
    var batchTransforms: [NodeType: [(id: Int, body: (inout EditorState, [NodeKey]) throws -> Void)]] = [:]
    private var nextListenerID = 0
    private var isApplyingNativeSelection = false

    /// The most node-transform passes an update may take before it is abandoned.
    public static let maximumTransformPasses = 99

    /// The stages every commit runs, in this order:
    /// 1. `transforms`: the node transforms registered for the types of the written nodes, then
    /// 2. `normalization`: adjacent text nodes with equal fields merge and empty ones go, and so
    ///    do neighbouring inline elements of one type with equal fields (two halves of a link); the two
    ///    repeat until a pass writes nothing new (at most `maximumTransformPasses`);
    /// 3. `validation`: a selection whose points no longer exist is clamped into the document;
    /// 4. `reconcile`: the change set derived from the transaction becomes the minimal storage
    ///    edits, the position index follows, and the native selection is updated;
    /// 5. `history`: a commit that changed the document goes to the history, which decides by
    ///    its origin (the default `History` makes local and reload commits undo steps and clears
    ///    itself on remote ones); undo and redo commits are the history's own;
    /// 6. `listeners`: update listeners get the `EditorUpdate`, text-content listeners the changes
    ///    to the flat string.
    /// A failure in stages 1–4 commits nothing; error listeners are told.
    public static let commitStages: [CommitStage] = CommitStage.allCases

    /// Creates an editor on `state`. With a storage, it renders the state into it and installs
    /// itself as the storage's native-edit handler (for a view that writes the storage itself).
    public init(state: EditorState = EditorState(paragraphs: [""]), storage: TextStorage? = nil, theme: Theme = .standard, history: any EditorHistory = History()) throws(EditorError) {
        var initial = state
        if initial.selection == nil, let firstBlock = initial.textBlocks().first {
            initial.selection = RangeSelection(caret: SelectionMapper.start(of: firstBlock, in: initial))
        }
        initial.clearDirtyNodes()
        self.state = initial
        self.history = history
        do { reconciler = try Reconciler(state: initial, storage: storage, theme: theme) } catch {
            throw .reconcile(error)
        }
        storage?.nativeEditHandler = { [weak self] edit in
            guard let self else { return .applyNatively }
            do throws(EditorError) {
                try self.applyNativeReplacement(Range(edit.range) ?? 0..<0, with: edit.replacement.string, isComposition: edit.isComposition)
                return .handled
            } catch {
                return .refused(reason: error.description)
            }
        }
        registerBuiltInCommands()
        syncNativeSelection()
    }

    // MARK: Transactions

    /// Runs `body` on a pending copy of the state and commits it through the commit stages
    /// (`commitStages`) as one transaction of `origin`.
    ///
    /// An update called while another update's body (or a transform) runs — from a command that
    /// body dispatches, say — is queued and runs on the same pending state right after it, in the
    /// same commit (Lexical's nested updates); inside an update, read the pending state through
    /// the body's parameter. If anything throws, nothing is committed: state, storage and
    /// selection stay as they were, and error listeners are told.
    ///
    /// - Parameters:
    ///   - tag: what history merges by ("typing", "delete", …).
    ///   - origin: `.local` for the user's edits; a binding applies remote changes with `.remote`
    ///     (transforms and reconciliation run, history does not record it), a history applies
    ///     its steps with `.undo`/`.redo`.
    ///   - runningTransforms: false for a state that is known to be a fixpoint already (an undo
    ///     step restoring a committed state).
    /// - Throws: `EditorError`; an error of another type thrown by `body` comes as `.thrown`.
    public func update<Failure: Error>(
        tag: String? = nil, origin: TransactionOrigin = .local, runningTransforms: Bool = true,
        _ body: @escaping (inout EditorState) throws(Failure) -> Void
    ) throws(EditorError) {
        let erased: (inout EditorState) throws(EditorError) -> Void = { state throws(EditorError) in
            do { try body(&state) } catch { throw EditorError(error) }
        }
        if isRunningBodies {
            queuedBodies.append(erased)
            return
        }
        try commit(origin: origin, tag: tag, runningTransforms: runningTransforms, erased)
    }

    /// Applies operations recorded elsewhere (a remote peer's change turned into operations, a
    /// reload's diff) as one transaction of `origin`, with `selection` afterwards (nil: the
    /// current selection, clamped if its nodes went away).
    ///
    /// - Throws: `EditorError.model(.operationMismatch)` when the operations do not fit the
    ///   state; nothing is committed.
    public func apply(_ operations: [EditOperation], origin: TransactionOrigin, tag: String? = nil, selection: RangeSelection? = nil) throws(EditorError) {
        try update(tag: tag, origin: origin) { (state: inout EditorState) throws(ModelError) in
            try state.apply(operations)
            if let selection { state.selection = selection }
        }
    }

    /// Reads the committed state.
    public func read<T, Failure: Error>(_ body: (EditorState) throws(Failure) -> T) throws(Failure) -> T {
        try body(state)
    }

    private func commit(
        origin: TransactionOrigin, tag: String?, runningTransforms: Bool, _ body: (inout EditorState) throws(EditorError) -> Void
    ) throws(EditorError) {
        let previous = state
        var next = state
        next.clearDirtyNodes()
        next.beginRecordingOperations()
        let update: EditorUpdate
        do throws(EditorError) {
            // The body, queued nested updates, then stages 1 and 2.
            var written: Set<NodeKey>
            do {
                isRunningBodies = true
                defer {
                    isRunningBodies = false
                    queuedBodies.removeAll()
                }
                try body(&next)
                try runQueuedBodies(&next)
                written = runningTransforms ? try runTransformsAndNormalization(&next) : next.dirtyNodes
            }
            // Stage 3: validation.
            if let selection = next.selection {
                do {
                    try next.validate(selection.anchor)
                    try next.validate(selection.focus)
                } catch {
                    next.selection = SelectionMapper.clamp(selection, in: next, previous: previous)
                }
            }
            var operations = next.endRecordingOperations()
            if next.selection != previous.selection { operations.append(.setSelection(old: previous.selection, new: next.selection)) }
            let transaction = Transaction(
                operations: operations, origin: origin, tag: tag,
                selectionBefore: previous.selection, selectionAfter: next.selection, writtenNodes: written
            )
            // Stage 4: reconcile.
            let changes = ChangeSet(transaction, from: previous, to: next)
            var textEdits: [FlatTextEdit] = []
            if !changes.isEmpty {
                do {
                    textEdits = try reconciler.reconcile(changes, from: previous, to: next, collectingTextEdits: !textListeners.isEmpty).textEdits
                } catch {
                    throw EditorError.reconcile(error)
                }
            }
            next.clearDirtyNodes()
            state = next
            syncNativeSelection()
            update = EditorUpdate(state: next, previousState: previous, transaction: transaction, changes: changes, textEdits: textEdits)
        } catch {
            for listener in errorListeners { listener.body(error) }
            throw error
        }
        // Stage 5: history (it decides by origin what becomes a step).
        if origin != .undo, origin != .redo, !update.changes.isEmpty { history.record(update) }
        // Stage 6: listeners.
        notifyListeners(of: update)
        // Then the follow-ups, whose edits commit on their own after every listener saw this one.
        for followUp in followUps { followUp.body(update, self) }
    }

    private func runQueuedBodies(_ next: inout EditorState) throws(EditorError) {
        while !queuedBodies.isEmpty {
            let queued = queuedBodies.removeFirst()
            try queued(&next)
        }
    }

    private func notifyListeners(of update: EditorUpdate) {
        for listener in updateListeners { listener.body(update) }
        if !update.textEdits.isEmpty {
            let change = TextContentChange(edits: update.textEdits, origin: update.transaction.origin)
            for listener in textListeners { listener.body(change) }
        }
    }

    /// Stages 1 and 2: node transforms, then text normalization, until a pass writes nothing new.
    /// Returns every node the update wrote.
    private func runTransformsAndNormalization(_ next: inout EditorState) throws(EditorError) -> Set<NodeKey> {
        var accumulated = next.dirtyNodes
        var toVisit = accumulated
        var passes = 0
        // Without a transform registered, stage 1 has nothing to run: the written nodes are not
        // looked up for it (a paste writes thousands).
        let hasTransforms = transforms.values.contains { !$0.isEmpty } || batchTransforms.values.contains { !$0.isEmpty }
        while !toVisit.isEmpty {
            passes += 1
            if passes > Self.maximumTransformPasses { throw EditorError.transformLoop(passes: Self.maximumTransformPasses) }
            next.clearDirtyNodes()
            // Stage 1: transforms, per node in key order, then per batch.
            var batches: [NodeType: [NodeKey]] = [:]
            for key in hasTransforms ? toVisit.sorted() : [] {
                // Most written nodes have no transform: their attachment is not looked up.
                guard let node = next[key] else { continue }
                let hasBatchTransform = batchTransforms[node.type] != nil
                let nodeTransforms = transforms[node.type] ?? []
                guard hasBatchTransform || !nodeTransforms.isEmpty, next.isAttached(key) else { continue }
                if hasBatchTransform { batches[node.type, default: []].append(key) }
                for transform in nodeTransforms where next[key] != nil {
                    do { try transform.body(&next, key) } catch { throw EditorError(error) }
                }
            }
            for (type, keys) in batches.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let attached = keys.filter { next.isAttached($0) && next[$0]?.type == type }
                guard !attached.isEmpty else { continue }
                for transform in batchTransforms[type] ?? [] {
                    do { try transform.body(&next, attached) } catch { throw EditorError(error) }
                }
            }
            try runQueuedBodies(&next)
            // Stage 2: normalization of the inline children of every element holding a written text
            // node or inline element, and of the elements around inline elements (where two
            // equal neighbouring links become one).
            var normalizedParents = Set<NodeKey>()
            for key in (next.dirtyNodes.isEmpty ? toVisit : toVisit.union(next.dirtyNodes)).sorted() {
                guard let node = next[key], node.role == .text || node.role == .element(inline: true) else { continue }
                var parent = node.parent
                // An element seen before had its inline ancestors walked then too.
                while let element = parent, normalizedParents.insert(element).inserted, let parentNode = next[element], next.isAttached(element) {
                    do {
                        try next.joinEqualInlineElements(in: element)
                        try next.normalizeTextChildren(of: element)
                    } catch {
                        throw EditorError.model(error)
                    }
                    guard parentNode.role == .element(inline: true) else { break }
                    parent = parentNode.parent
                }
            }
            toVisit = next.dirtyNodes
            accumulated.formUnion(toVisit)
        }
        return accumulated
    }

    /// Replaces the whole state (opening a document): a full render, then incremental again.
    /// History is cleared; listeners get a `.load` transaction without operations
    /// (`EditorUpdate.replacedWholeState`).
    public func setState(_ newState: EditorState) throws(EditorError) {
        var next = newState
        if next.selection == nil, let firstBlock = next.textBlocks().first {
            next.selection = RangeSelection(caret: SelectionMapper.start(of: firstBlock, in: next))
        }
        next.clearDirtyNodes()
        let previous = state
        let previousLength = reconciler.index.totalLength
        do { try reconciler.replaceState(with: next) } catch { throw .reconcile(error) }
        state = next
        history.clear()
        syncNativeSelection()
        let transaction = Transaction(operations: [], origin: .load, selectionBefore: previous.selection, selectionAfter: next.selection)
        let edits = textListeners.isEmpty ? [] : [FlatTextEdit(range: 0..<previousLength, replacement: FlatString.render(next))]
        notifyListeners(of: EditorUpdate(
            state: next, previousState: previous, transaction: transaction, changes: ChangeSet(), textEdits: edits, replacedWholeState: true
        ))
    }

    // MARK: Listeners

    /// Called after every commit (selection-only ones included) with what it did.
    @discardableResult
    public func registerUpdateListener(_ body: @escaping (EditorUpdate) -> Void) -> ListenerToken {
        register(body, in: \.updateListeners)
    }

    /// Called after a commit that changed the flat string, with the changes in the order made
    /// (never a whole-document render, except for `setState`).
    @discardableResult
    public func registerTextContentListener(_ body: @escaping (TextContentChange) -> Void) -> ListenerToken {
        register(body, in: \.textListeners)
    }

    /// Called with every error an update or a native edit threw.
    @discardableResult
    public func registerErrorListener(_ body: @escaping (EditorError) -> Void) -> ListenerToken {
        register(body, in: \.errorListeners)
    }

    /// Runs `body` after every commit's listeners with the update and this editor (see
    /// `EditorRegistrar.registerFollowUp(_:)`).
    @discardableResult
    public func registerFollowUp(_ body: @escaping (EditorUpdate, Editor) -> Void) -> ListenerToken {
        register(body, in: \.followUps)
    }

    /// Removes a listener, command handler or transform.
    public func unregister(_ token: ListenerToken) {
        updateListeners.removeAll { $0.id == token.id }
        followUps.removeAll { $0.id == token.id }
        textListeners.removeAll { $0.id == token.id }
        errorListeners.removeAll { $0.id == token.id }
        for name in commandListeners.keys { commandListeners[name]?.removeAll { $0.id == token.id } }
        for type in transforms.keys { transforms[type]?.removeAll { $0.id == token.id } }
        for type in batchTransforms.keys { batchTransforms[type]?.removeAll { $0.id == token.id } }
    }

    /// Appends a listener to one of the lists, under a new token.
    private func register<Body>(_ body: Body, in list: ReferenceWritableKeyPath<Editor, [(id: Int, body: Body)]>) -> ListenerToken {
        let token = makeToken()
        self[keyPath: list].append((token.id, body))
        return token
    }

    func makeToken() -> ListenerToken {
        nextListenerID += 1
        return ListenerToken(id: nextListenerID)
    }

    // MARK: History

    /// Steps back one history step. Returns false when there is nothing to undo.
    @discardableResult
    public func undo() throws(EditorError) -> Bool {
        if storage?.isComposing == true { try unmarkText() }
        return try history.undo(in: self)
    }

    /// Steps forward one history step. Returns false when there is nothing to redo.
    @discardableResult
    public func redo() throws(EditorError) -> Bool {
        if storage?.isComposing == true { try unmarkText() }
        return try history.redo(in: self)
    }

    // MARK: Native entry points

    /// The history tag of IME composition: a composition is one undo step of its own, apart from
    /// the typing before and after it, however often the IME changes the marked text.
    public static let compositionTag = "composition"

    /// What a text view calls when the user replaces a UTF-16 range with a string (typing, paste,
    /// delete with an empty string): the range becomes a selection, the edit a local transaction,
    /// and the reconciler writes the result into the storage.
    ///
    /// During IME composition it follows the platform contract (`insertText` of UITextInput and
    /// NSTextInputClient): a range inside the marked text (the view's caret in it) means the IME
    /// commits, so `string` replaces the whole marked text, the composition ends and the caret
    /// goes after the committed text, in the composition's undo step; a range elsewhere first
    /// commits the marked text as it is (``unmarkText()``), then replaces the range.
    ///
    /// - Throws: `EditorError`; nothing changes (a composition stays marked).
    public func replaceCharacters(in range: Range<Int>, with string: String) throws(EditorError) {
        guard let storage, let marked = storage.markedRange.flatMap({ Range($0) }) else {
            try applyNativeReplacement(range, with: string, isComposition: false)
            return
        }
        if range.lowerBound >= marked.lowerBound, range.upperBound <= marked.upperBound {
            try applyNativeReplacement(marked, with: string, isComposition: false, tag: Self.compositionTag)
            storage.endComposition()
            syncNativeSelection()
        } else {
            try unmarkText()
            try applyNativeReplacement(range, with: string, isComposition: false)
        }
    }

    /// IME: replaces the marked range (or the selection) with `string`, marked, with the caret at
    /// `selectedRange` inside it. Selection reconciliation waits until `unmarkText()`.
    ///
    /// - Throws: `EditorError.needsStorage` in headless mode, `.storage` when the replaced range
    ///   splits a grapheme cluster or `selectedRange` does not fit in `string`; nothing changes.
    public func setMarkedText(_ string: String, selectedRange: Range<Int>) throws(EditorError) {
        guard let storage else { throw .needsStorage(operation: "marked text") }
        let target: NSRange
        do { target = try storage.compositionTarget() } catch { throw .storage(error) }
        let length = string.utf16.count
        guard selectedRange.lowerBound >= 0, selectedRange.upperBound <= length else {
            throw .storage(.rangeOutOfBounds(range: NSRange(selectedRange), length: length))
        }
        try applyNativeReplacement(Range(target) ?? 0..<0, with: string, isComposition: true)
        do {
            try storage.markComposedText(NSRange(location: target.location, length: length), selectedRange: NSRange(selectedRange))
        } catch {
            throw .storage(error)
        }
    }

    /// IME: commits the marked text, which already carries the theme's attributes, and puts the
    /// caret after it (wherever the IME had its selection inside the composition).
    public func unmarkText() throws(EditorError) {
        guard let storage, let marked = storage.markedRange else { return }
        storage.endComposition()
        let end = marked.location + marked.length
        try selectionDidChange(end..<end)
    }

    /// The view's selection changed (the user moved the caret or dragged): a selection-only
    /// transaction. Ignored while composing, when the selection belongs to the IME.
    public func selectionDidChange(_ range: Range<Int>, isBackward: Bool = false) throws(EditorError) {
        if storage?.isComposing == true { return }
        var selection: RangeSelection
        do {
            selection = try SelectionMapper.selection(for: range, isBackward: isBackward, in: state, index: reconciler.index)
        } catch {
            throw .selection(error)
        }
        if selection.isCollapsed, selection.anchor.kind == .text, let node = state[selection.anchor.key] {
            selection.format = node.textFormat
            selection.style = node.textStyle
        } else {
            selection.format = state.selection?.format ?? []
        }
        let mapped = selection
        isApplyingNativeSelection = true
        defer { isApplyingNativeSelection = false }
        try update(origin: .local, runningTransforms: false) { (state: inout EditorState) in state.selection = mapped }
        if let storage {
            do { try storage.setSelectedRange(NSRange(range)) } catch { throw .storage(error) }
        }
    }

    /// The native selection (UTF-16 range) for the current selection.
    public var nativeSelection: Range<Int>? {
        guard let selection = state.selection else { return nil }
        return try? SelectionMapper.range(of: selection, in: state, index: reconciler.index).range
    }

    private func applyNativeReplacement(_ range: Range<Int>, with string: String, isComposition: Bool, tag: String? = nil) throws(EditorError) {
        let selection: RangeSelection
        do {
            selection = try SelectionMapper.selection(for: range, in: state, index: reconciler.index)
        } catch {
            throw .selection(error)
        }
        // Typing at a caret and IME composition continue with the selection's format (bold
        // toggled on an empty selection survives composition); typing over a range takes the
        // format of the text it replaces, as Lexical does.
        var format = state.selection?.format ?? []
        var style = state.selection?.style ?? ""
        if !range.isEmpty, !isComposition, selection.anchor.kind == .text, let node = state[selection.anchor.key] {
            format = node.textFormat
            style = node.textStyle
        }
        let tag = tag ?? (isComposition ? Self.compositionTag : string.isEmpty ? "delete" : "typing")
        try update(tag: tag) { (state: inout EditorState) throws(ModelError) in
            state.selection = RangeSelection(anchor: selection.anchor, focus: selection.focus, format: format, style: style)
            if string.isEmpty {
                try state.deleteSelectedRange()
            } else if isComposition {
                try state.insertText(string)
            } else {
                try state.insertInput(string)
            }
        }
    }

    private func syncNativeSelection() {
        guard let storage, !storage.isComposing, !isApplyingNativeSelection, let range = nativeSelection else { return }
        isApplyingNativeSelection = true
        defer { isApplyingNativeSelection = false }
        // The mapped range is inside the storage by the reconciler's invariant.
        do { try storage.setSelectedRange(NSRange(range)) } catch {
            for listener in errorListeners { listener.body(.storage(error)) }
        }
    }
}

/// The stages of a commit, in order (see `Editor.commitStages`).
public enum CommitStage: String, CaseIterable, Sendable {
    case transforms, normalization, validation, reconcile, history, listeners
}

/// What one commit did, as update listeners and the history see it.
public struct EditorUpdate: Sendable {
    /// The state after the commit.
    public let state: EditorState
    /// The state before it.
    public let previousState: EditorState
    /// The commit's operations, origin, tag and selections.
    public let transaction: Transaction
    /// The nodes created, removed, moved and updated, derived from the transaction.
    public let changes: ChangeSet
    /// The changes to the flat string in the order made; filled only while a text-content
    /// listener is registered.
    public let textEdits: [FlatTextEdit]
    /// True for `setState`, which swaps the whole document without operations.
    public let replacedWholeState: Bool

    public init(
        state: EditorState, previousState: EditorState, transaction: Transaction, changes: ChangeSet,
        textEdits: [FlatTextEdit] = [], replacedWholeState: Bool = false
    ) {
        self.state = state
        self.previousState = previousState
        self.transaction = transaction
        self.changes = changes
        self.textEdits = textEdits
        self.replacedWholeState = replacedWholeState
    }

    /// Every node the commit wrote.
    public var dirtyNodes: Set<NodeKey> { transaction.writtenNodes }
}

/// The changes one commit made to the flat string.
public struct TextContentChange: Sendable {
    /// The edits in the order made; each range is in the text as the previous edits left it.
    public let edits: [FlatTextEdit]
    /// Where the commit came from.
    public let origin: TransactionOrigin
}
