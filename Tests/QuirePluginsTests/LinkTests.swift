import Foundation
import QuireEditor
import QuireLink
import QuireModel
import QuireStyle
import QuireTestSupport
import QuireTextStorage
import Testing

/// Links: toggling (Lexical's `$toggleLink`), typing at their edges, and their theme attribute,
/// at state level and through an editor.
@Suite struct LinkTests {
    /// "see the docs" with "the" linked to /the: returns the state, the link and its text.
    func linked() throws -> (EditorState, link: NodeKey, inside: NodeKey) {
        var state = try PluginFixture.state(["see the docs"])
        let text = try firstText(ofBlock: 0, state)
        try state.select(anchor: .text(text, 4), focus: .text(text, 7))
        try state.toggleLink(LinkAttributes(url: "/the"))
        let link = try #require(state[state.root.firstChild!]?.firstChild.flatMap { state[$0]?.nextSibling })
        return (state, link, try #require(state[link]?.firstChild))
    }

    // MARK: Toggling

    @Test func linkingASelectionWrapsExactlyIt() throws {
        var state = try PluginFixture.state(["see the docs"])
        let text = try firstText(ofBlock: 0, state)
        try state.select(anchor: .text(text, 7), focus: .text(text, 4))
        #expect(try state.toggleLink(LinkAttributes(url: "https://lexical.dev", title: "Lexical")))
        expectJSON(state, J.document(J.paragraph(
            J.text("see "), J.link("https://lexical.dev", title: .string("Lexical"), J.text("the")), J.text(" docs")
        )))
        #expect(FlatString.render(state) == "see the docs")
        let inside = try #require(state[state[state.root.firstChild!]!.firstChild!]?.nextSibling.flatMap { state[$0]?.firstChild })
        #expect(state.selection?.anchor == .text(inside, 3), "a backward selection stays backward")
        #expect(state.selection?.focus == .text(inside, 0))
    }

    @Test func linkingAcrossBlocksMakesOneLinkPerBlock() throws {
        var state = try PluginFixture.state(["one two", "three"])
        try state.select(anchor: .text(try firstText(ofBlock: 0, state), 4), focus: .text(try firstText(ofBlock: 1, state), 2))
        try state.toggleLink(LinkAttributes(url: "/x", rel: nil, target: "_blank"))
        expectJSON(state, J.document(
            J.paragraph(J.text("one "), J.link("/x", rel: .null, target: .string("_blank"), J.text("two"))),
            J.paragraph(J.link("/x", rel: .null, target: .string("_blank"), J.text("th")), J.text("ree"))
        ))
        #expect(FlatString.render(state) == "one two\nthree")
    }

    @Test func linkingOverExistingLinksFollowsLexical() throws {
        var (state, link, _) = try linked()
        // Link "docs" too, then select from "see" to "docs" and link everything to /all.
        let paragraph = state.root.firstChild!
        let docs = try #require(state[link]?.nextSibling)
        try state.select(anchor: .text(docs, 1), focus: .text(docs, 5))
        try state.toggleLink(LinkAttributes(url: "/docs"))
        let first = try #require(state[paragraph]?.firstChild)
        let last = try #require(state[paragraph]?.lastChild.flatMap { state[$0]?.firstChild })
        try state.select(anchor: .text(first, 1), focus: .text(last, 2))
        try state.toggleLink(LinkAttributes(url: "/all", title: "All"))
        // As Lexical: "ee " starts a new link, the wholly selected "the" link is dissolved into
        // it, and the partly selected "docs" link keeps its place and takes the attributes.
        expectJSON(state, J.document(J.paragraph(
            J.text("s"), J.link("/all", title: .string("All"), J.text("ee the ")), J.link("/all", title: .string("All"), J.text("docs"))
        )))
        #expect(state[link] == nil)
        #expect(state[paragraph]?.childCount == 3)
    }

    @Test func aWhollySelectedLinkIsReusedForTheTextAfterIt() throws {
        var (state, link, inside) = try linked()
        let after = try #require(state[link]?.nextSibling)
        try state.select(anchor: .text(inside, 0), focus: .text(after, 3))
        try state.toggleLink(LinkAttributes(url: "/more", rel: nil))
        expectJSON(state, J.document(J.paragraph(J.text("see "), J.link("/more", J.text("the do")), J.text("cs"))))
        #expect(state[link]?.parent == state.root.firstChild, "the link keeps its key")
        #expect(state.selection?.anchor == .text(inside, 0))
        #expect(state.selection?.focus == .text(inside, 6))
    }

    @Test func aCaretInALinkUpdatesItAndKeepsWhatIsNotGiven() throws {
        var (state, link, inside) = try linked()
        try state.select(.text(inside, 1))
        #expect(try state.toggleLink(LinkAttributes(url: "/new", rel: nil, title: "New")))
        #expect(state[link]?.fields["url"] == .string("/new"))
        #expect(state[link]?.fields["rel"] == .string("noreferrer"))
        #expect(state[link]?.fields["title"] == .string("New"))
        #expect(state.selection?.anchor == .text(inside, 1))
        // A caret outside a link changes nothing.
        var plain = try PluginFixture.state(["abc"])
        try plain.select(.text(try firstText(ofBlock: 0, plain), 1))
        let before = LexicalJSON.export(plain)
        #expect(try !plain.toggleLink(LinkAttributes(url: "/x")))
        #expect(LexicalJSON.export(plain) == before)
    }

    @Test func unlinkingPartOfALinkKeepsTheRestLinked() throws {
        var state = try PluginFixture.state(["abcdef"])
        let text = try firstText(ofBlock: 0, state)
        try state.select(anchor: .text(text, 0), focus: .text(text, 6))
        try state.toggleLink(LinkAttributes(url: "/x"))
        let inside = try #require(state[state.root.firstChild!]?.firstChild.flatMap { state[$0]?.firstChild })
        try state.select(anchor: .text(inside, 2), focus: .text(inside, 4))
        try state.toggleLink(nil)
        expectJSON(state, J.document(J.paragraph(J.link("/x", J.text("ab")), J.text("cd"), J.link("/x", J.text("ef")))))
        #expect(FlatString.render(state) == "abcdef")
        let middle = try #require(state.child(at: 1, of: state.root.firstChild!))
        #expect(state.selection?.anchor == .text(middle, 0))
        #expect(state.selection?.focus == .text(middle, 2))
    }

    @Test func unlinkingWithACaretRemovesTheWholeLink() throws {
        var (state, _, inside) = try linked()
        try state.select(.text(inside, 1))
        try state.toggleLink(nil)
        expectJSON(state, J.document(J.p("see the docs")))
        #expect(state.selection?.anchor == .text(try firstText(ofBlock: 0, state), 5), "the text nodes merged back, the caret on the same character")
    }

    // MARK: Typing at the edges

    @Test func typingAtALinksEndGoesAfterItAndInsideStaysInside() throws {
        var (state, link, inside) = try linked()
        try state.select(.text(inside, 3))
        try state.insertText("!")
        expectJSON(state, J.document(J.paragraph(J.text("see "), J.link("/the", J.text("the")), J.text("! docs"))))
        try state.select(.text(inside, 0))
        try state.insertText("<")
        try state.select(.text(inside, 1))
        try state.insertText("-")
        expectJSON(state, J.document(J.paragraph(J.text("see <"), J.link("/the", J.text("t-he")), J.text("! docs"))))
        #expect(state[link]?.childCount == 1)
    }

    @Test func typingAfterALinkThroughTheEditorContinuesOutsideIt() throws {
        var state = try PluginFixture.state(["go"])
        let text = try firstText(ofBlock: 0, state)
        try state.select(anchor: .text(text, 0), focus: .text(text, 2))
        try state.toggleLink(LinkAttributes(url: "/go"))
        let (editor, storage) = try PluginFixture.editor(state)
        try editor.replaceCharacters(in: 2..<2, with: "!")
        try editor.replaceCharacters(in: 3..<3, with: "?")
        expectJSON(editor.state, J.document(J.paragraph(J.link("/go", J.text("go")), J.text("!?"))))
        #expect(storage.string == "go!?")
        #expect(editor.nativeSelection == 4..<4)
        // The link's characters carry its url; the text after it does not.
        #expect(try storage.attributes(at: 1).attributes.values[LinkTheme.Keys.link] == .string("/go"))
        #expect(try storage.attributes(at: 2).attributes.values[LinkTheme.Keys.link] == nil)
    }

    // MARK: Through the editor

    @Test func toggleLinkCommand() throws {
        let (editor, storage) = try PluginFixture.editor(try PluginFixture.state(["see the docs"]))
        try editor.selectionDidChange(4..<7)
        #expect(try editor.dispatch(LinkCommands.toggleLink, LinkAttributes(url: "/the")))
        expectJSON(editor.state, J.document(J.paragraph(J.text("see "), J.link("/the", J.text("the")), J.text(" docs"))))
        #expect(storage.string == "see the docs")
        #expect(editor.nativeSelection == 4..<7)
        #expect(try storage.attributes(at: 5).attributes.values[LinkTheme.Keys.link] == .string("/the"))
        #expect(try editor.dispatch(LinkCommands.toggleLink, nil))
        expectJSON(editor.state, J.document(J.p("see the docs")))
        #expect(try storage.attributes(at: 5).attributes.values[LinkTheme.Keys.link] == nil)
        #expect(try editor.undo())
        expectJSON(editor.state, J.document(J.paragraph(J.text("see "), J.link("/the", J.text("the")), J.text(" docs"))))
    }

    @Test func theFixturesLinksRoundTrip() throws {
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/01-lexical-serialization-test-playground-doc.json")
        let bytes = Array(try Data(contentsOf: url))
        let state = try LexicalJSON.importState(from: bytes, registry: try PluginFixture.registry())
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(bytes)))
        var links = 0
        var pending: [NodeKey] = [.root]
        while let key = pending.popLast() {
            if let node = state[key], node.type == LinkNodePlugin.type {
                #expect(!node.isUnknown)
                links += 1
            }
            pending += state.children(of: key).map(\.key)
        }
        #expect(links == 4)
        #expect(NodePluginConformance.violations(of: LinkNodePlugin(), in: try PluginFixture.registry()).isEmpty)
    }
}
