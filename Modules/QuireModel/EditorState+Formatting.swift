/// Text formats over the selection, and walking the text nodes between two boundaries.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Formatting

    /// Toggles a text format over the selection (Lexical's FORMAT_TEXT_COMMAND): when the first
    /// selected text node has it, it is removed from every selected text node, otherwise added.
    /// Nodes are split exactly at the selection's ends. A collapsed selection toggles the format
    /// typing will use.
    public mutating func formatText(_ format: TextFormat) throws(ModelError) {
        var selection = try requireSelection()
        if selection.isCollapsed {
            selection.format.formSymmetricDifference(format)
            if selection.anchor.kind == .text, let node = self[selection.anchor.key], node.text.isEmpty, node.isSimpleText {
                try setTextFormat(selection.format, of: node.key)
            }
            self.selection = selection
            return
        }
        let backward = compare(selection.anchor, selection.focus) > 0
        let (start, end) = try orderedSelectionPoints()
        let (startBoundary, endBoundary) = try splitBoundaries(start, end, lift: false)
        let nodes = textNodes(from: startBoundary, to: endBoundary)
        guard let first = nodes.first, let last = nodes.last else {
            selection.format.formSymmetricDifference(format)
            self.selection = selection
            return
        }
        let adding = !(self[first]!.textFormat.contains(format))
        for key in nodes {
            var updated = self[key]!.textFormat
            if adding { updated.formUnion(format) } else { updated.subtract(format) }
            try setTextFormat(updated, of: key)
        }
        let startPoint = Point.text(first, 0)
        let endPoint = Point.text(last, textLength(last))
        self.selection = RangeSelection(
            anchor: backward ? endPoint : startPoint, focus: backward ? startPoint : endPoint,
            format: self[first]!.textFormat, style: selection.style
        )
    }

    /// The text nodes between two boundaries, in document order.
    func textNodes(from start: Boundary, to end: Boundary) -> [NodeKey] {
        var result: [NodeKey] = []
        var current: NodeKey? = child(at: start.index, of: start.parent).map { firstLeaf(in: $0) }
            ?? nextNode(afterSubtreeOf: start.parent)
        let stop: NodeKey? = child(at: end.index, of: end.parent).map { firstLeaf(in: $0) } ?? nextNode(afterSubtreeOf: end.parent)
        while let key = current, key != stop {
            if let node = self[key], node.role == .text, node.type == .text || node.isUnknown { result.append(key) }
            current = nextInDocument(key)
        }
        return result
    }

    /// The node after `key` in document order (pre-order).
    func nextInDocument(_ key: NodeKey) -> NodeKey? {
        if let first = self[key]?.firstChild { return first }
        return nextNode(afterSubtreeOf: key)
    }

    func nextNode(afterSubtreeOf key: NodeKey) -> NodeKey? {
        var current = key
        while let node = self[current] {
            if let next = node.nextSibling { return next }
            guard let parent = node.parent else { return nil }
            current = parent
        }
        return nil
    }
}
