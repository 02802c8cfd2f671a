import Foundation
import QuireMarkdown
@testable import QuireMarkup
import QuireModel
import Testing

/// Markdown is imported one top-level block at a time as cmark-gfm's tree is converted
/// (`MarkupImporter.makeState(parsing:with:registry:)`); that must build exactly the state the
/// whole document's import builds, keys included, whatever crosses from one block to the next
/// (quote defaults, lists, text merging), and with footnote definitions (converted whole first).
@Suite struct StreamedImportTests {
    static func bothWays(_ markdown: String, maxDepth: Int = MarkdownFormat.defaultMaxDepth) throws -> (streamed: [UInt8], whole: [UInt8]) {
        let importer = MarkupImporter(mappings: BuiltIns.converter.mappings)
        let format = MarkdownFormat(maxDepth: maxDepth)
        let streamed = try importer.makeState(parsing: markdown, with: format, registry: BuiltIns.registry)
        let whole = try importer.makeState(format.parse(markdown), registry: BuiltIns.registry)
        return (LexicalJSON.exportBytes(streamed, prettyPrinted: false), LexicalJSON.exportBytes(whole, prettyPrinted: false))
    }

    @Test(arguments: SpecFixtures.files)
    func everySpecExampleAndAllOfThemTogetherBuildTheSameState(file: String) throws {
        let examples = try SpecFixtures.examples(file)
        var differing: [Int] = []
        for example in examples {
            let (streamed, whole) = try Self.bothWays(example.markdown)
            if streamed != whole { differing.append(example.number) }
        }
        #expect(differing.isEmpty, "examples \(differing)")
        // Together, each example's blocks follow another's: what one leaves open meets the next.
        let together = examples.map(\.markdown).joined(separator: "\n\n")
        let (streamed, whole) = try Self.bothWays(together)
        #expect(streamed == whole)
        #expect(streamed.count > 1_000)
    }

    /// A large document is built in two parts at once (`makeState(parsing:with:registry:)` above
    /// `parallelSourceLength`): split anywhere, even where a block quote's default depends on
    /// the block before the split, the two parts join into exactly the state one part builds.
    @Test(arguments: SpecFixtures.files)
    func twoPartsBuildTheStateOnePartBuilds(file: String) throws {
        let importer = MarkupImporter(mappings: BuiltIns.converter.mappings)
        let format = MarkdownFormat()
        let markdown = try SpecFixtures.examples(file).map(\.markdown).joined(separator: "\n\n")
            + "\n\n> quote\n\n> quote after a quote[^n]\n\ntext\n\n[^n]: a note"
        let length = markdown.utf8.count
        let whole = try importer.makeState(parsing: markdown, with: format, registry: BuiltIns.registry, splittingAt: nil)
        let expected = LexicalJSON.exportBytes(whole)
        // Right at the quote whose default depends on the quote before it.
        let atQuote = markdown.utf8.distance(from: markdown.startIndex, to: try #require(markdown.range(of: "> quote after")).lowerBound)
        for split in [atQuote, 0, 1, length / 7, length / 3, length / 2, length * 2 / 3, length - 60, length - 30, length - 10, length] {
            let parts = try importer.makeState(parsing: markdown, with: format, registry: BuiltIns.registry, splittingAt: split)
            let same = parts.hasSameNodes(as: whole)
            #expect(same, "split at \(split)")
            #expect(LexicalJSON.exportBytes(parts) == expected, "split at \(split)")
        }
        // Past the length from which the public path splits by itself.
        let large = String(repeating: markdown + "\n\n", count: MarkupImporter.parallelSourceLength / length + 1)
        #expect(large.utf8.count >= MarkupImporter.parallelSourceLength)
        let largeParts = try importer.makeState(parsing: large, with: format, registry: BuiltIns.registry)
        let largeWhole = try importer.makeState(parsing: large, with: format, registry: BuiltIns.registry, splittingAt: nil)
        let same = largeParts.hasSameNodes(as: largeWhole)
        #expect(same)
    }

    /// A heading mapping whose fields the heading plugin refuses ("tag" is a string).
    struct RefusedHeadingMapping: MarkupNodeMapping {
        var nodeType: NodeType { "heading" }
        func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
            if case .block(.heading) = intent { return ["tag": .number(.integer(7))] }
            return nil
        }
        func intent(of node: Node) -> MarkupIntent { .block(.heading(level: 1)) }
    }

    /// A node refused in either part fails the import with the error one part gives: the first
    /// in the document, wherever the split falls.
    @Test(arguments: [
        "# refused first\n\nplain\n\n# refused later\n",
        "plain\n\nplain\n\n# refused only later\n",
        "# refused only first\n\nplain\n\nplain\n",
    ])
    func aRefusedNodeFailsWithTheFirstError(markdown: String) throws {
        let importer = MarkupImporter(mappings: MarkupMappings([RefusedHeadingMapping()] + BuiltIns.converter.mappings.mappings))
        let format = MarkdownFormat()
        var expected: String?
        do { _ = try importer.makeState(parsing: markdown, with: format, registry: BuiltIns.registry, splittingAt: nil) } catch {
            expected = error.description
        }
        #expect(expected?.contains("heading") == true)
        for split in [0, 10, 20, markdown.utf8.count] {
            var thrown: String?
            do { _ = try importer.makeState(parsing: markdown, with: format, registry: BuiltIns.registry, splittingAt: split) } catch {
                thrown = error.description
            }
            #expect(thrown == expected, "split at \(split)")
        }
    }

    @Test func realDocumentsBuildTheSameState() throws {
        #expect(RealDocumentTests.files.count >= 25)
        for file in RealDocumentTests.files {
            let markdown = try String(contentsOf: RealDocumentTests.directory.appendingPathComponent(file), encoding: .utf8)
            let (streamed, whole) = try Self.bothWays(markdown)
            #expect(streamed == whole, "\(file)")
        }
    }

    @Test func fuzzFindingsAndFixturesBuildTheSameState() throws {
        let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/markdown/fuzz-fixed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".md") }
        #expect(files.count > 40)
        for file in files.sorted() + ["../all-nodes.md"] {
            let markdown = String(decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self)
            let (streamed, whole) = try Self.bothWays(markdown)
            #expect(streamed == whole, "\(file)")
        }
    }

    @Test(arguments: [
        // Footnote definitions: the run cmark-gfm leaves at the end is arranged as a whole
        // document's would be; the blocks before it are streamed.
        "b[^2] a[^1]\n\n[^1]: one\n\n[^2]: two\n\nafter",
        "[^a]: first\n\n[^a]: second, dropped\n\ntext[^a]",
        "text[^a]\n\n[^a]: refers to [^b]\n\n[^b]: kept only for a",
        "text[^a]\n\n[^x]: dropped, refers to [^c]\n\n[^a]: a\n\n[^c]: only the dropped one refers to me",
        "text[^a]\n\n[^a]: a\n\n<!-- never closed\n\n[^b]: after the comment",
        "[^a]: before everything\n\n<div>\n\ntext[^a] and [^b]\n\n[^b]: b",
        "> quoted[^q]\n>\n> [^q]: in the quote\n\n- item[^i]\n\n  [^i]: in the item",
        "[^only]: a document of definitions\n\n[^only]\n",
        "[^x]: never referenced\n\ntext",
        "> quote\n\nparagraph\n\n> quote again\n> > nested\n\n- a\n- b\n\n  c",
        "",
        "   \n\n",
    ])
    func edgeDocumentsBuildTheSameState(markdown: String) throws {
        let (streamed, whole) = try Self.bothWays(markdown)
        #expect(streamed == whole)
    }

    @Test func containersDeeperThanTheLimitBuildTheSameState() throws {
        // Past the depth limit a container gives its leaves to the level above: one top-level
        // block of cmark-gfm's becomes many blocks.
        let markdown = String(repeating: "> ", count: 12) + "deep\n\n" + String(repeating: "- ", count: 12) + "item\n\ntail"
        let (streamed, whole) = try Self.bothWays(markdown, maxDepth: 4)
        #expect(streamed == whole)
    }
}

/// cmark-gfm's parser is kept between documents: nothing of one document (link reference
/// definitions, footnote definitions, an unclosed HTML block, a table) reaches the next.
@Suite struct KeptParserTests {
    @Test(arguments: [
        ("[a]: /first\n\n[a]", "[a]\n", "<p>[a]</p>\n"),
        ("text[^1]\n\n[^1]: note", "[^1]\n", "<p>[^1]</p>\n"),
        ("<!-- never closed\n", "after *emphasis*\n", "<p>after <em>emphasis</em></p>\n"),
        ("| a | b |\n| - | - |\n| 1 | 2 |", "| c |\n", "<p>| c |</p>\n"),
        ("> quote\n- list", "plain\n", "<p>plain</p>\n"),
    ])
    func aDocumentReadsAsIfItWereTheFirst(first: String, second: String, html: String) throws {
        _ = try CmarkGFM.html(first)
        #expect(try CmarkGFM.html(second) == html)
        _ = try MarkdownFormat().parse(first)
        #expect(try CmarkGFM.html(second) == html)
    }
}
