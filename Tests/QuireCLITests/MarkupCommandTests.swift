import Foundation
import Testing

@Suite struct MarkupCommandTests {
    let fixture = "Tests/Fixtures/markdown/all-nodes.md"

    @Test func showMatchesTheGoldenRendering() throws {
        let result = try QuireProcess.run(["show", fixture, "--width", "40"])
        #expect(result.status == 0, "\(result.stderr)")
        let golden = try String(contentsOf: QuireProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/markdown/all-nodes.width40.ansi.txt"), encoding: .utf8)
        #expect(result.stdout == golden)
    }

    @Test func showHTMLIsCmarkGFMsRendering() throws {
        let result = try QuireProcess.run(["show", fixture, "--html"])
        #expect(result.status == 0, "\(result.stderr)")
        for fragment in ["<h1>Quire <em>markup</em> tour</h1>", "<blockquote>", "<ol start=\"7\">", "<input type=\"checkbox\" checked=\"\" disabled=\"\" />",
                         "<th align=\"left\">Name</th>", "<hr />", "<img src=\"dot.png\" alt=\"a dot\" />", "<pre><code class=\"language-swift\">"] {
            #expect(result.stdout.contains(fragment), "missing \(fragment)")
        }
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

    @Test func convertRefusesAnUnknownExtension() throws {
        let result = try QuireProcess.run(["convert", fixture, "out.docx"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("docx"))
    }
}
