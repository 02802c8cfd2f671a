import Dispatch
import Foundation
import QuireAlgorithms
import Synchronization
import Testing

@Suite struct ForkedWorkTests {
    /// The work runs once, elsewhere, while the caller does its own part; its result is the
    /// same to every caller, however many ask and from whichever thread.
    @Test func theResultReachesEveryCaller() {
        let runs = Atomic(0)
        let work = ForkedWork { () -> [Int] in
            runs.add(1, ordering: .relaxed)
            return (1...100_000).map { $0 * 2 }
        }
        let own = (1...100_000).reduce(0, +)
        let seen = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let sum = work.result().reduce(0, +)
            seen.withLock { $0.append(sum) }
        }
        #expect(work.result().reduce(0, +) == 2 * own)
        #expect(seen.withLock { $0 } == Array(repeating: 2 * own, count: 4))
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    /// The caller waits for work slower than its own part.
    @Test func theCallerWaitsForSlowWork() {
        let work = ForkedWork { () -> String in
            Thread.sleep(forTimeInterval: 0.05)
            return "done"
        }
        #expect(work.result() == "done")
    }
    /// Stoppable work sees the request and ends early; the result still waits for it to end.
    @Test func stoppableWorkEndsWhenAsked() {
        let started = DispatchSemaphore(value: 0)
        let work = ForkedWork(stoppable: { isStopped -> Int in
            started.signal()
            var rounds = 0
            while !isStopped() {
                rounds += 1
                Thread.sleep(forTimeInterval: 0.001)
            }
            return rounds
        })
        started.wait()
        Thread.sleep(forTimeInterval: 0.02)
        work.stop()
        let rounds = work.result()
        #expect(rounds >= 1)
        #expect(work.result() == rounds)
    }

    /// `takeResult` moves the value out: the caller is its one owner, so changing it copies
    /// nothing; `result` keeps the value, so the caller's copy is shared.
    @Test func takenResultsHaveOneOwner() {
        final class Box: Sendable {}
        let taken = ForkedWork { Box() }
        var takenBox = taken.takeResult()
        #expect(isKnownUniquelyReferenced(&takenBox))
        let kept = ForkedWork { Box() }
        var keptBox = kept.result()
        #expect(!isKnownUniquelyReferenced(&keptBox))
    }
}
