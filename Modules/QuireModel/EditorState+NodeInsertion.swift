/// Inserting nodes at the selection, reading its text, and text-node normalization.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Nodes and text content

    /// Inserts detached nodes at the selection: inline nodes go into the block at the caret; block
    /// nodes split the block and go between its halves (an empty first half is replaced). The
    /// caret ends after the last inserted node.
    public mutating func insertNodes(_ keys: [NodeKey]) throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        guard !keys.isEmpty else { return }
        let nodes = try keys.map { (key) throws(ModelError) -> Node in try node(key) }
        if nodes.allSatisfy({ $0.role.isInline }) {
            try makeTextBlockAtCaret()
            selection = try requireSelection()
            var position = try boundary(at: selection.anchor)
            for key in keys {
                try insertChild(key, at: position)
                position.index += 1
            }
            self.selection = RangeSelection(caret: caretPoint(at: position), format: selection.format, style: selection.style)
            return
        }
        let split = try liftBoundary(try boundary(at: selection.anchor))
        let block = try node(split.parent)
        var anchor: NodeKey
        if split.parent == .root {
            guard let previous = split.index > 0 ? child(at: split.index - 1, of: .root) : nil else {
                try prepend(keys[0], to: .root)
                for (previous, key) in zip(keys, keys.dropFirst()) { try insert(key, after: previous) }
                self.selection = RangeSelection(caret: endPoint(of: keys.last!), format: selection.format, style: selection.style)
                return
            }
            anchor = previous
        } else if split.index == 0 {
            // Nothing before the caret: the blocks go before this block.
            for key in keys { try insert(key, before: block.key) }
            self.selection = RangeSelection(caret: endPoint(of: keys.last!), format: selection.format, style: selection.style)
            return
        } else {
            if split.index < block.childCount {
                let tail = createUnchecked(copying: block)
                try moveChildren(of: block.key, from: split.index, to: tail, at: 0)
                try insert(tail, after: block.key)
            }
            anchor = block.key
        }
        for key in keys {
            try insert(key, after: anchor)
            anchor = key
        }
        self.selection = RangeSelection(caret: endPoint(of: keys.last!), format: selection.format, style: selection.style)
    }

    /// The selected text, blocks separated by "\n" as in the flat string.
    public func selectedTextContent() throws(ModelError) -> String {
        let (start, end) = try orderedSelectionPoints()
        var result = ""
        var key: NodeKey? = start.key
        var lastBlock = block(containing: start.key)
        while let current = key, let node = self[current] {
            let currentBlock = block(containing: current)
            if currentBlock != lastBlock && node.role != .root && !node.role.isInline {
                result += "\n"
                lastBlock = currentBlock
            }
            var content = FlatString.content(of: node)
            if node.role == .text {
                let utf16 = Array(node.text.utf16)
                let from = current == start.key && start.kind == .text ? start.offset : 0
                let to = current == end.key && end.kind == .text ? end.offset : utf16.count
                content = String(decoding: utf16[from..<max(from, to)], as: UTF16.self)
            }
            if !(current == start.key && start.kind == .element) { result += content }
            if current == end.key { break }
            key = nextInDocument(current)
        }
        return result
    }

    // MARK: Normalization

    /// Merges simple text nodes next to the point with equal neighbours (same format, style and
    /// mode, and not marked unmergeable) and drops empty simple text nodes the point is not in,
    /// keeping the selection on the same characters.
    public mutating func normalizeText(around point: Point) throws(ModelError) {
        guard let node = self[point.key] else { return }
        let parent = node.role == .text ? node.parent : node.key
        guard let parent else { return }
        try normalizeTextChildren(of: parent)
    }

    /// Normalizes the text children of one element.
    public mutating func normalizeTextChildren(of parent: NodeKey) throws(ModelError) {
        var current = self[parent]?.firstChild
        while let key = current, let node = self[key] {
            current = node.nextSibling
            guard isMergeableText(node) else { continue }
            if node.text.isEmpty, !(selectionTouches(key)) {
                try remove(key)
                continue
            }
            // Neighbours that edit text in place and carry the same fields (format, style, a
            // code token's class …) are one node, unless either is unmergeable.
            guard let nextKey = node.nextSibling, let next = self[nextKey], isMergeableText(next), next.type == node.type,
                  next.fields == node.fields, node.textDetail & 2 == 0 else { continue }
            let shift = node.text.utf16.count
            try setText(node.text + next.text, of: key)
            if var selection {
                for point in [\RangeSelection.anchor, \RangeSelection.focus] where selection[keyPath: point].key == nextKey {
                    selection[keyPath: point] = .text(key, selection[keyPath: point].offset + shift)
                }
                self.selection = selection
            }
            try remove(nextKey)
            current = key
        }
    }

    /// Joins neighbouring inline elements of one type with equal fields among `parent`'s
    /// children (a deletion inside a link leaves its two halves side by side; they show as one
    /// link, and a collaborative document holds them as one), and removes inline elements left
    /// without content.
    ///
    /// - Complexity: O(children of `parent` + children moved · log₃₂ n).
    public mutating func joinEqualInlineElements(in parent: NodeKey) throws(ModelError) {
        var current = self[parent]?.firstChild
        while let key = current, let node = self[key] {
            current = node.nextSibling
            // An inline element left without content (a link whose text was deleted) goes, as
            // Lexical removes an element that cannot be empty.
            if node.role == .element(inline: true), !node.isUnknown, node.childCount == 0 {
                try remove(key)
                continue
            }
            guard node.role == .element(inline: true), !node.isUnknown, let nextKey = node.nextSibling, let next = self[nextKey],
                  next.role == node.role, next.type == node.type, !next.isUnknown, next.fields == node.fields else { continue }
            try moveChildren(of: nextKey, from: 0, to: key, at: node.childCount)
            try remove(nextKey)
            try normalizeTextChildren(of: key)
            current = key
        }
    }

    /// A text-role node in normal mode whose plugin edits its text in place (`text`,
    /// `code-highlight`): what normalization merges and empties away.
    func isMergeableText(_ node: Node) -> Bool {
        guard node.role == .text, node.textMode == .normal, !node.isUnknown else { return false }
        return plugin(of: node)?.editsTextInPlace ?? false
    }

    private func selectionTouches(_ key: NodeKey) -> Bool {
        guard let selection else { return false }
        return selection.anchor.key == key || selection.focus.key == key
    }
}
