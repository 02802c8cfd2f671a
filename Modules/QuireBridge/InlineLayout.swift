import QuireCRDT
import QuireModel

/// A block's inline leaves in order with where each starts in the block's run (in scalars): what
/// maps between an editor point and a position in the shared text.
struct InlineLayout {
    struct Leaf {
        var key: NodeKey
        var role: NodeRole
        /// Where the leaf starts in the block's content, in scalars.
        var start: Int
        /// Its length in scalars (1 for a line break or decorator).
        var count: Int
        /// Its attributes in the shared text (its own and its inline elements').
        var attributes: [String: CRDTValue]
    }

    var block: NodeKey
    var leaves: [Leaf] = []
    var length: Int { leaves.last.map { $0.start + $0.count } ?? 0 }

    /// - Complexity: O(inline nodes + scalars) of the block.
    init(of block: NodeKey, in state: EditorState) {
        self.block = block
        var position = 0
        var stack: [(NodeKey, [String: CRDTValue])] = state.children(of: block).reversed().compactMap { child in
            child.role.isInline ? (child.key, [:]) : nil
        }
        while let (key, enclosing) = stack.popLast() {
            guard let node = state[key] else { continue }
            switch node.role {
            case .text:
                let count = node.text.unicodeScalars.count
                leaves.append(Leaf(key: key, role: node.role, start: position, count: count,
                                   attributes: enclosing.merging(InlineContent.textAttributes(of: node, in: state)) { $1 }))
                position += count
            case .lineBreak, .decorator:
                var attributes = enclosing
                if node.role != .lineBreak {
                    attributes[DocumentSchema.embedKey] = .map(["type": .string(node.type.rawValue), "fields": CRDTValue(.object(node.fields))])
                }
                leaves.append(Leaf(key: key, role: node.role, start: position, count: 1, attributes: attributes))
                position += 1
            case .element(inline: true):
                var inner = enclosing
                inner[InlineContent.elementKey(node.type)] = CRDTValue(.object(node.fields))
                for child in state.children(of: key).reversed() { stack.append((child.key, inner)) }
            case .element(inline: false), .root:
                continue
            }
        }
    }

    /// The scalar position of an editor point inside this block, or nil when the point is not in
    /// its inline content.
    ///
    /// - Complexity: O(leaves + scalars of the leaf).
    func position(of point: Point, in state: EditorState) -> Int? {
        switch point.kind {
        case .text:
            guard let leaf = leaves.first(where: { $0.key == point.key }), let node = state[point.key] else { return nil }
            let utf16 = node.text.utf16
            let end = utf16.index(utf16.startIndex, offsetBy: min(max(0, point.offset), utf16.count))
            return leaf.start + node.text.unicodeScalars[..<end].count
        case .element:
            // Before child `offset` of an element in the block (or the block itself): where the
            // first leaf at or after that child starts.
            guard let element = state[point.key] else { return nil }
            let children = state.children(of: point.key).map(\.key)
            if point.offset < children.count {
                let child = children[point.offset]
                if let start = firstLeafStart(under: child, in: state) { return start }
            }
            // After the last child: where the element's content ends.
            if point.key == block { return length }
            var last: NodeKey? = element.lastChild
            while let key = last, let node = state[key], node.role.isElement { last = node.lastChild }
            if let key = last, let leaf = leaves.first(where: { $0.key == key }) { return leaf.start + leaf.count }
            return firstLeafStart(under: point.key, in: state)
        }
    }

    private func firstLeafStart(under key: NodeKey, in state: EditorState) -> Int? {
        var current: NodeKey? = key
        while let candidate = current, let node = state[candidate] {
            if !node.role.isElement { return leaves.first(where: { $0.key == candidate })?.start }
            current = node.firstChild
        }
        return nil
    }

    /// The editor point at a scalar position inside this block: inside or at the end of a text
    /// leaf when there is one there, else before the inline child at that place.
    ///
    /// - Complexity: O(leaves + scalars of the leaf).
    func point(at position: Int, in state: EditorState) -> Point {
        let position = min(max(0, position), length)
        // A text leaf containing the position, or ending at it, or starting at it.
        for (index, leaf) in leaves.enumerated() where leaf.role == .text {
            let inside = leaf.start <= position && position <= leaf.start + leaf.count
            guard inside else { continue }
            // At the seam of two text leaves, the caret stays in the earlier one (as typing at a
            // text node's end does).
            if position == leaf.start && index > 0, leaves[index - 1].role == .text, leaves[index - 1].start + leaves[index - 1].count == position { continue }
            guard let node = state[leaf.key] else { break }
            let scalars = node.text.unicodeScalars
            let end = scalars.index(scalars.startIndex, offsetBy: position - leaf.start)
            return .text(leaf.key, node.text.utf16.distance(from: node.text.utf16.startIndex, to: end.samePosition(in: node.text.utf16) ?? node.text.utf16.endIndex))
        }
        // No text there: before the first leaf at or after the position, in its parent.
        if let leaf = leaves.first(where: { $0.start >= position }), let node = state[leaf.key], let parent = node.parent {
            return .element(parent, state.children(of: parent).map(\.key).firstIndex(of: leaf.key) ?? 0)
        }
        if let leaf = leaves.last, let node = state[leaf.key], let parent = node.parent {
            return .element(parent, state[parent]?.childCount ?? 0)
        }
        return .element(block, 0)
    }
}
