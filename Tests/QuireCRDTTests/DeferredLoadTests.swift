import Foundation
import Testing
@testable import QuireCRDT

/// A Loro snapshot imported into an empty document is not decoded until used (issue 15 item 3):
/// reads, edits, exports, checkouts, concurrent imports and undo all give what a document that
/// replayed the whole history gives.
@Suite struct DeferredLoadTests {
    typealias T = LoroInteropTests

    /// A history over every container type from three peers, with concurrency.
    static func history(seed: UInt64) throws -> CRDTDocument {
        var rng = SeededRNG(seed: seed)
        var docs = (1...3).map { T.document(peer: PeerID($0) * 100 + seed) }
        for round in 0..<8 {
            for i in docs.indices {
                for _ in 0..<rng.int(2..<8) { try T.randomEdit(&docs[i], &rng, all: true) }
                docs[i].commit()
            }
            let j = round % 3
            for i in docs.indices where i != j { try docs[j].importLoro(docs[i].exportLoroUpdates(from: docs[j].version)) }
        }
        return docs[0]
    }

    static func lazy(_ doc: CRDTDocument, peer: PeerID) throws -> CRDTDocument {
        var out = T.document(peer: peer)
        try out.importLoro(doc.exportLoroSnapshot())
        #expect(out.storage.deferred != nil)
        return out
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func readsMatchTheReplayedDocument(seed: UInt64) throws {
        let original = try Self.history(seed: seed)
        let doc = try Self.lazy(original, peer: 9)
        // The text comes straight from the snapshot's bytes, before anything is decoded.
        #expect(doc.text(T.body) == original.text(T.body))
        let decoded = doc.storage.stateReady.load(ordering: .acquiring)
        #expect(!decoded)
        #expect(doc.version == original.version && doc.frontiers == original.frontiers)
        #expect(doc.deepValue == original.deepValue)
        for c in Comparable.texts(original) { #expect(doc.toDelta(c) == original.toDelta(c)) }
        #expect(doc.storage.deferred != nil, "reading needs no history")
    }

    @Test(arguments: [UInt64(4), 5])
    func editsExportsCheckoutsAndUndo(seed: UInt64) throws {
        var original = try Self.history(seed: seed)
        var doc = try Self.lazy(original, peer: 9)
        let loaded = doc.version
        // Local edits sync to a full document without decoding the history. (No child
        // containers here: undo brings a container value back as the same container, which
        // Loro's encodings cannot say; see the Undo article.)
        var undo = CRDTUndoManager(doc)
        var rng = SeededRNG(seed: seed + 50)
        for step in 0..<15 {
            let n = doc.length(of: T.body), m = doc.length(of: T.tasks)
            switch step % 5 {
            case 0: try doc.insertText("w\(step)", at: rng.int(0..<(n + 1)), in: T.body)
            case 1 where n > 2: try doc.delete(at: rng.int(0..<(n - 2)), count: 2, in: T.body)
            case 2 where n > 2: try doc.mark(0..<2, key: "bold", value: .bool(true), in: T.body)
            case 3: try doc.set("d\(step % 3)", .int(Int64(step)), in: T.meta)
            default:
                if m > 1 { try doc.move(from: 0, to: m - 1, in: T.tasks) } else { try doc.insert([.int(Int64(step))], at: 0, in: T.tasks) }
            }
            try undo.commit(&doc)
        }
        try original.importLoro(doc.exportLoroUpdates(from: loaded))
        #expect(original.deepValue == doc.deepValue)
        #expect(doc.storage.deferred != nil)
        // Undo works on the loaded state.
        for _ in 0..<15 { _ = try undo.undo(&doc) }
        try original.importLoro(doc.exportLoroUpdates(from: original.version))
        #expect(original.deepValue == doc.deepValue)
        // The whole history, a checkout of an old version and Quire's snapshot need it decoded.
        var fresh = T.document(peer: 11)
        try fresh.importLoro(doc.exportLoroUpdates())
        #expect(fresh.deepValue == doc.deepValue)
        let old = try original.fork(at: Frontiers([OpID(peer: 100 + seed, counter: 3)]), peer: 12)
        #expect(try doc.checkout(old.frontiers).text(T.body) == old.text(T.body))
        #expect(try CRDTDocument.load(snapshot: doc.exportSnapshot(), peer: 13).deepValue == doc.deepValue)
    }

    @Test func concurrentChangesDecodeTheHistory() throws {
        let original = try Self.history(seed: 7)
        var doc = try Self.lazy(original, peer: 9)
        // A peer that forked long ago edits concurrently with everything since.
        var other = try original.fork(at: Frontiers([OpID(peer: 107, counter: 5)]), peer: 14)
        var rng = SeededRNG(seed: 8)
        for _ in 0..<10 { try T.randomEdit(&other, &rng, all: true) }
        other.commit()
        try doc.importLoro(other.exportLoroUpdates(from: try other.versionVector(of: Frontiers([OpID(peer: 107, counter: 5)]))))
        #expect(doc.storage.deferred == nil)
        var expected = original
        try expected.importLoro(other.exportLoroUpdates())
        #expect(doc.deepValue == expected.deepValue)
        for c in Comparable.texts(expected) { #expect(doc.toDelta(c) == expected.toDelta(c)) }
    }
}
