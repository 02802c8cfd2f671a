import QuireAlgorithms
import Testing

@Suite struct PartitioningIndexTests {
    /// A collection that counts how often, and where, the search reads it.
    struct Probe: RandomAccessCollection {
        let base: [Int]
        let reads: Counter
        final class Counter {
            var indices: [Int] = []
        }

        var startIndex: Int { base.startIndex }
        var endIndex: Int { base.endIndex }
        subscript(position: Int) -> Int {
            reads.indices.append(position)
            return base[position]
        }
    }

    /// The model: a linear scan for the first element in the second partition.
    func firstIndex(in values: [Int], notBelow bound: Int) -> Int {
        values.firstIndex { $0 >= bound } ?? values.count
    }

    /// The search agrees with a linear scan on seeded random sorted arrays (with runs of equal
    /// values, bounds below, between and above them), reads only valid indices, and reads at most
    /// ⌊log₂ n⌋ + 1 of them.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func agreesWithALinearScan(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...70, using: &generator)
            let values = (0..<count).map { _ in Int.random(in: 0...40, using: &generator) }.sorted()
            let bound = Int.random(in: -2...42, using: &generator)
            let probe = Probe(base: values, reads: Probe.Counter())
            let found = probe.partitioningIndex { $0 >= bound }
            #expect(found == firstIndex(in: values, notBelow: bound), "\(values) bound \(bound)")
            #expect(probe.reads.indices.allSatisfy { values.indices.contains($0) })
            let limit = count == 0 ? 0 : Int.bitWidth - count.leadingZeroBitCount
            #expect(probe.reads.indices.count <= limit, "\(probe.reads.indices.count) reads for \(count) elements")
        }
    }

    @Test func emptyAndOneSidedCollections() {
        let empty: [Int] = []
        #expect(empty.partitioningIndex { _ in true } == 0)
        let values = [1, 2, 3, 4, 5]
        #expect(values.partitioningIndex { _ in true } == 0)
        #expect(values.partitioningIndex { _ in false } == 5)
        #expect(values.partitioningIndex { $0 > 3 } == 3)
        #expect(values.partitioningIndex { $0 >= 3 } == 2)
    }

    /// Indices are the collection's own, not offsets from zero: a slice answers in its base's
    /// indices.
    @Test func slicesAnswerInTheirOwnIndices() {
        let values = Array(0..<100)
        let slice = values[40..<60]
        #expect(slice.partitioningIndex { $0 >= 50 } == 50)
        #expect(slice.partitioningIndex { $0 >= 0 } == 40)
        #expect(slice.partitioningIndex { $0 >= 100 } == 60)
        let buffer = values.withUnsafeBufferPointer { $0.partitioningIndex { $0 > 77 } }
        #expect(buffer == 78)
    }

    enum Stop: Error { case stop }

    /// A throwing predicate's error reaches the caller.
    @Test func aThrowingPredicateRethrows() {
        #expect(throws: Stop.self) { try [1, 2, 3].partitioningIndex { _ throws(Stop) in throw Stop.stop } }
    }
}
