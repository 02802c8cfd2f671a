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
        subcommands: [Render.self, Export.self, Check.self, Plugins.self, EditScriptCommand.self, CollabScript.self, TraceCommand.self, CRDTCommand.self, ConvertCommand.self, ShowCommand.self, EditCommand.self, ServeCommand.self, SyncCommand.self]
    )

    /// Runs the command; every failure is one line on standard error, `quire: <what> (<where>)`,
    /// with status 1, or 64 for a usage error (ArgumentParser's status for those).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            // Help is no failure (ArgumentParser wraps it, so its status says so), and an
            // ExitCode was already explained.
            if code == .success || error is ExitCode { exit(withError: error) }
            let message = Self.message(for: error).split(whereSeparator: \.isNewline).joined(separator: "; ")
            FileHandle.standardError.write(Data("quire: \(message)\n".utf8))
            Foundation.exit(code.rawValue)
        }
    }
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
        try checkReadable(path)
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ReadError(path: path, reason: reason(error))
        }
    }

    /// Refuses what Foundation would report as "NSCocoaErrorDomain error 256": a directory or
    /// a path that does not exist.
    static func checkReadable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw ReadError(path: path, reason: "no such file") }
        if isDirectory.boolValue { throw ReadError(path: path, reason: "it is a directory, not a file") }
    }

    /// The operating system's reason, without Foundation's domain and code.
    static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return "the file could not be read"
    }
}

/// A command's output: a file, created or emptied, or standard output for "-"; written in
/// pieces, so that a large output (a big document's Lexical JSON) need not be held whole.
struct OutputFile: ~Copyable {
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    let path: String
    private let descriptor: Int32

    /// Opens `path` for writing (mode 0644 when created), or standard output for "-".
    init(_ path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
        } else {
            let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard opened >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
            descriptor = opened
        }
    }

    /// Writes all of `bytes`, however many calls the system takes.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw WriteError(path: path, reason: String(cString: strerror(errno)))
            }
            offset += count
        }
    }

    /// Writes `bytes` whole.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes `state` as Lexical JSON and a line break, in pieces as the export writes them.
    func writeLexicalJSON(_ state: EditorState, prettyPrinted: Bool) throws {
        try LexicalJSON.export(state, prettyPrinted: prettyPrinted) { try write($0) }
        try write([0x0A])
    }

    /// Closes the file, reporting what the system could only report then (a full disk on a
    /// network file system, say).
    consuming func close() throws {
        guard descriptor != STDOUT_FILENO else { return }
        if Glibc.close(descriptor) != 0 { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
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
            try OutputFile("-").writeLexicalJSON(state, prettyPrinted: pretty)
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
