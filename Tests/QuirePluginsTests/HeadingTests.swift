import QuireEditor
import QuireHeading
import QuireModel
import QuireStyle
import Testing

/// Heading commands and editing: state edits and the same through an editor with a storage.
@Suite struct HeadingTests {
    @Test func setHeadingTurnsTheSelectedBlocksIntoHeadingsAndBack() throws {
        var state = try Blocks.state(document(paragraph(text("one")), quote(text("two")), paragraph(text("three"))))
        let one = Blocks.key(state, 0, 0)
        let two = Blocks.key(state, 1, 0)
        try state.select(anchor: .text(one, 1), focus: .text(two, 2))
        try state.setHeading(.h2)
        #expect(LexicalJSON.export(state) == document(heading("h2", text("one")), heading("h2", text("two")), paragraph(text("three"))))
        #expect(FlatString.render(state) == "one\ntwo\nthree")
        #expect(state.selection?.anchor == .text(one, 1))
        #expect(state.selection?.focus == .text(two, 2))
        try state.setHeading(nil)
        #expect(LexicalJSON.export(state) == document(paragraph(text("one")), paragraph(text("two")), paragraph(text("three"))))
    }

    @Test func toggleHeadingOfTheSameLevelGoesBackToAParagraph() throws {
        var state = try Blocks.state(document(paragraph(text("t"))))
        try state.select(.text(Blocks.key(state, 0, 0), 0))
        try state.toggleHeading(.h1)
        #expect(LexicalJSON.export(state) == document(heading("h1", text("t"))))
        try state.toggleHeading(.h3)
        #expect(LexicalJSON.export(state) == document(heading("h3", text("t"))))
        try state.toggleHeading(.h3)
        #expect(LexicalJSON.export(state) == document(paragraph(text("t"))))
    }

    @Test func listItemsAreLeftAlone() throws {
        var state = try Blocks.state(document(list(.bullet, item(1, text("i")))))
        try state.select(.text(Blocks.key(state, 0, 0, 0), 0))
        #expect(try state.setHeading(.h1).isEmpty)
        #expect(LexicalJSON.export(state) == document(list(.bullet, item(1, text("i")))))
    }

    @Test(arguments: [HeadingTag.h3, .h4, .h6])
    func commandsHonourMaxLevel(tag: HeadingTag) throws {
        let configuration = try Blocks.configuration("version: 1\nplugins:\n  - heading: {maxLevel: 3}\n")
        var state = EditorState(registry: try configuration.makeRegistry(), paragraphs: ["p"])
        try state.select(.text(Blocks.key(state, 0, 0), 0))
        if tag.level <= 3 {
            try state.setHeading(tag)
            #expect(state[Blocks.key(state, 0)]?.fields["tag"] == .string(tag.rawValue))
        } else {
            let before = LexicalJSON.export(state)
            let error = ModelError.invalidNode(type: "heading", reason: NodeValidationError(field: "tag", message: "\"\(tag.rawValue)\" is deeper than the configured maxLevel 3"))
            #expect(throws: error) { try state.setHeading(tag) }
            #expect(throws: error) { try state.toggleHeading(tag) }
            #expect(LexicalJSON.export(state) == before)
            let editor = try Editor(state: state)
            try editor.install(configuration.plugins.contributions)
            #expect(throws: EditorError.model(error)) { try editor.dispatch(HeadingCommands.setHeading, tag) }
            #expect(LexicalJSON.export(editor.state) == before)
        }
    }

    @Test func enterAtTheEndMakesAParagraphAndAtTheStartKeepsTheHeading() throws {
        var end = try Blocks.state(document(heading("h2", text("Title"))))
        try end.select(.text(Blocks.key(end, 0, 0), 5))
        try end.insertParagraph()
        #expect(LexicalJSON.export(end) == document(heading("h2", text("Title")), paragraph()))
        #expect(end.selection?.anchor == .element(Blocks.key(end, 1), 0))

        var start = try Blocks.state(document(heading("h2", text("Title"))))
        let title = Blocks.key(start, 0, 0)
        try start.select(.text(title, 0))
        try start.insertParagraph()
        #expect(LexicalJSON.export(start) == document(paragraph(), heading("h2", text("Title"))))
        #expect(FlatString.render(start) == "\nTitle")
        #expect(start.selection?.anchor == .text(title, 0))
    }

    @Test func backspaceAtTheStartOfAnEmptyHeadingMakesAParagraph() throws {
        var state = try Blocks.state(document(paragraph(text("p")), heading("h1")))
        try state.select(.element(Blocks.key(state, 1), 0))
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(paragraph(text("p")), paragraph()))
        #expect(state.selection?.anchor == .element(Blocks.key(state, 1), 0))
    }

    @Test func backspaceAtTheStartOfANonEmptyHeadingMerges() throws {
        var state = try Blocks.state(document(paragraph(text("p")), heading("h1", text("h"))))
        let p = Blocks.key(state, 0, 0)
        try state.select(.text(Blocks.key(state, 1, 0), 0))
        try state.deleteCharacter(backward: true)
        #expect(LexicalJSON.export(state) == document(paragraph(text("ph"))))
        #expect(FlatString.render(state) == "ph")
        #expect(state.selection?.anchor == .text(p, 1))
    }

    @Test func throughAnEditorWithTheThemeAndNativeKeys() throws {
        let editor = try Blocks.editor(try Blocks.state(document(paragraph(text("Title")), paragraph(text("body")))))
        try editor.selectionDidChange(2..<2)
        #expect(try editor.dispatch(HeadingCommands.toggleHeading, .h2))
        #expect(LexicalJSON.export(editor.state) == document(heading("h2", text("Title")), paragraph(text("body"))))
        let storage = try #require(editor.storage)
        #expect(try storage.attributes(at: 0).attributes[HeadingAttributes.level] == .int(2))
        #expect(try storage.attributes(at: 6).attributes[HeadingAttributes.level] == nil)
        #expect(Blocks.native(editor) == ("Title\nbody", 2..<2))
        // Enter at the end of the heading, then Backspace as a text view sends it.
        try editor.selectionDidChange(5..<5)
        try editor.replaceCharacters(in: 5..<5, with: "\n")
        #expect(LexicalJSON.export(editor.state) == document(heading("h2", text("Title")), paragraph(), paragraph(text("body"))))
        #expect(Blocks.native(editor) == ("Title\n\nbody", 6..<6))
        try editor.replaceCharacters(in: 5..<6, with: "")
        #expect(LexicalJSON.export(editor.state) == document(heading("h2", text("Title")), paragraph(text("body"))))
        #expect(Blocks.native(editor) == ("Title\nbody", 5..<5))
        #expect(try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: .paragraph)))
        #expect(LexicalJSON.export(editor.state) == document(paragraph(text("Title")), paragraph(text("body"))))
        #expect(try storage.attributes(at: 0).attributes[HeadingAttributes.level] == nil)
    }
}
