import Foundation
import QuireJSON
import Testing

/// `quire crdt merge` and `quire crdt export` with Loro's JSON updates.
@Suite struct CRDTCommandTests {
    static let fixture = "Tests/Fixtures/loro-json/sample-updates.json"

    static func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(text)
    }

    /// The deep value Loro read back from the fixture (written by Tests/Interop/make_fixtures.py).
    static func expectedDeep() throws -> JSONValue? {
        let url = QuireProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/loro-json/sample-expected.json")
        return try JSONParser.parse(Data(contentsOf: url)).objectValue?["deep"]
    }

    @Test func mergePrintsTheDeepValueLoroReads() throws {
        let result = try QuireProcess.run(["crdt", "merge", "--format", "loro-json", Self.fixture])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.json(result.stdout) == Self.expectedDeep())
    }

    @Test func exportMergesInputsIntoOneUpdatesDocument() throws {
        let exported = try QuireProcess.run(["crdt", "export", "--format", "loro-json", Self.fixture, Self.fixture])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.hasPrefix(#"{"schema_version":1,"#))
        // Merging what export wrote gives the same document.
        let merged = try QuireProcess.run(["crdt", "merge", "-"], stdin: exported.stdout)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Self.json(merged.stdout) == Self.expectedDeep())
        // Nothing beyond the full version; --output writes a file.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("quire-crdt-export-\(UUID().uuidString).json")
        let empty = try QuireProcess.run(["crdt", "export", Self.fixture, "--from", #"{"7": 1000, "42": 1000}"#, "--output", file.path])
        #expect(empty.status == 0, "\(empty.stderr)")
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(written.contains(#""changes":[]"#))
        try FileManager.default.removeItem(at: file)
    }

    @Test func errorsNameTheFileAndWhere() throws {
        let broken = try QuireProcess.run(["crdt", "merge", "--format", "loro-json", "-"], stdin: "{\"schema_version\": 1,\n \"changes\": [}")
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("-: JSON syntax error at line 2, column 14"))
        let version = try QuireProcess.run(["crdt", "merge", "-"], stdin: #"{"schema_version":3,"changes":[]}"#)
        #expect(version.status != 0)
        #expect(version.stderr.contains("unsupported schema version 3"))
        let missing = try QuireProcess.run(["crdt", "export", "/nonexistent.json"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read /nonexistent.json"))
        let format = try QuireProcess.run(["crdt", "merge", "--format", "yjs", Self.fixture])
        #expect(format.status != 0)
    }

    static var loroPython: String? {
        guard let path = ProcessInfo.processInfo.environment["QUIRE_LORO_PYTHON"], FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return path
    }

    /// Runs a Python script with loro (`QUIRE_LORO_PYTHON`) with `arguments`, on `stdin`.
    static func runLoroPython(_ script: String, arguments: [String] = [], stdin: String? = nil) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(loroPython))
        process.arguments = ["-c", script] + arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The deep value of a real Loro document after the Python statement `load` (which reads
    /// `sys.argv[1]` or standard input), as JSON objects.
    static func loroDeepValue(load: String, arguments: [String] = [], stdin: String? = nil) throws -> JSONValue {
        let script = """
        import json, sys, loro
        doc = loro.LoroDoc()
        \(load)
        def plain(v):
            if isinstance(v, (bytes, bytearray)): return list(v)
            if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list): return [plain(x) for x in v]
            return v
        print(json.dumps(plain(doc.get_deep_value())))
        """
        let result = try runLoroPython(script, arguments: arguments, stdin: stdin)
        #expect(result.status == 0)
        return try json(result.stdout)
    }

    /// A real Loro document imports what `quire crdt export` wrote and holds what `quire crdt merge` prints.
    @Test(.enabled(if: loroPython != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test does)"))
    func loroReadsWhatExportWrote() throws {
        let exported = try QuireProcess.run(["crdt", "export", "--format", "loro-json", Self.fixture, "--peer", "99"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let loro = try Self.loroDeepValue(load: "doc.import_json_updates(sys.stdin.read())", stdin: exported.stdout)
        let merged = try QuireProcess.run(["crdt", "merge", Self.fixture])
        #expect(try loro == Self.json(merged.stdout))
        #expect(try Self.json(merged.stdout) == Self.expectedDeep())
    }
}
