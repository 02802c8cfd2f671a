import Testing
@testable import QuireModel

/// Lexical's RangeSelection behaviours on a bare state (the editor-level tests drive the same
/// operations through native text-view entry points).
@Suite struct EditingTests {
    /// An empty document: one empty paragraph with the caret in it.
    static func emptyDocument() throws -> EditorState {
        var state = EditorState(paragraphs: [""])
        try state.select(.element(state.root.firstChild!, 0))
        return state
    }

    func firstText(_ state: EditorState, block: Int = 0) throws -> NodeKey {
        let paragraph = try #require(state.child(at: block, of: .root))
        return try #require(state.self[paragraph]?.firstChild)
    }

    @Test func typingEnterAndInsertingInTheMiddle() throws {
        var state = try Self.emptyDocument()
        try state.insertInput("1")
        try state.insertInput("\n")
        try state.insertInput("Hello World! Welcome to Lexical iOS!")
        try state.select(.text(firstText(state, block: 1), 15))
        try state.insertInput("T")
        #expect(FlatString.render(state) == "1\nHello World! WeTlcome to Lexical iOS!")
        #expect(state.selection?.anchor == .text(try firstText(state, block: 1), 16))
    }

    /// Every line ending a text view sends starts a paragraph ("\r\n" one, not two); U+2028 is
    /// a line break inside one, in the first, middle and last lines alike.
    @Test(arguments: [
        ("a\nb\r\nc\rd\u{2029}e", "a\nb\nc\nd\ne", 5),
        ("x\u{2028}y\nm\u{2028}\u{2028}n\nz\u{2028}", "x\ny\nm\n\nn\nz\n", 3),
        ("\n\n\n", "\n\n\n", 4),
        ("e\u{301}\nq\r\n\r\nw", "e\u{301}\nq\n\nw", 4),
        // Other scalars starting with the byte E2, as U+2029 does, stay in their line.
        ("a\u{2014}b\u{2029}\u{20AC}\u{2028}c", "a\u{2014}b\n\u{20AC}\nc", 2),
    ])
    func pastedLinesBecomeParagraphs(input: String, rendered: String, paragraphs: Int) throws {
        var state = try Self.emptyDocument()
        try state.insertInput(input)
        #expect(FlatString.render(state) == rendered)
        #expect(state.root.childCount == paragraphs)
        let last = try #require(state.root.lastChild)
        #expect(state.selection.map { state.block(containing: $0.anchor.key) } == last)
    }

    @Test func deletingAcrossParagraphsMergesThem() throws {
        var state = try Self.emptyDocument()
        try state.insertInput("Hello world\nhere's para 2")
        // Flat 5..14 is "Hello|" to "he|re's" in the second paragraph.
        try state.select(anchor: .text(firstText(state), 5), focus: .text(firstText(state, block: 1), 2))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "Hellore's para 2")
        #expect(state.root.childCount == 1)
        let paragraph = try #require(state.child(at: 0, of: .root))
        #expect(state[paragraph]?.childCount == 1, "the two halves are normalized into one text node")
        #expect(state.selection?.anchor == .text(try firstText(state), 5))
    }

    @Test func enterAtStartAddsAnEmptyParagraphBeforeAndKeepsTheCaret() throws {
        var state = EditorState(paragraphs: ["Hello"])
        let text = try firstText(state)
        try state.select(.text(text, 0))
        try state.insertParagraph()
        #expect(FlatString.render(state) == "\nHello")
        #expect(state.selection?.anchor == .text(text, 0))
        #expect(state.child(at: 1, of: .root) == state[text]?.parent)
    }

    @Test func enterInTheMiddleSplitsTheTextNode() throws {
        var state = EditorState(paragraphs: ["Hello"])
        try state.select(.text(firstText(state), 2))
        try state.insertParagraph()
        #expect(FlatString.render(state) == "He\nllo")
        #expect(state.root.childCount == 2)
        #expect(state.selection?.anchor == .text(try firstText(state, block: 1), 0))
    }

    @Test func boldOverARangeSplitsExactly() throws {
        var state = EditorState(paragraphs: ["I am testing to verify format updates!!"])
        let text = try firstText(state)
        try state.select(anchor: .text(text, 5), focus: .text(text, 15))
        try state.formatText(.bold)
        let paragraph = try #require(state.child(at: 0, of: .root))
        let pieces = state.children(of: paragraph).map { ($0.text, $0.textFormat) }
        #expect(pieces.map(\.0) == ["I am ", "testing to", " verify format updates!!"])
        #expect(pieces.map(\.1) == [[], .bold, []])
        // Toggling again removes it, and the nodes merge back on normalization.
        try state.formatText(.bold)
        try state.normalizeTextChildren(of: paragraph)
        #expect(state.children(of: paragraph).map(\.text) == ["I am testing to verify format updates!!"])
    }

    @Test func formattingAcrossParagraphs() throws {
        var state = EditorState(paragraphs: ["one", "two"])
        try state.select(anchor: .text(firstText(state), 1), focus: .text(firstText(state, block: 1), 2))
        try state.formatText(.italic)
        let first = state.children(of: state.child(at: 0, of: .root)!).map { ($0.text, $0.textFormat) }
        let second = state.children(of: state.child(at: 1, of: .root)!).map { ($0.text, $0.textFormat) }
        #expect(first.map(\.0) == ["o", "ne"] && first.map(\.1) == [[], .italic])
        #expect(second.map(\.0) == ["tw", "o"] && second.map(\.1) == [.italic, []])
    }

    @Test func typingWithAToggledFormatStartsANewNode() throws {
        var state = EditorState(paragraphs: ["ab"])
        try state.select(.text(firstText(state), 1))
        try state.formatText(.bold)
        try state.insertText("X")
        let paragraph = try #require(state.child(at: 0, of: .root))
        #expect(state.children(of: paragraph).map(\.text) == ["a", "X", "b"])
        #expect(state.children(of: paragraph).map(\.textFormat) == [[], .bold, []])
    }

    @Test func backspaceBehaviours() throws {
        // On an empty paragraph: removed, caret at the end of the previous one.
        var state = EditorState(paragraphs: ["abc", ""])
        try state.select(.element(state.child(at: 1, of: .root)!, 0))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "abc")
        #expect(state.selection?.anchor == .text(try firstText(state), 3))

        // At the document start: nothing.
        try state.select(.text(firstText(state), 0))
        let before = LexicalJSON.export(state)
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == before)

        // At a paragraph start: merge.
        var merging = EditorState(paragraphs: ["abc", "def"])
        try merging.select(.text(firstText(merging, block: 1), 0))
        try merging.deleteCharacter(backward: true)
        #expect(FlatString.render(merging) == "abcdef")
        #expect(merging.selection?.anchor == .text(try firstText(merging), 3))

        // Forward delete at a paragraph end: merge.
        var forward = EditorState(paragraphs: ["abc", "def"])
        try forward.select(.text(firstText(forward), 3))
        try forward.deleteCharacter(backward: false)
        #expect(FlatString.render(forward) == "abcdef")
    }

    @Test(arguments: ["👨‍👩‍👧‍👦", "🇺🇸", "👍🏽", "é", "e\u{301}"])
    func backspaceDeletesWholeGraphemeClusters(_ cluster: String) throws {
        var state = EditorState(paragraphs: ["a" + cluster + "b"])
        let text = try firstText(state)
        try state.select(.text(text, 1 + cluster.utf16.count))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "ab")
        var forward = EditorState(paragraphs: ["a" + cluster + "b"])
        try forward.select(.text(firstText(forward), 1))
        try forward.deleteCharacter(backward: false)
        #expect(FlatString.render(forward) == "ab")
    }

    @Test func lineBreaksAndTheirDeletion() throws {
        var state = EditorState(paragraphs: ["ab"])
        try state.select(.text(firstText(state), 1))
        try state.insertLineBreak()
        #expect(FlatString.render(state) == "a\nb")
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "ab")
        try state.insertLineBreak(selectStart: true)
        #expect(FlatString.render(state) == "a\nb")
        #expect(state.selection?.anchor == .text(try firstText(state), 1))
    }

    @Test func tokenAndSegmentedModes() throws {
        var state = EditorState(paragraphs: [])
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: .root)
        let token = try state.createNode(type: .text, text: "@mention", fields: ["mode": .string("token")])
        let segmented = try state.createNode(type: .text, text: "two words", fields: ["mode": .string("segmented"), "format": .number(.integer(1))])
        try state.append(token, to: paragraph)
        try state.append(segmented, to: paragraph)
        // Backspace at the end of a token deletes all of it.
        try state.select(.text(token, 8))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "two words")
        // Typing inside a token goes after it; inside a segmented node makes it normal text.
        var typing = EditorState(paragraphs: [])
        let p = try typing.createNode(type: .paragraph)
        try typing.append(p, to: .root)
        let t = try typing.createNode(type: .text, text: "@tok", fields: ["mode": .string("token")])
        try typing.append(t, to: p)
        try typing.select(.text(t, 2))
        try typing.insertText("x")
        #expect(FlatString.render(typing) == "@tokx")
        #expect(typing[t]?.text == "@tok")
        // Backspace in a segmented node removes a whole segment.
        try state.select(.text(segmented, 9))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "two ")
        #expect(state[segmented]?.textMode == .normal)
    }

    @Test func deleteWordAndLine() throws {
        var state = EditorState(paragraphs: ["hello brave new world"])
        try state.select(.text(firstText(state), 21))
        try state.deleteWord(backward: true)
        #expect(FlatString.render(state) == "hello brave new ")
        try state.deleteWord(backward: true)
        #expect(FlatString.render(state) == "hello brave ")
        try state.deleteLine(backward: true)
        #expect(FlatString.render(state) == "")
        var forward = EditorState(paragraphs: ["one two"])
        try forward.select(.text(firstText(forward), 0))
        try forward.deleteWord(backward: false)
        #expect(FlatString.render(forward) == " two")
    }

    @Test func selectedTextContentAcrossBlocks() throws {
        var state = EditorState(paragraphs: ["hello", "world"])
        try state.select(anchor: .text(firstText(state), 2), focus: .text(firstText(state, block: 1), 3))
        #expect(try state.selectedTextContent() == "llo\nwor")
    }

    @Test func insertNodesSplitsBlocks() throws {
        var state = EditorState(paragraphs: ["abcd"])
        try state.select(.text(firstText(state), 2))
        let block = try state.createNode(type: .paragraph)
        try state.append(try state.createNode(type: .text, text: "new"), to: block)
        try state.insertNodes([block])
        #expect(FlatString.render(state) == "ab\nnew\ncd")
        let inline = try state.createNode(type: .lineBreak)
        try state.insertNodes([inline])
        #expect(FlatString.render(state) == "ab\nnew\n\ncd")
    }

    @Test func badPointsThrowAndChangeNothing() throws {
        var state = EditorState(paragraphs: ["a👍b"])
        let text = try firstText(state)
        let before = LexicalJSON.export(state)
        #expect(throws: ModelError.self) { try state.select(.text(text, 2)) }  // inside the surrogate pair
        #expect(throws: ModelError.self) { try state.select(.text(text, 9)) }
        #expect(throws: ModelError.self) { try state.select(.text(NodeKey(999), 0)) }
        #expect(throws: ModelError.self) { try state.select(.element(text, 0)) }
        state.selection = nil
        #expect(throws: ModelError.noSelection) { try state.insertText("x") }
        #expect(LexicalJSON.export(state) == before)
    }
}
