import Foundation
import QuireTextStorage
import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import Testing

@Suite struct ProjectionTests {
    @Test(arguments: Plugins.fixtureNames)
    func seedingAndProjectingGivesTheDocumentBack(name: String) throws {
        let state = try Plugins.fixture(name)
        var document = CRDTDocument(peer: 1)
        try Projection.seed(&document, from: state)
        let projected = try Projection.state(of: document, registry: Plugins.registry)
        #expect(LexicalJSON.export(projected) == LexicalJSON.export(state))
        // Through bytes, as another peer gets it.
        var other = CRDTDocument(peer: 2)
        try other.importUpdates(document.exportUpdates())
        #expect(LexicalJSON.export(try Projection.state(of: other, registry: Plugins.registry)) == LexicalJSON.export(state))
    }
}

@Suite struct TwoEditorsTests {
    /// Two peers on one document: A seeds it, B starts from A's bytes.
    func pair(_ paragraphs: [String]) throws -> (Peer, Peer) {
        let a = try Peer("A", peer: 1, document: CRDTDocument(peer: 1), state: EditorState(registry: Plugins.registry, paragraphs: paragraphs))
        var seeded = CRDTDocument(peer: 2)
        try seeded.importUpdates(a.binding.exportUpdates())
        let b = try Peer("B", peer: 2, document: seeded)
        return (a, b)
    }

    @Test func typingShowsUpOnTheOtherPeer() throws {
        let (a, b) = try pair(["hello"])
        #expect(b.text == "hello")
        try a.select(5..<5)
        try a.type(" world")
        try b.receive(from: a)
        #expect(b.text == "hello world")
        try a.checkInvariant()
        try b.checkInvariant()
        #expect(a.json == b.json)
    }

    @Test func concurrentTypingInTheSecondHalfOfASplitParagraphGoesToTheNewParagraph() throws {
        let (a, b) = try pair(["hello world"])
        try a.select(6..<6)
        try a.type("\n")                      // A splits after "hello "
        try b.select(11..<11)
        try b.type("!")                       // B types at the end of "world"
        try a.receive(from: b)
        try b.receive(from: a)
        #expect(a.text == "hello \nworld!")
        #expect(b.text == a.text)
        #expect(a.json == b.json)
        try a.checkInvariant()
        try b.checkInvariant()
    }

    @Test func concurrentTypingInAMergedParagraphSurvivesInTheMergedParagraph() throws {
        let (a, b) = try pair(["one", "two"])
        try a.select(4..<4)
        try a.editor.dispatch(Commands.deleteCharacter, true)   // A merges "two" into "one"
        #expect(a.text == "onetwo")
        try b.select(7..<7)
        try b.type("!")                                       // B types at the end of "two"
        try a.receive(from: b)
        try b.receive(from: a)
        #expect(a.text == "onetwo!")
        #expect(b.text == a.text)
        #expect(a.json == b.json)
        try a.checkInvariant()
        try b.checkInvariant()
    }

    @Test func aRemoteInsertionAtTheCaretLeavesTheCaretBeforeIt() throws {
        let (a, b) = try pair(["abc"])
        try a.select(1..<1)
        try b.select(1..<1)
        try b.type("X")
        try a.receive(from: b)
        #expect(a.text == "aXbc")
        #expect(a.editor.nativeSelection == 1..<1)
        // A range does not grow from insertions at its edges.
        try a.select(1..<3)
        try b.select(1..<1)
        try b.type("<")
        try b.select(4..<4)
        try b.type(">")
        try a.receive(from: b)
        #expect(a.text == "a<Xb>c")
        #expect(a.editor.nativeSelection == 2..<4)
    }

    /// A keystroke at the start of a plain text node right after bold text: the shared text's
    /// expand rule makes the new character bold, the node is plain, so the binding unmarks it (a
    /// second commit of the keystroke), and one undo step takes back both.
    @Test func aKeystrokeKeepsItsNodesFormatWhereTheNeighboursWouldGiveAnother() throws {
        let (a, b) = try pair(["ab"])
        try a.select(0..<1)
        try a.editor.dispatch(Commands.formatText, .bold)
        let paragraph = try #require(a.editor.state.root.firstChild)
        let plain = try #require(Array(a.editor.state.children(of: paragraph)).last)
        #expect(plain.text == "b" && !plain.textFormat.contains(.bold))
        a.clock.milliseconds += 5_000
        let undoSteps = a.editor.history.undoCount
        try a.editor.update(tag: "typing") { (state: inout EditorState) throws(ModelError) in
            try state.spliceText(plain.key, at: 0, deleting: 0, inserting: "x")
        }
        try a.checkInvariant()
        #expect(a.editor.history.undoCount == undoSteps + 1)
        try b.receive(from: a)
        try b.checkInvariant()
        #expect(b.json == a.json)
        let bold = b.editor.state.children(of: try #require(b.editor.state.root.firstChild)).filter { $0.textFormat.contains(.bold) }.map(\.text)
        #expect(bold == ["a"])
        #expect(b.text == "axb")
        #expect(try a.editor.undo())
        #expect(a.text == "ab")
        try a.checkInvariant()
        try b.receive(from: a)
        try b.checkInvariant()
        #expect(b.json == a.json)
    }

    @Test func undoTakesBackOnlyThisPeersTyping() throws {
        let (a, b) = try pair([""])
        try a.type("hello")
        try b.receive(from: a)
        try b.select(0..<0)
        try b.type("X")
        try a.receive(from: b)
        #expect(a.text == "Xhello")
        #expect(try a.editor.undo())
        #expect(a.text == "X")
        #expect(try a.editor.redo())
        #expect(a.text == "Xhello")
        try b.receive(from: a)
        #expect(b.text == "Xhello")
        try a.checkInvariant()
        try b.checkInvariant()
    }
}

@Suite struct WorkerTests {
    @Test func importsPreparedOffTheEditorsThreadApply() async throws {
        let state = EditorState(registry: Plugins.registry, paragraphs: ["hello"])
        let a = try Peer("A", peer: 1, document: CRDTDocument(peer: 1), state: state)
        let worker = BindingWorker()
        let json = Array(JSONWriter().string(LexicalJSON.export(state)).utf8)
        let seeded = try await worker.document(fromLexicalJSON: json, registry: Plugins.registry, peer: 9)
        #expect(LexicalJSON.export(try Projection.state(of: seeded, registry: Plugins.registry)) == LexicalJSON.export(state))
        // B opens A's document through the worker.
        var document = CRDTDocument(peer: 2)
        try document.importUpdates(a.binding.exportUpdates())
        let prepared = try await worker.project(document, registry: Plugins.registry)
        let editor = try Editor(state: EditorState(registry: Plugins.registry), storage: TextStorage())
        let b = try EditorBinding(editor: editor, prepared: prepared)
        #expect(editor.storage?.string == "hello")
        // A types; B imports through the worker.
        try a.select(5..<5)
        try a.type(" world")
        let bytes = a.binding.exportUpdates(since: b.document.version)
        let ready = try await worker.prepareImport(bytes, into: b.document)
        try b.apply(ready)
        #expect(editor.storage?.string == "hello world")
        // A stale preparation (B typed meanwhile) is imported again on the spot.
        try a.type("!")
        let late = try await worker.prepareImport(a.binding.exportUpdates(since: b.document.version), into: b.document)
        try editor.replaceCharacters(in: 0..<0, with: ">")
        try b.apply(late)
        #expect(editor.storage?.string == ">hello world!")
    }
}

@Suite struct UnknownNodeTests {
    static let json = #"""
    {"root":{"type":"root","version":1,"format":"","indent":0,"direction":null,"children":[
      {"type":"paragraph","version":1,"format":"","indent":0,"direction":null,"textFormat":0,"textStyle":"","children":[
        {"type":"text","text":"before ","detail":0,"format":0,"mode":"normal","style":"","version":1},
        {"type":"mention","mentionName":"Ada","version":1},
        {"type":"text","text":" after","detail":0,"format":1,"mode":"normal","style":"","version":1}]},
      {"type":"collapsible-container","open":true,"version":1,"format":"","indent":0,"direction":null,"children":[
        {"type":"paragraph","version":1,"format":"","indent":0,"direction":null,"textFormat":0,"textStyle":"","children":[
          {"type":"text","text":"inside","detail":0,"format":0,"mode":"normal","style":"","version":1}]}]}]}}
    """#

    @Test func unknownNodesSurviveTheCRDTAndCollaboration() throws {
        let state = try LexicalJSON.importState(from: Array(Self.json.utf8), registry: Plugins.registry)
        var document = CRDTDocument(peer: 1)
        try Projection.seed(&document, from: state)
        #expect(LexicalJSON.export(try Projection.state(of: document, registry: Plugins.registry)) == LexicalJSON.export(state))
        let a = try Peer("A", peer: 1, document: CRDTDocument(peer: 1), state: state)
        var copy = CRDTDocument(peer: 2)
        try copy.importUpdates(a.binding.exportUpdates())
        let b = try Peer("B", peer: 2, document: copy)
        #expect(b.json == a.json)
        try a.select(0..<0)
        try a.type("x")
        try b.receive(from: a)
        #expect(b.json == a.json)
        try b.checkInvariant()
    }
}

@Suite struct PresenceCursorTests {
    /// A peer's published selection resolves in the other editor to the same text, and follows
    /// that text when the other peer types before it.
    @Test func aPublishedSelectionResolvesToTheSameTextOnTheOtherPeer() throws {
        let a = try Peer("A", peer: 1, document: CRDTDocument(peer: 1), state: EditorState(registry: Plugins.registry, paragraphs: ["hello", "world"]))
        var seeded = CRDTDocument(peer: 2)
        try seeded.importUpdates(a.binding.exportUpdates())
        let b = try Peer("B", peer: 2, document: seeded)
        try a.select(7..<9)                                  // "or" in the second paragraph
        let published = try #require(a.binding.selectionCursors)
        #expect(b.binding.nativeOffset(of: published.anchor) == 7)
        #expect(b.binding.nativeOffset(of: published.focus) == 9)
        try b.select(0..<0)
        try b.type(">> ")
        #expect(b.binding.nativeOffset(of: published.anchor) == 10)
        #expect(b.binding.nativeOffset(of: published.focus) == 12)
        // A caret: collapsed, both ends the same.
        try a.select(3..<3)
        let caret = try #require(a.binding.selectionCursors)
        #expect(b.binding.nativeOffset(of: caret.anchor) == 6 && b.binding.nativeOffset(of: caret.focus) == 6)
    }
}
