/// Paragraph separators, as NSString's paragraph functions see them (each one ends a paragraph;
/// "\r\n" therefore counts as two).
@inline(__always)
func isParagraphSeparator(_ unit: UInt16) -> Bool {
    unit == 0x0A || unit == 0x0D || unit == 0x2029
}

/// A piece of the text. Chunks hold between about half and all of `capacity` units, so that an
/// edit copies a bounded amount while the tree stays small (about `n / capacity` nodes).
struct TextChunk: TreeElement {
    var units: [UInt16]
    var breakCount: Int
    /// The most units a chunk holds; stored per chunk so tests can use tiny chunks.
    let capacity: Int

    init(_ units: [UInt16], capacity: Int) {
        self.units = units
        self.breakCount = units.reduce(0) { $0 + (isParagraphSeparator($1) ? 1 : 0) }
        self.capacity = capacity
    }

    var summary: TreeSummary { TreeSummary(length: units.count, breaks: breakCount) }

    /// - Complexity: O(capacity).
    func split(at offset: Int) -> (TextChunk, TextChunk) {
        (TextChunk(Array(units[..<offset]), capacity: capacity), TextChunk(Array(units[offset...]), capacity: capacity))
    }

    /// Concatenates the pieces and cuts them into chunks of nearly equal size, none above
    /// `capacity`.
    ///
    /// - Complexity: O(k) for k units in the pieces.
    static func normalize(_ elements: [TextChunk]) -> [TextChunk] {
        guard let capacity = elements.first?.capacity else { return [] }
        let total = elements.reduce(0) { $0 + $1.units.count }
        if total == 0 { return [] }
        var all: [UInt16] = []
        all.reserveCapacity(total)
        for element in elements { all.append(contentsOf: element.units) }
        return chunks(of: all, capacity: capacity)
    }

    /// Underfull chunks are joined with their neighbour and the pair re-cut evenly, which keeps
    /// every chunk at least about half full.
    ///
    /// - Complexity: O(1).
    static func needsJoin(_ left: TextChunk, _ right: TextChunk) -> Bool {
        let half = left.capacity / 2
        return left.units.count < half || right.units.count < half || left.units.count + right.units.count <= left.capacity
    }

    /// Cuts `units` into chunks of nearly equal size, none above `capacity`.
    ///
    /// - Complexity: O(n): each chunk is copied out of the array at once.
    static func chunks(of units: [UInt16], capacity: Int) -> [TextChunk] {
        pieces(count: units.count, capacity: capacity).map { TextChunk(Array(units[$0]), capacity: capacity) }
    }

    /// Cuts `count` units read in order from `units` (a string's UTF-16 view, say, so that a large
    /// text is never copied into one big array first) into chunks of nearly equal size.
    ///
    /// - Complexity: O(n).
    static func chunks(of units: some Sequence<UInt16>, count total: Int, capacity: Int) -> [TextChunk] {
        var iterator = units.makeIterator()
        return pieces(count: total, capacity: capacity).map { range in
            var piece: [UInt16] = []
            piece.reserveCapacity(range.count)
            for _ in range {
                guard let unit = iterator.next() else { preconditionFailure("fewer units than counted") }
                piece.append(unit)
            }
            return TextChunk(piece, capacity: capacity)
        }
    }

    /// The ranges of `total` units that chunks of nearly equal size, none above `capacity`, hold.
    ///
    /// - Complexity: O(total / capacity).
    private static func pieces(count total: Int, capacity: Int) -> [Range<Int>] {
        guard total > 0 else { return [] }
        let count = (total + capacity - 1) / capacity
        return (0..<count).map { index in (total * index / count)..<(total * (index + 1) / count) }
    }

    /// - Complexity: O(offset), O(1) for the whole chunk.
    func breaks(before offset: Int) -> Int {
        if offset >= units.count { return breakCount }
        return units[..<offset].reduce(0) { $0 + (isParagraphSeparator($1) ? 1 : 0) }
    }

    /// Replaces `range` of the chunk with `replacement`, keeping the separator count exact.
    ///
    /// - Complexity: O(capacity).
    mutating func replace(_ range: Range<Int>, with replacement: [UInt16]) {
        let removed = units[range].reduce(0) { $0 + (isParagraphSeparator($1) ? 1 : 0) }
        let added = replacement.reduce(0) { $0 + (isParagraphSeparator($1) ? 1 : 0) }
        units.replaceSubrange(range, with: replacement)
        breakCount += added - removed
    }

    /// - Complexity: O(1).
    mutating func release() {
        units = []
        breakCount = 0
    }

    /// - Complexity: O(capacity).
    func offsetOfBreak(_ ordinal: Int) -> Int {
        var seen = 0
        for (index, unit) in units.enumerated() where isParagraphSeparator(unit) {
            seen += 1
            if seen == ordinal { return index }
        }
        preconditionFailure("chunk holds fewer paragraph separators than asked for")
    }
}

/// A stretch of text with one set of attributes.
struct RunElement: TreeElement {
    var length: Int
    var attributes: Attributes

    var summary: TreeSummary { TreeSummary(length: length, breaks: 0, scopes: attributes.scopes) }

    /// - Complexity: O(1).
    func split(at offset: Int) -> (RunElement, RunElement) {
        (RunElement(length: offset, attributes: attributes), RunElement(length: length - offset, attributes: attributes))
    }

    /// - Complexity: O(1).
    mutating func release() {
        length = 0
        attributes = .empty
    }

    /// Neighbours with equal attributes must become one run.
    ///
    /// - Complexity: O(a) for a attributes.
    static func needsJoin(_ left: RunElement, _ right: RunElement) -> Bool {
        left.attributes == right.attributes
    }

    /// Drops empty runs and coalesces neighbours with equal attributes, so runs stay maximal.
    ///
    /// - Complexity: O(k) for k runs.
    static func normalize(_ elements: [RunElement]) -> [RunElement] {
        var result: [RunElement] = []
        result.reserveCapacity(elements.count)
        for element in elements where element.length > 0 {
            if let last = result.last, last.attributes == element.attributes {
                result[result.count - 1].length += element.length
            } else {
                result.append(element)
            }
        }
        return result
    }
}
