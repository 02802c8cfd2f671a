/// Selection helpers and the boundaries every editing operation splits text at.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Selection helpers

    /// The selection, or `ModelError.noSelection`.
    func requireSelection() throws(ModelError) -> RangeSelection {
        guard let selection else { throw .noSelection }
        try validate(selection.anchor)
        try validate(selection.focus)
        return selection
    }

    /// The selection's points in document order.
    public func orderedSelectionPoints() throws(ModelError) -> (start: Point, end: Point) {
        let selection = try requireSelection()
        return compare(selection.anchor, selection.focus) <= 0
            ? (selection.anchor, selection.focus) : (selection.focus, selection.anchor)
    }

    /// Places a caret.
    public mutating func select(_ point: Point) throws(ModelError) {
        try validate(point)
        let format = self[point.key].flatMap { $0.role == .text ? $0.textFormat : nil } ?? selection?.format ?? []
        let style = self[point.key].flatMap { $0.role == .text ? $0.textStyle : nil } ?? selection?.style ?? ""
        selection = RangeSelection(caret: point, format: format, style: style)
    }

    /// Selects from `anchor` to `focus`.
    public mutating func select(anchor: Point, focus: Point) throws(ModelError) {
        try validate(anchor)
        try validate(focus)
        let format = self[anchor.key].flatMap { $0.role == .text ? $0.textFormat : nil } ?? selection?.format ?? []
        selection = RangeSelection(anchor: anchor, focus: focus, format: format, style: selection?.style ?? "")
    }

    /// A caret point for a boundary: the end of the text before it, else the start of the text
    /// after it, else the element point itself.
    ///
    /// - Complexity: O(index) to find the children beside the boundary.
    package func caretPoint(at boundary: Boundary) -> Point {
        if boundary.index > 0, let before = child(at: boundary.index - 1, of: boundary.parent), let node = self[before] {
            if node.role == .text { return .text(before, textLength(before)) }
        }
        if let after = child(at: boundary.index, of: boundary.parent), self[after]?.role == .text {
            return .text(after, 0)
        }
        return .element(boundary.parent, boundary.index)
    }

    // MARK: Splitting

    /// Splits a text node at a UTF-16 offset strictly inside it; returns the new right half.
    mutating func splitText(_ key: NodeKey, at offset: Int) throws(ModelError) -> NodeKey {
        let node = try node(key)
        let utf16 = node.text.utf16
        let index = utf16.index(utf16.startIndex, offsetBy: offset)
        let right = createUnchecked(copying: node, text: String(node.text[index...]))
        try spliceText(key, at: offset, deleting: utf16.count - offset, inserting: "")
        try insert(right, after: key)
        return right
    }

    /// A new detached node with the same type, role and fields as `node`.
    mutating func createUnchecked(copying node: Node, text: String = "") -> NodeKey {
        if node.isUnknown {
            return createUnknownNode(type: node.type, role: node.role, text: text, fields: node.fields)
        }
        let copy = Node(key: allocateKey(), type: node.type, role: node.role, isUnknown: false, text: text, fields: node.fields)
        storeCreated(copy)
        return copy.key
    }

    /// The boundary at a point, splitting the text node the point is inside.
    mutating func boundary(at point: Point) throws(ModelError) -> Boundary {
        try validate(point)
        switch point.kind {
        case .element:
            return Boundary(parent: point.key, index: point.offset)
        case .text:
            let node = try node(point.key)
            guard let parent = node.parent, let index = indexInParent(point.key) else {
                throw .invalidPoint(point, reason: "the node is not in the document")
            }
            if point.offset == 0 { return Boundary(parent: parent, index: index) }
            if point.offset == node.text.utf16.count { return Boundary(parent: parent, index: index + 1) }
            _ = try splitText(point.key, at: point.offset)
            return Boundary(parent: parent, index: index + 1)
        }
    }

    /// Splits inline elements between a boundary and its block so that the boundary sits directly
    /// in the block; returns that block-level boundary.
    mutating func liftBoundary(_ boundary: Boundary) throws(ModelError) -> Boundary {
        var current = boundary
        while let parent = self[current.parent], parent.role == .element(inline: true), let grandparent = parent.parent,
              let parentIndex = indexInParent(parent.key) {
            if current.index == 0 {
                current = Boundary(parent: grandparent, index: parentIndex)
            } else if current.index >= parent.childCount {
                current = Boundary(parent: grandparent, index: parentIndex + 1)
            } else {
                let right = createUnchecked(copying: parent)
                try moveChildren(of: parent.key, from: current.index, to: right, at: 0)
                try insert(right, after: parent.key)
                current = Boundary(parent: grandparent, index: parentIndex + 1)
            }
        }
        return current
    }

    /// Moves the children of `source` from `start` on to `target`, before its child `index`; their
    /// keys survive.
    ///
    /// - Throws: `ModelError.childNotAccepted` when `target` does not take one of them (or
    ///   `target` is inside a moved child); nothing is moved then.
    /// - Complexity: O(start + index + moved · log₃₂ n).
    public mutating func moveChildren(of source: NodeKey, from start: Int, to target: NodeKey, at index: Int) throws(ModelError) {
        var moving: [NodeKey] = []
        var current = child(at: start, of: source)
        while let key = current {
            moving.append(key)
            current = self[key]?.nextSibling
        }
        guard !moving.isEmpty else { return }
        var attempt = self
        var anchor = index > 0 ? attempt.child(at: index - 1, of: target) : nil
        for key in moving {
            try attempt.detach(key)
            if let previous = anchor { try attempt.insert(key, after: previous) } else { try attempt.prepend(key, to: target) }
            anchor = key
        }
        self = attempt
    }
}
