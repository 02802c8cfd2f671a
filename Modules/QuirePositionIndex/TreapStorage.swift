import QuireAlgorithms

// Everything here is `@usableFromInline` and its operations `@inlinable`, like the treap's: the
// index is generic over its key, and unspecialized, every hash of a key, append of a key and
// dictionary lookup went through runtime type information (a third of a paste's index work).
// Inlined into the reconciler, they are specialized for its key.

/// The three tree slots of one document node.
@usableFromInline
struct Handles: Hashable {
    @usableFromInline var preamble: Int32
    @usableFromInline var content: Int32
    @usableFromInline var postamble: Int32

    @inlinable
    init(preamble: Int32, content: Int32, postamble: Int32) {
        self.preamble = preamble
        self.content = content
        self.postamble = postamble
    }

    @inlinable
    subscript<Key>(part: PositionIndex<Key>.Part) -> Int32 {
        switch part {
        case .preamble: preamble
        case .content: content
        case .postamble: postamble
        }
    }
}

/// One part of one node, in document order. Not generic over the key (keys live beside the
/// treap, by slot), so that the treap's code is specialized in this module whatever the key.
@usableFromInline
struct PartEntry: TreapElement {
    /// This part's own UTF-16 length.
    @usableFromInline var length: Int
    /// The part's `PositionIndex.Part` raw value.
    @usableFromInline var part: UInt8

    @inlinable
    init(length: Int, part: UInt8) {
        self.length = length
        self.part = part
    }

    /// A run of parts adds up to its UTF-16 length alone: locations are sums of lengths, and
    /// cuts fall beside a part's slot, so no count is kept.
    @inlinable
    var summary: Int { length }
}

/// Parts in document order, ready to be inserted: the keys beside the (concrete) entries, and
/// where each node's parts are among them.
@usableFromInline
struct FlatParts<Key: Hashable & Sendable> {
    @usableFromInline var keys: [Key] = []
    @usableFromInline var entries: [PartEntry] = []
    /// For each node, the index of its preamble (its content part follows it) and of its
    /// postamble in `entries`.
    @usableFromInline var nodes: [(preamble: Int, postamble: Int)] = []

    @inlinable
    init() {}

    /// Appends a node's preamble and content parts; returns the node's number, with which its
    /// postamble is appended once its descendants' parts are.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func open(_ key: Key, preamble: Int, content: Int) -> Int {
        nodes.append((entries.count, -1))
        keys.append(key)
        keys.append(key)
        entries.append(PartEntry(length: preamble, part: PositionIndex<Key>.Part.preamble.rawValue))
        entries.append(PartEntry(length: content, part: PositionIndex<Key>.Part.content.rawValue))
        return nodes.count - 1
    }

    /// Appends the postamble of node number `node` (see ``open(_:preamble:content:)``).
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func close(_ node: Int, _ key: Key, postamble: Int) {
        nodes[node].postamble = entries.count
        keys.append(key)
        entries.append(PartEntry(length: postamble, part: PositionIndex<Key>.Part.postamble.rawValue))
    }
}

/// The parts of a document in the project's summed treap, ordered by position, with each node's
/// three slots so that a key finds its parts' locations by walking up.
///
/// It is a reference type so that `PositionIndex` can tell whether it is shared; `PositionIndex`
/// copies it before writing whenever it is, so values of `PositionIndex` keep value semantics,
/// and it is only ever mutated through a uniquely referenced owner — which is why
/// `@unchecked Sendable` is sound here.
@usableFromInline
final class TreapStorage<Key: Hashable & Sendable>: @unchecked Sendable {
    @usableFromInline typealias Part = PositionIndex<Key>.Part

    @usableFromInline var treap: SummedTreap<PartEntry>
    /// The key of the part in each slot (a freed slot keeps its last key until reused).
    @usableFromInline var keys: [Key] = []
    @usableFromInline var handles: [Key: Handles] = [:]

    @inlinable
    init(seed: UInt64) { treap = SummedTreap(seed: seed) }

    /// A copy sharing nothing mutable with this one (the arrays copy on their first write).
    ///
    /// - Complexity: O(1) now, O(n) at the first write to either.
    @inlinable
    func copy() -> TreapStorage {
        let clone = TreapStorage(seed: 0)
        clone.treap = treap
        clone.keys = keys
        clone.handles = handles
        return clone
    }

    /// - Complexity: O(1).
    @inlinable
    var totalLength: Int { treap.summary }

    /// - Complexity: O(1) on average.
    @inlinable
    func handlesOf(_ key: Key) throws(PositionIndexError) -> Handles {
        guard let handles = handles[key] else { throw .keyNotFound(String(describing: key)) }
        return handles
    }

    /// The length of the part in `slot`.
    ///
    /// - Complexity: O(1).
    @inlinable
    func length(at slot: Int32) -> Int { treap[slot].length }

    /// The key, part and length in `slot`.
    ///
    /// - Complexity: O(1).
    @inlinable
    func entry(at slot: Int32) -> (key: Key, part: Part, length: Int) {
        let entry = treap[slot]
        return (keys[Int(slot)], Part(rawValue: entry.part)!, entry.length)
    }

    // MARK: Position of a slot

    /// The UTF-16 location where `slot`'s part starts.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    func location(of slot: Int32) -> Int { treap.summary(before: slot) }

    /// The first part whose end (start + length) is at or after `location`, with its start.
    ///
    /// - Complexity: O(log n) expected.
    @inlinable
    func firstEntry(endingAtOrAfter location: Int) -> (Int32, Int)? {
        treap.first(where: { $0 >= location }).map { ($0.slot, $0.before) }
    }

    /// The slot after `slot` in document order.
    ///
    /// - Complexity: O(log n) worst case, O(1) amortized over an in-order walk.
    @inlinable
    func successor(of slot: Int32) -> Int32? { treap.successor(of: slot) }

    /// Calls `visit` with every part in document order.
    ///
    /// - Complexity: O(n).
    @inlinable
    func inOrder(_ visit: ((key: Key, part: Part, length: Int)) -> Void) {
        treap.forEachSlot { visit(entry(at: $0)) }
    }

    // MARK: Updates

    /// - Complexity: O(log n) expected: only the sums on the path to the root change.
    @inlinable
    func setLength(_ length: Int, at slot: Int32) {
        var entry = treap[slot]
        guard entry.length != length else { return }
        entry.length = length
        treap.replace(slot, with: entry)
    }

    /// Builds the parts into a subtree in O(s) and splices it in right after `slot` (at the
    /// start for nil).
    ///
    /// - Throws: `.duplicateKey` when a node's key is already present or appears twice among
    ///   the parts; nothing is changed then.
    /// - Complexity: O(s + log n) for s parts.
    @inlinable
    func insert(_ parts: FlatParts<Key>, after slot: Int32?) throws(PositionIndexError) {
        var slots: [Int32] = []
        slots.reserveCapacity(parts.entries.count)
        let subtree = treap.build(parts.entries) { slots.append($0) }
        // Slots are handed out in order, so a new one is always the next index of `keys` (set even
        // when the insert is undone below: a freed slot keeps its last key until reused).
        for (index, slot) in slots.enumerated() {
            if Int(slot) == keys.count { keys.append(parts.keys[index]) } else { keys[Int(slot)] = parts.keys[index] }
        }
        // A duplicate is found by the one dictionary write each node needs anyway, and undone.
        handles.reserveCapacity(handles.count + parts.nodes.count)
        for (number, node) in parts.nodes.enumerated() {
            let key = parts.keys[node.preamble]
            let handle = Handles(preamble: slots[node.preamble], content: slots[node.preamble + 1], postamble: slots[node.postamble])
            if let previous = handles.updateValue(handle, forKey: key) {
                handles[key] = previous
                for earlier in parts.nodes[..<number] { handles[parts.keys[earlier.preamble]] = nil }
                treap.free(subtree) { _, _ in }
                throw .duplicateKey(String(describing: key))
            }
        }
        guard let slot else {
            treap.root = treap.merge(subtree, treap.root)
            return
        }
        let (before, after) = treap.split(.after, slot)
        treap.root = treap.merge(treap.merge(before, subtree), after)
    }

    /// Removes the parts from `first` through `last` (slots, in document order) and forgets their
    /// keys; returns the keys in document order.
    ///
    /// - Complexity: O(s + log n) for s parts removed.
    @inlinable
    func removeRange(from first: Int32, through last: Int32) -> [Key] {
        let (before, _) = treap.split(.before, first)
        let (middle, after) = treap.split(.after, last)
        treap.root = treap.merge(before, after)
        var removed: [Key] = []
        treap.free(middle) { slot, entry in
            guard entry.part == Part.preamble.rawValue else { return }
            removed.append(keys[Int(slot)])
        }
        for key in removed { handles[key] = nil }
        return removed
    }
}
