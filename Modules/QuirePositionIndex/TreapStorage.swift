import QuireAlgorithms

/// The three tree slots of one document node.
struct Handles: Hashable {
    var preamble: Int32
    var content: Int32
    var postamble: Int32

    subscript<Key>(part: PositionIndex<Key>.Part) -> Int32 {
        switch part {
        case .preamble: preamble
        case .content: content
        case .postamble: postamble
        }
    }
}

struct TreapNode<Key: Hashable & Sendable> {
    var key: Key
    var part: PositionIndex<Key>.Part
    var left: Int32 = -1
    var right: Int32 = -1
    var parent: Int32 = -1
    var priority: UInt32
    /// Entries in this subtree.
    var count: Int32 = 1
    /// This entry's own UTF-16 length.
    var length: Int
    /// UTF-16 length of this subtree.
    var sum: Int
}

/// An implicit treap in arrays, with parent links so that an entry's rank and location can be
/// computed from its slot by walking up. Slots are recycled through a free list.
///
/// It is a reference type for speed; `PositionIndex` copies it before writing whenever it is
/// shared, so values of `PositionIndex` keep value semantics, and it is only ever mutated through
/// a uniquely referenced owner — which is why `@unchecked Sendable` is sound here.
final class TreapStorage<Key: Hashable & Sendable>: @unchecked Sendable {
    typealias Part = PositionIndex<Key>.Part

    var nodes: [TreapNode<Key>] = []
    var root: Int32 = -1
    var freeSlots: [Int32] = []
    var handles: [Key: Handles] = [:]
    /// Where priorities come from: a fixed seed keeps shapes (and timings) reproducible.
    var priorities: SeededGenerator

    init(priorities: SeededGenerator) { self.priorities = priorities }

    func copy() -> TreapStorage {
        let clone = TreapStorage(priorities: priorities)
        clone.nodes = nodes
        clone.root = root
        clone.freeSlots = freeSlots
        clone.handles = handles
        return clone
    }

    var totalLength: Int { root < 0 ? 0 : nodes[Int(root)].sum }

    func handlesOf(_ key: Key) throws(PositionIndexError) -> Handles {
        guard let handles = handles[key] else { throw .keyNotFound(String(describing: key)) }
        return handles
    }

    private func nextPriority() -> UInt32 {
        UInt32(truncatingIfNeeded: priorities.next() >> 32)
    }

    @inline(__always) private func count(_ slot: Int32) -> Int32 { slot < 0 ? 0 : nodes[Int(slot)].count }
    @inline(__always) private func sum(_ slot: Int32) -> Int { slot < 0 ? 0 : nodes[Int(slot)].sum }

    @inline(__always) private func refresh(_ slot: Int32) {
        let node = nodes[Int(slot)]
        nodes[Int(slot)].count = 1 + count(node.left) + count(node.right)
        nodes[Int(slot)].sum = node.length + sum(node.left) + sum(node.right)
    }

    // MARK: Position of a slot

    /// How many entries precede `slot`.
    ///
    /// - Complexity: O(log n) expected.
    func rank(of slot: Int32) -> Int {
        var rank = Int(count(nodes[Int(slot)].left))
        var child = slot
        var parent = nodes[Int(slot)].parent
        while parent >= 0 {
            if nodes[Int(parent)].right == child { rank += Int(count(nodes[Int(parent)].left)) + 1 }
            child = parent
            parent = nodes[Int(parent)].parent
        }
        return rank
    }

    /// The UTF-16 location where `slot`'s entry starts.
    ///
    /// - Complexity: O(log n) expected.
    func location(of slot: Int32) -> Int {
        var location = sum(nodes[Int(slot)].left)
        var child = slot
        var parent = nodes[Int(slot)].parent
        while parent >= 0 {
            let parentNode = nodes[Int(parent)]
            if parentNode.right == child { location += sum(parentNode.left) + parentNode.length }
            child = parent
            parent = parentNode.parent
        }
        return location
    }

    /// The first entry whose end (start + length) is at or after `location`, with its start.
    ///
    /// - Complexity: O(log n) expected.
    func firstEntry(endingAtOrAfter location: Int) -> (Int32, Int)? {
        var slot = root
        var base = 0
        while slot >= 0 {
            let node = nodes[Int(slot)]
            let leftSum = sum(node.left)
            // The left subtree's last entry ends at base + leftSum: if that reaches `location`,
            // the first such entry is in the left subtree.
            if node.left >= 0 && base + leftSum >= location {
                slot = node.left
                continue
            }
            let start = base + leftSum
            if start + node.length >= location { return (slot, start) }
            base = start + node.length
            slot = node.right
        }
        return nil
    }

    /// The slot after `slot` in document order.
    ///
    /// - Complexity: O(log n) worst case, O(1) amortized over an in-order walk.
    func successor(of slot: Int32) -> Int32? {
        var current = nodes[Int(slot)].right
        if current >= 0 {
            while nodes[Int(current)].left >= 0 { current = nodes[Int(current)].left }
            return current
        }
        var child = slot
        var parent = nodes[Int(slot)].parent
        while parent >= 0 && nodes[Int(parent)].right == child {
            child = parent
            parent = nodes[Int(parent)].parent
        }
        return parent >= 0 ? parent : nil
    }

    func inOrder(_ visit: (TreapNode<Key>) -> Void) {
        var stack: [Int32] = []
        var current = root
        while current >= 0 || !stack.isEmpty {
            while current >= 0 {
                stack.append(current)
                current = nodes[Int(current)].left
            }
            let slot = stack.removeLast()
            visit(nodes[Int(slot)])
            current = nodes[Int(slot)].right
        }
    }

    // MARK: Updates

    /// - Complexity: O(log n) expected: only the sums on the path to the root change.
    func setLength(_ length: Int, at slot: Int32) {
        let delta = length - nodes[Int(slot)].length
        guard delta != 0 else { return }
        nodes[Int(slot)].length = length
        var current = slot
        while current >= 0 {
            nodes[Int(current)].sum += delta
            current = nodes[Int(current)].parent
        }
    }

    private func allocate(key: Key, part: Part, length: Int) -> Int32 {
        let node = TreapNode(key: key, part: part, priority: nextPriority(), length: length, sum: length)
        if let slot = freeSlots.popLast() {
            nodes[Int(slot)] = node
            return slot
        }
        nodes.append(node)
        return Int32(nodes.count - 1)
    }

    /// Splits `tree` into its first `count` entries and the rest.
    private func split(_ tree: Int32, _ count: Int) -> (Int32, Int32) {
        guard tree >= 0 else { return (-1, -1) }
        let leftCount = Int(self.count(nodes[Int(tree)].left))
        if count <= leftCount {
            let (first, rest) = split(nodes[Int(tree)].left, count)
            nodes[Int(tree)].left = rest
            if rest >= 0 { nodes[Int(rest)].parent = tree }
            refresh(tree)
            if first >= 0 { nodes[Int(first)].parent = -1 }
            nodes[Int(tree)].parent = -1
            return (first, tree)
        } else {
            let (first, rest) = split(nodes[Int(tree)].right, count - leftCount - 1)
            nodes[Int(tree)].right = first
            if first >= 0 { nodes[Int(first)].parent = tree }
            refresh(tree)
            if rest >= 0 { nodes[Int(rest)].parent = -1 }
            nodes[Int(tree)].parent = -1
            return (tree, rest)
        }
    }

    /// Concatenates two trees, `left` entirely before `right`.
    private func merge(_ left: Int32, _ right: Int32) -> Int32 {
        if left < 0 { return right }
        if right < 0 { return left }
        if nodes[Int(left)].priority > nodes[Int(right)].priority {
            let merged = merge(nodes[Int(left)].right, right)
            nodes[Int(left)].right = merged
            nodes[Int(merged)].parent = left
            refresh(left)
            nodes[Int(left)].parent = -1
            return left
        } else {
            let merged = merge(left, nodes[Int(right)].left)
            nodes[Int(right)].left = merged
            nodes[Int(merged)].parent = right
            refresh(right)
            nodes[Int(right)].parent = -1
            return right
        }
    }

    /// Builds a treap from entries in order in O(s) with the classic stack construction of a
    /// Cartesian tree, then splices it in at `rank`.
    func insert(_ entries: [(Key, Part, Int)], atRank rank: Int) {
        var newHandles: [Key: Handles] = [:]
        var stack: [Int32] = []
        for (key, part, length) in entries {
            let slot = allocate(key: key, part: part, length: length)
            var handle = newHandles[key] ?? Handles(preamble: -1, content: -1, postamble: -1)
            switch part {
            case .preamble: handle.preamble = slot
            case .content: handle.content = slot
            case .postamble: handle.postamble = slot
            }
            newHandles[key] = handle
            var lastPopped: Int32 = -1
            while let top = stack.last, nodes[Int(top)].priority < nodes[Int(slot)].priority {
                lastPopped = stack.removeLast()
                refresh(lastPopped)
            }
            nodes[Int(slot)].left = lastPopped
            if lastPopped >= 0 { nodes[Int(lastPopped)].parent = slot }
            if let top = stack.last {
                nodes[Int(top)].right = slot
                nodes[Int(slot)].parent = top
            }
            stack.append(slot)
        }
        while let top = stack.popLast() { refresh(top) }
        var subtree: Int32 = -1
        if let first = newHandles.first?.value.preamble {
            subtree = first
            while nodes[Int(subtree)].parent >= 0 { subtree = nodes[Int(subtree)].parent }
        }
        for (key, handle) in newHandles { handles[key] = handle }
        let (before, after) = split(root, rank)
        root = merge(merge(before, subtree), after)
        if root >= 0 { nodes[Int(root)].parent = -1 }
    }

    /// Removes the entries with ranks `first...last` and forgets their keys; returns the keys in
    /// document order.
    func removeRange(from first: Int, through last: Int) -> [Key] {
        let (before, rest) = split(root, first)
        let (middle, after) = split(rest, last - first + 1)
        root = merge(before, after)
        if root >= 0 { nodes[Int(root)].parent = -1 }
        var removed: [Key] = []
        // In-order walk of the detached subtree, freeing slots as it goes.
        var stack: [Int32] = []
        var current = middle
        while current >= 0 || !stack.isEmpty {
            while current >= 0 {
                stack.append(current)
                current = nodes[Int(current)].left
            }
            let slot = stack.removeLast()
            let node = nodes[Int(slot)]
            if node.part == .preamble {
                removed.append(node.key)
                handles[node.key] = nil
            }
            freeSlots.append(slot)
            current = node.right
        }
        return removed
    }
}
