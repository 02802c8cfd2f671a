import Foundation
import QuireJSON
import Testing

/// `quire crdt merge` and `quire crdt export` with Loro's binary formats and Quire's own.
@Suite struct CRDTBinaryCommandTests {
    static let directory = "Tests/Fixtures/loro-binary/"
    static let inputs = ["sample-updates.bin", "sample-snapshot.bin"].map { directory + $0 }

    /// The deep value Loro read back from the binary fixtures (written by Tests/Interop/make_fixtures.py).
    static func expectedDeep() throws -> JSONValue? {
        let url = QuireProcess.repositoryRoot.appendingPathComponent(directory + "sample-expected.json")
        return try JSONParser.parse(Data(contentsOf: url)).objectValue?["deep"]
    }

    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("quire-crdt-\(UUID().uuidString).bin")
    }

    /// Loro's updates, its snapshot and its shallow snapshot all merge to the deep value Loro read.
    @Test(arguments: ["sample-updates.bin", "sample-snapshot.bin", "sample-shallow.bin"])
    func mergeReadsLoroBinary(file: String) throws {
        let result = try QuireProcess.run(["crdt", "merge", "--format", "loro", Self.directory + file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CRDTCommandTests.json(result.stdout) == Self.expectedDeep())
    }

    /// Each output kind, written to a file, starts with its format's header and merges back to
    /// the same document. The fixture's frontiers are 47@7 and 8@42.
    @Test(arguments: [
        (["--format", "loro"], "loro"), (["--format", "loro", "--snapshot"], "loro"),
        (["--format", "loro", "--shallow-at", "47@7,8@42"], "loro"), (["--format", "loro", "--shallow-at", "20@7"], "loro"),
        (["--input-format", "loro", "--format", "quire"], "quire"), (["--input-format", "loro", "--format", "quire", "--snapshot"], "quire"),
    ])
    func exportThenMergeKeepsTheDocument(options: [String], format: String) throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let exported = try QuireProcess.run(["crdt", "export"] + Self.inputs + options + ["-o", file.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.isEmpty)
        let bytes = try [UInt8](Data(contentsOf: file))
        #expect(format == "loro" ? bytes.starts(with: Array("loro".utf8)) : bytes.first == 0xC7)
        let merged = try QuireProcess.run(["crdt", "merge", "--format", format, file.path])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try CRDTCommandTests.json(merged.stdout) == Self.expectedDeep())
    }

    /// Loro's binary converts to Loro's JSON updates and back.
    @Test func convertsBetweenLoroBinaryAndJSON() throws {
        let json = Self.temporaryFile(), binary = Self.temporaryFile()
        defer { for file in [json, binary] { try? FileManager.default.removeItem(at: file) } }
        let toJSON = try QuireProcess.run(["crdt", "export", "--input-format", "loro", "--format", "loro-json"] + Self.inputs + ["-o", json.path])
        #expect(toJSON.status == 0, "\(toJSON.stderr)")
        let toBinary = try QuireProcess.run(["crdt", "export", "--input-format", "loro-json", "--format", "loro", json.path, "-o", binary.path])
        #expect(toBinary.status == 0, "\(toBinary.stderr)")
        let merged = try QuireProcess.run(["crdt", "merge", "--format", "loro", binary.path])
        #expect(try CRDTCommandTests.json(merged.stdout) == Self.expectedDeep())
    }

    @Test func wrongKindsAndBadOptionsAreClearErrors() throws {
        let json = try QuireProcess.run(["crdt", "merge", "--format", "loro", CRDTCommandTests.fixture])
        #expect(json.status != 0)
        #expect(json.stderr.contains("\(CRDTCommandTests.fixture): text (Loro JSON updates?) is not what --format loro reads"))
        let binary = try QuireProcess.run(["crdt", "merge", "--format", "loro-json", Self.inputs[0]])
        #expect(binary.status != 0)
        #expect(binary.stderr.contains("Loro binary updates or a Loro snapshot is not what --format loro-json reads (the file looks like loro updates)"))
        // Without --format, each file's kind is recognized.
        let recognized = try QuireProcess.run(["crdt", "merge", Self.inputs[0]])
        #expect(recognized.status == 0, "\(recognized.stderr)")
        #expect(try CRDTCommandTests.json(recognized.stdout) == Self.expectedDeep())
        let quire = try QuireProcess.run(["crdt", "merge", "--format", "quire", Self.inputs[0]])
        #expect(quire.status != 0)
        #expect(quire.stderr.contains("is not what --format quire reads"))
        let snapshotJSON = try QuireProcess.run(["crdt", "export", "--snapshot", CRDTCommandTests.fixture])
        #expect(snapshotJSON.status != 0)
        #expect(snapshotJSON.stderr.contains("--snapshot needs --format loro or quire"))
        let frontiers = try QuireProcess.run(["crdt", "export", "--format", "loro", "--shallow-at", "7", Self.inputs[0]])
        #expect(frontiers.status != 0)
        #expect(frontiers.stderr.contains("\"7\" is not COUNTER@PEER"))
        let unknown = try QuireProcess.run(["crdt", "export", "--format", "loro", "--shallow-at", "500@7", Self.inputs[0]])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("--shallow-at"))
    }

    /// A truncated Loro file names where it broke.
    @Test func truncatedInputNamesTheByteOffset() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let bytes = try Data(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent(Self.inputs[0]))
        try bytes.prefix(bytes.count / 2).write(to: file)
        let result = try QuireProcess.run(["crdt", "merge", "--format", "loro", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains(file.path + ":"))
        #expect(result.stderr.contains("checksum mismatch at offset 16"))
    }

    /// The real Loro imports the binary updates, snapshot and shallow snapshot `quire crdt export` wrote.
    @Test(.enabled(if: CRDTCommandTests.loroPython != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test does)"),
          arguments: [[String](), ["--snapshot"], ["--shallow-at", "30@7"]])
    func loroReadsWhatExportWrote(options: [String]) throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let exported = try QuireProcess.run(["crdt", "export", "--format", "loro", "--peer", "99"] + Self.inputs + options + ["-o", file.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        let loro = try CRDTCommandTests.loroDeepValue(load: #"doc.import_(open(sys.argv[1], "rb").read())"#, arguments: [file.path])
        #expect(loro == (try Self.expectedDeep()))
    }
}
