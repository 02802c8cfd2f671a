/// Block-level operations that node plugins build their commands from.
extension EditorState {
    /// The text blocks (paragraph-like blocks holding inline content) that the selection touches,
    /// in document order, crossing editing boundaries.
    ///
    /// - Complexity: O(depth + blocks between the selection's ends + siblings walked).
    public func selectedTextBlocks() throws(ModelError) -> [NodeKey] {
        let (start, end) = try orderedSelectionPoints()
        let first = block(containing: start.key)
        let last = block(containing: end.key)
        var result = [first]
        var current = first
        while current != last, let next = nextTextBlock(after: current, crossingBoundaries: true) {
            result.append(next)
            current = next
        }
        return result
    }

    /// Replaces `block` by a new block made from `template`, moving its children (their keys
    /// survive) and mapping selection points on the old block to the new one. Returns the new key.
    ///
    /// - Throws: `ModelError` when the template's type is not registered or its fields are
    ///   invalid, or the new type may not sit where the block is; nothing changes then.
    /// - Complexity: O(children · log n).
    @discardableResult
    public mutating func replaceBlock(_ block: NodeKey, with template: BlockTemplate) throws(ModelError) -> NodeKey {
        guard try node(block).parent != nil else {
            throw .invalidPoint(.element(block, 0), reason: "the root cannot be replaced")
        }
        var attempt = self
        let replacement = try attempt.createNode(type: template.type, fields: template.fields)
        try attempt.insert(replacement, after: block)
        try attempt.moveChildren(of: block, from: 0, to: replacement, at: 0)
        try attempt.remove(block)
        if let selection = attempt.selection {
            func mapped(_ point: Point) -> Point { point.key == block ? .element(replacement, point.offset) : point }
            attempt.selection = RangeSelection(anchor: mapped(selection.anchor), focus: mapped(selection.focus), format: selection.format, style: selection.style)
        }
        self = attempt
        return replacement
    }

    /// Lexical's `$setBlocksType`: turns every selected text block whose parent accepts the
    /// template's type into a block of that type (children, their keys and the selection kept).
    /// Blocks whose parent does not accept the type (a list item, for instance) are left alone;
    /// returns the new blocks.
    ///
    /// - Complexity: O(selected blocks · (children + depth) · log n).
    @discardableResult
    public mutating func setBlocksType(_ template: BlockTemplate) throws(ModelError) -> [NodeKey] {
        guard let plugin = registry.plugin(for: template.type) else { throw .unknownType(template.type) }
        var attempt = self
        var replaced: [NodeKey] = []
        for block in try attempt.selectedTextBlocks() {
            guard let node = attempt[block], attempt.parentAccepts(node, type: template.type, role: plugin.role) else { continue }
            if node.matches(template) {
                replaced.append(block)
                continue
            }
            var fields = template.fields
            // Alignment, direction and indent belong to the block, not to its type.
            let specs = registry.fieldTable(for: template.type)?.specs ?? [:]
            for name in ["format", "direction", "indent"] where fields[name] == nil && node.role.isElement {
                if let value = node.fields[name], specs[name] != nil { fields[name] = value }
            }
            replaced.append(try attempt.replaceBlock(block, with: BlockTemplate(type: template.type, fields: fields)))
        }
        self = attempt
        return replaced
    }

    /// Lexical's `$insertNodeToNearestRoot`: inserts the detached block `key` at the selection's
    /// focus, splitting the text block there and every block above it up to the root or the
    /// nearest editing boundary (a table cell). Both halves of every split stay, even when empty,
    /// as in Lexical; the selected text is kept. The caret goes to the start of the block after
    /// the inserted one.
    ///
    /// - Throws: `ModelError` when the block may not sit there (nothing changes then).
    /// - Complexity: O(depth · (children moved + siblings) · log n).
    public mutating func insertBlockAtNearestRoot(_ key: NodeKey) throws(ModelError) {
        let selection = try requireSelection()
        var focus = selection.focus
        // A caret between blocks of a container that refuses the block (an empty table row)
        // inserts from the nearest text block instead.
        if let container = self[focus.key], let block = self[key], isBlockContainer(container),
           plugin(of: container)?.childRule.accepts(type: block.type, role: block.role) != true,
           let moved = textPosition(atContainerPoint: focus, isStart: false) {
            focus = moved
        }
        var attempt = self
        var position = try attempt.liftBoundary(try attempt.boundary(at: focus))
        while position.parent != .root, !attempt.isolatesContent(position.parent) {
            let block = try attempt.node(position.parent)
            guard let parent = block.parent, let index = attempt.indexInParent(block.key) else { throw .notAttached(block.key) }
            let tail = attempt.createUnchecked(copying: block)
            try attempt.moveChildren(of: block.key, from: position.index, to: tail, at: 0)
            try attempt.insert(tail, after: block.key)
            position = Boundary(parent: parent, index: index + 1)
        }
        try attempt.insertChild(key, at: position)
        let caret = attempt[key]?.nextSibling.flatMap { attempt.firstTextBlock(in: $0, crossingBoundaries: true) }
            .map { attempt.startPoint(of: $0) } ?? .element(position.parent, position.index + 1)
        attempt.selection = RangeSelection(caret: caret, format: selection.format, style: selection.style)
        self = attempt
    }

    /// Toggles the selected text blocks between the template's type and paragraphs, as a
    /// toolbar's block-type button does: when every selected block that can take the type already
    /// has it (with the template's fields), they become paragraphs; otherwise they take it
    /// (`setBlocksType`). Returns the blocks now in place.
    ///
    /// - Complexity: O(selected blocks · (children + depth) · log n).
    @discardableResult
    public mutating func toggleBlocksType(_ template: BlockTemplate) throws(ModelError) -> [NodeKey] {
        guard let plugin = registry.plugin(for: template.type) else { throw .unknownType(template.type) }
        let eligible = try selectedTextBlocks().compactMap { self[$0] }.filter { parentAccepts($0, type: template.type, role: plugin.role) }
        let isSet = !eligible.isEmpty && eligible.allSatisfy { $0.matches(template) }
        return try setBlocksType(isSet ? BlockTemplate(type: .paragraph) : template)
    }

    /// Whether the parent of `node` takes a child of `type` and `role` (false for a detached node).
    public func parentAccepts(_ node: Node, type: NodeType, role: NodeRole) -> Bool {
        guard let parent = node.parent.flatMap({ self[$0] }), let parentPlugin = plugin(of: parent) else { return false }
        return parentPlugin.childRule.accepts(type: type, role: role)
    }
}

extension Node {
    /// Whether the node has the template's type and every field the template names.
    func matches(_ template: BlockTemplate) -> Bool {
        type == template.type && template.fields.allSatisfy { fields[$0.key] == $0.value }
    }
}
