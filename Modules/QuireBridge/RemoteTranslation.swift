import QuireAlgorithms
import Foundation
import QuireCRDT
import QuireEditor
import QuireModel
import QuireSelection
import QuireTextStorage

/// CRDT events → one editor transaction that changes only the blocks the events touched.
///
/// The text's deltas move the runs index (which finds the blocks they touched); tree diffs say
/// which blocks appeared, moved or went; map diffs which blocks' fields changed. The transaction
/// places, creates and removes those blocks, sets their fields, and rewrites only the touched
/// blocks' inline content — one text splice when the change is a plain edit inside one text
/// node, as typing is — then puts the selection back through its cursors.
extension EditorBinding {
    func applyRemote(_ event: DocumentEvent?, origin: TransactionOrigin, selection: SelectionCursors) throws(BridgeError) {
        guard let event else { return }
        var runChanges = RunChanges()
        var treeTouched = Set<TreeID>()
        var fieldsTouched = Set<TreeID>()
        var rootTouched = false
        var deleted = Set<TreeID>()
        for container in event.events {
            if let trace { trace("remote \(container.target): \(container.diff)") }
            switch container.diff {
            case .text(let delta) where container.target == DocumentSchema.text:
                runs.apply(delta, into: &runChanges, document: document)
            case .tree(let diffs) where container.target == DocumentSchema.blocks:
                for diff in diffs {
                    switch diff {
                    case .create(let node, _), .move(let node, _, _): treeTouched.insert(node)
                    case .delete(let node, _):
                        treeTouched.insert(node)
                        deleted.insert(node)
                    }
                }
            case .map where container.target == DocumentSchema.root:
                rootTouched = true
            case .map:
                if case .normal(let id, .map) = container.target { fieldsTouched.insert(id) }
            default:
                continue
            }
        }
        // A deleted block takes its subtree along, and one event may delete a block and create it
        // again with fewer children (a peer's concurrent move undone and redone): the diffs then
        // name only the block, so every block the editor shows under it is looked at again. So
        // is every block under one that is gone at the end without a delete diff of its own (moved
        // into a block the same event deleted).
        let gone = treeTouched.filter { !document.isAlive($0, in: DocumentSchema.blocks) }
        for id in deleted.union(gone) {
            guard let key = keyOfTree[id] else { continue }
            var pending = editor.state.children(of: key).filter(Projection.isBlock).map(\.key)
            while let current = pending.popLast() {
                if let tree = treeOfKey[current] { treeTouched.insert(tree) }
                pending.append(contentsOf: editor.state.children(of: current).filter(Projection.isBlock).map(\.key))
            }
        }
        try repairOrphanMarkers(treeTouched: treeTouched, runChanges: &runChanges)
        try removeFieldsOfOtherTypes(fieldsTouched)
        // A block whose marker came or went may become shown or hidden.
        treeTouched.formUnion(runChanges.added)
        treeTouched.formUnion(runChanges.removed)
        guard !treeTouched.isEmpty || !fieldsTouched.isEmpty || !runChanges.touched.isEmpty || rootTouched else { return }
        if let trace {
            trace("runs touched \(runChanges.touched.map(DocumentSchema.string)) added \(runChanges.added.map(DocumentSchema.string)) removed \(runChanges.removed.map(DocumentSchema.string)) tree \(treeTouched.map(DocumentSchema.string))")
        }
        let marked = selection.marked
        do {
            try editor.update(origin: origin) { [self] (state: inout EditorState) throws(BridgeError) in
                var created = Set<TreeID>()
                try patchStructure(treeTouched, created: &created, in: &state)
                let retyped = try patchFields(fieldsTouched.subtracting(created), in: &state)
                if rootTouched { try patchRoot(in: &state) }
                try patchContent(runChanges.touched.union(created).union(retyped), in: &state)
                if let restored = selection.selection(in: state, binding: self) { state.selection = restored }
                ownOperationCount = state.recordedOperations.count
            }
        } catch {
            ownOperationCount = nil
            throw .editor(error.description)
        }
        if let marked, let storage = editor.storage { restoreComposition(marked, in: storage) }
    }

    /// Deletes the markers of blocks that no longer live in the tree (a peer deleted a list while
    /// another added an item to it: the item is gone with its list, its marker and text are not),
    /// so that their text joins the run before them instead of disappearing. Every peer that sees
    /// such a marker deletes it, and deleting a character twice is deleting it once, so the
    /// repair converges. It is a derived commit: never an undo step, never echoed as the user's.
    private func repairOrphanMarkers(treeTouched: Set<TreeID>, runChanges: inout RunChanges) throws(BridgeError) {
        let candidates = runChanges.added.union(treeTouched)
        let registry = editor.state.registry
        let orphans = candidates.filter { id in
            guard runs.contains(id) else { return false }
            guard document.isAlive(id, in: DocumentSchema.blocks) else { return true }
            let (type, role, _) = Projection.blockDescription(id, in: document, registry: registry)
            return !InlineContent.hasRun(type: registry.plugin(for: type) != nil ? type : nil, role: role, registry: registry)
        }
        guard !orphans.isEmpty else { return }
        let positions = orphans.compactMap { runs.markerPosition(of: $0) }.sorted(by: >)
        do {
            for position in positions { try document.delete(at: position, count: 1, in: DocumentSchema.text) }
        } catch {
            throw .crdt(error)
        }
        let event: DocumentEvent?
        do { event = try undoManager.commit(&document, origin: Self.derivedOrigin) } catch { throw .undo(error) }
        for container in event?.events ?? [] where container.target == DocumentSchema.text {
            if case .text(let delta) = container.diff { runs.apply(delta, into: &runChanges, document: document) }
        }
    }

    /// Deletes, from the property maps of blocks whose fields a remote change touched, the fields
    /// that belong to another block type and not to the block's own: two peers changed one
    /// block's type at once (a heading and a quote), the last writer's `type` won, and the
    /// loser's fields (the heading's `tag`) would stay on the winner. Every peer that sees such a
    /// field deletes it, so the repair converges; like the marker repair it is a derived commit.
    /// Fields no registered type declares (an app's, a newer Lexical's) are kept.
    ///
    /// - Complexity: O(touched blocks · their fields + registered types · their fields).
    private func removeFieldsOfOtherTypes(_ touched: Set<TreeID>) throws(BridgeError) {
        guard !touched.isEmpty else { return }
        let registry = editor.state.registry
        // The fields some registered block type declares.
        var blockFields = Set<String>()
        for type in registry.registeredTypes {
            guard let plugin = registry.plugin(for: type), plugin.role == .element(inline: false) || plugin.role == .decorator(inline: false) else { continue }
            blockFields.formUnion(plugin.fields.map(\.name))
        }
        var removed = false
        do {
            for id in touched where document.isAlive(id, in: DocumentSchema.blocks) {
                let (type, _, fields) = Projection.blockDescription(id, in: document, registry: registry)
                guard let plugin = registry.plugin(for: type) else { continue }
                let own = Set(plugin.fields.map(\.name))
                for name in fields.keys where !own.contains(name) && blockFields.contains(name) {
                    try document.removeKey(name, in: document.properties(of: id))
                    removed = true
                }
            }
        } catch {
            throw .crdt(error)
        }
        guard removed else { return }
        do { _ = try undoManager.commit(&document, origin: Self.derivedOrigin) } catch { throw .undo(error) }
    }

    /// Marks the composed text again where its cursors went (composition survives remote edits).
    private func restoreComposition(_ marked: (start: Cursor, end: Cursor, caret: NSRange), in storage: TextStorage) {
        do {
            let state = editor.state
            guard let start = point(at: try document.resolve(marked.start), in: state),
                  let end = point(at: try document.resolve(marked.end), in: state) else { return }
            let from = try SelectionMapper.location(of: start, in: state, index: editor.reconciler.index)
            let to = try SelectionMapper.location(of: end, in: state, index: editor.reconciler.index)
            let range = NSRange(location: from, length: max(0, to - from))
            let caret = NSRange(location: min(marked.caret.location, range.length), length: min(marked.caret.length, max(0, range.length - marked.caret.location)))
            try storage.markComposedText(range, selectedRange: caret)
        } catch {
            onError?(.editor("the composition could not be kept: \(error)"))
        }
    }

    // MARK: Structure

    /// Whether a tree node is shown: alive, with a marker when it takes inline content, under
    /// shown ancestors.
    private func isShown(_ id: TreeID, registry: NodeRegistry, memo: inout [TreeID: Bool]) -> Bool {
        if let known = memo[id] { return known }
        var shown = document.isAlive(id, in: DocumentSchema.blocks)
        if shown {
            let (type, role, _) = Projection.blockDescription(id, in: document, registry: registry)
            let known = registry.plugin(for: type) != nil ? type : nil
            if InlineContent.hasRun(type: known, role: role, registry: registry), !runs.contains(id) { shown = false }
        }
        if shown, let parent = try? document.parent(of: id, in: DocumentSchema.blocks) {
            shown = isShown(parent, registry: registry, memo: &memo)
        }
        memo[id] = shown
        return shown
    }

    private func patchStructure(_ touched: Set<TreeID>, created: inout Set<TreeID>, in state: inout EditorState) throws(BridgeError) {
        guard !touched.isEmpty else { return }
        var placement = Placement(registry: state.registry)
        do {
            // Placements, parents first, each after its previous shown sibling.
            placement.toPlace = touched.filter { isShown($0, registry: placement.registry, memo: &placement.shown) }
            for id in placement.toPlace.sorted(by: { depth($0) < depth($1) }) {
                try placeWithPreviousSiblings(id, &placement, in: &state)
            }
            created = placement.created
            // Removals: shown blocks that are no longer shown (their subtrees go along).
            for id in touched where keyOfTree[id] != nil && !isShown(id, registry: placement.registry, memo: &placement.shown) {
                guard let key = keyOfTree[id], state[key] != nil, state.isAttached(key) else { continue }
                forgetSubtree(key, in: state)
                try state.remove(key)
            }
        } catch let error as BridgeError {
            throw error
        } catch {
            throw .editor("\(error)")
        }
    }

    /// What the placements of one remote change share.
    private struct Placement {
        let registry: NodeRegistry
        var toPlace = Set<TreeID>()
        var placed = Set<TreeID>()
        var created = Set<TreeID>()
        var shown: [TreeID: Bool] = [:]
        /// Each parent's children in sibling order, and their indexes (read once per parent).
        var siblings: [TreeID?: (list: [TreeID], index: [TreeID: Int])] = [:]

        init(registry: NodeRegistry) { self.registry = registry }
    }

    private func depth(_ id: TreeID) -> Int {
        var count = 0
        var current = id
        while let parent = (try? document.parent(of: current, in: DocumentSchema.blocks)) ?? nil {
            count += 1
            current = parent
        }
        return count
    }

    private func siblings(of id: TreeID, under parent: TreeID?, _ placement: inout Placement) -> (list: [TreeID], index: Int) {
        if placement.siblings[parent] == nil {
            let list = document.children(of: parent, in: DocumentSchema.blocks)
            placement.siblings[parent] = (list, Dictionary(uniqueKeysWithValues: list.enumerated().map { ($1, $0) }))
        }
        let entry = placement.siblings[parent]!
        return (entry.list, entry.index[id] ?? entry.list.count)
    }

    /// The previous shown sibling of a tree node.
    private func previousShownSibling(of id: TreeID, under parent: TreeID?, _ placement: inout Placement) -> TreeID? {
        let (list, index) = siblings(of: id, under: parent, &placement)
        var at = index - 1
        while at >= 0 {
            if isShown(list[at], registry: placement.registry, memo: &placement.shown) { return list[at] }
            at -= 1
        }
        return nil
    }

    /// Places `id` after placing, oldest first, the previous siblings that also need it.
    private func placeWithPreviousSiblings(_ id: TreeID, _ placement: inout Placement, in state: inout EditorState) throws {
        guard !placement.placed.contains(id) else { return }
        let parent = try document.parent(of: id, in: DocumentSchema.blocks)
        var chain = [id]
        var cursor = id
        while let sibling = previousShownSibling(of: cursor, under: parent, &placement), !placement.placed.contains(sibling),
              placement.toPlace.contains(sibling) || keyOfTree[sibling] == nil {
            chain.append(sibling)
            cursor = sibling
        }
        for node in chain.reversed() { try placeOne(node, under: parent, &placement, in: &state) }
    }

    /// Puts one shown tree node in place in the editor, creating it (and its shown subtree) when
    /// it is new.
    private func placeOne(_ id: TreeID, under parentID: TreeID?, _ placement: inout Placement, in state: inout EditorState) throws {
        guard placement.placed.insert(id).inserted else { return }
        let parentKey: NodeKey
        if let parentID {
            if keyOfTree[parentID] == nil { try placeWithPreviousSiblings(parentID, &placement, in: &state) }
            guard let key = keyOfTree[parentID] else { throw BridgeError.schema("block \(DocumentSchema.string(id))'s parent is not shown") }
            parentKey = key
        } else {
            parentKey = .root
        }
        let after = previousShownSibling(of: id, under: parentID, &placement).flatMap { keyOfTree[$0] }
        let key: NodeKey
        if let existing = keyOfTree[id], let node = state[existing] {
            key = existing
            if node.parent == parentKey, previousBlock(before: key, in: state) == after, state.isAttached(key) { return }
            if node.parent != nil { try state.detach(key) }
        } else {
            guard let made = try Projection.makeBlock(id, in: document, runs: runs, state: &state) else { return }
            key = made
            keyOfTree[id] = key
            treeOfKey[key] = id
            placement.created.insert(id)
        }
        try insert(key, under: parentKey, afterBlock: after, in: &state)
        if placement.created.contains(id) {
            // A new block brings its shown children along.
            for child in document.children(of: id, in: DocumentSchema.blocks) where isShown(child, registry: placement.registry, memo: &placement.shown) {
                try placeOne(child, under: id, &placement, in: &state)
            }
        }
    }

    /// Links a detached block under `parent`, after the block `after` (nil: before every block
    /// child, after the parent's inline content).
    private func insert(_ key: NodeKey, under parent: NodeKey, afterBlock after: NodeKey?, in state: inout EditorState) throws {
        if let after {
            try state.insert(key, after: after)
            return
        }
        var lastInline: NodeKey?
        for child in state.children(of: parent) {
            if child.role.isInline { lastInline = child.key } else { break }
        }
        if let lastInline {
            try state.insert(key, after: lastInline)
        } else {
            try state.prepend(key, to: parent)
        }
    }

    /// Drops the tree mappings of an editor subtree about to be removed.
    private func forgetSubtree(_ key: NodeKey, in state: EditorState) {
        var pending = [key]
        while let current = pending.popLast() {
            if let id = treeOfKey.removeValue(forKey: current) { keyOfTree[id] = nil }
            pending.append(contentsOf: state.children(of: current).filter(Projection.isBlock).map(\.key))
        }
    }

    // MARK: Fields and content

    /// Sets the changed fields of shown blocks; a block whose type changed is replaced by a block
    /// of the new type (editor nodes do not change type). Returns the replaced blocks' tree nodes.
    private func patchFields(_ touched: Set<TreeID>, in state: inout EditorState) throws(BridgeError) -> Set<TreeID> {
        var retyped = Set<TreeID>()
        for id in touched {
            guard let key = keyOfTree[id], let node = state[key] else { continue }
            let (type, _, fields) = Projection.blockDescription(id, in: document, registry: state.registry)
            if type != node.type || node.isUnknown != (state.registry.plugin(for: type) == nil) {
                try retype(id, shownAs: key, in: &state)
                retyped.insert(id)
                continue
            }
            var wanted = fields
            if !node.isUnknown, let plugin = state.registry.plugin(for: type) {
                // Fields the map lacks are the type's defaults, as a new node would have them.
                for spec in plugin.fields where wanted[spec.name] == nil { wanted[spec.name] = spec.defaultValue }
            }
            guard wanted != node.fields || !node.fields.keys.allSatisfy({ wanted[$0] != nil }) else { continue }
            do {
                for (name, value) in wanted where node.fields[name] != value { try state.setField(name, to: value, of: key) }
                for (name, _) in node.fields where wanted[name] == nil { try state.setField(name, to: nil, of: key) }
            } catch {
                throw .editor("fields of block \(DocumentSchema.string(id)): \(error)")
            }
        }
        return retyped
    }

    /// Replaces the editor block of `id` by one made from its map (new type, its fields), moving
    /// the old block's children over as Lexical's `replace(…, includeChildren)` does; the content
    /// is checked against the run afterwards.
    private func retype(_ id: TreeID, shownAs key: NodeKey, in state: inout EditorState) throws(BridgeError) {
        do {
            guard let made = try Projection.makeBlock(id, in: document, runs: runs, state: &state) else {
                // The new type takes inline content and the block has no marker: not shown.
                forgetSubtree(key, in: state)
                try state.remove(key)
                return
            }
            try state.insert(made, after: key)
            if let madeNode = state[made], madeNode.role.isElement, state[key]?.role.isElement == true {
                // Inline children the new type refuses (a link in what became a code block) stay
                // behind: the content is rebuilt from the run below, as the projection builds it.
                if let rule = state.registry.plugin(for: madeNode.type)?.childRule {
                    for child in state.children(of: key) where !Projection.isBlock(child) && !rule.accepts(type: child.type, role: child.role) {
                        try state.remove(child.key)
                    }
                }
                try state.moveChildren(of: key, from: 0, to: made, at: 0)
            } else {
                for child in state.children(of: key) where Projection.isBlock(child) { forgetSubtree(child.key, in: state) }
            }
            try state.remove(key)
            treeOfKey[key] = nil
            treeOfKey[made] = id
            keyOfTree[id] = made
        } catch let error as BridgeError {
            throw error
        } catch {
            throw .editor("type of block \(DocumentSchema.string(id)): \(error)")
        }
    }

    private func patchRoot(in state: inout EditorState) throws(BridgeError) {
        let wanted = document.map(DocumentSchema.root)
        do {
            for (name, value) in wanted {
                let json = InlineContent.json(value)
                if state.root.fields[name] != json { try state.setField(name, to: json, of: .root) }
            }
            for (name, _) in state.root.fields where wanted[name] == nil && name != "version" { try state.setField(name, to: nil, of: .root) }
        } catch {
            throw .editor("root fields: \(error)")
        }
    }

    /// Makes the inline content of every touched shown block equal its run.
    private func patchContent(_ touched: Set<TreeID>, in state: inout EditorState) throws(BridgeError) {
        for id in touched {
            guard let key = keyOfTree[id], let node = state[key], InlineContent.hasRun(node, in: state),
                  let range = runs.contentRange(of: id) else { continue }
            let wanted = try Projection.styledRuns(document, range)
            let layout = InlineLayout(of: key, in: state)
            do {
                if try splice(into: layout, toMatch: wanted, in: &state) { continue }
                for child in state.children(of: key) where child.role.isInline { try state.remove(child.key) }
                try InlineContent.build(wanted, into: key, in: &state)
            } catch {
                throw .editor("content of block \(DocumentSchema.string(id)): \(error)")
            }
        }
    }

    /// The typing case: the content differs from `wanted` by one stretch inside one text node,
    /// with that node's attributes. Writes it as one splice and returns true; false when the
    /// difference is anything else (or nothing).
    private func splice(into layout: InlineLayout, toMatch wanted: [StyledRun], in state: inout EditorState) throws -> Bool {
        // Flattened per scalar: (scalar, index of its attributes).
        var old: [(Unicode.Scalar, Int)] = []
        var oldAttributes: [[String: CRDTValue]] = []
        for leaf in layout.leaves {
            oldAttributes.append(leaf.attributes)
            let scalars: [Unicode.Scalar] = leaf.role == .text ? Array(state[leaf.key]?.text.unicodeScalars ?? "".unicodeScalars) : [leaf.role == .lineBreak ? "\n" : "\u{FFFC}"]
            old.append(contentsOf: scalars.map { ($0, oldAttributes.count - 1) })
        }
        var new: [(Unicode.Scalar, Int)] = []
        for (index, run) in wanted.enumerated() { new.append(contentsOf: run.scalars.map { ($0, index) }) }
        func same(_ a: (Unicode.Scalar, Int), _ b: (Unicode.Scalar, Int)) -> Bool { a.0 == b.0 && oldAttributes[a.1] == wanted[b.1].attributes }
        var prefix = 0
        while prefix < old.count, prefix < new.count, same(old[prefix], new[prefix]) { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, same(old[old.count - 1 - suffix], new[new.count - 1 - suffix]) { suffix += 1 }
        let deleted = old.count - prefix - suffix
        let inserted = new[prefix..<(new.count - suffix)]
        if deleted == 0 && inserted.isEmpty { return true }
        // One text leaf must hold the deleted stretch, or border the insertion point, with the
        // inserted text's attributes.
        let attributes = inserted.first.map { wanted[$0.1].attributes }
        guard inserted.allSatisfy({ wanted[$0.1].attributes == attributes && $0.0 != "\n" && $0.0 != "\u{FFFC}" }) else { return false }
        let candidates = layout.leaves.filter { leaf in
            leaf.role == .text && leaf.start <= prefix && prefix + deleted <= leaf.start + leaf.count
                && (attributes == nil || leaf.attributes == attributes) && (deleted > 0 || leaf.count > 0)
        }
        guard let leaf = candidates.first, let node = state[leaf.key] else { return false }
        // Emptying a leaf can bring together neighbours that the projection shows as one (the
        // two parts of a link around a deleted plain stretch): the block is then built anew.
        if inserted.isEmpty, deleted == leaf.count { return false }
        // UTF-16 offsets of the stretch inside the leaf:
        let scalars = Array(node.text.unicodeScalars)
        let from = scalars[..<(prefix - leaf.start)].reduce(0) { $0 + UTF16.width($1) }
        let length = scalars[(prefix - leaf.start)..<(prefix - leaf.start + deleted)].reduce(0) { $0 + UTF16.width($1) }
        try state.spliceText(leaf.key, at: from, deleting: length, inserting: String(scalars: inserted.lazy.map(\.0)))
        return true
    }
}
