import Foundation
import QuireJSON
import Testing

/// Runs the built `quire` executable, as a user would.
struct QuireProcess {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var executable: URL {
        // A measurement may run another build's executable (a release build's latency).
        if let path = ProcessInfo.processInfo.environment["QUIRE_EXECUTABLE"], !path.isEmpty { return URL(fileURLWithPath: path) }
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
        try run(arguments, stdinBytes: stdin.map { Array($0.utf8) }, in: directory)
    }

    static func run(_ arguments: [String], stdinBytes stdin: [UInt8]?, in directory: URL = repositoryRoot) throws -> Result {
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
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
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
        let exported = try JSONParser.parse(result.stdout)
        let original = try JSONParser.parse(source)
        #expect(exported.objectValue != nil && exported == original)
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

@Suite struct EditScriptCLITests {
    func run(_ steps: [String], document: String? = nil) throws -> (QuireProcess.Result, JSONObject?) {
        var arguments = ["edit-script", "-"]
        if let document { arguments += ["--document", document] }
        let result = try QuireProcess.run(arguments, stdin: steps.joined(separator: "\n") + "\n")
        // A failed run prints nothing on standard output; its status and stderr are what the tests check.
        guard result.status == 0 else { return (result, nil) }
        return (result, try JSONParser.parse(result.stdout).objectValue)
    }

    @Test func typingScenario() throws {
        let (result, output) = try run([
            #"{"op":"type","text":"1"}"#, #"{"op":"type","text":"\n"}"#,
            #"{"op":"type","text":"Hello World! Welcome to Lexical iOS!"}"#,
            #"{"op":"select","start":17,"end":17}"#, #"{"op":"type","text":"T"}"#,
        ])
        #expect(result.status == 0)
        #expect(output?["text"]?.stringValue == "1\nHello World! WeTlcome to Lexical iOS!")
        #expect(output?["selection"]?.arrayValue?.map(\.intValue) == [18, 18])
        #expect(output?["state"]?.objectValue?["root"] != nil)
    }

    @Test func deletingAcrossParagraphsAndUndo() throws {
        let (result, output) = try run([
            #"{"op":"type","text":"Hello world"}"#, #"{"op":"type","text":"\n"}"#, #"{"op":"type","text":"here's para 2"}"#,
            #"{"op":"select","start":5,"end":14}"#, #"{"op":"backspace"}"#,
        ])
        #expect(result.status == 0)
        #expect(output?["text"]?.stringValue == "Hellore's para 2")
        let (_, undone) = try run([
            #"{"op":"type","text":"Hello"}"#, #"{"op":"select","start":0,"end":5}"#, #"{"op":"format","format":"bold"}"#,
            #"{"op":"undo"}"#, #"{"op":"redo"}"#, #"{"op":"command","name":"insertLineBreak","payload":false}"#,
        ])
        #expect(undone?["text"]?.stringValue == "\n")
    }

    @Test func pluginCommandsByName() throws {
        let (result, output) = try run([
            #"{"op":"type","text":"Title\nfirst\nsecond"}"#,
            #"{"op":"select","start":6,"end":12}"#, #"{"op":"command","name":"insertList","payload":"number"}"#,
            #"{"op":"select","start":0,"end":0}"#, #"{"op":"command","name":"setHeading","payload":"h2"}"#,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(output?["text"]?.stringValue == "Title\nfirst\nsecond")
        let children = output?["state"]?.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.compactMap(\.objectValue)
        #expect(children?.map { $0["type"]?.stringValue } == ["heading", "list"])
        #expect(children?.first?["tag"]?.stringValue == "h2")
        let items = children?.last?["children"]?.arrayValue?.compactMap(\.objectValue)
        #expect(items?.map { $0["value"]?.intValue } == [1, 2])

        let (rejected, _) = try run([#"{"op":"command","name":"insertList","payload":"zigzag"}"#])
        #expect(rejected.status != 0)
        #expect(rejected.stderr.contains("line 1") && rejected.stderr.contains("list.insert"), "the canonical name, whichever was used")

        // The canonical names do the same as the old ones above.
        let (canonical, same) = try run([
            #"{"op":"type","text":"Title\nfirst\nsecond"}"#,
            #"{"op":"select","start":6,"end":12}"#, #"{"op":"command","name":"list.insert","payload":"number"}"#,
            #"{"op":"select","start":0,"end":0}"#, #"{"op":"command","name":"heading.set","payload":"h2"}"#,
            #"{"op":"command","name":"editor.undo"}"#, #"{"op":"command","name":"editor.redo"}"#,
        ])
        #expect(canonical.status == 0, "\(canonical.stderr)")
        let sameChildren = same?["state"]?.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.compactMap(\.objectValue)
        #expect(sameChildren?.map { $0["type"]?.stringValue } == ["heading", "list"])
    }

    @Test func transactionsListWhatEachCommitDid() throws {
        let steps = [#"{"op":"type","text":"Hi"}"#, #"{"op":"select","start":0,"end":2}"#, #"{"op":"format","format":"bold"}"#, #"{"op":"undo"}"#]
        let result = try QuireProcess.run(["edit-script", "-", "--transactions"], stdin: steps.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let transactions = try #require(output["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["origin"] as? String } == ["local", "local", "local", "undo"])
        #expect(transactions.map { $0["tag"] as? String } == ["typing", nil, nil, nil])
        let kinds = transactions.map { ($0["operations"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String } }
        #expect(kinds[0] == ["createNode", "insertNode", "select"])
        #expect(kinds[1] == ["select"])
        #expect(kinds[2].contains("setFormat"))
        #expect(kinds[3].contains("setFormat"))
        let insert = try #require((transactions[0]["operations"] as? [[String: Any]])?[1])
        #expect(insert["index"] as? Int == 0)
        // Without the flag, no transactions.
        let (_, plain) = try run(steps)
        #expect(plain?["transactions"] == nil)
    }

    @Test func compositionThroughTheScript() throws {
        let (result, output) = try run([
            #"{"op":"mark","text":"ㄱ","selStart":1,"selEnd":1}"#, #"{"op":"mark","text":"가","selStart":1,"selEnd":1}"#,
            #"{"op":"mark","text":"각","selStart":1,"selEnd":1}"#, #"{"op":"unmark"}"#,
        ])
        #expect(result.status == 0)
        #expect(output?["text"]?.stringValue == "각")
        #expect(output?["selection"]?.arrayValue?.map(\.intValue) == [1, 1])
    }

    @Test func aBadStepNamesItsLine() throws {
        let (result, _) = try run([#"{"op":"type","text":"ab"}"#, #"{"op":"replace","start":5,"end":9,"text":"x"}"#])
        #expect(result.status != 0)
        #expect(result.stderr.contains("line 2:"))
        let (unknown, _) = try run([#"{"op":"fly"}"#])
        #expect(unknown.stderr.contains("line 1: unknown op \"fly\""))
        let (command, _) = try run([#"{"op":"command","name":"nobodyHandlesThis"}"#])
        #expect(command.stderr.contains("no listener handled command \"nobodyHandlesThis\""))
    }

    @Test func startsFromADocument() throws {
        let (result, output) = try run([#"{"op":"select","start":5,"end":5}"#, #"{"op":"type","text":"!"}"#], document: "Examples/documents/sample.json")
        #expect(result.status == 0)
        #expect(output?["text"]?.stringValue?.hasPrefix("Quire!\nhello world") == true)
    }
}
