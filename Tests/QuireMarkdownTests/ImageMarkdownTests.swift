import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

/// Markdown images are `image` nodes: `![alt](src "title")` comes back as written, through
/// Lexical JSON too, and an image made in an editor writes as markdown.
@Suite struct ImageMarkdownTests {
    let converter = BuiltIns.converter

    func images(_ state: EditorState) -> [Node] {
        state.children(of: .root).flatMap { state.children(of: $0.key) }.filter { $0.type == "image" }
    }

    @Test(arguments: [
        "![alt](img/a.png \"The title\")\n", "a ![alt text](https://x.y/b.jpg) b\n", "![](empty-alt.png)\n",
        "![first](c.png \"t\") and ![second](d.png)\n", "[![linked](e.png)](https://x.y)\n",
    ])
    func imagesRoundTrip(_ markdown: String) throws {
        let state = try converter.state(fromMarkdown: markdown)
        #expect(!images(state).isEmpty || markdown.hasPrefix("[!"))
        let reimported = try LexicalJSON.importState(from: LexicalJSON.exportBytes(state), registry: BuiltIns.registry)
        #expect(try converter.markdown(from: reimported) == markdown)
    }

    @Test func fieldsComeFromTheMarkdown() throws {
        let state = try converter.state(fromMarkdown: "![A *cat*](cat.png \"Title\")\n")
        let image = try #require(images(state).first)
        #expect(image.fields["src"] == "cat.png")
        #expect(image.fields["altText"] == "A cat")
        #expect(image.fields["title"] == "Title")
    }
}
