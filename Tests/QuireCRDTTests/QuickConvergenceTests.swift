import Testing
@testable import QuireCRDT

@Suite struct QuickConvergenceTests {
    @Test(arguments: 0..<300)
    func twoPeersTextConverge(seed: Int) throws {
        var rng = SeededRNG(seed: UInt64(seed))
        let t = ContainerID.root(name: "t", type: .text)
        var docs = [CRDTDocument(peer: 1), CRDTDocument(peer: 2), CRDTDocument(peer: 3)]
        for _ in 0..<rng.int(1..<6) {
            for i in docs.indices {
                for _ in 0..<rng.int(1..<4) {
                    let len = docs[i].length(of: t)
                    if len > 0 && rng.chance(0.3) {
                        let p = rng.int(0..<len)
                        try docs[i].delete(at: p, count: rng.int(1..<(min(3, len - p) + 1)), in: t)
                    } else {
                        try docs[i].insertText(String(UnicodeScalar(UInt8(97 + i))) + (rng.chance(0.5) ? "x" : ""), at: rng.int(0..<(len + 1)), in: t)
                    }
                    docs[i].commit()
                }
            }
            // random pairwise sync
            let a = rng.int(0..<3), b = rng.int(0..<3)
            try docs[b].importUpdates(docs[a].exportUpdates(since: docs[b].version))
        }
        for i in docs.indices { for j in docs.indices where i != j { try docs[j].importUpdates(docs[i].exportUpdates()) } }
        let texts = docs.map { $0.text(t) }
        #expect(texts[0] == texts[1] && texts[1] == texts[2], "\(texts)")
    }
}

/// Fugue's defining property: concurrent runs typed at the same place never interleave, whether
/// typed forwards or backwards (each character inserted before the previous one).
@Suite struct NonInterleavingTests {
    static let t = ContainerID.root(name: "t", type: .text)

    @Test(arguments: [(false, false), (true, true), (false, true), (true, false)])
    func concurrentRunsStayContiguous(aBackwards: Bool, bBackwards: Bool) throws {
        var base = CRDTDocument(peer: 1)
        try base.insertText("[]", at: 0, in: Self.t)
        base.commit()
        var a = try CRDTDocument.load(snapshot: base.exportSnapshot(), peer: 10)
        var b = try CRDTDocument.load(snapshot: base.exportSnapshot(), peer: 20)
        func type(_ word: String, into doc: inout CRDTDocument, backwards: Bool) throws {
            for (i, ch) in (backwards ? Array(word.reversed()) : Array(word)).enumerated() {
                try doc.insertText(String(ch), at: backwards ? 1 : 1 + i, in: Self.t)
                doc.commit()
            }
        }
        try type("hello", into: &a, backwards: aBackwards)
        try type("world", into: &b, backwards: bBackwards)
        try a.importUpdates(b.exportUpdates())
        try b.importUpdates(a.exportUpdates())
        #expect(a.text(Self.t) == b.text(Self.t))
        #expect(["[helloworld]", "[worldhello]"].contains(a.text(Self.t)), "\(a.text(Self.t))")
    }
}
