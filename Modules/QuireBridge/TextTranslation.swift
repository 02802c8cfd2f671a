import QuireAlgorithms
import QuireCRDT
import QuireModel

/// One unit of the shared text as the text translation compares it: a character, or a block's
/// marker (two markers are equal only when they start the same block).
enum TextSymbol: Equatable {
    case scalar(Unicode.Scalar)
    case marker(TreeID)
}

/// A stretch of the shared text and what it must become.
struct TextRegion {
    /// Where the stretch starts and how long it is now, in scalars.
    var start: Int
    var oldSymbols: [TextSymbol]
    /// The attributes every old symbol has in the shared text (its marks), read with the symbols.
    var oldAttributes: [[String: CRDTValue]]
    var newSymbols: [TextSymbol]
    /// The wanted attributes of every new symbol (for a marker, only `block` counts).
    var newAttributes: [[String: CRDTValue]]
}

extension EditorBinding {
    // MARK: Which blocks

    /// The text blocks whose runs a commit changes, before the tree is written: the old runs
    /// (by tree node: touched or gone) and the new content (by editor key).
    func affectedTextBlocks(from previous: EditorState, to next: EditorState, written: Set<NodeKey>) -> (old: Set<TreeID>, new: Set<NodeKey>) {
        var old = Set<TreeID>()
        var new = Set<NodeKey>()
        for key in written {
            if let block = textBlock(containing: key, in: previous), let id = treeOfKey[block], runs.contains(id) {
                if let node = previous[key], node.role.isInline || node.key == block {
                    // A touched inline node, or the block itself going away or changing type.
                    if node.role.isInline || !(next[key].map { _ in next.isAttached(key) } ?? false) { old.insert(id) }
                }
            }
            if let block = textBlock(containing: key, in: next) {
                if let node = next[key], node.role.isInline || treeOfKey[block].map({ !runs.contains($0) }) ?? true {
                    new.insert(block)
                }
            }
        }
        // A block whose run changed and that is still shown has new content too (its inline
        // nodes may all have gone to another block).
        for id in old {
            if let key = keyOfTree[id], let node = next[key], next.isAttached(key), InlineContent.hasRun(node, in: next) { new.insert(key) }
        }
        return (old, new)
    }

    /// The text block holding `key` (itself when it is one) in an attached part of `state`.
    func textBlock(containing key: NodeKey, in state: EditorState) -> NodeKey? {
        var current: NodeKey? = key
        while let candidate = current, let node = state[candidate] {
            if Projection.isBlock(node) {
                return InlineContent.hasRun(node, in: state) && state.isAttached(candidate) ? candidate : nil
            }
            if node.role == .root { return nil }
            current = node.parent
        }
        return nil
    }

    // MARK: Document order of text blocks

    /// The first child of `key` that is a block, found from the first child on (a block's
    /// inline children come first, so this is O(inline children), without building a list).
    private func firstBlockChild(of key: NodeKey, in state: EditorState) -> NodeKey? {
        guard let first = state[key]?.firstChild, let node = state[first] else { return nil }
        return Projection.isBlock(node) ? first : nextBlock(after: first, in: state)
    }

    /// The last child of `key` that is a block.
    private func lastBlockChild(of key: NodeKey, in state: EditorState) -> NodeKey? {
        guard let last = state[key]?.lastChild, let node = state[last] else { return nil }
        return Projection.isBlock(node) ? last : previousBlock(before: last, in: state)
    }

    private func nextBlock(after key: NodeKey, in state: EditorState) -> NodeKey? {
        var current = state[key]?.nextSibling
        while let sibling = current, let node = state[sibling] {
            if Projection.isBlock(node) { return sibling }
            current = node.nextSibling
        }
        return nil
    }

    /// The block before `key` in pre-order.
    private func previousInPreorder(_ key: NodeKey, in state: EditorState) -> NodeKey? {
        if var current = previousBlock(before: key, in: state) {
            while let last = lastBlockChild(of: current, in: state) { current = last }
            return current
        }
        guard let parent = state[key]?.parent, parent != .root else { return nil }
        return parent
    }

    /// The block after `key` in pre-order.
    private func nextInPreorder(_ key: NodeKey, in state: EditorState) -> NodeKey? {
        if let first = firstBlockChild(of: key, in: state) { return first }
        var current = key
        while current != .root {
            if let next = nextBlock(after: current, in: state) { return next }
            guard let parent = state[current]?.parent else { return nil }
            current = parent
        }
        return nil
    }

    func previousTextBlock(_ key: NodeKey, in state: EditorState) -> NodeKey? {
        var current = previousInPreorder(key, in: state)
        while let candidate = current, let node = state[candidate], !InlineContent.hasRun(node, in: state) {
            current = previousInPreorder(candidate, in: state)
        }
        return current
    }

    func nextTextBlock(_ key: NodeKey, in state: EditorState) -> NodeKey? {
        var current = nextInPreorder(key, in: state)
        while let candidate = current, let node = state[candidate], !InlineContent.hasRun(node, in: state) {
            current = nextInPreorder(candidate, in: state)
        }
        return current
    }

    // MARK: Regions

    /// The stretches of the shared text to rewrite for `affected`, once the tree has every new
    /// block's node.
    func textRegions(for affected: (old: Set<TreeID>, new: Set<NodeKey>), in next: EditorState) throws(BridgeError) -> [TextRegion] {
        var regions: [TextRegion] = []
        var covered = Set<TreeID>()
        let leadingEnd = (try? runs.index.lengths(of: .leading).content) ?? 0
        for first in affected.new {
            // A segment starts at an affected block whose previous text block is not affected.
            let predecessor = previousTextBlock(first, in: next)
            if let predecessor, affected.new.contains(predecessor) { continue }
            var segment = [first]
            var after = nextTextBlock(first, in: next)
            while let candidate = after, affected.new.contains(candidate) {
                segment.append(candidate)
                after = nextTextBlock(candidate, in: next)
            }
            let start = predecessor.flatMap { treeOfKey[$0] }.flatMap { runs.contentRange(of: $0)?.upperBound } ?? leadingEnd
            let end = after.flatMap { treeOfKey[$0] }.flatMap { runs.markerPosition(of: $0) } ?? runs.length
            let inside = start <= end ? markers(in: start..<end) : nil
            // The segment's stretch must hold exactly what it rewrites: only runs that change,
            // and every run of the segment's blocks (text order can differ from document order
            // after blocks were moved).
            let ownRuns = segment.compactMap { treeOfKey[$0] }.filter(runs.contains)
            // A run inside the stretch whose block lives on elsewhere (a text block of another
            // segment, its run not yet where the document order puts it) is that segment's to
            // write: rewriting the stretch would delete its marker under it.
            let segmentRuns = Set(ownRuns)
            let othersLive = inside?.contains { id in
                guard !segmentRuns.contains(id), let key = keyOfTree[id], let node = next[key], next.isAttached(key) else { return false }
                return InlineContent.hasRun(node, in: next)
            } ?? false
            if let inside, !othersLive, inside.allSatisfy(affected.old.contains), segmentRuns.isSubset(of: inside) {
                covered.formUnion(inside)
                regions.append(try region(start..<end, becoming: segment, in: next))
            } else {
                // The text order no longer follows the document order here (blocks were moved):
                // each block's run is rewritten on its own, new ones after their predecessor.
                for block in segment.reversed() {
                    if let id = treeOfKey[block], let range = runs.contentRange(of: id), affected.old.contains(id) || runs.contains(id) {
                        covered.insert(id)
                        regions.append(try region(range, becoming: [], content: block, in: next))
                    } else {
                        var predecessor = previousTextBlock(block, in: next)
                        while let candidate = predecessor, treeOfKey[candidate].map({ !runs.contains($0) }) ?? true {
                            predecessor = previousTextBlock(candidate, in: next)
                        }
                        let at = predecessor.flatMap { treeOfKey[$0] }.flatMap { runs.contentRange(of: $0)?.upperBound } ?? leadingEnd
                        regions.append(try region(at..<at, becoming: [block], in: next))
                    }
                }
            }
        }
        // Runs of blocks that are gone, outside every segment: marker and content go.
        for id in affected.old.subtracting(covered) {
            guard let marker = runs.markerPosition(of: id), let content = runs.contentRange(of: id) else { continue }
            if let key = keyOfTree[id], next[key].map({ _ in next.isAttached(key) }) == true { continue }
            regions.append(try region(marker..<content.upperBound, becoming: [], in: next))
        }
        // Right to left, so that each region's position is still valid when it is written; of
        // two regions that touch (an insertion where a deleted run starts), the one reaching
        // further right goes first.
        return regions.sorted { ($0.start, $0.start + $0.oldSymbols.count) > ($1.start, $1.start + $1.oldSymbols.count) }
    }

    /// The blocks whose markers lie in `range`.
    private func markers(in range: Range<Int>) -> [TreeID] {
        guard !range.isEmpty, let entries = try? runs.index.entries(overlapping: range) else { return [] }
        return entries.compactMap { entry in
            guard entry.part == .preamble, case .block(let id) = entry.key else { return nil }
            return id
        }
    }

    /// `range` of the shared text becoming the runs of `blocks` (each with its marker), or, with
    /// `content`, the inline content of that one block (its marker stays outside the range).
    private func region(_ range: Range<Int>, becoming blocks: [NodeKey], content: NodeKey? = nil, in next: EditorState) throws(BridgeError) -> TextRegion {
        var oldSymbols: [TextSymbol] = []
        var oldAttributes: [[String: CRDTValue]] = []
        var position = range.lowerBound
        for run in try Projection.styledRuns(document, range) {
            oldAttributes.append(contentsOf: repeatElement(run.attributes, count: run.scalars.count))
            for scalar in run.scalars {
                if scalar == DocumentSchema.markerScalar, let id = DocumentSchema.treeID(run.attributes[DocumentSchema.blockKey]),
                   runs.markerPosition(of: id) == position {
                    oldSymbols.append(.marker(id))
                } else {
                    oldSymbols.append(.scalar(scalar))
                }
                position += 1
            }
        }
        var newSymbols: [TextSymbol] = []
        var newAttributes: [[String: CRDTValue]] = []
        func appendContent(of block: NodeKey) {
            for run in InlineContent.runs(of: block, in: next) {
                newSymbols.append(contentsOf: run.scalars.map(TextSymbol.scalar))
                newAttributes.append(contentsOf: repeatElement(run.attributes, count: run.scalars.count))
            }
        }
        if let content {
            appendContent(of: content)
        } else {
            for block in blocks {
                guard let id = treeOfKey[block] else { throw .schema("text block \(block) has no tree node") }
                newSymbols.append(.marker(id))
                newAttributes.append([DocumentSchema.blockKey: .string(DocumentSchema.string(id))])
                appendContent(of: block)
            }
        }
        return TextRegion(start: range.lowerBound, oldSymbols: oldSymbols, oldAttributes: oldAttributes, newSymbols: newSymbols, newAttributes: newAttributes)
    }

    // MARK: Writing a region

    /// Rewrites one region: the differing middle of the symbols, then the marks that differ.
    ///
    /// - Complexity: O(region · keys) plus the CRDT operations.
    func apply(_ region: TextRegion) throws(BridgeError) {
        let old = region.oldSymbols
        let new = region.newSymbols
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let deleted = old.count - prefix - suffix
        let inserted = new[prefix..<(new.count - suffix)]
        do {
            if deleted > 0 { try document.delete(at: region.start + prefix, count: deleted, in: DocumentSchema.text) }
            if !inserted.isEmpty {
                let text = String(scalars: inserted.lazy.map { symbol in
                    switch symbol {
                    case .scalar(let scalar): scalar
                    case .marker: DocumentSchema.markerScalar
                    }
                })
                try document.insertText(text, at: region.start + prefix, in: DocumentSchema.text)
            }
        } catch {
            throw .crdt(error)
        }
        // The kept prefix and suffix keep their marks (inserting or deleting beside a character
        // never changes its own); only the inserted middle is read back, with the marks it took
        // from its neighbours by their expand rules. So a keystroke reads one character, not its
        // whole block, a second time.
        var actual: [[String: CRDTValue]] = []
        actual.reserveCapacity(new.count)
        actual.append(contentsOf: region.oldAttributes[..<prefix])
        let insertedStart = region.start + prefix
        actual.append(contentsOf: try scalarAttributes(insertedStart..<(insertedStart + inserted.count)))
        actual.append(contentsOf: region.oldAttributes[(old.count - suffix)...])
        try reconcileMarks(in: region.start..<(region.start + new.count), symbols: new, wanted: region.newAttributes, actual: actual)
    }

    /// The marks of every scalar in `range` of the shared text.
    ///
    /// - Complexity: O(log n + range).
    func scalarAttributes(_ range: Range<Int>) throws(BridgeError) -> [[String: CRDTValue]] {
        var attributes: [[String: CRDTValue]] = []
        attributes.reserveCapacity(range.count)
        for run in try Projection.styledRuns(document, range) {
            attributes.append(contentsOf: repeatElement(run.attributes, count: run.scalars.count))
        }
        return attributes
    }

    /// Sets the schema's marks in `range` to `wanted` where they differ from `actual`; returns
    /// whether it set any.
    ///
    /// - Complexity: O(range · keys) plus the mark operations.
    @discardableResult
    func reconcileMarks(in range: Range<Int>, symbols: [TextSymbol], wanted: [[String: CRDTValue]], actual: [[String: CRDTValue]]) throws(BridgeError) -> Bool {
        guard !range.isEmpty else { return false }
        var wrote = false
        var keys = Set<String>()
        for attributes in actual { for key in attributes.keys where Self.isSchemaKey(key) { keys.insert(key) } }
        for attributes in wanted { keys.formUnion(attributes.keys) }
        for key in keys.sorted() {
            // Maximal stretches that must get one value.
            var stretch: (start: Int, value: CRDTValue?)?
            func flush(_ end: Int) throws(BridgeError) {
                guard let (start, value) = stretch else { return }
                stretch = nil
                wrote = true
                do {
                    try document.mark((range.lowerBound + start)..<(range.lowerBound + end), key: key, value: value ?? .null, in: DocumentSchema.text)
                } catch {
                    throw .crdt(error)
                }
            }
            for index in 0..<symbols.count {
                let isMarker = if case .marker = symbols[index] { true } else { false }
                // On a marker only `block` counts; elsewhere `block` must be absent.
                let counts = isMarker ? key == DocumentSchema.blockKey : true
                let want = wanted[index][key]
                let has = actual[index][key]
                if counts, want != has {
                    if let current = stretch, current.value == want { continue }
                    try flush(index)
                    stretch = (index, want)
                } else {
                    try flush(index)
                }
            }
            try flush(symbols.count)
        }
        return wrote
    }

    /// Whether the schema gives `key` a meaning (marks of other keys, a foreign peer's, are left
    /// alone).
    static func isSchemaKey(_ key: String) -> Bool {
        DocumentSchema.expandRules[key] != nil || key.hasPrefix(DocumentSchema.inlineElementPrefix)
    }

    /// Writes the text part of a commit.
    func writeText(_ affected: (old: Set<TreeID>, new: Set<NodeKey>), in next: EditorState) throws(BridgeError) {
        guard !affected.old.isEmpty || !affected.new.isEmpty else { return }
        let regions = try textRegions(for: affected, in: next)
        if let trace {
            func show(_ symbols: [TextSymbol]) -> String {
                symbols.map { symbol in
                    switch symbol {
                    case .scalar(let scalar): String(scalar)
                    case .marker(let id): "[\(DocumentSchema.string(id))]"
                    }
                }.joined()
            }
            trace("local affected old \(affected.old.map(DocumentSchema.string)) new \(affected.new)")
            for region in regions { trace("local region at \(region.start): \(show(region.oldSymbols).debugDescription) -> \(show(region.newSymbols).debugDescription)") }
        }
        for region in regions { try apply(region) }
    }
}
