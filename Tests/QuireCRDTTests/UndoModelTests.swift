import Foundation
import Testing
@testable import QuireCRDT

/// Randomized sessions: a local peer A with an undo manager and one or two remote peers edit
/// text (with formatting), a map and a tree, sync at random and A undoes and redoes at random.
///
/// The model property has to hold whatever the interleaving, so the peers own different things:
/// - Text: A types capitals and may delete any letter; remote peers type lowercase letters and
///   digits, only right after a digit followed by visible text, and delete only digits (so they
///   never edit around text A deletes).
/// - Formatting: A formats with "bold" (which never expands), remote peers with "italic". A
///   bolds only text that is not bold yet: undo fixes formatting only where it changed, as
///   Loro's inverse diff does, so undoing bold laid over bold text makes no fix at that end of
///   the range, and remote text typed there concurrently can land inside the range and stay
///   bold (the Undo article's limits; seed 22494 when A could bold bold text).
/// - Map keys and tree nodes belong to their author (A's or the remote peers'). Only A and peer
///   7 place nodes at the root level, where A's nodes live, and only peer 7 moves remote nodes;
///   peer 300 creates nodes under remote nodes and deletes remote nodes. A node of A's that
///   belongs between two siblings sharing a fractional index, with other peers' nodes on both
///   sides, cannot be put back there: no index sorts between equal ones, and undo does not
///   move other peers' nodes to make room (the Undo article's limits). Such a tie takes
///   placements at one index by two peers besides A (seed 236 under the old rules), or two by
///   one peer: a peer never picks an index that a sibling it knows has, but a move skipped as
///   cyclic (two remote peers moving nodes into each other concurrently) brings back an older
///   placement, which may. With these rules a tie around A's node has only A's nodes on one
///   side, and undo moves those.
///
/// Then, once everything is synced and A undoes every step:
/// - the visible text is exactly the remote letters and digits no remote peer deleted, each
///   once, in document order (a restored letter may be a copy of the original), and nothing A
///   typed;
/// - no character is bold, A's keys are gone and A's tree nodes dead, the remote ones untouched;
/// redoing every step gives back exactly the state before, and all peers converge.
@Suite struct UndoModelTests {
    static let text = ContainerID.root(name: "text", type: .text)
    static let map = ContainerID.root(name: "map", type: .map)
    static let tree = ContainerID.root(name: "tree", type: .tree)
    static let local: PeerID = 100

    struct Session {
        var rng: SeededRNG
        var a: CRDTDocument
        var remotes: [CRDTDocument]
        var undo: CRDTUndoManager
        let time = ManualClock()
        var steps = 0
        /// Whether peer 300 places nodes at the root level and moves nodes too: the rules
        /// before the tie limit was stated, kept to replay the seeds that failed under them.
        var everyPeerMovesTreeNodes = false

        init(seed: UInt64) {
            rng = SeededRNG(seed: seed &+ 31_000)
            a = CRDTDocument(peer: UndoModelTests.local)
            remotes = [CRDTDocument(peer: 7)] + (seed % 2 == 0 ? [CRDTDocument(peer: 300)] : [])
            // Bold never grows into text typed at its edges: a remote character typed there
            // concurrently with A's formatting or its undo would otherwise keep it.
            a.setExpand(.none, forKey: "bold")
            for i in remotes.indices { remotes[i].setExpand(.none, forKey: "bold") }
            undo = CRDTUndoManager(a, clock: time.clock)
            undo.mergeInterval = seed % 3 == 0 ? 200 : 0
        }
    }

    static func letters(_ rng: inout SeededRNG, from base: UInt8, count: Int) -> String {
        String((0..<count).map { _ in Character(Unicode.Scalar(base + UInt8(rng.int(0..<26)))) })
    }

    /// The caret and a selection end as cursors, for the undo step's metadata.
    static func selection(_ doc: CRDTDocument, _ rng: inout SeededRNG) throws -> UndoItemMeta {
        let len = doc.length(of: text)
        return UndoItemMeta(cursors: [try doc.cursor(at: rng.int(0..<(len + 1)), in: text, side: rng.chance(0.5) ? .before : .after)])
    }

    static func ownNodes(_ doc: CRDTDocument, _ owner: (PeerID) -> Bool, _ parent: TreeID? = nil) -> [TreeID] {
        doc.children(of: parent, in: tree).filter { owner($0.peer) }.flatMap { [$0] + ownNodes(doc, owner, $0) }
    }

    /// Whether the element right after visible position `p` (tombstones and anchors count) is
    /// visible or there is none.
    static func followedByVisible(_ doc: CRDTDocument, _ p: Int) -> Bool {
        guard let seq = doc.s.sequences[text] else { return true }
        if p == 0 { return seq.first().map { $0.0.elems[$0.1].visible } ?? true }
        guard let cur = seq.locateAt(p - 1, unit: .unicodeScalar) else { return true }
        if cur.offset + 1 < cur.leaf.elems[cur.index].length { return true }
        return seq.after(cur.leaf, cur.index).map { $0.0.elems[$0.1].visible } ?? true
    }

    /// Whether any character in `range` (visible positions) is bold.
    static func hasBold(_ doc: CRDTDocument, in range: Range<Int>) -> Bool {
        var at = 0
        for case let .insert(s, attrs) in doc.toDelta(text) {
            let n = s.unicodeScalars.count
            if attrs["bold"] != nil, at < range.upperBound, at + n > range.lowerBound { return true }
            at += n
        }
        return false
    }

    /// One edit by `doc`'s peer within what it owns; with `movesTreeNodes` false its tree
    /// operations are only creations under other nodes and deletions.
    static func edit(_ doc: inout CRDTDocument, _ rng: inout SeededRNG, movesTreeNodes: Bool = true) throws {
        let isLocal = doc.peer == local
        let owner: (PeerID) -> Bool = { isLocal ? $0 == local : $0 != local }
        let len = doc.length(of: text)
        let chars = Array(doc.text(text).unicodeScalars)
        switch rng.int(0..<10) {
        case 0..<4:
            let s = isLocal ? letters(&rng, from: 65, count: rng.int(1..<4))
                : (rng.chance(0.5) ? letters(&rng, from: 97, count: rng.int(1..<4)) : String(rng.int(0..<1000)))
            // Remote peers type only after a digit (or at the start) that is directly followed
            // by a visible element: never next to a letter A may delete or has deleted, whose
            // restored copy could otherwise land on either side of what they type.
            let spots = isLocal ? Array(0...len) : ([0] + (0..<len).filter { chars[$0].properties.numericType != nil }.map { $0 + 1 })
                .filter { followedByVisible(doc, $0) }
            guard !spots.isEmpty else { return }
            try doc.insertText(s, at: spots[rng.int(0..<spots.count)], in: text)
        case 4..<6 where len > 0:
            // A deletes letters, remote peers digits: a run of those from a random place.
            var p = rng.int(0..<len)
            while p < len, chars[p].properties.numericType != nil ? isLocal : !isLocal { p += 1 }
            var n = 0
            while p + n < len, n < 4, (chars[p + n].properties.numericType != nil) != isLocal { n += 1 }
            if n > 0 { try doc.delete(at: p, count: n, in: text) }
        case 6 where len > 0:
            let from = rng.int(0..<len)
            let range = from..<rng.int((from + 1)..<(len + 1))
            let key = isLocal ? "bold" : "italic"
            if rng.chance(0.3) { try doc.unmark(range, key: key, in: text) } else {
                if isLocal, hasBold(doc, in: range) { return }
                try doc.mark(range, key: key, value: .bool(true), in: text)
            }
        case 7:
            let key = (isLocal ? "a" : "b") + "\(rng.int(0..<3))"
            if rng.chance(0.25) { try doc.removeKey(key, in: map) } else { try doc.set(key, .int(Int64(rng.int(0..<100))), in: map) }
        default:
            let nodes = ownNodes(doc, owner)
            let parent = nodes.isEmpty || rng.chance(0.4) ? nil : nodes[rng.int(0..<nodes.count)]
            switch rng.int(0..<3) {
            case 0 where !nodes.isEmpty:
                let node = nodes[rng.int(0..<nodes.count)]
                if !movesTreeNodes { return }
                if let parent, doc.isAlive(parent, in: tree), ownNodes(doc, owner, node).contains(parent) || parent == node { return }
                try doc.moveNode(node, under: parent, at: rng.int(0..<(doc.children(of: parent, in: tree).count + 1)), in: tree)
            case 1 where !nodes.isEmpty:
                try doc.deleteNode(nodes[rng.int(0..<nodes.count)], in: tree)
            default:
                if parent == nil, !movesTreeNodes { return }
                try doc.createNode(under: parent, at: rng.int(0..<(doc.children(of: parent, in: tree).count + 1)), in: tree)
            }
        }
    }

    static func checkStep(_ step: UndoStep?, _ doc: CRDTDocument) {
        guard let step else { return }
        let len = doc.length(of: text)
        #expect(step.positions.allSatisfy { $0.map { (0...len).contains($0) } ?? false }, "cursor positions \(step.positions) in 0...\(len)")
    }

    static func run(_ s: inout Session, steps: Int) throws {
        for _ in 0..<steps {
            s.steps += 1
            switch s.rng.int(0..<100) {
            case 0..<35:
                let meta = try selection(s.a, &s.rng)
                for _ in 0..<s.rng.int(1..<3) { try edit(&s.a, &s.rng) }
                s.time.advance(by: Double(s.rng.int(0..<300)))
                try s.undo.commit(&s.a, meta: meta)
            case 35..<60:
                let r = s.rng.int(0..<s.remotes.count)
                try edit(&s.remotes[r], &s.rng, movesTreeNodes: s.everyPeerMovesTreeNodes || s.remotes[r].peer == 7)
                s.remotes[r].commit()
            case 60..<80:
                var all = [s.a] + s.remotes
                let from = s.rng.int(0..<all.count), to = s.rng.int(0..<all.count)
                try all[to].importUpdates(all[from].exportUpdates(since: all[to].version))
                s.a = all[0]
                s.remotes = Array(all.dropFirst())
            case 80..<90:
                checkStep(try s.undo.undo(&s.a, selection: try selection(s.a, &s.rng)), s.a)
            default:
                checkStep(try s.undo.redo(&s.a, selection: try selection(s.a, &s.rng)), s.a)
            }
        }
    }

    static func syncAll(_ s: inout Session) throws {
        var all = [s.a] + s.remotes
        for i in all.indices { for j in all.indices where i != j { try all[j].importUpdates(all[i].exportUpdates(since: all[j].version)) } }
        s.a = all[0]
        s.remotes = Array(all.dropFirst())
    }

    /// 200 seeds of 80 steps (16,000 steps) by default; `QUIRE_LONG_SEEDS=N` runs N seeds,
    /// `QUIRE_UNDO_SEED=N` only seed N.
    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let one = env["QUIRE_UNDO_SEED"].flatMap({ UInt64($0) }) { return [one] }
        let long = env["QUIRE_LONG_SEEDS"].flatMap { Int($0) }
        return (0..<UInt64(long ?? 200)).map { $0 }
    }

    @Test(arguments: seeds)
    func undoingEverythingLeavesTheRemoteContributions(seed: UInt64) throws {
        try check(Session(seed: seed), seed: seed)
    }

    /// Seeds that failed before their fixes. 1514 and 1816 are replayed with the tree rules
    /// they failed under (peer 300 moving nodes and placing them at the root too; the tie limit
    /// does not arise in them, and the bold rule leaves their sessions as they were):
    /// - 1514: two peers' concurrent insertions sat next to each other when A deleted them,
    ///   and undo restored them as one run after the later one's tombstone; a third peer's
    ///   concurrent digits then landed between the tombstones, so the first copies came out
    ///   after the digits instead of before them.
    /// - 1816: a step that moved A's node to where it already sorted was undone by a move to a
    ///   fresh index that changed nothing visible, whose redo then found nothing to do.
    /// - 6372: the undo of A's bold split its fix around a tombstone that stayed bold through
    ///   another mark; digits a remote peer typed there concurrently stayed bold.
    /// - 14374: peer 7 moved its node between two siblings sharing an index; the index taken
    ///   after theirs was the next sibling's, so the node landed after that one, tied with it
    ///   and with A's node in between, which then could not be put back between them.
    @Test(arguments: [(1514, true), (1816, true), (6372, false), (14374, false)] as [(UInt64, Bool)])
    func seedsThatFailedBeforeTheirFixes(seed: UInt64, oldRules: Bool) throws {
        var s = Session(seed: seed)
        s.everyPeerMovesTreeNodes = oldRules
        try check(s, seed: seed)
    }

    /// Runs 80 steps, syncs, undoes everything and checks the model, then redoes everything.
    func check(_ session: Session, seed: UInt64) throws {
        var s = session
        try Self.run(&s, steps: 80)
        try Self.syncAll(&s)
        let before = fingerprint(s.a)
        let remoteMap = s.a.map(Self.map).filter { !$0.key.hasPrefix("a") }
        let remoteTree = shape(s.a, nil) { $0 != Self.local }

        var undone = 0
        while let step = try s.undo.undo(&s.a) {
            Self.checkStep(step, s.a)
            undone += 1
        }
        let seq = try #require(s.a.s.sequences[Self.text])
        // The remote elements no remote peer deleted, by document order of the originals.
        var deletedRemotely = Set<OpID>()
        for (peer, list) in s.a.s.changes where peer != Self.local {
            for ch in list { for op in ch.ops { op.forEachDeletion(by: peer) { d in for k in d.lo..<d.hi { deletedRemotely.insert(OpID(peer: d.peer, counter: k)) } } } }
        }
        var expected = String.UnicodeScalarView()
        var expectedRoots: [OpID] = []
        var visibleRoots: [OpID] = []
        seq.forEachElem { e in
            guard e.kind == .text else { return }
            for k in 0..<e.length {
                let id = e.id.advanced(by: k)
                if e.visible { visibleRoots.append(s.undo.aliases.root(id)) }
                if e.peer != Self.local, !deletedRemotely.contains(id) {
                    expectedRoots.append(id)
                    expected.append(seq.scalars[Int(e.content + k)])
                }
            }
        }
        #expect(visibleRoots.allSatisfy { $0.peer != Self.local }, "seed \(seed): something A typed is still visible")
        #expect(Set(visibleRoots) == Set(expectedRoots) && visibleRoots.count == expectedRoots.count,
                "seed \(seed): visible \(visibleRoots.count) elements, expected \(expectedRoots.count)")
        #expect(s.a.text(Self.text) == String(expected), "seed \(seed) after \(undone) undos")
        #expect(!s.a.toDelta(Self.text).contains { if case let .insert(_, attrs) = $0 { return attrs["bold"] != nil } else { return false } })
        #expect(s.a.map(Self.map) == remoteMap, "seed \(seed)")
        #expect(shape(s.a, nil) { _ in true } == remoteTree, "seed \(seed)")

        // The redo stack may hold steps undone during the session: redo exactly ours.
        for _ in 0..<undone {
            let step = try s.undo.redo(&s.a)
            #expect(step != nil, "seed \(seed): a redo did nothing")
            Self.checkStep(step, s.a)
        }
        #expect(fingerprint(s.a) == before, "seed \(seed): redoing everything must restore the state")

        try Self.syncAll(&s)
        for r in s.remotes { #expect(fingerprint(r) == fingerprint(s.a), "seed \(seed): \(r.peer) diverged") }
    }

    /// The alive tree restricted to nodes `keep` accepts (their subtrees are disjoint by owner).
    func shape(_ doc: CRDTDocument, _ parent: TreeID?, _ keep: (PeerID) -> Bool) -> String {
        doc.children(of: parent, in: Self.tree).filter { keep($0.peer) }.map { "\($0)(\(shape(doc, $0, keep)))" }.joined(separator: ",")
    }
}
