import QuireMarkup

/// Space at the edges of a viewport that content may scroll under but that does not count as
/// visible: a keyboard, an accessory or suggestion bar, a toolbar.
public struct EdgeInsets: Hashable, Sendable {
    public var top: Double
    public var bottom: Double

    /// Insets at the top and bottom edge.
    public init(top: Double = 0, bottom: Double = 0) {
        self.top = top
        self.bottom = bottom
    }

    /// No insets.
    public static let zero = EdgeInsets()
}

/// What the user is doing with the scroll position.
public enum UserScrollState: Hashable, Sendable {
    /// Not scrolling: the viewport follows the caret.
    case idle
    /// A finger (or the mouse wheel, or the scroll bar) is moving the content.
    case dragging
    /// The content still moves after the finger lifted.
    case decelerating
    /// The user scrolled and stopped somewhere else than the caret and is reading there; only
    /// an editing action brings the caret back.
    case reading

    /// Whether the user, not the caret, decides the scroll position.
    public var isAwayFromCaret: Bool { self != .idle }
}

/// The visible part of the content, in the geometry's coordinates (points for a text view,
/// terminal cells for a terminal): a size, a scroll offset, insets, and what the user is doing.
///
/// The offset is the content y at the viewport's top edge. Content from `offset + insets.top`
/// to `offset + height - insets.bottom` is visible; the rest is under the insets or outside.
/// Scrolling is vertical: both the terminal layout and a text view wrap lines at the width.
public struct Viewport: Hashable, Sendable {
    /// The viewport's width (the wrap width the geometry is laid out at).
    public var width: Double
    /// The viewport's height, insets included.
    public var height: Double
    /// The content y at the top edge.
    public var offset: Double
    /// Bars covering the top and bottom edges.
    public var insets: EdgeInsets
    /// Whether the user is scrolling or reading away from the caret.
    public var userScrolling: UserScrollState

    /// A viewport.
    public init(width: Double, height: Double, offset: Double = 0, insets: EdgeInsets = .zero, userScrolling: UserScrollState = .idle) {
        self.width = width
        self.height = height
        self.offset = offset
        self.insets = insets
        self.userScrolling = userScrolling
    }

    /// The first visible content y.
    public var visibleTop: Double { offset + insets.top }
    /// The content y just below the visible part.
    public var visibleBottom: Double { offset + height - insets.bottom }
    /// The height of the visible part.
    public var visibleHeight: Double { max(0, height - insets.top - insets.bottom) }

    /// The offsets that keep the content in view: from the content's top under the top inset to
    /// its end above the bottom inset, plus `overscroll` times the visible height past the end
    /// (Runestone's overscroll factor; 0 allows none).
    ///
    /// - Complexity: O(1).
    public func offsetRange(contentHeight: Double, overscroll: Double = 0) -> ClosedRange<Double> {
        let lower = -insets.top
        let upper = contentHeight + insets.bottom - height + max(0, overscroll) * visibleHeight
        return lower...max(lower, upper)
    }

    /// Moves the offset into ``offsetRange(contentHeight:overscroll:)``.
    ///
    /// - Complexity: O(1).
    public mutating func clampOffset(contentHeight: Double, overscroll: Double = 0) {
        let allowed = offsetRange(contentHeight: contentHeight, overscroll: overscroll)
        offset = min(max(offset, allowed.lowerBound), allowed.upperBound)
    }

    /// Whether all of `rect` lies in the visible part (vertically).
    ///
    /// - Complexity: O(1).
    public func isVisible(_ rect: LayoutRect) -> Bool {
        rect.y >= visibleTop && rect.y + rect.height <= visibleBottom
    }
}

/// Why the viewport is asked to reconsider its scroll position: what just happened.
public enum ScrollReason: Hashable, Sendable, CaseIterable {
    /// The user typed, deleted or composed text.
    case typing
    /// Text or content was inserted at the caret (paste, a command).
    case insertion
    /// A suggestion was inserted.
    case suggestion
    /// The text view became the focus (the user taps into it, the app starts editing).
    case focus
    /// The caret or selection moved without an edit (arrow keys, a tap, a search result).
    case navigation
    /// The viewport's size or insets changed (rotation, the keyboard or a bar appeared).
    case resize
    /// An undo or redo step.
    case undo
    /// A highlighting pass changed only attributes.
    case highlight
    /// A collaborator's change or a reload from the source.
    case remoteChange

    /// Whether the reason is an editing action, which means "return to editing": it brings the
    /// caret back into view even when the user scrolled away.
    public var isEditingAction: Bool {
        switch self {
        case .typing, .insertion, .suggestion, .focus, .undo: true
        case .navigation, .resize, .highlight, .remoteChange: false
        }
    }
}
