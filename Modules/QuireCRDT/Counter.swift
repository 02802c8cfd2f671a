extension DocStorage {
    /// Adds `delta` to a counter and emits the change.
    /// - Complexity: O(1).
    func applyCounter(_ c: ContainerID, _ delta: Double) {
        counters[c, default: 0] += delta
        emit(c, .counter(delta))
    }
}

extension CRDTDocument {
    /// The value of a counter (0 when nothing was added), the sum of every peer's increments.
    /// - Complexity: O(1).
    public func counterValue(_ c: ContainerID) -> Double { s.counters[c] ?? 0 }

    /// Adds `delta` (negative to decrement) to a counter (Loro's `increment`/`decrement`).
    /// - Complexity: O(1).
    public mutating func increment(_ c: ContainerID, by delta: Double) throws(CRDTError) {
        try check(c, .counter)
        let st = mutate()
        let (counter, _) = st.nextLocalStamp()
        st.record(Op(container: c, counter: counter, content: .counter(delta)))
        st.applyCounter(c, delta)
    }
}
