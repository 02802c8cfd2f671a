import Foundation

/// Why a `TextStorage` call was refused. Every throwing call leaves the storage exactly as it was.
public enum TextStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `range` does not lie inside `0...length` (negative, or past the end).
    case rangeOutOfBounds(range: NSRange, length: Int)
    /// The UTF-16 `offset` falls between the two halves of a surrogate pair.
    case splitsSurrogatePair(offset: Int)
    /// The UTF-16 `offset` falls inside a grapheme cluster, which IME composition must not split.
    case splitsGraphemeCluster(offset: Int)
    /// Attribute runs given for a text do not add up to its UTF-16 `length`.
    case runsDoNotCoverText(runsLength: Int, length: Int)
    /// A run in an attributed text has a negative `length` at UTF-16 `offset`.
    case negativeRunLength(offset: Int, length: Int)
    /// `endEditing()` was called without a matching `beginEditing()`.
    case unbalancedEndEditing
    /// Characters were changed from a did-process hook, after attributes were already fixed;
    /// only attribute changes are allowed there (as in NSTextStorage). `range` is the refused edit.
    case characterEditAfterProcessing(range: NSRange)
    /// The native-edit handler refused a native edit of `range` (the editor could not apply it);
    /// `reason` is its error in words.
    case nativeEditRefused(range: NSRange, reason: String)

    /// What went wrong and where, in words.
    public var description: String {
        switch self {
        case let .rangeOutOfBounds(range, length):
            return "range {\(range.location), \(range.length)} is outside the text of UTF-16 length \(length)"
        case let .splitsSurrogatePair(offset):
            return "UTF-16 offset \(offset) splits a surrogate pair"
        case let .splitsGraphemeCluster(offset):
            return "UTF-16 offset \(offset) splits a grapheme cluster"
        case let .runsDoNotCoverText(runsLength, length):
            return "attribute runs cover \(runsLength) UTF-16 units but the text has \(length)"
        case let .negativeRunLength(offset, length):
            return "attribute run at UTF-16 offset \(offset) has negative length \(length)"
        case .unbalancedEndEditing:
            return "endEditing() without a matching beginEditing()"
        case let .characterEditAfterProcessing(range):
            return "characters in {\(range.location), \(range.length)} were edited after processEditing fixed attributes"
        case let .nativeEditRefused(range, reason):
            return "the edit of {\(range.location), \(range.length)} was refused: \(reason)"
        }
    }
}
