import Foundation
import Testing
@testable import QuireCRDT

extension Mirror {
    /// A mirror holding what `doc` shows, to patch with diff events.
    init(of doc: some DocumentReading) {
        for c in doc.containers {
            switch c.type {
            case .text: texts[c] = flatten(doc.toDelta(c))
            case .list, .movableList: lists[c] = doc.list(c)
            case .counter: counters[c] = doc.counterValue(c)
            case .map: maps[c] = doc.map(c)
            case .tree:
                var shape: [TreeID?: [TreeID]] = [:]
                func load(_ parent: TreeID?) {
                    let kids = doc.children(of: parent, in: c)
                    shape[parent] = kids
                    for k in kids { load(k) }
                }
                load(nil)
                trees[c] = shape
            }
        }
    }
}

@Suite struct TimeTravelTests {
    /// Issue 6's acceptance: checking out every hundredth version of the automerge-paper trace
    /// reproduces the text the trace had at that point, computed by replaying its plain edits.
    @Test func checkoutEveryHundredthVersionOfAutomergePaper() throws {
        let trace = try Fixtures.trace("automerge-paper.json.gz")
        // Plain ASCII, so scalar positions are byte positions of the model below.
        #expect(trace.transactions.allSatisfy { $0.patches.allSatisfy { $0.insert.utf8.count == $0.insert.unicodeScalars.count } })
        let doc = try TraceReplay.replaySequential(trace)
        let clock = ContinuousClock()
        var expected: [UInt8] = Array(trace.startContent.utf8)
        var atoms = Int32(trace.startContent.unicodeScalars.count)
        var checked = 0
        var checkoutTime = Duration.zero
        for (t, txn) in trace.transactions.enumerated() {
            for p in txn.patches {
                expected.replaceSubrange(p.position..<(p.position + p.deleteCount), with: p.insert.utf8)
                atoms += Int32(p.deleteCount + p.insert.unicodeScalars.count)
            }
            guard (t + 1) % 100 == 0 else { continue }
            // One peer, one change per transaction: the version is the last atom so far.
            let frontiers = Frontiers([OpID(peer: 1, counter: atoms - 1)])
            let start = clock.now
            var text = try doc.checkout(frontiers).text(TraceReplay.textID)
            checkoutTime += clock.now - start
            // memcmp: element-wise comparison of 100 KB strings is slow in debug builds.
            let same = text.withUTF8 { got in
                expected.withUnsafeBufferPointer { want in
                    got.count == want.count && (got.isEmpty || memcmp(got.baseAddress!, want.baseAddress!, got.count) == 0)
                }
            }
            #expect(same, "version after transaction \(t) differs")
            checked += 1
        }
        #expect(checked == trace.transactions.count / 100)
        // The time is reported so a slowdown shows in the log (debug builds included).
        print("automerge-paper: \(checked) checkouts took \(checkoutTime)")
    }

    struct Recorded {
        var frontiers: Frontiers
        var fingerprint: String
    }

    /// A random three-peer session over every container kind that records each peer's version
    /// and what it showed after every commit and import; returns the merged document.
    static func recordedSession(seed: UInt64) throws -> (CRDTDocument, [Recorded]) {
        var rng = SeededRNG(seed: seed &+ 7_000)
        var peers = (0..<3).map { i -> ConvergenceTests.Peer in
            var d = CRDTDocument(peer: PeerID(i + 11))
            for (k, e) in ConvergenceTests.keys { d.setExpand(e, forKey: k) }
            return ConvergenceTests.Peer(doc: d)
        }
        var recorded = [Recorded(frontiers: Frontiers(), fingerprint: fingerprint(CRDTDocument(peer: 1)))]
        for _ in 0..<24 {
            let i = rng.int(0..<peers.count)
            for _ in 0..<rng.int(1..<4) { try ConvergenceTests.randomEdit(&peers[i], &rng) }
            peers[i].doc.commit()
            recorded.append(Recorded(frontiers: peers[i].doc.frontiers, fingerprint: fingerprint(peers[i].doc)))
            if rng.chance(0.5) {
                let from = rng.int(0..<peers.count)
                try peers[i].doc.importUpdates(peers[from].doc.exportUpdates(since: peers[i].doc.version))
                recorded.append(Recorded(frontiers: peers[i].doc.frontiers, fingerprint: fingerprint(peers[i].doc)))
            }
        }
        var merged = peers[0].doc
        for p in peers.dropFirst() { try merged.importUpdates(p.doc.exportUpdates()) }
        return (merged, recorded)
    }

    @Test(arguments: 0..<60)
    func checkoutAndForkShowRecordedVersions(seed: UInt64) throws {
        let (doc, recorded) = try Self.recordedSession(seed: seed)
        for r in recorded {
            let view = try doc.checkout(r.frontiers)
            #expect(fingerprint(view) == r.fingerprint, "seed \(seed): checkout \(r.frontiers.ids)")
            #expect(try doc.frontiers(of: doc.versionVector(of: r.frontiers)) == r.frontiers)
            let fork = try doc.fork(at: r.frontiers, peer: 99)
            #expect(fingerprint(fork) == r.fingerprint, "seed \(seed): fork at \(r.frontiers.ids)")
            #expect(fork.frontiers == r.frontiers)
        }
        // A fork is a full document: it takes the rest of the history and keeps editing.
        var fork = try doc.fork(at: recorded[recorded.count / 2].frontiers, peer: 99)
        try fork.importUpdates(doc.exportUpdates())
        #expect(fingerprint(fork) == fingerprint(doc))
        try fork.insertText("fork", at: 0, in: ConvergenceTests.text)
        fork.commit()
        var back = doc
        try back.importUpdates(fork.exportUpdates(since: doc.version))
        #expect(fingerprint(back) == fingerprint(fork))
    }

    @Test(arguments: 0..<60)
    func diffTurnsOneVersionIntoAnother(seed: UInt64) throws {
        let (doc, recorded) = try Self.recordedSession(seed: seed)
        var rng = SeededRNG(seed: seed)
        for _ in 0..<12 {
            let a = recorded[rng.int(0..<recorded.count)].frontiers
            let b = rng.chance(0.2) ? doc.frontiers : recorded[rng.int(0..<recorded.count)].frontiers
            for (from, to) in [(a, b), (b, a)] {
                var mirror = Mirror(of: try doc.checkout(from))
                let events = try doc.diff(from: from, to: to)
                for e in events { mirror.apply(e) }
                let target = try doc.checkout(to)
                let differences = mirror.differences(from: target)
                #expect(differences.isEmpty, "seed \(seed) \(from.ids) → \(to.ids): \(differences)")
            }
        }
        #expect(try doc.diff(from: doc.frontiers, to: doc.frontiers).isEmpty)
    }

    @Test func versionConversionsAndErrors() throws {
        let t = ContainerID.root(name: "t", type: .text)
        var a = CRDTDocument(peer: 1), b = CRDTDocument(peer: 2)
        try a.insertText("ab", at: 0, in: t)
        a.commit()
        try b.importUpdates(a.exportUpdates())
        try b.insertText("X", at: 1, in: t)
        b.commit()
        try a.insertText("c", at: 2, in: t)
        a.commit()
        try a.importUpdates(b.exportUpdates())
        // Concurrent heads: both are frontiers, and the version covers both histories.
        #expect(a.frontiers == Frontiers([OpID(peer: 1, counter: 2), OpID(peer: 2, counter: 0)]))
        #expect(try a.versionVector(of: a.frontiers) == VersionVector([1: 3, 2: 1]))
        #expect(try a.versionVector(of: Frontiers([OpID(peer: 2, counter: 0)])) == VersionVector([1: 2, 2: 1]))
        #expect(try a.frontiers(of: VersionVector([1: 2, 2: 1])) == Frontiers([OpID(peer: 2, counter: 0)]))
        #expect(try a.checkout(Frontiers([OpID(peer: 2, counter: 0)])).text(t) == "aXb")
        #expect(try a.checkout(Frontiers([OpID(peer: 1, counter: 2)])).text(t) == "abc")
        #expect(try a.checkout(Frontiers()).text(t) == "")
        #expect(throws: VersionError.unknownFrontier(OpID(peer: 3, counter: 0), known: a.version)) {
            try a.checkout(Frontiers([OpID(peer: 3, counter: 0)]))
        }
        #expect(throws: VersionError.unknownVersion(VersionVector([1: 9]), known: a.version)) {
            try a.frontiers(of: VersionVector([1: 9]))
        }
        // A past version reads like the document: cursors resolve where they were.
        let cursor = try a.cursor(at: 2, in: t)
        #expect(try a.checkout(Frontiers([OpID(peer: 2, counter: 0)])).resolve(cursor, unit: .unicodeScalar) == 2)
    }

    @Test func forkKeepsHistoryUnderANewPeer() throws {
        let t = ContainerID.root(name: "t", type: .text)
        var a = CRDTDocument(peer: 1)
        try a.insertText("hello", at: 0, in: t)
        a.commit()
        let before = a.frontiers
        try a.mark(0..<5, key: "bold", value: .bool(true), in: t)
        a.commit()
        var f = a.fork(peer: 5)
        #expect(f.peer == 5 && f.version == a.version && fingerprint(f) == fingerprint(a))
        try f.insertText("!", at: 5, in: t)
        f.commit()
        #expect(a.text(t) == "hello")
        let old = try a.fork(at: before, peer: 6)
        #expect(old.toDelta(t) == [.insert("hello", attributes: [:])])
        #expect(old.version == VersionVector([1: 5]))
        // Cutting between a mark's two anchors is refused.
        #expect(throws: VersionError.splitsMark(OpID(peer: 1, counter: 5))) {
            try a.fork(at: Frontiers([OpID(peer: 1, counter: 5)]))
        }
        // Uncommitted operations stay out of a fork and out of checkouts until committed.
        var pending = a
        try pending.insertText("?", at: 0, in: t)
        #expect(pending.fork(peer: 7).text(t) == "hello")
        try pending.delete(at: 1, count: 2, in: t)
        #expect(try pending.checkout(pending.frontiers).text(t) == "hello")
        pending.commit()
        #expect(try pending.checkout(pending.frontiers).text(t) == "?llo")
    }
}
