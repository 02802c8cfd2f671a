/// The selected content as a document of its own, what a copy puts on the clipboard.
extension EditorState {
    /// The selection's content as a state of its own: the blocks the selection touches with their
    /// containers (a list around a list item, a table around a cell), the text before its start
    /// and after its end cut away, and no selection (Lexical's `$generateJSONFromSelectedNodes`).
    /// A block the selection only touches at its very end is left out. A collapsed selection
    /// gives an empty document.
    ///
    /// - Throws: `ModelError.noSelection` without a selection, or for points that do not fit
    ///   the state.
    /// - Complexity: O(n · log₃₂ n): everything outside the selection is removed from a copy.
    public func selectedFragment() throws(ModelError) -> EditorState {
        let (start, end) = try orderedSelectionPoints()
        var fragment = self
        fragment.selection = nil
        guard compare(start, end) < 0 else {
            while let first = fragment.root.firstChild { try fragment.remove(first) }
            return fragment
        }
        let startBlock = block(containing: start.key)
        let endBlock = block(containing: end.key)
        try fragment.cut(after: end)
        try fragment.cut(before: start)
        // A block the selection starts at the end of contributes nothing; it goes, with the
        // containers it leaves empty.
        var emptied: NodeKey? = startBlock
        if startBlock != endBlock {
            while let key = emptied, key != .root, let node = fragment[key], node.childCount == 0 {
                emptied = node.parent
                try fragment.remove(key)
            }
        }
        return fragment
    }

    /// Removes everything after `point` in document order.
    private mutating func cut(after point: Point) throws(ModelError) {
        if point.kind == .text {
            let length = textLength(point.key)
            if point.offset < length { try spliceText(point.key, at: point.offset, deleting: length - point.offset, inserting: "") }
        } else {
            while let child = child(at: point.offset, of: point.key) { try remove(child) }
        }
        try removeSiblings(from: point.key, forward: true)
        try removeIfEmptyText(point)
    }

    /// Removes everything before `point` in document order.
    private mutating func cut(before point: Point) throws(ModelError) {
        if point.kind == .text {
            if point.offset > 0 { try spliceText(point.key, at: 0, deleting: point.offset, inserting: "") }
        } else {
            for _ in 0..<point.offset {
                guard let first = self[point.key]?.firstChild else { break }
                try remove(first)
            }
        }
        try removeSiblings(from: point.key, forward: false)
        try removeIfEmptyText(point)
    }

    private mutating func removeIfEmptyText(_ point: Point) throws(ModelError) {
        if point.kind == .text, let node = self[point.key], node.role == .text, node.text.isEmpty { try remove(point.key) }
    }

    /// Removes the siblings after (or before) `key` and after (or before) each of its ancestors.
    private mutating func removeSiblings(from key: NodeKey, forward: Bool) throws(ModelError) {
        var current = key
        while let node = self[current], let parent = node.parent {
            while let sibling = forward ? self[current]?.nextSibling : self[current]?.previousSibling { try remove(sibling) }
            current = parent
        }
    }
}
