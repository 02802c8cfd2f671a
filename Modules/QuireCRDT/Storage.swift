/// A map entry with the stamp that won it (Lamport, then peer).
struct MapEntry {
    var value: Value?
    var lamport: Lamport
    var peer: PeerID
    var counter: Counter

    /// Whether a write stamped (lamport, peer) beats this entry (Loro: larger Lamport, then larger peer).
    @inline(__always) func isBeaten(lamport l: Lamport, peer p: PeerID) -> Bool {
        l > lamport || (l == lamport && p > peer)
    }
}

/// A mark registered in a text container.
struct MarkInfo {
    var key: String
    var value: Value
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
    case element(ID)
    case node(TreeID)
}

/// The whole state of a document. Mutated only when uniquely referenced (copy-on-write).
final class DocStorage: @unchecked Sendable {
    var peer: PeerID
    // History
    var changes: [PeerID: [Change]] = [:]
    var version = VersionVector()
    var frontiers = Frontiers()
    var nextLamport: Lamport = 0
    // Pending (uncommitted) local transaction
    var txnOps: [Op] = []
    var txnCounter: Counter = 0
    var txnLamport: Lamport = 0
    var txnLength: Int32 = 0
    // Remote changes waiting for dependencies
    var pending: [Change] = []
    // State
    var sequences: [ContainerID: FugueSequence] = [:]
    var marks: [ContainerID: [ID: MarkInfo]] = [:]
    var maps: [ContainerID: [String: MapEntry]] = [:]
    var trees: [ContainerID: TreeState] = [:]
    var parents: [ContainerID: (ContainerID, ParentSlot)] = [:]
    var styles: [String: ExpandType] = [:]
    // Events
    var recordEvents = false
    var events: [ContainerEvent] = []

    init(peer: PeerID) { self.peer = peer }

    func copy() -> DocStorage {
        let c = DocStorage(peer: peer)
        c.changes = changes
        c.version = version
        c.frontiers = frontiers
        c.nextLamport = nextLamport
        c.txnOps = txnOps
        c.txnCounter = txnCounter
        c.txnLamport = txnLamport
        c.txnLength = txnLength
        c.pending = pending
        c.sequences = sequences.mapValues { $0.copy() }
        c.marks = marks
        c.maps = maps
        c.trees = trees
        c.parents = parents
        c.styles = styles
        c.recordEvents = recordEvents
        c.events = events
        return c
    }

    func sequence(_ c: ContainerID) -> FugueSequence {
        if let s = sequences[c] { return s }
        let s = FugueSequence()
        sequences[c] = s
        return s
    }

    /// The Lamport timestamp of a known operation.
    /// - Complexity: O(log c) for c changes of the peer.
    func lamport(of id: ID) -> Lamport? {
        guard let list = changes[id.peer] else { return nil }
        var lo = 0, hi = list.count
        while lo < hi { let mid = (lo + hi) / 2; if list[mid].end <= id.counter { lo = mid + 1 } else { hi = mid } }
        guard lo < list.count, list[lo].counter <= id.counter else { return nil }
        return list[lo].lamport + Lamport(id.counter - list[lo].counter)
    }

    /// Starts or continues the local transaction and returns the next op's (counter, lamport).
    @inline(__always) func nextLocalStamp() -> (Counter, Lamport) {
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
        let deps = frontiers.ids
        let lastIDOwn = ID(peer: peer, counter: txnCounter - 1)
        if deps.count == 1, deps[0] == lastIDOwn, var list = changes.removeValue(forKey: peer),
           var last = list.popLast(), last.end == txnCounter, last.lamport + Lamport(last.length) == txnLamport {
            for op in txnOps {
                if !last.ops.isEmpty, last.ops[last.ops.count - 1].tryMerge(op, peer: peer) { continue }
                last.ops.append(op)
            }
            last.length += txnLength
            list.append(last)
            changes[peer] = list
        } else {
            let change = Change(peer: peer, counter: txnCounter, lamport: txnLamport, deps: deps, ops: txnOps, length: txnLength)
            changes[peer, default: []].append(change)
        }
        let end = txnCounter + txnLength
        version.extend(peer: peer, to: end)
        frontiers.advance(lastID: ID(peer: peer, counter: end - 1), deps: deps)
        nextLamport = max(nextLamport, txnLamport + Lamport(txnLength))
        txnOps.removeAll(keepingCapacity: true)
        txnLength = 0
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
                if let cur = seq.cursor(of: id) { steps.append(.index(seq.prefix(of: cur).count)) } else { steps.append(.index(-1)) }
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
    func registerChild(_ value: Value?, parent: ContainerID, slot: ParentSlot) {
        if case .container(let child)? = value { parents[child] = (parent, slot) }
    }
}
