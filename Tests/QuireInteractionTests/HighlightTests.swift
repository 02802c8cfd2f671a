import Foundation
import QuireEditor
import QuireInteraction
import QuireModel
import QuireReconciler
import QuireTextStorage
import Testing

/// Highlighting: no-op passes, incremental writes, never text, selection or scroll, throttled.
@Suite struct HighlightTests {
    /// The ranges of `name` a storage shows, from its attributes.
    static func shown(_ name: String, in storage: TextStorage) throws -> RangeSet<Int> {
        var set = RangeSet<Int>()
        for run in try storage.runs(in: NSRange(location: 0, length: storage.length)) where run.attributes[HighlightAttribute.key(for: name)] == .bool(true) {
            set.insert(contentsOf: run.range.location..<(run.range.location + run.range.length))
        }
        return set
    }

    static let words = "alpha beta gamma beta delta beta"

    @Test func anUnchangedPassWritesNothing() throws {
        let layer = HighlightLayer()
        let applier = HighlightApplier(target: layer)
        let highlights = MatchHighlighter(pattern: "beta").highlights(in: Self.words)
        #expect(highlights.map(\.range) == [6..<10, 17..<21, 28..<32])
        let first = try applier.apply(highlights, length: 32)
        #expect(first.changes.count == 3 && first.changes.allSatisfy(\.isOn))
        let second = try applier.apply(highlights.reversed(), length: 32)
        #expect(second.isNoOp)
        #expect(layer.writtenChanges == 3)

        let storage = TextStorage(Self.words)
        let log = StorageLog(storage)
        let storageApplier = HighlightApplier(target: storage)
        try storageApplier.apply(highlights, length: 32)
        #expect(log.changes.count == 1)
        #expect(try storageApplier.apply(highlights, length: 32).isNoOp)
        #expect(log.changes.count == 1)
    }

    @Test func onlyChangedRangesAreWritten() throws {
        let text = (0..<200).map { $0 % 7 == 0 ? "beta" : "word" }.joined(separator: " ")
        let storage = TextStorage(text)
        let applier = HighlightApplier(target: storage)
        var highlights = MatchHighlighter(pattern: "beta").highlights(in: text)
        try applier.apply(highlights, length: storage.length)
        let log = StorageLog(storage)
        // One match goes, another name appears on one word.
        let removed = highlights.remove(at: 10)
        highlights.append(Highlight(0..<4, name: "spelling"))
        let report = try applier.apply(highlights, length: storage.length)
        #expect(report.changes == [
            HighlightChange(name: "search", range: removed.range, isOn: false),
            HighlightChange(name: "spelling", range: 0..<4, isOn: true),
        ])
        // The session's edited range is the span of the two writes, not the text.
        #expect(log.changes.count == 1 && log.changes[0].editedMask == .attributes)
        #expect(try Self.shown("search", in: storage) == RangeSet(highlights.filter { $0.name == "search" }.map(\.range)))
        #expect(try Self.shown("spelling", in: storage) == RangeSet(0..<4))
    }

    @Test func aPassNeverTouchesTextOrSelection() throws {
        let storage = TextStorage(Self.words)
        try storage.setSelectedRange(NSRange(location: 3, length: 4))
        storage.setTypingAttributes([.italic: true])
        try HighlightApplier(target: storage).apply([Highlight(0..<10, name: "x")], length: 32)
        #expect(storage.string == Self.words)
        #expect(storage.selectedRange == NSRange(location: 3, length: 4))
        #expect(storage.typingAttributes == [.italic: true])
    }

    @Test func highlightsMoveWithTheTextAndShiftedOnesCostNothing() throws {
        let layer = HighlightLayer()
        let applier = HighlightApplier(target: layer)
        try applier.apply(MatchHighlighter(pattern: "beta").highlights(in: Self.words), length: 32)
        let edit = FlatTextEdit(range: 0..<0, replacement: "the ")
        applier.textDidChange(edit)
        let newText = FlatTextEdit.apply([edit], to: Self.words)
        #expect(layer.highlights.map(\.range) == [10..<14, 21..<25, 32..<36])
        #expect(try applier.apply(MatchHighlighter(pattern: "beta").highlights(in: newText), length: 36).isNoOp)
        // Typing inside a match splits it; the next pass removes the broken match only.
        let typed = FlatTextEdit(range: 12..<12, replacement: "x")
        applier.textDidChange(typed)
        let report = try applier.apply(MatchHighlighter(pattern: "beta").highlights(in: FlatTextEdit.apply([typed], to: newText)), length: 37)
        #expect(report.changes == [
            HighlightChange(name: "search", range: 10..<12, isOn: false),
            HighlightChange(name: "search", range: 13..<15, isOn: false),
        ])
        #expect(layer.highlights.map(\.range) == [22..<26, 33..<37])
    }

    @Test func textTypedNextToAStorageHighlightLosesTheInheritedHighlight() throws {
        let storage = TextStorage("foo bar")
        let applier = HighlightApplier(target: storage)
        try applier.apply([Highlight(0..<3, name: "search")], length: 7)
        // The view types after "foo": the typing attributes come from the "o" before the caret.
        try storage.setSelectedRange(NSRange(location: 3, length: 0))
        try storage.replaceCharacters(in: NSRange(location: 3, length: 0), with: "d")
        #expect(try Self.shown("search", in: storage) == RangeSet(0..<4))
        applier.textDidChange(FlatTextEdit(range: 3..<3, replacement: "d"))
        let report = try applier.apply([Highlight(0..<3, name: "search")], length: 8)
        #expect(report.changes == [HighlightChange(name: "search", range: 3..<4, isOn: false)])
        #expect(try Self.shown("search", in: storage) == RangeSet(0..<3))
    }

    @Test func badRangesAreRefusedAndNothingIsWritten() throws {
        let layer = HighlightLayer()
        let applier = HighlightApplier(target: layer)
        let bad = Highlight(3..<40, name: "x")
        #expect(throws: InteractionError.highlightOutOfBounds(bad, length: 10)) { try applier.apply([Highlight(0..<2, name: "x"), bad], length: 10) }
        #expect(throws: InteractionError.highlightOutOfBounds(Highlight(4..<4, name: "x"), length: 10)) { try applier.apply([Highlight(4..<4, name: "x")], length: 10) }
        #expect(layer.writtenChanges == 0 && applier.shown.isEmpty)
    }

    // MARK: Throttle

    @Test func theThrottleRunsTheFirstAndThenOncePerInterval() {
        let clock = ManualClock()
        let start = clock.instant
        var throttle = Throttle(interval: .milliseconds(100))
        var ran: [Bool] = []
        ran.append(throttle.request(at: start))
        #expect(throttle.deadline == nil)
        ran.append(throttle.request(at: start + .milliseconds(30)))
        ran.append(throttle.request(at: start + .milliseconds(60)))
        #expect(throttle.deadline == start + .milliseconds(100))
        ran.append(throttle.takeDue(at: start + .milliseconds(99)))
        ran.append(throttle.takeDue(at: start + .milliseconds(100)))
        // Nothing waits any more.
        ran.append(throttle.takeDue(at: start + .milliseconds(500)))
        ran.append(throttle.request(at: start + .milliseconds(150)))
        ran.append(throttle.request(at: start + .milliseconds(400)))
        #expect(ran == [true, false, false, false, true, false, false, true])
    }

    @Test func burstsOfTypingCoalesceIntoFewPasses() throws {
        let clock = ManualClock()
        let editor = try makeEditor(["ab"], selection: 2..<2)
        let layer = HighlightLayer()
        let scheduler = HighlightScheduler(
            highlighter: MatchHighlighter(pattern: "ab"), target: layer, interval: .milliseconds(200), now: { clock.instant }
        ) { editor.text }
        scheduler.observe(editor)
        try scheduler.requestPass()
        #expect(layer.highlights.map(\.range) == [0..<2])
        clock.advance(.seconds(1))
        let selection = editor.nativeSelection
        for character in " ab ab ab ab" {
            try editor.replaceCharacters(in: editor.nativeSelection!, with: String(character))
            clock.advance(.milliseconds(15))
        }
        // The first keystroke ran a pass at once; the other eleven wait for one more.
        #expect(scheduler.passes == 2)
        #expect(try scheduler.tick() == nil)
        clock.advance(.milliseconds(100))
        #expect(try scheduler.tick() != nil)
        #expect(scheduler.passes == 3)
        #expect(layer.highlights.map(\.range) == [0..<2, 3..<5, 6..<8, 9..<11, 12..<14])
        #expect(editor.text == "ab ab ab ab ab")
        #expect(selection == 2..<2 && editor.nativeSelection == 14..<14)
    }
}
