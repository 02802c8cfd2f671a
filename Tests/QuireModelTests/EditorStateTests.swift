import Testing
@testable import QuireModel

@Suite struct EditorStateTests {
    @Test func cloneIsIndependentOfTheOriginal() throws {
        let original = EditorState(paragraphs: ["one", "two"])
        var clone = original
        let firstText = try #require(clone.child(at: 0, of: clone.root.firstChild!).flatMap { clone[$0] })
        try clone.setText("changed", of: firstText.key)
        #expect(FlatString.render(original) == "one\ntwo")
        #expect(FlatString.render(clone) == "changed\ntwo")
    }

    @Test func siblingLinksStayConsistent() throws {
        var state = EditorState()
        let a = try state.createNode(type: .paragraph)
        let b = try state.createNode(type: .paragraph)
        let c = try state.createNode(type: .paragraph)
        try state.append(b, to: .root)
        try state.prepend(a, to: .root)
        try state.insert(c, after: b)
        #expect(state.children(of: .root).map(\.key) == [a, b, c])
        #expect(state.root.childCount == 3)
        try state.detach(b)
        #expect(state.children(of: .root).map(\.key) == [a, c])
        #expect(state[a]?.nextSibling == c && state[c]?.previousSibling == a)
        try state.insert(b, before: a)
        #expect(state.children(of: .root).map(\.key) == [b, a, c])
        #expect(state.root.firstChild == b && state.root.lastChild == c)
        try state.remove(a)
        #expect(state[a] == nil)
        #expect(state.children(of: .root).map(\.key) == [b, c])
    }

    @Test func removeTakesTheSubtree() throws {
        var state = EditorState(paragraphs: ["x", "y"])
        let first = try #require(state.child(at: 0, of: .root).flatMap { state[$0] })
        let text = try #require(state.child(at: 0, of: first.key).flatMap { state[$0] })
        let before = state.nodeCount
        try state.remove(first.key)
        #expect(state[text.key] == nil)
        #expect(state.nodeCount == before - 2)
    }

    @Test func refusedEditsLeaveTheStateUnchanged() throws {
        var state = EditorState(paragraphs: ["x"])
        let paragraph = try #require(state.child(at: 0, of: .root).flatMap { state[$0] })
        let text = try #require(state.child(at: 0, of: paragraph.key).flatMap { state[$0] })
        let snapshot = LexicalJSON.export(state)
        let detachedText = try state.createNode(type: .text, text: "t")
        let count = state.nodeCount

        #expect(throws: ModelError.childNotAccepted(parent: .root, child: .text)) { try state.append(detachedText, to: .root) }
        #expect(throws: ModelError.alreadyAttached(text.key)) { try state.append(text.key, to: paragraph.key) }
        #expect(throws: ModelError.notAnElement(text.key)) { try state.append(detachedText, to: text.key) }
        #expect(throws: ModelError.cannotRemoveRoot) { try state.remove(.root) }
        #expect(throws: ModelError.nodeNotFound(NodeKey(9_999))) { try state.setText("a", of: NodeKey(9_999)) }
        #expect(throws: ModelError.notATextNode(paragraph.key)) { try state.setText("a", of: paragraph.key) }
        #expect(throws: ModelError.unknownType("nope")) { try state.createNode(type: "nope") }
        #expect(throws: ModelError.textOnNonTextNode(.paragraph)) { try state.createNode(type: .paragraph, text: "a") }
        #expect(throws: ModelError.reservedField("children")) { try state.setField("children", to: .null, of: paragraph.key) }
        #expect(throws: ModelError.self) { try state.setField("indent", to: .string("x"), of: paragraph.key) }
        #expect(throws: ModelError.self) { try state.setText("not a tab", of: state.createNode(type: .tab, text: "\t")) }
        // A node cannot become its own ancestor.
        try state.detach(paragraph.key)
        let inner = try state.createNode(type: .paragraph)
        #expect(throws: ModelError.self) { try state.append(paragraph.key, to: paragraph.key) }
        try state.append(paragraph.key, to: .root)
        try state.remove(inner)

        #expect(LexicalJSON.export(state) == snapshot)
        #expect(state.nodeCount == count + 1)  // the detached text and tab created above
    }

    @Test func newNodesCarryLexicalDefaults() throws {
        var state = EditorState()
        let paragraph = try state.createNode(type: .paragraph)
        let text = try state.createNode(type: .text, text: "hi")
        try state.append(paragraph, to: .root)
        try state.append(text, to: paragraph)
        try state.setTextFormat([.bold, .underline], of: text)
        let json = LexicalJSON.export(state)
        let expected = try JSONParser.parse(#"""
        {"root":{"children":[{"children":[{"detail":0,"format":9,"mode":"normal","style":"","text":"hi","type":"text","version":1}],
        "direction":null,"format":"","indent":0,"type":"paragraph","version":1,"textFormat":0,"textStyle":""}],
        "direction":null,"format":"","indent":0,"type":"root","version":1}}
        """#)
        #expect(json == expected)
    }

    @Test func textFormatNamesMatchLexicalBits() {
        let bits = TextFormat.named.map(\.format.rawValue)
        #expect(bits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
        #expect(TextFormat(named: "superscript") == .superscript)
        #expect(TextFormat(named: "shiny") == nil)
    }

    @Test func writesToACloneShareUntouchedNodes() throws {
        // Structural sharing: a clone of a large state updates one node without disturbing the rest.
        var state = EditorState()
        for index in 0..<2_000 {
            let paragraph = try state.createNode(type: .paragraph)
            try state.append(paragraph, to: .root)
            try state.append(state.createNode(type: .text, text: "p\(index)"), to: paragraph)
        }
        var clone = state
        let target = try #require(clone.child(at: 0, of: clone.root.lastChild!).flatMap { clone[$0] })
        try clone.setText("edited", of: target.key)
        #expect(state[target.key]?.text == "p1999")
        #expect(clone[target.key]?.text == "edited")
        #expect(clone.nodeCount == state.nodeCount)
    }
}
