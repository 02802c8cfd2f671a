import QuireMarkup

/// What the caret-visibility policy decided for one reason.
public struct ScrollDecision: Hashable, Sendable {
    /// Why the policy was asked.
    public var reason: ScrollReason
    /// The offset before and after.
    public var from: Double
    public var to: Double
    /// What happened.
    public var outcome: Outcome

    /// What the policy did.
    public enum Outcome: Hashable, Sendable {
        /// The caret (plus padding) was scrolled into view.
        case scrolled
        /// The caret was already in view with its padding; the offset stayed (at most clamped).
        case alreadyVisible
        /// The reason never scrolls to the caret (a highlight pass, a remote change), or the user
        /// is scrolling or reading away from the caret and the reason is not an editing action;
        /// the offset stayed (at most clamped into the content).
        case suppressed
        /// There is no caret to show.
        case noCaret
    }

    /// Whether the offset changed.
    public var moved: Bool { from != to }
}

/// Keeps the caret in view with breathing room, without yanking the view while the user reads.
///
/// - For typing, insertion, suggestion, focus, navigation, resize and undo, the caret rectangle
///   plus ``paddingAbove``/``paddingBelow`` is scrolled into view with the smallest movement
///   (CodeMirror's `y: "nearest"`): nothing moves when it is visible already; otherwise the
///   nearer edge of the visible part moves to it. A padded caret taller than the visible part
///   aligns the caret's top instead. The result is clamped into the content (no overscroll
///   unless ``overscroll`` allows some).
/// - A highlight pass never scrolls, and does not even clamp.
/// - While the user scrolls or reads away from the caret (``UserScrollState/isAwayFromCaret``),
///   only an editing action (``ScrollReason/isEditingAction``) brings the caret back, and ends
///   the reading.
/// - A remote change never scrolls to the caret; ``ScrollAnchor`` keeps what the user reads in
///   place when content above it changes.
public struct CaretVisibilityPolicy: Hashable, Sendable {
    /// Room kept above the caret.
    public var paddingAbove: Double
    /// Room kept below the caret.
    public var paddingBelow: Double
    /// How far past the content's end the viewport may scroll, as a fraction of its visible
    /// height (0: not at all).
    public var overscroll: Double

    /// A policy.
    public init(paddingAbove: Double, paddingBelow: Double, overscroll: Double = 0) {
        self.paddingAbove = paddingAbove
        self.paddingBelow = paddingBelow
        self.overscroll = overscroll
    }

    /// Terminal metrics: one row above and below the caret.
    public static let terminal = CaretVisibilityPolicy(paddingAbove: 1, paddingBelow: 1)
    /// Point metrics: 12 pt above and 18 pt below the caret (room for the descenders and the
    /// selection handles).
    public static let points = CaretVisibilityPolicy(paddingAbove: 12, paddingBelow: 18)

    /// Decides and applies the scroll position for `reason`.
    ///
    /// - Parameters:
    ///   - reason: what just happened.
    ///   - viewport: the viewport to move; its user-scrolling state ends at an editing action.
    ///   - caret: the caret rectangle in content coordinates; nil when there is none.
    ///   - contentHeight: the content's height, for clamping.
    /// - Complexity: O(1).
    @discardableResult
    public func apply(_ reason: ScrollReason, to viewport: inout Viewport, caret: LayoutRect?, contentHeight: Double) -> ScrollDecision {
        let from = viewport.offset
        func decision(_ outcome: ScrollDecision.Outcome) -> ScrollDecision {
            ScrollDecision(reason: reason, from: from, to: viewport.offset, outcome: outcome)
        }
        if reason == .highlight { return decision(.suppressed) }
        viewport.clampOffset(contentHeight: contentHeight, overscroll: overscroll)
        if reason == .remoteChange { return decision(.suppressed) }
        if reason.isEditingAction {
            viewport.userScrolling = .idle
        } else if viewport.userScrolling.isAwayFromCaret {
            return decision(.suppressed)
        }
        guard let caret else { return decision(.noCaret) }
        var top = caret.y - paddingAbove
        var bottom = caret.y + caret.height + paddingBelow
        if bottom - top > viewport.visibleHeight {
            top = caret.y
            bottom = caret.y + min(caret.height, viewport.visibleHeight)
        }
        var offset = viewport.offset
        if top < viewport.visibleTop {
            offset = top - viewport.insets.top
        } else if bottom > viewport.visibleBottom {
            offset = bottom - viewport.height + viewport.insets.bottom
        }
        let clamped = viewport.offset
        viewport.offset = offset
        viewport.clampOffset(contentHeight: contentHeight, overscroll: overscroll)
        return decision(viewport.offset != clamped ? .scrolled : .alreadyVisible)
    }
}
