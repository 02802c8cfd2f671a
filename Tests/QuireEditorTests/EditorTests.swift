import Foundation
import QuireAlgorithms
import QuireTestSupport
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage
import Testing
@testable import QuireEditor

/// An editor with a storage, as a text view would have, typing through the native entry point.
func makeEditor(_ paragraphs: [String] = [""]) throws -> Editor {
    try Editor(state: EditorState(paragraphs: paragraphs), storage: TextStorage())
}

extension Editor {
    /// Types at the current native selection, as a text view does.
    func type(_ text: String) throws {
        guard let selection = nativeSelection else { throw EditorError.model(.noSelection) }
        try replaceCharacters(in: selection, with: text)
    }

    func select(_ range: Range<Int>) throws { try selectionDidChange(range) }

    var text: String { storage?.string ?? FlatString.render(state) }

    /// The texts of the first paragraph's children.
    func pieces(block: Int = 0) -> [String] {
        state.children(of: state.child(at: block, of: .root)!).map(\.text)
    }
}

@Suite struct EditorAcceptanceTests {
    @Test func typingIntoAnEmptyEditor() throws {
        let editor = try makeEditor()
        try editor.type("1")
        try editor.type("\n")
        try editor.type("Hello World! Welcome to Lexical iOS!")
        try editor.select(17..<17)
        try editor.type("T")
        #expect(editor.text == "1\nHello World! WeTlcome to Lexical iOS!")
        #expect(editor.nativeSelection == 18..<18)
        #expect(editor.storage?.selectedRange == NSRange(location: 18, length: 0))
    }

    @Test func deletingAcrossParagraphs() throws {
        let editor = try makeEditor()
        try editor.type("Hello world")
        try editor.type("\n")
        try editor.type("here's para 2")
        try editor.replaceCharacters(in: 5..<14, with: "")
        #expect(editor.text == "Hellore's para 2")
        #expect(editor.pieces() == ["Hellore's para 2"])
        #expect(editor.nativeSelection == 5..<5)
    }

    @Test func enterAtOffsetZeroAndInTheMiddle() throws {
        let editor = try makeEditor(["Hello"])
        try editor.select(0..<0)
        try editor.type("\n")
        #expect(editor.text == "\nHello")
        #expect(editor.nativeSelection == 1..<1)
        try editor.select(3..<3)
        try editor.type("\n")
        #expect(editor.text == "\nHe\nllo")
        #expect(editor.state.root.childCount == 3)
    }

    @Test func boldOverARange() throws {
        let editor = try makeEditor(["I am testing to verify format updates!!"])
        try editor.select(5..<15)
        try editor.dispatch(Commands.formatText, .bold)
        #expect(editor.pieces() == ["I am ", "testing to", " verify format updates!!"])
        let storage = try #require(editor.storage)
        let runs = try storage.runs(in: NSRange(location: 0, length: storage.length))
        #expect(runs.map(\.range) == [NSRange(location: 0, length: 5), NSRange(location: 5, length: 10), NSRange(location: 15, length: 24)])
        #expect(runs[1].attributes[Theme.Keys.bold] == .bool(true))
    }

    @Test func backspaceBehaviours() throws {
        let editor = try makeEditor(["abc", ""])
        try editor.select(4..<4)
        try editor.dispatch(Commands.deleteCharacter, true)
        #expect(editor.text == "abc")
        #expect(editor.nativeSelection == 3..<3)
        try editor.select(0..<0)
        try editor.dispatch(Commands.deleteCharacter, true)
        #expect(editor.text == "abc")
        let merging = try makeEditor(["abc", "def"])
        try merging.select(4..<4)
        try merging.dispatch(Commands.deleteCharacter, true)
        #expect(merging.text == "abcdef")
        #expect(merging.nativeSelection == 3..<3)
        let forward = try makeEditor(["abc", "def"])
        try forward.select(3..<3)
        try forward.dispatch(Commands.deleteCharacter, false)
        #expect(forward.text == "abcdef")
    }

    @Test(arguments: ["👨‍👩‍👧‍👦", "🇺🇸", "👍🏽"])
    func backspaceDeletesGraphemes(_ cluster: String) throws {
        let editor = try makeEditor(["a" + cluster])
        try editor.select((1 + cluster.utf16.count)..<(1 + cluster.utf16.count))
        try editor.dispatch(Commands.deleteCharacter, true)
        #expect(editor.text == "a")
    }

    @Test func badInputThrowsAndChangesNothing() throws {
        let editor = try makeEditor(["a👍b"])
        let before = editor.state
        #expect(throws: (any Error).self) { try editor.replaceCharacters(in: 3..<9, with: "x") }
        #expect(throws: (any Error).self) { try editor.replaceCharacters(in: 2..<2, with: "x") }  // inside the surrogate pair
        #expect {
            try editor.update { state in try state.select(.text(NodeKey(4_242), 0)) }
        } throws: { error in
            if case .model = error as? EditorError { true } else { false }
        }
        #expect(LexicalJSON.export(editor.state) == LexicalJSON.export(before))
        #expect(editor.text == "a👍b")
    }
}

@Suite struct EditorRuntimeTests {
    struct Boom: Error {}

    @Test func anErrorRollsBackEverything() throws {
        let editor = try makeEditor(["keep"])
        var seen: [String] = []
        editor.registerErrorListener { seen.append("\($0)") }
        let selection = editor.state.selection
        #expect {
            try editor.update { state in
                try state.insertText("lost")
                throw Boom()
            }
        } throws: { error in
            (error as? EditorError)?.thrownError is Boom
        }
        #expect(editor.text == "keep")
        #expect(editor.state.selection == selection)
        #expect(seen.count == 1)
        #expect(editor.history.undoCount == 0)
    }

    @Test func nestedUpdatesRunInline() throws {
        let editor = try makeEditor(["x"])
        var commits = 0
        editor.registerUpdateListener { _ in commits += 1 }
        try editor.update { state in
            try state.insertText("a")
            try editor.update { inner in try inner.insertText("b") }
        }
        #expect(commits == 1)
        #expect(editor.read { FlatString.render($0) } == "abx")
    }

    @Test func textListenersFireOnlyWhenTextChanges() throws {
        let editor = try makeEditor(["hello"])
        // A mirror of the flat string kept only from the listener's edits.
        var mirror = editor.text
        var texts: [String] = []
        let token = editor.registerTextContentListener { change in
            mirror = FlatTextEdit.apply(change.edits, to: mirror)
            texts.append(mirror)
        }
        try editor.select(0..<5)
        try editor.dispatch(Commands.formatText, .bold)
        #expect(texts.isEmpty)
        try editor.select(5..<5)
        try editor.type("!")
        #expect(texts == ["hello!"])
        editor.unregister(token)
        try editor.type("?")
        #expect(texts == ["hello!"])
    }

    @Test func commandsRunByPriorityAndCanBeRemoved() throws {
        let editor = try makeEditor()
        let command = CommandType<Int>("test")
        var calls: [String] = []
        try editor.registerCommand(command, priority: .low) { _, _ in calls.append("low"); return true }
        let high = try editor.registerCommand(command, priority: .high) { value, _ in calls.append("high\(value)"); return value > 1 }
        try editor.registerCommand(command, priority: .critical) { _, _ in calls.append("critical"); return false }
        #expect(try editor.dispatch(command, 1))
        #expect(calls == ["critical", "high1", "low"])
        calls = []
        #expect(try editor.dispatch(command, 2))
        #expect(calls == ["critical", "high2"])
        editor.unregister(high)
        calls = []
        _ = try editor.dispatch(command, 2)
        #expect(calls == ["critical", "low"])
        #expect(try editor.dispatch(CommandType<Int>("nobody"), 1) == false)
    }

    @Test func transformsRunToAFixpointAndLoopsAreStopped() throws {
        let editor = try makeEditor([""])
        // Upper-cases every text node: writing it once makes it dirty again, and the second pass
        // finds nothing to change.
        editor.registerNodeTransform(.text) { state, key throws(ModelError) in
            let text = state[key]!.text
            if text != text.uppercased() { try state.setText(text.uppercased(), of: key) }
        }
        try editor.type("shout")
        #expect(editor.text == "SHOUT")
        let loop = editor.registerNodeTransform(.text) { state, key throws(ModelError) in
            try state.setText(state[key]!.text + "!", of: key)
        }
        #expect(throws: EditorError.transformLoop(passes: 99)) { try editor.type("x") }
        #expect(editor.text == "SHOUT")
        editor.unregister(loop)
    }

    @Test func adjacentEqualTextNodesAreNormalized() throws {
        let editor = try makeEditor([""])
        try editor.update { state in
            let paragraph = state.child(at: 0, of: .root)!
            try state.append(state.createNode(type: .text, text: "a"), to: paragraph)
            try state.append(state.createNode(type: .text, text: "b"), to: paragraph)
            try state.append(state.createNode(type: .text, text: "c", fields: ["format": .number(.integer(1))]), to: paragraph)
        }
        #expect(editor.pieces() == ["ab", "c"])
    }

    @Test func headlessModeHasNoStorage() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["abc"]))
        #expect(editor.storage == nil)
        try editor.replaceCharacters(in: 3..<3, with: "d\ne")
        #expect(FlatString.render(editor.state) == "abcd\ne")
        #expect(editor.nativeSelection == 6..<6)
        #expect(throws: EditorError.self) { try editor.setMarkedText("x", selectedRange: 1..<1) }
    }

    @Test func historyMergesTypingAndKeepsItsDepth() throws {
        final class FakeClock: @unchecked Sendable { var instant = ContinuousClock.now }
        let clock = FakeClock()
        let editor = try Editor(state: EditorState(paragraphs: [""]), storage: TextStorage(), history: History(mergeInterval: .seconds(1), maximumDepth: 3, now: { clock.instant }))
        try editor.type("a")
        try editor.type("b")
        clock.instant += .seconds(5)
        try editor.type("c")
        #expect(editor.history.undoCount == 2)
        try editor.undo()
        #expect(editor.text == "ab")
        try editor.undo()
        #expect(editor.text == "")
        #expect(try editor.undo() == false)
        try editor.redo()
        #expect(editor.text == "ab")
        try editor.redo()
        #expect(editor.text == "abc")
        for letter in ["d", "e", "f", "g"] {
            clock.instant += .seconds(5)
            try editor.type(letter)
        }
        #expect(editor.history.undoCount == 3)
    }

    @Test func koreanCompositionWithBoldCommitsBold() throws {
        let editor = try makeEditor(["x"])
        try editor.select(1..<1)
        try editor.dispatch(Commands.formatText, .bold)
        try editor.setMarkedText("ㄱ", selectedRange: 1..<1)
        try editor.setMarkedText("가", selectedRange: 1..<1)
        try editor.setMarkedText("각", selectedRange: 1..<1)
        try editor.unmarkText()
        #expect(editor.text == "x각")
        #expect(editor.pieces() == ["x", "각"])
        #expect(editor.state[editor.state[editor.state.child(at: 0, of: .root)!]!.lastChild!]?.textFormat == .bold)
        #expect(editor.nativeSelection == 2..<2)
        try editor.reconciler.verify(editor.state)
    }
}

@Suite struct EditorRandomizedTests {
    /// Grapheme-cluster boundaries of the storage text, where a text view may put a caret.
    func boundaries(_ text: String) -> [Int] {
        var result = [0]
        for character in text { result.append(result.last! + character.utf16.count) }
        return result
    }

    @Test func tenThousandRandomStepsKeepTheInvariants() throws {
        var generator = SeededGenerator(seed: 0xED17_0001)
        let editor = try makeEditor(["start"])
        editor.reconciler.checksInvariants = true
        let inserts = ["a", "bc", " ", "\n", "é", "👍🏽", "🇺🇸", "中文", "x\ny", "\u{2028}"]
        var replayProblems: [String] = []
        var mirror = editor.text
        editor.registerUpdateListener { update in
            replayProblems += TransactionReplay.violations(of: update.transaction, from: update.previousState, to: update.state)
        }
        editor.registerTextContentListener { change in mirror = FlatTextEdit.apply(change.edits, to: mirror) }
        for step in 0..<10_000 {
            let points = boundaries(editor.text)
            let a = points.randomElement(using: &generator)!
            let b = points.randomElement(using: &generator)!
            let range = min(a, b)..<max(a, b)
            switch Int.random(in: 0..<12, using: &generator) {
            case 0...3: try editor.replaceCharacters(in: range, with: inserts.randomElement(using: &generator)!)
            case 4: try editor.replaceCharacters(in: range, with: "")
            case 5: try editor.select(range)
            case 6:
                try editor.select(range)
                try editor.dispatch(Commands.formatText, [TextFormat.bold, .italic, .code].randomElement(using: &generator)!)
            case 7:
                try editor.select(range.upperBound..<range.upperBound)
                try editor.dispatch(Commands.deleteCharacter, Bool.random(using: &generator))
            case 8:
                try editor.select(range.upperBound..<range.upperBound)
                try editor.dispatch(Commands.deleteWord, Bool.random(using: &generator))
            case 9: _ = try editor.undo()
            case 10: _ = try editor.redo()
            default:
                try editor.select(range.lowerBound..<range.lowerBound)
                try editor.dispatch(Commands.insertLineBreak, false)
            }
            // The reconciler checks storage and index after every commit (checksInvariants);
            // here the selection must round-trip through the index.
            let native = try #require(editor.nativeSelection, "step \(step)")
            #expect(native.upperBound <= editor.text.utf16.count)
            try editor.select(native)
            #expect(editor.nativeSelection == native, "step \(step)")
            if step % 500 == 0 { try editor.reconciler.verify(editor.state) }
            #expect(replayProblems.isEmpty, "step \(step): \(replayProblems)")
            #expect(mirror == editor.text, "step \(step)")
            if !replayProblems.isEmpty || mirror != editor.text { return }
        }
        try editor.reconciler.verify(editor.state)
    }
}
