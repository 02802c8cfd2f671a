import Foundation
import QuireHTML
import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

/// One spec example: its markdown and cmark-gfm's HTML of it.
struct SpecExample: Sendable, CustomTestStringConvertible {
    var file: String
    var number: Int
    var html: String
    var testDescription: String { "\(file) #\(number)" }
}

enum Fixtures {
    static let specFiles = ["commonmark-spec-0.31.2.spec.json", "cmark-gfm-spec.json", "cmark-gfm-extensions.json"]

    static func examples() throws -> [SpecExample] {
        var result: [SpecExample] = []
        for file in specFiles {
            let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/commonmark/\(file)")
            let value = try JSONParser.parse(Array(try Data(contentsOf: url)))
            for entry in value.arrayValue ?? [] {
                guard let object = entry.objectValue, let html = object["html"]?.stringValue, let number = object["example"]?.intValue else { continue }
                result.append(SpecExample(file: file, number: number, html: html))
            }
        }
        return result
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The markdown corpus as a document (through the markdown plugin).
    static func allNodes() throws -> EditorState {
        try MarkdownConverter(registry: BuiltIns.registry, contributions: BuiltIns.contributions).state(fromMarkdown: try text("Tests/Fixtures/markdown/all-nodes.md"))
    }
}

/// Checks the fixpoint: a document that went through HTML once comes back from HTML as itself,
/// and writes the same HTML again.
func expectFixpoint(_ first: EditorState, _ comment: Comment? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let converter = BuiltIns.converter
    let html = try converter.html(from: first)
    let second = try converter.state(fromHTML: html)
    #expect(LexicalJSON.exportString(second) == LexicalJSON.exportString(first), comment, sourceLocation: sourceLocation)
    #expect(try converter.html(from: second) == html, comment, sourceLocation: sourceLocation)
}

@Suite struct HTMLExportTests {
    /// The markdown corpus written as HTML: the golden file, and what comes back is the same
    /// document (every node type of the built-ins).
    @Test func theMarkdownCorpusMatchesItsGoldenHTML() throws {
        let state = try Fixtures.allNodes()
        let html = try BuiltIns.converter.html(from: state)
        #expect(html == (try Fixtures.text("Tests/Fixtures/html/all-nodes.html")))
        try expectFixpoint(try BuiltIns.converter.state(fromHTML: html))
    }

    @Test func textAndAttributesAreEscaped() throws {
        var state = EditorState(registry: BuiltIns.registry)
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: .root)
        let link = try state.createNode(type: "link", fields: ["url": .string("https://x.org/?a=1&b=\"2\"")])
        try state.append(link, to: paragraph)
        try state.append(try state.createNode(type: .text, text: "<tag> & \"quotes\""), to: link)
        let html = try BuiltIns.converter.html(from: state)
        #expect(html == "<p><a href=\"https://x.org/?a=1&amp;b=&quot;2&quot;\">&lt;tag&gt; &amp; \"quotes\"</a></p>\n")
        try expectFixpoint(state)
    }

    /// Formats markdown cannot write survive HTML.
    @Test func everyFormatSurvives() throws {
        var state = EditorState(registry: BuiltIns.registry)
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: .root)
        for (index, named) in TextFormat.named.enumerated() {
            if index > 0 { try state.append(try state.createNode(type: .text, text: " "), to: paragraph) }
            try state.append(try state.createNode(type: .text, text: named.name, fields: ["format": .number(.integer(named.format.rawValue))]), to: paragraph)
        }
        let html = try BuiltIns.converter.html(from: state)
        #expect(html.contains("<u>underline</u>") && html.contains("<sub>subscript</sub>") && html.contains("<mark>highlight</mark>")
                && html.contains(#"<span style="text-transform: uppercase">uppercase</span>"#))
        try expectFixpoint(state)
    }

    /// Whitespace a browser would collapse is written so that it comes back.
    @Test(arguments: ["  leading", "trailing  ", "two  spaces", "tab\there", " ", "a\u{A0} b"])
    func whitespaceThatWouldCollapseIsKept(_ text: String) throws {
        var state = EditorState(registry: BuiltIns.registry)
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: .root)
        try state.append(try state.createNode(type: .text, text: text), to: paragraph)
        try expectFixpoint(state)
    }

    @Test func lineBreaksAtTheEndOfABlockAreKept() throws {
        let state = try BuiltIns.converter.state(fromHTML: "<p>a<br><br></p><p><br><br></p><ul><li>x<br><br></li></ul>")
        #expect(Outline.of(state) == #"paragraph("a" ⏎) paragraph(⏎) list{tag="ul",listType="bullet",start=1}(listitem("x" ⏎))"#)
        try expectFixpoint(state)
    }

    /// cmark-gfm's HTML of every CommonMark and GFM spec example imports, writes, and imports
    /// back to the same document.
    @Test func specExamplesReachAFixpointAfterOneRound() throws {
        var failures: [String] = []
        for example in try Fixtures.examples() {
            let first = try BuiltIns.converter.state(fromHTML: example.html)
            let html = try BuiltIns.converter.html(from: first)
            let second = try BuiltIns.converter.state(fromHTML: html)
            let again = try BuiltIns.converter.html(from: second)
            if LexicalJSON.exportString(second) != LexicalJSON.exportString(first) || again != html {
                failures.append("\(example.testDescription): \(example.html.debugDescription) → \(html.debugDescription)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) examples: \(failures.prefix(5).joined(separator: "\n"))")
    }

    /// Lexical's own documents (JSON fixtures) go through HTML to a fixpoint.
    @Test(arguments: ["01-lexical-serialization-test-playground-doc.json", "03-lexical-editor-test-paragraph-textformat.json",
                      "05-lexical-ios-fork-HZ4ever228-web-export-lists-linebreaks-align.json"])
    func lexicalDocumentsReachAFixpoint(_ file: String) throws {
        let bytes = Array(try Data(contentsOf: repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/\(file)")))
        let original = try LexicalJSON.importState(from: bytes, registry: BuiltIns.registry)
        let once = try BuiltIns.converter.state(fromHTML: try BuiltIns.converter.html(from: original))
        #expect(FlatString.render(once).filter { !$0.isWhitespace } == FlatString.render(original).filter { !$0.isWhitespace })
        try expectFixpoint(once)
    }
}
