import QuireEditor
import QuireMarkup
import QuireModel

/// The viewport policies wired to an editor: after every commit it brings the geometry up to
/// date, keeps what the user reads in place when a change that is not an editing action moves
/// content (``ScrollAnchor``), and applies the ``CaretVisibilityPolicy`` for the commit's
/// reason.
///
/// The reason comes from the commit's origin — a local edit is `.typing`, a local selection
/// change `.navigation`, undo and redo `.undo`, remote, reload and load commits `.remoteChange`
/// — unless the app names it with ``perform(_:_:)`` (a suggestion, a paste). What the view does
/// itself it reports: ``resize(width:height:insets:)``, ``userDidScroll(to:state:)``,
/// ``userDidEndScrolling()``, ``focus()``, ``highlightsDidChange()``.
///
/// Like the editor, a controller is used from one thread or task at a time.
public final class ViewportController {
    /// The editor whose caret is kept in view.
    public let editor: Editor
    /// The viewport as the policies left it; the view scrolls to its offset.
    public private(set) var viewport: Viewport
    /// The caret-visibility policy.
    public var policy: CaretVisibilityPolicy
    /// The geometry of the editor's current text at the viewport's width.
    public private(set) var geometry: any TextGeometry
    /// What the policy decided last.
    public private(set) var lastDecision: ScrollDecision?

    private let makeGeometry: (Editor, Double) -> any TextGeometry
    private var anchor: ScrollAnchor
    private var reasonOverride: ScrollReason?
    private var commits = 0
    private var tokens: [ListenerToken] = []

    /// Keeps `editor`'s caret in `viewport`.
    ///
    /// - Parameters:
    ///   - editor: the editor whose caret is kept in view.
    ///   - viewport: the viewport's size, insets and first offset.
    ///   - policy: the caret-visibility policy.
    ///   - makeGeometry: lays out the editor's text at a width; called after every commit that
    ///     changed the text and on every width change.
    /// - Throws: `InteractionError.invalidViewportSize` for a size that is not positive.
    public init(
        editor: Editor, viewport: Viewport, policy: CaretVisibilityPolicy,
        geometry makeGeometry: @escaping (Editor, _ width: Double) -> any TextGeometry
    ) throws(InteractionError) {
        guard viewport.width > 0, viewport.height > 0 else { throw .invalidViewportSize(width: viewport.width, height: viewport.height) }
        self.editor = editor
        self.viewport = viewport
        self.policy = policy
        self.makeGeometry = makeGeometry
        let geometry = makeGeometry(editor, viewport.width)
        self.geometry = geometry
        anchor = .capture(viewport, in: geometry)
        tokens.append(editor.registerUpdateListener { [weak self] update in self?.editorDidCommit(update) })
        // The editor collects a commit's flat-string edits (which the anchor is carried through)
        // only while a text-content listener is registered.
        tokens.append(editor.registerTextContentListener { _ in })
        clampAndAnchor()
    }

    /// A controller for a terminal of `columns` × `rows` cells: the editor's flat string laid
    /// out with `TerminalMetrics` (soft wrap, East Asian width), one row of padding.
    ///
    /// - Throws: `InteractionError.invalidViewportSize`.
    public static func terminal(editor: Editor, columns: Int, rows: Int) throws(InteractionError) -> ViewportController {
        try ViewportController(editor: editor, viewport: Viewport(width: Double(columns), height: Double(rows)), policy: .terminal) { editor, width in
            TextLayout(plainText: editor.flatText, width: width)
        }
    }

    deinit {
        for token in tokens { editor.unregister(token) }
    }

    /// The caret's rectangle in content coordinates (the IME caret while composing).
    ///
    /// - Complexity: O(log n).
    public var caretRect: LayoutRect? { editor.caretLocation.map { geometry.caretRect(forOffset: $0) } }

    /// Whether the caret's rectangle is in the visible part of the viewport.
    public var isCaretVisible: Bool { caretRect.map { viewport.isVisible($0) } ?? false }

    /// Runs `body` (an edit the app makes) with `reason` as the reason of the commits it makes.
    /// An editing action that commits nothing (Backspace at the start, an undo with nothing to
    /// undo) still means "return to editing": the policy is applied for it after `body`.
    @discardableResult
    public func perform<T, Failure: Error>(_ reason: ScrollReason, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let outer = reasonOverride
        let commitsBefore = commits
        reasonOverride = reason
        defer {
            reasonOverride = outer
            if commits == commitsBefore && reason.isEditingAction { reveal(reason) }
        }
        return try body()
    }

    /// The view's size or insets changed. The text the user reads stays at the top while the
    /// lines rewrap; then the caret is kept in view unless the user is reading elsewhere.
    ///
    /// - Throws: `InteractionError.invalidViewportSize`; nothing changes.
    @discardableResult
    public func resize(width: Double, height: Double, insets: EdgeInsets? = nil) throws(InteractionError) -> ScrollDecision {
        guard width > 0, height > 0 else { throw .invalidViewportSize(width: width, height: height) }
        let rewraps = width != viewport.width
        viewport.width = width
        viewport.height = height
        if let insets { viewport.insets = insets }
        if rewraps {
            geometry = makeGeometry(editor, width)
            anchor.restore(&viewport, through: [], in: geometry)
        }
        return reveal(.resize)
    }

    /// The geometry changed while the text did not (an image finished loading and took its
    /// size): lays the text out again and keeps the text the user reads where it is. Never
    /// scrolls to the caret: nothing the user did moved it.
    public func geometryDidChange() {
        geometry = makeGeometry(editor, viewport.width)
        anchor.restore(&viewport, through: [], in: geometry)
        clampAndAnchor()
    }

    /// The user scrolled to `offset` (clamped into the content) and is `state` (dragging,
    /// decelerating, or reading where they stopped).
    public func userDidScroll(to offset: Double, state: UserScrollState = .dragging) {
        viewport.offset = offset
        viewport.clampOffset(contentHeight: geometry.contentHeight, overscroll: policy.overscroll)
        viewport.userScrolling = state
        anchor = .capture(viewport, in: geometry)
    }

    /// The user's scrolling came to rest; unless it ended at an editing action, they read there.
    public func userDidEndScrolling() {
        if viewport.userScrolling == .dragging || viewport.userScrolling == .decelerating { viewport.userScrolling = .reading }
    }

    /// The text view became the focus: the caret comes into view.
    @discardableResult
    public func focus() -> ScrollDecision { reveal(.focus) }

    /// A highlighting pass changed attributes; it never moves the viewport (this records the
    /// decision so that a view can assert it).
    @discardableResult
    public func highlightsDidChange() -> ScrollDecision { reveal(.highlight) }

    /// Applies the policy for `reason` now.
    @discardableResult
    public func reveal(_ reason: ScrollReason) -> ScrollDecision {
        let decision = policy.apply(reason, to: &viewport, caret: caretRect, contentHeight: geometry.contentHeight)
        lastDecision = decision
        anchor = .capture(viewport, in: geometry)
        return decision
    }

    /// The reason a commit implies when the app named none.
    public static func reason(for update: EditorUpdate) -> ScrollReason {
        switch update.transaction.origin {
        case .remote, .reload, .load: .remoteChange
        case .undo, .redo: .undo
        case .local, .custom: update.transaction.isSelectionOnly ? .navigation : .typing
        }
    }

    private func editorDidCommit(_ update: EditorUpdate) {
        commits += 1
        let reason = reasonOverride ?? Self.reason(for: update)
        // A commit can change the layout without changing the text: a format, a block's kind,
        // a list item's nesting. Only a commit that changed no node (the selection) keeps it.
        if !update.textEdits.isEmpty || update.replacedWholeState || !update.changes.isEmpty {
            geometry = makeGeometry(editor, viewport.width)
            // An editing action is followed by the caret; anything else keeps the reader's text
            // in place (a change above the viewport shifts the offset by its height).
            if !reason.isEditingAction && !update.replacedWholeState {
                anchor.restore(&viewport, through: update.textEdits, in: geometry)
            }
        }
        reveal(reason)
    }

    private func clampAndAnchor() {
        viewport.clampOffset(contentHeight: geometry.contentHeight, overscroll: policy.overscroll)
        anchor = .capture(viewport, in: geometry)
    }
}
