import FuzzSupport
import QuireCatalog
import QuireConfig
import QuireModel

// Lexical JSON import → export → import: any bytes are either a typed error or a document whose
// export imports again to a document with the same export (nothing the exporter writes is
// refused or changed by the importer).

/// Every built-in plugin, so that the importer reaches each node type's field decoding.
let registry: NodeRegistry = {
    do {
        return try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog).makeRegistry()
    } catch {
        fuzzFailure("LexicalJSONFuzz", "the built-in configuration does not load: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let state: EditorState
    do {
        state = try LexicalJSON.importState(from: bytes, registry: registry)
    } catch {
        return 0
    }
    let exported = LexicalJSON.exportBytes(state)
    let again: EditorState
    do {
        again = try LexicalJSON.importState(from: exported, registry: registry)
    } catch {
        fuzzFailure("LexicalJSONFuzz", "the export of an accepted document is refused: \(error)")
    }
    let reexported = LexicalJSON.exportBytes(again)
    if reexported != exported {
        fuzzFailure("LexicalJSONFuzz", "export → import → export changed the document:\n\(String(decoding: exported, as: UTF8.self))\n\(String(decoding: reexported, as: UTF8.self))")
    }
    return 0
}
