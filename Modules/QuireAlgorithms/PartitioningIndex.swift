extension RandomAccessCollection {
    /// The index of the first element for which `belongsInSecondPartition` is true, or
    /// `endIndex` when there is none: the one binary search of the project.
    ///
    /// The collection must already be partitioned by the predicate: every element for which it is
    /// false comes before every element for which it is true (for a collection sorted by some
    /// key, `{ $0.key >= value }` finds the lower bound of `value` and `{ $0.key > value }` its
    /// upper bound). The predicate is evaluated O(log n) times and never on an element outside
    /// the collection. The shape follows swift-algorithms' `partitioningIndex(where:)`; it is
    /// `package` so that it cannot clash with that one in an app importing both.
    ///
    /// - Complexity: O(log n) evaluations of the predicate.
    @inlinable
    package func partitioningIndex(
        where belongsInSecondPartition: (Element) throws -> Bool
    ) rethrows -> Index {
        var low = startIndex
        var count = self.count
        // Invariant: everything before `low` is in the first partition, and everything from
        // `low + count` on is in the second.
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try belongsInSecondPartition(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
