import QuireAlgorithms

/// What a subtree adds up to: its UTF-16 length, how many paragraph separators it holds (which
/// makes paragraph boundaries an O(log n) lookup instead of a scan) and which attribute scopes
/// occur in it (which lets `fixAttributes` skip subtrees without paragraph or attachment runs).
struct TreeSummary: TreapSummary {
    var length: Int
    var breaks: Int
    var scopes: ScopeMask = []

    static let zero = TreeSummary(length: 0, breaks: 0)

    static func + (lhs: TreeSummary, rhs: TreeSummary) -> TreeSummary {
        TreeSummary(length: lhs.length + rhs.length, breaks: lhs.breaks + rhs.breaks, scopes: lhs.scopes.union(rhs.scopes))
    }
}

/// An element of a `SummedTree`: a chunk of text or an attribute run.
protocol TreeElement: TreapElement where Summary == TreeSummary {
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
    /// Lets go of what the element holds (its units, its attributes) when it leaves the tree, so
    /// that a slot waiting for reuse keeps no memory alive.
    mutating func release()
}

extension TreeElement {
    func breaks(before offset: Int) -> Int { 0 }
    func offsetOfBreak(_ ordinal: Int) -> Int { preconditionFailure("element holds no paragraph separators") }
}

/// A sequence of elements indexed by UTF-16 offset, on the project's one summed tree
/// (`SummedTreap`): this type adds what text chunks and attribute runs need on top of it, the
/// normalization of the elements around every edit (coalesced runs, chunks within their size
/// bounds) and the paragraph-separator queries.
///
/// It is a class because `TextStorage` owns it and mutates it in place; it is never shared.
final class SummedTree<Element: TreeElement> {
    typealias Slot = SummedTreap<Element>.Slot

    // Dynamic exclusivity checks on the typing path cost about as much as the tree walk itself,
    // and they cannot fire here: the tree is private to one `TextStorage`, every access is a
    // short synchronous read or write inside these methods, and no access is held open across a
    // call that reaches the tree again.
    @exclusivity(unchecked) private(set) var treap = SummedTreap<Element>(seed: 0x5EED_0F_9E1D)

    init() {}

    /// The summary of the whole sequence.
    ///
    /// - Complexity: O(1).
    var summary: TreeSummary { treap.summary }

    /// Splits the subtree `tree` at UTF-16 `offset`, splitting an element that straddles it.
    ///
    /// - Complexity: O(log n) expected.
    private func split(_ tree: Slot, at offset: Int) -> (Slot, Slot) {
        treap.split(tree, at: offset, by: { $0.length }, splitElement: { $0.split(at: $1) })
    }

    // MARK: Editing

    /// Replaces the elements covering UTF-16 `range` with `elements`, then normalizes the new
    /// elements together with the neighbour on each seam when they need joining.
    ///
    /// - Complexity: O(log n + k + r) expected for k new and r removed elements (plus the cost of
    ///   normalizing the two neighbours, which are bounded in size).
    func replace(_ range: Range<Int>, with elements: [Element]) {
        let (before, rest) = split(treap.root, at: range.lowerBound)
        let (removed, after) = split(rest, at: range.count)
        treap.free(removed) { $1.release() }
        var left = before
        var right = after
        var pieces: [Element] = []
        pieces.reserveCapacity(elements.count + 2)
        // Peeking is a walk down one spine; cutting a neighbour out costs a split, so only when
        // it has to join the new elements.
        if left >= 0, let next = elements.first ?? (right >= 0 ? treap[treap.first(right)] : nil) {
            let last = treap[treap.last(left)]
            if Element.needsJoin(last, next) {
                let (kept, cut) = split(left, at: treap.summary(of: left).length - last.summary.length)
                treap.free(cut) { $1.release() }
                left = kept
                pieces.append(last)
            }
        }
        pieces.append(contentsOf: elements)
        if right >= 0, let previous = pieces.last ?? (left >= 0 ? treap[treap.last(left)] : nil) {
            let first = treap[treap.first(right)]
            if Element.needsJoin(previous, first) {
                let (cut, kept) = split(right, at: first.summary.length)
                treap.free(cut) { $1.release() }
                right = kept
                pieces.append(first)
            }
        }
        let middle = treap.build(Element.normalize(pieces))
        treap.root = treap.merge(treap.merge(left, middle), right)
    }

    /// Lets `mutate` change the element containing UTF-16 `offset` in place, given the offset
    /// where that element starts; when it returns true the summaries on the path are refreshed.
    /// `mutate` must leave the element untouched when it returns false (then so is the tree), and
    /// must not reach this tree: the element is being modified in place while it runs.
    /// The fast path for edits that stay inside one element: no split, no merge, no allocation.
    ///
    /// - Complexity: O(log n) expected, plus the cost of `mutate`.
    func updateElement(containing offset: Int, _ mutate: (inout Element, Int) -> Bool) -> Bool {
        guard let (slot, start) = treap.element(containing: offset, by: { $0.length }) else { return false }
        return treap.update(slot) { mutate(&$0, start) }
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
        let (left, right) = split(treap.root, at: range.lowerBound)
        let inserted = treap.build(middle + [tail])
        treap.root = treap.merge(treap.merge(left, inserted), right)
        return true
    }

    /// Replaces every element with `elements`, which must already be in normalized form (they are
    /// not re-normalized: for text that would copy every unit once more).
    ///
    /// - Complexity: O(k) for k elements.
    func reset(_ elements: [Element]) {
        treap.removeAll()
        treap.root = treap.build(elements)
    }

    // MARK: Queries

    /// The element containing UTF-16 `offset` and the offset where it starts.
    /// `offset` must be in `0..<length`.
    ///
    /// - Complexity: O(log n) expected.
    func element(containing offset: Int) -> (element: Element, start: Int) {
        guard let (slot, start) = treap.element(containing: offset, by: { $0.length }) else {
            preconditionFailure("offset outside the tree")
        }
        return (treap[slot], start)
    }

    /// Calls `body` with each element intersecting `range` and its start offset, in order, until
    /// `body` returns false. With `scopes`, only elements whose summary has one of them are
    /// visited, and subtrees without any are skipped whole.
    ///
    /// - Complexity: O(log n + k) expected for k elements visited (O((m + 1) log n) for m matching
    ///   elements when `scopes` is given).
    func forEach(in range: Range<Int>, having scopes: ScopeMask = [], _ body: (Element, Int) -> Bool) {
        treap.forEach(in: range, by: { $0.length }, skipping: { !scopes.isEmpty && $0.scopes.isDisjoint(with: scopes) }) { slot, start in
            body(treap[slot], start)
        }
    }

    /// Paragraph separators in `0..<offset`.
    ///
    /// - Complexity: O(log n) expected.
    func breaks(before offset: Int) -> Int {
        guard let (slot, before) = treap.first(where: { $0.length >= offset }) else { return summary.breaks }
        return before.breaks + treap[slot].breaks(before: offset - before.length)
    }

    /// The UTF-16 offset of the `ordinal`-th (1-based) paragraph separator, or nil if there are
    /// fewer.
    ///
    /// - Complexity: O(log n) expected.
    func offsetOfBreak(_ ordinal: Int) -> Int? {
        guard ordinal >= 1, ordinal <= summary.breaks,
            let (slot, before) = treap.first(where: { $0.breaks >= ordinal })
        else { return nil }
        return before.length + treap[slot].offsetOfBreak(ordinal - before.breaks)
    }

    /// Every element in order.
    ///
    /// - Complexity: O(n).
    var elements: [Element] {
        var result: [Element] = []
        treap.forEachSlot { result.append(treap[$0]) }
        return result
    }

    /// The longest root-to-leaf path, for checking balance.
    ///
    /// - Complexity: O(n).
    var height: Int { treap.height }

    /// True when every cached summary equals the sum recomputed from the elements, the parent
    /// links match and the heap order holds; for tests.
    ///
    /// - Complexity: O(n).
    var isConsistent: Bool { treap.isConsistent }

    /// The number of elements, for memory accounting.
    ///
    /// - Complexity: O(n).
    var nodeCount: Int {
        var count = 0
        treap.forEachSlot { _ in count += 1 }
        return count
    }
}
