/// A place between two children of an element: before child `index` of `parent`. The model's
/// editing algorithms work between boundaries; built-in plugins that wrap or split inline runs
/// (a link) use them too, so they are `package`, not part of the app-facing API.
package struct Boundary: Hashable, Sendable {
    package var parent: NodeKey
    package var index: Int
}

extension EditorState {
    /// The node's position among its siblings.
    ///
    /// - Complexity: O(s) for s preceding siblings (siblings are linked, as in Lexical).
    public func indexInParent(_ key: NodeKey) -> Int? {
        guard let node = self[key], node.parent != nil else { return nil }
        var index = 0
        var current = node.previousSibling
        while let previous = current {
            index += 1
            current = self[previous]?.previousSibling
        }
        return index
    }

    /// The child at `index` of `parent`, or nil.
    ///
    /// - Complexity: O(index).
    public func child(at index: Int, of parent: NodeKey) -> NodeKey? {
        guard index >= 0 else { return nil }
        var current = self[parent]?.firstChild
        var remaining = index
        while let key = current, remaining > 0 {
            current = self[key]?.nextSibling
            remaining -= 1
        }
        return current
    }

    /// Whether the node hangs under the root (detached nodes and their subtrees do not).
    ///
    /// - Complexity: O(depth).
    public func isAttached(_ key: NodeKey) -> Bool {
        var current: NodeKey? = key
        while let node = current.flatMap({ self[$0] }) {
            if node.key == .root { return true }
            current = node.parent
        }
        return false
    }

    /// The nearest block (non-inline element or the root) containing the node, the node itself
    /// included.
    public func block(containing key: NodeKey) -> NodeKey {
        var current: NodeKey? = key
        while let node = current.flatMap({ self[$0] }) {
            if node.role == .root || node.role == .element(inline: false) { return node.key }
            current = node.parent
        }
        return .root
    }

    /// The UTF-16 length of a text node's text (0 for other nodes).
    public func textLength(_ key: NodeKey) -> Int {
        guard let node = self[key], node.role == .text else { return 0 }
        return node.text.utf16.count
    }

    /// The ancestors of `key` from the root down, each with the index of the child on the way.
    func path(to key: NodeKey) -> [Int] {
        var indices: [Int] = []
        var current = key
        while let index = indexInParent(current), let parent = self[current]?.parent {
            indices.append(index)
            current = parent
        }
        return indices.reversed()
    }

    /// Orders two points in the document: negative when `lhs` comes first, 0 when equal.
    ///
    /// - Complexity: O(depth · siblings); the editor orders points through its position index.
    public func compare(_ lhs: Point, _ rhs: Point) -> Int {
        func key(_ point: Point) -> [Int] {
            switch point.kind {
            case .text: path(to: point.key) + [point.offset]
            case .element: path(to: point.key) + [point.offset, -1]
            }
        }
        let left = key(lhs)
        let right = key(rhs)
        for (a, b) in zip(left, right) where a != b { return a < b ? -1 : 1 }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// Checks that a point names an attached node and an offset inside it.
    public func validate(_ point: Point) throws(ModelError) {
        guard let node = self[point.key] else { throw .invalidPoint(point, reason: "no such node") }
        guard isAttached(point.key) else { throw .invalidPoint(point, reason: "the node is not in the document") }
        switch point.kind {
        case .text:
            guard node.role == .text else { throw .invalidPoint(point, reason: "a text point must be in a text node") }
            let utf16 = node.text.utf16
            guard point.offset >= 0, point.offset <= utf16.count else {
                throw .invalidPoint(point, reason: "offset outside 0...\(utf16.count)")
            }
            let index = utf16.index(utf16.startIndex, offsetBy: point.offset)
            guard index.samePosition(in: node.text.unicodeScalars) != nil else {
                throw .invalidPoint(point, reason: "the offset splits a surrogate pair")
            }
        case .element:
            guard node.role.isElement else { throw .invalidPoint(point, reason: "an element point must be in an element") }
            guard point.offset >= 0, point.offset <= node.childCount else {
                throw .invalidPoint(point, reason: "offset outside 0...\(node.childCount)")
            }
        }
    }

    /// The leaf (text, line break, decorator, or an empty inline element) before `key` when
    /// `backward`, else after it, inside the same block, walking into and out of inline elements.
    ///
    /// - Complexity: O(d) for the inline nesting depth walked (siblings are linked).
    func adjacentLeaf(to key: NodeKey, inBlock block: NodeKey, backward: Bool) -> NodeKey? {
        var current = key
        while true {
            guard let node = self[current] else { return nil }
            if let sibling = backward ? node.previousSibling : node.nextSibling {
                return backward ? lastLeaf(in: sibling) : firstLeaf(in: sibling)
            }
            guard let parent = node.parent, parent != block else { return nil }
            current = parent
        }
    }

    func lastLeaf(in key: NodeKey) -> NodeKey {
        var current = key
        while let node = self[current], node.role.isElement, let last = node.lastChild { current = last }
        return current
    }

    func firstLeaf(in key: NodeKey) -> NodeKey {
        var current = key
        while let node = self[current], node.role.isElement, let first = node.firstChild { current = first }
        return current
    }

    /// The blocks that hold inline content (paragraph-like: they accept inlines or contain no
    /// blocks), in document order.
    ///
    /// - Complexity: O(n).
    public func textBlocks() -> [NodeKey] { textBlocks(in: .root) }

    /// The text blocks in `key`'s subtree (itself, when it is one), in document order: what an
    /// editor lays out again when only that subtree changed.
    ///
    /// - Complexity: O(k) for the subtree's k nodes.
    public func textBlocks(in key: NodeKey) -> [NodeKey] {
        var result: [NodeKey] = []
        var pending: [NodeKey] = [key]
        while let key = pending.popLast() {
            guard let node = self[key] else { continue }
            let childBlocks = children(of: key).filter { !$0.role.isInline && $0.role.isElement }
            if node.role == .element(inline: false) && (childBlocks.isEmpty || node.firstChild.map { self[$0]!.role.isInline } == true) {
                result.append(key)
            } else {
                pending.append(contentsOf: childBlocks.map(\.key).reversed())
            }
        }
        return result
    }

    /// The text block before `block` in document order, or nil at the document start — or, unless
    /// `crossingBoundaries`, where the walk would leave or enter an editing boundary (table cell):
    /// the start of the cell holding `block`, or a table before it. Block decorators (a horizontal
    /// rule) hold no text block and are skipped.
    ///
    /// - Complexity: O(depth + siblings walked).
    public func previousTextBlock(before block: NodeKey, crossingBoundaries: Bool = false) -> NodeKey? {
        adjacentTextBlock(of: block, backward: true, crossingBoundaries: crossingBoundaries)
    }

    /// The text block after `block` in document order, or nil at the document end — or, unless
    /// `crossingBoundaries`, where the walk would leave or enter an editing boundary (table cell).
    /// Block decorators are skipped.
    ///
    /// - Complexity: O(depth + siblings walked).
    public func nextTextBlock(after block: NodeKey, crossingBoundaries: Bool = false) -> NodeKey? {
        adjacentTextBlock(of: block, backward: false, crossingBoundaries: crossingBoundaries)
    }

    private func adjacentTextBlock(of block: NodeKey, backward: Bool, crossingBoundaries: Bool) -> NodeKey? {
        var current = block
        while let node = self[current] {
            var sibling = backward ? node.previousSibling : node.nextSibling
            while let candidate = sibling {
                switch edgeTextBlock(in: candidate, last: backward, crossingBoundaries: crossingBoundaries) {
                case .found(let key): return key
                case .boundary: return nil
                case .nothing: sibling = backward ? self[candidate]?.previousSibling : self[candidate]?.nextSibling
                }
            }
            guard let parent = node.parent, parent != .root, crossingBoundaries || !isolatesContent(parent) else { return nil }
            current = parent
        }
        return nil
    }

    /// The first text block in `key`'s subtree (itself included), or nil when it holds none (a block
    /// decorator) — or, unless `crossingBoundaries`, when the first one is inside an editing boundary.
    ///
    /// - Complexity: O(depth + siblings walked).
    public func firstTextBlock(in key: NodeKey, crossingBoundaries: Bool = false) -> NodeKey? {
        if case .found(let block) = edgeTextBlock(in: key, last: false, crossingBoundaries: crossingBoundaries) { return block }
        return nil
    }

    /// The last text block in `key`'s subtree (itself included); see `firstTextBlock(in:crossingBoundaries:)`.
    ///
    /// - Complexity: O(depth + siblings walked).
    public func lastTextBlock(in key: NodeKey, crossingBoundaries: Bool = false) -> NodeKey? {
        if case .found(let block) = edgeTextBlock(in: key, last: true, crossingBoundaries: crossingBoundaries) { return block }
        return nil
    }

    private enum BlockSearch { case found(NodeKey), boundary, nothing }

    /// The first (or last) text block in a subtree; an editing boundary stops the search unless
    /// crossing, and subtrees without text blocks (decorators) report `.nothing` so that the caller
    /// moves on to their siblings.
    private func edgeTextBlock(in key: NodeKey, last: Bool, crossingBoundaries: Bool) -> BlockSearch {
        guard let node = self[key], node.role == .element(inline: false) else { return .nothing }
        if !crossingBoundaries && isolatesContent(key) { return .boundary }
        if isTextBlock(node) { return .found(key) }
        var child = last ? node.lastChild : node.firstChild
        while let current = child {
            let result = edgeTextBlock(in: current, last: last, crossingBoundaries: crossingBoundaries)
            if case .nothing = result {
                child = last ? self[current]?.previousSibling : self[current]?.nextSibling
            } else {
                return result
            }
        }
        return .nothing
    }

    /// Whether a block holds inline content: its first child is inline, or it is empty and its
    /// plugin accepts text (an empty table cell or list holds blocks, not text).
    func isTextBlock(_ node: Node) -> Bool {
        guard node.role == .element(inline: false) else { return false }
        if let first = node.firstChild { return self[first]?.role.isInline ?? false }
        guard let plugin = plugin(of: node) else { return true }
        return plugin.childRule.accepts(type: .text, role: .text)
    }

    /// Whether the node is an editing boundary (its plugin's `isolatesContent`).
    public func isolatesContent(_ key: NodeKey) -> Bool {
        guard let node = self[key] else { return false }
        return plugin(of: node)?.isolatesContent ?? false
    }

    /// The nearest ancestor-or-self that is an editing boundary (a table cell), or the root.
    ///
    /// - Complexity: O(depth).
    public func isolatingAncestor(of key: NodeKey) -> NodeKey {
        var current: NodeKey? = key
        while let candidate = current, candidate != .root {
            if isolatesContent(candidate) { return candidate }
            current = self[candidate]?.parent
        }
        return .root
    }
}

extension EditorState {
    /// The JSON path of `key`'s node in the document's Lexical JSON, such as
    /// `$.root.children[0].children[2]`: what errors and reported losses name a node by.
    ///
    /// - Complexity: O(depth · siblings), for messages; nothing on a hot path calls it.
    public func jsonPath(of key: NodeKey) -> String {
        path(to: key).reduce(into: "$.root") { $0 += ".children[\($1)]" }
    }
}
