import Dispatch
import Foundation
import QuireAlgorithms
import Synchronization
import Testing

@Suite struct HandOffQueueTests {
    /// Whatever the runs and the pace, the taker sees every element once, in the order put, then
    /// nil: one element or many at a time, the taker faster or slower than the maker.
    @Test(arguments: [1, 2, 3, 4, 5])
    func everyElementArrivesInOrder(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let queue = HandOffQueue<Int>()
        let count = 20_000
        let runs: [Int] = {
            var lengths: [Int] = []
            var total = 0
            while total < count {
                let length = min(Int.random(in: 0...40, using: &generator), count - total)
                lengths.append(length)
                total += length
            }
            return lengths
        }()
        let makerPauses = seed % 2 == 0
        let maker = ForkedWork {
            var next = 0
            for (index, length) in runs.enumerated() {
                if length == 1 {
                    queue.put(next)
                } else {
                    queue.put(contentsOf: next..<(next + length))
                }
                next += length
                if makerPauses && index % 97 == 0 { Thread.sleep(forTimeInterval: 0.0005) }
            }
            queue.close()
            return next
        }
        var taken: [Int] = []
        var takes = 0
        while let arrived = queue.take() {
            #expect(!arrived.isEmpty)
            taken += arrived
            takes += 1
            if !makerPauses && takes % 53 == 0 { Thread.sleep(forTimeInterval: 0.0005) }
        }
        #expect(maker.result() == count)
        #expect(taken == Array(0..<count))
        // Closed and drained: every later take says so at once.
        #expect(queue.take() == nil)
        #expect(queue.take() == nil)
    }

    /// A take waits for the first element; what is put after the close is dropped.
    @Test func aTakeWaitsAndTheCloseEndsTheQueue() {
        let queue = HandOffQueue<String>()
        let taker = ForkedWork { () -> [[String]] in
            var takes: [[String]] = []
            while let arrived = queue.take() { takes.append(arrived) }
            return takes
        }
        Thread.sleep(forTimeInterval: 0.02)
        queue.put("a")
        Thread.sleep(forTimeInterval: 0.02)
        queue.put(contentsOf: ["b", "c"])
        queue.put(contentsOf: [])
        queue.close()
        queue.close()
        queue.put("after the close")
        let takes = taker.result()
        #expect(takes.joined().elementsEqual(["a", "b", "c"]))
        #expect(takes.allSatisfy { !$0.isEmpty })
    }

    /// A queue closed with elements waiting hands them over before it says it is closed.
    @Test func elementsWaitingAtTheCloseAreStillTaken() {
        let queue = HandOffQueue<Int>()
        queue.put(1)
        queue.put(contentsOf: [2, 3])
        queue.close()
        #expect(queue.take() == [1, 2, 3])
        #expect(queue.take() == nil)
    }
}
