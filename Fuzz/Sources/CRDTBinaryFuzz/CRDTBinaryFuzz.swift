import Foundation
import CRDTFuzzSupport
import FuzzSupport
import QuireCRDT

// Binary updates and snapshots, Quire's own and Loro's (`importUpdates` dispatches on the header):
// any bytes are a typed error that leaves the document unchanged, or an import after which the
// document's snapshot loads again. Snapshot loading into a fresh document is fed the same bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var doc = baseDocument
    do {
        try doc.importUpdates(bytes)
        let snapshot = doc.exportSnapshot()
        do {
            _ = try CRDTDocument.load(snapshot: snapshot, peer: 9)
        } catch {
            fuzzFailure("CRDTBinaryFuzz", "the snapshot of a document after an accepted import does not load: \(error)")
        }
    } catch {
        expectBaseUnchanged(doc, "CRDTBinaryFuzz", after: error)
    }
    do {
        _ = try CRDTDocument.load(snapshot: bytes, peer: 9)
    } catch {
        return 0
    }
    return 0
}

/// `QUIRE_FUZZ_WRITE_SEEDS=DIR QUIRE_FUZZ_LORO_JSON=FILE CRDTBinaryFuzz` writes Quire binary seeds
/// (updates and snapshots of the base document and of the Loro JSON fixture imported) and exits:
/// Quire's binary format has no committed fixtures, and generating them beats committing blobs.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    guard let directory = environment["QUIRE_FUZZ_WRITE_SEEDS"] else { return 0 }
    var seeds: [String: [UInt8]] = [
        "base-updates.bin": baseDocument.exportUpdates(),
        "base-snapshot.bin": baseSnapshot,
    ]
    if let path = environment["QUIRE_FUZZ_LORO_JSON"] {
        do {
            var doc = CRDTDocument(peer: 3)
            try doc.importJSONUpdates(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
            seeds["loro-json-updates.bin"] = doc.exportUpdates()
            seeds["loro-json-snapshot.bin"] = doc.exportSnapshot()
        } catch {
            fuzzFailure("CRDTBinaryFuzz", "cannot turn \(path) into seeds: \(error)")
        }
    }
    do {
        for (name, bytes) in seeds {
            try Data(bytes).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
    } catch {
        fuzzFailure("CRDTBinaryFuzz", "cannot write seeds to \(directory): \(error)")
    }
    exit(0)
}
