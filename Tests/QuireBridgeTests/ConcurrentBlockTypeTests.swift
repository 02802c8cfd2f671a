import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import Testing

extension TwoEditorsTests {
    /// Two peers change one paragraph's block type at once (h1 and h2; a heading and a quote).
    /// A type change replaces the editor node, but the new block keeps the old one's tree node and
    /// writes its `type`: the peers converge on one block of the last writer's type (once they
    /// converged on two, the content behind one new marker and the other block empty).
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
        #expect(blocks.count == 1)
        #expect(a.text == "title")
        let type = blocks.first?.objectValue?["type"]?.stringValue
        #expect(type == "heading" || type == (other == "heading.set" ? "heading" : "quote"))
        // The losing type's own fields do not stay behind on the winner (a quote has no `tag`).
        if type == "quote" { #expect(blocks.first?.objectValue?["tag"] == nil, "\(a.json)") }
    }
}

extension TwoEditorsTests {
    /// The tree nodes of the shared document, in pre-order.
    func treeNodes(_ peer: Peer) -> [TreeID] {
        var result: [TreeID] = []
        var pending = peer.binding.document.children(of: nil, in: DocumentSchema.blocks).reversed().map { $0 }
        while let id = pending.popLast() {
            result.append(id)
            pending.append(contentsOf: peer.binding.document.children(of: id, in: DocumentSchema.blocks).reversed())
        }
        return result
    }

    /// A type change keeps the block's tree node: the other peer sees its `type` change and
    /// replaces its editor block in place (content, and the caret, kept).
    @Test func aTypeChangeIsAWriteToTheSameTreeNode() throws {
        let (a, b) = try pair(["one", "two", "three"])
        let before = treeNodes(a)
        try a.select(5..<6)
        #expect(try a.editor.dispatch(named: "heading.set", payload: "h2"))
        #expect(treeNodes(a) == before)
        try b.select(6..<6)
        try b.receive(from: a)
        #expect(treeNodes(b) == before)
        #expect(b.text == "one\ntwo\nthree")
        #expect(b.json == a.json)
        let types = b.json.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.map { $0.objectValue?["type"]?.stringValue }
        #expect(types == ["paragraph", "heading", "paragraph"])
        #expect(b.editor.nativeSelection == 6..<6)
        try a.checkInvariant()
        try b.checkInvariant()
    }

    /// Several selected blocks replaced at once adopt their tree nodes one to one, and undo takes
    /// the type change back on both peers.
    @Test func aTypeChangeOfSeveralBlocksUndoesOnBothPeers() throws {
        let (a, b) = try pair(["one", "two", "three", "four"])
        let before = treeNodes(a)
        let original = a.json
        try a.select(5..<11)
        #expect(try a.editor.dispatch(named: "quote.toggle", payload: .null))
        #expect(treeNodes(a) == before)
        try b.receive(from: a)
        #expect(b.json == a.json)
        let types = b.json.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.map { $0.objectValue?["type"]?.stringValue }
        #expect(types == ["paragraph", "quote", "quote", "paragraph"])
        #expect(try a.editor.undo())
        #expect(a.json == original)
        try b.receive(from: a)
        #expect(b.json == original)
        try a.checkInvariant()
        try b.checkInvariant()
    }

    /// A type change and typing in the same block at once: one block of the new type with the
    /// typed text.
    @Test func aTypeChangeWhileTheOtherPeerTypes() throws {
        let (a, b) = try pair(["title", "body"])
        try a.select(2..<2)
        #expect(try a.editor.dispatch(named: "heading.set", payload: "h1"))
        try b.select(5..<5)
        try b.type("!")
        try a.receive(from: b)
        try b.receive(from: a)
        #expect(a.text == "title!\nbody")
        #expect(b.json == a.json)
        let types = a.json.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.map { $0.objectValue?["type"]?.stringValue }
        #expect(types == ["heading", "paragraph"])
        try a.checkInvariant()
        try b.checkInvariant()
    }
}
