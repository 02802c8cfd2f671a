/// Deleting the selected range, across inlines, blocks and isolating nodes.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Deleting the selection

    /// Deletes the selected content, merging the blocks at its ends, and collapses the selection
    /// to where it was. Does nothing for a collapsed selection.
    public mutating func removeSelectedText() throws(ModelError) {
        var (start, end) = try orderedSelectionPoints()
        guard start != end else { return }
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        let startSide = blockDecoratorSide(of: start)
        let endSide = blockDecoratorSide(of: end)
        if startSide != nil || endSide != nil {
            try removeBesideBlockDecorators(start, end, startSide: startSide, endSide: endSide)
            return
        }
        // An end between blocks (not beside a decorator) moves into the text block there, so that
        // the deletion below only ever sees boundaries inside text blocks.
        start = textPosition(atContainerPoint: start) ?? start
        end = textPosition(atContainerPoint: end, isStart: false) ?? end
        guard compare(start, end) < 0 else {
            selection = RangeSelection(caret: start, format: format, style: style)
            return
        }
        let (startBoundary, endBoundary) = try splitBoundaries(start, end, lift: true)
        let caret = isolatingAncestor(of: startBoundary.parent) == isolatingAncestor(of: endBoundary.parent)
            ? try deleteBetween(startBoundary, endBoundary)
            : try deleteInsideBlocks(startBoundary, endBoundary)
        selection = RangeSelection(caret: caret, format: format, style: style)
        try normalizeText(around: caret)
    }

    /// Whether `node` holds blocks rather than inline content (the root, a table cell, an empty
    /// container), so that an element point in it sits between blocks.
    ///
    /// - Complexity: O(1).
    package func isBlockContainer(_ node: Node) -> Bool {
        node.role == .root || (node.role == .element(inline: false) && !isTextBlock(node))
    }

    /// For an element point between blocks, the caret where the flat string continues: the start
    /// of the first text block from child `offset` on, else the end of the last one before it —
    /// or, in a container holding no text block (a table row whose cells span in from above), the
    /// nearest text block after it for a start and before it for an end. Nil for any other point.
    func textPosition(atContainerPoint point: Point, isStart: Bool = true) -> Point? {
        guard point.kind == .element, let container = self[point.key], isBlockContainer(container) else { return nil }
        if let next = child(at: point.offset, of: point.key),
           let block = firstTextBlock(in: next, crossingBoundaries: true) ?? nextTextBlock(after: next, crossingBoundaries: true) {
            return startPoint(of: block)
        }
        if let previous = child(at: point.offset - 1, of: point.key) {
            if let block = lastTextBlock(in: previous, crossingBoundaries: true) ?? previousTextBlock(before: previous, crossingBoundaries: true) {
                return endPoint(of: block)
            }
        } else if container.childCount == 0, container.role != .root {
            let block = isStart
                ? nextTextBlock(after: container.key, crossingBoundaries: true) ?? previousTextBlock(before: container.key, crossingBoundaries: true)
                : previousTextBlock(before: container.key, crossingBoundaries: true) ?? nextTextBlock(after: container.key, crossingBoundaries: true)
            if let block {
                return compare(startPoint(of: block), point) >= 0 ? startPoint(of: block) : endPoint(of: block)
            }
        }
        return nil
    }

    /// For a selection end between blocks right beside a block decorator (a horizontal rule): the
    /// decorator and whether the end is after it. Nil for any other point.
    func blockDecoratorSide(of point: Point) -> (decorator: NodeKey, isAfter: Bool)? {
        guard point.kind == .element, let container = self[point.key], isBlockContainer(container) else { return nil }
        if let previous = child(at: point.offset - 1, of: point.key), self[previous]?.role == .decorator(inline: false) {
            return (previous, true)
        }
        if let next = child(at: point.offset, of: point.key), self[next]?.role == .decorator(inline: false) {
            return (next, false)
        }
        return nil
    }

    /// Deletes a range with an end beside a block decorator. The decorators wholly inside the
    /// range go, the text between goes as it always does, and a decorator never merges: a range
    /// holding nothing but the separator beside one (Backspace right after a horizontal rule,
    /// Delete right before it) removes that decorator instead.
    ///
    /// - Complexity: O(depth · siblings) to order the ends, plus the deletion itself.
    mutating func removeBesideBlockDecorators(
        _ start: Point, _ end: Point, startSide: (decorator: NodeKey, isAfter: Bool)?, endSide: (decorator: NodeKey, isAfter: Bool)?
    ) throws(ModelError) {
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        // The text just inside the range, past the decorators at its ends.
        var innerStart: Point? = start
        if let startSide {
            innerStart = nextTextBlock(after: startSide.decorator, crossingBoundaries: true).map { startPoint(of: $0) }
        }
        var innerEnd: Point? = end
        if let endSide {
            innerEnd = previousTextBlock(before: endSide.decorator, crossingBoundaries: true).map { endPoint(of: $0) }
        }
        // Decorators at the ends that the range covers whole.
        var covered: [NodeKey] = []
        func collect(from first: NodeKey?, forward: Bool) {
            var current = first
            while let key = current, let node = self[key], node.role == .decorator(inline: false),
                  let parent = node.parent, let index = indexInParent(key) {
                if compare(start, .element(parent, index)) <= 0, compare(.element(parent, index + 1), end) <= 0, !covered.contains(key) {
                    covered.append(key)
                }
                current = forward ? node.nextSibling : node.previousSibling
            }
        }
        if let startSide { collect(from: startSide.isAfter ? self[startSide.decorator]?.nextSibling : startSide.decorator, forward: true) }
        if let endSide { collect(from: endSide.isAfter ? endSide.decorator : self[endSide.decorator]?.previousSibling, forward: false) }
        let firstCovered = covered.first.flatMap { key in self[key]?.parent.map { ($0, indexInParent(key) ?? 0) } }

        var attempt = self
        var caret: Point?
        if let innerStart, let innerEnd, attempt.compare(innerStart, innerEnd) < 0 {
            attempt.selection = RangeSelection(anchor: innerStart, focus: innerEnd, format: format, style: style)
            try attempt.removeSelectedText()
            caret = attempt.selection?.anchor
        }
        for key in covered where attempt[key] != nil && attempt.isAttached(key) {
            let parent = attempt[key]?.parent
            try attempt.remove(key)
            if let parent, let refilled = try attempt.refillIfEmpty(parent), caret == nil { caret = .element(refilled, 0) }
        }
        if caret == nil, let (parent, index) = firstCovered {
            caret = try attempt.caretWhereBlockWas(parent: parent, index: index)
        }
        if caret == nil {
            // Nothing but the separator beside a decorator: what Backspace and Delete do there.
            if let startSide, startSide.isAfter, endSide == nil, isolatingAncestor(of: startSide.decorator) == isolatingAncestor(of: end.key) {
                caret = try attempt.deleteSeparator(between: block(containing: end.key), andDecorator: startSide.decorator, blockIsAfter: true, caret: end)
            } else if let endSide, !endSide.isAfter, startSide == nil, isolatingAncestor(of: endSide.decorator) == isolatingAncestor(of: start.key) {
                caret = try attempt.deleteSeparator(between: block(containing: start.key), andDecorator: endSide.decorator, blockIsAfter: false, caret: start)
            } else if let startSide, startSide.isAfter, let parent = self[startSide.decorator]?.parent {
                // Between two decorators: the first goes, the caret stays before the second.
                let index = indexInParent(startSide.decorator) ?? 0
                try attempt.remove(startSide.decorator)
                caret = .element(parent, index)
            } else {
                caret = start
            }
        }
        attempt.selection = RangeSelection(caret: caret ?? start, format: format, style: style)
        self = attempt
    }

    /// A caret for where a removed block was, before child `index` of `parent`: the start of the
    /// next text block, else the end of the previous one, else a new empty paragraph when the
    /// container is left empty.
    ///
    /// - Complexity: O(index + depth).
    package mutating func caretWhereBlockWas(parent: NodeKey, index: Int) throws(ModelError) -> Point {
        if let next = child(at: index, of: parent) {
            return firstTextBlock(in: next, crossingBoundaries: true).map { startPoint(of: $0) } ?? .element(parent, index)
        }
        if let previous = child(at: index - 1, of: parent) {
            return lastTextBlock(in: previous, crossingBoundaries: true).map { endPoint(of: $0) } ?? .element(parent, index)
        }
        let paragraph = try createNode(type: .paragraph)
        try append(paragraph, to: parent)
        return .element(paragraph, 0)
    }

    /// Deletes the selected range the way a text view means it. A text view sends Backspace at the
    /// start of a block (and Delete at the end of the block before it) as the deletion of the
    /// "\n" between the two; a range that spans exactly that separator between two adjacent text
    /// blocks is therefore Backspace at the start of the later block, so that the block's plugin
    /// hook (`deleteBackwardAtStart`) runs: a list item outdents, an empty heading becomes a
    /// paragraph. Every other range is deleted with `removeSelectedText()`.
    ///
    /// - Complexity: O(depth + siblings walked) to recognise the separator, then the deletion's.
    public mutating func deleteSelectedRange() throws(ModelError) {
        let (start, end) = try orderedSelectionPoints()
        guard start != end else { return }
        let first = block(containing: start.key)
        let second = block(containing: end.key)
        if first != second, nextTextBlock(after: first) == second,
           adjacentBlock(of: second, backward: true).map({ self[$0]?.role != .decorator(inline: false) }) ?? false,
           isAtBlockEdge(start, of: first, atEnd: true), isAtBlockEdge(end, of: second, atEnd: false) {
            selection = RangeSelection(caret: end, format: selection?.format ?? [], style: selection?.style ?? "")
            try deleteCharacter(backward: true)
            return
        }
        try removeSelectedText()
    }

    /// Whether nothing of `block`'s content lies after (`atEnd`) or before the point.
    func isAtBlockEdge(_ point: Point, of block: NodeKey, atEnd: Bool) -> Bool {
        guard let node = self[point.key] else { return false }
        switch point.kind {
        case .text:
            guard point.offset == (atEnd ? node.text.utf16.count : 0) else { return false }
        case .element:
            guard point.offset == (atEnd ? node.childCount : 0) else { return false }
        }
        var key = point.key
        while key != block {
            guard let current = self[key], let parent = current.parent,
                  (atEnd ? current.nextSibling : current.previousSibling) == nil else { return false }
            key = parent
        }
        return true
    }

    /// Splits the document at two ordered points and returns the boundaries there, optionally
    /// lifted out of inline elements to block level.
    ///
    /// The end is split first so that the start's offsets stay valid; the end is then located by
    /// the node after it, because splitting at the start can shift its index. Plugins use it to
    /// act on exactly the selected inline nodes (wrapping them in a link, for instance).
    ///
    /// - Complexity: O(depth + siblings + text length at the two points).
    package mutating func splitBoundaries(_ start: Point, _ end: Point, lift: Bool) throws(ModelError) -> (Boundary, Boundary) {
        var endBoundary = try boundary(at: end)
        if lift { endBoundary = try liftBoundary(endBoundary) }
        let nodeAfterEnd = child(at: endBoundary.index, of: endBoundary.parent)
        var startBoundary = try boundary(at: start)
        if lift { startBoundary = try liftBoundary(startBoundary) }
        if let nodeAfterEnd, let index = indexInParent(nodeAfterEnd) {
            endBoundary.index = index
        } else {
            endBoundary.index = self[endBoundary.parent]?.childCount ?? 0
        }
        return (startBoundary, endBoundary)
    }

    /// Removes everything between two block-level boundaries; returns the caret point.
    mutating func deleteBetween(_ start: Boundary, _ end: Boundary) throws(ModelError) -> Point {
        if start.parent == end.parent {
            for _ in start.index..<max(start.index, end.index) {
                if let key = child(at: start.index, of: start.parent) { try remove(key) }
            }
            return caretPoint(at: start)
        }
        let startBlock = start.parent
        let endBlock = end.parent
        // Content after the start boundary in its block, and before the end boundary in its block.
        while let key = child(at: start.index, of: startBlock) { try remove(key) }
        for _ in 0..<end.index { if let key = self[endBlock]?.firstChild { try remove(key) } }
        // Everything strictly between the two blocks.
        let startAncestors = [startBlock] + ancestors(of: startBlock)
        let endAncestors = [endBlock] + ancestors(of: endBlock)
        guard let common = startAncestors.first(where: { endAncestors.contains($0) }) else {
            throw .invalidPoint(.element(endBlock, 0), reason: "the ends of the selection share no ancestor")
        }
        for key in startAncestors.prefix(while: { $0 != common }) {
            while let next = self[key]?.nextSibling, !endAncestors.contains(next) { try remove(next) }
        }
        for key in endAncestors.prefix(while: { $0 != common }) {
            while let previous = self[key]?.previousSibling, !startAncestors.contains(previous) { try remove(previous) }
        }
        // Join: the rest of the end block moves to the start block; emptied containers go.
        let joinIndex = self[startBlock]?.childCount ?? 0
        try moveChildren(of: endBlock, from: 0, to: startBlock, at: joinIndex)
        var emptied: NodeKey? = endBlock
        while let key = emptied, key != common, let node = self[key], node.childCount == 0 {
            emptied = node.parent
            try remove(key)
        }
        return caretPoint(at: Boundary(parent: startBlock, index: joinIndex))
    }

    /// Removes the inline content between two block-level boundaries in different editing
    /// boundaries (table cells): each text block in between is emptied, the end blocks lose the
    /// selected part, and no block is removed or merged, so a cell can never lose its place.
    /// Returns the caret point at the start.
    ///
    /// - Complexity: O(blocks + removed nodes) between the boundaries.
    mutating func deleteInsideBlocks(_ start: Boundary, _ end: Boundary) throws(ModelError) -> Point {
        var block: NodeKey? = start.parent
        while let current = block {
            let from = current == start.parent ? start.index : 0
            let isLast = current == end.parent
            let to = isLast ? end.index : self[current]?.childCount ?? 0
            for _ in from..<max(from, to) {
                if let key = child(at: from, of: current) { try remove(key) }
            }
            if isLast { break }
            block = nextTextBlock(after: current, crossingBoundaries: true)
        }
        return caretPoint(at: start)
    }
}
