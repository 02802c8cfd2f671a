import QuireModel

/// Checks that a commit's transaction says exactly what the commit did: its operations, applied
/// to the state before, give the state after (nodes and selection), and their inverses, applied
/// to the state after, give the state before. App teams run it from an update listener over
/// their own plugins' commands; the built-ins' randomized tests run it after every commit.
public enum TransactionReplay {
    /// What is wrong with `transaction` as the record of the commit from `previous` to `next`;
    /// empty when nothing is.
    ///
    /// - Complexity: O(operations + n) (comparing two states is linear in the worst case).
    public static func violations(of transaction: Transaction, from previous: EditorState, to next: EditorState) -> [String] {
        var problems: [String] = []
        var forward = previous
        do {
            try forward.apply(transaction.operations)
            if !forward.hasSameNodes(as: next) { problems.append("replaying the operations does not give the committed nodes") }
            if forward.selection != next.selection { problems.append("replaying the operations does not give the committed selection") }
        } catch {
            problems.append("the operations do not replay on the previous state: \(error)")
        }
        var backward = next
        do {
            try backward.apply(transaction.operations.inverted)
            if !backward.hasSameNodes(as: previous) { problems.append("the inverted operations do not restore the previous nodes") }
            if backward.selection != previous.selection { problems.append("the inverted operations do not restore the previous selection") }
        } catch {
            problems.append("the inverted operations do not apply to the committed state: \(error)")
        }
        if transaction.selectionBefore != previous.selection || transaction.selectionAfter != next.selection {
            problems.append("the transaction's selections are not the states' selections")
        }
        return problems
    }
}
