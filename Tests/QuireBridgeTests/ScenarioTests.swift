import Foundation
import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import Testing

/// Adversarial concurrent scenarios from the bugs of other bindings (lexical-yjs, y-prosemirror,
/// loro-prosemirror, automerge-prosemirror, loro#673): each runs the peers' edits concurrently,
/// then delivers in every order, and checks the converged document.
@Suite struct ScenarioTests {
    /// Peers on one document of `paragraphs`, all in sync.
    func peers(_ count: Int, _ paragraphs: [String]) throws -> [Peer] {
        let first = try Peer("P1", peer: 1, document: CRDTDocument(peer: 1), state: EditorState(registry: Plugins.registry, paragraphs: paragraphs))
        var result = [first]
        for index in 1..<count {
            var document = CRDTDocument(peer: PeerID(index + 1))
            try document.importUpdates(first.binding.exportUpdates())
            result.append(try Peer("P\(index + 1)", peer: PeerID(index + 1), document: document))
        }
        return result
    }

    /// Delivers everything between all peers: each imports every other's updates in `order`.
    func syncAll(_ peers: [Peer], order: [Int]? = nil) throws {
        let order = order ?? Array(peers.indices)
        for receiver in order {
            for sender in order where sender != receiver { try peers[receiver].receive(from: peers[sender]) }
        }
        for sender in order { for receiver in order where sender != receiver { try peers[receiver].receive(from: peers[sender]) } }
        for peer in peers { try peer.checkInvariant() }
        for peer in peers.dropFirst() {
            #expect(peer.canonicalJSON == peers[0].canonicalJSON, "\(peer.name) differs: \(firstDifference(peer.canonicalJSON, peers[0].canonicalJSON) ?? "")")
            #expect(peer.binding.document.version == peers[0].binding.document.version)
        }
    }

    func blocks(_ peer: Peer) -> [String] { peer.text.components(separatedBy: "\n") }

    @Test(arguments: [[0, 1], [1, 0]])
    func splitVersusTypingInTheTail(order: [Int]) throws {
        let p = try peers(2, ["Hello world"])
        try p[0].select(9..<9)
        try p[0].type("Z")                       // "Hello worZld"
        try p[1].select(5..<5)
        try p[1].type("\n")                      // Enter after "Hello"
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["Hello", " worZld"])
        #expect(p[0].editor.nativeSelection == 11..<11, "P1's caret stays after Z")
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func doubleSplitAtTheSameOffset(order: [Int]) throws {
        let p = try peers(2, ["abcde"])
        for peer in p {
            try peer.select(3..<3)
            try peer.type("\n")
        }
        try syncAll(p, order: order)
        let result = blocks(p[0])
        #expect(result.count == 3)
        #expect(result.first == "abc")
        #expect(result.filter { $0 == "de" }.count == 1 && result.filter(\.isEmpty).count == 1)
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func doubleMerge(order: [Int]) throws {
        let p = try peers(2, ["abc", "de"])
        for peer in p {
            try peer.select(4..<4)
            try peer.editor.dispatch(Commands.deleteCharacter, true)
        }
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["abcde"])
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func chainedMerges(order: [Int]) throws {
        let p = try peers(2, ["a", "b", "c"])
        try p[0].select(2..<2)
        try p[0].editor.dispatch(Commands.deleteCharacter, true)   // B into A
        try p[1].select(4..<4)
        try p[1].editor.dispatch(Commands.deleteCharacter, true)   // C into B
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["abc"])
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func splitVersusMergeAcrossBlockTypes(order: [Int]) throws {
        let p = try peers(2, ["Foo", "Bar"])
        try p[0].select(0..<0)
        _ = try p[0].editor.dispatch(named: "heading.set", payload: "h1")
        try syncAll(p)
        try p[0].select(4..<4)
        try p[0].editor.dispatch(Commands.deleteCharacter, true)   // "Bar" into the heading
        try p[1].select(5..<5)
        try p[1].type("\n")                                        // "B" | "ar"
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["FooB", "ar"])
        let first = LexicalJSON.export(p[0].editor.state).objectValue?["root"]?.objectValue?["children"]?.arrayValue?.first
        #expect(first?.objectValue?["type"] == .string("heading"))
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func typingInABlockAnotherPeerDeletes(order: [Int]) throws {
        let p = try peers(2, ["One", "Two", "Three"])
        try p[0].editor.replaceCharacters(in: 3..<7, with: "")     // "Two" and its break go
        try p[1].select(7..<7)
        try p[1].type("X")                                          // at the end of "Two"
        try syncAll(p, order: order)
        #expect(p[0].text.filter { $0 == "X" }.count == 1, "the concurrent X survives once")
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func marksAcrossASplit(order: [Int]) throws {
        let p = try peers(2, ["Hello world"])
        try p[0].select(2..<8)
        try p[0].editor.dispatch(Commands.formatText, .bold)
        try p[1].select(5..<5)
        try p[1].type("\n")
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["Hello", " world"])
        let paragraphs = p[0].editor.state.children(of: .root).map(\.key)
        let bold = paragraphs.map { key in p[0].editor.state.children(of: key).filter { $0.textFormat.contains(.bold) }.map(\.text) }
        #expect(bold == [["llo"], [" wo"]])
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func linkBoundaries(order: [Int]) throws {
        let p = try peers(2, ["see website now"])
        try p[0].select(4..<11)
        _ = try p[0].editor.dispatch(named: "link.toggle", payload: .object(["url": .string("https://quire.dev")]))
        try syncAll(p)
        try p[0].select(11..<11)
        try p[0].type("S")                                          // right after the link: outside
        try p[1].select(7..<7)
        try p[1].type("T")                                          // inside "web|site"
        try syncAll(p, order: order)
        #expect(p[0].text == "see webTsiteS now")
        let links = p[0].editor.state.children(of: p[0].editor.state.root.firstChild!).filter { $0.type == "link" }
        #expect(links.count == 1)
        #expect(links.first.map { FlatString.render($0.key, in: p[0].editor.state) } == "webTsite")
    }

    /// Found by the 100,000-step soak: a peer links a word while another turns the paragraph
    /// into a code block. Retyping the block moved the link into the code block, which refuses
    /// it, and every peer had to recover; the code block now shows the word as plain text.
    @Test(arguments: [[0, 1], [1, 0]])
    func linkVersusConcurrentCodeBlock(order: [Int]) throws {
        let p = try peers(2, ["see the site"])
        try p[0].select(8..<12)
        _ = try p[0].editor.dispatch(named: "link.toggle", payload: .object(["url": .string("https://quire.dev")]))
        try p[1].select(0..<0)
        _ = try p[1].editor.dispatch(named: "toggleCodeBlock", payload: .null)
        try syncAll(p, order: order)
        #expect(p[0].canonicalJSON == p[1].canonicalJSON)
        #expect(blocks(p[0]) == ["see the site"])
        let block = try #require(p[0].editor.state.children(of: .root).first)
        #expect(block.type == "code")
        #expect(!p[0].editor.state.children(of: block.key).contains { $0.type == "link" })
    }

    @Test func undoVersusConcurrentTyping() throws {
        // Lexical's collaboration test: P1 types a line, P2 types into it, P1 undoes: P2's text stays.
        let p = try peers(2, ["Line 1"])
        try p[0].select(6..<6)
        try p[0].type("\n")
        p[0].clock.milliseconds += 5_000
        try p[0].type("This is a test. ")
        try syncAll(p)
        try p[1].select(23..<23)
        try p[1].type("Word")
        try syncAll(p)
        #expect(try p[0].editor.undo())
        try syncAll(p)
        #expect(blocks(p[0]) == ["Line 1", "Word"])
    }

    @Test func undoInsideAFormatWithConcurrentTyping() throws {
        let p = try peers(2, ["normal bold"])
        try p[0].select(7..<11)
        try p[0].editor.dispatch(Commands.formatText, .bold)
        try syncAll(p)
        try p[1].select(9..<9)
        try p[1].type("BOLD")                                        // "bo|ld"
        try syncAll(p)
        #expect(try p[0].editor.undo())
        try syncAll(p)
        #expect(p[0].text == "normal boBOLDld")
        #expect(try p[0].editor.redo())
        try syncAll(p)
        #expect(p[0].text == "normal boBOLDld")
        let bold = p[0].editor.state.children(of: p[0].editor.state.root.firstChild!).filter { $0.textFormat.contains(.bold) }.map(\.text)
        #expect(bold == ["boBOLDld"])
    }

    @Test func undoOfTypingAfterAnUndoLeavesNoDuplicate() throws {
        // lexical #6396: type, undo part of it, type again; the other peer sees it once.
        let p = try peers(2, [""])
        try p[0].type("Hello, ")
        p[0].clock.milliseconds += 5_000
        try p[0].type("World!")
        #expect(try p[0].editor.undo())
        p[0].clock.milliseconds += 5_000
        try p[0].type("Collaboration Test")
        try syncAll(p)
        #expect(p[1].text == "Hello, Collaboration Test")
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func undoingAMergeRestoresTheBlock(order: [Int]) throws {
        let p = try peers(2, ["aa", "bb"])
        try p[0].select(3..<3)
        try p[0].editor.dispatch(Commands.deleteCharacter, true)
        try syncAll(p)
        #expect(blocks(p[1]) == ["aabb"])
        #expect(try p[0].editor.undo())
        try p[1].select(2..<2)
        try p[1].type("x")
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["aax", "bb"])
    }

    @Test(arguments: [false, true])
    func theCaretOfABlockThatDiesGoesWhereItWas(merge: Bool) throws {
        let p = try peers(2, ["aaa", "bbb", "ccc"])
        try p[0].select(5..<5)                                      // B:1
        if merge {
            try p[1].select(4..<4)
            try p[1].editor.dispatch(Commands.deleteCharacter, true)   // B into A
        } else {
            try p[1].editor.replaceCharacters(in: 3..<7, with: "")     // B goes
        }
        try syncAll(p)
        #expect(p[0].editor.nativeSelection == (merge ? 4..<4 : 3..<3))
    }

    @Test func aRemoteInsertBeforeTheCaretMovesItAlong() throws {
        let p = try peers(2, ["Hello"])
        try p[0].select(5..<5)
        try p[1].select(0..<0)
        try p[1].type("Hey ")
        try syncAll(p)
        #expect(p[0].editor.nativeSelection == 9..<9)
        // The caret in an empty block stays there when other blocks change around it.
        let q = try peers(2, ["One", "", "", "Two"])
        try q[0].select(5..<5)                                      // in the second empty block
        try q[1].select(3..<3)
        try q[1].type("xyz\n\n")
        try syncAll(q)
        #expect(q[0].text == "Onexyz\n\n\n\n\nTwo")
        #expect(q[0].editor.nativeSelection == 10..<10)
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func moveVersusMerge(order: [Int]) throws {
        let p = try peers(2, ["aa", "bb", "cc"])
        // P1 moves B after C (a drag); P2 merges C into B.
        let state = p[0].editor.state
        let b = state.children(of: .root).map(\.key)[1]
        let c = state.children(of: .root).map(\.key)[2]
        try p[0].editor.update { state in
            try state.detach(b)
            try state.insert(b, after: c)
        }
        try p[1].select(6..<6)
        try p[1].editor.dispatch(Commands.deleteCharacter, true)
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["aa", "bbcc"])
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func blockTypeChangeVersusSplit(order: [Int]) throws {
        let p = try peers(2, ["Hello world"])
        try p[0].select(0..<0)
        _ = try p[0].editor.dispatch(named: "heading.set", payload: "h2")
        try p[1].select(5..<5)
        try p[1].type("\n")
        try syncAll(p, order: order)
        #expect(blocks(p[0]) == ["Hello", " world"])
    }

    @Test(arguments: [[0, 1, 2], [2, 1, 0], [1, 2, 0]])
    func threePeersMergeSplitAndDeleteAcrossTheMarker(order: [Int]) throws {
        let p = try peers(3, ["abc", "def"])
        try p[0].select(4..<4)
        try p[0].editor.dispatch(Commands.deleteCharacter, true)   // merge
        try p[1].select(5..<5)
        try p[1].type("\n")                                         // split "d|ef"
        try p[2].editor.replaceCharacters(in: 2..<5, with: "")      // "c\nd" across the marker
        try syncAll(p, order: order)
        #expect(p[0].text.filter { $0 == "c" || $0 == "d" }.isEmpty)
    }

    @Test func compositionSurvivesARemoteChange() throws {
        let p = try peers(2, ["ab"])
        try p[0].select(1..<1)
        try p[0].editor.setMarkedText("ㄱ", selectedRange: 1..<1)
        try p[1].select(0..<0)
        try p[1].type("X")
        try p[0].receive(from: p[1])
        #expect(p[0].text == "Xaㄱb")
        #expect(p[0].editor.storage?.markedRange == NSRange(location: 2, length: 1))
        try p[0].editor.setMarkedText("가", selectedRange: 1..<1)
        try p[0].editor.unmarkText()
        #expect(p[0].text == "Xa가b")
        try syncAll(p)
        #expect(p[1].text == "Xa가b")
    }

    @Test func remoteChangesAreNotEchoed() throws {
        let p = try peers(2, ["hello"])
        try p[1].select(5..<5)
        try p[1].type("!")
        let before = p[0].binding.document.version
        try p[0].receive(from: p[1])
        let after = p[0].binding.document.version
        // P1's own counter did not move: nothing was written back.
        #expect(after[1] == before[1])
        #expect(p[0].editor.history.undoCount == 0)
    }
}

@Suite struct NestedListScenarioTests {
    static let json = #"""
    {"root":{"type":"root","version":1,"format":"","indent":0,"direction":null,"children":[
      {"type":"list","listType":"bullet","start":1,"tag":"ul","version":1,"format":"","indent":0,"direction":null,"children":[
        {"type":"listitem","value":1,"version":1,"format":"","indent":0,"direction":null,"children":[
          {"type":"text","text":"parent item","detail":0,"format":0,"mode":"normal","style":"","version":1}]},
        {"type":"listitem","value":2,"version":1,"format":"","indent":0,"direction":null,"children":[
          {"type":"list","listType":"bullet","start":1,"tag":"ul","version":1,"format":"","indent":0,"direction":null,"children":[
            {"type":"listitem","value":1,"version":1,"format":"","indent":1,"direction":null,"children":[
              {"type":"text","text":"first nested","detail":0,"format":0,"mode":"normal","style":"","version":1}]},
            {"type":"listitem","value":2,"version":1,"format":"","indent":1,"direction":null,"children":[
              {"type":"text","text":"second nested","detail":0,"format":0,"mode":"normal","style":"","version":1}]}]}]}]}]}}
    """#

    /// automerge-prosemirror #38: one peer adds an item in a nested list while another deletes the
    /// nested items. Both converge, and the added text is not lost.
    @Test(arguments: [[0, 1], [1, 0]])
    func nestedListInsertVersusDelete(order: [Int]) throws {
        let state = try LexicalJSON.importState(from: Array(Self.json.utf8), registry: Plugins.registry)
        let first = try Peer("P1", peer: 1, document: CRDTDocument(peer: 1), state: state)
        var document = CRDTDocument(peer: 2)
        try document.importUpdates(first.binding.exportUpdates())
        let second = try Peer("P2", peer: 2, document: document)
        let text = first.text
        let endOfFirst = (text as NSString).range(of: "first nested").upperBound
        try first.select(endOfFirst..<endOfFirst)
        try first.type("\nin between")
        let start = (text as NSString).range(of: "first nested").location
        try second.editor.replaceCharacters(in: (start - 1)..<text.utf16.count, with: "")
        let peers = order == [0, 1] ? [first, second] : [second, first]
        try peers[0].receive(from: peers[1])
        try peers[1].receive(from: peers[0])
        try first.checkInvariant()
        try second.checkInvariant()
        #expect(first.canonicalJSON == second.canonicalJSON, "\(firstDifference(first.canonicalJSON, second.canonicalJSON) ?? "")")
        #expect(first.text.components(separatedBy: "in between").count == 2, "\(first.text.debugDescription)")
    }

    /// One import moves an item (holding a nested list) into a list that a later operation of the
    /// same import deletes: the item gets a move diff, its list a delete diff, and the nested
    /// items under the item lose their blocks without a diff of their own. Their text joins the
    /// text before them at once (the orphan-marker repair reaches them), as it does for every
    /// peer, instead of disappearing until another peer's repair arrives.
    @Test func nestedItemsOfAnItemMovedIntoADeletedListKeepTheirText() throws {
        // The nested list of `json`, a paragraph, and a numbered list of one item.
        var state = try LexicalJSON.importState(from: Array(Self.json.utf8), registry: Plugins.registry)
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(try state.createNode(type: .text, text: "between"), to: paragraph)
        try state.append(paragraph, to: .root)
        let numbered = try state.createNode(type: "list", fields: ["listType": "number", "tag": "ol"])
        let item = try state.createNode(type: "listitem")
        try state.append(try state.createNode(type: .text, text: "other"), to: item)
        try state.append(item, to: numbered)
        try state.append(numbered, to: .root)
        let first = try Peer("P1", peer: 1, document: CRDTDocument(peer: 1), state: state)
        var peers = [first]
        for peer in PeerID(2)...3 {
            var document = CRDTDocument(peer: peer)
            try document.importUpdates(first.binding.exportUpdates())
            peers.append(try Peer("P\(peer)", peer: peer, document: document))
        }
        // P1 moves the item that holds the nested list into the numbered list.
        try first.editor.update { state in
            let blocks = state.children(of: .root).map(\.key)
            let item = try #require(state.child(at: 1, of: blocks[0]))
            try state.detach(item)
            try state.append(item, to: blocks[2])
        }
        // P2, its Lamport clock ahead of P1's, deletes the numbered list.
        let second = peers[1]
        try second.select(0..<0)
        for _ in 0..<3 { try second.type("z") }
        try second.editor.update { state in try state.remove(state.children(of: .root).map(\.key)[2]) }
        // P3 gets both in one import.
        var both = CRDTDocument(peer: 99)
        try both.importUpdates(first.binding.exportUpdates())
        try both.importUpdates(second.binding.exportUpdates())
        let third = peers[2]
        try third.binding.importUpdates(both.exportUpdates(since: third.binding.document.version))
        try third.checkInvariant()
        #expect(third.text.contains("first nested") && third.text.contains("second nested"), "\(third.text.debugDescription)")
        try ScenarioTests().syncAll(peers)
        #expect(first.text.contains("first nested") && first.text.contains("second nested"), "\(first.text.debugDescription)")
    }

    /// Indents travel as moves of list items (and the nested lists they create); an outdent on one
    /// peer while the other types into the nested item converges and keeps the typed letter once.
    @Test func indentsAndAnOutdentWhileTheOtherPeerTypes() throws {
        let a = try Peer("A", peer: 1, document: CRDTDocument(peer: 1), state: EditorState(registry: Plugins.registry, paragraphs: ["one", "two", "three"]))
        var doc = CRDTDocument(peer: 2)
        try doc.importUpdates(a.binding.exportUpdates())
        let b = try Peer("B", peer: 2, document: doc)
        try a.select(0..<13)
        _ = try a.editor.dispatch(named: "list.insert", payload: "bullet")
        try b.receive(from: a)
        try b.checkInvariant("after list")
        for (index, caret) in [(1, 5), (2, 9)] {
            try a.select(caret..<caret)
            _ = try a.editor.dispatch(named: "list.indent", payload: .null)
            try a.checkInvariant("A after indent \(index)")
            try b.receive(from: a)
            try b.checkInvariant("B after indent \(index)")
            #expect(a.canonicalJSON == b.canonicalJSON)
        }
        // B outdents while A types in the nested item.
        try b.select(9..<9)
        _ = try b.editor.dispatch(named: "list.outdent", payload: .null)
        try a.select(10..<10)
        try a.type("X")
        try a.receive(from: b)
        try b.receive(from: a)
        try a.checkInvariant("A end")
        try b.checkInvariant("B end")
        #expect(a.canonicalJSON == b.canonicalJSON)
        #expect(a.text.filter { $0 == "X" }.count == 1, "\(a.text.debugDescription)")
    }
}
