import Foundation
import QuireEditor
import QuireReconciler
import QuireTextStorage

/// A named range of the text to highlight: a search match, a misspelling, a token class.
public struct Highlight: Hashable, Sendable {
    /// UTF-16 range of the flat string.
    public var range: Range<Int>
    /// What the highlight is ("search", "spelling", …); a view styles each name its own way.
    public var name: String

    /// A highlight.
    public init(_ range: Range<Int>, name: String) {
        self.range = range
        self.name = name
    }
}

/// Produces highlights for a text: the app's search, spell checker or syntax colouring.
public protocol Highlighter {
    /// The highlights of `text` (the flat string), in any order; overlapping ranges of one name
    /// merge.
    func highlights(in text: String) -> [Highlight]
}

/// Highlights every occurrence of a string (a find bar's matches).
public struct MatchHighlighter: Highlighter, Hashable, Sendable {
    /// What to find; empty finds nothing.
    public var pattern: String
    /// The highlights' name.
    public var name: String

    /// A highlighter for `pattern`.
    public init(pattern: String, name: String = "search") {
        self.pattern = pattern
        self.name = name
    }

    /// - Complexity: O(n · m) for the pattern's length m.
    public func highlights(in text: String) -> [Highlight] {
        let needle = Array(pattern.utf16)
        guard !needle.isEmpty else { return [] }
        let haystack = Array(text.utf16)
        var result: [Highlight] = []
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) {
                result.append(Highlight(start..<(start + needle.count), name: name))
                start += needle.count
            } else {
                start += 1
            }
        }
        return result
    }
}

/// One attribute write of a highlighting pass: `name` turned on or off over `range`.
public struct HighlightChange: Hashable, Sendable {
    public var name: String
    public var range: Range<Int>
    public var isOn: Bool

    /// A change.
    public init(name: String, range: Range<Int>, isOn: Bool) {
        self.name = name
        self.range = range
        self.isOn = isOn
    }
}

/// Where highlights are shown.
///
/// A `TextStorage` no editor owns takes them as attributes (``HighlightAttribute/key(for:)``).
/// For an editor's storage, whose attributes are the reconciler's (its invariant compares them
/// with a render of the document), highlights go to a ``HighlightLayer`` the view draws over the
/// text instead, as TextKit's temporary or rendering attributes do.
public protocol HighlightTarget: AnyObject {
    /// Whether text inserted next to a highlight may carry it (a storage's typing attributes
    /// come from the character before the caret): the next pass then rewrites what was inserted.
    var insertedTextMayCarryHighlights: Bool { get }
    /// Applies one pass's changes, all at once.
    func write(_ changes: [HighlightChange]) throws(InteractionError)
    /// The text changed: `edit.range` (of the text before) now holds `edit.replacement`. A target
    /// that keeps ranges of its own moves them.
    func textDidChange(_ edit: FlatTextEdit)
}

/// The attribute a storage shows a highlight with.
public enum HighlightAttribute {
    /// `quire.highlight.NAME`, character scope, value `true`: one key per name, so highlights of
    /// different names overlap freely.
    public static func key(for name: String) -> AttributeKey { AttributeKey("quire.highlight.\(name)") }
}

extension TextStorage: HighlightTarget {
    public var insertedTextMayCarryHighlights: Bool { true }

    /// Writes the changes as the controller, in one editing session: attributes only, so the
    /// text, the selection and the typing attributes stay.
    public func write(_ changes: [HighlightChange]) throws(InteractionError) {
        guard !changes.isEmpty else { return }
        do {
            try performControllerEdit { (storage) throws(TextStorageError) in
                for change in changes {
                    let range = NSRange(change.range)
                    let key = HighlightAttribute.key(for: change.name)
                    if change.isOn {
                        try storage.addAttribute(key, value: true, range: range)
                    } else {
                        try storage.removeAttribute(key, range: range)
                    }
                }
            }
        } catch {
            throw .storage(error)
        }
    }

    /// A storage moves its attributes with its text itself.
    public func textDidChange(_ edit: FlatTextEdit) {}
}

/// Highlights kept beside the text, for a view to draw over it: what an editor's highlights go
/// to. Its ranges move with the text; inserted text is never highlighted until the next pass.
public final class HighlightLayer: HighlightTarget {
    /// The highlighted ranges per name.
    public private(set) var ranges: [String: RangeSet<Int>] = [:]
    /// How many changes were written, over the layer's life (what the incremental passes save).
    public private(set) var writtenChanges = 0

    /// An empty layer.
    public init() {}

    public var insertedTextMayCarryHighlights: Bool { false }

    /// - Complexity: O(c · r) for c changes and r ranges of a name.
    public func write(_ changes: [HighlightChange]) throws(InteractionError) {
        for change in changes {
            var set = ranges[change.name] ?? RangeSet()
            if change.isOn { set.insert(contentsOf: change.range) } else { set.remove(contentsOf: change.range) }
            ranges[change.name] = set.isEmpty ? nil : set
        }
        writtenChanges += changes.count
    }

    /// - Complexity: O(r) over all ranges.
    public func textDidChange(_ edit: FlatTextEdit) {
        for (name, set) in ranges {
            let mapped = HighlightSet.map(set, through: edit)
            ranges[name] = mapped.isEmpty ? nil : mapped
        }
    }

    /// The highlights as a list, by name then position.
    public var highlights: [Highlight] {
        ranges.keys.sorted().flatMap { name in ranges[name]!.ranges.map { Highlight($0, name: name) } }
    }
}

/// Named range sets: the highlights a pass wants, or what a target shows.
enum HighlightSet {
    /// `set` carried through `edit`: ranges before it stay, ranges after it shift, the replaced
    /// part goes and the inserted text is not covered.
    ///
    /// - Complexity: O(r).
    static func map(_ set: RangeSet<Int>, through edit: FlatTextEdit) -> RangeSet<Int> {
        var result = RangeSet<Int>()
        let delta = edit.lengthChange
        for range in set.ranges {
            let beforeEnd = min(range.upperBound, edit.range.lowerBound)
            if range.lowerBound < beforeEnd { result.insert(contentsOf: range.lowerBound..<beforeEnd) }
            let afterStart = max(range.lowerBound, edit.range.upperBound)
            if afterStart < range.upperBound { result.insert(contentsOf: (afterStart + delta)..<(range.upperBound + delta)) }
        }
        return result
    }

    /// The union of each name's ranges.
    static func make(_ highlights: [Highlight]) -> [String: RangeSet<Int>] {
        var sets: [String: RangeSet<Int>] = [:]
        for highlight in highlights { sets[highlight.name, default: RangeSet()].insert(contentsOf: highlight.range) }
        return sets
    }
}

/// What one highlighting pass wrote.
public struct HighlightReport: Hashable, Sendable {
    /// The attribute writes, in the order made (removals first).
    public var changes: [HighlightChange]
    /// True when the text and the highlights were as last applied: nothing was written.
    public var isNoOp: Bool { changes.isEmpty }
}

/// Applies highlights to a target incrementally: it remembers what the target shows (carried
/// through text edits) and writes only the difference — never a remove-all sweep. A pass over
/// unchanged text with unchanged highlights writes nothing. It never touches the text, the
/// selection or the scroll position.
public final class HighlightApplier {
    /// Where the highlights go.
    public let target: any HighlightTarget
    /// What the target shows, per name, in the current text's coordinates.
    public private(set) var shown: [String: RangeSet<Int>] = [:]
    /// Text inserted since the last pass into a target whose insertions may carry highlights.
    private var uncertain = RangeSet<Int>()

    /// An applier writing to `target`, which shows no highlights yet.
    public init(target: any HighlightTarget) {
        self.target = target
    }

    /// The text changed; what is shown moves with it.
    ///
    /// - Complexity: O(r) over the shown ranges.
    public func textDidChange(_ edit: FlatTextEdit) {
        target.textDidChange(edit)
        for (name, set) in shown {
            let mapped = HighlightSet.map(set, through: edit)
            shown[name] = mapped.isEmpty ? nil : mapped
        }
        uncertain = HighlightSet.map(uncertain, through: edit)
        if target.insertedTextMayCarryHighlights, edit.replacementLength > 0 {
            uncertain.insert(contentsOf: edit.range.lowerBound..<(edit.range.lowerBound + edit.replacementLength))
        }
    }

    /// Shows `highlights` over a text of `length` UTF-16 units, writing only what differs from
    /// what the target shows.
    ///
    /// - Throws: `InteractionError.highlightOutOfBounds` for an empty or out-of-range highlight;
    ///   the target's error for a refused write. Nothing is written then.
    /// - Complexity: O(h + r) for the highlights and the shown ranges, plus the writes.
    @discardableResult
    public func apply(_ highlights: [Highlight], length: Int) throws(InteractionError) -> HighlightReport {
        for highlight in highlights where highlight.range.isEmpty || highlight.range.lowerBound < 0 || highlight.range.upperBound > length {
            throw .highlightOutOfBounds(highlight, length: length)
        }
        let wanted = HighlightSet.make(highlights)
        if uncertain.isEmpty && wanted == shown { return HighlightReport(changes: []) }
        var removals: [HighlightChange] = []
        var additions: [HighlightChange] = []
        for name in Set(wanted.keys).union(shown.keys).sorted() {
            let want = wanted[name] ?? RangeSet()
            let have = shown[name] ?? RangeSet()
            var off = have.subtracting(want)
            var on = want.subtracting(have)
            // Inserted text may have taken a neighbour's highlight: where it should not have it,
            // it is removed; where it should, it is written again.
            for range in uncertain.ranges where have.contains(range.lowerBound - 1) || have.contains(range.upperBound) {
                off.formUnion(RangeSet(range).subtracting(want))
            }
            on.formUnion(want.intersection(uncertain))
            removals += off.ranges.map { HighlightChange(name: name, range: $0, isOn: false) }
            additions += on.ranges.map { HighlightChange(name: name, range: $0, isOn: true) }
        }
        let changes = removals + additions
        try target.write(changes)
        shown = wanted
        uncertain = RangeSet()
        return HighlightReport(changes: changes)
    }
}
