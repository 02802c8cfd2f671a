import Foundation

/// An immutable attributed string value: the input and output currency of `TextStorage`
/// (Linux has no usable `NSAttributedString` with our value types).
///
/// Runs are kept normalized: no empty runs and no two neighbours with equal attributes.
public struct AttributedText: Sendable, Hashable, CustomStringConvertible {
    /// The text.
    public let string: String
    /// The UTF-16 units of `string`, kept because every offset in Quire is UTF-16.
    let units: [UInt16]
    /// Run lengths and attributes in order; their lengths add up to `length`.
    let runLengths: [RunElement]

    /// The UTF-16 length.
    public var length: Int { units.count }

    /// Text with one set of attributes over all of it.
    ///
    /// - Complexity: O(n) in the UTF-16 length.
    public init(_ string: String, attributes: Attributes = .empty) {
        self.string = string
        self.units = Self.utf16Units(of: string)
        self.runLengths = units.isEmpty ? [] : [RunElement(length: units.count, attributes: attributes)]
    }

    /// Text with explicit runs given as (UTF-16 length, attributes) pairs in order.
    ///
    /// - Throws: `TextStorageError.runsDoNotCoverText` when the lengths do not add up to the
    ///   UTF-16 length, `.negativeRunLength` for a negative length, `.splitsSurrogatePair` when a
    ///   run boundary falls inside a surrogate pair.
    /// - Complexity: O(n + r) for n UTF-16 units and r runs.
    public init(_ string: String, runs: [(length: Int, attributes: Attributes)]) throws(TextStorageError) {
        let units = Self.utf16Units(of: string)
        var offset = 0
        for run in runs {
            guard run.length >= 0 else { throw .negativeRunLength(offset: offset, length: run.length) }
            offset += run.length
            if offset > 0, offset < units.count, UTF16.isLeadSurrogate(units[offset - 1]),
                UTF16.isTrailSurrogate(units[offset])
            {
                throw .splitsSurrogatePair(offset: offset)
            }
        }
        guard offset == units.count else { throw .runsDoNotCoverText(runsLength: offset, length: units.count) }
        self.string = string
        self.units = units
        self.runLengths = RunElement.normalize(runs.map { RunElement(length: $0.length, attributes: $0.attributes) })
    }

    /// The UTF-16 units of `string`. ASCII text (most text) is widened byte by byte, several
    /// times faster than walking its UTF-16 view (a 2,000-paragraph paste spent 5% of its
    /// instructions there).
    ///
    /// - Complexity: O(n).
    static func utf16Units(of string: String) -> [UInt16] {
        var text = string
        let ascii = text.withUTF8 { bytes -> [UInt16]? in
            // Plain loops over the bytes, which the compiler vectorizes.
            var high: UInt8 = 0
            for byte in bytes { high |= byte }
            guard high < 0x80 else { return nil }
            return [UInt16](unsafeUninitializedCapacity: bytes.count) { units, count in
                for index in 0..<bytes.count { units[index] = UInt16(bytes[index]) }
                count = bytes.count
            }
        }
        return ascii ?? Array(string.utf16)
    }

    init(units: [UInt16], runs: [RunElement]) {
        self.units = units
        self.string = String(decoding: units, as: UTF16.self)
        self.runLengths = RunElement.normalize(runs)
    }

    /// Text whose string is already at hand (decoding UTF-16 is the slow part of making one).
    init(string: String, units: [UInt16], runs: [RunElement]) {
        self.units = units
        self.string = string
        self.runLengths = RunElement.normalize(runs)
    }

    /// The UTF-16 units of the text.
    ///
    /// - Complexity: O(1).
    public var utf16: [UInt16] { units }

    /// The part of the text in the UTF-16 `range`, with its runs.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds` for a range outside the text,
    ///   `.splitsSurrogatePair` for a bound inside a surrogate pair.
    /// - Complexity: O(k + r) for k units in the range and r runs.
    public func slice(_ range: Range<Int>) throws(TextStorageError) -> AttributedText {
        guard range.lowerBound >= 0, range.upperBound <= units.count else {
            throw .rangeOutOfBounds(range: NSRange(location: range.lowerBound, length: range.count), length: units.count)
        }
        for bound in [range.lowerBound, range.upperBound] where bound > 0 && bound < units.count
            && UTF16.isLeadSurrogate(units[bound - 1]) && UTF16.isTrailSurrogate(units[bound]) {
            throw .splitsSurrogatePair(offset: bound)
        }
        var sliced: [RunElement] = []
        var start = 0
        for run in runLengths {
            let end = start + run.length
            let overlap = min(end, range.upperBound) - max(start, range.lowerBound)
            if overlap > 0 { sliced.append(RunElement(length: overlap, attributes: run.attributes)) }
            if end >= range.upperBound { break }
            start = end
        }
        // The string is cut out of `string` (a copy of its UTF-8 bytes; both bounds fall between
        // scalars, checked above) rather than decoded again from the units.
        let view = string.utf16
        let lower = view.index(view.startIndex, offsetBy: range.lowerBound)
        let upper = view.index(lower, offsetBy: range.count)
        return AttributedText(string: String(string.unicodeScalars[lower..<upper]), units: Array(units[range]), runs: sliced)
    }

    /// The runs with their ranges.
    ///
    /// - Complexity: O(r) for r runs.
    public var runs: [AttributeRun] {
        var offset = 0
        return runLengths.map { run in
            defer { offset += run.length }
            return AttributeRun(range: NSRange(location: offset, length: run.length), attributes: run.attributes)
        }
    }

    /// The text with every run's attributes replaced by `attributes`.
    public func settingAttributes(_ attributes: Attributes) -> AttributedText {
        AttributedText(string: string, units: units, runs: [RunElement(length: units.count, attributes: attributes)])
    }

    /// Equal text and equal runs.
    public static func == (lhs: AttributedText, rhs: AttributedText) -> Bool {
        lhs.units == rhs.units && lhs.runs == rhs.runs
    }

    /// Hashes the text and the runs.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(units)
        hasher.combine(runs)
    }

    /// Each run's text followed by its attributes, for logs and test failures.
    public var description: String {
        runs.map { run in
            let slice = units[run.range.location..<(run.range.location + run.range.length)]
            return "\(String(decoding: slice, as: UTF16.self).debugDescription)\(run.attributes)"
        }.joined(separator: " ")
    }
}
