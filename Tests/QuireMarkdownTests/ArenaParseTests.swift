import Foundation
import Testing
@testable import QuireMarkdown
@testable import QuireMarkup

/// A large source is parsed in cmark-gfm's arena (the tree returned whole at the end, not node
/// by node). It must read exactly as cmark-gfm's allocator does, again and again, and leave the
/// parsers kept for small sources (the writer's read-back, HTML rendering) as they were.
@Suite struct ArenaParseTests {
    static func document(_ markdown: String, inArena: Bool) throws -> MarkupDocument {
        try CmarkGFM.withUTF8(of: markdown) { (bytes) throws(MarkupError) -> MarkupDocument in
            try CmarkGFM.withDocument(bytes, inArena: inArena) { (_, root) -> MarkupDocument in
                var converter = CmarkConverter(bytes: bytes, maxDepth: MarkdownFormat.defaultMaxDepth)
                return converter.document(root)
            }
        }
    }

    /// Every spec example at once, twice (tables, footnotes, raw HTML, autolinks, task lists,
    /// repeated reference definitions), through the arena three times over, and through both
    /// public paths past the threshold.
    @Test func theArenaReadsAsTheAllocatorDoes() throws {
        let examples = try PartedExportTests.markdown()
        let markdown = examples + "\n\n" + examples
        #expect(markdown.utf8.count >= CmarkGFM.arenaSourceLength)
        let allocated = try Self.document(markdown, inArena: false)
        for _ in 0..<3 {
            #expect(try Self.document(markdown, inArena: true) == allocated)
        }
        #expect(try MarkdownFormat().parse(markdown) == allocated)
        var streamed: [MarkupBlock] = []
        try MarkdownFormat().parse(markdown) { (block) throws(MarkupError) in streamed.append(block) }
        #expect(streamed == allocated.blocks)
    }

    /// Small sources keep their parser between documents, outside the arena: arena parses in
    /// between (each resetting the arena) leave it reading as before, extensions included.
    @Test func keptParsersReadAsBeforeAroundArenaParses() throws {
        let small = "~~gone~~ and www.example.com\n\n| a |\n|---|\n| b |\n"
        let before = try CmarkGFM.html(small)
        #expect(before.contains("<del>gone</del>"))
        #expect(before.contains("<a href=\"http://www.example.com\">"))
        #expect(before.contains("<table>"))
        let document = try MarkdownFormat().parse(small)
        let large = try PartedExportTests.markdown()
        for _ in 0..<2 {
            _ = try Self.document(large, inArena: true)
            #expect(try CmarkGFM.html(small) == before)
            #expect(try MarkdownFormat().parse(small) == document)
        }
    }
}
