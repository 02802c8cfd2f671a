import Foundation
import QuireJSON
import Testing

@Suite struct MarkupCommandTests {
    let fixture = "Tests/Fixtures/markdown/all-nodes.md"

    @Test func showMatchesTheGoldenRendering() throws {
        let result = try QuireProcess.run(["show", fixture, "--width", "40"])
        #expect(result.status == 0, "\(result.stderr)")
        let golden = try String(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/markdown/all-nodes.width40.ansi.txt"), encoding: .utf8)
        #expect(result.stdout == golden)
    }

    /// `show --html` writes through the configured HTML plugin, so markdown and the same
    /// document as Lexical JSON give the same page, every node type in it.
    @Test func showHTMLWritesMarkdownAndLexicalJSONThroughTheHTMLPlugin() throws {
        let result = try QuireProcess.run(["show", fixture, "--html"])
        #expect(result.status == 0, "\(result.stderr)")
        for fragment in ["<h1>Quire <em>markup</em> tour</h1>", "<blockquote>", "<ol start=\"7\">", "<input type=\"checkbox\" disabled checked> Done",
                         "<th style=\"text-align: left\">Name</th>", "<hr>", "<img src=\"dot.png\" alt=\"a dot\">", "<pre><code class=\"language-swift\">"] {
            #expect(result.stdout.contains(fragment), "missing \(fragment)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-show-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("doc.json").path
        #expect(try QuireProcess.run(["convert", fixture, json]).status == 0)
        let fromJSON = try QuireProcess.run(["show", json, "--html"])
        #expect(fromJSON.status == 0, "\(fromJSON.stderr)")
        #expect(fromJSON.stdout == result.stdout)
    }

    /// `convert` writes HTML from Lexical JSON and reads it back to the same document.
    @Test func convertWritesHTMLThatReadsBackToTheSameDocument() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-html-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("doc.json").path
        let page = directory.appendingPathComponent("page.html").path
        let back = directory.appendingPathComponent("back.json").path
        #expect(try QuireProcess.run(["convert", fixture, json]).status == 0)
        let toHTML = try QuireProcess.run(["convert", json, page])
        #expect(toHTML.status == 0, "\(toHTML.stderr)")
        let fromHTML = try QuireProcess.run(["convert", page, back])
        #expect(fromHTML.status == 0, "\(fromHTML.stderr)")
        let golden = try String(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/html/all-nodes.html"), encoding: .utf8)
        let written = try String(contentsOfFile: page, encoding: .utf8)
        #expect(written.hasPrefix("<!DOCTYPE html>") && written.contains("<body>\n" + golden + "</body>"))
        // The text is the markdown's; the HTML written again is the same page (the fixpoint).
        #expect(try QuireProcess.run(["render", back]).stdout == (try QuireProcess.run(["render", json]).stdout))
        let again = directory.appendingPathComponent("again.html").path
        #expect(try QuireProcess.run(["convert", back, again]).status == 0)
        #expect(try String(contentsOfFile: again, encoding: .utf8) == written)
    }

    @Test func convertGoesToLexicalJSONAndBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-convert-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("doc.json").path
        let toJSON = try QuireProcess.run(["convert", fixture, json])
        #expect(toJSON.status == 0, "\(toJSON.stderr)")
        let check = try QuireProcess.run(["check", json])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(!check.stdout.contains("unknown"))
        let back = try QuireProcess.run(["convert", json, "-"])
        #expect(back.status == 0, "\(back.stderr)")
        let original = try String(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent(fixture), encoding: .utf8)
        #expect(back.stdout == original)
    }

    /// `convert` writes Lexical JSON compact, as `quire export` and Lexical's `JSON.stringify` do;
    /// `--pretty` indents it. Both are the same document.
    @Test func convertWritesCompactJSONUnlessPretty() throws {
        let compact = try QuireProcess.run(["convert", fixture, "-"])
        #expect(compact.status == 0, "\(compact.stderr)")
        let pretty = try QuireProcess.run(["convert", fixture, "-", "--pretty"])
        #expect(pretty.status == 0, "\(pretty.stderr)")
        #expect(compact.stdout.hasPrefix("{\"root\":{\"children\":[{"))
        #expect(compact.stdout.hasSuffix("}\n") && compact.stdout.filter { $0 == "\n" }.count == 1)
        #expect(pretty.stdout.hasPrefix("{\n  \"root\": {\n    \"children\": [\n      {"))
        let reread = try JSONParser.parse(pretty.stdout)
        #expect(JSONWriter().string(reread) + "\n" == compact.stdout)
    }

    /// A README with raw HTML and footnotes: `convert a.md a.json && convert a.json a2.md` gives
    /// the markdown back, and `show` draws the HTML as dimmed source.
    @Test func rawHTMLAndFootnotesSurviveConvertAndShowDimmed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-html-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let markdown = "<p align=\"center\">\n  <img src=\"logo.png\">\n</p>\n\nRead<br>this[^1].\n\n[^1]: A note.\n"
        let source = directory.appendingPathComponent("a.md")
        try Data(markdown.utf8).write(to: source)
        let json = directory.appendingPathComponent("a.json").path
        let toJSON = try QuireProcess.run(["convert", source.path, json])
        #expect(toJSON.status == 0, "\(toJSON.stderr)")
        let back = try QuireProcess.run(["convert", json, "-"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout == markdown)
        let show = try QuireProcess.run(["show", json, "--width", "40"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("\u{1B}[90m<p align=\"center\">"))
        #expect(show.stdout.contains("\u{1B}[90m<br>\u{1B}[0m"))
    }

    @Test func convertRefusesAnUnknownExtension() throws {
        let result = try QuireProcess.run(["convert", fixture, "out.docx"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("docx"))
    }
}
