import QuireEditor
import QuireTextStorage

/// Why an interaction policy could not do what it was asked; the document, the selection and
/// the viewport are unchanged.
public enum InteractionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The editor refused the commit (the nested error says what and where).
    case editor(EditorError)
    /// The text storage refused an edit, a selection or an attribute write.
    case storage(TextStorageError)
    /// `Editor.reload(text:)` was called while IME composition is in progress; a `LiveReload`
    /// defers such a reload until the composition ends instead.
    case reloadDuringComposition
    /// Applying the reload's edit did not give the new text: the document's structure (a table
    /// cell, a decorator) turned the replacement into something else, first differing at UTF-16
    /// `offset` of the new text.
    case reloadDiverged(offset: Int)
    /// A suggestion must insert at least one character that is not a space or tab.
    case emptySuggestion
    /// A viewport needs a positive width and height.
    case invalidViewportSize(width: Double, height: Double)
    /// A highlight's range is empty, reversed or outside the text.
    case highlightOutOfBounds(Highlight, length: Int)

    /// The error as an `InteractionError`: an update body's own error comes back out of the
    /// editor's `.thrown` wrapper, editor errors are nested.
    init(_ error: EditorError) {
        if case .thrown(let inner) = error, let own = inner as? InteractionError {
            self = own
        } else {
            self = .editor(error)
        }
    }

    public var description: String {
        switch self {
        case .editor(let error): "editor: \(error)"
        case .storage(let error): "text storage: \(error)"
        case .reloadDuringComposition: "a reload cannot be applied while text is being composed (use LiveReload to defer it)"
        case .reloadDiverged(let offset): "the reloaded text could not be represented by the document: it differs at UTF-16 offset \(offset)"
        case .emptySuggestion: "a suggestion needs a word (something other than spaces and tabs)"
        case .invalidViewportSize(let width, let height): "a viewport needs a positive size, not \(width)×\(height)"
        case .highlightOutOfBounds(let highlight, let length):
            "highlight \"\(highlight.name)\" \(highlight.range.lowerBound)..<\(highlight.range.upperBound) is empty or outside the text (0...\(length))"
        }
    }
}
