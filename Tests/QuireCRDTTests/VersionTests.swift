import Testing
@testable import QuireCRDT

@Suite struct VersionTests {
    @Test(arguments: 0..<50)
    func versionVectorCompareMatchesPointwiseModel(seed: UInt64) {
        var rng = SeededRNG(seed: seed)
        for _ in 0..<100 {
            var a: [PeerID: OpCounter] = [:], b: [PeerID: OpCounter] = [:]
            for p in 0..<4 {
                if rng.chance(0.7) { a[PeerID(p)] = OpCounter(rng.int(0..<4)) }
                if rng.chance(0.7) { b[PeerID(p)] = OpCounter(rng.int(0..<4)) }
            }
            let va = VersionVector(a), vb = VersionVector(b)
            let le = (0..<4).allSatisfy { (a[PeerID($0)] ?? 0) <= (b[PeerID($0)] ?? 0) }
            let ge = (0..<4).allSatisfy { (a[PeerID($0)] ?? 0) >= (b[PeerID($0)] ?? 0) }
            let expected: VersionOrder = le && ge ? .equal : le ? .less : ge ? .greater : .concurrent
            #expect(va.compare(vb) == expected)
            var m = va
            m.merge(vb)
            for p in 0..<4 { #expect(m[PeerID(p)] == max(a[PeerID(p)] ?? 0, b[PeerID(p)] ?? 0)) }
            var missing = 0
            for p in 0..<4 {
                let x: OpCounter = a[PeerID(p)] ?? 0
                let y: OpCounter = b[PeerID(p)] ?? 0
                missing += max(0, Int(x - y))
            }
            let spanTotal = va.spans(notIn: vb).reduce(0) { $0 + $1.count }
            #expect(spanTotal == missing)
        }
    }

    @Test func idsLamportsAndChangeMerging() throws {
        let t = ContainerID.root(name: "t", type: .text)
        var a = CRDTDocument(peer: 1), b = CRDTDocument(peer: 2)
        for (i, ch) in "hello".enumerated() {
            try a.insertText(String(ch), at: i, in: t)
            a.commit()
        }
        // Five consecutive local commits merge into one change (Loro's rule).
        #expect(a.s.changes[1]?.count == 1)
        #expect(a.version[1] == 5)
        #expect(a.frontiers.ids == [OpID(peer: 1, counter: 4)])
        #expect(a.nextLamport == 5)
        try b.insertText("xy", at: 0, in: t)
        b.commit()
        try b.importUpdates(a.exportUpdates())
        // After an import the next Lamport is one past the largest seen.
        #expect(b.nextLamport == 5)
        #expect(b.frontiers.ids.sorted() == [OpID(peer: 1, counter: 4), OpID(peer: 2, counter: 1)])
        try b.insertText("!", at: 0, in: t)
        b.commit()
        // A change after an import depends on both frontiers and is a new change.
        #expect(b.s.changes[2]?.count == 2)
        #expect(b.s.changes[2]?.last?.deps.sorted() == [OpID(peer: 1, counter: 4), OpID(peer: 2, counter: 1)])
        #expect(b.s.changes[2]?.last?.lamport == 5)
        #expect(a.version.compare(b.version) == .less)
        #expect(b.version.compare(a.version) == .greater)
    }

    @Test func importIsIdempotentAndReportsPending() throws {
        let t = ContainerID.root(name: "t", type: .text)
        var a = CRDTDocument(peer: 1)
        try a.insertText("ab", at: 0, in: t)
        a.commit()
        let first = a.exportUpdates()
        let v1 = a.version
        var b0 = CRDTDocument(peer: 5)
        try b0.importUpdates(first)
        try b0.insertText("Z", at: 1, in: t)
        b0.commit()
        try a.importUpdates(b0.exportUpdates(since: v1))
        try a.insertText("cd", at: 3, in: t)
        a.commit()
        let second = a.exportUpdates(since: v1)
        var b = CRDTDocument(peer: 2)
        let status = try b.importUpdates(second)
        #expect(status.applied.isEmpty)
        #expect(!status.pending.isEmpty)
        #expect(b.text(t) == "")
        let status2 = try b.importUpdates(first)
        #expect(status2.pending.isEmpty)
        #expect(b.text(t) == a.text(t))
        let again = try b.importUpdates(second)
        #expect(again.applied.isEmpty && again.pending.isEmpty)
        #expect(b.text(t) == a.text(t))
        #expect(b.version == a.version)
    }
}
