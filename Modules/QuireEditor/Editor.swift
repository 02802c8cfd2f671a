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
/// An editor is used from one thread or task at a time, like the text view it serves (it is not
/// `Sendable`; the states it hands out are).
public final class Editor {
    /// The committed state.
    public private(set) var state: EditorState
    /// The storage the text view shows; nil in headless mode.
    public var storage: TextStorage? { reconciler.storage }
    /// The reconciler and its position index.
    public let reconciler: Reconciler
    /// Undo and redo.
    public var history: History

    /// The pending state of the update in progress. It lives in the outermost update's frame;
    /// a nested update reaches it through this pointer, which is only set while the outer body
    /// runs and is suspended in the nested call (Lexical's "nested updates run inline").
    private var pendingPointer: UnsafeMutablePointer<EditorState>?
    private var pending: EditorState? { pendingPointer?.pointee }
    private var updateListeners: [(id: Int, body: (EditorState, EditorState, Set<NodeKey>) -> Void)] = []
    private var textListeners: [(id: Int, body: (String) -> Void)] = []
    private var errorListeners: [(id: Int, body: (any Error) -> Void)] = []
    var commandListeners: [String: [(id: Int, priority: CommandPriority, body: (Any, Editor) throws -> Bool)]] = [:]
    var payloadDecoders: [String: (JSONValue) throws -> Any] = [:]
    var commandNames = CommandNames()
    var transforms: [NodeType: [(id: Int, body: (inout EditorState, NodeKey) throws -> Void)]] = [:]
    var batchTransforms: [NodeType: [(id: Int, body: (inout EditorState, [NodeKey]) throws -> Void)]] = [:]
    private var nextListenerID = 0
    /// The error of the last native edit the editor could not apply (the storage is unchanged).
    public private(set) var lastNativeEditError: (any Error)?
    private var isApplyingNativeSelection = false

    /// The most node-transform passes an update may take before it is abandoned.
    public static let maximumTransformPasses = 99

    /// Creates an editor on `state`. With a storage, it renders the state into it and installs
    /// itself as the storage's native-edit handler.
    public init(state: EditorState = EditorState(paragraphs: [""]), storage: TextStorage? = nil, theme: Theme = .standard, history: History = History()) throws(EditorError) {
        var initial = state
        if initial.selection == nil, let firstBlock = initial.textBlocks().first {
            initial.selection = RangeSelection(caret: SelectionMapper.start(of: firstBlock, in: initial))
        }
        initial.clearDirtyNodes()
        self.state = initial
        self.history = history
        do { reconciler = try Reconciler(state: initial, storage: storage, theme: theme) } catch {
            throw .reconcile(error.description)
        }
        storage?.nativeEditHandler = { [weak self] edit in
            guard let self else { return .applyNatively }
            return self.handleNativeEdit(edit)
        }
        registerBuiltInCommands()
        syncNativeSelection()
    }

    // MARK: Transactions

    /// Runs `body` on a pending copy of the state and commits it: transforms run to a fixpoint,
    /// text nodes are normalized, the storage is reconciled, history and listeners are told. An
    /// update inside an update runs inline on the same pending state. If anything throws, nothing
    /// is committed: state, storage and selection stay as they were, and error listeners are told.
    public func update(tag: String? = nil, _ body: (inout EditorState) throws -> Void) throws {
        if let pendingPointer {
            try body(&pendingPointer.pointee)
            return
        }
        var working = state
        working.clearDirtyNodes()
        do {
            try withUnsafeMutablePointer(to: &working) { pointer in
                pendingPointer = pointer
                defer { pendingPointer = nil }
                try body(&pointer.pointee)
            }
            try commit(working, tag: tag)
        } catch {
            for listener in errorListeners { listener.body(error) }
            throw error
        }
    }

    /// Reads the committed state (or the pending one, inside an update).
    public func read<T>(_ body: (EditorState) throws -> T) rethrows -> T {
        try body(pending ?? state)
    }

    private func commit(_ pendingState: EditorState, tag: String?) throws {
        var next = pendingState
        let previous = state
        let dirty = try runTransforms(&next)
        if let selection = next.selection {
            do {
                try next.validate(selection.anchor)
                try next.validate(selection.focus)
            } catch {
                next.selection = SelectionMapper.clamp(selection, in: next, previous: previous)
            }
        }
        let changes = ChangeSet(from: previous, to: next, dirty: dirty)
        do { try reconciler.reconcile(changes, from: previous, to: next) } catch {
            throw EditorError.reconcile(error.description)
        }
        next.clearDirtyNodes()
        state = next
        if !changes.isEmpty {
            history.record(previous: previous, next: next, dirty: dirty, tag: tag)
        }
        syncNativeSelection()
        for listener in updateListeners { listener.body(next, previous, dirty) }
        if !textListeners.isEmpty, Self.textChanged(changes, from: previous, to: next) {
            let text = FlatString.render(next)
            for listener in textListeners { listener.body(text) }
        }
    }

    /// Runs node transforms (and text normalization) until no pass writes anything new; returns
    /// every node written by the update.
    private func runTransforms(_ next: inout EditorState) throws -> Set<NodeKey> {
        var accumulated = next.dirtyNodes
        var toVisit = accumulated
        var passes = 0
        while !toVisit.isEmpty {
            passes += 1
            if passes > Self.maximumTransformPasses { throw EditorError.transformLoop(passes: Self.maximumTransformPasses) }
            next.clearDirtyNodes()
            var normalizedParents = Set<NodeKey>()
            var batches: [NodeType: [NodeKey]] = [:]
            for key in toVisit.sorted() {
                guard let node = next[key], next.isAttached(key) else { continue }
                if batchTransforms[node.type] != nil { batches[node.type, default: []].append(key) }
                if node.role == .text, let parent = node.parent, normalizedParents.insert(parent).inserted {
                    do { try next.normalizeTextChildren(of: parent) } catch { throw EditorError.model(error) }
                }
                guard let registered = transforms[node.type], next[key] != nil else { continue }
                for transform in registered { try transform.body(&next, key) }
            }
            for (type, keys) in batches.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let attached = keys.filter { next.isAttached($0) && next[$0]?.type == type }
                guard !attached.isEmpty else { continue }
                for transform in batchTransforms[type] ?? [] { try transform.body(&next, attached) }
            }
            toVisit = next.dirtyNodes
            accumulated.formUnion(toVisit)
        }
        return accumulated
    }

    static func textChanged(_ changes: ChangeSet, from previous: EditorState, to next: EditorState) -> Bool {
        if !changes.created.isEmpty || !changes.removed.isEmpty || !changes.moved.isEmpty { return true }
        for key in changes.updated {
            guard let old = previous[key], let new = next[key] else { return true }
            if FlatString.content(of: old) != FlatString.content(of: new)
                || FlatString.preamble(of: old, in: previous) != FlatString.preamble(of: new, in: next)
                || FlatString.postamble(of: old, in: previous) != FlatString.postamble(of: new, in: next) {
                return true
            }
        }
        return false
    }

    /// Replaces the whole state (opening a document): a full render, then incremental again.
    /// History is cleared.
    public func setState(_ newState: EditorState) throws(EditorError) {
        var next = newState
        if next.selection == nil, let firstBlock = next.textBlocks().first {
            next.selection = RangeSelection(caret: SelectionMapper.start(of: firstBlock, in: next))
        }
        next.clearDirtyNodes()
        do { try reconciler.replaceState(with: next) } catch { throw .reconcile(error.description) }
        state = next
        history.clear()
        syncNativeSelection()
    }

    // MARK: Listeners

    /// Called after every commit with (state, previous state, written nodes).
    @discardableResult
    public func registerUpdateListener(_ body: @escaping (EditorState, EditorState, Set<NodeKey>) -> Void) -> ListenerToken {
        let token = makeToken()
        updateListeners.append((token.id, body))
        return token
    }

    /// Called after a commit that changed the text, with the new flat string.
    @discardableResult
    public func registerTextContentListener(_ body: @escaping (String) -> Void) -> ListenerToken {
        let token = makeToken()
        textListeners.append((token.id, body))
        return token
    }

    /// Called with every error an update or a native edit threw.
    @discardableResult
    public func registerErrorListener(_ body: @escaping (any Error) -> Void) -> ListenerToken {
        let token = makeToken()
        errorListeners.append((token.id, body))
        return token
    }

    /// Removes a listener, command handler or transform.
    public func unregister(_ token: ListenerToken) {
        updateListeners.removeAll { $0.id == token.id }
        textListeners.removeAll { $0.id == token.id }
        errorListeners.removeAll { $0.id == token.id }
        for name in commandListeners.keys { commandListeners[name]?.removeAll { $0.id == token.id } }
        for type in transforms.keys { transforms[type]?.removeAll { $0.id == token.id } }
        for type in batchTransforms.keys { batchTransforms[type]?.removeAll { $0.id == token.id } }
    }

    func makeToken() -> ListenerToken {
        nextListenerID += 1
        return ListenerToken(id: nextListenerID)
    }

    // MARK: History

    /// Steps back one history entry. Returns false when there is nothing to undo.
    @discardableResult
    public func undo() throws -> Bool {
        guard let entry = history.popUndo(current: state) else { return false }
        try travel(to: entry.state, dirty: entry.dirty)
        return true
    }

    /// Steps forward one history entry. Returns false when there is nothing to redo.
    @discardableResult
    public func redo() throws -> Bool {
        guard let entry = history.popRedo(current: state) else { return false }
        try travel(to: entry.state, dirty: entry.dirty)
        return true
    }

    private func travel(to target: EditorState, dirty: Set<NodeKey>) throws {
        let changes = ChangeSet(from: state, to: target, dirty: dirty)
        do { try reconciler.reconcile(changes, from: state, to: target) } catch {
            throw EditorError.reconcile(error.description)
        }
        let previous = state
        state = target
        syncNativeSelection()
        for listener in updateListeners { listener.body(target, previous, dirty) }
        if !textListeners.isEmpty, Self.textChanged(changes, from: previous, to: target) {
            let text = FlatString.render(target)
            for listener in textListeners { listener.body(text) }
        }
    }

    // MARK: Native entry points

    /// What a text view calls when the user replaces a UTF-16 range with a string (typing, paste,
    /// delete with an empty string). In headful mode the edit goes through the storage, which
    /// routes it here; either way the editor maps the range to a selection, applies the edit to
    /// the state and reconciles.
    ///
    /// - Throws: the storage's or the editor's typed error; nothing changes.
    public func replaceCharacters(in range: Range<Int>, with string: String) throws {
        if let storage {
            lastNativeEditError = nil
            do {
                try storage.replaceCharacters(in: NSRange(range), with: string)
            } catch {
                throw EditorError.storage(error.description)
            }
            if let error = lastNativeEditError { throw error }
        } else {
            try applyNativeReplacement(range, with: string, isComposition: false)
        }
    }

    /// IME: replaces the marked range (or the selection) with `string`, marked, with the caret at
    /// `selectedRange` inside it. Selection reconciliation waits until `unmarkText()`.
    public func setMarkedText(_ string: String, selectedRange: Range<Int>) throws {
        guard let storage else {
            throw EditorError.storage("marked text needs a text storage")
        }
        lastNativeEditError = nil
        do { try storage.setMarkedText(string, selectedRange: NSRange(selectedRange)) } catch {
            throw EditorError.storage(error.description)
        }
        if let error = lastNativeEditError { throw error }
    }

    /// IME: commits the marked text. The storage keeps the theme's attributes for it and the
    /// editor selection follows the view's.
    public func unmarkText() throws {
        guard let storage, let marked = storage.markedRange else { return }
        storage.unmarkText()
        do { try reconciler.restyle(Range(marked) ?? 0..<0, in: state) } catch {
            throw EditorError.reconcile(error.description)
        }
        try selectionDidChange(Range(storage.selectedRange) ?? 0..<0)
    }

    /// The view's selection changed (the user moved the caret or dragged). Ignored while
    /// composing, when the selection belongs to the IME.
    public func selectionDidChange(_ range: Range<Int>, isBackward: Bool = false) throws {
        if storage?.isComposing == true { return }
        let current = pending ?? state
        var selection: RangeSelection
        do {
            selection = try SelectionMapper.selection(for: range, isBackward: isBackward, in: current, index: reconciler.index)
        } catch {
            throw EditorError.selection(error.description)
        }
        if selection.isCollapsed, selection.anchor.kind == .text, let node = current[selection.anchor.key] {
            selection.format = node.textFormat
            selection.style = node.textStyle
        } else {
            selection.format = current.selection?.format ?? []
        }
        state.selection = selection
        if let storage, !isApplyingNativeSelection {
            isApplyingNativeSelection = true
            defer { isApplyingNativeSelection = false }
            do { try storage.setSelectedRange(NSRange(range)) } catch { throw EditorError.storage(error.description) }
        }
    }

    /// The native selection (UTF-16 range) for the current selection.
    public var nativeSelection: Range<Int>? {
        guard let selection = state.selection else { return nil }
        return try? SelectionMapper.range(of: selection, in: state, index: reconciler.index).range
    }

    private func handleNativeEdit(_ edit: NativeEdit) -> NativeEditResolution {
        do {
            let range = Range(edit.range) ?? 0..<0
            try applyNativeReplacement(range, with: edit.replacement.string, isComposition: edit.isComposition)
        } catch {
            lastNativeEditError = error
            for listener in errorListeners { listener.body(error) }
        }
        return .handled
    }

    private func applyNativeReplacement(_ range: Range<Int>, with string: String, isComposition: Bool) throws {
        let selection: RangeSelection
        do {
            selection = try SelectionMapper.selection(for: range, in: state, index: reconciler.index)
        } catch {
            throw EditorError.selection(error.description)
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
        try update(tag: string.isEmpty ? "delete" : "typing") { state in
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
            for listener in errorListeners { listener.body(EditorError.storage(error.description)) }
        }
    }
}
