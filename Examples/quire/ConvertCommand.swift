import ArgumentParser
import Foundation
import QuireMarkdown
import QuireMarkup
import QuireModel

/// The configured markup formats and node mappings, from the same configuration as the registry.
struct MarkupSetup {
    let registry: NodeRegistry
    let contributions: [PluginContribution]
    let formats: MarkupFormats
    let documentFormats: DocumentFormats
    let mappings: MarkupMappings

    init(_ config: ConfigOptions) throws {
        let loaded = try config.load()
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
        if let format = documentFormats.format(for: fileExtension) { return try format.write(state, contributions: contributions) }
        let serialized = try serialize(state, as: fileExtension)
        if !serialized.dropped.isEmpty {
            FileHandle.standardError.write(Data("warning: \(source): text formats markup cannot express are not written (format bits \(serialized.dropped.rawValue))\n".utf8))
        }
        return serialized.text
    }

    /// `state` in the markup format of `fileExtension`, and the text formats it cannot express
    /// (left out of the text); for a caller that reports them its own way (the editor's status
    /// line).
    func serialize(_ state: EditorState, as fileExtension: String) throws -> (text: String, dropped: TextFormat) {
        let document = try MarkupExporter(mappings: mappings).makeDocument(state)
        do {
            return (try formats.serializer(for: fileExtension).serialize(document), MarkupExporter.droppedFormats(in: state))
        } catch {
            throw withDocumentFormats(error, documentFormats.formats.map(\.formatName))
        }
    }

    /// An unknown-format error that also lists the document formats' names.
    func withDocumentFormats(_ error: MarkupError, _ names: [String]) -> MarkupError {
        guard case .unknownFormat(let name, let available) = error else { return error }
        return .unknownFormat(name, available: available + names)
    }

    /// The file's extension, lower-cased ("md", "json").
    static func fileExtension(_ path: String) -> String {
        URL(fileURLWithPath: path).pathExtension.lowercased()
    }

    /// Reads a document: Lexical JSON for .json, else the markup format of the extension.
    func loadState(_ path: String) throws -> EditorState {
        let bytes = try InputFile.read(path)
        let fileExtension = Self.fileExtension(path)
        if fileExtension == "json" { return try LexicalJSON.importState(from: bytes, registry: registry) }
        if let format = documentFormats.format(for: fileExtension) {
            return try format.read(String(decoding: bytes, as: UTF8.self), registry: registry, contributions: contributions)
        }
        let document = try parser(for: fileExtension).parse(String(decoding: bytes, as: UTF8.self))
        return try MarkupImporter(mappings: mappings).makeState(document, registry: registry)
    }

    /// A document's markup document: parsed directly for markup files, exported for JSON.
    func loadDocument(_ path: String) throws -> MarkupDocument {
        let fileExtension = Self.fileExtension(path)
        if fileExtension == "json" || documentFormats.format(for: fileExtension) != nil {
            return try MarkupExporter(mappings: mappings).makeDocument(try loadState(path))
        }
        return try parser(for: fileExtension).parse(String(decoding: try InputFile.read(path), as: UTF8.self))
    }
}

/// `quire convert IN OUT`: markdown, HTML and Lexical JSON, chosen by the files' extensions.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert between Lexical JSON (.json), markdown (.md) and HTML (.html), by file extension; OUT - writes to standard output: markdown for JSON input, JSON otherwise."
    )

    @Argument(help: "The input file (.json, .md or .html).") var input: String
    @Argument(help: "The output file (.json, .md or .html), or - for standard output.") var output: String
    @OptionGroup var config: ConfigOptions

    func run() throws {
        let setup = try MarkupSetup(config)
        let state = try setup.loadState(input)
        let inputIsJSON = MarkupSetup.fileExtension(input) == "json"
        let outputExtension = output == "-" ? (inputIsJSON ? "md" : "json") : MarkupSetup.fileExtension(output)
        let bytes: [UInt8]
        if outputExtension == "json" {
            bytes = LexicalJSON.exportBytes(state, prettyPrinted: true) + [0x0A]
        } else {
            bytes = Array(try setup.write(state, as: outputExtension, source: input).utf8)
        }
        if output == "-" {
            FileHandle.standardOutput.write(Data(bytes))
        } else {
            try Data(bytes).write(to: URL(fileURLWithPath: output))
        }
    }
}
