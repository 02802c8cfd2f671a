/// Enter and Shift-Enter: paragraphs and line breaks.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Paragraphs and line breaks

    /// Splits the block at the caret (Enter). At the start of a non-empty block an empty block
    /// goes before it and the caret stays with the text; at the end a new block follows; in the
    /// middle the block is split. The new block's type comes from the block's plugin.
    public mutating func insertParagraph() throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        // Between blocks, Enter makes one empty paragraph there.
        if try makeTextBlockAtCaret() { return }
        selection = try requireSelection()
        let split = try liftBoundary(try boundary(at: selection.anchor))
        let blockNode = try node(split.parent)
        guard blockNode.role == .element(inline: false), blockNode.parent != nil else {
            throw .invalidPoint(selection.anchor, reason: "Enter needs a caret inside a block")
        }
        let position: BlockSplitPosition = split.index == 0 && blockNode.childCount > 0 ? .start
            : split.index >= blockNode.childCount ? .end : .middle
        if let plugin = plugin(of: blockNode) {
            var attempt = self
            attempt.selection = RangeSelection(caret: attempt.caretPoint(at: split), format: selection.format, style: selection.style)
            if try plugin.insertParagraph(in: blockNode, at: position, state: &attempt) {
                self = attempt
                return
            }
        }
        let template = plugin(of: blockNode)?.blockAfterSplit(of: blockNode, at: position)
            ?? (position == .middle ? BlockTemplate(type: blockNode.type, fields: blockNode.fields) : .paragraph(continuing: blockNode))
        let newBlock: NodeKey
        if registry.contains(template.type) && !(blockNode.isUnknown && template.type == blockNode.type) {
            newBlock = try createNode(type: template.type, fields: template.fields)
        } else {
            newBlock = createUnchecked(copying: blockNode)
        }
        switch position {
        case .start:
            try insert(newBlock, before: blockNode.key)
            self.selection = RangeSelection(caret: caretPoint(at: Boundary(parent: blockNode.key, index: 0)), format: selection.format, style: selection.style)
        case .end, .middle:
            try moveChildren(of: blockNode.key, from: split.index, to: newBlock, at: 0)
            try insert(newBlock, after: blockNode.key)
            let caret = self[newBlock]?.firstChild.flatMap { self[$0]?.role == .text ? Point.text($0, 0) : nil } ?? .element(newBlock, 0)
            self.selection = RangeSelection(caret: caret, format: selection.format, style: selection.style)
        }
    }

    /// Inserts a line break at the caret (Shift-Enter). With `selectStart`, the caret stays before
    /// the break; otherwise it goes after it.
    public mutating func insertLineBreak(selectStart: Bool = false) throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        try makeTextBlockAtCaret()
        selection = try requireSelection()
        let position = try boundary(at: selection.anchor)
        let lineBreak = try createNode(type: .lineBreak)
        try insertChild(lineBreak, at: position)
        let caretBoundary = Boundary(parent: position.parent, index: position.index + (selectStart ? 0 : 1))
        self.selection = RangeSelection(caret: caretPoint(at: caretBoundary), format: selection.format, style: selection.style)
    }
}
