import Dispatch
import Synchronization

/// Values handed from one thread to another as they are made, in order: the pipe between the
/// two parts of a job split across cores, where one part makes values (blocks it read, text it
/// wrote) that the other takes while the first goes on.
///
/// ```swift
/// let pieces = HandOffQueue<[UInt8]>()
/// let writer = ForkedWork {
///     for part in parts { pieces.put(write(part)) }
///     pieces.close()
/// }
/// while let arrived = pieces.take() { for piece in arrived { try file.write(piece) } }
/// ```
///
/// ``take()`` blocks until something arrives, so call it from a thread that may block (not from a
/// Swift concurrency task that must not).
public final class HandOffQueue<Element: Sendable>: Sendable {
    private let waiting = Mutex<(elements: [Element], isClosed: Bool)>(([], false))
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// Adds `element` after those before it; after ``close()`` it is dropped.
    ///
    /// - Complexity: amortized O(1).
    public func put(_ element: Element) {
        put(contentsOf: CollectionOfOne(element))
    }

    /// Adds `elements`, in order, after those before them: one hand-off for many small values,
    /// where one each would wake the taking thread as often. After ``close()`` they are dropped.
    ///
    /// - Complexity: O(k) for the k elements.
    public func put(contentsOf elements: some Collection<Element>) {
        guard !elements.isEmpty else { return }
        let wasEmpty = waiting.withLock { waiting in
            guard !waiting.isClosed else { return false }
            defer { waiting.elements.append(contentsOf: elements) }
            return waiting.elements.isEmpty
        }
        // Only the first element of a run wakes the taker, which takes the whole run: one
        // signal per take, and no system call for elements it will find anyway.
        if wasEmpty { arrived.signal() }
    }

    /// Ends the queue: ``take()`` returns what is still waiting, then nil. Closing twice is
    /// harmless.
    ///
    /// - Complexity: O(1).
    public func close() {
        let wasOpen = waiting.withLock { waiting in
            defer { waiting.isClosed = true }
            return !waiting.isClosed
        }
        if wasOpen { arrived.signal() }
    }

    /// Every element waiting, in the order put, once at least one is; nil once the queue is
    /// closed and nothing is left. One thread takes.
    ///
    /// - Complexity: O(1) besides the wait (the elements are moved out, not copied).
    public func take() -> [Element]? {
        while true {
            arrived.wait()
            // Each run of elements put into an empty queue signals once, and each take empties
            // the queue, so a signal finds elements unless it is the close's.
            let taken: [Element]?? = waiting.withLock { waiting in
                if !waiting.elements.isEmpty {
                    var elements: [Element] = []
                    swap(&elements, &waiting.elements)
                    return .some(elements)
                }
                return waiting.isClosed ? .some(nil) : nil
            }
            guard let taken else { continue }
            // Closed and empty: the signal goes back, so that a later take returns nil too.
            if taken == nil { arrived.signal() }
            return taken
        }
    }
}
