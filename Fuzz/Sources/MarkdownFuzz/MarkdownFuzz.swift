import FuzzSupport
import QuireCatalog
import QuireConfig
import QuireMarkup
import QuireModel

// Markdown import → export → import: any text imports (a typed error is allowed), block by block
// as the parser streams them the same as whole, its export imports again without losing visible
// text, and after that one round export is a fixpoint.

struct MarkdownRoundTrip: Sendable {
    let registry: NodeRegistry
    let parser: any MarkupParser
    let serializer: any MarkupSerializer
    let importer: MarkupImporter
    let exporter: MarkupExporter

    /// Markdown text → (the document the engine holds, its markup document, that written out).
    func round(_ text: String) throws(MarkupError) -> (document: MarkupDocument, markdown: String) {
        let state = try importer.makeState(try parser.parse(text), registry: registry)
        let document = try exporter.makeDocument(state)
        return (document, try serializer.serialize(document))
    }

    /// Whether importing `text` block by block as the parser streams them builds the state the
    /// whole document's import builds (keys included); a typed error either way counts as equal
    /// only when both refuse it.
    func streamsAsWhole(_ text: String) -> Bool {
        let whole = Result { () throws(MarkupError) in try importer.makeState(try parser.parse(text), registry: registry) }
        let streamed = Result { () throws(MarkupError) in try importer.makeState(parsing: text, with: parser, registry: registry) }
        switch (whole, streamed) {
        case (.success(let a), .success(let b)): return LexicalJSON.exportBytes(a, prettyPrinted: false) == LexicalJSON.exportBytes(b, prettyPrinted: false)
        case (.failure, .failure): return true
        default: return false
        }
    }
}

/// Every block's visible text (inline text and literals), walked with a stack so that the check
/// itself has no depth limit.
func visibleText(_ document: MarkupDocument) -> String {
    var text = ""
    var stack = Array(document.blocks.reversed())
    while let block = stack.popLast() {
        text += block.literal
        text += block.inlines.map(\.plainText).joined()
        stack.append(contentsOf: block.children.reversed())
    }
    return text
}

let roundTrip: MarkdownRoundTrip = {
    do {
        let configuration = try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog)
        let contributions = configuration.plugins.contributions
        let formats = MarkupFormats(contributions: contributions)
        let mappings = MarkupMappings(contributions: contributions)
        return MarkdownRoundTrip(
            registry: try configuration.makeRegistry(),
            parser: try formats.parser(for: "md"),
            serializer: try formats.serializer(for: "md"),
            importer: MarkupImporter(mappings: mappings),
            exporter: MarkupExporter(mappings: mappings)
        )
    } catch {
        fuzzFailure("MarkdownFuzz", "the built-in configuration does not give a markdown round trip: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    if !roundTrip.streamsAsWhole(text) {
        fuzzFailure("MarkdownFuzz", "the streamed import differs from the whole document's\n--- input:\n\(text)")
    }
    let first: (document: MarkupDocument, markdown: String)
    do {
        first = try roundTrip.round(text)
    } catch {
        return 0
    }
    let second: (document: MarkupDocument, markdown: String)
    do {
        second = try roundTrip.round(first.markdown)
    } catch {
        fuzzFailure("MarkdownFuzz", "the export of an accepted document is refused: \(error)\n--- export:\n\(first.markdown)")
    }
    if visibleScalars(visibleText(second.document)) != visibleScalars(visibleText(first.document)) {
        fuzzFailure("MarkdownFuzz", "visible text changed on re-import\n--- input:\n\(text)\n--- export:\n\(first.markdown)\n--- re-export:\n\(second.markdown)")
    }
    if second.markdown != first.markdown {
        fuzzFailure("MarkdownFuzz", "export is not a fixpoint after one round\n--- input:\n\(text)\n--- export:\n\(first.markdown)\n--- re-export:\n\(second.markdown)")
    }
    return 0
}
