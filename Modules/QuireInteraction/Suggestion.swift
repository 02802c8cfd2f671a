import Foundation
import QuireEditor
import QuireModel
import QuirePositionIndex
import QuireSelection
import QuireTextStorage

/// What a suggestion (a keyboard's suggestion strip, an autocomplete pick) replaces.
public enum SuggestionReplacement: Hashable, Sendable {
    /// The selection; at a caret, nothing (the word is inserted there).
    case selection
    /// At a caret, the partial word before it (letters, digits and connecting punctuation such
    /// as "_"); a non-empty selection is replaced as with ``selection``.
    case word
}

/// What a suggestion insertion did.
public enum SuggestionOutcome: Hashable, Sendable {
    /// The word went in: `range` is what the text now holds in its place (the word and the
    /// space after it, in UTF-16 units of the new text), `caret` is right after the space.
    case inserted(range: Range<Int>, caret: Int)
    /// Marked text is being composed; the IME owns the text around the caret, so nothing was
    /// done.
    case ignoredDuringComposition
}

/// The rules shared by the editor's and the bare storage's suggestion insertion.
enum SuggestionRules {
    /// The word as inserted: trailing spaces and tabs go (exactly one space follows it).
    static func word(_ suggestion: String) throws(InteractionError) -> String {
        var word = Substring(suggestion)
        while let last = word.last, last == " " || last == "\t" { word = word.dropLast() }
        guard !word.isEmpty else { throw .emptySuggestion }
        return String(word)
    }

    /// Letters, digits and connecting punctuation, by the cluster's first scalar.
    static func isWordCharacter(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber, .connectorPunctuation:
            return true
        default:
            return false
        }
    }

    static func isSpaceOrTab(_ unit: UInt16) -> Bool { unit == 0x20 || unit == 0x09 }

    /// The UTF-16 location where the partial word ending at `end` starts, reading the text before
    /// `end` through `read` in growing windows.
    ///
    /// - Complexity: O(w) for the word's length (windows grow fourfold).
    static func wordStart(before end: Int, read: (Range<Int>) throws(InteractionError) -> String) throws(InteractionError) -> Int {
        var window = 32
        while true {
            let lower = max(0, end - window)
            let text = try read(lower..<end)
            var length = 0
            var stoppedAtFirstCluster = false
            var remaining = text.count
            for character in text.reversed() {
                remaining -= 1
                guard isWordCharacter(character) else {
                    stoppedAtFirstCluster = remaining == 0
                    break
                }
                length += character.utf16.count
            }
            // The window's first cluster may be the cut-off tail of a longer one: only a stop
            // after it, or the text's start, is certain.
            let reachedWindowStart = length == text.utf16.count || stoppedAtFirstCluster
            if lower == 0 || !reachedWindowStart { return end - length }
            window *= 4
        }
    }
}

extension Editor {
    /// Inserts a suggested word the way a suggestion strip does: it replaces the selection (or,
    /// with `.word`, the partial word before the caret), adds exactly one space after it unless
    /// the text after it already starts with a space or tab (which the caret then moves past),
    /// and leaves the caret right after that space.
    ///
    /// The commit is a local one without a tag, so it is one undo step of its own: never merged
    /// with the typing before or after it.
    ///
    /// - Returns: what was inserted, or `.ignoredDuringComposition` while marked text is being
    ///   composed (nothing changes then).
    /// - Throws: `InteractionError.emptySuggestion` for a word of only spaces and tabs;
    ///   `.editor` when the commit is refused. Nothing changes.
    /// - Complexity: O(log n + w) for the word's length, plus the commit.
    @discardableResult
    public func insertSuggestion(_ suggestion: String, replacing: SuggestionReplacement = .selection) throws(InteractionError) -> SuggestionOutcome {
        let word = try SuggestionRules.word(suggestion)
        if storage?.isComposing == true { return .ignoredDuringComposition }
        guard let selection = state.selection else { throw .editor(.model(.noSelection)) }
        let range: Range<Int>
        do { range = try SelectionMapper.range(of: selection, in: state, index: reconciler.index).range } catch {
            throw .editor(.selection(error))
        }
        var start = range.lowerBound
        if replacing == .word, range.isEmpty {
            start = try SuggestionRules.wordStart(before: range.upperBound) { (window) throws(InteractionError) in try flatText(in: window) }
        }
        // A space or tab of the text right after the insertion is replaced by itself, so that the
        // caret lands after it in the same commit; anything else gets a space.
        var replacedEnd = range.upperBound
        var inserted = word + " "
        if let following = try followingTextSpace(at: range.upperBound) {
            replacedEnd += 1
            inserted = word + following
        }
        let target: RangeSelection
        do { target = try SelectionMapper.selection(for: start..<replacedEnd, in: state, index: reconciler.index) } catch {
            throw .editor(.selection(error))
        }
        // Over a range the word takes the replaced text's format, at a caret the caret's (as typing).
        var format = selection.format
        var style = selection.style
        if start < range.upperBound, target.anchor.kind == .text, let node = state[target.anchor.key] {
            format = node.textFormat
            style = node.textStyle
        }
        do throws(EditorError) {
            try update { (state: inout EditorState) throws(ModelError) in
                state.selection = RangeSelection(anchor: target.anchor, focus: target.focus, format: format, style: style)
                try state.insertInput(inserted)
            }
        } catch {
            throw InteractionError(error)
        }
        let caret = start + inserted.utf16.count
        return .inserted(range: start..<caret, caret: caret)
    }

    /// The space or tab at `location` when it is a character of a text node (not a table cell's
    /// separator or a block's postamble).
    ///
    /// - Complexity: O(log n).
    private func followingTextSpace(at location: Int) throws(InteractionError) -> String? {
        guard location < reconciler.index.totalLength else { return nil }
        let entries: [PositionIndex<NodeKey>.Entry]
        do { entries = try reconciler.index.entries(overlapping: location..<(location + 1)) } catch {
            throw .editor(.selection(.locationOutOfBounds(location, length: reconciler.index.totalLength)))
        }
        guard let entry = entries.first(where: { $0.length > 0 }), entry.part == .content,
              let node = state[entry.key], node.role == .text else { return nil }
        let units = Array(node.text.utf16)
        let unit = units[location - entry.location]
        return SuggestionRules.isSpaceOrTab(unit) ? String(decoding: [unit], as: UTF16.self) : nil
    }
}

extension TextStorage {
    /// Inserts a suggested word into a storage no editor owns, with the rules of
    /// `Editor.insertSuggestion(_:replacing:)`: the word replaces the selection (or the partial
    /// word before the caret), exactly one space follows it unless a space or tab already does,
    /// and the selection ends as a caret after that space. The word is typed (it gets the typing
    /// attributes). For a storage an editor owns, use the editor's method.
    ///
    /// - Returns: what was inserted, or `.ignoredDuringComposition` while marked text is being
    ///   composed (nothing changes then).
    /// - Throws: `InteractionError.emptySuggestion`; `.storage` when the storage refuses the
    ///   edit. Nothing changes.
    /// - Complexity: O(log n + w).
    @discardableResult
    public func insertSuggestion(_ suggestion: String, replacing: SuggestionReplacement = .selection) throws(InteractionError) -> SuggestionOutcome {
        let word = try SuggestionRules.word(suggestion)
        if isComposing { return .ignoredDuringComposition }
        let end = selectedRange.location + selectedRange.length
        var start = selectedRange.location
        if replacing == .word, selectedRange.length == 0 {
            start = try SuggestionRules.wordStart(before: end) { (window) throws(InteractionError) in try textBefore(window) }
        }
        do throws(TextStorageError) {
            let followedBySpace = end < length ? SuggestionRules.isSpaceOrTab(try utf16Unit(at: end)) : false
            try replaceCharacters(in: NSRange(start..<end), with: followedBySpace ? word : word + " ")
            let caret = start + word.utf16.count + 1
            try setSelectedRange(NSRange(location: caret, length: 0))
            return .inserted(range: start..<caret, caret: caret)
        } catch {
            throw .storage(error)
        }
    }

    /// The text in `window`, its start moved back off the second half of a surrogate pair (a
    /// window of the word scan may start anywhere).
    ///
    /// - Complexity: O(log n + k).
    func textBefore(_ window: Range<Int>) throws(InteractionError) -> String {
        do throws(TextStorageError) {
            var lower = window.lowerBound
            if lower > 0, UTF16.isTrailSurrogate(try utf16Unit(at: lower)) { lower -= 1 }
            return try substring(in: NSRange(lower..<window.upperBound))
        } catch {
            throw .storage(error)
        }
    }
}
