import Testing
@testable import QuireCRDT

@Suite struct QuickConvergenceTests {
    @Test(arguments: 0..<300)
    func twoPeersTextConverge(seed: Int) throws {
        var rng = SeededRNG(seed: UInt64(seed))
        let t = ContainerID.root(name: "t", type: .text)
        var docs = [Document(peer: 1), Document(peer: 2), Document(peer: 3)]
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
