import QuireAlgorithms
import Synchronization

/// A map entry with the stamp that won it (Lamport, then peer).
struct MapEntry {
    var value: CRDTValue?
    var lamport: Lamport
    var peer: PeerID
    var counter: OpCounter

    /// Whether a write stamped (lamport, peer) beats this entry (Loro: larger Lamport, then larger peer).
    @inline(__always) func isBeaten(lamport l: Lamport, peer p: PeerID) -> Bool {
        l > lamport || (l == lamport && p > peer)
    }
}

/// A mark registered in a text container.
struct MarkInfo {
    var key: String
    var value: CRDTValue
    var expand: ExpandType
    var lamport: Lamport
    var peer: PeerID

    /// Whether this mark beats `other` for its key.
    @inline(__always) func beats(_ other: MarkInfo) -> Bool {
        lamport != other.lamport ? lamport > other.lamport : peer > other.peer
    }
}

/// Where a child container sits inside its parent.
enum ParentSlot {
    case key(String)
    case element(OpID)
    case node(TreeID)
}

/// Where the history of a document loaded from a Loro shallow snapshot starts: the operations
/// in `version` (the causal past of `frontiers`) are only known through the state at that
/// version, and the state of its maps and trees is kept as the base that undo reads.
struct ShallowRoot {
    var version: VersionVector
    var frontiers: Frontiers
    var maps: [ContainerID: [String: MapEntry]]
    var trees: [ContainerID: TreeState]
    var movables: [ContainerID: MovableListState] = [:]
    var counters: [ContainerID: Double] = [:]
    /// The root's frontier operations as the snapshot carried them (Loro keeps them as the
    /// history's anchor), to write them again when this document exports a shallow snapshot.
    var anchors: [LoroJSONChange] = []

    /// Whether a change with dependencies `deps` (all known) has the whole root in its past:
    /// one dependency after the root (such a change was checked when it came), or the root's
    /// frontiers themselves.
    /// - Complexity: O(d · f) for d dependencies and f root frontiers.
    func followedBy(_ deps: [OpID]) -> Bool {
        if deps.contains(where: { $0.counter >= version[$0.peer] }) { return true }
        return frontiers.ids.allSatisfy { f in deps.contains { $0.peer == f.peer && $0.counter >= f.counter } }
    }
}

/// A Loro snapshot loaded without decoding it (``CRDTDocument/importLoro(_:)`` into an empty
/// document): the state section is decoded when the state is first read, the history when an
/// operation first needs it.
struct DeferredSnapshot: Sendable {
    var state: SSTable
    var oplog: SSTable
}

/// The whole state of a document. Mutated only when uniquely referenced (copy-on-write).
final class DocStorage: @unchecked Sendable {
    var peer: PeerID
    // History
    @exclusivity(unchecked) var changes: [PeerID: [Change]] = [:]
    @exclusivity(unchecked) var version = VersionVector()
    @exclusivity(unchecked) var frontiers = Frontiers()
    @exclusivity(unchecked) var nextLamport: Lamport = 0
    // Pending (uncommitted) local transaction
    @exclusivity(unchecked) var txnOps: [Op] = []
    @exclusivity(unchecked) var txnCounter: OpCounter = 0
    @exclusivity(unchecked) var txnLamport: Lamport = 0
    @exclusivity(unchecked) var txnLength: Int32 = 0
    // Remote changes waiting for dependencies
    var pending: [Change] = []
    // Loro JSON changes waiting for dependencies (positions resolve only at their dependencies)
    var pendingJSON: [PendingJSONChange] = []
    // Set when the history starts at a shallow root (a Loro shallow snapshot, or a Loro
    // snapshot whose history is not decoded yet)
    var shallowRoot: ShallowRoot?
    // A lazily loaded Loro snapshot: `stateReady` is false until its state is decoded (under
    // `deferLock`); its history stays here until the document decodes it.
    var deferred: DeferredSnapshot?
    let stateReady = Atomic<Bool>(true)
    let deferLock = Mutex(())
    // Why the deferred state could not be decoded (the document then shows an empty state).
    var deferredError: CRDTError?
    // State
    @exclusivity(unchecked) var sequences: [ContainerID: FugueSequence] = [:]
    @exclusivity(unchecked) var maps: [ContainerID: [String: MapEntry]] = [:]
    var trees: [ContainerID: TreeState] = [:]
    /// The elements of movable lists (their items are in `sequences`).
    var movables: [ContainerID: MovableListState] = [:]
    var counters: [ContainerID: Double] = [:]
    var parents: [ContainerID: (ContainerID, ParentSlot)] = [:]
    var styles: [String: ExpandType] = [:]
    // Events
    var recordEvents = false
    @exclusivity(unchecked) var events: [ContainerEvent] = []
    // The last history index built for checkouts, diffs and forks (never copied: a copy's
    // arenas differ).
    let history = HistoryCache()

    init(peer: PeerID) { self.peer = peer }

    func copy() -> DocStorage {
        ensureState()
        let c = DocStorage(peer: peer)
        c.deferred = deferred
        c.deferredError = deferredError
        c.changes = changes
        c.version = version
        c.frontiers = frontiers
        c.nextLamport = nextLamport
        c.txnOps = txnOps
        c.txnCounter = txnCounter
        c.txnLamport = txnLamport
        c.txnLength = txnLength
        c.pending = pending
        c.pendingJSON = pendingJSON
        c.shallowRoot = shallowRoot
        c.sequences = sequences.mapValues { $0.copy() }
        c.maps = maps
        c.trees = trees
        c.movables = movables
        c.counters = counters
        c.parents = parents
        c.styles = styles
        c.recordEvents = recordEvents
        c.events = events
        return c
    }

    // A one-entry cache for the container being edited; only used on uniquely owned storage.
    @exclusivity(unchecked) private var cachedID: ContainerID?
    @exclusivity(unchecked) private var cachedSeq: FugueSequence?

    /// The sequence of `c`, created when missing (mutating paths only).
    @inline(__always) func sequence(_ c: ContainerID) -> FugueSequence {
        if let cs = cachedSeq, cachedID == c { return cs }
        let s: FugueSequence
        if let existing = sequences[c] { s = existing } else { s = FugueSequence(); sequences[c] = s }
        cachedID = c
        cachedSeq = s
        return s
    }

    /// The sequence of `c` if it exists (mutating paths only).
    @inline(__always) func existingSequence(_ c: ContainerID) -> FugueSequence? {
        if let cs = cachedSeq, cachedID == c { return cs }
        guard let s = sequences[c] else { return nil }
        cachedID = c
        cachedSeq = s
        return s
    }

    /// The Lamport timestamp of a known operation.
    /// - Complexity: O(log c) for c changes of the peer.
    func lamport(of id: OpID) -> Lamport? {
        guard let list = changes[id.peer] else { return nil }
        return DocStorage.lamport(in: list, id.counter)
    }

    /// The Lamport timestamp of `counter` in one peer's changes.
    /// - Complexity: O(log c).
    static func lamport(in list: [Change], _ counter: OpCounter) -> Lamport? {
        let lo = list.partitioningIndex { $0.end > counter }
        guard lo < list.count, list[lo].counter <= counter else { return nil }
        return list[lo].lamport + Lamport(counter - list[lo].counter)
    }

    /// Starts or continues the local transaction and returns the next op's (counter, lamport).
    @inline(__always) func nextLocalStamp() -> (OpCounter, Lamport) {
        if txnOps.isEmpty {
            txnCounter = version[peer]
            txnLamport = nextLamport
            txnLength = 0
        }
        return (txnCounter + txnLength, txnLamport + Lamport(txnLength))
    }

    /// Records a local op into the transaction.
    @inline(__always) func record(_ op: Op) {
        txnLength += op.length
        if !txnOps.isEmpty, txnOps[txnOps.count - 1].tryMerge(op, peer: peer) { return }
        txnOps.append(op)
    }

    /// Commits the transaction into a change, merging it into this peer's previous change when
    /// that change is the only dependency (Loro's rule for consecutive local changes).
    /// - Complexity: O(1) amortized.
    func commit() {
        guard !txnOps.isEmpty else { return }
        let lastIDOwn = OpID(peer: peer, counter: txnCounter - 1)
        let mergeable = frontiers.ids.count == 1 && frontiers.ids[0] == lastIDOwn
        DocStorage.appendLocal(&changes[peer, default: []], mergeable: mergeable, self)
        let end = txnCounter + txnLength
        version.extend(peer: peer, to: end)
        let last = OpID(peer: peer, counter: end - 1)
        if mergeable {
            // The frontier was exactly our previous op: it becomes our new last op (no array copy).
            frontiers.replaceSingle(with: last)
        } else {
            frontiers.advance(lastID: last, deps: frontiers.ids)
        }
        nextLamport = max(nextLamport, txnLamport + Lamport(txnLength))
        txnOps.removeAll(keepingCapacity: true)
        txnLength = 0
    }

    private static func appendLocal(_ list: inout [Change], mergeable: Bool, _ st: DocStorage) {
        let n = list.count
        if mergeable, n > 0, list[n - 1].end == st.txnCounter, list[n - 1].lamport + Lamport(list[n - 1].length) == st.txnLamport {
            for op in st.txnOps {
                let k = list[n - 1].ops.count
                if k > 0, list[n - 1].ops[k - 1].tryMerge(op, peer: st.peer) { continue }
                list[n - 1].ops.append(op)
            }
            list[n - 1].length += st.txnLength
        } else {
            list.append(Change(peer: st.peer, counter: st.txnCounter, lamport: st.txnLamport, deps: st.frontiers.ids, ops: st.txnOps, length: st.txnLength))
        }
    }

    // MARK: paths

    func path(of c: ContainerID) -> ([ContainerID], [PathStep]) {
        var containers: [ContainerID] = []
        var steps: [PathStep] = []
        var cur = c
        var guardCount = 0
        while let (parent, slot) = parents[cur], guardCount < 10_000 {
            guardCount += 1
            containers.append(parent)
            switch slot {
            case .key(let k): steps.append(.key(k))
            case .node(let n): steps.append(.node(n))
            case .element(let id):
                let seq = sequence(parent)
                // In a movable list the child's element may sit at another item by now.
                var item = id
                if let state = movables[parent], let l = seq.lamport(of: id), let e = state.elements[state.element(ofItem: id, lamport: l)] { item = e.pos }
                if let cur = seq.cursor(of: item) { steps.append(.index(seq.prefix(of: cur).count)) } else { steps.append(.index(-1)) }
            }
            cur = parent
        }
        return (containers.reversed(), steps.reversed())
    }

    func emit(_ c: ContainerID, _ diff: ContainerDiff) {
        guard recordEvents else { return }
        if case .map(let new) = diff, let last = events.last, last.target == c, case .map(var old) = last.diff {
            for (k, v) in new { old[k] = v }
            events[events.count - 1].diff = .map(old)
            return
        }
        let (containers, steps) = path(of: c)
        events.append(ContainerEvent(target: c, pathContainers: containers, path: steps, diff: diff))
    }

    /// Registers the parent of a child container created by a value.
    func registerChild(_ value: CRDTValue?, parent: ContainerID, slot: ParentSlot) {
        if case .container(let child)? = value { parents[child] = (parent, slot) }
    }
}
