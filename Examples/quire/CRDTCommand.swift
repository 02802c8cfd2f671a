import ArgumentParser
import Foundation
import QuireBridge
import QuireCRDT
import QuireModel

/// `quire crdt …`: exchange documents with Loro through its JSON updates, and keep Lexical
/// documents in the CRDT in the bridge's schema (QuireBridge's `DocumentSchema`).
struct CRDTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crdt",
        abstract: "Merge and convert CRDT updates (Loro's JSON updates, Quire's binary updates).",
        subcommands: [Merge.self, Export.self, ImportLexical.self, ExportLexical.self, Render.self]
    )

    /// The update formats the commands read and write.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case loroJSON = "loro-json"
        /// Quire's binary updates or snapshot (QuireCRDT's `exportUpdates`, `exportSnapshot`).
        case quire
    }

    /// A failure tied to the input it came from.
    struct InputError: Error, CustomStringConvertible {
        var file: String
        var reason: String
        var description: String { "\(file): \(reason)" }
    }

    /// Options shared by the subcommands that read updates.
    struct Inputs: ParsableArguments {
        @Option(help: "The update format of the files: \(Format.allCases.map(\.rawValue).joined(separator: ", ")) (default: recognized per file).")
        var format: Format?

        @Option(help: "The peer ID (u64) of the merging document.")
        var peer: UInt64 = 1

        @Argument(help: "Update files, imported in order: Loro JSON updates, or Quire binary updates/snapshots; - for standard input.")
        var files: [String]

        /// Imports every file into one document; any changes still missing dependencies at the
        /// end are an error (they would be silently absent from the output).
        func merge() throws -> CRDTDocument {
            var doc = CRDTDocument(peer: peer)
            var pending: [IDSpan] = []
            for file in files {
                let bytes = try InputFile.read(file)
                // Quire's binary frames start with 0xC7, which no JSON text does.
                let recognized: Format = bytes.first == 0xC7 ? .quire : .loroJSON
                let hint = format.map { $0 == recognized ? "" : " (the file looks like \(recognized.rawValue) updates)" } ?? ""
                do {
                    switch format ?? recognized {
                    case .quire:
                        pending = try doc.importUpdates(bytes).pending
                    case .loroJSON:
                        pending = try doc.importJSONUpdates(LoroJSONUpdates(json: bytes)).pending
                    }
                } catch let error as LoroJSONError {
                    throw InputError(file: file, reason: error.description + hint)
                } catch let error as CRDTError {
                    throw InputError(file: file, reason: error.description + hint)
                }
            }
            if !pending.isEmpty {
                let spans = pending.map { "\($0.start)..<\($0.end)@\($0.peer)" }.joined(separator: ", ")
                throw InputError(file: files.joined(separator: " "), reason: "changes wait for missing dependencies: \(spans)")
            }
            return doc
        }
    }

    /// `quire crdt merge --format loro-json FILE...`
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import update files in order and print the merged document's deep value as JSON.",
            discussion: """
            The deep value has the shape of Loro's get_deep_value(): each root container by name; \
            texts as strings, lists as arrays, maps as objects, trees as arrays of nodes \
            {id, parent, meta, index, fractional_index, children}.
            """
        )

        @OptionGroup var inputs: Inputs

        @Flag(help: "Indent the JSON.")
        var pretty = false

        func run() throws {
            print(try inputs.merge().deepValueJSON(prettyPrinted: pretty))
        }
    }

    /// `quire crdt export --format loro-json FILE... [--from VERSION] [--output FILE]`
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge update files and write them as one Loro JSON updates document.",
            discussion: """
            --from takes a version vector as JSON, {"PEER": END, …} (END is one past the last counter \
            known, Loro's convention); only changes beyond it are written.
            """
        )

        @OptionGroup var inputs: Inputs

        @Option(help: "Write only the changes beyond this version vector: {\"PEER\": END, …}.")
        var from: String?

        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
        var output: String?

        @Flag(help: "Indent the JSON.")
        var pretty = false

        func run() throws {
            let doc = try inputs.merge()
            let json = doc.exportJSONUpdates(from: try Self.version(from)).jsonString(prettyPrinted: pretty)
            try CRDTCommand.write(Array((json + "\n").utf8), to: output)
        }

        /// Parses `{"PEER": END, …}`.
        static func version(_ text: String?) throws -> VersionVector {
            guard let text else { return VersionVector() }
            let value: CRDTValue
            do { value = try CRDTValue(json: text) } catch { throw ValidationError("--from: \(error)") }
            guard case .map(let entries) = value else { throw ValidationError("--from: expected an object {\"PEER\": END, …}") }
            var ends: [PeerID: OpCounter] = [:]
            for (key, end) in entries {
                guard let peer = PeerID(key), case .int(let n) = end, n >= 0, n <= Int64(OpCounter.max) else {
                    throw ValidationError("--from: \"\(key)\" must be a u64 peer with a counter end")
                }
                ends[peer] = OpCounter(n)
            }
            return VersionVector(ends)
        }
    }

    /// Writes `bytes` to `output`, or to standard output without one.
    static func write(_ bytes: [UInt8], to output: String?) throws {
        guard let output else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        do { try Data(bytes).write(to: URL(fileURLWithPath: output)) } catch {
            throw InputError(file: output, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    /// The Lexical document the merged updates hold: the projection of the bridge's schema.
    static func project(_ inputs: Inputs, config: ConfigOptions) throws -> EditorState {
        let registry = try config.load().registry
        let document = try inputs.merge()
        do { return try Projection.state(of: document, registry: registry) } catch {
            throw InputError(file: inputs.files.joined(separator: " "), reason: error.description)
        }
    }

    /// `quire crdt import-lexical DOC.json --format loro-json|quire [-o UPDATES]`
    struct ImportLexical: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-lexical",
            abstract: "Write a Lexical JSON document into a new CRDT document, in the bridge's schema, as updates.",
            discussion: """
            The schema (QuireBridge's DocumentSchema): a movable tree "blocks" with one node per block \
            (its map holds "type" and the block's Lexical fields), and one rich text "text" where every \
            text block's content follows its U+2029 marker, formats and links as marks. \
            `quire crdt export-lexical` and `quire crdt render` read it back.
            """
        )

        @Argument(help: "A Lexical JSON document, or - for standard input.")
        var file: String

        @Option(help: "The update format to write: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
        var format: Format = .loroJSON

        @Option(help: "The peer ID (u64) of the new document.")
        var peer: UInt64 = 1

        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
        var output: String?

        @Flag(help: "Indent the JSON (loro-json only).")
        var pretty = false

        @OptionGroup var config: ConfigOptions

        func run() throws {
            let registry = try config.load().registry
            let state: EditorState
            do { state = try LexicalJSON.importState(from: InputFile.read(file), registry: registry) } catch let error as InputFile.ReadError {
                throw error
            } catch {
                throw InputError(file: file, reason: "\(error)")
            }
            var document = CRDTDocument(peer: peer)
            do { try Projection.seed(&document, from: state) } catch {
                throw InputError(file: file, reason: error.description)
            }
            switch format {
            case .loroJSON: try CRDTCommand.write(Array((document.exportJSONUpdates().jsonString(prettyPrinted: pretty) + "\n").utf8), to: output)
            case .quire: try CRDTCommand.write(document.exportUpdates(), to: output)
            }
        }
    }

    /// `quire crdt export-lexical [--format …] UPDATES...`
    struct ExportLexical: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-lexical",
            abstract: "Merge update files holding a document in the bridge's schema and print it as Lexical JSON."
        )

        @OptionGroup var inputs: Inputs
        @OptionGroup var config: ConfigOptions

        @Flag(help: "Indent the JSON.")
        var pretty = false

        func run() throws {
            let state = try CRDTCommand.project(inputs, config: config)
            FileHandle.standardOutput.write(Data(LexicalJSON.exportBytes(state, prettyPrinted: pretty) + [0x0A]))
        }
    }

    /// `quire crdt render [--format …] UPDATES...`
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge update files holding a document in the bridge's schema and print the flat string a text view shows."
        )

        @OptionGroup var inputs: Inputs
        @OptionGroup var config: ConfigOptions

        func run() throws {
            print(FlatString.render(try CRDTCommand.project(inputs, config: config)))
        }
    }
}
