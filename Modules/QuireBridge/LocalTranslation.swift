import QuireAlgorithms
import QuireCRDT
import QuireEditor
import QuireModel

/// Local commits → CRDT operations.
///
/// Structure first: blocks the commit created or moved are placed in the tree (parents before
/// children, each right after its previous sibling), changed fields are written to the blocks'
/// property maps, removed blocks are deleted. Then text: the text blocks the commit touched are
/// grouped into segments of neighbours in document order; each segment's old runs (the stretch
/// of the shared text between its untouched neighbours) are compared with its new content —
/// markers by their block, characters by themselves — and only the middle that differs is
/// deleted and inserted. A split therefore inserts one marker and a merge deletes one, and no
/// character changes place. Last, the marks of the segment are set where they differ.
extension EditorBinding {
    /// The update listener: writes local commits (and what transforms added to the binding's own
    /// remote commits) into the CRDT document.
    func editorDidCommit(_ update: EditorUpdate) {
        let own = ownOperationCount
        ownOperationCount = nil
        if update.replacedWholeState {
            // The binding's own swap (a resynchronization) is the document already.
            if own == nil { reseed(from: update.state) }
            return
        }
        guard !update.transaction.isSelectionOnly else { return }
        do throws(BridgeError) {
            if let own {
                // A change the binding applied: only what transforms and normalization wrote after
                // its own operations is new to the CRDT.
                let operations = update.transaction.operations
                let derived = operations.dropFirst(own).filter { if case .setSelection = $0 { false } else { true } }
                guard !derived.isEmpty else { return }
                var middle = update.previousState
                var end: EditorState
                do {
                    try middle.apply(Array(operations.prefix(own)))
                    middle.clearDirtyNodes()
                    end = middle
                    try end.apply(Array(derived))
                } catch {
                    throw BridgeError.editor("the transaction does not replay: \(error)")
                }
                try write(from: middle, to: end, written: end.dirtyNodes, origin: Self.derivedOrigin, selection: nil, reattached: ChangeSet.reattached(by: Array(derived)))
            } else {
                try write(
                    from: update.previousState, to: update.state, written: update.transaction.writtenNodes,
                    origin: update.transaction.tag ?? "", selection: update.transaction.selectionBefore,
                    operations: update.transaction.operations
                )
            }
        } catch {
            onError?(error)
            resynchronize()
        }
    }

    /// Ends the undo step being grown by typing.
    func closeUndoGroup() {
        undoManager.groupEnd()
        isGroupOpen = false
    }

    /// Shows the CRDT document's projection in the editor again (after a failure that left the
    /// two apart).
    func resynchronize() {
        document.commit()
        runs = TextRuns(delta: document.toDelta(DocumentSchema.text))
        do {
            let projected = try Projection.project(document, registry: editor.state.registry, runs: runs)
            ownOperationCount = 0
            try editor.setState(projected.state)
            keyOfTree = projected.keys
            treeOfKey = [:]
            for (id, key) in keyOfTree { treeOfKey[key] = id }
        } catch {
            onError?(.editor("the projection could not be shown: \(error)"))
        }
    }

    /// `setState` on a bound editor replaces the shared document's content with the new state.
    func reseed(from state: EditorState) {
        do {
            for id in document.children(of: nil, in: DocumentSchema.blocks) {
                try document.deleteNode(id, in: DocumentSchema.blocks)
            }
            let length = document.length(of: DocumentSchema.text)
            if length > 0 { try document.delete(at: 0, count: length, in: DocumentSchema.text) }
            try undoManager.commit(&document, origin: Self.derivedOrigin)
            treeOfKey = [:]
            keyOfTree = [:]
            var writer = TextWriter()
            for child in state.children(of: .root) {
                try placeSubtree(child.key, under: nil, after: nil, in: state, writer: &writer)
            }
            try writer.flush(into: &document, at: 0)
            _ = try undoManager.commit(&document, origin: Self.derivedOrigin)
            runs = TextRuns(delta: document.toDelta(DocumentSchema.text))
        } catch {
            onError?(.schema("the new document could not be written: \(error)"))
        }
    }

    // MARK: Writing a commit

    /// Writes the difference between two states into the CRDT document as one commit. With the
    /// commit's `operations`, a commit that only spliced one text node's text (typing) is
    /// written as that splice.
    ///
    /// `reattached`: the nodes the commit inserted, when its operations are known and not given
    /// (``ChangeSet/reattached(by:)``), so that blocks trading places are all written as moves.
    func write(
        from previous: EditorState, to next: EditorState, written: Set<NodeKey>, origin: String, selection: RangeSelection?,
        operations: [EditOperation]? = nil, reattached: Set<NodeKey>? = nil
    ) throws(BridgeError) {
        // The undo group first: a keystroke that joins the open step needs no cursors of its own
        // (the step keeps those of its first commit), and computing them is a third of its cost.
        let joinsStep: Bool
        do { joinsStep = try openUndoGroup(for: origin) } catch { throw .undo(error) }
        let meta = joinsStep ? nil : selection.map { UndoItemMeta(cursors: SelectionCursors.cursors(for: $0, in: previous, binding: self)) }
        var typed: TypedSplice?
        do {
            if let operations { typed = try writeSplice(operations, from: previous, to: next) }
            if typed == nil {
                let affected = affectedTextBlocks(from: previous, to: next, written: written)
                try writeStructure(from: previous, to: next, written: written, reattached: reattached ?? operations.map(ChangeSet.reattached(by:)))
                try writeText(affected, in: next)
            }
        } catch let error as BridgeError {
            throw error
        } catch let error as CRDTError {
            throw .crdt(error)
        } catch {
            throw .schema("\(error)")
        }
        let event = try commitLocal(origin: origin, meta: meta)
        if let typed {
            try finish(typed, committed: event, origin: origin)
        } else {
            followText(event)
        }
    }

    /// Commits the pending operations as a local commit of `origin` (an undo step, or part of the
    /// open one) and returns its events.
    private func commitLocal(origin: String, meta: UndoItemMeta?) throws(BridgeError) -> DocumentEvent? {
        do { return try undoManager.commit(&document, origin: origin, meta: meta) } catch { throw .undo(error) }
    }

    /// Moves the runs index along the shared text's events.
    private func followText(_ event: DocumentEvent?) {
        var changes = RunChanges()
        for container in event?.events ?? [] where container.target == DocumentSchema.text {
            if case .text(let delta) = container.diff { runs.apply(delta, into: &changes, document: document) }
        }
    }

    /// A keystroke written by ``writeSplice(_:from:to:)`` and committed: where its characters went
    /// and the marks they must carry.
    private struct TypedSplice {
        var block: TreeID
        var position: Int
        var deleted: Int
        var inserted: [Unicode.Scalar]
        var wanted: [String: CRDTValue]
    }

    /// Completes a committed keystroke. The commit's events are a deletion and an insertion inside
    /// the block's run, the insertion carrying the marks the neighbours' expand rules gave the
    /// new characters (the CRDT reports them as it inserts, so nothing is read back): the run
    /// grows by the difference, and where those marks are not the node's, they are set in a
    /// second commit, which joins the first's change and undo step. Events of any other shape
    /// (none are expected) are followed and the marks read back, as for any commit.
    ///
    /// - Complexity: O(log n) plus the inserted characters, plus the mark operations if any.
    private func finish(_ splice: TypedSplice, committed event: DocumentEvent?, origin: String) throws(BridgeError) {
        let events = event?.events ?? []
        let expected = (splice.deleted > 0 ? 1 : 0) + (splice.inserted.isEmpty ? 0 : 1)
        var reported: [[String: CRDTValue]]?
        if events.count == expected, events.allSatisfy({ $0.target == DocumentSchema.text }) {
            var marks: [[String: CRDTValue]] = []
            if !splice.inserted.isEmpty, case .text(let delta) = events[events.count - 1].diff {
                for case .insert(let text, let attributes) in delta {
                    marks.append(contentsOf: repeatElement(attributes, count: text.unicodeScalars.count))
                }
            }
            if marks.count == splice.inserted.count { reported = marks }
        }
        // A `block` mark on an inserted character would make it a marker: the runs follow the events then.
        let plainContent = reported.map { !$0.contains { $0[DocumentSchema.blockKey] != nil } } ?? false
        if !plainContent || !runs.resizeContent(of: splice.block, by: splice.inserted.count - splice.deleted) {
            followText(event)
        }
        guard !splice.inserted.isEmpty else { return }
        let range = splice.position..<(splice.position + splice.inserted.count)
        let actual: [[String: CRDTValue]]
        if let reported { actual = reported } else { actual = try scalarAttributes(range) }
        let wanted = Array(repeating: splice.wanted, count: splice.inserted.count)
        guard try reconcileMarks(in: range, symbols: splice.inserted.map(TextSymbol.scalar), wanted: wanted, actual: actual) else { return }
        followText(try commitLocal(origin: origin, meta: nil))
    }

    /// The typing case: a commit whose only change is one splice of one text node's text, the node
    /// a direct child of a text block, is one deletion and one insertion at the splice's place in
    /// the block's run (``finish(_:committed:origin:)`` then sets the inserted characters' marks
    /// to the node's where the neighbours' expand rules gave them others). Nothing of the block is
    /// read. Returns nil, having written nothing, for any other commit.
    ///
    /// - Complexity: O(log n) for the run's place, plus the scalars of the node's previous
    ///   siblings and of its text before the splice, plus the CRDT operations.
    private func writeSplice(_ operations: [EditOperation], from previous: EditorState, to next: EditorState) throws(BridgeError) -> TypedSplice? {
        var splice: (key: NodeKey, offset: Int, deleted: String, inserted: String)?
        for operation in operations {
            switch operation {
            case .setSelection: continue
            case .spliceText(let key, let offset, let deleted, let inserted) where splice == nil: splice = (key, offset, deleted, inserted)
            default: return nil
            }
        }
        guard let splice, let old = previous[splice.key], let node = next[splice.key], node.role == .text, old.role == .text,
              let block = node.parent, old.parent == block, let blockNode = next[block], Projection.isBlock(blockNode),
              next.isAttached(splice.key), let id = treeOfKey[block], let content = runs.contentRange(of: id) else { return nil }
        // Where the node starts in the run: the scalars of its previous siblings.
        var start = content.lowerBound
        var sibling = old.previousSibling
        while let key = sibling, let current = previous[key] {
            start += Self.scalarLength(of: current, in: previous)
            sibling = current.previousSibling
        }
        let text = old.text
        guard let offsetIndex = text.utf16.index(text.utf16.startIndex, offsetBy: splice.offset, limitedBy: text.utf16.endIndex) else { return nil }
        let position = start + text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: offsetIndex)
        let inserted = Array(splice.inserted.unicodeScalars)
        let deleted = splice.deleted.unicodeScalars.count
        do {
            if deleted > 0 { try document.delete(at: position, count: deleted, in: DocumentSchema.text) }
            if !inserted.isEmpty { try document.insertText(splice.inserted, at: position, in: DocumentSchema.text) }
        } catch {
            throw .crdt(error)
        }
        return TypedSplice(
            block: id, position: position, deleted: deleted, inserted: inserted,
            wanted: inserted.isEmpty ? [:] : InlineContent.textAttributes(of: node, in: next)
        )
    }

    /// A node's length in the shared text, in scalars: its text, 1 for a line break or an inline
    /// decorator, its content for an inline element.
    ///
    /// - Complexity: O(nodes and scalars below it).
    private static func scalarLength(of node: Node, in state: EditorState) -> Int {
        switch node.role {
        case .text: return node.text.unicodeScalars.count
        case .lineBreak, .decorator(inline: true): return 1
        case .element(inline: true): return state.children(of: node.key).reduce(0) { $0 + scalarLength(of: $1, in: state) }
        case .decorator(inline: false), .element(inline: false), .root: return 0
        }
    }

    /// Opens or continues the undo group of a local commit: consecutive commits of one tag
    /// within the merge interval are one undo step, so a group stays open while they come.
    /// Returns whether the commit joins the group's step for certain.
    private func openUndoGroup(for origin: String) throws(UndoError) -> Bool {
        guard origin != Self.derivedOrigin else { return false }
        let now = clock()
        if isGroupOpen, origin.isEmpty || origin != lastLocalTag || now - lastLocalTime >= mergeInterval { closeUndoGroup() }
        if !isGroupOpen {
            try undoManager.groupStart()
            isGroupOpen = true
        }
        lastLocalTag = origin
        lastLocalTime = now
        return undoManager.nextCommitJoinsOpenGroup
    }

    /// Tree operations for the blocks a commit created, moved, changed and removed.
    private func writeStructure(from previous: EditorState, to next: EditorState, written: Set<NodeKey>, reattached: Set<NodeKey>?) throws {
        let changes = ChangeSet(from: previous, to: next, dirty: written, reattached: reattached)
        let adopted = try adoptReplacedTreeNodes(changes, from: previous, to: next)
        // Placements: parents before children, each after its previous sibling.
        let toPlace = changes.created.union(changes.moved).subtracting(adopted).filter { key in
            next[key].map(Projection.isBlock) == true && next.isAttached(key)
        }
        var placed = Set<NodeKey>()
        for key in toPlace.sorted(by: { next.ancestors(of: $0).count < next.ancestors(of: $1).count }) {
            // The chain of not yet placed previous siblings goes first, oldest first.
            var chain = [key]
            var previousSibling = previousBlock(before: key, in: next)
            while let sibling = previousSibling, toPlace.contains(sibling), !placed.contains(sibling) {
                chain.append(sibling)
                previousSibling = previousBlock(before: sibling, in: next)
            }
            for block in chain.reversed() where placed.insert(block).inserted {
                try place(block, in: next)
            }
        }
        // Fields of blocks that stayed (placed ones had theirs written or are written here too).
        for key in written where treeOfKey[key] != nil && !changes.created.contains(key) {
            guard let old = previous[key], let new = next[key], Projection.isBlock(new), next.isAttached(key), old.fields != new.fields else { continue }
            try writeFields(from: old.fields, to: new.fields, of: treeOfKey[key]!)
        }
        if written.contains(.root), previous.root.fields != next.root.fields {
            for (name, value) in next.root.fields where previous.root.fields[name] != value {
                try document.set(name, CRDTValue(value), in: DocumentSchema.root)
            }
            for (name, _) in previous.root.fields where next.root.fields[name] == nil {
                try document.removeKey(name, in: DocumentSchema.root)
            }
        }
        // Removals: the topmost removed blocks (a deleted node takes its subtree along).
        let removed = written.filter { key in treeOfKey[key] != nil && !(next[key].map { _ in next.isAttached(key) } ?? false) }
        for key in removed {
            guard let id = treeOfKey[key] else { continue }
            let parentRemoved = previous[key]?.parent.map(removed.contains) ?? false
            if !parentRemoved, document.isAlive(id, in: DocumentSchema.blocks) { try document.deleteNode(id, in: DocumentSchema.blocks) }
        }
        for key in removed {
            if let id = treeOfKey.removeValue(forKey: key) { keyOfTree[id] = nil }
        }
    }

    /// Gives a block that the commit created in the very place of a block it removed (Lexical's
    /// `$setBlocksType` replaces the node: a heading from a paragraph, a markdown shortcut) the
    /// removed block's tree node, and writes the new type and fields into that node's map. A type
    /// change is then a write to one tree node's `type`: concurrent changes of one block's type
    /// leave one block of the last writer's type, where two new tree nodes would leave two blocks
    /// (the content following one of them and the other empty). Returns the adopting blocks.
    ///
    /// "The very place": the same parent and the same previous block sibling, both read through
    /// the adoptions already made, so a run of replaced siblings adopts one to one; both blocks
    /// take inline content or neither does (the run's marker stays the block's).
    ///
    /// - Complexity: O((c + r) · s) for c created and r removed blocks, s the siblings walked to
    ///   find each one's previous block; nothing when the commit removed no block.
    private func adoptReplacedTreeNodes(_ changes: ChangeSet, from previous: EditorState, to next: EditorState) throws -> Set<NodeKey> {
        struct Place: Hashable {
            var parent: NodeKey
            var previousBlock: NodeKey?
        }
        var vacated: [Place: NodeKey] = [:]
        for key in changes.removed {
            guard let node = previous[key], Projection.isBlock(node), let parent = node.parent, let id = treeOfKey[key],
                  document.isAlive(id, in: DocumentSchema.blocks) else { continue }
            vacated[Place(parent: parent, previousBlock: previousBlock(before: key, in: previous))] = key
        }
        guard !vacated.isEmpty else { return [] }
        let created = changes.created.filter { key in next[key].map(Projection.isBlock) == true && next.isAttached(key) }
        // The removed block each created block took the place of (nil: none), resolved previous
        // siblings and parents first, iteratively (a pasted run of blocks can be long).
        var resolved: [NodeKey: NodeKey?] = [:]
        func seen(_ key: NodeKey?) -> NodeKey? {
            guard let key, created.contains(key) else { return key }
            return resolved[key].flatMap { $0 } ?? key
        }
        for start in created where resolved[start] == nil {
            var pending = [start]
            while let key = pending.last {
                let before = previousBlock(before: key, in: next)
                let parent = next[key]!.parent!
                let unresolved = [before, parent].compactMap { $0 }.filter { created.contains($0) && resolved[$0] == nil }
                if !unresolved.isEmpty {
                    pending.append(contentsOf: unresolved)
                    continue
                }
                pending.removeLast()
                guard resolved[key] == nil else { continue }
                let place = Place(parent: seen(parent)!, previousBlock: seen(before))
                guard let old = vacated[place], let oldNode = previous[old], let node = next[key], oldNode.role == node.role,
                      InlineContent.hasRun(oldNode, in: previous) == InlineContent.hasRun(node, in: next) else {
                    resolved[key] = .some(nil)
                    continue
                }
                vacated[place] = nil
                resolved[key] = old
            }
        }
        var adopted = Set<NodeKey>()
        for (key, old) in resolved {
            guard let old, let id = treeOfKey.removeValue(forKey: old), let oldNode = previous[old], let node = next[key] else { continue }
            treeOfKey[key] = id
            keyOfTree[id] = key
            adopted.insert(key)
            let map = document.properties(of: id)
            if oldNode.type != node.type { try document.set(DocumentSchema.typeKey, .string(node.type.rawValue), in: map) }
            let unknownLeaf = node.isUnknown && node.role == .decorator(inline: false)
            if unknownLeaf != (oldNode.isUnknown && oldNode.role == .decorator(inline: false)) {
                if unknownLeaf { try document.set(DocumentSchema.unknownRoleKey, .string("decorator"), in: map) } else { try document.removeKey(DocumentSchema.unknownRoleKey, in: map) }
            }
            try writeFields(from: oldNode.fields, to: node.fields, of: id)
        }
        return adopted
    }

    /// The nearest previous sibling that is a block (inline siblings are the run's).
    func previousBlock(before key: NodeKey, in state: EditorState) -> NodeKey? {
        var current = state[key]?.previousSibling
        while let sibling = current, let node = state[sibling] {
            if Projection.isBlock(node) { return sibling }
            current = node.previousSibling
        }
        return nil
    }

    /// Creates or moves one block's tree node right after its previous sibling's.
    private func place(_ key: NodeKey, in state: EditorState) throws {
        guard let node = state[key], let parentKey = node.parent else { return }
        let parent = parentKey == .root ? nil : treeOfKey[parentKey]
        if parentKey != .root && parent == nil { throw BridgeError.schema("block \(key)'s parent \(parentKey) has no tree node") }
        let after = previousBlock(before: key, in: state).flatMap { treeOfKey[$0] }
        if let id = treeOfKey[key], document.isAlive(id, in: DocumentSchema.blocks) {
            try document.moveNode(id, under: parent, after: after, in: DocumentSchema.blocks)
        } else {
            let id = try document.createNode(under: parent, after: after, in: DocumentSchema.blocks)
            treeOfKey[key] = id
            keyOfTree[id] = key
            try Projection.writeMeta(of: node, to: id, in: &document, state: state)
        }
    }

    private func writeFields(from old: JSONObject, to new: JSONObject, of id: TreeID) throws {
        let map = document.properties(of: id)
        for (name, value) in new where old[name] != value { try document.set(name, CRDTValue(value), in: map) }
        for (name, _) in old where new[name] == nil { try document.removeKey(name, in: map) }
    }

    /// Places a whole subtree (a re-seed), its runs gathered in `writer`.
    private func placeSubtree(_ key: NodeKey, under parent: TreeID?, after: TreeID?, in state: EditorState, writer: inout TextWriter) throws {
        guard let node = state[key], Projection.isBlock(node) else { return }
        let id = try document.createNode(under: parent, after: after, in: DocumentSchema.blocks)
        treeOfKey[key] = id
        keyOfTree[id] = key
        try Projection.writeMeta(of: node, to: id, in: &document, state: state)
        if InlineContent.hasRun(node, in: state) { writer.append(block: id, runs: InlineContent.runs(of: key, in: state)) }
        var previous: TreeID?
        for child in state.children(of: key) where Projection.isBlock(child) {
            try placeSubtree(child.key, under: id, after: previous, in: state, writer: &writer)
            previous = treeOfKey[child.key]
        }
    }
}

/// Scalars and marks to write into the shared text in one go.
struct TextWriter {
    /// An array, not a scalar view: counting a view walks it and appending to one copied it,
    /// which made seeding quadratic.
    var scalars: [Unicode.Scalar] = []
    var marks: [String: [(range: Range<Int>, value: CRDTValue)]] = [:]

    mutating func addMark(_ key: String, _ value: CRDTValue, _ range: Range<Int>) {
        if let last = marks[key]?.last, last.range.upperBound == range.lowerBound, last.value == value {
            marks[key]![marks[key]!.count - 1].range = last.range.lowerBound..<range.upperBound
        } else {
            marks[key, default: []].append((range, value))
        }
    }

    /// A block's marker and runs.
    mutating func append(block: TreeID, runs: [StyledRun]) {
        let at = scalars.count
        scalars.append(DocumentSchema.markerScalar)
        addMark(DocumentSchema.blockKey, .string(DocumentSchema.string(block)), at..<(at + 1))
        for run in runs {
            let start = scalars.count
            scalars.append(contentsOf: run.scalars)
            for (name, value) in run.attributes { addMark(name, value, start..<scalars.count) }
        }
    }

    /// Inserts everything at `position` and marks it.
    func flush(into document: inout CRDTDocument, at position: Int) throws(CRDTError) {
        guard !scalars.isEmpty else { return }
        try document.insertText(String(scalars: scalars), at: position, in: DocumentSchema.text)
        for key in marks.keys.sorted() {
            for (range, value) in marks[key]! {
                try document.mark((range.lowerBound + position)..<(range.upperBound + position), key: key, value: value, in: DocumentSchema.text)
            }
        }
    }
}
