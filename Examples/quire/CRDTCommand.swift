import ArgumentParser
import Foundation
import QuireCRDT

/// `quire crdt …`: exchange documents with Loro through its JSON updates.
struct CRDTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crdt",
        abstract: "Merge and convert CRDT updates (Loro's JSON updates, Quire's binary updates).",
        subcommands: [Merge.self, Export.self]
    )

    /// The update formats the commands read and write.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case loroJSON = "loro-json"
    }

    /// A failure tied to the input it came from.
    struct InputError: Error, CustomStringConvertible {
        var file: String
        var reason: String
        var description: String { "\(file): \(reason)" }
    }

    /// Options shared by both subcommands.
    struct Inputs: ParsableArguments {
        @Option(help: "The update format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
        var format: Format = .loroJSON

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
                do {
                    // Quire's binary frames start with 0xC7, which no JSON text does.
                    if bytes.first == 0xC7 {
                        pending = try doc.importUpdates(bytes).pending
                    } else {
                        pending = try doc.importJSONUpdates(LoroJSONUpdates(json: bytes)).pending
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
            if let output {
                do { try Data((json + "\n").utf8).write(to: URL(fileURLWithPath: output)) } catch {
                    throw InputError(file: output, reason: "cannot write: \(error.localizedDescription)")
                }
            } else {
                print(json)
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
    }
}
