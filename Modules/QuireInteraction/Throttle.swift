import QuireEditor
import QuireReconciler

/// Coalesces bursts of requests: the first request runs at once; requests within `interval` of
/// the last run wait, and however many there were, one run happens when the interval is over.
/// Time comes from the caller, so a test drives it with a clock of its own.
public struct Throttle: Hashable, Sendable {
    /// The shortest time between two runs.
    public var interval: Duration
    /// When the last run happened.
    public private(set) var lastRun: ContinuousClock.Instant?
    /// Whether a request waits for the interval to pass.
    public private(set) var isPending = false

    /// A throttle running at most once per `interval`.
    public init(interval: Duration) {
        self.interval = interval
    }

    /// A request at `now`: true when it runs now (counted as a run); false when it waits.
    ///
    /// - Complexity: O(1).
    public mutating func request(at now: ContinuousClock.Instant) -> Bool {
        if let lastRun, now - lastRun < interval {
            isPending = true
            return false
        }
        lastRun = now
        isPending = false
        return true
    }

    /// When the waiting request is due; nil when none waits.
    public var deadline: ContinuousClock.Instant? {
        guard isPending, let lastRun else { return nil }
        return lastRun + interval
    }

    /// Whether the waiting request is due at `now`; if so it counts as run.
    ///
    /// - Complexity: O(1).
    public mutating func takeDue(at now: ContinuousClock.Instant) -> Bool {
        guard let deadline, now >= deadline else { return false }
        lastRun = now
        isPending = false
        return true
    }
}

/// Highlighting for an editor or a storage: text changes request a pass, a ``Throttle``
/// coalesces the requests, and each pass asks the ``Highlighter`` for the current text's
/// highlights and hands them to a ``HighlightApplier``.
///
/// The app calls ``textDidChange(_:)`` for each edit (``observe(_:)`` does it for an editor) and
/// ``tick()`` when ``deadline`` passes (a timer, the run loop, the terminal's input loop).
public final class HighlightScheduler {
    /// What the passes write through.
    public let applier: HighlightApplier
    /// What produces the highlights.
    public var highlighter: any Highlighter
    /// The throttle of passes.
    public var throttle: Throttle
    /// The clock, replaceable in tests.
    public var now: () -> ContinuousClock.Instant
    /// Called with the error of a pass run from an editor's listener.
    public var onError: ((InteractionError) -> Void)?
    /// How many passes ran.
    public private(set) var passes = 0

    private let text: () -> String
    private var token: (editor: Editor, token: ListenerToken)?

    /// Highlights the text `text` returns (the flat string) into `target`.
    public init(
        highlighter: any Highlighter, target: any HighlightTarget, interval: Duration = .milliseconds(150),
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now }, text: @escaping () -> String
    ) {
        self.highlighter = highlighter
        applier = HighlightApplier(target: target)
        throttle = Throttle(interval: interval)
        self.now = now
        self.text = text
    }

    deinit {
        if let token { token.editor.unregister(token.token) }
    }

    /// Follows `editor`'s text: every commit's edits move the shown highlights and request a
    /// pass. Errors of passes run from the listener go to ``onError``.
    public func observe(_ editor: Editor) {
        if let token { token.editor.unregister(token.token) }
        let registered = editor.registerTextContentListener { [weak self] change in
            guard let self else { return }
            for edit in change.edits { applier.textDidChange(edit) }
            do throws(InteractionError) { try requestPass() } catch { onError?(error) }
        }
        token = (editor, registered)
    }

    /// The text changed by `edit`.
    ///
    /// - Returns: the pass, when the throttle let it run now.
    @discardableResult
    public func textDidChange(_ edit: FlatTextEdit) throws(InteractionError) -> HighlightReport? {
        applier.textDidChange(edit)
        return try requestPass()
    }

    /// Asks for a pass (the highlighter's input changed: a new search term).
    ///
    /// - Returns: the pass, when the throttle let it run now.
    @discardableResult
    public func requestPass() throws(InteractionError) -> HighlightReport? {
        guard throttle.request(at: now()) else { return nil }
        return try runPass()
    }

    /// When the waiting pass is due; nil when none waits.
    public var deadline: ContinuousClock.Instant? { throttle.deadline }

    /// Runs the waiting pass if it is due.
    @discardableResult
    public func tick() throws(InteractionError) -> HighlightReport? {
        guard throttle.takeDue(at: now()) else { return nil }
        return try runPass()
    }

    private func runPass() throws(InteractionError) -> HighlightReport {
        passes += 1
        let current = text()
        return try applier.apply(highlighter.highlights(in: current), length: current.utf16.count)
    }
}
