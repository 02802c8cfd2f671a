import QuireModel

/// Undo and redo over persistent states: each entry is a state (shared structurally with its
/// neighbours, so cheap) and the nodes that differ from the next one.
public struct History: Sendable {
    struct Entry: Sendable {
        var state: EditorState
        /// The nodes written between this state and the one after it.
        var dirty: Set<NodeKey>
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

    /// Steps that can be undone.
    public var undoCount: Int { undoStack.count }
    /// Steps that can be redone.
    public var redoCount: Int { redoStack.count }

    mutating func record(previous: EditorState, next: EditorState, dirty: Set<NodeKey>, tag: String?) {
        let time = now()
        redoStack.removeAll()
        if let tag, var last = undoStack.last, last.tag == tag, time - last.time < mergeInterval {
            // Merge: keep the older state, widen the written set, restart the window.
            last.dirty.formUnion(dirty)
            last.time = time
            undoStack[undoStack.count - 1] = last
            return
        }
        undoStack.append(Entry(state: previous, dirty: dirty, tag: tag, time: time))
        if undoStack.count > maximumDepth { undoStack.removeFirst(undoStack.count - maximumDepth) }
    }

    mutating func popUndo(current: EditorState) -> (state: EditorState, dirty: Set<NodeKey>)? {
        guard let entry = undoStack.popLast() else { return nil }
        redoStack.append(Entry(state: current, dirty: entry.dirty, tag: nil, time: now()))
        return (entry.state, entry.dirty)
    }

    mutating func popRedo(current: EditorState) -> (state: EditorState, dirty: Set<NodeKey>)? {
        guard let entry = redoStack.popLast() else { return nil }
        undoStack.append(Entry(state: current, dirty: entry.dirty, tag: nil, time: now()))
        return (entry.state, entry.dirty)
    }

    mutating func clear() {
        undoStack.removeAll()
        redoStack.removeAll()
    }
}
