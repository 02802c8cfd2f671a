import FuzzSupport
import QuireCRDT

/// The text container the base document edits.
public let baseTextID = ContainerID.root(name: "text", type: .text)

/// A document with history (an insertion and a deletion in two changes), so that "a refused
/// import leaves the document unchanged" has something to compare.
public let baseDocument: CRDTDocument = {
    var doc = CRDTDocument(peer: 7)
    do {
        try doc.insertText("Quire fuzz base", at: 0, in: baseTextID)
        doc.commit()
        try doc.delete(at: 0, count: 6, in: baseTextID)
        doc.commit()
    } catch {
        fuzzFailure("CRDTFuzzSupport", "the base document cannot be built: \(error)")
    }
    return doc
}()

/// The base document's snapshot, computed once.
public let baseSnapshot = baseDocument.exportSnapshot()

/// Traps unless `doc` (a copy of the base document an import refused) still is the base document.
public func expectBaseUnchanged(_ doc: CRDTDocument, _ harness: String, after error: any Error) {
    if doc.version != baseDocument.version || doc.exportSnapshot() != baseSnapshot {
        fuzzFailure(harness, "a refused import changed the document (\(error))")
    }
}
