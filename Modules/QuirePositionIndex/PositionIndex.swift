import QuireAlgorithms

/// Where the flat-string lengths of a document's nodes live: Quire's replacement for Lexical iOS's
/// RangeCache.
///
/// Every node contributes three parts in document order — its preamble, its own content (a text
/// node's text, "\n" for a line break, U+FFFC for a decorator, nothing for an element), then its
/// children's parts, then its postamble. The index keeps those parts as entries of an implicit
/// treap (a randomized balanced tree ordered by position, no stored keys: QuireAlgorithms'
/// `SummedTreap`, the text storage's tree too) whose nodes carry the summed UTF-16 length of
/// their subtree. No absolute location is stored anywhere, so a keystroke
/// updates O(log n) sums instead of shifting O(n) locations, and location ↔ entry lookups walk
/// one root-to-leaf path.
///
/// The index knows nothing about node types: it is generic over the key and takes lengths from
/// its caller (the reconciler), which keeps it reusable and trivially testable against a model.
public struct PositionIndex<Key: Hashable & Sendable>: Sendable {
    /// One of the three parts a node contributes.
    public enum Part: UInt8, Hashable, Sendable, CaseIterable {
        case preamble
        case content
        case postamble
    }

    /// A part of a node with its current place in the flat string.
    ///
    /// Only the index builds these (from its queries); callers read them, so there is no public
    /// initializer.
    public struct Entry: Hashable, Sendable {
        public let key: Key
        public let part: Part
        /// UTF-16 offset of the part's first unit.
        public let location: Int
        /// UTF-16 length of the part.
        public let length: Int

        @inlinable
        init(key: Key, part: Part, location: Int, length: Int) {
            self.key = key
            self.part = part
            self.location = location
            self.length = length
        }

        /// The part's range in the flat string.
        @inlinable
        public var range: Range<Int> { location..<(location + length) }
    }

    /// The lengths of one node's three parts.
    public struct Lengths: Hashable, Sendable {
        public var preamble: Int
        public var content: Int
        public var postamble: Int

        public init(preamble: Int = 0, content: Int = 0, postamble: Int = 0) {
            self.preamble = preamble
            self.content = content
            self.postamble = postamble
        }

        public subscript(part: Part) -> Int {
            switch part {
            case .preamble: preamble
            case .content: content
            case .postamble: postamble
            }
        }
    }

    /// Where a node's parts go when it is inserted.
    public enum InsertionPoint: Hashable, Sendable {
        /// As the first thing in the document.
        case start
        /// Right after the node's postamble: the node becomes its next sibling.
        case after(Key)
        /// Right after the node's content part: the node becomes its first child.
        case firstChild(of: Key)
    }

    /// A node to insert, with the lengths of its parts and its children in order.
    public struct Subtree: Hashable, Sendable {
        public var key: Key
        public var lengths: Lengths
        public var children: [Subtree]

        public init(key: Key, lengths: Lengths, children: [Subtree] = []) {
            self.key = key
            self.lengths = lengths
            self.children = children
        }
    }

    /// Nodes' parts in document order, built the way a walk of the document meets them: open a
    /// node (its preamble and content), add its children, close it (its postamble). What
    /// `insert(_:at:)` and ``init(parts:)`` take from a caller that walks the document
    /// anyway, without building a tree of ``Subtree`` values first.
    public struct Parts {
        @usableFromInline var flat = FlatParts<Key>()

        @inlinable
        public init() {}

        /// Whether no node was opened.
        @inlinable
        public var isEmpty: Bool { flat.nodes.isEmpty }

        /// Adds `key`'s preamble and content parts; returns the number with which to close it
        /// once its children's parts are added.
        ///
        /// - Complexity: O(1) amortized.
        @inlinable
        public mutating func open(_ key: Key, preamble: Int, content: Int) -> Int {
            flat.open(key, preamble: preamble, content: content)
        }

        /// Adds the postamble of the node opened as number `node`.
        ///
        /// - Complexity: O(1) amortized.
        @inlinable
        public mutating func close(_ node: Int, _ key: Key, postamble: Int) {
            flat.close(node, key, postamble: postamble)
        }
    }

    @usableFromInline var storage: TreapStorage<Key>

    /// An empty index.
    @inlinable
    public init() {
        storage = TreapStorage(seed: 0x5EED_1DE7)
    }

    /// An index holding `document`, built in one pass.
    ///
    /// - Throws: `PositionIndexError.duplicateKey` if a key appears twice.
    /// - Complexity: O(n) for n nodes.
    @inlinable
    public init(document: Subtree) throws(PositionIndexError) {
        var parts = Parts()
        Self.flatten(document, into: &parts.flat)
        try self.init(parts: parts)
    }

    /// An index holding the nodes of `parts` (a whole document, walked), built in one pass.
    ///
    /// - Throws: `PositionIndexError.duplicateKey` if a key appears twice.
    /// - Complexity: O(n) for n nodes.
    @inlinable
    public init(parts: Parts) throws(PositionIndexError) {
        self.init()
        try storage.insert(parts.flat, after: nil)
    }

    // MARK: Queries

    /// The total length of the flat string.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var totalLength: Int { storage.totalLength }

    /// The number of nodes in the index.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var nodeCount: Int { storage.handles.count }

    /// Whether `key` has entries.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    public func contains(_ key: Key) -> Bool { storage.handles[key] != nil }

    /// The lengths of `key`'s parts.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    public func lengths(of key: Key) throws(PositionIndexError) -> Lengths {
        let handles = try storage.handlesOf(key)
        return Lengths(
            preamble: storage.length(at: handles.preamble),
            content: storage.length(at: handles.content),
            postamble: storage.length(at: handles.postamble)
        )
    }

    /// The location where `key`'s `part` starts.
    ///
    /// - Complexity: O(log n).
    @inlinable
    public func location(of key: Key, part: Part) throws(PositionIndexError) -> Int {
        let handles = try storage.handlesOf(key)
        return storage.location(of: handles[part])
    }

    /// The range `key` covers: from the start of its preamble to the end of its postamble, its
    /// descendants included.
    ///
    /// - Complexity: O(log n).
    @inlinable
    public func range(of key: Key) throws(PositionIndexError) -> Range<Int> {
        let handles = try storage.handlesOf(key)
        let start = storage.location(of: handles.preamble)
        let end = storage.location(of: handles.postamble) + storage.length(at: handles.postamble)
        return start..<end
    }

    /// The range of `key`'s children: from the end of its content part to the start of its
    /// postamble.
    ///
    /// - Complexity: O(log n).
    @inlinable
    public func childrenRange(of key: Key) throws(PositionIndexError) -> Range<Int> {
        let handles = try storage.handlesOf(key)
        let start = storage.location(of: handles.content) + storage.length(at: handles.content)
        return start..<storage.location(of: handles.postamble)
    }

    /// Every entry whose closed range [location, location + length] contains `location`, in
    /// document order: the part ending there, zero-length parts sitting there, and the part
    /// starting or continuing there. This is what resolving a location to a point needs.
    ///
    /// - Throws: `PositionIndexError.locationOutOfBounds` when `location` is not in 0...totalLength.
    /// - Complexity: O(log n + k) for k entries returned.
    @inlinable
    public func entries(touching location: Int) throws(PositionIndexError) -> [Entry] {
        guard location >= 0, location <= totalLength else {
            throw .locationOutOfBounds(location, length: totalLength)
        }
        var result: [Entry] = []
        var cursor = storage.firstEntry(endingAtOrAfter: location)
        while let (index, start) = cursor, start <= location {
            let node = storage.entry(at: index)
            result.append(Entry(key: node.key, part: node.part, location: start, length: node.length))
            cursor = storage.successor(of: index).map { ($0, start + node.length) }
        }
        return result
    }

    /// Every entry that overlaps `range` by at least one unit, in document order: the per-node
    /// pieces of a selection or an edit. For an empty range, the entries touching its location.
    ///
    /// - Complexity: O(log n + k) for k entries returned.
    @inlinable
    public func entries(overlapping range: Range<Int>) throws(PositionIndexError) -> [Entry] {
        guard range.lowerBound >= 0, range.upperBound <= totalLength else {
            throw .rangeOutOfBounds(range, length: totalLength)
        }
        if range.isEmpty { return try entries(touching: range.lowerBound) }
        var result: [Entry] = []
        var cursor = storage.firstEntry(endingAtOrAfter: range.lowerBound + 1)
        while let (index, start) = cursor, start < range.upperBound {
            let node = storage.entry(at: index)
            if node.length > 0 {
                result.append(Entry(key: node.key, part: node.part, location: start, length: node.length))
            }
            cursor = storage.successor(of: index).map { ($0, start + node.length) }
        }
        return result
    }

    /// All entries in document order, for invariant checks and debugging.
    ///
    /// - Complexity: O(n).
    @inlinable
    public var allEntries: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(storage.treap.liveCount)
        var location = 0
        storage.inOrder { node in
            result.append(Entry(key: node.key, part: node.part, location: location, length: node.length))
            location += node.length
        }
        return result
    }

    // MARK: Updates

    /// Sets the length of one part of a node.
    ///
    /// - Complexity: O(log n).
    @inlinable
    public mutating func setLength(_ length: Int, of key: Key, part: Part) throws(PositionIndexError) {
        guard length >= 0 else { throw .negativeLength(length) }
        let handles = try storage.handlesOf(key)
        makeUnique()
        storage.setLength(length, at: handles[part])
    }

    /// Inserts a node (with its children) at `point`.
    ///
    /// - Throws: `.duplicateKey` if any key is already present, `.keyNotFound` for an unknown anchor.
    /// - Complexity: O(s + log n) for a subtree of s nodes.
    @inlinable
    public mutating func insert(_ subtree: Subtree, at point: InsertionPoint) throws(PositionIndexError) {
        try insert([subtree], at: point)
    }

    /// Inserts consecutive siblings (each with its children) at `point`, in one splice.
    ///
    /// - Throws: `.duplicateKey` if any key is already present, `.keyNotFound` for an unknown anchor.
    /// - Complexity: O(s + log n) for s nodes in all.
    @inlinable
    public mutating func insert(_ subtrees: [Subtree], at point: InsertionPoint) throws(PositionIndexError) {
        var parts = Parts()
        for subtree in subtrees { Self.flatten(subtree, into: &parts.flat) }
        try insert(parts, at: point)
    }

    /// Inserts the nodes of `parts` (consecutive siblings, each with its descendants) at
    /// `point`, in one splice.
    ///
    /// - Throws: `.duplicateKey` if any key is already present, `.keyNotFound` for an unknown anchor.
    /// - Complexity: O(s + log n) for s nodes in all.
    @inlinable
    public mutating func insert(_ parts: Parts, at point: InsertionPoint) throws(PositionIndexError) {
        guard !parts.isEmpty else { return }
        let slot: Int32?
        switch point {
        case .start:
            slot = nil
        case .after(let anchor):
            slot = try storage.handlesOf(anchor).postamble
        case .firstChild(let parent):
            slot = try storage.handlesOf(parent).content
        }
        makeUnique()
        try storage.insert(parts.flat, after: slot)
    }

    /// Removes a node and everything between its preamble and postamble (its descendants).
    /// Returns the removed keys in document order.
    ///
    /// - Complexity: O(s + log n) for a subtree of s nodes.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key) throws(PositionIndexError) -> [Key] {
        let handles = try storage.handlesOf(key)
        makeUnique()
        return storage.removeRange(from: handles.preamble, through: handles.postamble)
    }

    /// Appends `subtree`'s parts in document order; keys are checked when they are stored.
    ///
    /// - Complexity: O(s) for s nodes.
    @inlinable
    static func flatten(_ subtree: Subtree, into parts: inout FlatParts<Key>) {
        // Iterative, so that a deep document cannot overflow the stack.
        var stack: [FlattenStep] = [.open(subtree)]
        while let step = stack.popLast() {
            switch step {
            case .open(let node):
                let number = parts.open(node.key, preamble: node.lengths.preamble, content: node.lengths.content)
                stack.append(.close(number, node.key, node.lengths.postamble))
                for child in node.children.reversed() { stack.append(.open(child)) }
            case .close(let number, let key, let length):
                parts.close(number, key, postamble: length)
            }
        }
    }

    @usableFromInline
    enum FlattenStep {
        case open(Subtree)
        case close(Int, Key, Int)
    }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }
}

/// A position-index request that could not be served; nothing was changed.
public enum PositionIndexError: Error, Hashable, Sendable, CustomStringConvertible {
    case keyNotFound(String)
    case duplicateKey(String)
    case locationOutOfBounds(Int, length: Int)
    case rangeOutOfBounds(Range<Int>, length: Int)
    case negativeLength(Int)

    public var description: String {
        switch self {
        case .keyNotFound(let key): "no node \(key) in the position index"
        case .duplicateKey(let key): "node \(key) is already in the position index"
        case .locationOutOfBounds(let location, let length): "location \(location) is outside 0...\(length)"
        case .rangeOutOfBounds(let range, let length): "range \(range.lowerBound)..<\(range.upperBound) is outside 0...\(length)"
        case .negativeLength(let length): "a length cannot be negative (\(length))"
        }
    }
}
