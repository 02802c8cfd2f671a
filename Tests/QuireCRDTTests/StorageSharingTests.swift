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
        let storage = ObjectIdentifier(document.storage)
        _ = document.commit()
        #expect(ObjectIdentifier(document.storage) == storage)
    }

    /// `commit()` holds the storage it committed while `takeEvents` asks for it again, so the
    /// second `mutate()` sees two references and copies.
    @Test func commitRecordingEventsKeepsTheStorage() throws {
        var document = try Self.document(recordingEvents: true)
        try document.insertText("!", at: 11, in: Self.text)
        #expect(isKnownUniquelyReferenced(&document.storage))
        let storage = ObjectIdentifier(document.storage)
        let event = document.commit()
        #expect(event != nil)
        withKnownIssue("CRDTDocument.commit() copies the storage when it records events") {
            #expect(ObjectIdentifier(document.storage) == storage)
        }
    }

    @Test func importRecordingEventsKeepsTheStorage() throws {
        var document = try Self.document(recordingEvents: true)
        var other = document.fork(peer: 2)
        try other.insertText("!", at: 11, in: Self.text)
        other.commit()
        #expect(isKnownUniquelyReferenced(&document.storage))
        let storage = ObjectIdentifier(document.storage)
        let status = try document.importUpdates(other.exportUpdates(since: document.version))
        #expect(status.event != nil)
        withKnownIssue("CRDTDocument.importUpdates copies the storage when it records events") {
            #expect(ObjectIdentifier(document.storage) == storage)
        }
    }
}
