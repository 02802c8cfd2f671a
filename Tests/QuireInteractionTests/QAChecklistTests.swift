import QuireEditor
import QuireInteraction
import QuireMarkup
import QuireModel
import Testing

/// The caret and scroll research note's QA checklist, over a simulated viewport: a terminal
/// (cells) and a text view (points, proportional metrics).
@Suite struct QAChecklistTests {
    enum Metrics: String, CaseIterable, Sendable {
        case terminal, points
    }

    static let lorem = "the quick brown fox jumps over the lazy dog and keeps running far away"

    static func document(_ count: Int) -> [String] {
        (0..<count).map { "\($0): " + String(lorem.prefix(20 + ($0 * 7) % 50)) }
    }

    static func controller(_ editor: Editor, _ metrics: Metrics) throws -> ViewportController {
        switch metrics {
        case .terminal:
            return try ViewportController.terminal(editor: editor, columns: 32, rows: 10)
        case .points:
            return try ViewportController(editor: editor, viewport: Viewport(width: 320, height: 480, insets: EdgeInsets(top: 44)), policy: .points) { editor, width in
                TextLayout(plainText: editor.text, width: width, metrics: ProportionalMetrics())
            }
        }
    }

    /// The height of one line (a bar of one row, in the terminal).
    static func line(_ metrics: Metrics) -> Double { metrics == .terminal ? 1 : 20 }

    /// The text of the lines entirely in the visible part.
    static func visibleLines(_ controller: ViewportController) throws -> [String] {
        let layout = try #require(controller.geometry as? TextLayout)
        let units = Array(controller.editor.text.utf16)
        return layout.lines.filter { controller.viewport.isVisible(LayoutRect(x: 0, y: $0.y, width: 0, height: $0.height)) }
            .map { String(decoding: units[$0.start..<min($0.end, units.count)], as: UTF16.self) }
    }

    /// Where the caret is on screen (its y relative to the visible top).
    static func caretScreenY(_ controller: ViewportController) throws -> Double {
        try #require(controller.caretRect).y - controller.viewport.visibleTop
    }

    @Test(arguments: Metrics.allCases)
    func rapidTypingWhileSuggestionsUpdate(_ metrics: Metrics) throws {
        // Typing in the middle of a long document (at its end, a strip that hides leaves the view
        // past the content's end, and the view has to follow the content back down).
        let editor = try makeEditor(Self.document(80))
        let end = editor.text.components(separatedBy: "\n").prefix(21).map { $0.utf16.count + 1 }.reduce(0, +) - 1
        try editor.selectionDidChange(end..<end)
        let controller = try Self.controller(editor, metrics)
        controller.focus()
        let clock = ManualClock()
        let scheduler = HighlightScheduler(highlighter: MatchHighlighter(pattern: "fox"), target: HighlightLayer(), interval: .milliseconds(100), now: { clock.instant }) { editor.text }
        scheduler.observe(editor)
        let bar = 2 * Self.line(metrics)
        let base = controller.viewport.insets
        for (index, character) in Self.lorem.enumerated() {
            try editor.replaceCharacters(in: editor.nativeSelection!, with: index % 23 == 22 ? "\n" : String(character))
            #expect(controller.isCaretVisible, "after keystroke \(index)")
            // The suggestion strip updates: it shows or hides, and highlights follow the text.
            clock.advance(.milliseconds(30))
            if try scheduler.tick() != nil { #expect(!controller.highlightsDidChange().moved) }
            let showing = index % 2 == 0
            let decision = try controller.resize(width: controller.viewport.width, height: controller.viewport.height,
                                                 insets: EdgeInsets(top: base.top, bottom: showing ? bar : 0))
            #expect(controller.isCaretVisible, "after the strip changed at keystroke \(index)")
            if !showing { #expect(!decision.moved, "hiding the strip moved the view at keystroke \(index)") }
            if index % 10 == 9 {
                try controller.perform(.suggestion) { try editor.insertSuggestion("jumped", replacing: .word) }
                #expect(controller.isCaretVisible, "after the suggestion at keystroke \(index)")
            }
        }
        #expect(scheduler.passes > 1 && scheduler.passes < Self.lorem.count)
    }

    @Test(arguments: Metrics.allCases)
    func aSuggestionMidDocumentKeepsTheCaretVisible(_ metrics: Metrics) throws {
        let editor = try makeEditor(Self.document(100))
        let controller = try Self.controller(editor, metrics)
        let paragraph = editor.text.components(separatedBy: "\n").prefix(60).map { $0.utf16.count + 1 }.reduce(0, +)
        try editor.selectionDidChange((paragraph + 9)..<(paragraph + 9))
        controller.userDidScroll(to: 0, state: .reading)
        #expect(!controller.isCaretVisible)
        let decision = try controller.perform(.suggestion) { () throws(InteractionError) -> SuggestionOutcome in
            try editor.insertSuggestion("quickly", replacing: .word)
        }
        #expect(decision != .ignoredDuringComposition)
        #expect(controller.isCaretVisible)
        #expect(controller.viewport.userScrolling == .idle)
        #expect(controller.lastDecision?.reason == .suggestion && controller.lastDecision?.outcome == .scrolled)
    }

    @Test(arguments: Metrics.allCases)
    func aSelectionAcrossLinesReplacedByASuggestion(_ metrics: Metrics) throws {
        let editor = try makeEditor(Self.document(60))
        let controller = try Self.controller(editor, metrics)
        let starts = editor.text.components(separatedBy: "\n").reduce(into: [0]) { $0.append($0.last! + $1.utf16.count + 1) }
        let selection = (starts[30] + 4)..<(starts[33] + 4)
        try editor.selectionDidChange(selection)
        let paragraphs = editor.state.textBlocks().count
        try controller.perform(.suggestion) { try editor.insertSuggestion("merged") }
        #expect(editor.state.textBlocks().count == paragraphs - 3)
        #expect(editor.text.components(separatedBy: "\n")[30].hasPrefix("30: merged "))
        #expect(editor.nativeSelection == (starts[30] + 11)..<(starts[30] + 11))
        #expect(controller.isCaretVisible)
    }

    @Test(arguments: Metrics.allCases)
    func readingAwayFromTheCaretWhileHighlightsUpdateDoesNotJump(_ metrics: Metrics) throws {
        let editor = try makeEditor(Self.document(120), selection: 40..<40)
        let controller = try Self.controller(editor, metrics)
        controller.focus()
        let clock = ManualClock()
        let layer = HighlightLayer()
        let scheduler = HighlightScheduler(highlighter: MatchHighlighter(pattern: "o"), target: layer, interval: .milliseconds(50), now: { clock.instant }) { editor.text }
        // The user drags far down and reads there.
        let far = 60 * Self.line(metrics)
        controller.userDidScroll(to: far / 2, state: .dragging)
        controller.userDidScroll(to: far, state: .decelerating)
        controller.userDidEndScrolling()
        #expect(controller.viewport.userScrolling == .reading)
        let reading = try Self.visibleLines(controller)
        for pass in 0..<20 {
            scheduler.highlighter = MatchHighlighter(pattern: pass % 2 == 0 ? "o" : "e")
            clock.advance(.milliseconds(60))
            if try scheduler.requestPass() != nil {
                let decision = controller.highlightsDidChange()
                #expect(!decision.moved && decision.outcome == .suppressed)
            }
            #expect(controller.viewport.offset == far)
        }
        #expect(!layer.highlights.isEmpty)
        // A click elsewhere and a reload from the source do not pull the view back either …
        try editor.selectionDidChange(10..<10)
        try editor.reload(text: editor.text + "\nappended")
        #expect(try Self.visibleLines(controller) == reading)
        // … typing does.
        try editor.replaceCharacters(in: editor.nativeSelection!, with: "x")
        #expect(controller.isCaretVisible)
        #expect(controller.viewport.userScrolling == .idle)
    }

    @Test func aResizeWithTheKeyboardShownKeepsTheCaretAboveIt() throws {
        let editor = try makeEditor(Self.document(80))
        let controller = try Self.controller(editor, .points)
        let layout = try #require(controller.geometry as? TextLayout)
        // The caret on a line near the bottom of the view.
        let near = layout.line(atY: controller.viewport.visibleBottom - 30).start
        try editor.selectionDidChange(near..<near)
        #expect(controller.isCaretVisible)
        // The keyboard slides up over it.
        try controller.resize(width: 320, height: 480, insets: EdgeInsets(top: 44, bottom: 260))
        #expect(controller.isCaretVisible)
        let caret = try #require(controller.caretRect)
        #expect(caret.y + caret.height + CaretVisibilityPolicy.points.paddingBelow <= controller.viewport.visibleBottom)
        // The device rotates with the keyboard shown: the lines rewrap at the new width.
        try controller.resize(width: 480, height: 320, insets: EdgeInsets(top: 32, bottom: 200))
        #expect(controller.isCaretVisible)
        try controller.resize(width: 320, height: 480, insets: EdgeInsets(top: 44, bottom: 260))
        #expect(controller.isCaretVisible)
        // The keyboard goes: nothing needs to move.
        let decision = try controller.resize(width: 320, height: 480, insets: EdgeInsets(top: 44))
        #expect(controller.isCaretVisible && !decision.moved)
    }

    @Test(arguments: Metrics.allCases)
    func remoteParagraphsInsertedAboveTheViewportDoNotMoveWhatIsShown(_ metrics: Metrics) throws {
        let editor = try makeEditor(Self.document(60))
        let controller = try Self.controller(editor, metrics)
        let starts = editor.text.components(separatedBy: "\n").reduce(into: [0]) { $0.append($0.last! + $1.utf16.count + 1) }
        try editor.selectionDidChange((starts[40] + 3)..<(starts[40] + 3))
        #expect(controller.isCaretVisible)
        let shown = try Self.visibleLines(controller)
        let caretY = try Self.caretScreenY(controller)
        let offset = controller.viewport.offset

        // A reload from the source with five paragraphs at the top.
        try editor.reload(text: (0..<5).map { "new \($0) " + Self.lorem }.joined(separator: "\n") + "\n" + editor.text)
        #expect(try Self.visibleLines(controller) == shown)
        #expect(try Self.caretScreenY(controller) == caretY)
        #expect(controller.viewport.offset > offset)

        // A collaborator's paragraph inserted above, through the editor as a remote commit.
        try editor.update(origin: .remote) { (state: inout EditorState) throws(ModelError) in
            let paragraph = try state.createNode(type: .paragraph)
            try state.append(try state.createNode(type: .text, text: "remote " + Self.lorem + " " + Self.lorem), to: paragraph)
            try state.insert(paragraph, before: state.textBlocks()[2])
        }
        #expect(try Self.visibleLines(controller) == shown)
        #expect(try Self.caretScreenY(controller) == caretY)

        // Paragraphs removed above.
        try editor.update(origin: .remote) { (state: inout EditorState) throws(ModelError) in
            for block in state.textBlocks().prefix(4) { try state.remove(block) }
        }
        #expect(try Self.visibleLines(controller) == shown)
        #expect(try Self.caretScreenY(controller) == caretY)

        // Paragraphs added far below move nothing.
        let before = controller.viewport.offset
        try editor.update(origin: .remote) { (state: inout EditorState) throws(ModelError) in
            let paragraph = try state.createNode(type: .paragraph)
            try state.append(try state.createNode(type: .text, text: "tail"), to: paragraph)
            try state.append(paragraph, to: .root)
        }
        #expect(controller.viewport.offset == before)
        #expect(try Self.visibleLines(controller) == shown)
    }
}
