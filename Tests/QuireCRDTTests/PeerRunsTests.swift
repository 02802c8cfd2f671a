import Testing
@testable import QuireCRDT

/// The chunked per-peer ID index against one flat sorted list of runs (the index before it was
/// chunked), over seeded random assignments: appends of new counters, re-assignments inside
/// one run, and ranges across runs and across chunk boundaries (which merge and re-cut chunks).
@Suite struct PeerRunsTests {
    @Test(arguments: 0..<16)
    func chunkedIndexFindsWhatTheFlatListFinds(seed: Int) {
        var rng = SeededRNG(seed: UInt64(seed) &+ 500)
        let leaves = (0..<6).map { _ in SeqNode(leaf: true) }
        var index = PeerRuns()
        var model: [IndexRun] = []
        var next: OpCounter = 0
        for step in 0..<3_000 {
            let leaf = leaves[rng.int(0..<leaves.count)]
            let start: OpCounter
            let end: OpCounter
            if next == 0 || rng.chance(0.4) {
                // New counters, sometimes after a gap (counters of other containers).
                start = next + (rng.chance(0.2) ? OpCounter(rng.int(1..<4)) : 0)
                end = start + OpCounter(rng.int(1..<5))
                next = end
            } else {
                // Existing counters: short ranges mostly, long ones (across chunks) sometimes.
                start = OpCounter(rng.int(0..<Int(next)))
                let longest = rng.chance(0.05) ? 600 : 6
                end = min(next, start + OpCounter(rng.int(1..<(longest + 1))))
            }
            index.assign(start: start, end: end, leaf: leaf)
            FugueSequence.assign(&model, start: start, end: end, leaf: leaf)
            #expect(index.ends == index.chunks.map { $0[$0.count - 1].end }, "step \(step)")
            #expect(index.chunks.allSatisfy { !$0.isEmpty && $0.count <= PeerRuns.chunkCapacity }, "step \(step)")
            if step % 50 == 0 || step == 2_999 { expectSameLeaves(index, model, upTo: next + 2) }
        }
        #expect(index.chunks.count > 1, "the test reached more than one chunk")
    }

    /// Every counter maps to the same leaf (or to none) in both, and the chunked runs are sorted
    /// and disjoint.
    private func expectSameLeaves(_ index: PeerRuns, _ model: [IndexRun], upTo limit: OpCounter) {
        let runs = index.chunks.flatMap { $0 }
        for i in runs.indices.dropFirst() { #expect(runs[i - 1].end <= runs[i].start) }
        var expected = [SeqNode?](repeating: nil, count: Int(limit))
        for run in model { for counter in run.start..<run.end { expected[Int(counter)] = run.leaf } }
        for counter in 0..<limit {
            let found = index.run(containing: counter)
            #expect(found?.leaf === expected[Int(counter)] && (found == nil) == (expected[Int(counter)] == nil), "counter \(counter)")
        }
    }
}
