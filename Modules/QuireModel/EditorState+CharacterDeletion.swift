/// Backspace and Delete by grapheme, word and line; block merges.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Deleting characters

    /// Backspace (`backward`) or forward delete: removes the selection, else the grapheme cluster
    /// (or token, or line break, or decorator) next to the caret, else merges blocks.
    public mutating func deleteCharacter(backward: Bool) throws(ModelError) {
        let selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            return
        }
        let caret = selection.anchor
        let block = block(containing: caret.key)
        // The leaf next to the caret in the direction of deletion, and the offset inside it.
        var target: (key: NodeKey, offset: Int)?
        switch caret.kind {
        case .text:
            let length = textLength(caret.key)
            if backward ? caret.offset > 0 : caret.offset < length {
                target = (caret.key, caret.offset)
            } else if let leaf = adjacentLeaf(to: caret.key, inBlock: block, backward: backward) {
                target = (leaf, backward ? textLength(leaf) : 0)
            }
        case .element:
            if let neighbour = child(at: backward ? caret.offset - 1 : caret.offset, of: caret.key) {
                let leaf = backward ? lastLeaf(in: neighbour) : firstLeaf(in: neighbour)
                target = (leaf, backward ? textLength(leaf) : 0)
            }
        }
        guard let (key, offset) = target else {
            try mergeBlock(block, backward: backward, caret: caret)
            return
        }
        let leaf = try node(key)
        if editsTextInPlace(leaf) && leaf.textMode != .token && !leaf.text.isEmpty {
            let range = leaf.textMode == .segmented
                ? segmentRange(in: leaf.text, at: offset, backward: backward)
                : graphemeRange(in: leaf.text, at: offset, backward: backward)
            if range.count == leaf.text.utf16.count {
                try removeLeaf(key, format: selection.format, style: selection.style)
            } else {
                try spliceText(key, at: range.lowerBound, deleting: range.count, inserting: "")
                if leaf.textMode == .segmented {
                    try setField("mode", to: .string(TextMode.normal.rawValue), of: key)
                }
                self.selection = RangeSelection(caret: .text(key, range.lowerBound), format: selection.format, style: selection.style)
            }
        } else {
            try removeLeaf(key, format: selection.format, style: selection.style)
        }
        try normalizeText(around: self.selection!.anchor)
    }

    /// Removes a leaf (and inline ancestors it empties) and puts the caret where it was.
    mutating func removeLeaf(_ key: NodeKey, format: TextFormat, style: String) throws(ModelError) {
        var target = key
        while let node = self[target], let parent = self[node.parent ?? target], parent.role == .element(inline: true), parent.childCount == 1 {
            target = parent.key
        }
        guard let parent = self[target]?.parent, let index = indexInParent(target) else { return }
        try remove(target)
        let caret = try refillIfEmpty(parent).map { Point.element($0, 0) } ?? caretPoint(at: Boundary(parent: parent, index: index))
        selection = RangeSelection(caret: caret, format: format, style: style)
    }

    /// The root or an editing boundary (a table cell) left without blocks gets an empty
    /// paragraph, so that it keeps a place for the caret; returns it.
    @discardableResult
    mutating func refillIfEmpty(_ container: NodeKey) throws(ModelError) -> NodeKey? {
        guard let node = self[container], node.childCount == 0, container == .root || isolatesContent(container),
              plugin(of: node)?.childRule.accepts(type: .paragraph, role: .element(inline: false)) ?? (container == .root) else { return nil }
        let paragraph = try createNode(type: .paragraph)
        try append(paragraph, to: container)
        return paragraph
    }

    /// Backspace at a block's start or forward delete at its end.
    mutating func mergeBlock(_ block: NodeKey, backward: Bool, caret: Point) throws(ModelError) {
        let blockNode = try node(block)
        // Only text blocks merge; a caret left in a container (an empty table row) deletes nothing.
        guard isTextBlock(blockNode) else { return }
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        if backward, let plugin = plugin(of: blockNode) {
            var attempt = self
            if try plugin.deleteBackwardAtStart(of: blockNode, in: &attempt) {
                self = attempt
                return
            }
        }
        if let neighbour = adjacentBlock(of: block, backward: backward), self[neighbour]?.role == .decorator(inline: false) {
            let caret = try deleteSeparator(between: block, andDecorator: neighbour, blockIsAfter: backward, caret: caret)
            selection = RangeSelection(caret: caret, format: format, style: style)
            return
        }
        let first: NodeKey
        let second: NodeKey
        if backward {
            guard let previous = previousTextBlock(before: block) else {
                try leaveEmptyBlock(block, backward: true, format: format, style: style)
                return
            }
            if blockNode.childCount == 0 {
                // An empty block goes; the caret moves to the end of the previous one.
                try remove(block)
                selection = RangeSelection(caret: endPoint(of: previous), format: format, style: style)
                return
            }
            if self[previous]?.childCount == 0 {
                try remove(previous)
                selection = RangeSelection(caret: caret, format: format, style: style)
                return
            }
            (first, second) = (previous, block)
        } else {
            guard let next = nextTextBlock(after: block) else {
                try leaveEmptyBlock(block, backward: false, format: format, style: style)
                return
            }
            (first, second) = (block, next)
        }
        let join = self[first]?.childCount ?? 0
        let caretAtJoin = try deleteBetween(Boundary(parent: first, index: join), Boundary(parent: second, index: 0))
        selection = RangeSelection(caret: caretAtJoin, format: format, style: style)
        try normalizeText(around: caretAtJoin)
    }

    /// Deleting the separator between a text block and a block decorator: a decorator cannot
    /// merge, so the decorator goes and the caret stays — unless the text block is empty, which
    /// goes instead with the caret beside the decorator (Lexical selects the decorator there, so
    /// that the next Backspace deletes it). Returns the caret.
    mutating func deleteSeparator(between block: NodeKey, andDecorator decorator: NodeKey, blockIsAfter: Bool, caret: Point) throws(ModelError) -> Point {
        guard self[block]?.childCount == 0, let parent = self[decorator]?.parent else {
            try remove(decorator)
            return caret
        }
        try remove(block)
        let index = indexInParent(decorator) ?? 0
        return .element(parent, blockIsAfter ? index + 1 : index)
    }

    /// Backspace (Delete) in an empty block with no text block to merge with inside its editing
    /// boundary, but a block beyond it (a table after a paragraph): the empty block goes and the
    /// caret moves into that block's nearest cell, as Lexical does. Otherwise nothing happens.
    mutating func leaveEmptyBlock(_ block: NodeKey, backward: Bool, format: TextFormat, style: String) throws(ModelError) {
        guard self[block]?.childCount == 0, adjacentBlock(of: block, backward: backward) != nil,
              let target = backward ? previousTextBlock(before: block, crossingBoundaries: true) : nextTextBlock(after: block, crossingBoundaries: true)
        else { return }
        try remove(block)
        selection = RangeSelection(caret: backward ? endPoint(of: target) : startPoint(of: target), format: format, style: style)
    }

    /// The block right before (or after) `block` at the nearest level that has one, without
    /// leaving the editing boundary that holds it.
    func adjacentBlock(of block: NodeKey, backward: Bool) -> NodeKey? {
        var current = block
        while let node = self[current] {
            if let sibling = backward ? node.previousSibling : node.nextSibling { return sibling }
            guard let parent = node.parent, parent != .root, !isolatesContent(parent) else { return nil }
            current = parent
        }
        return nil
    }

    /// The caret point at the start of a block's content.
    ///
    /// - Complexity: O(1).
    public func startPoint(of block: NodeKey) -> Point {
        caretPoint(at: Boundary(parent: block, index: 0))
    }

    /// The caret point at the end of a block's content.
    ///
    /// - Complexity: O(children) to reach the last child's neighbour.
    public func endPoint(of block: NodeKey) -> Point {
        caretPoint(at: Boundary(parent: block, index: self[block]?.childCount ?? 0))
    }

    /// The UTF-16 range of the grapheme cluster before (or after) `offset` in `text`.
    func graphemeRange(in text: String, at offset: Int, backward: Bool) -> Range<Int> {
        var previousBoundary = 0
        var position = 0
        for character in text {
            let end = position + character.utf16.count
            if backward {
                if end >= offset { return position..<offset.clamped(above: position) }
            } else if end > offset {
                return offset.clamped(below: end, above: position)..<end
            }
            previousBoundary = end
            position = end
        }
        return backward ? previousBoundary..<offset : offset..<offset
    }

    /// The space-separated segment of a segmented node next to `offset`, with its separating space.
    func segmentRange(in text: String, at offset: Int, backward: Bool) -> Range<Int> {
        let units = Array(text.utf16)
        let space: UInt16 = 0x20
        if backward {
            var start = offset
            while start > 0 && units[start - 1] == space { start -= 1 }
            while start > 0 && units[start - 1] != space { start -= 1 }
            return start..<offset
        }
        var end = offset
        while end < units.count && units[end] == space { end += 1 }
        while end < units.count && units[end] != space { end += 1 }
        return offset..<end
    }

    /// Deletes from the caret to the previous (or next) word boundary inside the block, or merges
    /// blocks when the caret is at the block's edge.
    public mutating func deleteWord(backward: Bool) throws(ModelError) {
        try deleteTo(backward: backward) { character, seenWord in
            let isWord = character.isLetter || character.isNumber || character == "_"
            return seenWord && !isWord ? .stop : (isWord ? .word : .skip)
        }
    }

    /// Deletes from the caret to the start (or end) of the line: the block edge or a line break.
    public mutating func deleteLine(backward: Bool) throws(ModelError) {
        try deleteTo(backward: backward) { _, _ in .word }
    }

    enum ScanStep { case skip, word, stop }

    /// Extends the selection from the caret through the block's leaves while `scan` says to, then
    /// deletes it. Line breaks and decorators end the scan.
    private mutating func deleteTo(backward: Bool, scan: (Character, Bool) -> ScanStep) throws(ModelError) {
        let selection = try requireSelection()
        guard selection.isCollapsed else {
            try removeSelectedText()
            return
        }
        let caret = selection.anchor
        let block = block(containing: caret.key)
        var focus = caret
        var seenWord = false
        var current: (key: NodeKey, offset: Int)? = caret.kind == .text ? (caret.key, caret.offset) : nil
        if current == nil, let neighbour = child(at: backward ? caret.offset - 1 : caret.offset, of: caret.key) {
            let leaf = backward ? lastLeaf(in: neighbour) : firstLeaf(in: neighbour)
            current = (leaf, backward ? textLength(leaf) : 0)
        }
        scanning: while let (key, offset) = current, let leaf = self[key], leaf.role == .text {
            let text = leaf.text
            let characters = backward ? Array(String(text.utf16Prefix(offset)).reversed()) : Array(String(text.utf16Suffix(from: offset)))
            var moved = 0
            for character in characters {
                switch scan(character, seenWord) {
                case .stop:
                    focus = .text(key, backward ? offset - moved : offset + moved)
                    break scanning
                case .word: seenWord = true
                case .skip: break
                }
                moved += character.utf16.count
            }
            focus = .text(key, backward ? offset - moved : offset + moved)
            guard let next = adjacentLeaf(to: key, inBlock: block, backward: backward) else { break }
            current = (next, backward ? textLength(next) : 0)
        }
        if focus == caret {
            try deleteCharacter(backward: backward)
            return
        }
        self.selection = RangeSelection(anchor: caret, focus: focus, format: selection.format, style: selection.style)
        try removeSelectedText()
    }
}
