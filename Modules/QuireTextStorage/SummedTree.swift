import QuireAlgorithms

/// What a subtree adds up to: its UTF-16 length, how many paragraph separators it holds (which
/// makes paragraph boundaries an O(log n) lookup instead of a scan) and which attribute scopes
/// occur in it (which lets `fixAttributes` skip subtrees without paragraph or attachment runs).
struct TreeSummary: Equatable {
    var length: Int
    var breaks: Int
    var scopes: ScopeMask = []

    static let zero = TreeSummary(length: 0, breaks: 0)

    static func + (lhs: TreeSummary, rhs: TreeSummary) -> TreeSummary {
        TreeSummary(length: lhs.length + rhs.length, breaks: lhs.breaks + rhs.breaks, scopes: lhs.scopes.union(rhs.scopes))
    }
}

/// An element of a `SummedTree`: a chunk of text or an attribute run.
protocol TreeElement {
    var summary: TreeSummary { get }
    /// Splits at a UTF-16 offset strictly inside the element.
    func split(at offset: Int) -> (Self, Self)
    /// Rewrites a sequence of neighbouring elements into the canonical form (coalesced runs,
    /// chunks within their size bounds). Called on the few elements around an edit.
    static func normalize(_ elements: [Self]) -> [Self]
    /// True when two neighbours must be normalized together (equal runs, underfull chunks).
    static func needsJoin(_ left: Self, _ right: Self) -> Bool
    /// Paragraph separators in `0..<offset`.
    func breaks(before offset: Int) -> Int
    /// The offset of the `ordinal`-th (1-based) paragraph separator inside the element.
    func offsetOfBreak(_ ordinal: Int) -> Int
}

extension TreeElement {
    func breaks(before offset: Int) -> Int { 0 }
    func offsetOfBreak(_ ordinal: Int) -> Int { preconditionFailure("element holds no paragraph separators") }
}

/// A treap node. Its fields opt out of dynamic exclusivity checking: on the typing path those
/// checks cost about as much as the tree walk itself, and they cannot fire here, because nodes are
/// private to one `SummedTree`, every access is a short synchronous read or write inside its
/// methods, and no access to a node's field is ever held open across a call that reaches the
/// same field.
final class TreeNode<Element: TreeElement> {
    @exclusivity(unchecked) var element: Element
    @exclusivity(unchecked) var summary: TreeSummary
    let priority: UInt64
    @exclusivity(unchecked) var left: TreeNode?
    @exclusivity(unchecked) var right: TreeNode?

    init(_ element: Element, priority: UInt64) {
        self.element = element
        self.summary = element.summary
        self.priority = priority
    }

    /// Recomputes the cached summary from the children's.
    ///
    /// - Complexity: O(1).
    func update() {
        summary = (left?.summary ?? .zero) + element.summary + (right?.summary ?? .zero)
    }
}

/// A sequence of elements indexed by UTF-16 offset: a treap (randomized balanced binary tree)
/// whose nodes cache the summary of their subtree, the same idea as swift-collections' Rope
/// with its RopeSummary/RopeMetric, in a shape small enough to own.
///
/// Split and merge are the only structural operations; everything else (replace, lookups,
/// enumeration) is built on them or on a descent guided by the cached summaries. Expected depth is
/// O(log n) for n elements. Priorities come from a fixed-seed `SeededGenerator`, so the shape (and thus
/// every timing) is reproducible from run to run.
///
/// It is a class because `TextStorage` owns it and mutates it in place; it is never shared.
final class SummedTree<Element: TreeElement> {
    typealias Node = TreeNode<Element>

    // Unchecked for the same reason as the node fields.
    @exclusivity(unchecked) private(set) var root: Node?
    @exclusivity(unchecked) private var priorities = SeededGenerator(seed: 0x5EED_0F_9E1D)

    init() {}

    /// The summary of the whole sequence.
    ///
    /// - Complexity: O(1).
    var summary: TreeSummary { root?.summary ?? .zero }

    /// - Complexity: O(1).
    private func nextPriority() -> UInt64 {
        priorities.next()
    }

    // MARK: Structure

    /// Splits `node` into the elements before and after UTF-16 `offset`, splitting an element
    /// that straddles it.
    ///
    /// - Complexity: O(log n) expected.
    private func split(_ node: Node?, at offset: Int) -> (Node?, Node?) {
        guard let node else { return (nil, nil) }
        let leftLength = node.left?.summary.length ?? 0
        let elementLength = node.element.summary.length
        if offset <= leftLength {
            let (a, b) = split(node.left, at: offset)
            node.left = b
            node.update()
            return (a, node)
        }
        if offset >= leftLength + elementLength {
            let (a, b) = split(node.right, at: offset - leftLength - elementLength)
            node.right = a
            node.update()
            return (node, b)
        }
        let (head, tail) = node.element.split(at: offset - leftLength)
        let right = node.right
        node.element = head
        node.right = nil
        node.update()
        // The tail may end up under this node's parent (when this call split a left subtree), so
        // its priority must not exceed this node's; a fresh one, capped, keeps shapes varied.
        return (node, merge(Node(tail, priority: min(nextPriority(), node.priority)), right))
    }

    /// Concatenates two trees.
    ///
    /// - Complexity: O(log n) expected.
    private func merge(_ a: Node?, _ b: Node?) -> Node? {
        guard let a else { return b }
        guard let b else { return a }
        if a.priority >= b.priority {
            a.right = merge(a.right, b)
            a.update()
            return a
        }
        b.left = merge(a, b.left)
        b.update()
        return b
    }

    /// Builds a tree from elements in order.
    ///
    /// - Complexity: O(k) for k elements (a Cartesian tree built with a stack).
    private func build(_ elements: [Element]) -> Node? {
        var spine: [Node] = []
        for element in elements {
            let node = Node(element, priority: nextPriority())
            var last: Node?
            while let top = spine.last, top.priority < node.priority {
                // Popped nodes are final: everything to their right was popped (and updated) first.
                last = spine.removeLast()
                last?.update()
            }
            node.left = last
            node.update()
            if let parent = spine.last { parent.right = node }
            spine.append(node)
        }
        // Summaries on the right spine are stale until the spine is folded from the bottom.
        for node in spine.reversed() { node.update() }
        return spine.first
    }

    /// The last element of the subtree, found down its right spine.
    ///
    /// - Complexity: O(log n) expected.
    private func lastElement(_ node: Node) -> Element {
        var node = node
        while let right = node.right { node = right }
        return node.element
    }

    /// The first element of the subtree, found down its left spine.
    ///
    /// - Complexity: O(log n) expected.
    private func firstElement(_ node: Node) -> Element {
        var node = node
        while let left = node.left { node = left }
        return node.element
    }

    // MARK: Editing

    /// Replaces the elements covering UTF-16 `range` with `elements`, then normalizes the new
    /// elements together with the neighbour on each seam when they need joining.
    ///
    /// - Complexity: O(log n + k) expected for k new elements (plus the cost of normalizing the
    ///   two neighbours, which are bounded in size).
    func replace(_ range: Range<Int>, with elements: [Element]) {
        let (before, rest) = split(root, at: range.lowerBound)
        let (_, after) = split(rest, at: range.count)
        var left = before
        var right = after
        var pieces: [Element] = []
        pieces.reserveCapacity(elements.count + 2)
        // Peeking is a walk down one spine; cutting a neighbour out costs a split, so only when
        // it has to join the new elements.
        if let tree = left, let next = elements.first ?? right.map(firstElement) {
            let last = lastElement(tree)
            if Element.needsJoin(last, next) {
                left = split(tree, at: tree.summary.length - last.summary.length).0
                pieces.append(last)
            }
        }
        pieces.append(contentsOf: elements)
        if let tree = right, let previous = pieces.last ?? left.map(lastElement) {
            let first = firstElement(tree)
            if Element.needsJoin(previous, first) {
                right = split(tree, at: first.summary.length).1
                pieces.append(first)
            }
        }
        root = merge(merge(left, build(Element.normalize(pieces))), right)
    }

    /// Lets `mutate` change the element containing UTF-16 `offset` in place, given the offset
    /// where that element starts; when it returns true the summaries on the path are refreshed.
    /// `mutate` must leave the element untouched when it returns false (then so is the tree), and
    /// must not reach this tree: the element is being modified in place while it runs.
    /// The fast path for edits that stay inside one element: no split, no merge, no allocation.
    ///
    /// - Complexity: O(log n) expected, plus the cost of `mutate`.
    func updateElement(containing offset: Int, _ mutate: (inout Element, Int) -> Bool) -> Bool {
        update(root, offset: offset, base: 0, mutate)
    }

    private func update(_ node: Node?, offset: Int, base: Int, _ mutate: (inout Element, Int) -> Bool) -> Bool {
        guard let node else { return false }
        let leftLength = node.left?.summary.length ?? 0
        let elementLength = node.element.summary.length
        let changed: Bool
        if offset < leftLength {
            changed = update(node.left, offset: offset, base: base, mutate)
        } else if offset < leftLength + elementLength {
            changed = mutate(&node.element, base + leftLength)
        } else {
            changed = update(node.right, offset: offset - leftLength - elementLength,
                             base: base + leftLength + elementLength, mutate)
        }
        if changed { node.update() }
        return changed
    }

    /// Replaces `range`, which must lie strictly inside one element accepted by `accepts`, with
    /// `middle`: the element keeps its head in place, and `middle` and the element's tail are
    /// inserted after it. `middle` must not need joining with either (the caller knows: for runs,
    /// its attributes differ). Returns false, with the tree untouched, when the conditions fail.
    /// Cheaper than `replace` because both cuts land on element boundaries (no split element to
    /// merge back) and no seam needs normalizing.
    ///
    /// - Complexity: O(log n + k) expected for k elements in `middle`.
    func replaceInsideElement(_ range: Range<Int>, with middle: [Element], if accepts: (Element) -> Bool) -> Bool {
        var tail: Element?
        let shrunk = updateElement(containing: range.lowerBound) { element, start in
            guard range.lowerBound > start, range.upperBound < start + element.summary.length, accepts(element) else {
                return false
            }
            let (head, rest) = element.split(at: range.lowerBound - start)
            tail = rest.split(at: range.count).1
            element = head
            return true
        }
        guard shrunk, let tail else { return false }
        let (left, right) = split(root, at: range.lowerBound)
        root = merge(merge(left, build(middle + [tail])), right)
        return true
    }

    /// Replaces every element with `elements`, which must already be in normalized form (they are
    /// not re-normalized: for text that would copy every unit once more).
    ///
    /// - Complexity: O(k) for k elements.
    func reset(_ elements: [Element]) {
        root = build(elements)
    }

    // MARK: Queries

    /// The element containing UTF-16 `offset` and the offset where it starts.
    /// `offset` must be in `0..<length`.
    ///
    /// - Complexity: O(log n) expected.
    func element(containing offset: Int) -> (element: Element, start: Int) {
        var node = root
        var base = 0
        var offset = offset
        while let current = node {
            let leftLength = current.left?.summary.length ?? 0
            let elementLength = current.element.summary.length
            if offset < leftLength {
                node = current.left
            } else if offset < leftLength + elementLength {
                return (current.element, base + leftLength)
            } else {
                offset -= leftLength + elementLength
                base += leftLength + elementLength
                node = current.right
            }
        }
        preconditionFailure("offset outside the tree")
    }

    /// Calls `body` with each element intersecting `range` and its start offset, in order, until
    /// `body` returns false. With `scopes`, only elements whose summary has one of them are
    /// visited, and subtrees without any are skipped whole.
    ///
    /// - Complexity: O(log n + k) expected for k elements visited (O((m + 1) log n) for m matching
    ///   elements when `scopes` is given).
    func forEach(in range: Range<Int>, having scopes: ScopeMask = [], _ body: (Element, Int) -> Bool) {
        guard !range.isEmpty else { return }
        _ = visit(root, base: 0, range, scopes, body)
    }

    private func visit(
        _ node: Node?, base: Int, _ range: Range<Int>, _ scopes: ScopeMask, _ body: (Element, Int) -> Bool
    ) -> Bool {
        guard let node else { return true }
        if !scopes.isEmpty, node.summary.scopes.isDisjoint(with: scopes) { return true }
        let leftLength = node.left?.summary.length ?? 0
        let start = base + leftLength
        let end = start + node.element.summary.length
        if range.lowerBound < start, !visit(node.left, base: base, range, scopes, body) { return false }
        if range.lowerBound < end, range.upperBound > start,
            scopes.isEmpty || !node.element.summary.scopes.isDisjoint(with: scopes),
            !body(node.element, start)
        {
            return false
        }
        if range.upperBound > end { return visit(node.right, base: end, range, scopes, body) }
        return true
    }

    /// Paragraph separators in `0..<offset`.
    ///
    /// - Complexity: O(log n) expected.
    func breaks(before offset: Int) -> Int {
        var node = root
        var offset = offset
        var count = 0
        while let current = node {
            let leftLength = current.left?.summary.length ?? 0
            let elementLength = current.element.summary.length
            if offset <= leftLength {
                node = current.left
            } else if offset <= leftLength + elementLength {
                return count + (current.left?.summary.breaks ?? 0) + current.element.breaks(before: offset - leftLength)
            } else {
                count += (current.left?.summary.breaks ?? 0) + current.element.summary.breaks
                offset -= leftLength + elementLength
                node = current.right
            }
        }
        return count
    }

    /// The UTF-16 offset of the `ordinal`-th (1-based) paragraph separator, or nil if there are
    /// fewer.
    ///
    /// - Complexity: O(log n) expected.
    func offsetOfBreak(_ ordinal: Int) -> Int? {
        guard ordinal >= 1, ordinal <= summary.breaks else { return nil }
        var node = root
        var ordinal = ordinal
        var base = 0
        while let current = node {
            let leftBreaks = current.left?.summary.breaks ?? 0
            let leftLength = current.left?.summary.length ?? 0
            if ordinal <= leftBreaks {
                node = current.left
            } else if ordinal <= leftBreaks + current.element.summary.breaks {
                return base + leftLength + current.element.offsetOfBreak(ordinal - leftBreaks)
            } else {
                ordinal -= leftBreaks + current.element.summary.breaks
                base += leftLength + current.element.summary.length
                node = current.right
            }
        }
        return nil
    }

    /// Every element in order.
    ///
    /// - Complexity: O(n).
    var elements: [Element] {
        var result: [Element] = []
        forEach(in: 0..<summary.length) { element, _ in
            result.append(element)
            return true
        }
        return result
    }

    /// The longest root-to-leaf path, for checking balance.
    ///
    /// - Complexity: O(n).
    var height: Int { height(root) }

    private func height(_ node: Node?) -> Int {
        guard let node else { return 0 }
        return 1 + max(height(node.left), height(node.right))
    }

    /// True when every cached summary equals the sum recomputed from the elements and the heap
    /// order holds; for tests.
    ///
    /// - Complexity: O(n).
    var isConsistent: Bool { consistentSummary(root) != nil }

    private func consistentSummary(_ node: Node?) -> TreeSummary? {
        guard let node else { return .zero }
        guard let left = consistentSummary(node.left), let right = consistentSummary(node.right) else { return nil }
        if let child = node.left, child.priority > node.priority { return nil }
        if let child = node.right, child.priority > node.priority { return nil }
        let total = left + node.element.summary + right
        return total == node.summary ? total : nil
    }

    /// The number of nodes, for memory accounting.
    ///
    /// - Complexity: O(n).
    var nodeCount: Int {
        var count = 0
        forEach(in: 0..<summary.length) { _, _ in
            count += 1
            return true
        }
        return count
    }
}
