extension CRDTDocument {
    /// Part of a rich text as a delta of inserts with their attributes (null-valued keys
    /// omitted): what ``toDelta(_:)`` gives for the whole text, for `range` only.
    ///
    /// - Throws: `CRDTError.outOfBounds` when `range` is not inside the text,
    ///   `.wrongContainerType` for a container that is not a text.
    /// - Complexity: O(M · log n + k) for M marks in the text and k elements in the range.
    public func richText(_ c: ContainerID, in range: Range<Int>, unit: TextUnit = .unicodeScalar) throws(CRDTError) -> [TextDelta] {
        try check(c, .text)
        let length = length(of: c, unit: unit)
        guard range.lowerBound >= 0, range.upperBound <= length else {
            throw .outOfBounds(container: c, position: range.upperBound, length: length, unit: unit)
        }
        let a = try convert(range.lowerBound, from: unit, to: .unicodeScalar, in: c)
        let b = try convert(range.upperBound, from: unit, to: .unicodeScalar, in: c)
        guard b > a, let seq = s.sequences[c] else { return [] }
        // Runs split where a mark starts or ends; as in `toDelta`, neighbours with equal
        // attributes are one insert.
        var pieces: [(count: Int, attributes: [String: CRDTValue])] = []
        for (count, attributes) in s.styledRuns(seq, c, from: a, count: b - a) {
            let visible = attributes.filter { $0.value != .null }
            if let last = pieces.last, last.attributes == visible { pieces[pieces.count - 1].count += count } else { pieces.append((count, visible)) }
        }
        var out: [TextDelta] = []
        var offset = a
        for (count, attributes) in pieces {
            out.append(.insert(try slice(c, offset..<(offset + count)), attributes: attributes))
            offset += count
        }
        return out
    }
}
