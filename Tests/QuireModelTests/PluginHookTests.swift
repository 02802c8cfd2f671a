import Testing
@testable import QuireModel

/// The hooks node plugins build their editing behaviour on: editing boundaries (table cells),
/// the Enter hook and block type replacement.
@Suite struct PluginHookTests {
    /// A block container that isolates its content, like a table cell.
    struct BoxPlugin: NodePlugin {
        var type: NodeType { "box" }
        var role: NodeRole { .element(inline: false) }
        var childRule: ChildRule { .blocks }
        var isolatesContent: Bool { true }
    }

    /// A block of inline content that turns into a paragraph on Enter when empty.
    struct NotePlugin: NodePlugin {
        var type: NodeType { "note" }
        var role: NodeRole { .element(inline: false) }
        var fields: [FieldSpec] { ElementFields.common + [FieldSpec("tone", .string, default: .string("info"))] }
        func insertParagraph(in node: Node, at position: BlockSplitPosition, state: inout EditorState) throws(ModelError) -> Bool {
            guard node.childCount == 0 else { return false }
            try state.replaceBlock(node.key, with: BlockTemplate(type: .paragraph))
            return true
        }
        /// Backspace at its start turns a note into a paragraph.
        func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool {
            try state.replaceBlock(node.key, with: BlockTemplate(type: .paragraph))
            return true
        }
    }

    static func registry() throws -> NodeRegistry {
        var registry = NodeRegistry()
        try registry.register(BoxPlugin())
        try registry.register(NotePlugin())
        return registry
    }

    /// root → box("ab"), box("cd"), paragraph("ef"); returns the state and the three text keys.
    static func boxes() throws -> (EditorState, [NodeKey]) {
        var state = EditorState(registry: try registry())
        var texts: [NodeKey] = []
        for (content, boxed) in [("ab", true), ("cd", true), ("ef", false)] {
            let paragraph = try state.createNode(type: .paragraph)
            let text = try state.createNode(type: .text, text: content)
            try state.append(text, to: paragraph)
            if boxed {
                let box = try state.createNode(type: "box")
                try state.append(paragraph, to: box)
                try state.append(box, to: .root)
            } else {
                try state.append(paragraph, to: .root)
            }
            texts.append(text)
        }
        return (state, texts)
    }

    @Test func backspaceAtTheStartOfABoxDoesNotMergeAcrossIt() throws {
        var (state, texts) = try Self.boxes()
        try state.select(.text(texts[1], 0))
        let before = FlatString.render(state)
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == before)
        #expect(state.selection?.anchor == .text(texts[1], 0))
    }

    @Test func deleteAtTheEndOfABoxDoesNotMergeAcrossIt() throws {
        var (state, texts) = try Self.boxes()
        try state.select(.text(texts[0], 2))
        try state.deleteCharacter(backward: false)
        #expect(FlatString.render(state) == "ab\ncd\nef")
    }

    @Test func backspaceAfterABoxDoesNotMergeIntoIt() throws {
        var (state, texts) = try Self.boxes()
        try state.select(.text(texts[2], 0))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "ab\ncd\nef", "Lexical never merges a block into a shadow root")
        #expect(state.selection?.anchor == .text(texts[2], 0))
    }

    @Test func backspaceInAnEmptyBlockAfterABoxMovesIntoIt() throws {
        var (state, texts) = try Self.boxes()
        try state.select(anchor: .text(texts[2], 0), focus: .text(texts[2], 2))
        try state.deleteCharacter(backward: true)
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "ab\ncd")
        #expect(state.selection?.anchor == .text(texts[1], 2))
    }

    @Test func aSelectionAcrossBoxesDeletesTextInsideEachAndKeepsEveryBlock() throws {
        var (state, texts) = try Self.boxes()
        let blockCount = state.textBlocks().count
        try state.select(anchor: .text(texts[0], 1), focus: .text(texts[2], 1))
        try state.insertText("X")
        #expect(FlatString.render(state) == "aX\n\nf")
        #expect(state.textBlocks().count == blockCount)
        #expect(state.selection?.anchor == .text(texts[0], 2))
    }

    @Test func theEnterHookRunsBeforeTheDefaultSplit() throws {
        var state = EditorState(registry: try Self.registry())
        let note = try state.createNode(type: "note")
        try state.append(note, to: .root)
        try state.select(.element(note, 0))
        try state.insertParagraph()
        let block = try #require(state.root.firstChild)
        #expect(state.root.childCount == 1)
        #expect(state[block]?.type == .paragraph)
        #expect(state.selection?.anchor == .element(block, 0))
    }

    @Test func setBlocksTypeReplacesTheSelectedBlocksAndKeepsTheirContent() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["one", "two", "three"])
        let texts = state.textBlocks().map { state[$0]!.firstChild! }
        try state.select(anchor: .text(texts[0], 1), focus: .text(texts[1], 2))
        let replaced = try state.setBlocksType(BlockTemplate(type: "note", fields: ["tone": .string("warn")]))
        #expect(replaced.count == 2)
        #expect(replaced.map { state[$0]?.type } == ["note", "note"])
        #expect(state[replaced[0]]?.fields["tone"] == .string("warn"))
        #expect(state[texts[0]]?.parent == replaced[0], "children keep their keys")
        #expect(state.selection?.anchor == .text(texts[0], 1))
        #expect(FlatString.render(state) == "one\ntwo\nthree")
        #expect(state.child(at: 2, of: .root).flatMap { state[$0]?.type } == .paragraph)
    }

    @Test func setBlocksTypeRejectsAnUnknownTypeAndChangesNothing() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["one"])
        try state.select(.text(state[state.textBlocks()[0]]!.firstChild!, 0))
        let before = state
        #expect(throws: ModelError.unknownType("nope")) { try state.setBlocksType(BlockTemplate(type: "nope")) }
        #expect(FlatString.render(state) == FlatString.render(before))
    }

    @Test func boxesSkipSetBlocksTypeWhenTheParentRejectsTheType() throws {
        var (state, texts) = try Self.boxes()
        try state.select(.text(texts[0], 0))
        // A box accepts blocks, so the paragraph inside becomes a note.
        let replaced = try state.setBlocksType(BlockTemplate(type: "note"))
        #expect(replaced.count == 1)
        #expect(state[replaced[0]].flatMap { $0.parent }.flatMap { state[$0]?.type } == "box")
    }

    /// A text-like node that typing edits in place, as Lexical's code-highlight.
    struct TokenTextPlugin: NodePlugin {
        var type: NodeType { "token-text" }
        var role: NodeRole { .text }
        var fields: [FieldSpec] { TextFields.common }
        var editsTextInPlace: Bool { true }
    }

    /// A container that takes only notes, as a list takes only list items.
    struct NotesPlugin: NodePlugin {
        var type: NodeType { "notes" }
        var role: NodeRole { .element(inline: false) }
        var childRule: ChildRule { .only(["note"]) }
    }

    @Test func typingAndDeletingEditAnInPlaceTextNodeButGoAroundATab() throws {
        var registry = try Self.registry()
        try registry.register(TokenTextPlugin())
        var state = EditorState(registry: registry)
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: .root)
        let token = try state.createNode(type: "token-text", text: "ab")
        let tab = try state.createNode(type: .tab, text: "\t")
        try state.append(token, to: paragraph)
        try state.append(tab, to: paragraph)
        try state.select(.text(token, 1))
        try state.insertText("X")
        #expect(state[token]?.text == "aXb")
        try state.deleteCharacter(backward: true)
        #expect(state[token]?.text == "ab")
        #expect(state.selection?.anchor == .text(token, 1))
        try state.select(.text(tab, 1))
        try state.insertText("Y")
        #expect(state[tab]?.text == "\t", "a tab is never typed into")
        #expect(FlatString.render(state) == "ab\tY")
    }

    @Test func toggleBlocksTypeTurnsBlocksBackIntoParagraphsWhenAllHaveTheType() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["one", "two"])
        let texts = state.textBlocks().map { state[$0]!.firstChild! }
        try state.select(anchor: .text(texts[0], 0), focus: .text(texts[1], 1))
        let notes = try state.toggleBlocksType(BlockTemplate(type: "note"))
        #expect(notes.map { state[$0]?.type } == ["note", "note"])
        let paragraphs = try state.toggleBlocksType(BlockTemplate(type: "note"))
        #expect(paragraphs.map { state[$0]?.type } == [.paragraph, .paragraph])
        #expect(state.selection?.anchor == .text(texts[0], 0))
        #expect(throws: ModelError.unknownType("nope")) { try state.toggleBlocksType(BlockTemplate(type: "nope")) }
    }

    @Test func deletingExactlyABlockSeparatorIsBackspaceAtTheLaterBlock() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["ab"])
        let note = try state.createNode(type: "note")
        try state.append(note, to: .root)
        let cd = try state.createNode(type: .text, text: "cd")
        try state.append(cd, to: note)
        let ab = state[state.textBlocks()[0]]!.firstChild!
        // What a text view sends for Backspace at the start of the note: the "\n" before it.
        try state.select(anchor: .text(ab, 2), focus: .text(cd, 0))
        try state.deleteSelectedRange()
        #expect(FlatString.render(state) == "ab\ncd", "the note's hook ran instead of a merge")
        #expect(state.child(at: 1, of: .root).flatMap { state[$0]?.type } == .paragraph)
        #expect(state.selection?.anchor == .text(cd, 0))
        // A wider range is an ordinary deletion.
        var wide = EditorState(registry: try Self.registry(), paragraphs: ["ab", "cd"])
        let texts = wide.textBlocks().map { wide[$0]!.firstChild! }
        try wide.select(anchor: .text(texts[0], 1), focus: .text(texts[1], 0))
        try wide.deleteSelectedRange()
        #expect(FlatString.render(wide) == "acd")
    }

    @Test func pastedLinesInAContainerThatTakesNoParagraphsUseTheBlocksOwnType() throws {
        var registry = try Self.registry()
        try registry.register(NotesPlugin())
        var state = EditorState(registry: registry)
        let notes = try state.createNode(type: "notes")
        try state.append(notes, to: .root)
        let note = try state.createNode(type: "note", fields: ["tone": .string("warn")])
        try state.append(note, to: notes)
        try state.append(try state.createNode(type: .text, text: "ab"), to: note)
        try state.select(.text(state[note]!.firstChild!, 1))
        try state.insertInput("x\ny\nz")
        #expect(FlatString.render(state) == "ax\ny\nzb")
        #expect(state.children(of: notes).map(\.type) == ["note", "note", "note"])
        #expect(state.children(of: notes).allSatisfy { $0.fields["tone"] == .string("warn") })
    }
}
