import QuireModel

/// Reading a document's lists: Lexical's list shape is a `list` holding `listitem`s, where an item
/// holds inline content or, to nest, exactly one `list` (a "wrapper" item right after the item the
/// nested list belongs to).
extension EditorState {
    /// Whether `key` names a `list` node.
    public func isList(_ key: NodeKey?) -> Bool {
        key.flatMap { self[$0] }?.type == ListNodePlugin.type
    }

    /// Whether `key` names a `listitem` node.
    public func isListItem(_ key: NodeKey?) -> Bool {
        key.flatMap { self[$0] }?.type == ListItemNodePlugin.type
    }

    /// Whether `item` is a wrapper: a list item whose first child is a list (Lexical's
    /// `$isNestedListNode`). A wrapper has no marker and no number of its own.
    ///
    /// - Complexity: O(1).
    public func isNestedListWrapper(_ item: NodeKey?) -> Bool {
        guard let item, let node = self[item], node.type == ListItemNodePlugin.type else { return false }
        return isList(node.firstChild)
    }

    /// The list type of `list` (bullet when unreadable).
    public func listType(of list: NodeKey) -> ListType {
        self[list].map(ListNodePlugin.listType(of:)) ?? .bullet
    }

    /// The nearest list item holding `key` (the node itself included), or nil.
    ///
    /// - Complexity: O(depth).
    public func listItem(containing key: NodeKey) -> NodeKey? {
        var current: NodeKey? = key
        while let candidate = current, let node = self[candidate] {
            if node.type == ListItemNodePlugin.type { return candidate }
            current = node.parent
        }
        return nil
    }

    /// How deeply `item` is nested: 0 in a top-level list, one more per wrapper item above it.
    /// This is what Lexical exports as a list item's `indent`.
    ///
    /// - Complexity: O(depth).
    public func listDepth(of item: NodeKey) -> Int {
        var depth = 0
        var current = self[item]?.parent.flatMap { self[$0] }?.parent
        while let key = current, isListItem(key) {
            depth += 1
            current = self[key]?.parent.flatMap { self[$0] }?.parent
        }
        return depth
    }

    /// The outermost list above `item` (Lexical's `$getTopListNode`).
    ///
    /// - Complexity: O(depth).
    public func topList(of item: NodeKey) -> NodeKey? {
        var list = self[item]?.parent
        guard isList(list) else { return nil }
        var current = list.flatMap { self[$0] }?.parent
        while let key = current, isListItem(key), let outer = self[key]?.parent, isList(outer) {
            list = outer
            current = self[outer]?.parent
        }
        return list
    }

    /// The items of `list` that carry content, nested ones included, in document order
    /// (Lexical's `$getAllListItems`): wrappers are replaced by the items of their lists.
    ///
    /// - Complexity: O(items in the list and its nested lists).
    public func contentItems(of list: NodeKey) -> [NodeKey] {
        var result: [NodeKey] = []
        var pending: [NodeKey] = children(of: list).map(\.key).reversed()
        while let key = pending.popLast() {
            if isNestedListWrapper(key), let nested = self[key]?.firstChild {
                pending.append(contentsOf: children(of: nested).map(\.key).reversed())
            } else {
                result.append(key)
            }
        }
        return result
    }

    // MARK: Numbering

    /// An item's number, its `value` field.
    ///
    /// - Complexity: O(1): the number is stored, never counted.
    public func listItemValue(_ item: NodeKey) -> Int? {
        self[item]?.fields["value"]?.intValue
    }

    /// The `value` an item must have: its list's `start` for the first item, otherwise the
    /// previous item's value plus one, or the same value after a wrapper (as Lexical's
    /// `updateChildrenListItemValue`: a wrapper does not advance the count).
    ///
    /// - Complexity: O(1).
    public func expectedListItemValue(_ item: NodeKey) -> Int {
        guard let node = self[item] else { return 1 }
        if let previous = node.previousSibling {
            let value = listItemValue(previous) ?? 1
            return isNestedListWrapper(previous) ? value : value + 1
        }
        return node.parent.flatMap { self[$0] }?.fields["start"]?.intValue ?? 1
    }

    /// Makes the `value`s from `item` on consistent after an edit at `item`: the item and its
    /// following siblings get the number they must have, stopping at the first following item
    /// that already has it (everything after it was consistent before the edit and still is).
    /// Returns how many values were written.
    ///
    /// Call it with the first item after each place where an edit inserted, removed or moved
    /// items, or turned an item into (or out of) a wrapper, in any order.
    ///
    /// - Complexity: O(1 + k) for the k items whose number changes: inserting at the top of a
    ///   10,000-item list writes 10,000 values, at the bottom one.
    @discardableResult
    public mutating func renumberListItems(from item: NodeKey) throws(ModelError) -> Int {
        var current: NodeKey? = item
        var written = 0
        var isStart = true
        while let key = current, let node = self[key], node.type == ListItemNodePlugin.type {
            let expected = expectedListItemValue(key)
            if listItemValue(key) != expected {
                try setField("value", to: .number(.integer(expected)), of: key)
                written += 1
            } else if !isStart {
                break
            }
            isStart = false
            current = node.nextSibling
        }
        return written
    }

    /// Renumbers from each of `items` that is still a list item in the document.
    mutating func renumberListItems(around items: [NodeKey?]) throws(ModelError) {
        for case let item? in items where isListItem(item) && isAttached(item) {
            try renumberListItems(from: item)
        }
    }

    /// Brings list items written by an edit back into shape: each written item gets the `indent`
    /// of its depth, a `checked` box exactly when its list is a check list, and every list gets
    /// its numbers renumbered once, from its first written item, stopping at the first consistent
    /// item after its last written one. This is what the list's editor transform runs on the
    /// items each update wrote, so that edits the list commands do not make themselves (a paste,
    /// a deletion across items, an app's own code) keep numbers right.
    ///
    /// - Complexity: O(w · depth) for w written items, plus, per list, O(span of its written
    ///   items + renumbered items). One edit that inserts at the top of a list renumbers the list
    ///   once, not once per written item.
    public mutating func normalizeListItems(afterWriting items: [NodeKey]) throws(ModelError) {
        var byList: [NodeKey: Set<NodeKey>] = [:]
        var lists: [NodeKey] = []
        for item in items {
            guard let node = self[item], node.type == ListItemNodePlugin.type, let list = node.parent else { continue }
            guard isList(list) else {
                // An item outside a list (Lexical's listitem transform wraps it in one); the list
                // transform then merges it with a bullet list next to it.
                let wrapper = try createNode(type: ListNodePlugin.type, fields: ListType.bullet.listFields)
                try insert(wrapper, before: item)
                try detach(item)
                try append(item, to: wrapper)
                continue
            }
            if byList[list] == nil { lists.append(list) }
            byList[list, default: []].insert(item)
        }
        for list in lists {
            guard let written = byList[list], let first = firstInSiblingOrder(written) else { continue }
            // Every item of a list has the same depth and list type: look them up once.
            let depth = listDepth(of: first)
            let isCheck = listType(of: list) == .check
            for item in written { try normalizeItemFields(item, depth: depth, isCheck: isCheck) }
            try renumber(from: first, covering: written)
        }
    }

    /// Sets `indent` and `checked` of one item to what its place says.
    private mutating func normalizeItemFields(_ item: NodeKey, depth: Int, isCheck: Bool) throws(ModelError) {
        guard let node = self[item] else { return }
        if node.indent != depth { try setField("indent", to: .number(.integer(depth)), of: item) }
        let checked = node.fields["checked"]
        if isCheck {
            if checked == nil || checked == .null { try setField("checked", to: .bool(false), of: item) }
        } else if checked != nil {
            try setField("checked", to: nil, of: item)
        }
    }

    /// The first of `siblings` in document order, found by walking outward from one of them in
    /// both directions until all are seen.
    ///
    /// - Complexity: O(span) for the distance between the first and the last of them.
    private func firstInSiblingOrder(_ siblings: Set<NodeKey>) -> NodeKey? {
        guard let start = siblings.min() else { return nil }
        var earliest = start
        var seen = 1
        var backward = self[start]?.previousSibling
        var forward = self[start]?.nextSibling
        while seen < siblings.count, backward != nil || forward != nil {
            if let key = backward {
                if siblings.contains(key) { seen += 1; earliest = key }
                backward = self[key]?.previousSibling
            }
            if let key = forward {
                if siblings.contains(key) { seen += 1 }
                forward = self[key]?.nextSibling
            }
        }
        return earliest
    }

    /// Renumbers from `first`, passing every item of `written`, then stopping at the first
    /// consistent item that was not written.
    private mutating func renumber(from first: NodeKey, covering written: Set<NodeKey>) throws(ModelError) {
        var current: NodeKey? = first
        var seen = 0
        while let key = current, let node = self[key] {
            let isWritten = written.contains(key)
            if isWritten { seen += 1 }
            let expected = expectedListItemValue(key)
            if listItemValue(key) != expected {
                try setField("value", to: .number(.integer(expected)), of: key)
            } else if !isWritten && seen >= written.count {
                break
            }
            current = node.nextSibling
        }
    }
}
