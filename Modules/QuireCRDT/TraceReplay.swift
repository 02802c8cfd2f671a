import Foundation

/// An editing trace in josephg/editing-traces' JSON format: `{startContent, endContent, txns:
/// [{patches: [[pos, delCount, insStr]], parents?, agent?}]}`; positions count Unicode scalars.
public struct EditingTrace: Sendable {
    /// One edit: delete `deleteCount` scalars at `position`, then insert `insert` there.
    public struct Patch: Sendable, Hashable {
        /// Where the patch applies, in Unicode scalars.
        public var position: Int
        /// How many scalars it deletes first.
        public var deleteCount: Int
        /// What it then inserts.
        public var insert: String
    }

    /// One transaction: its patches and, for concurrent traces, its parents and agent.
    public struct Transaction: Sendable {
        /// The patches, applied in order.
        public var patches: [Patch]
        /// Indexes of the transactions this one was made on top of.
        public var parents: [Int]
        /// The agent (peer) that made it.
        public var agent: Int
    }

    /// The text before the first transaction.
    public var startContent: String
    /// The text after the last transaction.
    public var endContent: String
    /// The transactions in order.
    public var transactions: [Transaction]
    /// Whether the trace has `parents`/`agent` (a concurrent trace).
    public var isConcurrent: Bool
    /// The number of agents (1 for a sequential trace).
    public var agentCount: Int

    /// The total number of patches.
    public var patchCount: Int { transactions.reduce(0) { $0 + $1.patches.count } }

    /// Parses a trace from its (decompressed) JSON bytes.
    /// - Complexity: O(size of the JSON).
    public init(json: Data) throws(TraceError) {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: json) } catch {
            throw .malformed("not JSON: \(error.localizedDescription)")
        }
        guard let object = root as? [String: Any] else { throw .malformed("the top level is not an object") }
        startContent = object["startContent"] as? String ?? ""
        guard let end = object["endContent"] as? String else { throw .malformed("missing endContent") }
        endContent = end
        guard let txns = object["txns"] as? [[String: Any]] else { throw .malformed("missing txns") }
        var out: [Transaction] = []
        out.reserveCapacity(txns.count)
        var concurrent = false
        for (t, txn) in txns.enumerated() {
            guard let patches = txn["patches"] as? [[Any]] else { throw .malformed("txn \(t) has no patches") }
            var ps: [Patch] = []
            ps.reserveCapacity(patches.count)
            for (i, p) in patches.enumerated() {
                guard p.count == 3, let pos = (p[0] as? NSNumber)?.intValue, let del = (p[1] as? NSNumber)?.intValue,
                      let ins = p[2] as? String else { throw .malformed("txn \(t) patch \(i) is not [pos, del, ins]") }
                ps.append(Patch(position: pos, deleteCount: del, insert: ins))
            }
            let parents = (txn["parents"] as? [NSNumber])?.map(\.intValue)
            if parents != nil { concurrent = true }
            let agent = (txn["agent"] as? NSNumber)?.intValue ?? 0
            out.append(Transaction(patches: ps, parents: parents ?? (t == 0 ? [] : [t - 1]), agent: agent))
        }
        transactions = out
        isConcurrent = concurrent
        agentCount = (object["numAgents"] as? NSNumber)?.intValue ?? ((out.map(\.agent).max() ?? 0) + 1)
    }
}

/// Why a trace could not be parsed or replayed.
public enum TraceError: Error, Equatable, Sendable {
    /// The JSON does not have the trace shape.
    case malformed(String)
    /// A patch did not fit the document (transaction, patch index, the CRDT error).
    case patchFailed(transaction: Int, patch: Int, CRDTError)
    /// A parent index is not an earlier transaction.
    case badParent(transaction: Int, parent: Int)
    /// Importing one transaction's update into another agent failed.
    case importFailed(transaction: Int, CRDTError)
}

/// Replays editing traces into documents: the reusable driver behind the tests, the benchmark
/// and `quire trace replay`.
public enum TraceReplay {
    /// The container the traces edit.
    public static let textID = ContainerID.root(name: "text", type: .text)

    /// Replays a trace sequentially on one peer, committing after every transaction (or once).
    /// - Complexity: O(p · log n) for p patches.
    public static func replaySequential(_ trace: EditingTrace, peer: PeerID = 1, commitEachTransaction: Bool = true) throws(TraceError) -> CRDTDocument {
        var doc = CRDTDocument(peer: peer)
        if !trace.startContent.isEmpty {
            do { try doc.insertText(trace.startContent, at: 0, in: textID) } catch { throw .patchFailed(transaction: -1, patch: 0, error) }
            doc.commit()
        }
        for (t, txn) in trace.transactions.enumerated() {
            try apply(txn, index: t, to: &doc)
            if commitEachTransaction { doc.commit() }
        }
        doc.commit()
        return doc
    }

    static func apply(_ txn: EditingTrace.Transaction, index t: Int, to doc: inout CRDTDocument) throws(TraceError) {
        for (i, p) in txn.patches.enumerated() {
            do {
                if p.deleteCount > 0 { try doc.delete(at: p.position, count: p.deleteCount, in: textID) }
                if !p.insert.isEmpty { try doc.insertText(p.insert, at: p.position, in: textID) }
            } catch { throw .patchFailed(transaction: t, patch: i, error) }
        }
    }

    private static func step(_ trace: EditingTrace, _ t: Int, _ txn: EditingTrace.Transaction, lastIDs: [OpID?], updates: [[UInt8]],
                             doc: inout CRDTDocument) throws(TraceError) -> ([UInt8], OpID?) {
        // Import the missing causal history of the parents, oldest first.
        var needed: [Int] = []
        var stack = txn.parents
        var seen = Set<Int>()
        while let p = stack.popLast() {
            guard p >= 0, p < t else { throw .badParent(transaction: t, parent: p) }
            if !seen.insert(p).inserted { continue }
            if let id = lastIDs[p], doc.version.includes(id) { continue }
            needed.append(p)
            stack.append(contentsOf: trace.transactions[p].parents)
        }
        for p in needed.sorted() where lastIDs[p] != nil {
            do { _ = try doc.importUpdates(updates[p]) } catch { throw .importFailed(transaction: p, error) }
        }
        let before = doc.version
        try apply(txn, index: t, to: &doc)
        doc.commit()
        let after = doc.version
        if after == before { return ([], nil) }
        return (doc.exportUpdates(since: before), OpID(peer: doc.peer, counter: after[doc.peer] - 1))
    }

    /// The result of a concurrent replay.
    public struct ConcurrentResult: Sendable {
        /// Each agent's document after merging everything.
        public var agents: [CRDTDocument]
        /// The update bytes of each transaction.
        public var updates: [[UInt8]]
    }

    /// Replays a concurrent trace with one peer per agent: before each transaction the agent's
    /// document imports exactly the transactions in the causal history of its `parents`, applies
    /// the patches and commits; at the end every agent imports every update.
    /// - Complexity: O(p · log n) plus the imports.
    public static func replayConcurrent(_ trace: EditingTrace) throws(TraceError) -> ConcurrentResult {
        var docs = (0..<max(1, trace.agentCount)).map { CRDTDocument(peer: PeerID($0 + 1)) }
        var updates: [[UInt8]] = []
        var lastIDs: [OpID?] = []
        if !trace.startContent.isEmpty {
            throw .malformed("concurrent traces with startContent are not supported")
        }
        for (t, txn) in trace.transactions.enumerated() {
            guard txn.agent >= 0, txn.agent < docs.count else { throw .malformed("txn \(t) has agent \(txn.agent)") }
            // Edit the agent's document in place (a copy would clone its storage).
            let (update, last) = try step(trace, t, txn, lastIDs: lastIDs, updates: updates, doc: &docs[txn.agent])
            lastIDs.append(last)
            updates.append(update)
        }
        for a in docs.indices {
            for (t, u) in updates.enumerated() where !u.isEmpty {
                do { _ = try docs[a].importUpdates(u) } catch { throw .importFailed(transaction: t, error) }
            }
        }
        return ConcurrentResult(agents: docs, updates: updates)
    }
}
