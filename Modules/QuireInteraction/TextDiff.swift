import QuireModel
import QuireReconciler

extension FlatTextEdit {
    /// The one edit that turns `old` into `new`: the longest common prefix, then the longest
    /// common suffix of the rest, both widened outward until each end of the edit is a
    /// grapheme-cluster boundary in both texts. An emoji with a skin tone, a ZWJ family, a flag
    /// or a letter with combining marks is therefore replaced whole or not at all, even when the
    /// two texts share its first scalars.
    ///
    /// `TextSplice.between` finds the UTF-16 prefix and suffix (it keeps surrogate pairs whole);
    /// this widens them to clusters.
    ///
    /// - Complexity: O(n) for the texts' lengths, plus O(l) per widening step for the length of
    ///   the line around the edit's ends (cluster breaking restarts at every "\n").
    public static func between(_ old: String, _ new: String) -> FlatTextEdit {
        let splice = TextSplice.between(old, new)
        let oldUnits = Array(old.utf16)
        let newUnits = Array(new.utf16)
        var prefix = splice.offset
        var suffix = oldUnits.count - prefix - splice.deleted.utf16.count
        // Each step can only move the ends outward, so both loops end; they rarely take more than
        // one step (a cluster boundary of the common part is the same in both texts except next
        // to the edit).
        while true {
            let widened = min(GraphemeBoundary.around(prefix, in: oldUnits).before, GraphemeBoundary.around(prefix, in: newUnits).before)
            if widened == prefix { break }
            prefix = widened
        }
        while true {
            let oldEnd = GraphemeBoundary.around(oldUnits.count - suffix, in: oldUnits).after
            let newEnd = GraphemeBoundary.around(newUnits.count - suffix, in: newUnits).after
            let widened = min(oldUnits.count - oldEnd, newUnits.count - newEnd)
            if widened == suffix { break }
            suffix = widened
        }
        return FlatTextEdit(
            range: prefix..<(oldUnits.count - suffix),
            replacement: String(decoding: newUnits[prefix..<(newUnits.count - suffix)], as: UTF16.self)
        )
    }

    /// The replacement's length in UTF-16 units.
    public var replacementLength: Int { replacement.utf16.count }

    /// How much longer the text is after the edit.
    public var lengthChange: Int { replacementLength - range.count }

    /// Where a location of the text before the edit is after it, for something that sticks to
    /// the character after it (a scroll anchor at the start of a line): locations before the
    /// edit stay, locations after it shift, a location inside the replaced range goes to the
    /// edit's start, and text inserted exactly at the location ends up before it.
    ///
    /// - Complexity: O(1).
    public func mapLocation(_ location: Int) -> Int {
        if location < range.lowerBound { return location }
        if location >= range.upperBound { return location + lengthChange }
        return range.lowerBound
    }
}

/// Grapheme-cluster boundaries of UTF-16 text, found locally: every "\n" ends a cluster (a
/// preceding "\r" joins it, and is inside the same line), so breaking can start at the line.
enum GraphemeBoundary {
    /// The last cluster boundary at or before `offset` and the first at or after it.
    ///
    /// - Complexity: O(l) for the length of the line containing `offset`.
    static func around(_ offset: Int, in units: [UInt16]) -> (before: Int, after: Int) {
        guard offset > 0, offset < units.count else { return (offset, offset) }
        var start = offset
        while start > 0, units[start - 1] != 0x0A { start -= 1 }
        var end = offset
        while end < units.count, units[end] != 0x0A { end += 1 }
        if end < units.count { end += 1 }
        var boundary = start
        for character in String(decoding: units[start..<end], as: UTF16.self) {
            if boundary == offset { return (offset, offset) }
            let next = boundary + character.utf16.count
            if next > offset { return (boundary, next) }
            boundary = next
        }
        return (boundary, boundary)
    }
}

/// Where a live reload leaves the selection, by the live-reload article's five cases.
///
/// The reload's edit replaces `edit.range` of the old text (from a to b) with `edit.replacement`
/// (n units, so the text grows by δ = n − (b − a)); the selection covers s...e of the old text.
/// Checked in this order:
///
/// | case | when | selection after |
/// |---|---|---|
/// | ``changeAfterSelection`` | a ≥ e (for a caret: a > s) | unchanged |
/// | ``changeBeforeSelection`` | b ≤ s, or the caret sits at a | shifted by δ; a caret at a goes after the new text (a + n) |
/// | ``changeInsideSelection`` | s ≤ a and b ≤ e | s...e + δ: it grows or shrinks with the change |
/// | ``changeStartsInSelection`` | s < a < e < b | s...a: what is left of the selected text |
/// | ``changeOverCaret`` | a ≤ s < b (what is left) | after the new text: a + n, keeping the selection's surviving tail (a + n...e + δ) when b < e |
///
/// A change starting exactly at a caret counts as before it, so the caret moves past inserted
/// text, as it does when the user types there.
public enum ReloadSelectionCase: String, Hashable, Sendable, CaseIterable {
    /// The change lies after the selection.
    case changeAfterSelection
    /// The change lies before the selection (or starts exactly at the caret).
    case changeBeforeSelection
    /// The change lies within the selection.
    case changeInsideSelection
    /// The change starts in the middle of the selection and ends after it.
    case changeStartsInSelection
    /// The change covers the selection's start (the caret): it starts before it, or at a
    /// selection's start and reaches past its end.
    case changeOverCaret

    /// The case of `selection` (UTF-16 range of the old text) for `edit`, and the selection
    /// after the edit.
    ///
    /// - Complexity: O(1).
    public static func map(_ selection: Range<Int>, through edit: FlatTextEdit) -> (case: ReloadSelectionCase, selection: Range<Int>) {
        let s = selection.lowerBound
        let e = selection.upperBound
        let a = edit.range.lowerBound
        let b = edit.range.upperBound
        let delta = edit.lengthChange
        let end = a + edit.replacementLength
        let isCaret = selection.isEmpty
        if isCaret ? a > s : a >= e {
            return (.changeAfterSelection, selection)
        }
        if b <= s || (isCaret && a == s) {
            let start = max(s, b) + delta
            return (.changeBeforeSelection, start..<(max(e, b) + delta))
        }
        if s <= a && b <= e {
            return (.changeInsideSelection, s..<(e + delta))
        }
        if s < a {
            return (.changeStartsInSelection, s..<a)
        }
        return (.changeOverCaret, b < e ? end..<(e + delta) : end..<end)
    }
}
