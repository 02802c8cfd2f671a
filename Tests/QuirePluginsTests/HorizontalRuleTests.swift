import QuireEditor
import QuireHorizontalRule
import QuireModel
import QuireStyle
import QuireTable
import QuireTestSupport
import QuireTextStorage
import Testing

/// Horizontal rules: the insert command, deleting them with Backspace and Delete (commands and
/// what a text view sends), typing beside them, and their attachment attributes.
@Suite struct HorizontalRuleTests {
    /// "abc", rule, "def": flat "abc\n\u{FFFC}\ndef".
    func ruled() throws -> EditorState {
        var state = try PluginFixture.state(["abc", "def"])
        try state.select(.text(try firstText(ofBlock: 0, state), 1))
        try state.insertHorizontalRule()
        return state
    }

    // MARK: Inserting

    @Test func insertGoesAfterTheBlockAndTheCaretToTheNextBlock() throws {
        let state = try ruled()
        expectJSON(state, J.document(J.p("abc"), J.horizontalRule, J.p("def")))
        #expect(FlatString.render(state) == "abc\n\u{FFFC}\ndef")
        #expect(state.selection == RangeSelection(caret: .text(try firstText(ofBlock: 2, state), 0)))
    }

    @Test func insertAtTheLastBlockMakesAParagraphForTheCaret() throws {
        var state = try PluginFixture.state(["abc"])
        try state.select(anchor: .text(try firstText(ofBlock: 0, state), 0), focus: .text(try firstText(ofBlock: 0, state), 2))
        try state.insertHorizontalRule()
        expectJSON(state, J.document(J.p("abc"), J.horizontalRule, J.p("")))
        #expect(FlatString.render(state) == "abc\n\u{FFFC}\n")
        #expect(state.selection == RangeSelection(caret: .element(try #require(state.root.lastChild), 0)))
        // Right after the rule (between blocks) a second rule goes right there.
        try state.select(.element(.root, 2))
        try state.insertHorizontalRule()
        expectJSON(state, J.document(J.p("abc"), J.horizontalRule, J.horizontalRule, J.p("")))
    }

    @Test func insertInATableCellStaysInTheCell() throws {
        var state = try PluginFixture.state([])
        let (_, cells) = try PluginFixture.appendTable([["a", "b"]], to: &state)
        try state.select(.text(try #require(PluginFixture.text(in: cells[0][0], state)), 1))
        try state.insertHorizontalRule()
        expectJSON(state, J.document(J.table(J.row(J.cell([J.p("a"), J.horizontalRule, J.p("")]), J.c("b")))))
        #expect(FlatString.render(state) == "a\n\u{FFFC}\n\tb")
        #expect(TableMap.violations(in: state).isEmpty)
    }

    // MARK: Deleting

    @Test func backspaceRightAfterTheRuleRemovesIt() throws {
        var state = try ruled()
        try state.deleteCharacter(backward: true)
        expectJSON(state, J.document(J.p("abc"), J.p("def")))
        #expect(state.selection == RangeSelection(caret: .text(try firstText(ofBlock: 1, state), 0)))
    }

    @Test func deleteRightBeforeTheRuleRemovesIt() throws {
        var state = try ruled()
        try state.select(.text(try firstText(ofBlock: 0, state), 3))
        try state.deleteCharacter(backward: false)
        expectJSON(state, J.document(J.p("abc"), J.p("def")))
        #expect(state.selection == RangeSelection(caret: .text(try firstText(ofBlock: 0, state), 3)))
    }

    @Test func nativeBackspaceAndDeleteAroundTheRule() throws {
        let state = try ruled()
        let (editor, storage) = try PluginFixture.editor(state)
        // Backspace at the start of "def": the view deletes the "\n" after U+FFFC.
        try editor.replaceCharacters(in: 5..<6, with: "")
        expectJSON(editor.state, J.document(J.p("abc"), J.p("def")))
        #expect(storage.string == "abc\ndef")
        #expect(editor.nativeSelection == 4..<4)
        try editor.undo()
        // Delete at the end of "abc": the view deletes the "\n" before U+FFFC.
        try editor.replaceCharacters(in: 3..<4, with: "")
        expectJSON(editor.state, J.document(J.p("abc"), J.p("def")))
        #expect(editor.nativeSelection == 3..<3)
        try editor.undo()
        // Selecting the rule itself and deleting it.
        try editor.replaceCharacters(in: 4..<5, with: "")
        expectJSON(editor.state, J.document(J.p("abc"), J.p("def")))
        #expect(storage.string == "abc\ndef")
        #expect(editor.nativeSelection == 4..<4)
    }

    @Test func typingAndEnterRightAfterTheRuleMakeAParagraph() throws {
        let (editor, storage) = try PluginFixture.editor(try ruled())
        try editor.selectionDidChange(5..<5)
        try editor.replaceCharacters(in: 5..<5, with: "x")
        expectJSON(editor.state, J.document(J.p("abc"), J.horizontalRule, J.p("x"), J.p("def")))
        #expect(storage.string == "abc\n\u{FFFC}\nx\ndef")
        #expect(editor.nativeSelection == 7..<7)
        try editor.selectionDidChange(5..<5)
        try editor.dispatch(Commands.insertParagraph)
        expectJSON(editor.state, J.document(J.p("abc"), J.horizontalRule, J.p(""), J.p("x"), J.p("def")))
        #expect(editor.nativeSelection == 6..<6)
    }

    // MARK: Through the editor

    @Test func insertCommandAndAttachmentAttributes() throws {
        let (editor, storage) = try PluginFixture.editor(try PluginFixture.state(["abc", "def"]))
        try editor.selectionDidChange(1..<1)
        #expect(try editor.dispatch(HorizontalRuleCommands.insertHorizontalRule))
        expectJSON(editor.state, J.document(J.p("abc"), J.horizontalRule, J.p("def")))
        #expect(storage.string == "abc\n\u{FFFC}\ndef")
        #expect(editor.nativeSelection == 6..<6)
        let rule = try storage.attributes(at: 4).attributes.values
        #expect(rule[Theme.Keys.attachment] == .string("horizontalrule"))
        #expect(rule[HorizontalRuleTheme.Keys.rule] == .bool(true))
        let after = try storage.attributes(at: 5).attributes.values
        #expect(after[Theme.Keys.attachment] == nil && after[HorizontalRuleTheme.Keys.rule] == nil)
        #expect(NodePluginConformance.violations(of: HorizontalRuleNodePlugin(), in: try PluginFixture.registry()).isEmpty)
    }
}
