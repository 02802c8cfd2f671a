import QuireModel

/// Enter and Backspace in list items, as the model's hooks call them (so they work the same for
/// commands, native text-view edits and `quire edit-script`).
extension EditorState {
    /// Enter in `item` with a collapsed caret (the `insertParagraph` hook; the selected text is
    /// already gone and the caret is at the split).
    ///
    /// - An empty item (or one holding only white space) leaves its list, as Lexical's
    ///   `$handleListInsertParagraph`: a top-level item becomes an empty paragraph after the list
    ///   (the items after it move to a new list after the paragraph, counting from 1); a nested
    ///   item becomes an empty item after the wrapper of its list, one level up (an outdent).
    /// - Otherwise the item splits into two items (Lexical's `insertNewAfter` copies the item,
    ///   with an unchecked box): at the start an empty item goes before it and the caret stays;
    ///   elsewhere the content after the caret moves to the new item, which takes the caret.
    ///
    /// Numbers after the edit are renumbered. Returns false (the default split runs) when the
    /// item is not in a list.
    ///
    /// - Complexity: O(depth + moved children + following items moved or renumbered).
    public mutating func insertListItemParagraph(in item: NodeKey, at position: BlockSplitPosition) throws(ModelError) -> Bool {
        let node = try node(item)
        guard let list = node.parent, isList(list), let caret = selection?.anchor else { return false }
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        if isBlank(node) {
            try exitList(item, list: list, format: format, style: style)
            return true
        }
        let copy = try createNode(type: ListItemNodePlugin.type, fields: ListItemNodePlugin.fieldsForCopy(of: node))
        if position == .start {
            try insert(copy, before: item)
        } else {
            try insert(copy, after: item)
            try moveChildren(of: item, from: splitIndex(at: caret, in: item), to: copy)
            let first = self[copy]?.firstChild
            selection = RangeSelection(caret: first.flatMap { self[$0]?.role == .text ? Point.text($0, 0) : nil } ?? .element(copy, 0),
                                       format: format, style: style)
        }
        try renumberListItems(around: [copy, item])
        return true
    }

    /// Backspace at the very start of `item` (the `deleteBackwardAtStart` hook, Lexical's
    /// `ListItemNode.collapseAtStart`): a nested item outdents; a top-level item becomes a
    /// paragraph (keeping its content, direction and alignment) between its list and a new list
    /// of the items after it, with the caret at its start. Returns false when the item is not in
    /// a list.
    ///
    /// - Complexity: O(depth + children + following items).
    public mutating func collapseListItemAtStart(_ item: NodeKey) throws(ModelError) -> Bool {
        let node = try node(item)
        guard !isNestedListWrapper(item), let list = node.parent, isList(list) else { return false }
        if isListItem(self[list]?.parent) {
            try outdentListItem(item)
            return true
        }
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        let paragraph = try splitList(list, at: item, replacingWith: .paragraph(continuing: node), restart: false)
        try moveAllChildren(of: item, to: paragraph)
        try remove(item)
        if self[list]?.childCount == 0 { try remove(list) }
        let first = self[paragraph]?.firstChild
        selection = RangeSelection(caret: first.flatMap { self[$0]?.role == .text ? Point.text($0, 0) : nil } ?? .element(paragraph, 0),
                                   format: format, style: style)
        return true
    }

    /// Whether an item has no content, or only white-space text (Lexical exits a list on Enter
    /// in such an item).
    private func isBlank(_ item: Node) -> Bool {
        children(of: item.key).allSatisfy { child in
            child.type == .text && child.text.allSatisfy(\.isWhitespace)
        }
    }

    /// Enter in a blank item: out of the list, or one level up.
    private mutating func exitList(_ item: NodeKey, list: NodeKey, format: TextFormat, style: String) throws(ModelError) {
        let replacement: NodeKey
        if let wrapper = self[list]?.parent, isListItem(wrapper) {
            let wrapperNode = try node(wrapper)
            replacement = try createNode(type: ListItemNodePlugin.type, fields: ListItemNodePlugin.fieldsForCopy(of: wrapperNode))
            try insert(replacement, after: wrapper)
            if self[item]?.nextSibling != nil {
                let tailWrapper = try createNode(type: ListItemNodePlugin.type, fields: ListItemNodePlugin.fieldsForCopy(of: wrapperNode))
                var listFields = try node(list).fields
                listFields["start"] = .number(.integer(1))
                let tailList = try createNode(type: ListNodePlugin.type, fields: listFields)
                try append(tailList, to: tailWrapper)
                try moveSiblings(after: item, to: tailList)
                try insert(tailWrapper, after: replacement)
                try renumberListItems(around: [self[tailList]?.firstChild])
            }
            try removeWithEmptyListAncestors(item)
            try setDepthField(of: replacement)
            try renumberListItems(around: [replacement, self[replacement]?.previousSibling])
        } else {
            replacement = try splitList(list, at: item, replacingWith: BlockTemplate(type: .paragraph, fields: [
                "textFormat": .number(.integer(format.rawValue)), "textStyle": .string(style),
            ]), restart: true)
            try removeWithEmptyListAncestors(item)
        }
        selection = RangeSelection(caret: .element(replacement, 0), format: format, style: style)
    }

    /// Inserts a block made from `template` after `list`, and moves the items after `item` into
    /// a copy of the list after that block (counting from 1 when `restart`, else from the
    /// list's `start`). Returns the block.
    private mutating func splitList(_ list: NodeKey, at item: NodeKey, replacingWith template: BlockTemplate, restart: Bool) throws(ModelError) -> NodeKey {
        let block = try createNode(type: template.type, fields: template.fields)
        try insert(block, after: list)
        if self[item]?.nextSibling != nil {
            var listFields = try node(list).fields
            if restart { listFields["start"] = .number(.integer(1)) }
            let tail = try createNode(type: ListNodePlugin.type, fields: listFields)
            try moveSiblings(after: item, to: tail)
            try insert(tail, after: block)
            try renumberListItems(around: [self[tail]?.firstChild])
        }
        return block
    }

    /// The child index of a caret point placed at a block-level split of `block`.
    private func splitIndex(at caret: Point, in block: NodeKey) -> Int {
        switch caret.kind {
        case .element:
            return caret.offset
        case .text:
            let index = indexInParent(caret.key) ?? 0
            return caret.offset == textLength(caret.key) ? index + 1 : index
        }
    }

    /// Moves the children of `source` from `start` on to the end of `target`.
    private mutating func moveChildren(of source: NodeKey, from start: Int, to target: NodeKey) throws(ModelError) {
        var moving: [NodeKey] = []
        var current = child(at: start, of: source)
        while let key = current {
            moving.append(key)
            current = self[key]?.nextSibling
        }
        for key in moving {
            try detach(key)
            try append(key, to: target)
        }
    }
}
