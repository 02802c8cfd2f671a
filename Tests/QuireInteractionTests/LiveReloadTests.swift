import QuireAlgorithms
import Foundation
import QuireEditor
import QuireInteraction
import QuireModel
import QuireReconciler
import QuireSelection
import QuireTestSupport
import QuireTextStorage
import Testing

/// Live reload from a plain-string source: the live-reload article's cases in its own terms,
/// grapheme clusters, paragraphs, composition and undo.
@Suite struct LiveReloadTests {
    static let sentence = "The quick brown fox jumps"

    struct ArticleCase: CustomTestStringConvertible, Sendable {
        let name: String
        let selection: Range<Int>
        let newText: String
        let expectedCase: ReloadSelectionCase
        let expectedSelection: Range<Int>
        var testDescription: String { name }
    }

    /// The article's five cases (and the caret rule) on one sentence.
    static let articleCases: [ArticleCase] = [
        // "Change is after current cursor": "quick" selected, "fox" becomes "cat".
        ArticleCase(name: "change after the selection", selection: 4..<9, newText: "The quick brown cat jumps",
                    expectedCase: .changeAfterSelection, expectedSelection: 4..<9),
        // "Change occurs within selection": "quick brown fox" selected, "brown" becomes "red".
        ArticleCase(name: "change inside the selection", selection: 4..<19, newText: "The quick red fox jumps",
                    expectedCase: .changeInsideSelection, expectedSelection: 4..<17),
        // "Change is before cursor": "fox" selected, "quick" becomes "slow".
        ArticleCase(name: "change before the selection", selection: 16..<19, newText: "The slow brown fox jumps",
                    expectedCase: .changeBeforeSelection, expectedSelection: 15..<18),
        // "Change starts in middle of selection": "quick brown" selected, "brown fox" becomes "red cat".
        ArticleCase(name: "change starting in the selection", selection: 4..<15, newText: "The quick red cat jumps",
                    expectedCase: .changeStartsInSelection, expectedSelection: 4..<10),
        // "Change is over cursor": the caret inside "brown", which becomes "green" (the diff is
        // "brow" → "gree"): the caret goes after the new text.
        ArticleCase(name: "change over the caret", selection: 12..<12, newText: "The quick green fox jumps",
                    expectedCase: .changeOverCaret, expectedSelection: 14..<14),
        // Over the start of a selection that reaches past the change: the tail stays selected.
        ArticleCase(name: "change over the selection's start", selection: 12..<19, newText: "The quick green fox jumps",
                    expectedCase: .changeOverCaret, expectedSelection: 14..<19),
        // A change starting exactly at the caret counts as before it: the caret moves past
        // inserted text …
        ArticleCase(name: "insertion at the caret", selection: 10..<10, newText: "The quick very brown fox jumps",
                    expectedCase: .changeBeforeSelection, expectedSelection: 15..<15),
        // … and past a replacement that starts there.
        ArticleCase(name: "replacement starting at the caret", selection: 10..<10, newText: "The quick red fox jumps",
                    expectedCase: .changeBeforeSelection, expectedSelection: 13..<13),
        // Text inserted at the end of a selection stays outside it.
        ArticleCase(name: "insertion at the selection's end", selection: 4..<9, newText: "The quickest brown fox jumps",
                    expectedCase: .changeAfterSelection, expectedSelection: 4..<9),
    ]

    @Test(arguments: articleCases)
    func articleCase(_ example: ArticleCase) throws {
        let editor = try makeEditor([Self.sentence], selection: example.selection)
        let storageLog = StorageLog(try #require(editor.storage))
        let report = try #require(try editor.reload(text: example.newText))
        // The storage got exactly the diff, in one session.
        #expect(storageLog.changes.map(\.editedRange) == [NSRange(location: report.edit.range.lowerBound, length: report.edit.replacementLength)])
        #expect(storageLog.changes.map(\.changeInLength) == [report.edit.lengthChange])
        #expect(editor.text == example.newText)
        #expect(report.selectionCase == example.expectedCase)
        #expect(report.selectionBefore == example.selection)
        #expect(editor.nativeSelection == example.expectedSelection)
        #expect(report.selectionAfter == example.expectedSelection)
        #expect(editor.storage?.selectedRange == NSRange(example.expectedSelection))
        // The pure rule agrees with what the editor did.
        let mapped = ReloadSelectionCase.map(example.selection, through: report.edit)
        #expect(mapped.case == example.expectedCase && mapped.selection == example.expectedSelection)
    }

    @Test func aBackwardSelectionStaysBackward() throws {
        let editor = try makeEditor([Self.sentence], selection: 4..<9, isBackward: true)
        try editor.reload(text: "The quick brown cat jumps")
        let selection = try #require(editor.state.selection)
        #expect(editor.nativeSelection == 4..<9)
        #expect(try SelectionMapper.range(of: selection, in: editor.state, index: editor.reconciler.index).isBackward)
    }

    @Test func theSameTextCommitsNothing() throws {
        let editor = try makeEditor([Self.sentence], selection: 3..<3)
        let log = CommitLog(editor)
        #expect(try editor.reload(text: Self.sentence) == nil)
        #expect(log.updates.isEmpty)
        #expect(editor.history.undoCount == 0)
    }

    // MARK: Grapheme clusters

    struct ClusterCase: CustomTestStringConvertible, Sendable {
        let name: String
        let old: String
        let new: String
        let range: Range<Int>
        let replacement: String
        var testDescription: String { name }
    }

    static let clusterCases: [ClusterCase] = [
        // The UTF-16 diff would insert only the modifier after the thumb.
        ClusterCase(name: "skin tone added", old: "ok 👍 yes", new: "ok 👍🏽 yes", range: 3..<5, replacement: "👍🏽"),
        ClusterCase(name: "skin tone changed", old: "ok 👍🏻 yes", new: "ok 👍🏿 yes", range: 3..<7, replacement: "👍🏿"),
        // A family differing in its last member is one cluster: replaced whole.
        ClusterCase(name: "ZWJ family", old: "a👨‍👩‍👧b", new: "a👨‍👩‍👦b", range: 1..<9, replacement: "👨‍👩‍👦"),
        ClusterCase(name: "ZWJ sequence extended", old: "a👩b", new: "a👩‍💻b", range: 1..<3, replacement: "👩‍💻"),
        // France → Finland shares the first regional indicator.
        ClusterCase(name: "flag", old: "🇫🇷🇩🇪", new: "🇫🇮🇩🇪", range: 0..<4, replacement: "🇫🇮"),
        ClusterCase(name: "flag after flag", old: "x🇩🇪🇫🇷", new: "x🇩🇪🇫🇮", range: 5..<9, replacement: "🇫🇮"),
        // Combining marks belong to their letter.
        ClusterCase(name: "combining mark changed", old: "cafe\u{301}!", new: "cafe\u{300}!", range: 3..<5, replacement: "e\u{300}"),
        ClusterCase(name: "combining mark added", old: "cafe!", new: "cafe\u{301}!", range: 3..<4, replacement: "e\u{301}"),
        ClusterCase(name: "letter before a shared mark", old: "x\u{301}y", new: "z\u{301}y", range: 0..<2, replacement: "z\u{301}"),
        ClusterCase(name: "CR LF", old: "a\r\nb", new: "a\rb", range: 1..<3, replacement: "\r"),
    ]

    @Test(arguments: clusterCases)
    func editsAreWidenedToClusters(_ example: ClusterCase) {
        let edit = FlatTextEdit.between(example.old, example.new)
        #expect(edit.range == example.range)
        #expect(edit.replacement == example.replacement)
        // Applying it gives the new text, and both ends are cluster boundaries of both texts.
        #expect(FlatTextEdit.apply([edit], to: example.old) == example.new)
        for (text, end) in [(example.old, edit.range.upperBound), (example.new, edit.range.lowerBound + edit.replacementLength)] {
            #expect(Self.isClusterBoundary(edit.range.lowerBound, in: text))
            #expect(Self.isClusterBoundary(end, in: text))
        }
    }

    static func isClusterBoundary(_ offset: Int, in text: String) -> Bool {
        var position = 0
        for character in text {
            if position == offset { return true }
            position += character.utf16.count
        }
        return position == offset
    }

    @Test(arguments: clusterCases.filter { !$0.old.contains("\r") })
    func theEditorReloadsClustersWhole(_ example: ClusterCase) throws {
        let end = example.old.utf16.count
        let editor = try makeEditor([example.old], selection: end..<end)
        let report = try #require(try editor.reload(text: example.new))
        #expect(editor.text == example.new)
        #expect(report.edit.range == example.range)
        // The caret was after the change: it keeps its place at the end.
        #expect(editor.nativeSelection == example.new.utf16.count..<example.new.utf16.count)
    }

    // MARK: Paragraphs

    @Test func removingAParagraphTouchesOnlyTheChange() throws {
        let editor = try makeEditor(["One", "Two", "Three", "Four"], selection: 17..<17)
        let blocks = editor.state.textBlocks()
        let untouched: Set<NodeKey> = [blocks[0], blocks[3], editor.state[blocks[0]]!.firstChild!, editor.state[blocks[3]]!.firstChild!]
        let log = CommitLog(editor)
        let storageLog = StorageLog(try #require(editor.storage))
        let report = try #require(try editor.reload(text: "One\nThree\nFour"))
        #expect(editor.text == "One\nThree\nFour")
        #expect(report.edit == FlatTextEdit(range: 5..<9, replacement: ""))
        let update = try #require(log.updates.last)
        #expect(update.transaction.origin == .reload)
        // No operation wrote a node outside the change (its neighbours' links aside).
        #expect(update.transaction.operations.allSatisfy { $0.key.map { !untouched.contains($0) } ?? true })
        #expect(editor.state[blocks[3]]?.firstChild.flatMap { editor.state[$0]?.text } == "Four")
        // One editing session, and every unit outside the change kept its place.
        #expect(storageLog.changes.count == 1)
        let change = try #require(storageLog.changes.first)
        #expect(change.changeInLength == -4)
        // Confined to the changed paragraph: neither "One\n" before it nor "Four" after it.
        #expect(change.editedRange.location >= 5 && NSMaxRange(change.editedRange) <= 10, "\(change.editedRange)")
        // The caret in "Four" moved back with its text.
        #expect(editor.nativeSelection == 13..<13)
    }

    @Test func addingParagraphsSplitsOnlyWhereTheyGo() throws {
        let editor = try makeEditor(["alpha", "omega"], selection: 8..<8)
        let omega = editor.state.textBlocks()[1]
        let omegaText = editor.state[omega]!.firstChild!
        let log = CommitLog(editor)
        let storageLog = StorageLog(try #require(editor.storage))
        try editor.reload(text: "alpha\nbeta\ngamma\nomega")
        // "beta\ngamma\n" before "omega" went in as new blocks after "alpha": one storage edit of
        // the same size (the reconciler writes the blocks after alpha's "\n").
        #expect(storageLog.changes.map(\.editedRange) == [NSRange(location: 6, length: 11)])
        #expect(editor.text == "alpha\nbeta\ngamma\nomega")
        #expect(editor.state.textBlocks().count == 4)
        let untouched: Set<NodeKey> = [omega, omegaText]
        #expect(log.updates.last?.transaction.operations.allSatisfy { $0.key.map { !untouched.contains($0) } ?? true } == true)
        #expect(editor.nativeSelection == 19..<19)
    }

    @Test func removingAWholeParagraphKeepsTheNextOnesNodes() throws {
        let editor = try makeEditor(["One", "Two", "Four"], selection: 10..<10)
        let four = editor.state.textBlocks()[2]
        let fourText = editor.state[four]!.firstChild!
        let log = CommitLog(editor)
        let storageLog = StorageLog(try #require(editor.storage))
        let report = try #require(try editor.reload(text: "One\nFour"))
        #expect(storageLog.changes.map(\.editedRange) == [NSRange(location: 4, length: 0)])
        #expect(storageLog.changes.map(\.changeInLength) == [-4])
        #expect(editor.text == "One\nFour")
        // "Two\n" at the start of its paragraph went as "\nTwo" at the end of "One".
        #expect(report.edit == FlatTextEdit(range: 3..<7, replacement: ""))
        #expect(editor.state.textBlocks() == [editor.state.textBlocks()[0], four])
        #expect(editor.state[fourText]?.text == "Four")
        let untouched: Set<NodeKey> = [four, fourText]
        #expect(log.updates.last?.transaction.operations.allSatisfy { $0.key.map { !untouched.contains($0) } ?? true } == true)
        #expect(editor.nativeSelection == 6..<6)
    }

    @Test func paragraphsAddedOrRemovedAtTheDocumentsStartLeaveTheRestAlone() throws {
        let editor = try makeEditor(["first", "second"], selection: 8..<8)
        let blocks = editor.state.textBlocks()
        let untouched = Set(blocks + blocks.compactMap { editor.state[$0]?.firstChild })
        let log = CommitLog(editor)
        let storageLog = StorageLog(try #require(editor.storage))
        try editor.reload(text: "new\n\nalso new\nfirst\nsecond")
        #expect(editor.text == "new\n\nalso new\nfirst\nsecond")
        #expect(editor.state.textBlocks().suffix(2) == blocks[...])
        #expect(log.updates.last?.transaction.operations.allSatisfy { $0.key.map { !untouched.contains($0) } ?? true } == true)
        #expect(storageLog.changes.map(\.editedRange) == [NSRange(location: 0, length: 14)])
        #expect(editor.nativeSelection == 22..<22)
        // And removed again.
        try editor.reload(text: "first\nsecond")
        #expect(editor.state.textBlocks() == blocks)
        #expect(log.updates.last?.transaction.operations.allSatisfy { $0.key.map { !untouched.contains($0) } ?? true } == true)
        #expect(storageLog.changes.last?.changeInLength == -14)
        #expect(editor.nativeSelection == 8..<8)
        try editor.undo()
        #expect(editor.text == "new\n\nalso new\nfirst\nsecond")
    }

    @Test func replacingEverythingPutsTheCaretAfterTheNewText() throws {
        let editor = try makeEditor(["abc", "def"], selection: 5..<5)
        try editor.reload(text: "xyz")
        #expect(editor.text == "xyz")
        #expect(editor.nativeSelection == 3..<3)
    }

    @Test func lineBreaksOfTheSourceBecomeParagraphs() throws {
        let editor = try makeEditor(["a"], selection: 1..<1)
        try editor.reload(text: "a\r\nb\rc\u{2029}d")
        #expect(editor.text == "a\nb\nc\nd")
        #expect(editor.state.textBlocks().count == 4)
    }

    @Test func headlessEditorsReloadToo() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["hello world"]))
        try editor.selectionDidChange(6..<11)
        try editor.reload(text: "hello there, world")
        #expect(FlatString.render(editor.state) == "hello there, world")
        #expect(editor.nativeSelection == 13..<18)
    }

    // MARK: Undo

    @Test func aReloadIsOneUndoStepOfItsOwn() throws {
        let clock = ManualClock()
        let editor = try makeEditor(["Hello"], selection: 5..<5, history: History(now: { clock.instant }))
        try editor.replaceCharacters(in: 5..<5, with: "!")
        try editor.selectionDidChange(1..<3)
        try editor.reload(text: "Oh, Hello!")
        #expect(editor.nativeSelection == 5..<7)
        try editor.replaceCharacters(in: 10..<10, with: "?")
        #expect(editor.history.undoCount == 3)
        try editor.undo()
        #expect(editor.text == "Oh, Hello!")
        try editor.undo()
        // The text and the selection from before the reload.
        #expect(editor.text == "Hello!")
        #expect(editor.nativeSelection == 1..<3)
        try editor.redo()
        #expect(editor.text == "Oh, Hello!")
        try editor.undo()
        try editor.undo()
        #expect(editor.text == "Hello")
    }

    @Test func twoReloadsAreTwoSteps() throws {
        let editor = try makeEditor(["a"], selection: 1..<1)
        try editor.reload(text: "ab")
        try editor.reload(text: "abc")
        #expect(editor.history.undoCount == 2)
        try editor.undo()
        #expect(editor.text == "ab")
    }

    // MARK: Composition

    @Test func anEditorRefusesAReloadWhileComposing() throws {
        let editor = try makeEditor(["abc"], selection: 3..<3)
        try editor.setMarkedText("か", selectedRange: 1..<1)
        #expect(throws: InteractionError.reloadDuringComposition) { try editor.reload(text: "xabc") }
        #expect(editor.text == "abcか")
    }

    @Test func aReloadDuringCompositionWaitsAndKeepsTheComposedWord() throws {
        let editor = try makeEditor(["hello", "world"], selection: 11..<11)
        let reloader = LiveReload(editor: editor)
        try editor.setMarkedText("か", selectedRange: 1..<1)
        #expect(try reloader.reload(text: "Hello\nworld") == .deferred)
        // Nothing moved under the IME.
        #expect(editor.text == "hello\nworldか")
        #expect(editor.storage?.markedRange == NSRange(location: 11, length: 1))
        #expect(try reloader.applyPending() == nil)
        try editor.setMarkedText("かな", selectedRange: 2..<2)
        try editor.unmarkText()
        let outcome = try #require(try reloader.applyPending())
        guard case .applied(let report) = outcome else { Issue.record("expected an applied reload, got \(outcome)"); return }
        // The source's change (h → H) and the composed word are both there.
        #expect(editor.text == "Hello\nworldかな")
        #expect(report.selectionCase == .changeAfterSelection || report.selectionCase == .changeBeforeSelection)
        #expect(editor.nativeSelection == 13..<13)
        #expect(reloader.pendingText == nil)
    }

    @Test func whenTheSourceChangedTheComposedPlaceTheSourceWins() throws {
        let editor = try makeEditor(["hello"], selection: 5..<5)
        let reloader = LiveReload(editor: editor)
        try editor.setMarkedText("x", selectedRange: 1..<1)
        #expect(try reloader.reload(text: "hello there") == .deferred)
        #expect(try reloader.reload(text: "hello there!") == .deferred)
        try editor.unmarkText()
        try reloader.applyPending()
        #expect(editor.text == "hello there!")
    }

    @Test func aReloadWithoutCompositionAppliesAtOnce() throws {
        let editor = try makeEditor(["abc"], selection: 0..<0)
        let reloader = LiveReload(editor: editor)
        #expect(try reloader.reload(text: "abc") == .unchanged)
        guard case .applied = try reloader.reload(text: "abcd") else { Issue.record("not applied"); return }
        #expect(editor.text == "abcd")
    }

    // MARK: Randomized

    /// Random documents, selections and new texts: the text always arrives, the selection is the
    /// five-case rule's, nodes are kept where the text is, and undo restores both.
    @Test func randomReloadsFollowTheRule() throws {
        let steps = ProcessInfo.processInfo.environment["QUIRE_LONG_STEPS"].flatMap(Int.init) ?? 400
        var random = SeededGenerator(seed: 0x5EED_1701)
        let alphabet: [String] = ["a", "b", "c", " ", "\n", "é", "e\u{301}", "👍", "👍🏽", "👨‍👩‍👧", "🇫🇷", "漢"]
        func randomText(_ count: Int) -> String {
            (0..<count).map { _ in alphabet.randomElement(using: &random)! }.joined()
        }
        func boundaries(_ text: String) -> [Int] {
            var result = [0]
            for character in text { result.append(result.last! + character.utf16.count) }
            return result
        }
        let editor = try Editor(state: EditorState(paragraphs: [""]), storage: TextStorage(), history: History(maximumDepth: 1_000_000))
        for step in 0..<steps {
            let old = editor.text
            let cuts = boundaries(old)
            let a = cuts.randomElement(using: &random)!
            let b = cuts.filter { $0 >= a }.randomElement(using: &random)!
            let s = cuts.randomElement(using: &random)!
            let e = Bool.random(using: &random) ? s : cuts.filter { $0 >= s }.randomElement(using: &random)!
            try editor.selectionDidChange(s..<e)
            let selectionBefore = try #require(editor.nativeSelection)
            var units = Array(old.utf16)
            units.replaceSubrange(a..<b, with: Array(randomText(Int.random(in: 0...4, using: &random)).utf16))
            let new = String(decoding: units, as: UTF16.self)
            let undoCount = editor.history.undoCount
            let report = try editor.reload(text: new)
            #expect(editor.text == new, "step \(step)")
            guard let report else {
                #expect(old == new, "step \(step)")
                continue
            }
            let expected = ReloadSelectionCase.map(selectionBefore, through: report.edit)
            #expect(editor.nativeSelection == expected.selection, "step \(step): \(old.debugDescription) → \(new.debugDescription), \(selectionBefore)")
            #expect(editor.history.undoCount == undoCount + 1, "step \(step)")
            if step % 5 == 0 {
                try editor.undo()
                #expect(editor.text == old, "step \(step): undo")
                #expect(editor.nativeSelection == selectionBefore, "step \(step): undo selection")
                try editor.redo()
                #expect(editor.text == new, "step \(step): redo")
            }
        }
    }
}
