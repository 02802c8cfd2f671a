import Foundation
import Testing

/// Issue 20: what a careless or hostile user feeds the command line ends in a typed error, never
/// a crash, a hang or silently lost content.
@Suite struct HostileInputTests {
    static func document(_ children: String) -> String {
        #"{"root":{"type":"root","children":["# + children + "]}}"
    }

    static func list(start: String) -> String {
        document(#"{"type":"list","listType":"number","start":"# + start + #","tag":"ol","children":[{"type":"listitem","value":1,"children":[{"type":"text","text":"a"}]},{"type":"listitem","value":2,"children":[{"type":"text","text":"b"}]}]}"#)
    }

    /// A list start near Int.max passed `check` and then trapped in the run builder and the
    /// markdown writer; the start field now has a range, refused where it is written.
    @Test func aListStartBeyondTheFieldRangeIsRefusedWithItsPath() throws {
        for command in [["check", "-"], ["show", "-", "--plain"], ["convert", "-", "-"]] {
            let result = try QuireProcess.run(command, stdin: Self.list(start: "9223372036854775807"))
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("$.root.children[0].start"), "\(command): \(result.stderr)")
        }
        let largest = try QuireProcess.run(["show", "-", "--plain"], stdin: Self.list(start: "9007199254740990"))
        #expect(largest.status == 0, "\(largest.stderr)")
        #expect(largest.stdout.contains("9007199254740990. a") && largest.stdout.contains("9007199254740991. b"))
    }

    /// A span of 2^40 was accepted by `check`; spans are bounded as HTML bounds them.
    @Test func aCellSpanBeyondTheRangeIsRefused() throws {
        let table = Self.document(#"{"type":"table","children":[{"type":"tablerow","children":[{"type":"tablecell","colSpan":1099511627776,"headerState":0,"children":[{"type":"paragraph","children":[]}]}]}]}"#)
        let result = try QuireProcess.run(["check", "-"], stdin: table)
        #expect(result.status == 1)
        #expect(result.stderr.contains("$.root.children[0].children[0].children[0].colSpan"), "\(result.stderr)")
    }

    /// `--width` near Int.max trapped in reserveCapacity, 1e9 wrote gigabytes, 0 was accepted.
    @Test(arguments: ["0", "10001", "1000000000", "9223372036854775807"])
    func showRefusesAWidthOutsideItsRangeAsAUsageError(width: String) throws {
        let result = try QuireProcess.run(["show", "-", "--plain", "--width", width], stdin: "---\n")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--width must be from 1 to 10000"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-hostile-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A list nested deeper than the terminal is wide wrapped one character a line (and trimmed
    /// each line's spaces with a quadratic regular expression): 1 MB took 42 s. The content
    /// keeps a quarter of the width, so the drawing stays proportional to the text.
    @Test func aDeepListDrawsInSpaceProportionalToItsText() throws {
        let markdown = (0..<300).map { String(repeating: "  ", count: min($0, 99)) + "- " + String(repeating: "x", count: 500) + "\n" }.joined()
        let result = try QuireProcess.run(["show", "-", "--plain", "--width", "80"], stdin: markdown)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.filter { $0 == "x" }.count == 300 * 500)
        #expect(result.stdout.utf8.count < 10 * markdown.utf8.count, "\(result.stdout.utf8.count) bytes drawn for \(markdown.utf8.count)")
    }

    /// A gzip bomb was replayed without limit; decompression stops at a configurable size.
    @Test func aTraceThatExpandsBeyondTheLimitIsRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("bomb.json")
        let text = String(repeating: "a", count: 100_000)
        try #"{"startContent":"","endContent":"\#(text)","txns":[{"patches":[[0,0,"\#(text)"]]}]}"#.write(to: trace, atomically: true, encoding: .utf8)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", trace.path]
        try gzip.run()
        gzip.waitUntilExit()
        let compressed = trace.path + ".gz"
        let refused = try QuireProcess.run(["trace", "replay", compressed, "--max-decompressed-bytes", "10000"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "quire: the trace expands beyond 10000 bytes when decompressed; --max-decompressed-bytes raises the limit (\(compressed))\n")
        let replayed = try QuireProcess.run(["trace", "replay", compressed])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.contains("final text equals endContent: yes"))
    }
}
