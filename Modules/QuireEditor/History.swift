import QuireModel

/// The editor's undo and redo: the commit's history stage hands it every local commit that
/// changed the document, and `Editor.undo()`/`redo()` ask it to step.
///
/// `History` (snapshots of persistent states, with the transactions between them) is the
/// default. A CRDT binding installs one backed by the CRDT's undo manager instead, so that undo
/// reverts only this peer's changes. A history steps by running an update on the editor with
/// origin `.undo` or `.redo` (commits of those origins are not recorded again).
public protocol EditorHistory: AnyObject {
    /// Steps that can be undone.
    var undoCount: Int { get }
    /// Steps that can be redone.
    var redoCount: Int { get }
    /// The history stage: every commit that changed the document, except the history's own undo
    /// and redo steps. The history decides by the transaction's origin what becomes a step.
    func record(_ update: EditorUpdate)
    /// Undoes one step through `editor`; false when there is nothing to undo.
    func undo(in editor: Editor) throws(EditorError) -> Bool
    /// Redoes one step through `editor`; false when there is nothing to redo.
    func redo(in editor: Editor) throws(EditorError) -> Bool
    /// Forgets every step (a new document was loaded).
    func clear()
}

/// Undo and redo over persistent states: each step keeps the state before it (shared
/// structurally with its neighbours, so cheap) and the operations of its commits; undoing
/// applies the operations' inverses and, when the reconciler checks invariants, verifies that
/// they restored the kept state exactly.
///
/// Local, reload and app-defined (`.custom`) commits become steps. A remote change or a loaded
/// document clears the history: its steps would no longer fit the document (undoing across
/// collaborators' changes is what a CRDT binding's history is for).
public final class History: EditorHistory {
    struct Entry {
        /// The state before the step and after it.
        var before: EditorState
        var after: EditorState
        /// The operations of the step's commits, in order.
        var operations: [EditOperation]
        var tag: String?
        var time: ContinuousClock.Instant
    }

    /// Consecutive updates with the same tag ("typing", "delete") closer than this merge into one
    /// undo step.
    public var mergeInterval: Duration
    /// The most undo steps kept; older ones are dropped.
    public var maximumDepth: Int
    /// The clock, replaceable in tests.
    public var now: @Sendable () -> ContinuousClock.Instant

    private var undoStack: [Entry] = []
    private var redoStack: [Entry] = []

    public init(mergeInterval: Duration = .seconds(1), maximumDepth: Int = 100, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.mergeInterval = mergeInterval
        self.maximumDepth = max(1, maximumDepth)
        self.now = now
    }

    public var undoCount: Int { undoStack.count }
    public var redoCount: Int { redoStack.count }

    /// - Complexity: O(operations of the commit).
    public func record(_ update: EditorUpdate) {
        switch update.transaction.origin {
        case .remote, .load:
            clear()
            return
        case .undo, .redo:
            return
        case .local, .reload, .custom:
            break
        }
        let time = now()
        redoStack.removeAll()
        let tag = update.transaction.tag
        let index = undoStack.count - 1
        if let tag, index >= 0, undoStack[index].tag == tag, time - undoStack[index].time < mergeInterval {
            // Merge: keep the older state, append the operations, restart the window. In place:
            // holding a copy of the entry would make the append copy its growing operations.
            undoStack[index].operations.append(contentsOf: update.transaction.operations)
            undoStack[index].after = update.state
            undoStack[index].time = time
            return
        }
        undoStack.append(Entry(before: update.previousState, after: update.state, operations: update.transaction.operations, tag: tag, time: time))
        if undoStack.count > maximumDepth { undoStack.removeFirst(undoStack.count - maximumDepth) }
    }

    /// - Complexity: O(operations of the step) plus the reconcile.
    public func undo(in editor: Editor) throws(EditorError) -> Bool {
        guard let entry = undoStack.last else { return false }
        try step(editor, entry.operations.inverted, origin: .undo, restoring: entry.before)
        undoStack.removeLast()
        redoStack.append(entry)
        return true
    }

    /// - Complexity: O(operations of the step) plus the reconcile.
    public func redo(in editor: Editor) throws(EditorError) -> Bool {
        guard let entry = redoStack.last else { return false }
        try step(editor, entry.operations, origin: .redo, restoring: entry.after)
        redoStack.removeLast()
        var redone = entry
        redone.time = now()
        redone.tag = nil
        undoStack.append(redone)
        return true
    }

    public func clear() {
        undoStack.removeAll()
        redoStack.removeAll()
    }

    private func step(_ editor: Editor, _ operations: [EditOperation], origin: TransactionOrigin, restoring target: EditorState) throws(EditorError) {
        // The operations end with the step's selection change, if it had one; the selection of
        // the kept state is the one to restore either way.
        let selection = target.selection
        try editor.update(origin: origin, runningTransforms: false) { (state: inout EditorState) throws(ModelError) in
            try state.apply(operations)
            state.selection = selection
        }
        if editor.reconciler.checksInvariants, !editor.state.hasSameNodes(as: target) {
            throw .reconcile(.invariantViolated("\(origin) did not restore the document of its history step"))
        }
    }
}
