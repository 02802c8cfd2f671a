import Testing
@testable import QuireCRDT

/// Rich-text marks: expand rules per key, last writer by (Lamport, peer), unmark, and the
/// Peritext paper's concurrent-formatting cases.
@Suite struct MarkTests {
    static let t = ContainerID.root(name: "t", type: .text)

    func make(_ peer: PeerID, _ text: String = "The fox jumped.") throws -> CRDTDocument {
        var d = CRDTDocument(peer: peer)
        d.setExpand(.after, forKey: "bold")
        d.setExpand(.none, forKey: "link")
        d.setExpand(.both, forKey: "italic")
        d.setExpand(.before, forKey: "comment")
        if !text.isEmpty { try d.insertText(text, at: 0, in: Self.t); d.commit() }
        return d
    }

    /// The attributes of each scalar.
    func styles(_ d: CRDTDocument) -> [[String: CRDTValue]] { flatten(d.toDelta(Self.t)).map(\.1) }

    func sync(_ docs: inout [CRDTDocument]) throws {
        for i in docs.indices { for j in docs.indices where i != j { try docs[j].importUpdates(docs[i].exportUpdates()) } }
    }

    @Test(arguments: [("bold", true, false), ("link", false, false), ("italic", true, true), ("comment", false, true)])
    func expandRulesDecideWhetherTypingAtAnEdgeInherits(key: String, atEnd: Bool, atStart: Bool) throws {
        var d = try make(1)
        try d.mark(4..<7, key: key, value: .bool(true), in: Self.t)
        try d.insertText("X", at: 7, in: Self.t)   // right after "fox"
        try d.insertText("Y", at: 4, in: Self.t)   // right before "fox"
        d.commit()
        let s = styles(d)
        #expect(d.text(Self.t) == "The YfoxX jumped.")
        #expect((s[8][key] != nil) == atEnd)
        #expect((s[4][key] != nil) == atStart)
        #expect(s[5][key] == .bool(true) && s[7][key] == .bool(true))
        // Inside the range always inherits.
        try d.insertText("Z", at: 6, in: Self.t)
        #expect(styles(d)[6][key] == .bool(true))
    }

    @Test func concurrentOverlappingFormattingCombines() throws {
        // Peritext example: Alice bolds "The fox", Bob italicizes "fox jumped".
        var alice = try make(1)
        var bob = try CRDTDocument.load(snapshot: alice.exportSnapshot(), peer: 2)
        try alice.mark(0..<7, key: "bold", value: .bool(true), in: Self.t); alice.commit()
        try bob.mark(4..<14, key: "italic", value: .bool(true), in: Self.t); bob.commit()
        var docs = [alice, bob]
        try sync(&docs)
        #expect(fingerprint(docs[0]) == fingerprint(docs[1]))
        let s = styles(docs[0])
        #expect(s[0] == ["bold": .bool(true)])
        #expect(s[4] == ["bold": .bool(true), "italic": .bool(true)])
        #expect(s[8] == ["italic": .bool(true)])
        #expect(s[14] == [:])
    }

    @Test func unmarkRemovesAndHighestLamportWins() throws {
        var a = try make(1)
        try a.mark(0..<14, key: "bold", value: .bool(true), in: Self.t); a.commit()
        var b = try CRDTDocument.load(snapshot: a.exportSnapshot(), peer: 2)
        try b.unmark(4..<7, key: "bold", in: Self.t); b.commit()
        try a.importUpdates(b.exportUpdates(since: a.version))
        let s = styles(a)
        #expect(s[3]["bold"] == .bool(true) && s[4]["bold"] == nil && s[6]["bold"] == nil && s[7]["bold"] == .bool(true))
        // Concurrent links with different values: the op with the higher (Lamport, peer) wins the overlap.
        var c = try make(1), d = try CRDTDocument.load(snapshot: c.exportSnapshot(), peer: 2)
        try c.mark(0..<7, key: "link", value: .string("u1"), in: Self.t); c.commit()
        try d.mark(4..<10, key: "link", value: .string("u2"), in: Self.t); d.commit()
        var docs = [c, d]
        try sync(&docs)
        #expect(fingerprint(docs[0]) == fingerprint(docs[1]))
        let ls = styles(docs[0])
        #expect(ls[0]["link"] == .string("u1"))
        #expect(ls[5]["link"] == .string("u2"))  // same Lamport, larger peer wins
        #expect(ls[9]["link"] == .string("u2"))
        #expect(ls[10]["link"] == nil)
    }

    @Test func sequentialTypingAfterBoldIsBoldAndAfterLinkIsNot() throws {
        var a = try make(1, "ab")
        try a.mark(0..<2, key: "bold", value: .bool(true), in: Self.t)
        try a.mark(0..<2, key: "link", value: .string("x"), in: Self.t)
        a.commit()
        var b = try CRDTDocument.load(snapshot: a.exportSnapshot(), peer: 2)
        try b.insertText("c", at: 2, in: Self.t); b.commit()
        try a.importUpdates(b.exportUpdates(since: a.version))
        #expect(styles(a)[2] == ["bold": .bool(true)])
        #expect(a.toDelta(Self.t) == [.insert("ab", attributes: ["bold": .bool(true), "link": .string("x")]), .insert("c", attributes: ["bold": .bool(true)])])
    }

    @Test(arguments: 0..<30)
    func concurrentMarksAndTypingConverge(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        let base = try make(1, "abcdefgh")
        let snapshot = base.exportSnapshot()
        var docs = [base]
        for p in 2...3 { docs.append(try CRDTDocument.load(snapshot: snapshot, peer: PeerID(p))) }
        for _ in 0..<6 {
            for i in docs.indices {
                let len = docs[i].length(of: Self.t)
                let a = rng.int(0..<len), b = rng.int((a + 1)..<(len + 1))
                let key = ["bold", "link", "italic", "comment"][rng.int(0..<4)]
                if rng.chance(0.5) { try docs[i].mark(a..<b, key: key, value: rng.chance(0.2) ? .null : .int(Int64(i)), in: Self.t) }
                try docs[i].insertText(randomString(&rng), at: rng.int(0..<(len + 1)), in: Self.t)
                docs[i].commit()
            }
            if rng.chance(0.5) { try sync(&docs) }
        }
        try sync(&docs)
        #expect(fingerprint(docs[0]) == fingerprint(docs[1]) && fingerprint(docs[1]) == fingerprint(docs[2]))
    }
}
