/// What a subtree of a `SummedTreap` adds up to: a monoid (an identity and an associative `+`),
/// such as a UTF-16 length, an entry count, a count of paragraph separators, or several at once.
public protocol TreapSummary: Equatable {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
}

/// A summary whose `+` can be undone, so that a change to one element can be added along its path
/// to the root instead of recomputing every summary on the way.
public protocol InvertibleTreapSummary: TreapSummary {
    static func - (lhs: Self, rhs: Self) -> Self
}

/// An element of a `SummedTreap`: a chunk of text, an attribute run, a part of a node.
public protocol TreapElement {
    associatedtype Summary: TreapSummary
    var summary: Summary { get }
}

/// A sequence of elements in a randomized balanced binary tree (a treap) whose nodes cache the
/// summary of their subtree: the one summed tree of the project, under the text storage (text
/// chunks and attribute runs, indexed by UTF-16 offset) and the position index (node parts, indexed
/// by rank and by UTF-16 location). swift-collections' Rope (RopeSummary/RopeMetric) and Runestone's
/// generic red-black tree are the models.
///
/// Positions are measured by a *metric*, any function from a summary to a non-negative integer
/// that adds up (length, count, separators); every query and cut takes the one it needs. Nodes
/// live in one array and link to their parent, so a slot (an element's handle) finds its own
/// position by walking up, in O(log n), which is what the position index needs to go from a node
/// key to a location. Slots stay valid until their element is removed and are then reused.
///
/// The treap is a forest: `split`, `merge` and `build` work on subtrees by their root slot, and
/// `root` names the sequence itself. Split and merge are the only structural operations;
/// everything else is a descent guided by the cached summaries or a walk up the parent links.
/// Expected depth is O(log n) for n elements; priorities come from a fixed-seed
/// `SeededGenerator`, so shapes (and timings) repeat from run to run.
///
/// A value type: copies share their storage until one of them is written. Public (unlike the
/// binary search) because its operations must be `@inlinable` to be specialized for each
/// element type in the modules that use it: the toolchain does not specialize `package`
/// inlinable code across modules, and unspecialized, the text storage ran five times slower.
public struct SummedTreap<Element: TreapElement> {
    public typealias Summary = Element.Summary
    /// An element's handle: its node's index in the storage; `-1` is no node.
    public typealias Slot = Int32

    @usableFromInline
    struct Node {
        @usableFromInline var element: Element
        @usableFromInline var summary: Summary
        @usableFromInline var left: Slot = -1
        @usableFromInline var right: Slot = -1
        @usableFromInline var parent: Slot = -1
        @usableFromInline let priority: UInt32

        @inlinable
        init(_ element: Element, priority: UInt32) {
            self.element = element
            self.summary = element.summary
            self.priority = priority
        }
    }

    @usableFromInline var nodes: [Node] = []
    @usableFromInline var freeSlots: [Slot] = []
    /// The root of the sequence (`-1` when empty); `split`, `merge` and `build` hand back subtree
    /// roots that become the sequence by being stored here.
    public var root: Slot = -1
    @usableFromInline var priorities: SeededGenerator

    /// An empty treap whose priorities come from `seed`.
    @inlinable
    public init(seed: UInt64) { priorities = SeededGenerator(seed: seed) }

    // MARK: Reading

    /// The element in `slot`.
    ///
    /// - Complexity: O(1).
    @inlinable
    public subscript(slot: Slot) -> Element { nodes[Int(slot)].element }

    /// The summary of the subtree rooted at `slot` (zero for `-1`).
    ///
    /// - Complexity: O(1).
    @inlinable
    public func summary(of slot: Slot) -> Summary { slot < 0 ? .zero : nodes[Int(slot)].summary }

    /// The summary of the whole sequence.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var summary: Summary { summary(of: root) }

    /// Elements currently in the sequence or in detached subtrees.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var liveCount: Int { nodes.count - freeSlots.count }

    // MARK: Structure

    /// A new single-node subtree holding `element`, in a recycled slot when there is one.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func allocate(_ element: Element, priority: UInt32? = nil) -> Slot {
        let node = Node(element, priority: priority ?? UInt32(truncatingIfNeeded: priorities.next() >> 32))
        if let slot = freeSlots.popLast() {
            nodes[Int(slot)] = node
            return slot
        }
        nodes.append(node)
        return Slot(nodes.count - 1)
    }

    /// Recomputes `slot`'s summary from its children's.
    ///
    /// - Complexity: O(1).
    @inlinable
    mutating func refresh(_ slot: Slot) {
        let index = Int(slot)
        var total = nodes[index].element.summary
        let left = nodes[index].left
        let right = nodes[index].right
        if left >= 0 { total = nodes[Int(left)].summary + total }
        if right >= 0 { total = total + nodes[Int(right)].summary }
        nodes[index].summary = total
    }

    /// Recomputes the summaries from `slot` up to its subtree's root, after `slot`'s element
    /// changed.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    mutating func refreshPath(from slot: Slot) {
        var current = slot
        while current >= 0 {
            refresh(current)
            current = nodes[Int(current)].parent
        }
    }

    /// Lets `body` change the element in `slot` in place; when it returns true the summaries on
    /// the path to the root are refreshed. `body` must leave the element untouched when it
    /// returns false, and must not reach this treap while it runs.
    ///
    /// - Complexity: O(log n) expected, plus the cost of `body`.
    @inlinable
    public mutating func update(_ slot: Slot, _ body: (inout Element) -> Bool) -> Bool {
        guard body(&nodes[Int(slot)].element) else { return false }
        refreshPath(from: slot)
        return true
    }

    /// Splits the subtree `tree` into the elements before position `offset` (in `metric`) and the
    /// rest. An element straddling `offset` is cut in two by `splitElement`, with the element's
    /// own offset; the tail gets a new slot. Elements measuring zero at the cut go to the right.
    ///
    /// - Complexity: O(log n) expected, plus one `splitElement`.
    @inlinable
    public mutating func split(
        _ tree: Slot, at offset: Int, by metric: (Summary) -> Int, splitElement: (Element, Int) -> (Element, Element)
    ) -> (Slot, Slot) {
        guard tree >= 0 else { return (-1, -1) }
        let index = Int(tree)
        let left = nodes[index].left
        let leftSize = left < 0 ? 0 : metric(nodes[Int(left)].summary)
        if offset <= leftSize {
            let (first, rest) = split(left, at: offset, by: metric, splitElement: splitElement)
            setLeft(of: tree, rest)
            refresh(tree)
            if first >= 0 { nodes[Int(first)].parent = -1 }
            nodes[index].parent = -1
            return (first, tree)
        }
        let elementSize = metric(nodes[index].element.summary)
        let right = nodes[index].right
        if offset >= leftSize + elementSize {
            let (first, rest) = split(right, at: offset - leftSize - elementSize, by: metric, splitElement: splitElement)
            setRight(of: tree, first)
            refresh(tree)
            if rest >= 0 { nodes[Int(rest)].parent = -1 }
            nodes[index].parent = -1
            return (tree, rest)
        }
        let (head, tail) = splitElement(nodes[index].element, offset - leftSize)
        nodes[index].element = head
        setRight(of: tree, -1)
        refresh(tree)
        nodes[index].parent = -1
        if right >= 0 { nodes[Int(right)].parent = -1 }
        // The tail may end up under this node's parent (when this call split a left subtree), so
        // its priority must not exceed this node's; a fresh one, capped, keeps shapes varied.
        let fresh = UInt32(truncatingIfNeeded: priorities.next() >> 32)
        let tailSlot = allocate(tail, priority: min(fresh, nodes[index].priority))
        return (tree, merge(tailSlot, right))
    }

    /// Splits the tree holding `slot` right before it (`slot` starts the second part) or right
    /// after it, by walking up from the slot: no measure is needed, so the cut is exact even
    /// among elements that measure zero.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public mutating func split(_ side: Side, _ slot: Slot) -> (Slot, Slot) {
        let index = Int(slot)
        var first: Slot
        var second: Slot
        var child = slot
        var parent = nodes[index].parent
        nodes[index].parent = -1
        switch side {
        case .before:
            first = nodes[index].left
            if first >= 0 { nodes[Int(first)].parent = -1 }
            nodes[index].left = -1
            second = slot
        case .after:
            second = nodes[index].right
            if second >= 0 { nodes[Int(second)].parent = -1 }
            nodes[index].right = -1
            first = slot
        }
        refresh(slot)
        // Each ancestor outranks everything below it, so it can take either part as a child: it
        // joins the second part when the way up came from its left, the first otherwise.
        while parent >= 0 {
            let above = nodes[Int(parent)].parent
            if nodes[Int(parent)].left == child {
                setLeft(of: parent, second)
                second = parent
            } else {
                setRight(of: parent, first)
                first = parent
            }
            refresh(parent)
            nodes[Int(parent)].parent = -1
            child = parent
            parent = above
        }
        return (first, second)
    }

    /// Which side of an element a cut by slot falls on.
    public enum Side: Sendable {
        case before
        case after
    }

    /// Concatenates two subtrees, `first` entirely before `second`.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public mutating func merge(_ first: Slot, _ second: Slot) -> Slot {
        if first < 0 { return second }
        if second < 0 { return first }
        if nodes[Int(first)].priority >= nodes[Int(second)].priority {
            setRight(of: first, merge(nodes[Int(first)].right, second))
            refresh(first)
            nodes[Int(first)].parent = -1
            return first
        }
        setLeft(of: second, merge(first, nodes[Int(second)].left))
        refresh(second)
        nodes[Int(second)].parent = -1
        return second
    }

    @inlinable
    mutating func setLeft(of parent: Slot, _ child: Slot) {
        nodes[Int(parent)].left = child
        if child >= 0 { nodes[Int(child)].parent = parent }
    }

    @inlinable
    mutating func setRight(of parent: Slot, _ child: Slot) {
        nodes[Int(parent)].right = child
        if child >= 0 { nodes[Int(child)].parent = parent }
    }

    /// A subtree holding `elements` in order; `-1` when there are none. `placed` is called with
    /// each element's slot as it is allocated.
    ///
    /// - Complexity: O(k) for k elements (a Cartesian tree built with a stack).
    @inlinable
    public mutating func build(_ elements: some Sequence<Element>, placed: (Slot) -> Void = { _ in }) -> Slot {
        var spine: [Slot] = []
        for element in elements {
            let slot = allocate(element)
            placed(slot)
            var popped: Slot = -1
            while let top = spine.last, nodes[Int(top)].priority < nodes[Int(slot)].priority {
                // Popped nodes are final: everything to their right was popped (and refreshed) first.
                popped = spine.removeLast()
                refresh(popped)
            }
            setLeft(of: slot, popped)
            if let parent = spine.last { setRight(of: parent, slot) }
            spine.append(slot)
        }
        // Summaries on the right spine are stale until the spine is folded from the bottom.
        for slot in spine.reversed() { refresh(slot) }
        guard let top = spine.first else { return -1 }
        nodes[Int(top)].parent = -1
        return top
    }

    /// Releases every slot of the detached subtree `tree` for reuse, calling `visit` with each
    /// slot and its element in order first (to collect what leaves, or to drop what the element
    /// holds so that a free slot keeps no memory alive).
    ///
    /// - Complexity: O(k) for k elements.
    @inlinable
    public mutating func free(_ tree: Slot, _ visit: (Slot, inout Element) -> Void) {
        var slots: [Slot] = []
        forEachSlot(in: tree) { slots.append($0) }
        for slot in slots {
            visit(slot, &nodes[Int(slot)].element)
            freeSlots.append(slot)
        }
    }

    /// Empties the treap.
    ///
    /// - Complexity: O(n) to release the storage.
    @inlinable
    public mutating func removeAll() {
        nodes = []
        freeSlots = []
        root = -1
    }

    // MARK: Finding

    /// The first element of the subtree `tree`, down its left spine.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public func first(_ tree: Slot) -> Slot {
        var slot = tree
        while slot >= 0, nodes[Int(slot)].left >= 0 { slot = nodes[Int(slot)].left }
        return slot
    }

    /// The last element of the subtree `tree`, down its right spine.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public func last(_ tree: Slot) -> Slot {
        var slot = tree
        while slot >= 0, nodes[Int(slot)].right >= 0 { slot = nodes[Int(slot)].right }
        return slot
    }

    /// The element of the sequence holding position `offset` in `metric` (the first whose end is
    /// past it) and the position where it starts; nil when `offset` is not below the total.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public func element(containing offset: Int, by metric: (Summary) -> Int) -> (slot: Slot, start: Int)? {
        var slot = root
        var base = 0
        var offset = offset
        while slot >= 0 {
            let index = Int(slot)
            let left = nodes[index].left
            let leftSize = left < 0 ? 0 : metric(nodes[Int(left)].summary)
            if offset < leftSize {
                slot = left
                continue
            }
            let elementSize = metric(nodes[index].element.summary)
            if offset < leftSize + elementSize { return (slot, base + leftSize) }
            offset -= leftSize + elementSize
            base += leftSize + elementSize
            slot = nodes[index].right
        }
        return nil
    }

    /// The first element whose running summary (everything before it plus itself) satisfies
    /// `reaches`, with the summary of everything before it; nil when none does. `reaches` must be
    /// monotone along the sequence (false, then true).
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public func first(where reaches: (Summary) -> Bool) -> (slot: Slot, before: Summary)? {
        var slot = root
        var before = Summary.zero
        while slot >= 0 {
            let index = Int(slot)
            let left = nodes[index].left
            let throughLeft = left < 0 ? before : before + nodes[Int(left)].summary
            if left >= 0, reaches(throughLeft) {
                slot = left
                continue
            }
            let throughElement = throughLeft + nodes[index].element.summary
            if reaches(throughElement) { return (slot, throughLeft) }
            before = throughElement
            slot = nodes[index].right
        }
        return nil
    }

    /// The summary of everything before `slot` in its tree, found by walking up.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public func summary(before slot: Slot) -> Summary {
        var total = summary(of: nodes[Int(slot)].left)
        var child = slot
        var parent = nodes[Int(slot)].parent
        while parent >= 0 {
            let index = Int(parent)
            if nodes[index].right == child { total = summary(of: nodes[index].left) + nodes[index].element.summary + total }
            child = parent
            parent = nodes[index].parent
        }
        return total
    }

    /// The slot after `slot` in order.
    ///
    /// - Complexity: O(log n) worst case, O(1) amortized over an in-order walk.
    @inlinable
    public func successor(of slot: Slot) -> Slot? {
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

    /// Calls `body` with each slot of the sequence intersecting `range` (in `metric`; an element
    /// measuring zero intersects it when it sits strictly inside) and the position where its
    /// element starts, in order, until `body` returns false. Subtrees whose summary `skips` are
    /// passed over whole (and so are elements whose own summary it skips).
    ///
    /// - Complexity: O(log n + k) expected for k elements visited.
    @inlinable
    public func forEach(
        in range: Range<Int>, by metric: (Summary) -> Int, skipping skips: (Summary) -> Bool = { _ in false },
        _ body: (Slot, Int) -> Bool
    ) {
        guard !range.isEmpty else { return }
        _ = visit(root, base: 0, range, metric, skips, body)
    }

    @inlinable
    func visit(
        _ slot: Slot, base: Int, _ range: Range<Int>, _ metric: (Summary) -> Int, _ skips: (Summary) -> Bool,
        _ body: (Slot, Int) -> Bool
    ) -> Bool {
        guard slot >= 0 else { return true }
        let index = Int(slot)
        if skips(nodes[index].summary) { return true }
        let left = nodes[index].left
        let start = base + (left < 0 ? 0 : metric(nodes[Int(left)].summary))
        let end = start + metric(nodes[index].element.summary)
        if range.lowerBound < start, !visit(left, base: base, range, metric, skips, body) { return false }
        if range.lowerBound < end, range.upperBound > start, !skips(nodes[index].element.summary), !body(slot, start) {
            return false
        }
        if range.upperBound > end { return visit(nodes[index].right, base: end, range, metric, skips, body) }
        return true
    }

    /// Calls `body` with every slot of the subtree `tree` (the sequence, by default) in order.
    ///
    /// - Complexity: O(k) for k elements in the subtree.
    @inlinable
    public func forEachSlot(in tree: Slot? = nil, _ body: (Slot) -> Void) {
        var stack: [Slot] = []
        var current = tree ?? root
        while current >= 0 || !stack.isEmpty {
            while current >= 0 {
                stack.append(current)
                current = nodes[Int(current)].left
            }
            let slot = stack.removeLast()
            body(slot)
            current = nodes[Int(slot)].right
        }
    }

    // MARK: Checks

    /// The longest root-to-leaf path, for checking balance.
    ///
    /// - Complexity: O(n).
    public var height: Int {
        var deepest = 0
        var stack: [(Slot, Int)] = root < 0 ? [] : [(root, 1)]
        while let (slot, depth) = stack.popLast() {
            deepest = max(deepest, depth)
            for child in [nodes[Int(slot)].left, nodes[Int(slot)].right] where child >= 0 { stack.append((child, depth + 1)) }
        }
        return deepest
    }

    /// True when every cached summary equals the sum recomputed from the elements, every child
    /// names its parent, and the heap order of priorities holds; for tests.
    ///
    /// - Complexity: O(n).
    public var isConsistent: Bool {
        guard root < 0 || nodes[Int(root)].parent == -1 else { return false }
        var consistent = true
        forEachSlot { slot in
            let node = nodes[Int(slot)]
            for child in [node.left, node.right] where child >= 0 {
                if nodes[Int(child)].parent != slot || nodes[Int(child)].priority > node.priority { consistent = false }
            }
            if summary(of: node.left) + node.element.summary + summary(of: node.right) != node.summary { consistent = false }
        }
        return consistent
    }
}

extension SummedTreap where Summary: InvertibleTreapSummary {
    /// Replaces the element in `slot` and adds the change of its summary along the path to the
    /// root: one addition a level instead of recomputing each summary from its children.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    public mutating func replace(_ slot: Slot, with element: Element) {
        let delta = element.summary - nodes[Int(slot)].element.summary
        nodes[Int(slot)].element = element
        var current = slot
        while current >= 0 {
            nodes[Int(current)].summary = nodes[Int(current)].summary + delta
            current = nodes[Int(current)].parent
        }
    }
}

extension SummedTreap.Node: Sendable where Element: Sendable, Element.Summary: Sendable {}
extension SummedTreap: Sendable where Element: Sendable, Element.Summary: Sendable {}

/// A plain count or length is a summary on its own.
extension Int: InvertibleTreapSummary {}
