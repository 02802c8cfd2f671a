import QuireJSON

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

    /// Parses a trace from its (decompressed) JSON bytes with QuireJSON's pull reader, straight
    /// into transactions: no JSON tree of the whole trace is built.
    ///
    /// - Throws: ``TraceError/malformed(_:)`` naming the line, column, byte offset and JSON path
    ///   of anything that is not JSON or not a trace (positions and counts must be non-negative
    ///   integers, a patch exactly `[position, deleteCount, insert]`).
    /// - Complexity: O(size of the JSON).
    public init<Bytes: Collection<UInt8>>(json: Bytes) throws(TraceError) {
        var reader = JSONReader(Array(json))
        var startContent = ""
        var endContent: String?
        var transactions: [Transaction]?
        var concurrent = false
        var declaredAgents: Int?
        do {
            try reader.beginObject()
            while let key = try reader.nextKey() {
                if reader.key(key, is: "startContent") {
                    startContent = try reader.readString()
                } else if reader.key(key, is: "endContent") {
                    endContent = try reader.readString()
                } else if reader.key(key, is: "txns") {
                    transactions = try Self.readTransactions(&reader, concurrent: &concurrent)
                } else if reader.key(key, is: "numAgents") {
                    declaredAgents = try Self.readCount(&reader)
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
        } catch {
            throw .malformed(error.description)
        }
        guard let endContent else { throw .malformed("missing endContent") }
        guard let transactions else { throw .malformed("missing txns") }
        self.startContent = startContent
        self.endContent = endContent
        self.transactions = transactions
        isConcurrent = concurrent
        agentCount = declaredAgents ?? ((transactions.map(\.agent).max() ?? 0) + 1)
    }

    /// `[{patches: [[pos, del, ins], …], parents?: [Int], agent?: Int}, …]`
    private static func readTransactions(_ reader: inout JSONReader, concurrent: inout Bool) throws(JSONError) -> [Transaction] {
        var transactions: [Transaction] = []
        try reader.beginArray()
        while try reader.nextElement() {
            let index = transactions.count
            var patches: [Patch]?
            var parents: [Int]?
            var agent = 0
            try reader.beginObject()
            while let key = try reader.nextKey() {
                if reader.key(key, is: "patches") {
                    var list: [Patch] = []
                    try reader.beginArray()
                    while try reader.nextElement() { list.append(try readPatch(&reader)) }
                    patches = list
                } else if reader.key(key, is: "parents") {
                    var list: [Int] = []
                    try reader.beginArray()
                    while try reader.nextElement() { list.append(try readCount(&reader)) }
                    parents = list
                } else if reader.key(key, is: "agent") {
                    agent = try readCount(&reader)
                } else {
                    try reader.skipValue()
                }
            }
            guard let patches else { throw reader.error(.invalidValue("txn \(index) has no patches")) }
            if parents != nil { concurrent = true }
            transactions.append(Transaction(patches: patches, parents: parents ?? (index == 0 ? [] : [index - 1]), agent: agent))
        }
        return transactions
    }

    /// `[position, deleteCount, insert]`
    private static func readPatch(_ reader: inout JSONReader) throws(JSONError) -> Patch {
        let shape = "a patch must be [position, deleteCount, insert]"
        try reader.beginArray()
        guard try reader.nextElement() else { throw reader.error(.invalidValue(shape)) }
        let position = try readCount(&reader)
        guard try reader.nextElement() else { throw reader.error(.invalidValue(shape)) }
        let deleteCount = try readCount(&reader)
        guard try reader.nextElement() else { throw reader.error(.invalidValue(shape)) }
        let insert = try reader.readString()
        guard try !reader.nextElement() else { throw reader.error(.invalidValue(shape)) }
        return Patch(position: position, deleteCount: deleteCount, insert: insert)
    }

    /// A non-negative integer.
    private static func readCount(_ reader: inout JSONReader) throws(JSONError) -> Int {
        let offset = reader.offset
        let value = try reader.readInt()
        guard value >= 0 else { throw reader.error(.invalidValue("expected a non-negative integer, found \(value)"), at: offset) }
        return value
    }
}

/// Why a trace could not be parsed or replayed.
public enum TraceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JSON does not have the trace shape.
    case malformed(String)
    /// A patch did not fit the document (transaction, patch index, the CRDT error).
    case patchFailed(transaction: Int, patch: Int, CRDTError)
    /// A parent index is not an earlier transaction.
    case badParent(transaction: Int, parent: Int)
    /// Importing one transaction's update into another agent failed.
    case importFailed(transaction: Int, CRDTError)

    /// One line saying what is wrong and where: the JSON position, or the transaction and patch
    /// (`$.txns[t].patches[p]`).
    public var description: String {
        switch self {
        case .malformed(let reason): "not an editing trace: \(reason)"
        case .patchFailed(let transaction, let patch, let error): "the patch does not fit the text: \(error) ($.txns[\(transaction)].patches[\(patch)])"
        case .badParent(let transaction, let parent): "parent \(parent) is not an earlier transaction ($.txns[\(transaction)].parents)"
        case .importFailed(let transaction, let error): "an agent could not import the transaction: \(error) ($.txns[\(transaction)])"
        }
    }
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
    ///
    /// Documents are made for the agents the transactions name (up to the highest), not for a
    /// declared `numAgents`, which the file's bytes do not back: a 150-byte trace declaring a
    /// billion agents allocated one document each. An agent beyond `numAgents` is an error.
    /// - Complexity: O(p · log n) plus the imports.
    public static func replayConcurrent(_ trace: EditingTrace) throws(TraceError) -> ConcurrentResult {
        let named = (trace.transactions.map(\.agent).max() ?? 0) + 1
        var docs = (0..<min(max(1, trace.agentCount), named)).map { CRDTDocument(peer: PeerID($0 + 1)) }
        var updates: [[UInt8]] = []
        var lastIDs: [OpID?] = []
        if !trace.startContent.isEmpty {
            throw .malformed("concurrent traces with startContent are not supported")
        }
        for (t, txn) in trace.transactions.enumerated() {
            guard txn.agent >= 0, txn.agent < docs.count else {
                throw .malformed("transaction \(t) names agent \(txn.agent), but the trace declares \(trace.agentCount) agents (0 to \(trace.agentCount - 1))")
            }
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
