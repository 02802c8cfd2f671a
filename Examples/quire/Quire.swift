import ArgumentParser
import Foundation
import QuireCatalog
import QuireConfig
import QuireModel

@main
struct Quire: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Quire's example command line: render, convert and check Lexical documents.",
        subcommands: [Render.self, Export.self, Check.self, Plugins.self, EditScript.self, CollabScript.self, TraceCommand.self, CRDTCommand.self, ConvertCommand.self, ShowCommand.self, EditCommand.self, ServeCommand.self, SyncCommand.self]
    )
}

/// Options every subcommand that reads a document takes.
struct DocumentOptions: ParsableArguments {
    @Argument(help: "A Lexical JSON document, or - for standard input.")
    var file: String

    @OptionGroup var config: ConfigOptions

    /// Reads and imports the document with the configured registry.
    func loadState() throws -> EditorState {
        let registry = try config.load().registry
        let bytes = try InputFile.read(file)
        return try LexicalJSON.importState(from: bytes, registry: registry)
    }
}

/// `--config FILE`, defaulting to ./config.yaml when present and to the built-in defaults otherwise.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "The configuration file (default: ./config.yaml if present, else every built-in plugin with its defaults).")
    var config: String?

    struct Loaded {
        var source: String
        var configuration: Configuration
        var registry: NodeRegistry
    }

    func load() throws -> Loaded {
        let catalog = BuiltInPlugins.catalog
        let configuration: Configuration
        let source: String
        if let config {
            source = config
            configuration = try config == "-"
                ? Configuration.load(yaml: String(decoding: InputFile.read("-"), as: UTF8.self), catalog: catalog)
                : Configuration.load(contentsOf: config, catalog: catalog)
        } else if FileManager.default.fileExists(atPath: "config.yaml") {
            source = "config.yaml"
            configuration = try Configuration.load(contentsOf: "config.yaml", catalog: catalog)
        } else {
            source = "built-in defaults"
            configuration = try Configuration.load(yaml: Self.defaultYAML, catalog: catalog)
        }
        for warning in configuration.warnings {
            FileHandle.standardError.write(Data("warning: \(source): \(warning)\n".utf8))
        }
        return Loaded(source: source, configuration: configuration, registry: try configuration.makeRegistry())
    }

    /// Every built-in plugin with its defaults.
    static var defaultYAML: String {
        BuiltInPlugins.allPluginsYAML
    }
}

enum InputFile {
    struct ReadError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot read \(path): \(reason)" }
    }

    /// The bytes of `path`, or of standard input for "-".
    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ReadError(path: path, reason: error.localizedDescription)
        }
    }
}

extension Quire {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the flat string a text view shows for a document.")
        @OptionGroup var document: DocumentOptions

        func run() throws {
            print(FlatString.render(try document.loadState()))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-export a document as Lexical JSON.")
        @OptionGroup var document: DocumentOptions
        @Flag(help: "Indent the output.") var pretty = false

        func run() throws {
            let state = try document.loadState()
            FileHandle.standardOutput.write(Data(LexicalJSON.exportBytes(state, prettyPrinted: pretty) + [0x0A]))
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a document; exit non-zero with the error (and its JSON path) when it is invalid."
        )
        @OptionGroup var document: DocumentOptions

        func run() throws {
            let state = try document.loadState()
            let unknown = Set(state.allAttachedNodes.filter(\.isUnknown).map(\.type.rawValue)).sorted()
            var summary = "ok: \(state.allAttachedNodes.count) nodes, \(FlatString.render(state).utf16.count) UTF-16 units"
            if !unknown.isEmpty { summary += "; kept as unknown nodes: " + unknown.joined(separator: ", ") }
            print(summary)
        }
    }

    struct Plugins: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the plugins the configuration selects and the options in force.")
        @OptionGroup var config: ConfigOptions

        func run() throws {
            let loaded = try config.load()
            print("configuration: \(loaded.source) (version \(loaded.configuration.version))")
            print("core node types: " + NodeRegistry.coreTypes.map(\.type.rawValue).joined(separator: ", "))
            if loaded.configuration.plugins.isEmpty { print("no plugins selected") }
            for (priority, plugin) in loaded.configuration.plugins.enumerated() {
                let types = plugin.nodePlugins.map(\.type.rawValue).joined(separator: ", ")
                print("\(priority + 1). \(plugin.name)" + (types.isEmpty ? "" : " — node types: \(types)"))
                for setting in plugin.settings { print("     \(setting.key): \(setting.value.flowText)") }
            }
            let unselected = BuiltInPlugins.catalog.names.filter { name in !loaded.configuration.plugins.contains { $0.name == name } }
            if !unselected.isEmpty { print("available but not selected: " + unselected.joined(separator: ", ")) }
        }
    }
}

extension EditorState {
    /// Every node reachable from the root, the root included, in document order.
    var allAttachedNodes: [Node] {
        var result: [Node] = []
        var pending = [root]
        while let node = pending.popLast() {
            result.append(node)
            pending.append(contentsOf: children(of: node.key).reversed())
        }
        return result
    }
}
