import QuireModel

/// The list commands as pure state edits (Lexical's `formatList.ts`): each runs on a (pending)
/// state and its selection, keeps item numbers right for what it changed, and leaves the state as
/// it was when it throws. The `ListExtension` calls them inside `Editor.update`.
extension EditorState {
    // MARK: Insert, remove, toggle

    /// Turns the selected blocks into items of a list of `type` (Lexical's `$insertList`).
    ///
    /// A block in a list changes its list's type (a list of another type becomes one of `type`,
    /// starting at 1; a check list's items get a box, other lists' items lose it). A block
    /// directly under the root or an editing boundary (a table cell) becomes an item: appended to
    /// the list before it when that list has the same type (merging the list after it too when
    /// that one also has), put first in the list after it when that one has, else in a new list
    /// in its place. The new item keeps the block's alignment and is indented as deep as the
    /// block's `indent`. Other blocks are left alone.
    ///
    /// - Complexity: O(selected blocks · depth + items renumbered + items of retyped lists).
    public mutating func insertList(_ type: ListType) throws(ModelError) {
        var attempt = self
        var retyped = Set<NodeKey>()
        for block in try attempt.selectedTextBlocks() {
            guard let node = attempt[block], node.isAttached else { continue }
            if node.type == ListItemNodePlugin.type {
                guard let list = node.parent, attempt.isList(list), retyped.insert(list).inserted else { continue }
                try attempt.setListType(type, of: list)
            } else if let parent = node.parent, parent == .root || attempt.isolatesContent(parent), node.role == .element(inline: false) {
                try attempt.createListOrMerge(block, type: type)
            }
        }
        self = attempt
    }

    /// Turns every list that holds a selected block back into paragraphs, nested items included
    /// (Lexical's `$removeList`: the whole outermost list goes). Each item becomes a paragraph
    /// with the item's content (keys kept) and the selection's format and style for typing.
    ///
    /// - Complexity: O(items of the removed lists · log n).
    public mutating func removeList() throws(ModelError) {
        var attempt = self
        var lists: [NodeKey] = []
        for block in try attempt.selectedTextBlocks() where attempt.isListItem(block) {
            if let list = attempt.topList(of: block), !lists.contains(list) { lists.append(list) }
        }
        let format = attempt.selection?.format ?? []
        let style = attempt.selection?.style ?? ""
        for list in lists {
            var insertionPoint = list
            for item in attempt.contentItems(of: list) {
                let paragraph = try attempt.createNode(type: .paragraph, fields: [
                    "textFormat": .number(.integer(format.rawValue)), "textStyle": .string(style),
                ])
                try attempt.insert(paragraph, after: insertionPoint)
                try attempt.moveAllChildren(of: item, to: paragraph)
                insertionPoint = paragraph
            }
            try attempt.remove(list)
        }
        self = attempt
    }

    /// Removes the lists when every selected block is an item of a list of `type`, otherwise
    /// inserts a list of `type` (what a toolbar's list button does).
    public mutating func toggleList(_ type: ListType) throws(ModelError) {
        let blocks = try selectedTextBlocks()
        let allInType = blocks.allSatisfy { block in
            isListItem(block) && self[block]?.parent.map { listType(of: $0) } == type
        }
        if allInType { try removeList() } else { try insertList(type) }
    }

    /// Changes a list's type (a new type starts at 1, as Lexical's replacement list does) and
    /// gives its items a check box exactly when it becomes a check list.
    ///
    /// - Complexity: O(items of the list).
    mutating func setListType(_ type: ListType, of list: NodeKey) throws(ModelError) {
        guard listType(of: list) != type else { return }
        try setField("listType", to: .string(type.rawValue), of: list)
        try setField("tag", to: .string(type.tag), of: list)
        try setField("start", to: .number(.integer(1)), of: list)
        for item in children(of: list) {
            if type == .check {
                if item.fields["checked"] == nil || item.fields["checked"] == .null { try setField("checked", to: .bool(false), of: item.key) }
            } else if item.fields["checked"] != nil {
                try setField("checked", to: nil, of: item.key)
            }
        }
        if let first = self[list]?.firstChild { try renumberListItems(from: first) }
    }

    /// Lexical's `$createListOrMerge`: `block` becomes an item of a list of `type`.
    private mutating func createListOrMerge(_ block: NodeKey, type: ListType) throws(ModelError) {
        let node = try node(block)
        var fields: JSONObject = ["format": node.fields["format"] ?? .string("")]
        if let direction = node.fields["direction"] { fields["direction"] = direction }
        if type == .check { fields["checked"] = .bool(false) }
        let item = try createNode(type: ListItemNodePlugin.type, fields: fields)
        let previous = node.previousSibling
        let next = node.nextSibling
        var touched: [NodeKey?] = [item]
        if isList(previous), let previous, listType(of: previous) == type {
            try append(item, to: previous)
            if isList(next), let next, listType(of: next) == type {
                touched.append(self[next]?.firstChild)
                try moveAllChildren(of: next, to: previous)
                try remove(next)
            }
        } else if isList(next), let next, listType(of: next) == type {
            touched.append(self[next]?.firstChild)
            try prepend(item, to: next)
        } else {
            let list = try createNode(type: ListNodePlugin.type, fields: type.listFields)
            try insert(list, before: block)
            try append(item, to: list)
        }
        try moveAllChildren(of: block, to: item)
        try remove(block)
        try renumberListItems(around: touched)
        for _ in 0..<max(0, node.indent) { try indentListItem(item) }
    }

    // MARK: Indent and outdent

    /// The list items (not wrappers) among the selected blocks.
    public func selectedListItems() throws(ModelError) -> [NodeKey] {
        try selectedTextBlocks().filter { isListItem($0) && !isNestedListWrapper($0) && isList(self[$0]?.parent) }
    }

    /// Indents every selected list item one level (Tab). Returns whether the selection holds
    /// list items; other blocks are left alone.
    ///
    /// - Complexity: O(selected items · (depth + items renumbered + items of a merged nested list)).
    @discardableResult
    public mutating func indentListItems() throws(ModelError) -> Bool {
        try changeSelectedListItemsIndent(outdent: false)
    }

    /// Outdents every selected nested list item one level (Shift-Tab). Returns whether the
    /// selection holds list items (a top-level item stays where it is).
    ///
    /// - Complexity: O(selected items · (depth + following siblings + items renumbered)).
    @discardableResult
    public mutating func outdentListItems() throws(ModelError) -> Bool {
        try changeSelectedListItemsIndent(outdent: true)
    }

    /// Indents or outdents every selected list item, all or nothing.
    private mutating func changeSelectedListItemsIndent(outdent: Bool) throws(ModelError) -> Bool {
        var attempt = self
        let items = try attempt.selectedListItems()
        for item in items {
            if outdent { try attempt.outdentListItem(item) } else { try attempt.indentListItem(item) }
        }
        self = attempt
        return !items.isEmpty
    }

    /// Moves `item` one level deeper (Lexical's `$handleIndent`): into the nested list of the
    /// wrapper before it (at its end) or after it (at its start), merging the two when both are
    /// there, or into a new nested list of the same kind in a new wrapper in its place.
    public mutating func indentListItem(_ item: NodeKey) throws(ModelError) {
        guard !isNestedListWrapper(item), let node = self[item], let list = node.parent, isList(list) else { return }
        let previous = node.previousSibling
        let next = node.nextSibling
        var touched: [NodeKey?] = [next]
        if isNestedListWrapper(previous), let previous, let inner = self[previous]?.firstChild {
            try detach(item)
            try append(item, to: inner)
            if isNestedListWrapper(next), let next, let nextInner = self[next]?.firstChild {
                touched = [self[next]?.nextSibling, self[nextInner]?.firstChild]
                try moveAllChildren(of: nextInner, to: inner)
                try remove(next)
            }
        } else if isNestedListWrapper(next), let next, let inner = self[next]?.firstChild {
            touched = [next, self[inner]?.firstChild]
            try detach(item)
            try prepend(item, to: inner)
        } else {
            let wrapper = try createNode(type: ListItemNodePlugin.type, fields: ListItemNodePlugin.fieldsForCopy(of: node))
            let nested = try createNode(type: ListNodePlugin.type, fields: try self.node(list).fields)
            try insert(wrapper, before: item)
            try detach(item)
            try append(nested, to: wrapper)
            try append(item, to: nested)
            touched = [wrapper, next]
        }
        try setDepthField(of: item)
        try renumberListItems(around: [item] + touched)
    }

    /// Moves a nested `item` one level up (Lexical's `$handleOutdent`), next to the wrapper that
    /// held its list: before it when the item was first, after it otherwise; the items after it
    /// move into a new nested list in a wrapper right after it, so they stay below it.
    public mutating func outdentListItem(_ item: NodeKey) throws(ModelError) {
        guard !isNestedListWrapper(item), let node = self[item], let list = node.parent, isList(list),
              let wrapper = self[list]?.parent, isListItem(wrapper), let outer = self[wrapper]?.parent, isList(outer) else { return }
        var touched: [NodeKey?] = [item]
        if node.previousSibling == nil {
            try detach(item)
            try insert(item, before: wrapper)
            if self[list]?.childCount == 0 { try remove(wrapper) } else { touched += [wrapper, self[list]?.firstChild] }
        } else {
            let after = self[wrapper]?.nextSibling
            var tail: NodeKey?
            if node.nextSibling != nil {
                let tailWrapper = try createNode(type: ListItemNodePlugin.type, fields: ListItemNodePlugin.fieldsForCopy(of: node))
                let tailList = try createNode(type: ListNodePlugin.type, fields: try self.node(list).fields)
                try append(tailList, to: tailWrapper)
                try moveSiblings(after: item, to: tailList)
                tail = tailWrapper
                touched.append(self[tailList]?.firstChild)
            }
            try detach(item)
            try insert(item, after: wrapper)
            if let tail {
                try insert(tail, after: item)
                try setDepthField(of: tail)
            }
            touched += [tail, after]
        }
        try setDepthField(of: item)
        try renumberListItems(around: touched)
    }

    /// Sets an item's `indent` to its depth (Lexical exports `getIndent()`, the depth).
    mutating func setDepthField(of item: NodeKey) throws(ModelError) {
        let depth = listDepth(of: item)
        if self[item]?.indent != depth { try setField("indent", to: .number(.integer(depth)), of: item) }
    }

    // MARK: Check boxes and numbering

    /// Toggles the check box of `item`, or of the selected items of check lists when `item` is
    /// nil: they all become checked unless they all are, then all unchecked.
    ///
    /// - Throws: `ModelError.invalidNode` when `item` is not an item of a check list.
    public mutating func toggleListItemChecked(_ item: NodeKey? = nil) throws(ModelError) {
        let items: [NodeKey]
        if let item {
            let node = try node(item)
            guard node.type == ListItemNodePlugin.type, let list = node.parent, listType(of: list) == .check else {
                throw .invalidNode(type: node.type, reason: NodeValidationError(field: "checked", message: "node \(item) is not an item of a check list"))
            }
            items = [item]
        } else {
            items = try selectedListItems().filter { self[$0]?.parent.map { listType(of: $0) } == .check }
        }
        let allChecked = items.allSatisfy { self[$0].flatMap(ListItemNodePlugin.isChecked) == true }
        var attempt = self
        for key in items { try attempt.setField("checked", to: .bool(!allChecked), of: key) }
        self = attempt
    }

    /// Sets where a numbered list starts counting (Lexical's `UPDATE_LIST_START_COMMAND`) and
    /// renumbers it; `list` nil means the list holding the selection's start.
    ///
    /// - Throws: `ModelError.invalidNode` when there is no such list or it is not numbered.
    /// - Complexity: O(items of the list).
    public mutating func setListStart(_ start: Int, of list: NodeKey? = nil) throws(ModelError) {
        let target: NodeKey
        if let list {
            target = list
        } else {
            let (point, _) = try orderedSelectionPoints()
            guard let item = listItem(containing: point.key), let parent = self[item]?.parent else {
                throw .invalidNode(type: ListNodePlugin.type, reason: NodeValidationError(field: "start", message: "the selection is not in a list"))
            }
            target = parent
        }
        let node = try node(target)
        guard node.type == ListNodePlugin.type, listType(of: target) == .number else {
            throw .invalidNode(type: node.type, reason: NodeValidationError(field: "start", message: "node \(target) is not a numbered list"))
        }
        var attempt = self
        try attempt.setField("start", to: .number(.integer(start)), of: target)
        if let first = node.firstChild { try attempt.renumberListItems(from: first) }
        self = attempt
    }

    // MARK: Moving content

    /// Moves every child of `source` to the end of `target`, keeping their keys; selection points
    /// on `source` move along.
    ///
    /// - Complexity: O(children · log n).
    mutating func moveAllChildren(of source: NodeKey, to target: NodeKey) throws(ModelError) {
        let shift = self[target]?.childCount ?? 0
        while let child = self[source]?.firstChild {
            try detach(child)
            try append(child, to: target)
        }
        if var selection {
            for point in [\RangeSelection.anchor, \RangeSelection.focus] where selection[keyPath: point].key == source {
                selection[keyPath: point] = .element(target, selection[keyPath: point].offset + shift)
            }
            self.selection = selection
        }
    }

    /// Moves the siblings after `node` to the end of `target`, in order.
    mutating func moveSiblings(after node: NodeKey, to target: NodeKey) throws(ModelError) {
        while let next = self[node]?.nextSibling {
            try detach(next)
            try append(next, to: target)
        }
    }

    /// Removes `node`, and then each list or list item above it that it leaves empty, stopping
    /// at the first that still holds something (Lexical's `$removeHighestEmptyListParent`).
    mutating func removeWithEmptyListAncestors(_ node: NodeKey) throws(ModelError) {
        var target = node
        while let current = self[target], current.previousSibling == nil, current.nextSibling == nil,
              let parent = current.parent, isList(parent) || isListItem(parent) {
            target = parent
        }
        try remove(target)
    }
}
