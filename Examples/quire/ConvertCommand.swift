import ArgumentParser
import Foundation
import QuireAlgorithms
import QuireMarkdown
import QuireMarkup
import QuireModel
import QuirePlainText
import Synchronization

/// The configured markup formats and node mappings, from the same configuration as the registry.
struct MarkupSetup: Sendable {
    let registry: NodeRegistry
    let contributions: [PluginContribution]
    let formats: MarkupFormats
    let documentFormats: DocumentFormats
    let mappings: MarkupMappings

    let warnings = Warnings()

    init(_ config: ConfigOptions) throws {
        let loaded = try config.load()
        warnings.count = loaded.configuration.warnings.count
        contributions = loaded.configuration.plugins.contributions
        registry = loaded.registry
        formats = MarkupFormats(contributions: contributions)
        documentFormats = DocumentFormats(contributions: contributions)
        mappings = MarkupMappings(contributions: contributions)
    }

    /// The markup parser for an extension, naming every format (markup and document) when none
    /// reads it.
    func parser(for fileExtension: String) throws -> any MarkupParser {
        do {
            return try formats.parser(for: fileExtension)
        } catch {
            throw withDocumentFormats(error, documentFormats.names)
        }
    }

    /// Writes `state` in the format of `fileExtension` (a document format such as HTML, or a
    /// markup serializer through the mappings).
    func write(_ state: EditorState, as fileExtension: String, source: String) throws -> String {
        if let format = documentFormats.format(for: fileExtension) {
            let (text, losses) = try format.writeReportingLosses(state, contributions: contributions)
            for loss in losses { warnings.warn("\(source): \(loss)") }
            return text
        }
        let serialized = try serialize(state, as: fileExtension)
        if !serialized.dropped.isEmpty {
            warnings.warn("\(source): text formats markup cannot express are not written (format bits \(serialized.dropped.rawValue))")
        }
        for loss in serialized.losses { warnings.warn("\(source): \(loss)") }
        return serialized.text
    }

    /// `state` in the markup format of `fileExtension`, the text formats it cannot express (left
    /// out of the text) and the structures it cannot represent; for a caller that reports them its
    /// own way (the editor's status line).
    func serialize(_ state: EditorState, as fileExtension: String) throws -> (text: String, dropped: TextFormat, losses: [MarkupLoss]) {
        // The formats are found on another core while the document is read and written.
        let dropped = ForkedWork { MarkupExporter.droppedFormats(in: state) }
        let (document, losses) = try MarkupExporter(mappings: mappings).makeDocumentReportingLosses(state)
        do {
            let (text, writerLosses) = try formats.serializer(for: fileExtension).serializeReportingLosses(document)
            return (text, dropped.result(), losses + writerLosses)
        } catch {
            throw withDocumentFormats(error, documentFormats.formats.map(\.formatName))
        }
    }

    /// An unknown-format error that also lists the document formats' names.
    func withDocumentFormats(_ error: MarkupError, _ names: [String]) -> MarkupError {
        guard case .unknownFormat(let name, let available) = error else { return error }
        return .unknownFormat(name, available: available + names)
    }

    /// Whether the configured format of `path`'s extension is plain text, whose paragraphs are
    /// lines: drawn without blank lines between them, and edited without markdown shortcuts
    /// (which would make blocks a text file cannot keep).
    func isPlainText(_ path: String) -> Bool {
        let fileExtension = Self.fileExtension(path)
        return formats.parsers.first { $0.fileExtensions.contains(fileExtension) } is PlainTextFormat
    }

    /// The file's extension, lower-cased ("md", "json").
    static func fileExtension(_ path: String) -> String {
        URL(fileURLWithPath: path).pathExtension.lowercased()
    }

    /// The format of an input: its extension, or for standard input ("-") what its first
    /// character says (`{` Lexical JSON, `<` HTML, anything else markdown).
    static func inputFormat(_ path: String, _ bytes: [UInt8]) -> String {
        guard path == "-" else { return fileExtension(path) }
        let first = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.first
        return first == UInt8(ascii: "{") ? "json" : first == UInt8(ascii: "<") ? "html" : "md"
    }

    /// Reads a document: Lexical JSON for .json, else the markup format of the extension.
    func loadState(_ path: String) throws -> EditorState {
        let bytes = try InputFile.read(path)
        return try state(bytes, format: Self.inputFormat(path, bytes))
    }

    func state(_ bytes: [UInt8], format fileExtension: String) throws -> EditorState {
        if fileExtension == "json" { return try LexicalJSON.importState(from: bytes, registry: registry) }
        let text = try SourcePosition.text(validating: bytes)
        if let format = documentFormats.format(for: fileExtension) {
            return try format.read(text, registry: registry, contributions: contributions)
        }
        return try MarkupImporter(mappings: mappings).makeState(parsing: text, with: parser(for: fileExtension), registry: registry)
    }

    /// A document's markup document: parsed directly for markup files, exported for JSON.
    func loadDocument(_ path: String) throws -> MarkupDocument {
        let bytes = try InputFile.read(path)
        let fileExtension = Self.inputFormat(path, bytes)
        if fileExtension == "json" || documentFormats.format(for: fileExtension) != nil {
            return try MarkupExporter(mappings: mappings).makeDocument(try state(bytes, format: fileExtension))
        }
        return try parser(for: fileExtension).parse(SourcePosition.text(validating: bytes))
    }
}

/// The warnings a command wrote to standard error, so that `--strict` can fail on them. Sendable,
/// so that a ``MarkupSetup`` can go with an editor to the actor that owns it (`quire edit --server`).
final class Warnings: Sendable {
    private let counter = Mutex(0)

    var count: Int {
        get { counter.withLock { $0 } }
        set { counter.withLock { $0 = newValue } }
    }

    func warn(_ message: String) {
        counter.withLock { $0 += 1 }
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
    }

    struct Strict: Error, CustomStringConvertible {
        let count: Int
        var description: String { "\(count) warning\(count == 1 ? "" : "s") with --strict (above)" }
    }

    /// Fails when `strict` and anything was warned about.
    func check(strict: Bool) throws {
        if strict && count > 0 { throw Strict(count: count) }
    }
}

/// `quire convert IN OUT`: markdown, HTML and Lexical JSON, chosen by the files' extensions.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert between Lexical JSON (.json), markdown (.md), plain text (.txt) and HTML (.html), by file extension; OUT - writes to standard output: markdown for JSON input, JSON otherwise."
    )

    @Argument(help: "The input file (.json, .md, .txt or .html).") var input: String
    @Argument(help: "The output file (.json, .md, .txt or .html), or - for standard output.") var output: String
    @Flag(help: "Fail (status 1, nothing written) when anything is warned about, such as what the output format cannot represent.")
    var strict = false
    @Flag(help: "Indent Lexical JSON output (compact without it, as Lexical's JSON.stringify and quire export write it).")
    var pretty = false
    @OptionGroup var config: ConfigOptions

    func run() throws {
        let setup = try MarkupSetup(config)
        let inputBytes = try InputFile.read(input)
        let inputFormat = MarkupSetup.inputFormat(input, inputBytes)
        let state = try setup.state(inputBytes, format: inputFormat)
        let inputIsJSON = inputFormat == "json"
        let outputExtension = output == "-" ? (inputIsJSON ? "md" : "json") : MarkupSetup.fileExtension(output)
        if outputExtension == "json" {
            try setup.warnings.check(strict: strict)
            // Streamed to the file in pieces: the JSON of a large document is tens of times its
            // markdown's size, and holding it whole cost a third of its export in copies and pages.
            let file = try OutputFile(output)
            try file.writeLexicalJSON(state, prettyPrinted: pretty)
            try file.close()
        } else {
            let text = try setup.write(state, as: outputExtension, source: input)
            try setup.warnings.check(strict: strict)
            let file = try OutputFile(output)
            var utf8 = text
            try utf8.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
            try file.close()
        }
        // The process ends here: its memory goes back to the system whole, so the document's
        // millions of nodes are not freed one by one (a tenth of a second for a 9 MB file).
        Self.keptUntilExit.withLock { $0 = state }
    }

    /// The converted document, kept so that it is not freed just before the process exits.
    private static let keptUntilExit = Mutex<EditorState?>(nil)
}
