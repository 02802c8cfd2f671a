import Foundation
import Testing

/// Issue 20: every subcommand reads `-` as standard input, and every failure is one line on
/// standard error, `quire: <what> (<where>)`, with status 1 (64 for a usage error), never an
/// NSError dump, an enum value or a backtrace.
@Suite struct ErrorPathTests {
    static let document = #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":"hi"}]}]}}"#

    @Test(arguments: [
        (["render", "-"], document), (["export", "-"], document), (["check", "-"], document), (["show", "-", "--plain"], document),
        (["show", "-", "--plain"], "# Title\n"), (["convert", "-", "-"], document), (["convert", "-", "-"], "<p>hi</p>"),
        (["plugins", "--config", "-"], "version: 1\nplugins: [heading]\n"),
        (["edit-script", "-"], #"{"op":"type","text":"a"}"# + "\n"), (["collab-script", "-"], #"{"peer":"A","op":"type","text":"a"}"# + "\n"),
        (["trace", "replay", "-"], #"{"startContent":"","endContent":"a","txns":[{"patches":[[0,0,"a"]]}]}"#),
        (["crdt", "import-lexical", "-"], document),
    ])
    func everySubcommandReadsStandardInput(arguments: [String], input: String) throws {
        let result = try QuireProcess.run(arguments, stdin: input)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(!result.stdout.isEmpty)
    }

    /// The CRDT commands read updates from standard input too.
    @Test(arguments: ["merge", "export-lexical", "render"])
    func crdtCommandsReadUpdatesFromStandardInput(command: String) throws {
        let updates = try QuireProcess.run(["crdt", "import-lexical", "-"], stdin: Self.document)
        #expect(updates.status == 0)
        let result = try QuireProcess.run(["crdt", command, "-"], stdinBytes: Array(updates.stdout.utf8))
        #expect(result.status == 0, "\(result.stderr)")
    }

    static let directory = FileManager.default.temporaryDirectory.path

    @Test(arguments: [
        (["render", "/nonexistent.json"], "", "quire: cannot read /nonexistent.json: no such file", 1),
        (["check", directory], "", "quire: cannot read \(directory): it is a directory, not a file", 1),
        (["show", directory], "", "quire: cannot read \(directory): it is a directory, not a file", 1),
        (["convert", directory, "-"], "", "quire: cannot read \(directory): it is a directory, not a file", 1),
        (["edit-script", directory], "", "quire: cannot read \(directory): it is a directory, not a file", 1),
        (["trace", "replay", directory], "", "quire: cannot read \(directory): it is a directory, not a file", 1),
        (["trace", "replay", directory + "/missing.json.gz"], "", "quire: cannot read \(directory)/missing.json.gz: no such file", 1),
        (["export", "-"], "{", "quire: JSON error at line 1, column 2 (byte 1)", 1),
        (["plugins", "--config", "-"], "version: \"1\"\n", #"quire: line 1, column 10: unsupported configuration version "1" (a string, not a number)"#, 1),
        (["edit-script", "-"], #"{"op":"frob"}"#, #"quire: line 1: unknown op "frob""#, 1),
        (["collab-script", "-"], #"{"peer":"A","op":"frob"}"#, #"quire: line 1: unknown op "frob""#, 1),
        (["trace", "replay", "-"], #"{"startContent":"","endContent":"a","txns":[{"patches":[[0.5,0,"a"]]}]}"#,
         "quire: not an editing trace: JSON error at line 1, column 58 (byte 57), $.txns[0].patches[0][0]: expected an integer, found number 0.5", 1),
        (["trace", "replay", "-"], #"{"startContent":"","endContent":"a","txns":[{"patches":[[0,-2,"a"]]}]}"#,
         "quire: not an editing trace: JSON error at line 1, column 60 (byte 59), $.txns[0].patches[0][1]: expected a non-negative integer, found -2", 1),
        (["crdt", "merge", "-"], "garbage", "quire: -: JSON syntax error at line 1, column 1 (byte 0)", 1),
        (["show", "-", "--width", "0"], "", "quire: --width must be from 1 to 10000, not 0", 64),
        (["convert", "-"], "", "quire: Missing expected argument '<output>'", 64),
        // The output is written in pieces as it is made (`OutputFile`): a path that cannot be
        // opened is a one-line error naming it, for JSON and markup alike.
        (["convert", "-", "/nonexistent-dir/out.json"], "# a\n", "quire: cannot write /nonexistent-dir/out.json: No such file or directory", 1),
        (["convert", "-", "/nonexistent-dir/out.md"], "# a\n", "quire: cannot write /nonexistent-dir/out.md: No such file or directory", 1),
        (["serve", "--database", "nope:x"], "", "quire: --database takes sqlite:PATH or postgres://USER@HOST:PORT/DB, not nope:x", 64),
        (["sync", "--server", "ws://127.0.0.1:9/", "--room", "r", "--timeout", "0.5", directory + "/quire-sync-missing.bin"], "",
         "quire: ", 1),
    ] as [([String], String, String, Int32)])
    func everyFailureIsOneLineWithItsPlace(arguments: [String], input: String, message: String, status: Int32) throws {
        let result = try QuireProcess.run(arguments, stdin: input)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("quire: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
        for dump in ["Error Domain", "NSCocoaErrorDomain", "malformed(", "Error: "] { #expect(!result.stderr.contains(dump)) }
    }

    /// `check` accepted structures `show` and `convert` then failed on, and text formats no
    /// bit of which has a name.
    @Test(arguments: [
        (#"{"type":"tablerow","children":[]}"#, #"$.root.children[0]: a "root" node does not accept a "tablerow" child"#),
        (#"{"type":"listitem","value":1,"children":[]}"#, #"$.root.children[0]: a "root" node does not accept a "listitem" child"#),
        (#"{"type":"paragraph","children":[{"type":"tablecell","children":[]}]}"#, #"$.root.children[0].children[0]: a "paragraph" node does not accept a "tablecell" child"#),
        (#"{"type":"paragraph","children":[{"type":"text","text":"f","format":-1}]}"#, "$.root.children[0].children[0].format: invalid \"text\" node: must combine Lexical's text format bits (0…2047), not -1"),
        (#"{"type":"paragraph","children":[{"type":"text","text":"f","format":2048}]}"#, "$.root.children[0].children[0].format: invalid \"text\" node: must combine Lexical's text format bits (0…2047), not 2048"),
    ])
    func checkRefusesWhatOtherCommandsCannotProcess(block: String, message: String) throws {
        let document = #"{"root":{"type":"root","children":["# + block + "]}}"
        for command in [["check", "-"], ["show", "-"], ["convert", "-", "-"]] {
            let result = try QuireProcess.run(command, stdin: document)
            #expect(result.status == 1)
            #expect(result.stderr == "quire: \(message)\n", "\(command)")
        }
    }
}
