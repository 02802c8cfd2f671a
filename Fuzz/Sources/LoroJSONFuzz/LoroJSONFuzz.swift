import CRDTFuzzSupport
import FuzzSupport
import QuireCRDT

// Loro JSON updates: any bytes are a typed error that leaves the document unchanged, or an import;
// accepted updates written back as JSON decode again to the same JSON.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let updates: LoroJSONUpdates
    do {
        updates = try LoroJSONUpdates(json: fuzzBytes(data, size))
    } catch {
        return 0
    }
    let written = updates.jsonBytes()
    do {
        let reread = try LoroJSONUpdates(json: written)
        if reread.jsonBytes() != written {
            fuzzFailure("LoroJSONFuzz", "write → read → write changed the updates:\n\(String(decoding: written, as: UTF8.self))")
        }
    } catch {
        fuzzFailure("LoroJSONFuzz", "written updates do not read back: \(error)\n\(String(decoding: written, as: UTF8.self))")
    }
    var doc = baseDocument
    do {
        try doc.importJSONUpdates(updates)
    } catch {
        expectBaseUnchanged(doc, "LoroJSONFuzz", after: error)
    }
    return 0
}
