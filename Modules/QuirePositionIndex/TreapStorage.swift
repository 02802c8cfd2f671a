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

/// One part of one node, in document order. Not generic over the key (keys live beside the
/// treap, by slot), so that the treap's code is specialized in this module whatever the key.
struct PartEntry: TreapElement {
    /// This part's own UTF-16 length.
    var length: Int
    /// The part's `PositionIndex.Part` raw value.
    var part: UInt8

    /// A run of parts adds up to its UTF-16 length alone: locations are sums of lengths, and
    /// cuts fall beside a part's slot, so no count is kept.
    var summary: Int { length }
}

/// Parts in document order, ready to be inserted: the keys beside the (concrete) entries.
struct FlatParts<Key: Hashable & Sendable> {
    var keys: [Key] = []
    var entries: [PartEntry] = []

    /// - Complexity: O(1) amortized.
    mutating func append(_ key: Key, _ part: PositionIndex<Key>.Part, _ length: Int) {
        keys.append(key)
        entries.append(PartEntry(length: length, part: part.rawValue))
    }

    /// - Complexity: O(k) for k parts appended.
    mutating func append(contentsOf other: FlatParts) {
        keys += other.keys
        entries += other.entries
    }
}

/// The parts of a document in the project's summed treap, ordered by position, with each node's
/// three slots so that a key finds its parts' locations by walking up.
///
/// It is a reference type so that `PositionIndex` can tell whether it is shared; `PositionIndex`
/// copies it before writing whenever it is, so values of `PositionIndex` keep value semantics,
/// and it is only ever mutated through a uniquely referenced owner — which is why
/// `@unchecked Sendable` is sound here.
final class TreapStorage<Key: Hashable & Sendable>: @unchecked Sendable {
    typealias Part = PositionIndex<Key>.Part

    var treap: SummedTreap<PartEntry>
    /// The key of the part in each slot (a freed slot keeps its last key until reused).
    var keys: [Key] = []
    var handles: [Key: Handles] = [:]

    init(seed: UInt64) { treap = SummedTreap(seed: seed) }

    /// A copy sharing nothing mutable with this one (the arrays copy on their first write).
    ///
    /// - Complexity: O(1) now, O(n) at the first write to either.
    func copy() -> TreapStorage {
        let clone = TreapStorage(seed: 0)
        clone.treap = treap
        clone.keys = keys
        clone.handles = handles
        return clone
    }

    /// - Complexity: O(1).
    var totalLength: Int { treap.summary }

    /// - Complexity: O(1) on average.
    func handlesOf(_ key: Key) throws(PositionIndexError) -> Handles {
        guard let handles = handles[key] else { throw .keyNotFound(String(describing: key)) }
        return handles
    }

    /// The length of the part in `slot`.
    ///
    /// - Complexity: O(1).
    func length(at slot: Int32) -> Int { treap[slot].length }

    /// The key, part and length in `slot`.
    ///
    /// - Complexity: O(1).
    func entry(at slot: Int32) -> (key: Key, part: Part, length: Int) {
        let entry = treap[slot]
        return (keys[Int(slot)], Part(rawValue: entry.part)!, entry.length)
    }

    // MARK: Position of a slot

    /// The UTF-16 location where `slot`'s part starts.
    ///
    /// - Complexity: O(log n) expected.
    func location(of slot: Int32) -> Int { treap.summary(before: slot) }

    /// The first part whose end (start + length) is at or after `location`, with its start.
    ///
    /// - Complexity: O(log n) expected.
    func firstEntry(endingAtOrAfter location: Int) -> (Int32, Int)? {
        treap.first(where: { $0 >= location }).map { ($0.slot, $0.before) }
    }

    /// The slot after `slot` in document order.
    ///
    /// - Complexity: O(log n) worst case, O(1) amortized over an in-order walk.
    func successor(of slot: Int32) -> Int32? { treap.successor(of: slot) }

    /// Calls `visit` with every part in document order.
    ///
    /// - Complexity: O(n).
    func inOrder(_ visit: ((key: Key, part: Part, length: Int)) -> Void) {
        treap.forEachSlot { visit(entry(at: $0)) }
    }

    // MARK: Updates

    /// - Complexity: O(log n) expected: only the sums on the path to the root change.
    func setLength(_ length: Int, at slot: Int32) {
        var entry = treap[slot]
        guard entry.length != length else { return }
        entry.length = length
        treap.replace(slot, with: entry)
    }

    /// Builds the parts into a subtree in O(s) and splices it in right after `slot` (at the
    /// start for nil).
    ///
    /// - Complexity: O(s + log n) for s parts.
    func insert(_ parts: FlatParts<Key>, after slot: Int32?) {
        var newHandles: [Key: Handles] = [:]
        var index = 0
        let subtree = treap.build(parts.entries) { slot in
            let key = parts.keys[index]
            if Int(slot) == keys.count { keys.append(key) } else { keys[Int(slot)] = key }
            var handle = newHandles[key] ?? Handles(preamble: -1, content: -1, postamble: -1)
            switch Part(rawValue: parts.entries[index].part)! {
            case .preamble: handle.preamble = slot
            case .content: handle.content = slot
            case .postamble: handle.postamble = slot
            }
            newHandles[key] = handle
            index += 1
        }
        for (key, handle) in newHandles { handles[key] = handle }
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
