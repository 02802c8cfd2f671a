import Foundation
import Testing
@testable import QuireCRDT

/// Movable lists and counters: local edits against a plain model, Loro's concurrent semantics
/// (checked against the real peer by the interop suites), events, snapshots, undo, time travel.
@Suite struct MovableListTests {
    static let list = ContainerID.root(name: "tasks", type: .movableList)
    static let hits = ContainerID.root(name: "hits", type: .counter)

    static var steps: Int { ProcessInfo.processInfo.environment["QUIRE_LONG_MOVABLE_STEPS"].flatMap { Int($0) } ?? 3_000 }

    /// Random local inserts, deletes, moves and sets agree with an array after every step, and
    /// the events patch a mirror into the same list.
    @Test(arguments: [UInt64(1), 2, 3])
    func localEditsMatchAModel(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        var doc = CRDTDocument(peer: seed)
        doc.recordsEvents = true
        var model: [CRDTValue] = []
        var mirror = Mirror()
        for step in 0..<Self.steps {
            let n = model.count
            switch rng.int(0..<4) {
            case _ where n == 0, 0:
                let p = rng.int(0..<(n + 1))
                let v = CRDTValue.int(Int64(step))
                try doc.insert([v], at: p, in: Self.list)
                model.insert(v, at: p)
            case 1:
                let p = rng.int(0..<n)
                let k = rng.int(1..<(min(3, n - p) + 1))
                try doc.delete(at: p, count: k, in: Self.list)
                model.removeSubrange(p..<(p + k))
            case 2:
                let a = rng.int(0..<n), b = rng.int(0..<n)
                try doc.move(from: a, to: b, in: Self.list)
                let v = model.remove(at: a)
                model.insert(v, at: b)
            default:
                let p = rng.int(0..<n)
                try doc.set(.string("s\(step)"), at: p, in: Self.list)
                model[p] = .string("s\(step)")
            }
            if rng.chance(0.3) { mirror.apply(doc.commit()) }
            #expect(doc.list(Self.list) == model, "seed \(seed), step \(step)")
            if doc.list(Self.list) != model { return }
        }
        mirror.apply(doc.commit())
        #expect(mirror.differences(from: doc).isEmpty)
    }

    /// Loro's rules, as the real peer shows them (see the interop suites): a move beats a
    /// concurrent delete of the element's old place, the larger (Lamport, peer) wins between
    /// concurrent moves, a delete beats a concurrent set.
    @Test func concurrentMovesSetsAndDeletes() throws {
        var a = CRDTDocument(peer: 1)
        try a.insert([.string("a"), .string("b"), .string("c"), .string("d")], at: 0, in: Self.list)
        a.commit()
        var b = CRDTDocument(peer: 2)
        try b.importUpdates(a.exportUpdates())
        try a.move(from: 0, to: 3, in: Self.list)
        a.commit()
        try b.delete(at: 0, count: 1, in: Self.list)
        b.commit()
        try exchange(&a, &b)
        #expect(a.list(Self.list) == [.string("b"), .string("c"), .string("d"), .string("a")])
        #expect(b.list(Self.list) == a.list(Self.list))

        // Concurrent moves of "b": peer 2's move wins (same Lamport, larger peer).
        try a.move(from: 0, to: 2, in: Self.list)
        a.commit()
        try b.move(from: 0, to: 1, in: Self.list)
        b.commit()
        try exchange(&a, &b)
        #expect(a.list(Self.list) == [.string("c"), .string("b"), .string("d"), .string("a")])
        #expect(b.list(Self.list) == a.list(Self.list))

        // The loser's item is dead: invisible, but Loro's positions count it.
        let json = a.exportJSONUpdates().jsonString()
        var c = CRDTDocument(peer: 3)
        try c.importJSONUpdates(json)
        try c.insert([.string("X")], at: 3, in: Self.list)
        c.commit()
        try a.importJSONUpdates(c.exportJSONUpdates(from: a.version).jsonString())
        #expect(a.list(Self.list) == [.string("c"), .string("b"), .string("d"), .string("X"), .string("a")])

        // A set and a concurrent delete: the element is gone.
        try b.importUpdates(a.exportUpdates(since: b.version))
        try a.set(.string("S"), at: 0, in: Self.list)
        a.commit()
        try b.delete(at: 0, count: 1, in: Self.list)
        b.commit()
        try exchange(&a, &b)
        #expect(a.list(Self.list) == [.string("b"), .string("d"), .string("X"), .string("a")])
        #expect(b.list(Self.list) == a.list(Self.list))
    }

    func exchange(_ a: inout CRDTDocument, _ b: inout CRDTDocument) throws {
        let fromA = a.exportLoroUpdates(from: b.version), fromB = b.exportLoroUpdates(from: a.version)
        try a.importLoro(fromB)
        try b.importLoro(fromA)
    }

    /// Three peers editing concurrently, syncing through Quire's binary, Loro's binary and
    /// Loro's JSON in turn, converge; events keep mirrors in step.
    @Test(arguments: [UInt64(11), 12, 13, 14])
    func peersConverge(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        var docs = (0..<3).map { i -> CRDTDocument in
            var d = CRDTDocument(peer: PeerID(i + 1))
            d.recordsEvents = true
            return d
        }
        var mirrors = [Mirror](repeating: Mirror(), count: 3)
        for round in 0..<30 {
            for i in 0..<3 {
                for _ in 0..<rng.int(1..<5) {
                    let n = docs[i].length(of: Self.list)
                    switch rng.int(0..<5) {
                    case _ where n == 0, 0: try docs[i].insert([.int(Int64(rng.int(0..<100)))], at: rng.int(0..<(n + 1)), in: Self.list)
                    case 1: try docs[i].delete(at: rng.int(0..<n), count: 1, in: Self.list)
                    case 2:
                        let a = rng.int(0..<n), b = rng.int(0..<n)
                        if a != b { try docs[i].move(from: a, to: b, in: Self.list) }
                    case 3: try docs[i].set(.int(Int64(rng.int(100..<200))), at: rng.int(0..<n), in: Self.list)
                    default: try docs[i].increment(Self.hits, by: Double(rng.int(-3..<4)))
                    }
                }
                mirrors[i].apply(docs[i].commit())
            }
            for i in 0..<3 {
                let j = (i + 1 + rng.int(0..<2)) % 3
                let event: DocumentEvent?
                switch round % 3 {
                case 0: event = try docs[j].importUpdates(docs[i].exportUpdates(since: docs[j].version)).event
                case 1: event = try docs[j].importLoro(docs[i].exportLoroUpdates(from: docs[j].version)).event
                default: event = try docs[j].importJSONUpdates(docs[i].exportJSONUpdates(from: docs[j].version).jsonString()).event
                }
                mirrors[j].apply(event)
            }
        }
        for i in 0..<3 {
            for j in 0..<3 where i != j { mirrors[j].apply(try docs[j].importUpdates(docs[i].exportUpdates(since: docs[j].version)).event) }
        }
        for i in 1..<3 {
            #expect(docs[i].list(Self.list) == docs[0].list(Self.list), "seed \(seed): peer \(i)")
            #expect(docs[i].counterValue(Self.hits) == docs[0].counterValue(Self.hits))
        }
        for i in 0..<3 { #expect(mirrors[i].differences(from: docs[i]).isEmpty, "seed \(seed): mirror \(i) \(mirrors[i].differences(from: docs[i]))") }
    }

    /// Snapshots in both formats, and a shallow one, hold movable lists and counters.
    @Test func snapshotsRoundTrip() throws {
        var doc = CRDTDocument(peer: 5)
        try doc.insert([.string("a"), .string("b"), .string("c")], at: 0, in: Self.list)
        let child = try doc.insertContainer(.text, at: 1, in: Self.list)
        try doc.insertText("inner", at: 0, in: child)
        try doc.move(from: 0, to: 3, in: Self.list)
        try doc.set(.int(7), at: 0, in: Self.list)
        try doc.delete(at: 2, count: 1, in: Self.list)
        try doc.increment(Self.hits, by: 2.5)
        try doc.increment(Self.hits, by: -1)
        doc.commit()
        let expected = doc.deepValue
        let quire = try CRDTDocument.load(snapshot: doc.exportSnapshot(), peer: 6)
        #expect(quire.deepValue == expected)
        var loro = CRDTDocument(peer: 7)
        try loro.importLoro(doc.exportLoroSnapshot())
        #expect(loro.deepValue == expected)
        var shallow = CRDTDocument(peer: 8)
        try shallow.importLoro(doc.exportShallowSnapshot(at: doc.frontiers))
        #expect(shallow.deepValue == expected)
        // Every one of them keeps editing and syncing with the original.
        for var other in [quire, loro, shallow] {
            try other.move(from: 2, to: 0, in: Self.list)
            try other.increment(Self.hits, by: 1)
            other.commit()
            var copy = doc
            try copy.importLoro(other.exportLoroUpdates(from: doc.version))
            #expect(copy.list(Self.list) == other.list(Self.list))
            #expect(copy.counterValue(Self.hits) == 2.5)
        }
    }

    /// Undo and redo of inserts, moves, sets, deletes and increments, also with a concurrent
    /// remote edit in between.
    @Test func undoRedo() throws {
        var a = CRDTDocument(peer: 1)
        var undo = CRDTUndoManager(a)
        try a.insert([.string("a"), .string("b"), .string("c")], at: 0, in: Self.list)
        try undo.commit(&a)
        try a.move(from: 0, to: 2, in: Self.list)
        try undo.commit(&a)
        try a.set(.string("B"), at: 0, in: Self.list)
        try undo.commit(&a)
        try a.delete(at: 1, count: 1, in: Self.list)
        try undo.commit(&a)
        try a.increment(Self.hits, by: 5)
        try undo.commit(&a)
        #expect(a.list(Self.list) == [.string("B"), .string("a")])
        // A remote peer adds an element meanwhile.
        var b = CRDTDocument(peer: 2)
        try b.importUpdates(a.exportUpdates())
        try b.insert([.string("r")], at: 0, in: Self.list)
        b.commit()
        try a.importUpdates(b.exportUpdates(since: a.version))
        let states: [[CRDTValue]] = [
            [.string("r"), .string("B"), .string("c"), .string("a")],
            [.string("r"), .string("b"), .string("c"), .string("a")],
            [.string("r"), .string("a"), .string("b"), .string("c")],
            [.string("r")],
        ]
        _ = try undo.undo(&a)
        #expect(a.counterValue(Self.hits) == 0)
        for expected in states {
            _ = try undo.undo(&a)
            #expect(a.list(Self.list) == expected)
        }
        for expected in states.reversed().dropFirst() {
            _ = try undo.redo(&a)
            #expect(a.list(Self.list) == expected)
        }
        _ = try undo.redo(&a)
        #expect(a.list(Self.list) == [.string("r"), .string("B"), .string("a")])
        _ = try undo.redo(&a)
        #expect(a.counterValue(Self.hits) == 5)
        // The other peer follows the undos and redos.
        try b.importUpdates(a.exportUpdates(since: b.version))
        #expect(b.list(Self.list) == a.list(Self.list))
    }

    /// Checkouts and diffs show movable lists and counters as they were.
    @Test func timeTravel() throws {
        var doc = CRDTDocument(peer: 3)
        try doc.insert([.int(1), .int(2), .int(3)], at: 0, in: Self.list)
        try doc.increment(Self.hits, by: 1)
        doc.commit()
        let v1 = doc.frontiers
        try doc.move(from: 0, to: 2, in: Self.list)
        try doc.set(.int(9), at: 0, in: Self.list)
        try doc.increment(Self.hits, by: 2)
        doc.commit()
        let v2 = doc.frontiers
        let past = try doc.checkout(v1)
        #expect(past.list(Self.list) == [.int(1), .int(2), .int(3)])
        #expect(past.counterValue(Self.hits) == 1)
        var mirror = Mirror(of: past)
        for e in try doc.diff(from: v1, to: v2) { mirror.apply(e) }
        #expect(mirror.differences(from: try doc.checkout(v2)).isEmpty)
        let fork = try doc.fork(at: v1, peer: 9)
        #expect(fork.list(Self.list) == [.int(1), .int(2), .int(3)])
        var f = fork
        try f.move(from: 2, to: 0, in: Self.list)
        f.commit()
        #expect(f.list(Self.list) == [.int(3), .int(1), .int(2)])
    }
}
