import QuireEditor
@testable import QuireInteraction
import QuireMarkup
import QuireModel
import QuireReconciler
import Testing

/// The geometry the terminal layout gives, the caret-visibility policy and scroll anchoring.
@Suite struct ViewportTests {
    // MARK: Terminal geometry

    /// The caret's (row, column) in cells.
    static func cell(_ layout: TextLayout, _ offset: Int) -> [Int] {
        let rect = layout.caretRect(forOffset: offset)
        return [Int(rect.y), Int(rect.x)]
    }

    @Test func softWrapAtTheWidth() {
        let layout = TextLayout(plainText: "hello world", width: 5)
        #expect(layout.contentHeight == 2)
        #expect(Self.cell(layout, 3) == [0, 3])
        #expect(Self.cell(layout, 6) == [1, 0])
        #expect(Self.cell(layout, 11) == [1, 5])
        #expect(layout.lineRects(for: 0..<11).map(\.y) == [0, 1])
        #expect(layout.lineRects(for: 7..<7).map(\.y) == [1])
        #expect(layout.line(atY: 1.5).start == 6)
        #expect(layout.line(atY: 99).start == 6)
        #expect(layout.line(atY: -3).start == 0)
    }

    @Test func eastAsianWideCharactersTakeTwoCells() {
        let layout = TextLayout(plainText: "漢字かな", width: 5)
        #expect(layout.contentHeight == 2)
        #expect(Self.cell(layout, 1) == [0, 2])
        #expect(Self.cell(layout, 2) == [1, 0])
        #expect(Self.cell(layout, 4) == [1, 4])
    }

    @Test func clustersAreMeasuredWhole() {
        let layout = TextLayout(plainText: "👍🏽a e\u{301}x 👨‍👩‍👧!", width: 40)
        #expect(Self.cell(layout, 4) == [0, 2])
        #expect(Self.cell(layout, 5) == [0, 3])
        #expect(Self.cell(layout, 8) == [0, 5])
        #expect(Self.cell(layout, 10 + 8) == [0, 9])
    }

    @Test func paragraphsAreRows() {
        let layout = TextLayout(plainText: "a\n\nb", width: 10)
        #expect(layout.contentHeight == 3)
        #expect(Self.cell(layout, 2) == [1, 0])
        #expect(Self.cell(layout, 4) == [2, 1])
        #expect(layout.lineRects(for: 0..<4).count == 3)
    }

    @Test func pointMetricsToo() {
        let layout = TextLayout(plainText: "abcd efgh", width: 40, metrics: ProportionalMetrics())
        // 8 pt per character, 20 pt lines: "abcd " fits, "efgh" wraps.
        #expect(layout.contentHeight == 40)
        #expect(layout.caretRect(forOffset: 2) == LayoutRect(x: 16, y: 0, width: 0, height: 20))
        #expect(layout.caretRect(forOffset: 7) == LayoutRect(x: 16, y: 20, width: 0, height: 20))
    }

    // MARK: The policy

    static func terminalViewport(offset: Double = 0, rows: Double = 5) -> Viewport {
        Viewport(width: 10, height: rows, offset: offset)
    }

    static func row(_ row: Double) -> LayoutRect { LayoutRect(x: 0, y: row, width: 0, height: 1) }

    @Test func nearestScrollingKeepsOneRowOfPadding() {
        let policy = CaretVisibilityPolicy.terminal
        var viewport = Self.terminalViewport()
        // Below: the caret's row and one more become the last visible rows.
        var decision = policy.apply(.typing, to: &viewport, caret: Self.row(7), contentHeight: 20)
        #expect(viewport.offset == 4 && decision.outcome == .scrolled && decision.from == 0 && decision.to == 4)
        // Visible with its padding: nothing moves.
        decision = policy.apply(.typing, to: &viewport, caret: Self.row(6), contentHeight: 20)
        #expect(viewport.offset == 4 && decision.outcome == .alreadyVisible && !decision.moved)
        // Above: one row above the caret becomes the first visible row.
        viewport.offset = 10
        policy.apply(.navigation, to: &viewport, caret: Self.row(3), contentHeight: 20)
        #expect(viewport.offset == 2)
        // At the top of the content there is no row above to show.
        policy.apply(.navigation, to: &viewport, caret: Self.row(0), contentHeight: 20)
        #expect(viewport.offset == 0)
    }

    @Test func scrollingIsClampedToTheContentUnlessOverscrollIsAllowed() {
        var viewport = Self.terminalViewport()
        CaretVisibilityPolicy.terminal.apply(.typing, to: &viewport, caret: Self.row(19), contentHeight: 20)
        #expect(viewport.offset == 15)
        var overscrolling = Self.terminalViewport()
        CaretVisibilityPolicy(paddingAbove: 1, paddingBelow: 1, overscroll: 0.5).apply(.typing, to: &overscrolling, caret: Self.row(19), contentHeight: 20)
        #expect(overscrolling.offset == 16)
        #expect(overscrolling.offsetRange(contentHeight: 20, overscroll: 0.5) == 0...17.5)
        // Content shorter than the viewport never scrolls.
        var short = Self.terminalViewport(offset: 3)
        CaretVisibilityPolicy.terminal.apply(.typing, to: &short, caret: Self.row(2), contentHeight: 3)
        #expect(short.offset == 0)
    }

    @Test func aViewportTooSmallForThePaddingShowsTheCaret() {
        var viewport = Self.terminalViewport(rows: 2)
        CaretVisibilityPolicy.terminal.apply(.typing, to: &viewport, caret: Self.row(10), contentHeight: 20)
        #expect(viewport.isVisible(Self.row(10)))
        var one = Self.terminalViewport(rows: 1)
        CaretVisibilityPolicy.terminal.apply(.typing, to: &one, caret: Self.row(10), contentHeight: 20)
        #expect(one.offset == 10)
    }

    @Test func pointMetricsPadTwelveAboveAndEighteenBelow() {
        let policy = CaretVisibilityPolicy.points
        #expect(policy.paddingAbove == 12 && policy.paddingBelow == 18)
        var viewport = Viewport(width: 320, height: 600)
        policy.apply(.typing, to: &viewport, caret: LayoutRect(x: 0, y: 1000, width: 2, height: 20), contentHeight: 5000)
        #expect(viewport.offset == 1000 + 20 + 18 - 600)
        policy.apply(.typing, to: &viewport, caret: LayoutRect(x: 0, y: 100, width: 2, height: 20), contentHeight: 5000)
        #expect(viewport.offset == 88)
        // The keyboard covers the bottom 300 pt: the caret goes above it.
        viewport.insets = EdgeInsets(top: 44, bottom: 300)
        policy.apply(.resize, to: &viewport, caret: LayoutRect(x: 0, y: 400, width: 2, height: 20), contentHeight: 5000)
        #expect(viewport.offset == 400 + 20 + 18 - 600 + 300)
        #expect(viewport.isVisible(LayoutRect(x: 0, y: 400, width: 2, height: 20)))
        // Under the top bar counts as hidden too.
        policy.apply(.navigation, to: &viewport, caret: LayoutRect(x: 0, y: 100, width: 2, height: 20), contentHeight: 5000)
        #expect(viewport.offset == 100 - 12 - 44)
    }

    @Test func aHighlightPassNeverScrolls() {
        var viewport = Self.terminalViewport(offset: 12)
        let decision = CaretVisibilityPolicy.terminal.apply(.highlight, to: &viewport, caret: Self.row(0), contentHeight: 5)
        // Not even clamping: the offset is the view's until something else happens.
        #expect(viewport.offset == 12 && decision.outcome == .suppressed)
    }

    @Test func aRemoteChangeNeverScrollsToTheCaretButStaysInTheContent() {
        var viewport = Self.terminalViewport(offset: 0)
        var decision = CaretVisibilityPolicy.terminal.apply(.remoteChange, to: &viewport, caret: Self.row(15), contentHeight: 20)
        #expect(viewport.offset == 0 && decision.outcome == .suppressed)
        viewport.offset = 18
        decision = CaretVisibilityPolicy.terminal.apply(.remoteChange, to: &viewport, caret: Self.row(15), contentHeight: 10)
        #expect(viewport.offset == 5 && decision.outcome == .suppressed)
    }

    @Test(arguments: [UserScrollState.dragging, .decelerating, .reading])
    func whileTheUserScrollsOnlyEditingBringsTheCaretBack(_ state: UserScrollState) {
        let policy = CaretVisibilityPolicy.terminal
        for reason in ScrollReason.allCases {
            var viewport = Self.terminalViewport(offset: 10)
            viewport.userScrolling = state
            let decision = policy.apply(reason, to: &viewport, caret: Self.row(1), contentHeight: 20)
            if reason.isEditingAction {
                #expect(decision.outcome == .scrolled && viewport.offset == 0 && viewport.userScrolling == .idle, "\(reason)")
            } else {
                #expect(decision.outcome == .suppressed && viewport.offset == 10 && viewport.userScrolling == state, "\(reason)")
            }
        }
        #expect(ScrollReason.allCases.filter(\.isEditingAction) == [.typing, .insertion, .suggestion, .focus, .undo])
    }

    // MARK: Scroll anchoring

    @Test func contentChangingAboveTheViewportShiftsTheOffsetByItsHeight() {
        let before = TextLayout(plainText: "a\nb\nc\nd\ne\nf", width: 10)
        var viewport = Viewport(width: 10, height: 2, offset: 3)
        let anchor = ScrollAnchor.capture(viewport, in: before)
        #expect(anchor == ScrollAnchor(location: 6, distance: 0))
        // Two paragraphs inserted at the top: two rows more above.
        let inserted = FlatTextEdit(range: 0..<0, replacement: "x\ny\n")
        anchor.restore(&viewport, through: [inserted], in: TextLayout(plainText: "x\ny\na\nb\nc\nd\ne\nf", width: 10))
        #expect(viewport.offset == 5)
        // A paragraph inserted right at the anchor goes above it too.
        var atAnchor = Viewport(width: 10, height: 2, offset: 3)
        anchor.restore(&atAnchor, through: [FlatTextEdit(range: 6..<6, replacement: "new\n")], in: TextLayout(plainText: "a\nb\nc\nnew\nd\ne\nf", width: 10))
        #expect(atAnchor.offset == 4)
        // A change below the anchor, or inside its line, moves nothing.
        var below = Viewport(width: 10, height: 2, offset: 3)
        anchor.restore(&below, through: [FlatTextEdit(range: 7..<7, replacement: "\nq\nr")], in: TextLayout(plainText: "a\nb\nc\nd\nq\nr\ne\nf", width: 10))
        #expect(below.offset == 3)
        // A wrapped line above that grows by a row shifts by a row.
        var wrapped = Viewport(width: 10, height: 2, offset: 3)
        anchor.restore(&wrapped, through: [FlatTextEdit(range: 1..<1, replacement: "aaaaaaaaaaaaa")], in: TextLayout(plainText: "aaaaaaaaaaaaaa\nb\nc\nd\ne\nf", width: 10))
        #expect(wrapped.offset == 4)
    }

    @Test func anAnchorInsideALineKeepsItsDistance() {
        let layout = TextLayout(plainText: "a\nb\nc", width: 10, metrics: ProportionalMetrics())
        var viewport = Viewport(width: 10, height: 30, offset: 25)
        let anchor = ScrollAnchor.capture(viewport, in: layout)
        #expect(anchor == ScrollAnchor(location: 2, distance: 5))
        anchor.restore(&viewport, through: [FlatTextEdit(range: 0..<0, replacement: "z\n")], in: TextLayout(plainText: "z\na\nb\nc", width: 10, metrics: ProportionalMetrics()))
        #expect(viewport.offset == 45)
    }

    // MARK: The controller

    @Test func theControllerRefusesEmptyViewports() throws {
        let editor = try makeEditor(["x"])
        #expect(throws: InteractionError.invalidViewportSize(width: 0, height: 5)) { try ViewportController.terminal(editor: editor, columns: 0, rows: 5) }
        let controller = try ViewportController.terminal(editor: editor, columns: 10, rows: 5)
        #expect(throws: InteractionError.invalidViewportSize(width: 10, height: -1)) { try controller.resize(width: 10, height: -1) }
        #expect(controller.viewport.height == 5)
    }

    @Test func commitsGetTheReasonOfTheirOrigin() throws {
        let editor = try makeEditor((0..<30).map { "line \($0)" }, selection: 0..<0)
        let controller = try ViewportController.terminal(editor: editor, columns: 20, rows: 5)
        try editor.selectionDidChange(200..<200)
        #expect(controller.lastDecision?.reason == .navigation)
        #expect(controller.isCaretVisible)
        try editor.replaceCharacters(in: 200..<200, with: "x")
        #expect(controller.lastDecision?.reason == .typing)
        try editor.undo()
        #expect(controller.lastDecision?.reason == .undo)
        try editor.reload(text: "top\n" + editor.text)
        #expect(controller.lastDecision?.reason == .remoteChange)
        try controller.perform(.suggestion) { try editor.insertSuggestion("word") }
        #expect(controller.lastDecision?.reason == .suggestion)
        #expect(controller.isCaretVisible)
    }

    @Test func aWidthChangeRewrapsAndKeepsTheTopText() throws {
        let editor = try makeEditor((0..<20).map { "paragraph \($0) with words" }, selection: 0..<0)
        let controller = try ViewportController.terminal(editor: editor, columns: 40, rows: 4)
        controller.userDidScroll(to: 10, state: .reading)
        let layout = try #require(controller.geometry as? TextLayout)
        let top = layout.line(atY: controller.viewport.visibleTop).start
        try controller.resize(width: 12, height: 4)
        #expect(controller.geometry.line(atY: controller.viewport.visibleTop).start == top)
        #expect(controller.viewport.offset > 10)
    }
}
