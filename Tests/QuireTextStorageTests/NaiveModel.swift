import Foundation
@testable import QuireTextStorage

/// The oracle for the randomized test: an array of UTF-16 units, each with its own attribute
/// dictionary. It shares no code with `TextStorage`: edited ranges come from flags on the cells
/// that were touched (and zero-width markers where text was deleted), not from range arithmetic.
struct NaiveModel {
    enum Cell {
        case unit(UInt16, Attributes, dirty: Bool, typed: Bool)
        /// Where a replacement happened; gives deletions a position in the edited range.
        case marker
    }

    var cells: [Cell] = []
    var mask: EditActions = []
    var lengthAtSessionStart = 0
    var status = TypingStatus.none
    var typingAttributes = Attributes.empty

    init(_ text: AttributedText) {
        for run in text.runs {
            let units = Array(text.string.utf16)[run.range.location..<(run.range.location + run.range.length)]
            for unit in units { cells.append(.unit(unit, run.attributes, dirty: false, typed: false)) }
        }
        lengthAtSessionStart = units.count
    }

    var units: [UInt16] {
        cells.compactMap { if case let .unit(unit, _, _, _) = $0 { return unit } else { return nil } }
    }

    var attributes: [Attributes] {
        cells.compactMap { if case let .unit(_, attributes, _, _) = $0 { return attributes } else { return nil } }
    }

    var string: String { String(decoding: units, as: UTF16.self) }

    var runs: [AttributeRun] {
        var result: [AttributeRun] = []
        for (offset, attributes) in attributes.enumerated() {
            if let last = result.last, last.attributes == attributes {
                result[result.count - 1].range.length += 1
            } else {
                result.append(AttributeRun(range: NSRange(location: offset, length: 1), attributes: attributes))
            }
        }
        return result
    }

    /// The error a range must raise, or nil when it is acceptable.
    func error(for range: NSRange) -> TextStorageError? {
        let units = self.units
        if range.location < 0 || range.length < 0 || range.location + range.length > units.count {
            return .rangeOutOfBounds(range: range, length: units.count)
        }
        for offset in [range.location, range.location + range.length]
        where offset > 0 && offset < units.count && UTF16.isLeadSurrogate(units[offset - 1])
            && UTF16.isTrailSurrogate(units[offset])
        {
            return .splitsSurrogatePair(offset: offset)
        }
        return nil
    }

    /// The cell index of the unit at UTF-16 `offset` (or the end).
    private func cellIndex(ofUnit offset: Int) -> Int {
        var seen = 0
        for (index, cell) in cells.enumerated() {
            if case .unit = cell {
                if seen == offset { return index }
                seen += 1
            }
        }
        return cells.count
    }

    mutating func replace(_ range: NSRange, units newUnits: [UInt16], attributes newAttributes: [Attributes], typed: Bool) {
        let start = cellIndex(ofUnit: range.location)
        var removed = 0
        var index = start
        while removed < range.length {
            if case .unit = cells[index] {
                cells.remove(at: index)
                removed += 1
            } else {
                index += 1
            }
        }
        var inserted: [Cell] = [.marker]
        for (unit, attributes) in zip(newUnits, newAttributes) {
            inserted.append(.unit(unit, attributes, dirty: true, typed: typed))
        }
        cells.insert(contentsOf: inserted, at: start)
        mask.insert(.characters)
        if !newUnits.isEmpty { mask.insert(.attributes) }
    }

    /// NSMutableAttributedString's rule for the attributes of plain text replacing `range`.
    func inheritedAttributes(_ range: NSRange) -> Attributes {
        let attributes = self.attributes
        if range.length > 0 { return attributes[range.location] }
        if range.location > 0 { return attributes[range.location - 1] }
        return attributes.first ?? .empty
    }

    mutating func modifyAttributes(_ range: NSRange, _ transform: (Attributes) -> Attributes) {
        guard range.length > 0 else { return }
        var seen = 0
        for index in cells.indices {
            guard case let .unit(unit, attributes, _, typed) = cells[index] else { continue }
            if seen >= range.location, seen < range.location + range.length {
                cells[index] = .unit(unit, transform(attributes), dirty: true, typed: typed)
            }
            seen += 1
        }
        mask.insert(.attributes)
    }

    /// Ends a session the way the specification says and returns what observers must receive.
    mutating func endSession() -> ExpectedChange? {
        let touched = cells.contains {
            switch $0 {
            case .marker: return true
            case let .unit(_, _, dirty, _): return dirty
            }
        }
        guard touched else {
            status = .none
            return nil
        }
        var first: Int?
        var last = 0
        var offset = 0
        for index in cells.indices {
            switch cells[index] {
            case .marker:
                first = first ?? offset
                last = max(last, offset)
            case let .unit(unit, _, dirty, typed):
                if dirty {
                    first = first ?? offset
                    last = max(last, offset + 1)
                }
                if typed {
                    cells[index] = .unit(unit, typingAttributes, dirty: dirty, typed: false)
                    mask.insert(.attributes)
                }
                offset += 1
            }
        }
        let start = first ?? 0
        let edited = NSRange(location: start, length: max(last, start) - start)
        cells.removeAll { if case .marker = $0 { return true } else { return false } }
        let units = self.units
        let invalidated = Self.paragraphs(around: edited, in: units)
        fix()
        let change = ExpectedChange(
            editedMask: mask, editedRange: edited, changeInLength: units.count - lengthAtSessionStart,
            invalidatedRange: invalidated, origin: .native, typingStatus: status)
        for index in cells.indices {
            if case let .unit(unit, attributes, _, _) = cells[index] {
                cells[index] = .unit(unit, attributes, dirty: false, typed: false)
            }
        }
        mask = []
        status = .none
        lengthAtSessionStart = units.count
        return change
    }

    static func isSeparator(_ unit: UInt16) -> Bool { unit == 10 || unit == 13 || unit == 0x2029 }

    static func paragraphs(around range: NSRange, in units: [UInt16]) -> NSRange {
        var start = range.location
        while start > 0, !isSeparator(units[start - 1]) { start -= 1 }
        var end = range.location + range.length
        if range.length == 0 || !isSeparator(units[end - 1]) {
            while end < units.count {
                end += 1
                if isSeparator(units[end - 1]) { break }
            }
        }
        return NSRange(location: start, length: end - start)
    }

    /// Whole-text fixing: attachment attributes only on U+FFFC, paragraph attributes from the
    /// first character of each paragraph.
    mutating func fix() {
        var paragraphAttributes: Attributes?
        for index in cells.indices {
            guard case let .unit(unit, attributes, dirty, typed) = cells[index] else { continue }
            var fixed = Attributes(attributes.values.filter { key, _ in
                key.scope != .attachment || unit == 0xFFFC
            })
            let paragraph = paragraphAttributes ?? fixed.filtered(scope: .paragraph)
            fixed = Attributes(fixed.values.filter { $0.key.scope != .paragraph }).merging(paragraph)
            paragraphAttributes = Self.isSeparator(unit) ? nil : paragraph
            cells[index] = .unit(unit, fixed, dirty: dirty, typed: typed)
        }
    }
}
