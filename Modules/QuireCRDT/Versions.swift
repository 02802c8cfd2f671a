import QuireAlgorithms

/// Errors of time travel (checkout, fork, diff, version conversions). Each says which version
/// or ID was at fault; a throwing call changes nothing.
public enum VersionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A frontier ID is not in the document's committed history (`known` is its version).
    case unknownFrontier(OpID, known: VersionVector)
    /// A version vector names operations the document does not have.
    case unknownVersion(VersionVector, known: VersionVector)
    /// A fork version would include a mark's start anchor but not its end anchor (`mark` is the
    /// mark's ID); a fork cannot hold half an operation.
    case splitsMark(OpID)
    /// The document was loaded from a shallow snapshot: its history starts at `root`, and
    /// checkouts, diffs and forks at a version need the history it does not have.
    case historyTrimmed(root: Frontiers)

    public var description: String {
        switch self {
        case let .unknownFrontier(id, known): return "frontier \(id) is not in the history (known version \(known))"
        case let .unknownVersion(v, known): return "version \(v) is not included in the known version \(known)"
        case let .splitsMark(id): return "the version includes only the start anchor of mark \(id)"
        case let .historyTrimmed(root): return "the history starts at the shallow root \(root.ids); versions need the history before it"
        }
    }
}

extension DocStorage {
    /// The index in `changes[peer]` of the first change ending after `counter`.
    /// - Complexity: O(log c).
    func firstChange(of peer: PeerID, endingAfter counter: OpCounter) -> Int {
        guard let list = changes[peer] else { return 0 }
        return list.partitioningIndex { $0.end > counter }
    }

    /// Adds the causal past of `ids` (the IDs included) to `vv`. Every change whose counters
    /// join `vv` has its dependencies walked once; what `vv` already holds is skipped.
    /// - Complexity: O(c · d) for c changes added and d dependencies each.
    func addPast(of ids: [OpID], to vv: inout VersionVector) {
        var stack = ids
        while let id = stack.popLast() {
            let known = vv[id.peer]
            if known > id.counter { continue }
            guard let list = changes[id.peer] else { continue }
            // Every change of this peer between what is known and `id` brings its own deps
            // (a change normally depends on its predecessor, but nothing here relies on it).
            var i = firstChange(of: id.peer, endingAfter: known)
            while i < list.count, list[i].counter <= id.counter {
                stack.append(contentsOf: list[i].deps)
                i += 1
            }
            vv.extend(peer: id.peer, to: id.counter + 1)
        }
    }

    /// The committed version vector as frontiers: the last ID of each peer that no other last ID
    /// depends on.
    /// - Complexity: O(c) for c changes in the version, plus O(p log p).
    func frontiers(of vv: VersionVector) -> Frontiers {
        // A later op can only depend on earlier ones: walk from the highest Lamport down, and a
        // candidate already in the past of a kept one is not a frontier.
        let candidates = vv.ends.map { OpID(peer: $0.key, counter: $0.value - 1) }
            .map { ($0, lamport(of: $0) ?? 0) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.peer > $1.0.peer }
        var covered = VersionVector()
        var kept: [OpID] = []
        for (id, _) in candidates where covered[id.peer] <= id.counter {
            kept.append(id)
            addPast(of: [id], to: &covered)
        }
        return Frontiers(kept)
    }
}

extension CRDTDocument {
    /// The version vector of `frontiers`: everything they include, with their causal past.
    /// Throws when a frontier ID is not in the committed history.
    /// - Complexity: O(c · d) for the c changes in that version with d dependencies each.
    public func versionVector(of frontiers: Frontiers) throws(VersionError) -> VersionVector {
        if let full = historyDocument { return try full.versionVector(of: frontiers) }
        for id in frontiers.ids where !s.version.includes(id) { throw .unknownFrontier(id, known: s.version) }
        var vv = VersionVector()
        s.addPast(of: frontiers.ids, to: &vv)
        return vv
    }

    /// The frontiers of a version vector of this document. Throws when `version` includes
    /// operations the committed history lacks.
    /// - Complexity: O(c · d) for the c changes in that version, plus O(p log p) for p peers.
    public func frontiers(of version: VersionVector) throws(VersionError) -> Frontiers {
        for (peer, end) in version.ends where end > s.version[peer] { throw .unknownVersion(version, known: s.version) }
        return s.frontiers(of: version)
    }

    /// The history index of the committed history, cached until a commit or import changes it.
    /// Keyed by the committed version: uncommitted operations are in no checkout, and a commit
    /// moves the key, so the index never misses a committed deletion.
    /// - Complexity: O(1) when cached, else O(ops + runs).
    func historyIndex() -> HistoryIndex { s.history.index(s, version: s.version) }
}
