import Foundation
import Testing
@testable import QuireCRDT

/// Interop with a real Loro peer through Loro's binary formats (FastUpdates and FastSnapshot).
/// Needs `QUIRE_LORO_PYTHON` (set by `make test`); skipped otherwise.
@Suite(.enabled(if: LoroPeer.python != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test creates .venv-interop and sets it)"))
struct LoroBinaryInteropTests {
    typealias T = LoroInteropTests

    @Test func swiftUpdatesImportIntoLoro() throws {
        let loro = try LoroPeer()
        // Every container type, marks, nested containers, deletions; then more values, an
        // unmark and a deleted key.
        var doc = try Self.sampleDocument()
        try doc.unmark(0..<2, key: "bold", in: T.body)
        try doc.insert([.double(2.5), .null, .binary([1, 2]), .map(["a": .list([.int(-7)])])], at: 1, in: T.items)
        try doc.delete(at: 3, count: 1, in: T.items)
        try doc.removeKey("title", in: T.meta)
        doc.commit()
        try loro.create("a", peer: 202)
        try loro.importBinary("a", doc.exportLoroUpdates())
        try T.expectSame(doc, loro, "a", "after import")
        let sent = doc.version
        for p in stride(from: 9, through: 6, by: -1) { try doc.delete(at: p, count: 1, in: T.body) }
        try doc.insertText("X", at: 0, in: T.body)
        doc.commit()
        try loro.importBinary("a", doc.exportLoroUpdates(from: sent))
        try T.expectSame(doc, loro, "a", "after the second update")
    }

    @Test func loroUpdatesImportIntoSwift() throws {
        let loro = try LoroPeer()
        try loro.create("a", peer: 303)
        try loro.randomEdits("a", seed: 7, count: 120)
        var doc = T.document(peer: 404)
        try doc.importLoro(loro.exportBinary("a", .updates(from: VersionVector())))
        try T.expectSame(doc, loro, "a", "after import")
        let have = doc.version
        try loro.randomEdits("a", seed: 8, count: 60)
        try doc.importUpdates(loro.exportBinary("a", .updates(from: have)))
        try T.expectSame(doc, loro, "a", "after the second update")
        // Loro's bytes re-exported by Quire import into a fresh Loro document.
        try loro.create("b", peer: 505)
        try loro.importBinary("b", doc.exportLoroUpdates())
        try T.expectSame(doc, loro, "b", "a fresh Loro document from Quire's export")
    }

    /// A document with every container type but movable lists and counters, marks, nested
    /// containers and deletions.
    static func sampleDocument() throws -> CRDTDocument {
        var doc = T.document(peer: 101)
        try doc.insertText("Hello world", at: 0, in: T.body)
        doc.commit()
        try doc.mark(0..<5, key: "bold", value: .bool(true), in: T.body)
        try doc.mark(6..<11, key: "link", value: .string("https://loro.dev"), in: T.body)
        try doc.insertText("!", at: 5, in: T.body)
        try doc.delete(at: 1, count: 2, in: T.body)
        try doc.insert([.int(1), .string("two"), .bool(true)], at: 0, in: T.items)
        let inner = try doc.insertContainer(.map, at: 1, in: T.items)
        try doc.set("x", .int(1), in: inner)
        try doc.set("title", .string("Notes"), in: T.meta)
        try doc.set("gone", .null, in: T.meta)
        try doc.removeKey("gone", in: T.meta)
        let caption = try doc.setContainer("caption", .text, in: T.meta)
        try doc.insertText("nested 😀", at: 0, in: caption)
        let n1 = try doc.createNode(in: T.blocks)
        let n2 = try doc.createNode(in: T.blocks)
        let n3 = try doc.createNode(under: n1, in: T.blocks)
        try doc.set("type", .string("paragraph"), in: doc.properties(of: n1))
        try doc.moveNode(n2, under: n1, at: 0, in: T.blocks)
        try doc.deleteNode(n3, in: T.blocks)
        doc.commit()
        return doc
    }

    @Test func swiftSnapshotImportsIntoLoro() throws {
        let loro = try LoroPeer()
        var doc = try Self.sampleDocument()
        try loro.create("a", peer: 202)
        try loro.importBinary("a", doc.exportLoroSnapshot())
        try T.expectSame(doc, loro, "a", "a fresh Loro document from Quire's snapshot")
        // Loro keeps editing the imported document and sends the edits back.
        let have = doc.version
        try loro.randomEdits("a", seed: 11, count: 40)
        try doc.importLoro(loro.exportBinary("a", .updates(from: have)))
        try T.expectSame(doc, loro, "a", "after Loro's edits on top")
    }

    @Test func loroSnapshotImportsIntoSwift() throws {
        let loro = try LoroPeer()
        try loro.create("a", peer: 303)
        try loro.randomEdits("a", seed: 5, count: 150)
        let snapshot = try loro.exportBinary("a", .snapshot)
        var doc = T.document(peer: 404)
        try doc.importLoro(snapshot)
        try T.expectSame(doc, loro, "a", "after importing Loro's snapshot")
        // A snapshot into a document that already has part of the history.
        var partial = T.document(peer: 405)
        try partial.importLoro(loro.exportBinary("a", .updates(from: VersionVector())))
        try loro.randomEdits("a", seed: 6, count: 30)
        try partial.importLoro(loro.exportBinary("a", .snapshot))
        try T.expectSame(partial, loro, "a", "after a snapshot on top of updates")
    }

    /// Loro's shallow snapshot into Quire: the root state, the history after it, and then both
    /// sides keep editing and exchange updates.
    @Test func loroShallowSnapshotImportsIntoSwift() throws {
        let loro = try LoroPeer()
        for seed in UInt64(0)..<6 {
            try loro.create("a", peer: 700 + seed)
            // Every container type, movable lists and counters included, on both sides of the root.
            try loro.randomEdits("a", seed: 100 + seed, count: 80, all: true)
            let mid = try loro.state("a", texts: []).frontiers
            try loro.randomEdits("a", seed: 200 + seed, count: 40 + 60 * Int(seed % 2), all: true)
            var doc = T.document(peer: 800 + seed)
            try doc.importLoro(loro.exportBinary("a", .shallow(mid)))
            try T.expectSame(doc, loro, "a", "seed \(seed): after importing the shallow snapshot")
            #expect(throws: VersionError.self) { try doc.checkout(doc.frontiers) }
            let have = doc.version
            try loro.randomEdits("a", seed: 300 + seed, count: 30, all: true)
            try doc.importLoro(loro.exportBinary("a", .updates(from: have)))
            try T.expectSame(doc, loro, "a", "seed \(seed): after Loro's later edits")
            let sent = doc.version
            var rng = SeededRNG(seed: seed)
            for _ in 0..<20 { try T.randomEdit(&doc, &rng, all: true) }
            doc.commit()
            try loro.importBinary("a", doc.exportLoroUpdates(from: sent))
            try T.expectSame(doc, loro, "a", "seed \(seed): after Quire's edits on the shallow document")
            // The shallow document re-exports itself; a fresh Loro document reads it.
            try loro.create("b", peer: 900 + seed)
            try loro.importBinary("b", doc.exportLoroSnapshot())
            try T.expectSame(doc, loro, "b", "seed \(seed): Quire's snapshot of the shallow document")
            try loro.drop("a")
            try loro.drop("b")
        }
    }

    /// Quire's shallow snapshots into Loro, at several frontiers.
    @Test func swiftShallowSnapshotImportsIntoLoro() throws {
        let loro = try LoroPeer()
        var doc = try Self.sampleDocument()
        try loro.create("src", peer: 55)
        try loro.importBinary("src", doc.exportLoroUpdates())
        var frontiers: [Frontiers] = [doc.frontiers]
        for round in 0..<4 {
            let have = doc.version
            try loro.randomEdits("src", seed: 40 + UInt64(round), count: 25, all: true)
            try doc.importLoro(loro.exportBinary("src", .updates(from: have)))
            var rng = SeededRNG(seed: UInt64(round))
            for _ in 0..<10 { try T.randomEdit(&doc, &rng, all: true) }
            doc.commit()
            try loro.importBinary("src", doc.exportLoroUpdates(from: have))
            frontiers.append(doc.frontiers)
        }
        for (i, f) in frontiers.enumerated() {
            try loro.create("s\(i)", peer: 60 + UInt64(i))
            try loro.importBinary("s\(i)", doc.exportShallowSnapshot(at: f))
            try T.expectSame(doc, loro, "s\(i)", "shallow snapshot at \(f.ids)")
            var back = T.document(peer: 70 + UInt64(i))
            try back.importLoro(doc.exportShallowSnapshot(at: f))
            try T.expectSame(back, loro, "s\(i)", "Quire reading its own shallow snapshot at \(f.ids)")
            // A shallow document exports a shallow snapshot at its root, from the root's state.
            try loro.create("t\(i)", peer: 80 + UInt64(i))
            try loro.importBinary("t\(i)", back.exportLoroSnapshot())
            try T.expectSame(back, loro, "t\(i)", "the shallow document's own snapshot at \(f.ids)")
            try loro.drop("t\(i)")
            try loro.drop("s\(i)")
        }
    }

    /// Sessions count: `QUIRE_LONG_SEEDS` (also used by the JSON sessions) or 120 (60 for the
    /// JSON sessions over every container type).
    static var sessionSeeds: [UInt64] {
        let long = ProcessInfo.processInfo.environment["QUIRE_LONG_SEEDS"].flatMap { Int($0) }
        return (0..<UInt64(long ?? 120)).map { $0 }
    }

    /// Random concurrent sessions of 2 to 5 peers, Swift and Loro, over every container type
    /// (text with marks, list, map with child texts, tree with node meta, movable list with
    /// moves, sets and child texts, counter), exchanging Loro's binary updates and now and then
    /// whole snapshots, partially, out of order and with duplicates.
    @Test func concurrentBinarySessionsConverge() throws {
        let loro = try LoroPeer()
        for seed in Self.sessionSeeds {
            do {
                try T.session(seed: 50_000 + seed, loro: loro, transport: .binary, all: true, peers: 2..<6)
            } catch {
                Issue.record("seed \(50_000 + seed): \(error)")
            }
        }
    }

    /// The same over Loro's JSON updates, with every container type.
    @Test func concurrentJSONSessionsWithEveryContainerConverge() throws {
        let loro = try LoroPeer()
        let count = ProcessInfo.processInfo.environment["QUIRE_LONG_SEEDS"] == nil ? 60 : Self.sessionSeeds.count
        for seed in Self.sessionSeeds.prefix(count) {
            do {
                try T.session(seed: 70_000 + seed, loro: loro, transport: .json, all: true, peers: 2..<6)
            } catch {
                Issue.record("seed \(70_000 + seed): \(error)")
            }
        }
    }
}
