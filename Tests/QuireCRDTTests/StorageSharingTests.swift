import Testing
@testable import QuireCRDT

/// A document that is not shared keeps its storage through commits and imports: copy-on-write
/// copies the whole state (O(n)), which a keystroke must not pay. Found by the bridge benchmark:
/// every local commit of a bound editor, and every remote keystroke, copied the document.
@Suite struct StorageSharingTests {
    static let text = ContainerID.root(name: "text", type: .text)

    static func document(recordingEvents: Bool) throws -> CRDTDocument {
        var document = CRDTDocument(peer: 1)
        try document.insertText("hello world", at: 0, in: text)
        document.commit()
        document.recordsEvents = recordingEvents
        return document
    }

    @Test func commitWithoutEventsKeepsTheStorage() throws {
        var document = try Self.document(recordingEvents: false)
        try document.insertText("!", at: 11, in: Self.text)
        weak let before = document.storage
        _ = document.commit()
        #expect(before === document.storage)
    }

    /// Taking the events must not find the storage shared with the commit's own reference to it
    /// (it did: every commit of a bound editor copied the document). A weak reference tells a
    /// kept storage from a copy that happens to reuse the freed address.
    @Test func commitRecordingEventsKeepsTheStorage() throws {
        var document = try Self.document(recordingEvents: true)
        try document.insertText("!", at: 11, in: Self.text)
        #expect(isKnownUniquelyReferenced(&document.storage))
        weak let before = document.storage
        let event = document.commit()
        #expect(event != nil)
        #expect(before === document.storage)
    }

    /// The same for imports, in each format a peer sends.
    @Test(arguments: ["quire", "loro", "loro-json"])
    func importRecordingEventsKeepsTheStorage(format: String) throws {
        var document = try Self.document(recordingEvents: true)
        var other = document.fork(peer: 2)
        try other.insertText("!", at: 11, in: Self.text)
        other.commit()
        #expect(isKnownUniquelyReferenced(&document.storage))
        weak let before = document.storage
        let status: ImportStatus
        switch format {
        case "quire": status = try document.importUpdates(other.exportUpdates(since: document.version))
        case "loro": status = try document.importLoro(other.exportLoroUpdates(from: document.version))
        default: status = try document.importJSONUpdates(other.exportJSONUpdates(from: document.version))
        }
        #expect(status.event != nil)
        #expect(before === document.storage)
    }
}
