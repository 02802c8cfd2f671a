import ArgumentParser
import Foundation
import QuireBridge
import QuireCRDT
import QuireModel

/// `quire crdt …`: merge and convert CRDT updates and snapshots, Loro's (binary and JSON) and
/// Quire's own, and keep Lexical documents in the CRDT in the bridge's schema (QuireBridge's
/// `DocumentSchema`).
struct CRDTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crdt",
        abstract: "Merge and convert CRDT updates and snapshots (Loro's binary and JSON formats, Quire's binary).",
        subcommands: [Merge.self, Export.self, ImportLexical.self, ExportLexical.self, Render.self]
    )

    /// The formats the commands read and write.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// Loro's binary updates and snapshots (`ExportMode.Updates`, `Snapshot`, `ShallowSnapshot`).
        case loro
        /// Loro's JSON updates (`export_json_updates`); Quire's binary is read as well.
        case loroJSON = "loro-json"
        /// Quire's binary updates and snapshots.
        case quire
    }

    /// What a file's first bytes say it is.
    enum Kind: CustomStringConvertible {
        case loroBinary, quireBinary, json

        /// The format that reads this kind.
        var format: Format {
            switch self {
            case .loroBinary: return .loro
            case .quireBinary: return .quire
            case .json: return .loroJSON
            }
        }

        init(_ bytes: [UInt8]) {
            if bytes.starts(with: Array("loro".utf8)) { self = .loroBinary } else if bytes.first == 0xC7 { self = .quireBinary } else { self = .json }
        }

        var description: String {
            switch self {
            case .loroBinary: return "Loro binary updates or a Loro snapshot"
            case .quireBinary: return "Quire's binary updates or snapshot"
            case .json: return "text (Loro JSON updates?)"
            }
        }
    }

    /// A failure tied to the input it came from.
    struct InputError: Error, CustomStringConvertible {
        var file: String
        var reason: String
        var description: String { "\(file): \(reason)" }
    }

    /// Options shared by the subcommands that read updates.
    struct Inputs: ParsableArguments {
        @Option(help: "The format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")) (default: each file's format is recognized; export writes loro-json). Files of another kind are an error (loro-json also reads Quire's binary).")
        var format: Format?

        /// What export writes.
        var outputFormat: Format { format ?? .loroJSON }

        @Option(help: "The format of the input files when it differs from --format (export converts between formats).")
        var inputFormat: Format?

        @Option(help: "The peer ID (u64) of the merging document.")
        var peer: UInt64 = 1

        @Argument(help: "Update or snapshot files, imported in order; - for standard input.")
        var files: [String]

        /// Imports every file into one document; any changes still missing dependencies at the
        /// end are an error (they would be silently absent from the output).
        func merge() throws -> CRDTDocument {
            var doc = CRDTDocument(peer: peer)
            var pending: [IDSpan] = []
            for file in files {
                let bytes = try InputFile.read(file)
                let kind = Kind(bytes)
                let accepted: Bool
                let expected = inputFormat ?? format
                switch expected {
                case .loro: accepted = kind == .loroBinary
                case .quire: accepted = kind == .quireBinary
                case .loroJSON: accepted = kind != .loroBinary
                case nil: accepted = true
                }
                let hint = expected.map { $0 == kind.format ? "" : " (the file looks like \(kind.format.rawValue) updates)" } ?? ""
                guard accepted else {
                    let option = inputFormat == nil ? "--format" : "--input-format"
                    throw InputError(file: file, reason: "\(kind) is not what \(option) \(expected?.rawValue ?? "") reads" + hint)
                }
                do {
                    switch kind {
                    case .loroBinary: pending = try doc.importLoro(bytes).pending
                    case .quireBinary: pending = try doc.importUpdates(bytes).pending
                    case .json: pending = try doc.importJSONUpdates(LoroJSONUpdates(json: bytes)).pending
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

    /// `quire crdt merge [--format F] FILE...`
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import update or snapshot files in order and print the merged document's deep value as JSON.",
            discussion: """
            The deep value has the shape of Loro's get_deep_value(): each root container by name; \
            texts as strings, lists and movable lists as arrays, maps as objects, counters as numbers, \
            trees as arrays of nodes {id, parent, meta, index, fractional_index, children}.
            """
        )

        @OptionGroup var inputs: Inputs

        @Flag(help: "Indent the JSON.")
        var pretty = false

        func run() throws {
            print(try inputs.merge().deepValueJSON(prettyPrinted: pretty))
        }
    }

    /// `quire crdt export [--format F] FILE... [--from VERSION | --snapshot | --shallow-at FRONTIERS] [--output FILE]`
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge update files and write them as one document in the chosen format.",
            discussion: """
            loro-json writes Loro's JSON updates; loro writes Loro's binary updates, or with \
            --snapshot a Loro snapshot and with --shallow-at a Loro shallow snapshot; quire writes \
            Quire's binary updates, or with --snapshot Quire's snapshot. --from takes a version vector \
            as JSON, {"PEER": END, …} (END is one past the last counter known, Loro's convention); only \
            changes beyond it are written. --shallow-at takes frontiers as COUNTER@PEER,… . \
            --input-format reads files of another format, so `--input-format loro --format quire` \
            converts Loro's binary to Quire's.
            """
        )

        @OptionGroup var inputs: Inputs

        @Option(help: "Write only the changes beyond this version vector: {\"PEER\": END, …}.")
        var from: String?

        @Flag(help: "Write a snapshot (formats loro and quire).")
        var snapshot = false

        @Option(help: "Write a Loro shallow snapshot at these frontiers: COUNTER@PEER,… (format loro).")
        var shallowAt: String?

        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
        var output: String?

        @Flag(help: "Indent the JSON.")
        var pretty = false

        func validate() throws {
            if snapshot && inputs.outputFormat == .loroJSON { throw ValidationError("--snapshot needs --format loro or quire") }
            if shallowAt != nil && inputs.outputFormat != .loro { throw ValidationError("--shallow-at needs --format loro") }
            if snapshot && shallowAt != nil { throw ValidationError("--snapshot and --shallow-at exclude each other") }
            if (snapshot || shallowAt != nil) && from != nil { throw ValidationError("--from applies to updates only") }
        }

        func run() throws {
            let doc = try inputs.merge()
            let bytes: [UInt8]
            switch inputs.outputFormat {
            case .loroJSON:
                bytes = Array((doc.exportJSONUpdates(from: try Self.version(from)).jsonString(prettyPrinted: pretty) + "\n").utf8)
            case .loro:
                if snapshot {
                    bytes = doc.exportLoroSnapshot()
                } else if let shallowAt {
                    do { bytes = try doc.exportShallowSnapshot(at: try Self.frontiers(shallowAt)) } catch let error as VersionError {
                        throw ValidationError("--shallow-at: \(error)")
                    }
                } else {
                    bytes = doc.exportLoroUpdates(from: try Self.version(from))
                }
            case .quire:
                bytes = snapshot ? doc.exportSnapshot() : doc.exportUpdates(since: try Self.version(from))
            }
            try CRDTCommand.write(bytes, to: output)
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

        /// Parses `COUNTER@PEER,…`.
        static func frontiers(_ text: String) throws -> Frontiers {
            var ids: [OpID] = []
            for part in text.split(separator: ",") {
                let pieces = part.trimmingCharacters(in: .whitespaces).split(separator: "@")
                guard pieces.count == 2, let counter = OpCounter(pieces[0]), counter >= 0, let peer = PeerID(pieces[1]) else {
                    throw ValidationError("--shallow-at: \"\(part)\" is not COUNTER@PEER")
                }
                ids.append(OpID(peer: peer, counter: counter))
            }
            return Frontiers(ids)
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
            case .loro: try CRDTCommand.write(document.exportLoroUpdates(from: VersionVector()), to: output)
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
            try OutputFile("-").writeLexicalJSON(state, prettyPrinted: pretty)
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
