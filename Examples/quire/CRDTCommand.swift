import ArgumentParser
import Foundation
import QuireCRDT

/// `quire crdt …`: merge and convert CRDT updates and snapshots, Loro's (binary and JSON) and
/// Quire's own.
struct CRDTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crdt",
        abstract: "Merge and convert CRDT updates and snapshots (Loro's binary and JSON formats, Quire's binary).",
        subcommands: [Merge.self, Export.self]
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

    /// Options shared by both subcommands.
    struct Inputs: ParsableArguments {
        @Option(help: "The format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")). Files of another kind are an error (loro-json also reads Quire's binary).")
        var format: Format = .loroJSON

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
                }
                guard accepted else { throw InputError(file: file, reason: "\(kind) is not what \(inputFormat == nil ? "--format" : "--input-format") \(expected.rawValue) reads") }
                do {
                    switch kind {
                    case .loroBinary: pending = try doc.importLoro(bytes).pending
                    case .quireBinary: pending = try doc.importUpdates(bytes).pending
                    case .json: pending = try doc.importJSONUpdates(LoroJSONUpdates(json: bytes)).pending
                    }
                } catch let error as LoroJSONError {
                    throw InputError(file: file, reason: error.description)
                } catch let error as CRDTError {
                    throw InputError(file: file, reason: error.description)
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
            if snapshot && inputs.format == .loroJSON { throw ValidationError("--snapshot needs --format loro or quire") }
            if shallowAt != nil && inputs.format != .loro { throw ValidationError("--shallow-at needs --format loro") }
            if snapshot && shallowAt != nil { throw ValidationError("--snapshot and --shallow-at exclude each other") }
            if (snapshot || shallowAt != nil) && from != nil { throw ValidationError("--from applies to updates only") }
        }

        func run() throws {
            let doc = try inputs.merge()
            let bytes: [UInt8]
            switch inputs.format {
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
            if let output {
                do { try Data(bytes).write(to: URL(fileURLWithPath: output)) } catch {
                    throw InputError(file: output, reason: "cannot write: \(error.localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(Data(bytes))
            }
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
}
