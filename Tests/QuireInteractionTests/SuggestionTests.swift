import Foundation
import QuireEditor
import QuireInteraction
import QuireModel
import QuireTextStorage
import Testing

/// Suggestion insertion: what is replaced, the one trailing space, the caret, composition and
/// undo, through the editor and on a bare storage.
@Suite struct SuggestionTests {
    struct Example: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let selection: Range<Int>
        let word: String
        let replacing: SuggestionReplacement
        let expected: String
        let caret: Int
        var testDescription: String { name }
    }

    static let examples: [Example] = [
        Example(name: "replaces the selection", text: "I like tea", selection: 7..<10, word: "coffee", replacing: .selection,
                expected: "I like coffee ", caret: 14),
        Example(name: "inserts at a caret", text: "hello ", selection: 6..<6, word: "world", replacing: .selection,
                expected: "hello world ", caret: 12),
        Example(name: "replaces the partial word", text: "I like te", selection: 9..<9, word: "tea", replacing: .word,
                expected: "I like tea ", caret: 11),
        Example(name: "a word of letters, digits and underscores", text: "call foo_ba1", selection: 12..<12, word: "foo_bar", replacing: .word,
                expected: "call foo_bar ", caret: 13),
        Example(name: "a word with accents and combining marks", text: "un nai\u{308}", selection: 7..<7, word: "naïve", replacing: .word,
                expected: "un naïve ", caret: 9),
        Example(name: "an emoji ends the word", text: "👍te", selection: 4..<4, word: "tea", replacing: .word,
                expected: "👍tea ", caret: 6),
        Example(name: "no partial word after a space", text: "hello ", selection: 6..<6, word: "world", replacing: .word,
                expected: "hello world ", caret: 12),
        Example(name: "a space after it is not doubled", text: "I like te now", selection: 9..<9, word: "tea", replacing: .word,
                expected: "I like tea now", caret: 11),
        Example(name: "a tab after it is kept", text: "a\tb", selection: 1..<1, word: "apple", replacing: .word,
                expected: "apple\tb", caret: 6),
        Example(name: "a letter after it gets a space", text: "test", selection: 2..<2, word: "tea", replacing: .word,
                expected: "tea st", caret: 4),
        Example(name: "the suggestion's own trailing spaces go", text: "x ", selection: 2..<2, word: "tea  \t", replacing: .selection,
                expected: "x tea ", caret: 6),
        Example(name: "word mode replaces a non-empty selection", text: "big cat", selection: 0..<3, word: "small", replacing: .word,
                expected: "small cat", caret: 6),
        Example(name: "a long partial word", text: String(repeating: "x", count: 100), selection: 100..<100, word: "done", replacing: .word,
                expected: "done ", caret: 5),
    ]

    @Test(arguments: examples)
    func throughTheEditor(_ example: Example) throws {
        let editor = try makeEditor([example.text], selection: example.selection)
        let outcome = try editor.insertSuggestion(example.word, replacing: example.replacing)
        #expect(editor.text == example.expected)
        #expect(editor.nativeSelection == example.caret..<example.caret)
        guard case .inserted(let range, let caret) = outcome else { Issue.record("not inserted: \(outcome)"); return }
        #expect(caret == example.caret)
        let inserted = String(decoding: Array(editor.text.utf16)[range], as: UTF16.self)
        #expect(inserted.hasPrefix(try SuggestionTests.trimmed(example.word)) && (inserted.hasSuffix(" ") || inserted.hasSuffix("\t")))
    }

    @Test(arguments: examples)
    func headless(_ example: Example) throws {
        let editor = try Editor(state: EditorState(paragraphs: [example.text]))
        try editor.selectionDidChange(example.selection)
        try editor.insertSuggestion(example.word, replacing: example.replacing)
        #expect(FlatString.render(editor.state) == example.expected)
        #expect(editor.nativeSelection == example.caret..<example.caret)
    }

    @Test(arguments: examples)
    func onABareStorage(_ example: Example) throws {
        let storage = TextStorage(example.text)
        try storage.setSelectedRange(NSRange(example.selection))
        let outcome = try storage.insertSuggestion(example.word, replacing: example.replacing)
        #expect(storage.string == example.expected)
        #expect(storage.selectedRange == NSRange(location: example.caret, length: 0))
        guard case .inserted(let range, let caret) = outcome else { Issue.record("not inserted: \(outcome)"); return }
        #expect(caret == example.caret)
        let inserted = String(decoding: Array(storage.string.utf16)[range], as: UTF16.self)
        #expect(inserted.hasPrefix(try SuggestionTests.trimmed(example.word)) && (inserted.hasSuffix(" ") || inserted.hasSuffix("\t")))
    }

    static func trimmed(_ word: String) throws -> String {
        var result = word
        while result.last == " " || result.last == "\t" { result.removeLast() }
        return result
    }

    @Test func aSelectionAcrossLinesIsReplacedByTheWord() throws {
        let editor = try makeEditor(["first line", "second line"], selection: 6..<17)
        try editor.insertSuggestion("word")
        #expect(editor.text == "first word line")
        #expect(editor.nativeSelection == 11..<11)
        #expect(editor.state.textBlocks().count == 1)
    }

    @Test func anEmptySuggestionIsRefused() throws {
        let editor = try makeEditor(["abc"], selection: 3..<3)
        #expect(throws: InteractionError.emptySuggestion) { try editor.insertSuggestion(" \t ") }
        #expect(throws: InteractionError.emptySuggestion) { try editor.insertSuggestion("") }
        #expect(editor.text == "abc")
    }

    @Test func nothingHappensDuringComposition() throws {
        let editor = try makeEditor(["ab"], selection: 2..<2)
        try editor.setMarkedText("に", selectedRange: 1..<1)
        let log = CommitLog(editor)
        #expect(try editor.insertSuggestion("word", replacing: .word) == .ignoredDuringComposition)
        #expect(editor.text == "abに")
        #expect(editor.storage?.markedRange == NSRange(location: 2, length: 1))
        #expect(log.updates.isEmpty)

        let storage = TextStorage("ab")
        try storage.setSelectedRange(NSRange(location: 2, length: 0))
        try storage.setMarkedText("に", selectedRange: NSRange(location: 1, length: 0))
        #expect(try storage.insertSuggestion("word") == .ignoredDuringComposition)
        #expect(storage.string == "abに")
    }

    @Test func aSuggestionIsItsOwnUndoStep() throws {
        let clock = ManualClock()
        let editor = try makeEditor([""], selection: 0..<0, history: History(now: { clock.instant }))
        for character in "I like te" {
            try editor.replaceCharacters(in: editor.nativeSelection!, with: String(character))
        }
        #expect(editor.history.undoCount == 1)
        try editor.insertSuggestion("tea", replacing: .word)
        for character in "now" {
            try editor.replaceCharacters(in: editor.nativeSelection!, with: String(character))
        }
        #expect(editor.text == "I like tea now")
        #expect(editor.history.undoCount == 3)
        try editor.undo()
        #expect(editor.text == "I like tea ")
        #expect(editor.nativeSelection == 11..<11)
        try editor.undo()
        #expect(editor.text == "I like te")
        #expect(editor.nativeSelection == 9..<9)
        try editor.undo()
        #expect(editor.text == "")
    }

    @Test func twoSuggestionsInARowAreTwoSteps() throws {
        let editor = try makeEditor(["a"], selection: 1..<1)
        try editor.insertSuggestion("b", replacing: .word)
        try editor.insertSuggestion("c")
        #expect(editor.text == "b c ")
        try editor.undo()
        #expect(editor.text == "b ")
    }

    @Test func theWordIsTypedWithTheTypingAttributes() throws {
        let storage = TextStorage("x ")
        try storage.setSelectedRange(NSRange(location: 2, length: 0))
        storage.setTypingAttributes([.bold: true])
        try storage.insertSuggestion("bold")
        let attributes = try storage.attributes(at: 2).attributes
        #expect(attributes[.bold] == .bool(true))
    }

    @Test func theWordTakesTheReplacedTextsFormat() throws {
        let editor = try makeEditor(["ab"], selection: 0..<2)
        try editor.dispatch(Commands.formatText, .bold)
        try editor.selectionDidChange(2..<2)
        try editor.insertSuggestion("abc", replacing: .word)
        #expect(editor.text == "abc ")
        let text = try #require(editor.state[editor.state.textBlocks()[0]]?.firstChild.flatMap { editor.state[$0] })
        #expect(text.textFormat.contains(.bold))
    }
}
