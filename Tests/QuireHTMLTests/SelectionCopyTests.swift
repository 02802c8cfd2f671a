import QuireMarkup
import Testing

/// A selection over a rendered document copies as markdown and HTML through the configured
/// plugins: the same importer, exporters and serializer as the editor's copy.
@Suite struct SelectionCopyTests {
    static let markdown = """
    # Notes

    Some **bold** and a [link](https://x.example) here.

    3. one
    4. two
    5. three

    ```swift
    let code = "a line long enough to scroll"
    ```

    | a | b |
    | - | - |
    | c | d |

    """

    static func model(width: Double = 30) throws -> RenderedTextSelection {
        let document = try MarkupFormats(contributions: BuiltIns.contributions).parser(for: "md").parse(markdown)
        let text = IntentText(document)
        let built = RunBuilder(metrics: TerminalMetrics()).build(StyleEnvironment().apply(to: text), proposal: width)
        return RenderedTextSelection(text: text, layout: TextLayout(built, width: width, metrics: TerminalMetrics()))
    }

    static let export: SelectionExport = {
        do { return try SelectionExport(registry: BuiltIns.registry, contributions: BuiltIns.contributions) } catch {
            preconditionFailure("the built-ins write markdown: \(error)")
        }
    }()

    /// The point of the caret before the first occurrence of `needle` (after it with `after`).
    static func point(_ model: RenderedTextSelection, _ needle: String, after: Bool = false) throws -> LayoutPoint {
        let string = model.text.text.string
        let range = try #require(string.range(of: needle))
        let offset = string.utf16.distance(from: string.startIndex, to: after ? range.upperBound : range.lowerBound)
        let caret = model.layout.caretRect(forOffset: offset)
        return LayoutPoint(x: caret.x, y: caret.y + caret.height / 2)
    }

    @Test func aSelectionAcrossBlocksCopiesAsPlainTextMarkdownAndHTML() throws {
        var model = try Self.model()
        model.begin(at: try Self.point(model, "ld and"))
        model.drag(to: try Self.point(model, "two", after: true))
        #expect(model.plainText == "ld and a link here.\none\ntwo")
        #expect(try model.markdown(Self.export) == "**ld** and a [link](https://x.example) here.\n\n3. one\n4. two\n")
        #expect(try model.html(Self.export) == "<p><strong>ld</strong> and a <a href=\"https://x.example\">link</a> here.</p>\n<ol start=\"3\">\n<li>one</li>\n<li>two</li>\n</ol>\n")
    }

    @Test func aListCutAfterItsFirstItemKeepsItsNumbers() throws {
        var model = try Self.model()
        model.selectParagraph(at: try Self.point(model, "two"))
        model.extend(.down)
        model.extend(.lineEnd)
        #expect(model.plainText == "two\nthree")
        #expect(try model.markdown(Self.export) == "4. two\n5. three\n")
    }

    @Test func selectAllCopiesTheDocumentWithoutTheScrollingCodeBlock() throws {
        var model = try Self.model()
        model.selectAll()
        let markdown = try model.markdown(Self.export)
        #expect(!markdown.contains("let code"))
        #expect(markdown.hasPrefix("# Notes\n\nSome **bold** and a [link](https://x.example) here.\n"))
        #expect(markdown.contains("| a | b |"))
        let html = try model.html(Self.export)
        #expect(!html.contains("<pre>") && html.contains("<table>") && html.contains("<h1>Notes</h1>"))
    }

    @Test func theCodeBlocksOwnSelectionCopiesAsCode() throws {
        var model = try Self.model()
        model.begin(at: try Self.point(model, "let code"))
        model.selectAll()
        #expect(model.plainText == "let code = \"a line long enough to scroll\"")
        #expect(try model.markdown(Self.export) == "```swift\nlet code = \"a line long enough to scroll\"\n```\n")
        #expect(try model.html(Self.export).hasPrefix("<pre><code class=\"language-swift\">let code = "))
    }
}
