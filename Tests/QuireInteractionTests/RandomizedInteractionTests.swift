import QuireAlgorithms
import Foundation
import QuireEditor
import QuireInteraction
import QuireMarkup
import QuireModel
import QuireReconciler
import QuireTestSupport
import Testing

/// Random edits, reloads, suggestions, highlights, scrolls and resizes over random documents.
/// After every step: the caret is visible when the step was an editing action, the scroll
/// offset is within the content, a highlight pass never moved it, and the highlight layer shows
/// exactly what the pass asked for.
@Suite struct RandomizedInteractionTests {
    enum Action: CaseIterable {
        case type, backspace, compose, select, suggest, reload, highlight, scroll, resize, focus, undo
    }

    static let pieces = ["a", "b", "word", " ", " ", "\n", "é", "漢字", "👍🏽", "🇫🇷", "e\u{301}", "x_1"]

    @Test(arguments: [(UInt64(0xC0FFEE), QAChecklistTests.Metrics.terminal), (UInt64(0xBEEF), .points)])
    func policiesHoldAfterEveryStep(_ seed: UInt64, _ metrics: QAChecklistTests.Metrics) throws {
        let steps = ProcessInfo.processInfo.environment["QUIRE_LONG_STEPS"].flatMap(Int.init) ?? 300
        var random = SeededGenerator(seed: seed)
        func text(_ count: Int) -> String { (0..<count).map { _ in Self.pieces.randomElement(using: &random)! }.joined() }
        let paragraphs = (0..<Int.random(in: 5...40, using: &random)).map { _ in text(Int.random(in: 0...25, using: &random)) }
        let editor = try makeEditor(paragraphs, selection: 0..<0, history: History(maximumDepth: 1_000_000))
        let controller = try QAChecklistTests.controller(editor, metrics)
        let line = QAChecklistTests.line(metrics)
        let reloader = LiveReload(editor: editor)
        let layer = HighlightLayer()
        let applier = HighlightApplier(target: layer)
        editor.registerTextContentListener { change in change.edits.forEach(applier.textDidChange) }
        let names = ["search", "spelling"]

        func clusterBoundaries() -> [Int] {
            editor.text.reduce(into: [0]) { $0.append($0.last! + $1.utf16.count) }
        }

        for step in 0..<steps {
            let action = Action.allCases.randomElement(using: &random)!
            let offsetBefore = controller.viewport.offset
            let context = "seed \(seed), step \(step), \(action)"
            do {
            switch action {
            case .type:
                try editor.replaceCharacters(in: editor.nativeSelection!, with: text(Int.random(in: 1...3, using: &random)))
            case .backspace:
                try controller.perform(.typing) { try editor.dispatch(Commands.deleteCharacter, true) }
            case .compose:
                try controller.perform(.typing) {
                    try editor.setMarkedText("か", selectedRange: 1..<1)
                    // A reload arriving mid-composition waits for it.
                    #expect(try reloader.reload(text: editor.text + "!") == .deferred, "\(context)")
                    try editor.setMarkedText("かな", selectedRange: 2..<2)
                    try editor.unmarkText()
                }
                #expect(controller.isCaretVisible, "\(context): after composing")
                try reloader.applyPending()
            case .select:
                let cuts = clusterBoundaries()
                let start = cuts.randomElement(using: &random)!
                let end = Bool.random(using: &random) ? start : cuts.filter { $0 >= start }.randomElement(using: &random)!
                try editor.selectionDidChange(start..<end)
            case .suggest:
                let mode: SuggestionReplacement = Bool.random(using: &random) ? .word : .selection
                try controller.perform(.suggestion) { try editor.insertSuggestion(["tea", "coffee", "x"].randomElement(using: &random)!, replacing: mode) }
            case .reload:
                let cuts = clusterBoundaries()
                let start = cuts.randomElement(using: &random)!
                let end = cuts.filter { $0 >= start }.prefix(4).randomElement(using: &random)!
                var units = Array(editor.text.utf16)
                units.replaceSubrange(start..<end, with: Array(text(Int.random(in: 0...3, using: &random)).utf16))
                try reloader.reload(text: String(decoding: units, as: UTF16.self))
            case .highlight:
                let cuts = clusterBoundaries()
                var highlights: [Highlight] = []
                if cuts.count > 1 {
                    for _ in 0..<Int.random(in: 0...6, using: &random) {
                        let start = cuts.dropLast().randomElement(using: &random)!
                        let end = cuts.filter { $0 > start }.prefix(5).randomElement(using: &random)!
                        highlights.append(Highlight(start..<end, name: names.randomElement(using: &random)!))
                    }
                }
                let textBefore = editor.text
                let selectionBefore = editor.nativeSelection
                try applier.apply(highlights, length: textBefore.utf16.count)
                let decision = controller.highlightsDidChange()
                #expect(!decision.moved && controller.viewport.offset == offsetBefore, "\(context)")
                #expect(editor.text == textBefore && editor.nativeSelection == selectionBefore, "\(context)")
                for name in names {
                    let wanted = RangeSet(highlights.filter { $0.name == name }.map(\.range))
                    #expect((layer.ranges[name] ?? RangeSet()) == wanted, "\(context): \(name)")
                }
            case .scroll:
                let allowed = controller.viewport.offsetRange(contentHeight: controller.geometry.contentHeight)
                let target = Double.random(in: allowed.lowerBound...allowed.upperBound, using: &random).rounded()
                controller.userDidScroll(to: target, state: [.dragging, .decelerating, .reading].randomElement(using: &random)!)
                if Bool.random(using: &random) { controller.userDidEndScrolling() }
            case .resize:
                let width = metrics == .terminal ? Double(Int.random(in: 8...40, using: &random)) : Double(Int.random(in: 200...500, using: &random))
                // A keyboard or a strip at the bottom; at least three lines stay visible.
                let insets = EdgeInsets(top: metrics == .points ? 44 : 0, bottom: Bool.random(using: &random) ? Double(Int.random(in: 0...8, using: &random)) * line : 0)
                let height = Double(Int.random(in: 3...14, using: &random)) * line + insets.top + insets.bottom
                try controller.resize(width: width, height: height, insets: insets)
            case .focus:
                controller.focus()
            case .undo:
                try controller.perform(.undo) { try editor.undo() }
            }
            } catch {
                Issue.record("\(context): \(error); text \(editor.text.debugDescription), selection \(String(describing: editor.nativeSelection))")
                return
            }
            let allowed = controller.viewport.offsetRange(contentHeight: controller.geometry.contentHeight)
            #expect(allowed.contains(controller.viewport.offset), "\(context): \(controller.viewport.offset) not in \(allowed)")
            // (A composition ends with the deferred reload, a remote change.)
            let editing: Set<Action> = [.type, .backspace, .suggest, .focus, .undo]
            if editing.contains(action) {
                #expect(controller.isCaretVisible, "\(context): caret \(String(describing: controller.caretRect)) in \(controller.viewport)")
                #expect(controller.viewport.userScrolling == .idle, "\(context)")
            }
        }
    }
}
