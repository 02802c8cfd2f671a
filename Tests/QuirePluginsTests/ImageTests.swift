import QuireEditor
import QuireImage
import QuireMarkup
import QuireModel
import QuireStyle
import QuireTestSupport
import QuireTextStorage
import Testing

/// Images: Lexical playground's JSON, the insert / size / alt-text commands, Backspace and Delete
/// beside an image, typing around it, and its attachment record in the text storage.
@Suite struct ImageTests {
    static func image(_ source: String, alt: String = "", width: JSONValue = int(0), height: JSONValue = int(0), maxWidth: JSONValue = int(500)) -> JSONValue {
        J.node("image", [
            ("altText", .string(alt)), ("caption", ImageNodePlugin.emptyCaption), ("height", height), ("maxWidth", maxWidth),
            ("showCaption", .bool(false)), ("src", .string(source)), ("title", .null), ("width", width),
        ])
    }

    /// "abcd" with the caret after "ab" and an image inserted there.
    func withImage(_ attributes: ImageAttributes = ImageAttributes(source: "a.png", altText: "A")) throws -> (EditorState, NodeKey) {
        var state = try PluginFixture.state(["abcd"])
        try state.select(.text(try firstText(ofBlock: 0, state), 2))
        let image = try state.insertImage(attributes)
        return (state, image)
    }

    // MARK: JSON

    @Test func lexicalPlaygroundJSONRoundTrips() throws {
        let json = """
        {"root":{"type":"root","version":1,"direction":null,"format":"","indent":0,"children":[{"type":"paragraph","version":1,\
        "direction":null,"format":"","indent":0,"textFormat":0,"textStyle":"","children":[{"type":"image","version":1,\
        "src":"https://x.y/cat.jpg","altText":"A cat","width":"inherit","height":240.5,"maxWidth":500,"showCaption":true,\
        "caption":{"editorState":{"root":{"type":"root","version":1,"direction":"ltr","format":"","indent":0,"children":[\
        {"type":"paragraph","version":1,"direction":"ltr","format":"","indent":0,"textFormat":0,"textStyle":"","children":[\
        {"type":"text","version":1,"detail":0,"format":0,"mode":"normal","style":"","text":"caption"}]}]}}},\
        "futureField":[1,2]}]}]}}
        """
        let state = try LexicalJSON.importState(from: json, registry: try PluginFixture.registry())
        let paragraph = try #require(state.root.firstChild)
        let image = try #require(state.children(of: paragraph).first)
        #expect(image.type == ImageNodePlugin.type && !image.isUnknown)
        #expect(ImageNodePlugin.dimension("width", of: image) == nil)
        #expect(ImageNodePlugin.dimension("height", of: image) == 240.5)
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(json)))
    }

    @Test func anOldDocumentWithOnlySourceAndAltTextImports() throws {
        let json = #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"image","src":"a.png","altText":"old"}]}]}}"#
        let state = try LexicalJSON.importState(from: json, registry: try PluginFixture.registry())
        let paragraph = try #require(state.root.firstChild)
        let image = try #require(state.children(of: paragraph).first)
        #expect(ImageNodePlugin.source(of: image) == "a.png" && ImageNodePlugin.altText(of: image) == "old")
        #expect(image.fields["caption"] == nil, "a missing field stays missing: the document round trips as written")
    }

    @Test(arguments: [
        (#""width":-1"#, "width"), (#""height":"big""#, "height"), (#""caption":"text""#, "caption"),
        (#""caption":{"editorState":3}"#, "caption"), (#""maxWidth":-5"#, "maxWidth"),
    ])
    func invalidFieldsAreRefusedWithTheirPath(_ member: String, _ field: String) throws {
        let json = #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"image","src":"a.png","#
            + member + "}]}]}}"
        let registry = try PluginFixture.registry()
        let error = try #require(throws: LexicalJSONError.self) { try LexicalJSON.importState(from: json, registry: registry) }
        #expect(error.path == "$.root.children[0].children[0].\(field)", "\(error)")
    }

    // MARK: Commands

    @Test func insertGoesInlineAtTheCaretAndTheCaretAfterIt() throws {
        let (state, image) = try withImage()
        expectJSON(state, J.document(J.paragraph(J.text("ab"), Self.image("a.png", alt: "A"), J.text("cd"))))
        #expect(FlatString.render(state) == "ab\u{FFFC}cd")
        #expect(state.selectedImage == image)
        #expect(NodePluginConformance.violations(of: ImageNodePlugin(), in: try PluginFixture.registry()).isEmpty)
    }

    @Test func insertReplacesTheSelectedTextAndBetweenBlocksMakesAParagraph() throws {
        var state = try PluginFixture.state(["abcd"])
        let text = try firstText(ofBlock: 0, state)
        try state.select(anchor: .text(text, 1), focus: .text(text, 3))
        try state.insertImage(ImageAttributes(source: "b.png", width: 64, height: 32))
        expectJSON(state, J.document(J.paragraph(J.text("a"), Self.image("b.png", width: int(64), height: int(32)), J.text("d"))))
        var between = try PluginFixture.state(["x"])
        try between.select(.element(.root, 1))
        try between.insertImage(ImageAttributes(source: "c.png"))
        expectJSON(between, J.document(J.p("x"), J.paragraph(Self.image("c.png"))))
    }

    @Test func sizeAndAltTextCommandsActOnTheSelectedImage() throws {
        let (editor, storage) = try PluginFixture.editor(try PluginFixture.state(["abcd"]))
        try editor.selectionDidChange(2..<2)
        // No image beside the caret: the commands are not handled.
        #expect(try editor.dispatch(ImageCommands.setImageAltText, "none") == false)
        #expect(try editor.dispatch(named: "image.insert", payload: ["src": "a.png", "altText": "A", "width": "inherit"]))
        #expect(storage.string == "ab\u{FFFC}cd")
        #expect(editor.nativeSelection == 3..<3)
        #expect(try editor.dispatch(ImageCommands.setImageSize, ImageSize(width: 120, height: 60.5)))
        #expect(try editor.dispatch(named: "image.setAltText", payload: "A cat"))
        expectJSON(editor.state, J.document(J.paragraph(J.text("ab"), Self.image("a.png", alt: "A cat", width: int(120), height: .number(.double(60.5))), J.text("cd"))))
        // Selecting the image's U+FFFC as a text view does; null sets a side back to the image's own.
        try editor.selectionDidChange(2..<3)
        #expect(try editor.dispatch(named: "image.setSize", payload: ["width": .null, "height": 10]))
        let image = try #require(editor.state.selectedImage.flatMap { editor.state[$0] })
        #expect(image.fields["width"] == int(0) && image.fields["height"] == int(10))
        #expect(storage.string == "ab\u{FFFC}cd" && editor.nativeSelection == 2..<3, "setting fields changes neither text nor selection")
        #expect(throws: EditorError.self) { try editor.dispatch(ImageCommands.setImageSize, ImageSize(width: -1, height: nil)) }
        #expect(throws: EditorError.self) { try editor.dispatch(named: "image.insert", payload: ["altText": "no src"]) }
    }

    // MARK: Deleting and typing

    @Test func backspaceRightAfterTheImageRemovesIt() throws {
        var (state, _) = try withImage()
        try state.deleteCharacter(backward: true)
        expectJSON(state, J.document(J.p("abcd")))
        #expect(FlatString.render(state) == "abcd")
    }

    @Test func deleteRightBeforeTheImageRemovesIt() throws {
        var (state, _) = try withImage()
        try state.select(.text(try firstText(ofBlock: 0, state), 2))
        try state.deleteCharacter(backward: false)
        expectJSON(state, J.document(J.p("abcd")))
    }

    @Test func nativeDeletionAndTypingAroundTheImage() throws {
        let (editor, storage) = try PluginFixture.editor(try withImage().0)
        // Typing right after and right before the image goes into the text beside it.
        try editor.selectionDidChange(3..<3)
        try editor.replaceCharacters(in: 3..<3, with: "x")
        try editor.selectionDidChange(2..<2)
        try editor.replaceCharacters(in: 2..<2, with: "y")
        #expect(storage.string == "aby\u{FFFC}xcd")
        expectJSON(editor.state, J.document(J.paragraph(J.text("aby"), Self.image("a.png", alt: "A"), J.text("xcd"))))
        #expect(editor.nativeSelection == 3..<3)
        // A text view's Backspace after it deletes its one unit.
        try editor.replaceCharacters(in: 3..<4, with: "")
        expectJSON(editor.state, J.document(J.p("abyxcd")))
        #expect(storage.string == "abyxcd" && editor.nativeSelection == 3..<3)
        try editor.undo()
        #expect(storage.string == "aby\u{FFFC}xcd")
        // Enter right after the image splits the paragraph there.
        try editor.selectionDidChange(4..<4)
        try editor.dispatch(Commands.insertParagraph)
        expectJSON(editor.state, J.document(J.paragraph(J.text("aby"), Self.image("a.png", alt: "A")), J.p("xcd")))
    }

    // MARK: The text storage

    @Test func theStorageCarriesTheAttachmentRecord() throws {
        let (state, _) = try withImage(ImageAttributes(source: "a.png", altText: "A", width: 64))
        let (_, storage) = try PluginFixture.editor(state)
        let attributes = try storage.attributes(at: 2).attributes.values
        #expect(attributes[Theme.Keys.attachment] == .string("image"))
        #expect(attributes[.attachment] == .record(["source": "a.png", "alt": "A", "width": .double(64)]))
        #expect(try storage.attributes(at: 3).attributes.values[.attachment] == nil, "attachment scope: never on the text beside it")
        let intent = IntentText(storage: storage)
        #expect(intent.attachmentSources == ["a.png"])
        #expect(intent.paragraphs.count == 1 && intent.text.string == "ab\u{FFFC}cd\n")
    }
}
