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

    static func text(_ text: String) -> String { #"{"type":"text","text":"\#(text)"}"# }
    static let lineBreak = #"{"type":"linebreak"}"#

    /// Converts standard input; the JSON written read back as its block types and texts.
    static func roundTrip(_ document: String, through format: String, strict: Bool = false) throws -> (QuireProcess.Result, QuireProcess.Result?) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = directory.appendingPathComponent("out.\(format)").path
        let out = try QuireProcess.run(["convert", "-", written] + (strict ? ["--strict"] : []), stdin: document)
        guard out.status == 0 else { return (out, nil) }
        return (out, try QuireProcess.run(["convert", written, "-"]))
    }

    /// A heading ending in a line break was written `Title\` and an underline, and came back as
    /// a paragraph and a rule; a trailing break became a literal backslash.
    @Test func aLineBreakEndingABlockIsDroppedWithAWarning() throws {
        let document = Self.document([
            #"{"type":"heading","tag":"h1","children":["# + Self.text("Title") + "," + Self.lineBreak + "]}",
            #"{"type":"heading","tag":"h2","children":["# + Self.text("Sub") + "," + Self.lineBreak + "]}",
            #"{"type":"paragraph","children":["# + Self.lineBreak + "," + Self.text("lead") + "]}",
            #"{"type":"paragraph","children":["# + Self.text("trail") + "," + Self.lineBreak + "]}",
        ].joined(separator: ","))
        let (out, back) = try Self.roundTrip(document, through: "md")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("a line break ending a heading 1 cannot be written in markup; dropped ($.root.children[0])"))
        #expect(out.stderr.contains("a line break ending a heading 2 cannot be written in markup; dropped ($.root.children[1])"))
        #expect(out.stderr.contains("a line break ending a paragraph cannot be written in markup; dropped ($.root.children[3])"))
        #expect(!out.stderr.contains("$.root.children[2]"))
        let json = try #require(back?.stdout)
        #expect(json.contains(#""tag":"h1""#) && json.contains(#""tag":"h2""#))
        #expect(!json.contains(#"\\"#), "a backslash came back as text")
        #expect(!json.contains(#""type":"horizontalrule""#))
        #expect(json.components(separatedBy: #""type":"linebreak""#).count == 2, "the leading break is kept")
    }

    /// A negative start came back as a paragraph "-5. …"; it is clamped with a warning, and
    /// --strict refuses to write anything.
    @Test func aListStartMarkdownCannotWriteIsClampedLoudly() throws {
        let document = Self.list(start: "-5")
        let (out, back) = try Self.roundTrip(document, through: "md")
        #expect(out.stderr.contains("a list starting at -5 cannot be written in markup; it starts at 0 ($.root.children[0])"), "\(out.stderr)")
        #expect(back?.stdout.contains(#""listType":"number""#) == true)
        let strict = try QuireProcess.run(["convert", "-", "-", "--strict"], stdin: document)
        #expect(strict.status == 1)
        #expect(strict.stdout.isEmpty)
        #expect(strict.stderr.hasSuffix("quire: 1 warning with --strict (above)\n"))
    }

    /// Block content and spans in table cells were flattened without a word (and a list in a
    /// cell failed with "no markup mapping for listitem").
    @Test func tableCellContentMarkdownCannotHoldIsReported() throws {
        let cell = { (content: String, span: Int) in #"{"type":"tablecell","headerState":0,"colSpan":\#(span),"children":[\#(content)]}"# }
        let paragraph = { (text: String) in #"{"type":"paragraph","children":["# + Self.text(text) + "]}" }
        let list = #"{"type":"list","listType":"bullet","start":1,"tag":"ul","children":[{"type":"listitem","value":1,"children":["# + Self.text("item") + "]}]}"
        let table = Self.document(#"{"type":"table","children":[{"type":"tablerow","children":["# + cell(paragraph("h1"), 1) + "," + cell(paragraph("h2"), 1)
            + #"]},{"type":"tablerow","children":["# + cell(paragraph("one") + "," + paragraph("two"), 2) + #"]},{"type":"tablerow","children":["#
            + cell(list, 1) + "," + cell(paragraph("plain"), 1) + "]}]}")
        let result = try QuireProcess.run(["convert", "-", "-"], stdin: table)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("| one two |"))
        #expect(result.stdout.contains("| item | plain |"))
        let warnings = result.stderr.split(separator: "\n").map(String.init)
        #expect(warnings == [
            "warning: -: a table cell's blocks cannot be written in markup; they are one line of text ($.root.children[0].children[1].children[0])",
            "warning: -: a cell's colSpan 2 cannot be written in markup; it is one cell ($.root.children[0].children[1].children[0])",
            "warning: -: a table cell's blocks cannot be written in markup; they are one line of text ($.root.children[0].children[2].children[0])",
        ])
    }

    /// Invalid UTF-8 became U+FFFD in markdown, HTML and edit scripts; it is an error with its
    /// byte offset in every format.
    @Test(arguments: [(["convert", "-", "-"], "# ok\nab", "invalid UTF-8 at line 2, column 3 (byte 7)"),
                      (["convert", "-", "-"], "<p>ab", "invalid UTF-8 at line 1, column 6 (byte 5)"),
                      (["check", "-"], #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":"ab"#, "$.root.children[0].children[0].text: invalid UTF-8"),
                      (["edit-script", "-"], #"{"op":"type","text":"ab"#, "line 1: JSON error at line 1, column 24 (byte 23), $.text: invalid UTF-8")])
    func invalidUTF8IsAnErrorWithItsByteOffset(command: [String], prefix: String, message: String) throws {
        let bytes = Array(prefix.utf8) + [0xFF, 0xFE] + Array(#"""}]}]}}"#.utf8) + [0x0A]
        let process = try QuireProcess.run(command, stdinBytes: bytes)
        #expect(process.status == 1)
        #expect(process.stderr.hasPrefix("quire: ") && process.stderr.contains(message), "\(process.stderr)")
        #expect(process.stderr.split(separator: "\n").count == 1)
    }

    /// An edit script with CRLF line endings (and a byte-order mark) failed on its second line.
    @Test func anEditScriptWithCRLFAndAByteOrderMarkRuns() throws {
        let script = "\u{FEFF}" + #"{"op":"type","text":"a"}"# + "\r\n" + #"{"op":"type","text":"b"}"# + "\r\n"
        let result = try QuireProcess.run(["edit-script", "-"], stdin: script)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(#"{"text":"ab","#))
    }

    /// A markdown file with a byte-order mark and CRLF line endings reads as without them.
    @Test func markdownWithAByteOrderMarkAndCRLFReadsAsWithout() throws {
        let plain = try QuireProcess.run(["convert", "-", "-"], stdin: "# Title\n\n- a\n- b\n")
        let marked = try QuireProcess.run(["convert", "-", "-"], stdin: "\u{FEFF}# Title\r\n\r\n- a\r\n- b\r\n")
        #expect(plain.status == 0 && marked.status == 0)
        #expect(marked.stdout == plain.stdout)
    }

    /// Markdown nested 1,500 deep converted to JSON deeper than the reader's own limit, so
    /// `check` refused what `convert` wrote.
    @Test func whatConvertWritesFromDeepMarkdownChecks() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("deep.json").path
        for markdown in [String(repeating: "- ", count: 1_500) + "deep\n", String(repeating: ">", count: 1_000) + " deep\n",
                         (0..<1_500).map { String(repeating: "  ", count: $0) + "- a\n" }.joined()] {
            let converted = try QuireProcess.run(["convert", "-", json], stdin: markdown)
            #expect(converted.status == 0, "\(converted.stderr)")
            let checked = try QuireProcess.run(["check", json])
            #expect(checked.status == 0, "\(checked.stderr)")
        }
    }

    /// A duplicate "root" silently replaced the document.
    @Test func aDuplicateKeyIsAnErrorWithItsPath() throws {
        let result = try QuireProcess.run(["check", "-"], stdin: #"{"root":{"type":"root","children":[]},"root":{"type":"root","children":[]}}"#)
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"$.root: duplicate key "root""#), "\(result.stderr)")
    }

    /// In a list mixing tasks and bullets, the bullets came back as unchecked tasks.
    @Test func aListMixingTasksAndBulletsKeepsItsBullets() throws {
        let (out, back) = try Self.roundTrip("- [ ] task\n- bullet\n", through: "json")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(back?.stdout == "- [ ] task\n- bullet\n")
    }

    /// The lists/line-breaks/align fixture lost its h1 and h2 through markdown (each ends in a
    /// line break); its headings come back, with a warning for each dropped break.
    @Test func theLineBreaksFixtureKeepsItsHeadingsThroughMarkdown() throws {
        let fixture = "Tests/Fixtures/lexical-json/05-lexical-ios-fork-HZ4ever228-web-export-lists-linebreaks-align.json"
        let source = try String(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent(fixture), encoding: .utf8)
        let (out, back) = try Self.roundTrip(source, through: "md")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.components(separatedBy: "a line break ending a heading").count == 4)
        let headings = { (json: String) in ["h1", "h2", "h3"].map { json.components(separatedBy: #""tag":"\#($0)""#).count - 1 } }
        let original = try QuireProcess.run(["export", fixture]).stdout
        let roundTripped = try QuireProcess.run(["export", "-"], stdin: try #require(back?.stdout)).stdout
        #expect(headings(original) == [1, 2, 1])
        #expect(headings(roundTripped) == headings(original))
    }

    /// HTML export flattened nested quotes and wrote raw HTML as escaped text without a word.
    @Test func whatHTMLExportCannotRepresentIsReported() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("doc.json").path
        let page = directory.appendingPathComponent("page.html").path
        let converted = try QuireProcess.run(["convert", "-", json], stdin: "> a\n> > b\n\n<div>raw</div>\n")
        #expect(converted.status == 0, "\(converted.stderr)")
        let html = try QuireProcess.run(["convert", json, page])
        #expect(html.status == 0)
        let warnings = html.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.contains { $0.hasPrefix("warning: \(json): 2 nested block quotes are written as one ($.root.children[") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("node has no HTML conversion; its content is written as text ($.root.children[") }, "\(warnings)")
        let strict = try QuireProcess.run(["show", json, "--html", "--strict"])
        #expect(strict.status == 1 && strict.stdout.isEmpty)
    }
}
