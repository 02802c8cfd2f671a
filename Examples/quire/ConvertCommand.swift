import ArgumentParser
import Foundation
import QuireMarkdown
import QuireMarkup
import QuireModel

/// The configured markup formats and node mappings, from the same configuration as the registry.
struct MarkupSetup {
    let registry: NodeRegistry
    let formats: MarkupFormats
    let mappings: MarkupMappings

    init(_ config: ConfigOptions) throws {
        let loaded = try config.load()
        let contributions = loaded.configuration.plugins.contributions
        registry = loaded.registry
        formats = MarkupFormats(contributions: contributions)
        mappings = MarkupMappings(contributions: contributions)
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
        let document = try formats.parser(for: fileExtension).parse(String(decoding: bytes, as: UTF8.self))
        return try MarkupImporter(mappings: mappings).makeState(document, registry: registry)
    }

    /// A document's markup document: parsed directly for markup files, exported for JSON.
    func loadDocument(_ path: String) throws -> MarkupDocument {
        let fileExtension = Self.fileExtension(path)
        if fileExtension == "json" { return try MarkupExporter(mappings: mappings).makeDocument(try loadState(path)) }
        return try formats.parser(for: fileExtension).parse(String(decoding: try InputFile.read(path), as: UTF8.self))
    }
}

/// `quire convert IN OUT`: markdown ↔ Lexical JSON, chosen by the files' extensions.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert between Lexical JSON (.json) and markup (.md), by file extension; OUT - writes to standard output with IN's opposite format."
    )

    @Argument(help: "The input file (.json or .md).") var input: String
    @Argument(help: "The output file (.json or .md), or - for standard output.") var output: String
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
            let dropped = MarkupExporter.droppedFormats(in: state)
            if !dropped.isEmpty {
                FileHandle.standardError.write(Data("warning: \(input): text formats markup cannot express are not written (format bits \(dropped.rawValue))\n".utf8))
            }
            let document = try MarkupExporter(mappings: setup.mappings).makeDocument(state)
            bytes = Array(try setup.formats.serializer(for: outputExtension).serialize(document).utf8)
        }
        if output == "-" {
            FileHandle.standardOutput.write(Data(bytes))
        } else {
            try Data(bytes).write(to: URL(fileURLWithPath: output))
        }
    }
}
