import QuireEditor
import QuireModel
import Testing

/// The platform text-input contract (UITextInput / NSTextInputClient) for IME composition:
/// an insertion during composition replaces the marked text, undo first ends the composition and
/// then takes back only the composition, and the caret ends after the committed text.
@Suite struct CompositionContractTests {
    @Test func undoDuringCompositionTakesBackOnlyTheComposition() throws {
        let editor = try makeEditor([""])
        try editor.select(0..<0)
        try editor.type("ab")
        try editor.setMarkedText("か", selectedRange: 1..<1)
        #expect(editor.text == "abか")
        #expect(try editor.undo())
        #expect(editor.storage?.isComposing == false)
        #expect(editor.text == "ab")
        #expect(try editor.undo())
        #expect(editor.text == "")
        try editor.reconciler.verify(editor.state)
    }

    @Test func aCompositionIsOneUndoStepHoweverManyTimesItChanges() throws {
        let editor = try makeEditor(["x"])
        try editor.select(1..<1)
        for (marked, caret) in [("ㄱ", 1), ("가", 1), ("각", 1)] { try editor.setMarkedText(marked, selectedRange: caret..<caret) }
        try editor.unmarkText()
        try editor.type("!")
        #expect(editor.text == "x각!")
        #expect(try editor.undo())
        #expect(editor.text == "x각")
        #expect(try editor.undo())
        #expect(editor.text == "x")
    }

    @Test(arguments: [0, 1, 2])
    func typingDuringCompositionReplacesTheMarkedText(caretInside: Int) throws {
        let editor = try makeEditor(["xy"])
        try editor.select(1..<1)
        try editor.setMarkedText("ka", selectedRange: caretInside..<caretInside)
        #expect(editor.text == "xkay")
        // The IME commits its candidate through an insertion at the view's selection.
        let at = 1 + caretInside
        try editor.replaceCharacters(in: at..<at, with: "か")
        #expect(editor.text == "xかy")
        #expect(editor.storage?.isComposing == false)
        #expect(editor.nativeSelection == 2..<2)
        try editor.reconciler.verify(editor.state)
    }

    @Test func anInsertionOutsideTheMarkedTextCommitsItFirst() throws {
        let editor = try makeEditor(["xy"])
        try editor.select(1..<1)
        try editor.setMarkedText("ka", selectedRange: 2..<2)
        try editor.replaceCharacters(in: 4..<4, with: "!")
        #expect(editor.text == "xkay!")
        #expect(editor.storage?.isComposing == false)
        #expect(editor.nativeSelection == 5..<5)
        try editor.reconciler.verify(editor.state)
    }

    @Test(arguments: [0, 1, 2])
    func unmarkPutsTheCaretAfterTheCommittedText(caretInside: Int) throws {
        let editor = try makeEditor(["ab"])
        try editor.select(1..<1)
        try editor.setMarkedText("ka", selectedRange: caretInside..<caretInside)
        try editor.unmarkText()
        #expect(editor.text == "akab")
        #expect(editor.nativeSelection == 3..<3)
        #expect(editor.storage?.selectedRange.location == 3)
        try editor.type("!")
        #expect(editor.text == "aka!b")
    }
}
