import FuzzSupport
import QuireCatalog
import QuireConfig

// YAML configuration loading: any text is a typed error or a configuration whose registry builds
// or fails with a typed error; never a trap.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    do {
        let configuration = try Configuration.load(yaml: text, catalog: BuiltInPlugins.catalog)
        _ = try configuration.makeRegistry()
    } catch {
        return 0
    }
    return 0
}
