import Foundation

/// Whether a step is being undone or redone (Loro's `UndoOrRedo`).
public enum UndoDirection: Sendable, Hashable {
    case undo, redo

    /// The other direction: undoing pushes a redo step and the other way round.
    public var opposite: UndoDirection { self == .undo ? .redo : .undo }
}

/// What an app stores with an undo or redo step (Loro's `UndoItemMeta`): any value, and the
/// selection as stable cursors, which are handed back when the step is taken.
public struct UndoItemMeta: Sendable, Hashable {
    /// Anything the app wants back with the step.
    public var value: CRDTValue
    /// The selection (or carets) to restore.
    public var cursors: [Cursor]

    /// Creates metadata.
    public init(value: CRDTValue = .null, cursors: [Cursor] = []) {
        self.value = value
        self.cursors = cursors
    }
}

/// What one undo or redo did.
public struct UndoStep: Sendable {
    /// Undo or redo.
    public var direction: UndoDirection
    /// The local operations that were taken back.
    public var span: IDSpan
    /// The step's metadata, its cursors moved to the visible copy of their anchor where undo
    /// restored deleted text.
    public var meta: UndoItemMeta
    /// `meta.cursors` resolved in Unicode scalars, nil for a cursor this document cannot place.
    public var positions: [Int?]
    /// The events of the commit that holds the undo or redo, when the document records them.
    public var event: DocumentEvent?
}

/// Why an undo manager call failed; the document is unchanged.
public enum UndoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The document belongs to another peer than the manager.
    case peerMismatch(expected: PeerID, actual: PeerID)
    /// The document lacks local operations the manager recorded (is it another document?).
    case missingHistory(IDSpan, known: OpCounter)
    /// ``CRDTUndoManager/groupStart()`` was called while a group was open.
    case groupAlreadyStarted
    /// Applying the undo failed; the steps after the failing operation were not applied.
    case operationFailed(CRDTError)

    public var description: String {
        switch self {
        case let .peerMismatch(e, a): return "the undo manager belongs to peer \(e), the document to peer \(a)"
        case let .missingHistory(span, known): return "the document lacks operations \(span.start)..<\(span.end) of peer \(span.peer) (it has up to \(known))"
        case .groupAlreadyStarted: return "an undo group is already open"
        case let .operationFailed(e): return "undo failed: \(e)"
        }
    }
}

/// Undo and redo of this peer's own changes, with Loro's semantics: remote changes are never
/// undone, and an undo made after remote changes arrived takes back exactly the local change
/// (see <doc:Undo> for what that means per container). Undo and redo
/// are new local operations that sync like any other.
///
/// The manager is a value next to the document; every call takes the document `inout`. A
/// checkpoint (an undo step) is recorded by ``commit(_:origin:meta:)`` or
/// ``recordNewCheckpoint(_:meta:)``; local operations committed some other way join the next
/// checkpoint. Commits closer than ``mergeInterval`` milliseconds merge into one step.
///
/// Selections: give a step's cursors as `meta` when committing (the selection *before* the
/// change) or return them from ``onPush``; undo and redo hand them back re-anchored in
/// ``UndoStep/meta`` and to ``onPop``. As in Loro, the step pushed by an undo keeps the
/// selection given to the first undo (the selection after the change), and later ones in an
/// undo/redo run keep the selections of the steps popped before.
public struct CRDTUndoManager: Sendable {
    /// Milliseconds since some fixed point.
    public typealias Clock = @Sendable () -> Double

    /// The wall clock in milliseconds.
    public static let systemClock: Clock = { Date().timeIntervalSince1970 * 1000 }

    struct Item: Sendable {
        var span: Range<OpCounter>
        var meta: UndoItemMeta
    }

    /// The peer whose changes are undone.
    public let peer: PeerID
    /// Local commits within this many milliseconds of a step's first commit merge into it.
    public var mergeInterval: Double = 0
    /// The most undo steps kept; the oldest go first (setting it trims: O(steps)).
    public var maxUndoSteps: Int = .max {
        didSet { trim() }
    }
    /// Called when a step is pushed, to give it metadata (the selection before the change for
    /// an undo step); metadata passed to the call that pushes the step wins over it.
    public var onPush: (@Sendable (UndoDirection, IDSpan, DocumentEvent?) -> UndoItemMeta)?
    /// Called when a step is undone or redone, with its re-anchored metadata.
    public var onPop: (@Sendable (UndoDirection, IDSpan, UndoItemMeta) -> Void)?

    private let clock: Clock
    private var undoStack: [Item] = []
    private var redoStack: [Item] = []
    private var nextCounter: OpCounter
    private var lastPush = -Double.infinity
    private var excludedPrefixes: [String] = []
    private var foreign: [Range<OpCounter>] = []
    private(set) var aliases = UndoAliases()
    private var lastPopped: [Cursor]?
    private var group: (open: Bool, pushed: Bool)?

    /// A manager for `doc`'s peer; operations made before it (committed or not) are not undone.
    /// - Complexity: O(1).
    public init(_ doc: CRDTDocument, clock: @escaping Clock = CRDTUndoManager.systemClock) {
        peer = doc.peer
        nextCounter = doc.version[doc.peer]
        self.clock = clock
    }

    // Stack queries are O(1).

    /// Whether there is a step to undo.
    public var canUndo: Bool { !undoStack.isEmpty }
    /// Whether there is a step to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The number of undo steps.
    public var undoCount: Int { undoStack.count }
    /// The number of redo steps.
    public var redoCount: Int { redoStack.count }
    /// The metadata of the next undo step.
    public var topUndoMeta: UndoItemMeta? { undoStack.last?.meta }
    /// The metadata of the next redo step.
    public var topRedoMeta: UndoItemMeta? { redoStack.last?.meta }

    /// Commits whose origin starts with `prefix` are not undo steps; their operations count as
    /// remote ones (an undo never takes them back), as Loro's `addExcludeOriginPrefix`.
    /// - Complexity: O(1).
    public mutating func addExcludeOriginPrefix(_ prefix: String) { excludedPrefixes.append(prefix) }

    /// Forgets every step.
    /// - Complexity: O(steps).
    public mutating func clear() {
        undoStack.removeAll()
        redoStack.removeAll()
    }

    /// Merges every checkpoint until ``groupEnd()`` into one step.
    /// - Complexity: O(1).
    public mutating func groupStart() throws(UndoError) {
        guard group == nil else { throw .groupAlreadyStarted }
        group = (true, false)
    }

    /// Ends the group; the next checkpoint is a step of its own.
    /// - Complexity: O(1).
    public mutating func groupEnd() { group = nil }

    /// Whether the next commit's operations join the newest undo step for certain: a group is
    /// open and already holds that step, and they continue it. Metadata passed with such a commit
    /// is not kept, so a caller can skip computing it (a bound editor's selection cursors).
    /// - Complexity: O(1).
    public var nextCommitJoinsOpenGroup: Bool {
        guard group?.pushed == true, let last = undoStack.last else { return false }
        return last.span.upperBound == nextCounter
    }

    /// Commits `doc` and records the local operations since the last checkpoint as an undo step
    /// (merged into the previous one within ``mergeInterval``), unless `origin` is excluded.
    /// - Complexity: the commit's, plus O(1).
    @discardableResult
    public mutating func commit(_ doc: inout CRDTDocument, origin: String = "", meta: UndoItemMeta? = nil) throws(UndoError) -> DocumentEvent? {
        try check(doc)
        let event = doc.commit()
        let end = doc.s.version[peer]
        guard end > nextCounter else { return event }
        if excludedPrefixes.contains(where: { origin.hasPrefix($0) }) {
            foreign.append(nextCounter..<end)
            nextCounter = end
        } else {
            push(nextCounter..<end, event: event, meta: meta)
        }
        return event
    }

    /// Commits `doc` and records a checkpoint (Loro's `recordNewCheckpoint`).
    /// - Complexity: as ``commit(_:origin:meta:)``.
    public mutating func recordNewCheckpoint(_ doc: inout CRDTDocument, meta: UndoItemMeta? = nil) throws(UndoError) {
        try commit(&doc, meta: meta)
    }

    /// Undoes the latest step: appends and commits local operations that take it back. The
    /// new step pushed for redo gets `selection` (the selection now, before the undo) when
    /// this starts an undo run; returns nil when there was nothing (left) to undo.
    /// - Complexity: O(a · log n) for the a atoms the step touched, plus the scans described in <doc:Undo>.
    @discardableResult
    public mutating func undo(_ doc: inout CRDTDocument, selection: UndoItemMeta? = nil) throws(UndoError) -> UndoStep? {
        try perform(.undo, &doc, selection: selection)
    }

    /// Redoes the latest undone step.
    /// - Complexity: as ``undo(_:selection:)``.
    @discardableResult
    public mutating func redo(_ doc: inout CRDTDocument, selection: UndoItemMeta? = nil) throws(UndoError) -> UndoStep? {
        try perform(.redo, &doc, selection: selection)
    }

    private func check(_ doc: CRDTDocument) throws(UndoError) {
        guard doc.peer == peer else { throw .peerMismatch(expected: peer, actual: doc.peer) }
    }

    private mutating func push(_ span: Range<OpCounter>, event: DocumentEvent?, meta: UndoItemMeta?) {
        let meta = meta ?? onPush?(.undo, IDSpan(peer: peer, start: span.lowerBound, end: span.upperBound), event) ?? UndoItemMeta()
        let now = clock()
        let merge = (now - lastPush < mergeInterval || group?.pushed == true)
        if merge, let last = undoStack.last, last.span.upperBound == span.lowerBound {
            undoStack[undoStack.count - 1].span = last.span.lowerBound..<span.upperBound
        } else {
            lastPush = now
            undoStack.append(Item(span: span, meta: meta))
        }
        if group != nil { group?.pushed = true }
        nextCounter = span.upperBound
        redoStack.removeAll()
        trim()
    }

    private mutating func trim() {
        if undoStack.count > maxUndoSteps { undoStack.removeFirst(undoStack.count - max(0, maxUndoSteps)) }
    }

    private mutating func perform(_ direction: UndoDirection, _ doc: inout CRDTDocument, selection: UndoItemMeta?) throws(UndoError) -> UndoStep? {
        try recordNewCheckpoint(&doc)
        let end = doc.s.version[peer]
        while let item = direction == .undo ? undoStack.last : redoStack.last {
            guard end >= item.span.upperBound else {
                throw .missingHistory(IDSpan(peer: peer, start: item.span.lowerBound, end: item.span.upperBound), known: end)
            }
            if direction == .undo { undoStack.removeLast() } else { redoStack.removeLast() }
            let scope = RevertScope(peer: peer, start: item.span.lowerBound, foreign: foreign)
            do { try doc.revert(item.span, scope: scope, aliases: &aliases) } catch { throw .operationFailed(error) }
            let event = doc.commit()
            let span = IDSpan(peer: peer, start: item.span.lowerBound, end: item.span.upperBound)
            var meta = item.meta
            meta.cursors = meta.cursors.map { reanchor($0, in: doc) }
            onPop?(direction, span, meta)
            let popped = lastPopped
            lastPopped = meta.cursors
            let newEnd = doc.s.version[peer]
            // An undo that changed nothing (a remote peer already took it all back) is skipped.
            guard newEnd > end else { continue }
            var pushed = selection ?? onPush?(direction.opposite, IDSpan(peer: peer, start: end, end: newEnd), nil) ?? UndoItemMeta()
            if !(direction == .undo && redoStack.isEmpty), let popped { pushed.cursors = popped }
            let item = Item(span: end..<newEnd, meta: pushed)
            if direction == .undo { redoStack.append(item) } else { undoStack.append(item) }
            nextCounter = newEnd
            let positions = meta.cursors.map { cursor -> Int? in
                // A cursor of a container this document does not have cannot be placed: nil says so.
                do { return try doc.resolve(cursor) } catch { return nil }
            }
            return UndoStep(direction: direction, span: span, meta: meta, positions: positions, event: event)
        }
        return nil
    }

    /// The cursor moved to the visible copy of its anchor when undo restored the anchor's
    /// element as a copy (a cursor on the original tombstone would resolve before the copy).
    /// - Complexity: O(copies · log n).
    func reanchor(_ cursor: Cursor, in doc: CRDTDocument) -> Cursor {
        guard let anchor = cursor.anchor, let seq = doc.s.sequences[cursor.container], seq.isVisible(anchor) == false else { return cursor }
        for x in aliases.incarnations(aliases.root(anchor)).reversed() where seq.isVisible(x) == true {
            var moved = cursor
            moved.anchor = x
            return moved
        }
        return cursor
    }
}
