import Dispatch
import Synchronization

/// Work started on another thread as it is made, whose result the caller takes when it needs it:
/// one large job (a document's export, its import) split in two parts that run on two cores at
/// once, the caller doing its own part meanwhile.
///
/// ```swift
/// let later = ForkedWork { write(laterBlocks) }
/// var text = write(earlierBlocks)
/// text += later.result()
/// ```
///
/// The work runs on a Dispatch global queue; ``result()`` blocks until it has finished, so call
/// it from a thread that may block (not from a Swift concurrency task that must not).
public final class ForkedWork<Value: Sendable>: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Value?>(nil)
    private let stopRequested = Atomic(false)

    /// Starts `work` on another thread.
    public convenience init(_ work: @escaping @Sendable () -> Value) {
        self.init(stoppable: { _ in work() })
    }

    /// Starts `work` on another thread, handing it a check of whether ``stop()`` has been
    /// called: long work looks now and then and ends early when it has (the caller's own part
    /// failed, and wants nothing more).
    public init(stoppable work: @escaping @Sendable (_ isStopped: () -> Bool) -> Value) {
        DispatchQueue.global().async { [self] in
            // Moved in, so that this thread holds no reference once the result is out: one
            // still held as ``takeResult()`` returns would make the taker's first change copy.
            var value: Value? = work { stopRequested.load(ordering: .relaxed) }
            outcome.withLock { swap(&$0, &value) }
            finished.signal()
        }
    }

    /// Asks stoppable work to end early; ``result()`` still waits for it to end.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
    }

    /// The work's result, once it has finished; from any thread, any number of times.
    ///
    /// - Complexity: O(1) besides the wait.
    public func result() -> Value {
        whenFinished { $0! }
    }

    /// The work's result, once it has finished, moved out to its one owner: for a value the
    /// caller goes on changing (a batch of nodes it appends to), which ``result()`` would leave
    /// with a second owner and so copy at the first change. Called once, and ``result()`` not
    /// after it.
    ///
    /// - Complexity: O(1) besides the wait.
    public func takeResult() -> Value {
        whenFinished { outcome in
            guard let value = outcome.take() else { preconditionFailure("ForkedWork.takeResult() called after its result was taken") }
            return value
        }
    }

    /// `body` over the outcome, once the work has finished.
    private func whenFinished(_ body: (inout Value?) -> Value) -> Value {
        // A latch: each caller passes the signal on to the next.
        finished.wait()
        defer { finished.signal() }
        return outcome.withLock { body(&$0) }
    }
}
