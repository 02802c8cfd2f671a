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
        var doc = T.document(peer: 101)
        try doc.insertText("Hello world", at: 0, in: T.body)
        doc.commit()
        try doc.mark(0..<5, key: "bold", value: .bool(true), in: T.body)
        try doc.mark(6..<11, key: "link", value: .string("https://loro.dev"), in: T.body)
        try doc.insertText("!", at: 5, in: T.body)
        try doc.delete(at: 1, count: 2, in: T.body)
        try doc.unmark(0..<2, key: "bold", in: T.body)
        try doc.insert([.int(1), .string("two"), .bool(true), .double(2.5), .null, .binary([1, 2]), .map(["a": .list([.int(-7)])])], at: 0, in: T.items)
        try doc.delete(at: 1, count: 1, in: T.items)
        try doc.set("title", .string("Notes"), in: T.meta)
        let caption = try doc.setContainer("caption", .text, in: T.meta)
        try doc.insertText("nested 😀", at: 0, in: caption)
        try doc.removeKey("title", in: T.meta)
        let n1 = try doc.createNode(in: T.blocks)
        let n2 = try doc.createNode(in: T.blocks)
        let n3 = try doc.createNode(under: n1, in: T.blocks)
        try doc.set("type", .string("paragraph"), in: doc.properties(of: n1))
        try doc.moveNode(n2, under: n1, at: 0, in: T.blocks)
        try doc.deleteNode(n3, in: T.blocks)
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

    /// The document of ``swiftUpdatesImportIntoLoro()``'s first part: every container type,
    /// marks, nested containers, deletions.
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
}
