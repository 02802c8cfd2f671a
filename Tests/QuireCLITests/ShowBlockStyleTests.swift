import Foundation
@testable import quire
import QuireMarkup
import Testing

/// `quire show` draws through the block styles: their spacing as blank rows, their indents and
/// markers, and code blocks wrapping (a terminal's output cannot scroll sideways).
@Suite struct ShowBlockStyleTests {
    static let markdown = "# Title\n\nBody text\n\n- one\n- two\n\n```\n" + String(repeating: "x", count: 30) + "\n```\n"

    func render(_ styles: BlockStyles, width: Int = 20) -> String {
        let document = MarkupDocument(blocks: [
            MarkupBlock(.heading(level: 1), inlines: [MarkupInline(.text("Title"))]),
            MarkupBlock(.paragraph, inlines: [MarkupInline(.text("Body text"))]),
            MarkupBlock(.list(.bullet, tight: true), children: ["one", "two"].map {
                MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text($0))])])
            }),
        ])
        let built = RunBuilder(metrics: TerminalMetrics(), blockStyles: styles)
            .build(StyleEnvironment().apply(to: IntentText(document)), proposal: Double(width))
        let layout = TextLayout(built, width: Double(width), metrics: TerminalMetrics())
        return TerminalRenderer(built: built, layout: layout, width: width, ansi: false).render()
    }

    @Test func theRendererDrawsTheStylesSpacingIndentsAndMarkers() {
        #expect(render(ShowCommand.blockStyles) == "Title\n\nBody text\n\n• one\n• two\n")
        let roomy = ShowCommand.blockStyles
            .replacing(.heading, with: BlockStyleFunction { _ in BlockDecoration(spacing: BlockSpacing(top: 0, bottom: 3)) })
            .replacing(.listItem, with: BlockStyleFunction { configuration in
                BlockDecoration(indent: 4, marker: configuration.isFirstParagraph ? "->" : "")
            })
        #expect(render(roomy) == "Title\n\n\n\nBody text\n\n -> one\n -> two\n")
    }

    @Test func showWrapsCodeBlocksAndSeparatesBlocksByTheThemesSpacing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-show-styles-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("doc.md")
        try Self.markdown.write(to: file, atomically: true, encoding: .utf8)
        let result = try QuireProcess.run(["show", file.path, "--width", "20", "--plain"])
        #expect(result.status == 0, "\(result.stderr)")
        let code = "  " + String(repeating: "x", count: 18) + "\n  " + String(repeating: "x", count: 12) + "\n"
        #expect(result.stdout == "Title\n\nBody text\n\n• one\n• two\n\n" + code)
    }
}

/// Links in `quire edit`'s live layout are hit-tested as in rendered documents.
@Suite struct EditLinkHitTests {
    @Test func aLinkInTheLiveEditorsLayoutIsFoundAtAScreenCell() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-edit-link-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("doc.md")
        try "# Title\n\nSee [the docs](https://d.example/docs) here.\n".write(to: file, atomically: true, encoding: .utf8)
        let session = try EditSession(path: file.path, setup: MarkupSetup(ConfigOptions.parse([])), size: (columns: 40, rows: 10))
        _ = session.frame()
        // The flat string is "Title\nSee the docs here.": the link is 10..<18, on row 1 at columns 4…11.
        let hit = try #require(session.link(atColumn: 5, row: 1))
        #expect(hit.url == "https://d.example/docs")
        #expect(hit.range == 10..<18)
        #expect(hit.frames == [LayoutRect(x: 4, y: 1, width: 8, height: 1)])
        #expect(session.link(atColumn: 11, row: 1)?.url == "https://d.example/docs")
        for (column, row) in [(3, 1), (12, 1), (5, 0), (5, 2)] {
            #expect(session.link(atColumn: column, row: row) == nil, "column \(column), row \(row)")
        }
    }
}
