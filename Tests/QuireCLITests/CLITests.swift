import Foundation
import Testing

/// Runs the built `quire` executable, as a user would.
struct QuireProcess {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var executable: URL {
        // The test bundle and the executable are built into the same products directory.
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [products, products.deletingLastPathComponent()].map { $0.appendingPathComponent("quire") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], stdin: String? = nil, in directory: URL = repositoryRoot) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = output.fileHandleForReading.readDataToEndOfFile()
        let stderrData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

@Suite struct CLITests {
    let sample = "Examples/documents/sample.json"

    @Test func renderPrintsTheFlatString() throws {
        let result = try QuireProcess.run(["render", sample])
        #expect(result.status == 0)
        #expect(result.stdout == "Quire\nhello world\nParagraph 2 contains another text node\n\nA quote, then a line\nbreak and a\ttab.\nThird para.\n")
    }

    @Test func exportReadsStandardInputAndRoundTrips() throws {
        let source = try String(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent(sample), encoding: .utf8)
        let result = try QuireProcess.run(["export", "-"], stdin: source)
        #expect(result.status == 0)
        let exported = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? NSDictionary
        let original = try JSONSerialization.jsonObject(with: Data(source.utf8)) as? NSDictionary
        #expect(exported != nil && exported == original)
    }

    @Test func checkReportsErrorsWithTheirPath() throws {
        let ok = try QuireProcess.run(["check", sample])
        #expect(ok.status == 0)
        #expect(ok.stdout.hasPrefix("ok: "))
        let bad = try QuireProcess.run(["check", "-"], stdin: #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":5}]}]}}"#)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("$.root.children[0].children[0].text: expected string, found integer"))
        let missing = try QuireProcess.run(["check", "/nonexistent.json"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read /nonexistent.json"))
    }

    @Test func pluginsListsTheConfigurationInForce() throws {
        let result = try QuireProcess.run(["plugins"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("configuration: config.yaml (version 1)"))
        #expect(result.stdout.contains("1. heading — node types: heading\n     maxLevel: 6"))
        #expect(result.stdout.contains("2. quote — node types: quote"))
    }

    @Test func configFromFileAndItsErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.yaml")
        try "version: 1\nplugins:\n  - quote\n  - heading: {maxLevel: 2, colour: red}\n".write(to: good, atomically: true, encoding: .utf8)
        let listed = try QuireProcess.run(["plugins", "--config", good.path])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("1. quote") && listed.stdout.contains("maxLevel: 2"))
        #expect(listed.stderr.contains("plugins[1].heading.colour: unknown option, ignored"))

        let bad = directory.appendingPathComponent("bad.yaml")
        try "version: 1\nplugins:\n  - headng\n".write(to: bad, atomically: true, encoding: .utf8)
        let refused = try QuireProcess.run(["render", sample, "--config", bad.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("unknown plugin \"headng\"; available: heading, quote"))

        // With maxLevel 2, the sample's h1 still imports; an h3 does not.
        let h3 = #"{"root":{"type":"root","children":[{"type":"heading","tag":"h3","children":[]}]}}"#
        let rejected = try QuireProcess.run(["check", "-", "--config", good.path], stdin: h3)
        #expect(rejected.status != 0)
        #expect(rejected.stderr.contains("$.root.children[0].tag"))
    }

    @Test func withoutAConfigFileTheBuiltInDefaultsApply() throws {
        let result = try QuireProcess.run(["plugins"], in: FileManager.default.temporaryDirectory)
        #expect(result.status == 0)
        #expect(result.stdout.contains("configuration: built-in defaults"))
    }
}
