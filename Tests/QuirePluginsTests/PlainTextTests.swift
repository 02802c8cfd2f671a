import QuireCatalog
import QuireConfig
import QuireMarkup
import QuireModel
import QuirePlainText
import Testing

/// The plain-text plugin: `.txt → document → .txt` is byte-exact with "\n" line endings, the
/// flat string of the document is the file's text, CRLF and CR read as line endings and are
/// written as "\n", and the configuration selects it by file extension.
@Suite struct PlainTextTests {
    static let configuration = Result { try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog) }

    /// The text through the configured `.txt` parser, the importer, the exporter and the
    /// configured `.txt` serializer; and the document's flat string.
    static func roundTrip(_ text: String) throws -> (written: String, flat: String, state: EditorState) {
        let configuration = try configuration.get()
        let contributions = configuration.plugins.contributions
        let formats = MarkupFormats(contributions: contributions)
        let mappings = MarkupMappings(contributions: contributions)
        let state = try MarkupImporter(mappings: mappings).makeState(try formats.parser(for: "txt").parse(text), registry: try configuration.makeRegistry())
        let written = try formats.serializer(for: "txt").serialize(try MarkupExporter(mappings: mappings).makeDocument(state))
        return (written, FlatString.render(state), state)
    }

    static let exactInputs: [String] = [
        "", "\n", "\n\n\n", "a", "a\n", "a\nb", "a\n\nb\n", "\n\na\n\n", "  indented\n\ttabbed\tline\t\n", "trailing spaces   \n",
        "héllo wörld\n👨‍👩‍👧 family\n日本語のテキスト\nمرحبا\n", "\u{FEFF}byte-order mark\n", "# not a heading\n- not a list\n> not a quote\n",
        "*not emphasis* <b>not html</b> [not](a link) ![not](an image)\n", "\u{2028}separators\u{2029}kept\n",
        String(repeating: "very long line ", count: 20_000), String(repeating: "x\n", count: 2_000),
    ]

    @Test(arguments: exactInputs)
    func roundTripIsByteExact(_ text: String) throws {
        let (written, flat, state) = try Self.roundTrip(text)
        #expect(written == text)
        #expect(flat == text)
        // One paragraph per line, never anything else.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let blocks = Array(state.children(of: .root))
        #expect(blocks.count == lines.count)
        #expect(blocks.allSatisfy { $0.type == .paragraph })
    }

    @Test(arguments: [("a\r\nb\r\n", "a\nb\n"), ("a\rb", "a\nb"), ("\r\n\r\n", "\n\n"), ("a\r\n\nb\r", "a\n\nb\n"), ("\r", "\n")])
    func carriageReturnsAreLineEndingsWrittenAsLineFeeds(_ input: String, _ expected: String) throws {
        #expect(try Self.roundTrip(input).written == expected)
        // What export writes reads back to itself.
        #expect(try Self.roundTrip(expected).written == expected)
    }

    @Test func parsedLinesCarryTheirSourcePositions() throws {
        let document = try PlainTextFormat().parse("ab\r\n\néf")
        #expect(document.blocks.count == 3)
        #expect(document.blocks[0].range?.start == SourcePosition(line: 1, column: 1, byteOffset: 0))
        #expect(document.blocks[1].inlines.isEmpty)
        #expect(document.blocks[2].range?.start == SourcePosition(line: 3, column: 1, byteOffset: 5))
        #expect(document.blocks[2].range?.end == SourcePosition(line: 3, column: 3, byteOffset: 7))
    }

    @Test func invalidUTF8IsRefusedWithItsPosition() {
        #expect(throws: MarkupError.invalidUTF8(at: SourcePosition(line: 2, column: 2, byteOffset: 3))) {
            try PlainTextFormat().parse(bytes: [0x61, 0x0A, 0x62, 0xFF])
        }
    }

    @Test func documentsFromOtherFormatsAreWrittenAsTheirText() throws {
        let text = { (string: String) in MarkupInline(.text(string)) }
        let document = MarkupDocument(blocks: [
            MarkupBlock(.heading(level: 1), inlines: [text("Title")]),
            MarkupBlock(.paragraph, inlines: [MarkupInline(.strong, children: [text("bold")]), MarkupInline(.softBreak), text("next"),
                                              MarkupInline(.image(source: "a.png", title: nil), children: [text("alt")])]),
            MarkupBlock(.blockQuote, children: [MarkupBlock(.paragraph, inlines: [text("quoted")])]),
            MarkupBlock(.list(.bullet, tight: true), children: [
                MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.paragraph, inlines: [text("one")])]),
                MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.paragraph, inlines: [text("two")])]),
            ]),
            MarkupBlock(.codeBlock(language: "swift"), literal: "let a = 1\nlet b = 2\n"),
            MarkupBlock(.thematicBreak),
            MarkupBlock(.table(alignments: [.none, .none]), children: [
                MarkupBlock(.tableRow(isHeader: true), children: [MarkupBlock(.tableCell(column: 0, alignment: .none), inlines: [text("h1")]),
                                                                  MarkupBlock(.tableCell(column: 1, alignment: .none), inlines: [text("h2")])]),
            ]),
        ])
        #expect(try PlainTextFormat().serialize(document) == "Title\nbold\nnextalt\nquoted\none\ntwo\nlet a = 1\nlet b = 2\n* * *\nh1 | h2")
    }

    @Test func theConfigurationSelectsItForTxt() throws {
        let contributions = try Self.configuration.get().plugins.contributions
        let formats = MarkupFormats(contributions: contributions)
        #expect(try formats.parser(for: "txt").formatName == "plaintext")
        #expect(try formats.serializer(for: "txt").formatName == "plaintext")
        #expect(try formats.parser(for: "md").formatName == "markdown")
        // Without the plugin, .txt is unknown and the error names what is available.
        let withoutPlainText = try Configuration.load(yaml: "version: 1\nplugins: [markdown]\n", catalog: BuiltInPlugins.catalog)
        #expect(throws: MarkupError.self) { try MarkupFormats(contributions: withoutPlainText.plugins.contributions).parser(for: "txt") }
    }
}
