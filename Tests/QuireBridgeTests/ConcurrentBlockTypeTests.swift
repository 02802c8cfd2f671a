import QuireBridge
import QuireEditor
import QuireModel
import Testing

extension TwoEditorsTests {
    /// Two peers change one paragraph's block type at once (h1 and h2; a heading and a quote). The
    /// peers converge, but on two blocks: a type change replaces the editor node, so each peer
    /// writes a new tree node with a new marker before the paragraph's content and deletes the
    /// old one; after the merge the content follows whichever new marker comes last and the other
    /// block is left empty. A user expects one block of one of the two types (a type change as a
    /// write to the same tree node's `type`, last writer wins).
    @Test(arguments: [("heading.set", "h2" as JSONValue), ("quote.toggle", .null)])
    func concurrentTypeChangesOfOneParagraph(other: String, payload: JSONValue) throws {
        let (a, b) = try pair(["title"])
        try a.select(1..<1)
        try b.select(1..<1)
        #expect(try a.editor.dispatch(named: "heading.set", payload: "h1"))
        #expect(try b.editor.dispatch(named: other, payload: payload))
        try a.receive(from: b)
        try b.receive(from: a)
        #expect(a.canonicalJSON == b.canonicalJSON)
        try a.checkInvariant()
        try b.checkInvariant()
        let blocks = a.json.objectValue?["root"]?.objectValue?["children"]?.arrayValue ?? []
        withKnownIssue("concurrent block type changes leave an empty extra block (each peer replaces the tree node)") {
            #expect(blocks.count == 1)
            #expect(a.text == "title")
        }
    }
}
