import Foundation
@testable import quire
import QuireAlgorithms
import QuireMarkup
import Testing

/// `quire edit` lays out a paragraph at a time and, after a commit inside one text block, only
/// that paragraph: checked against the simple model, the whole text laid out at once.
@Suite struct DocumentLayoutTests {
    static let markdown = """
        # Title

        A first paragraph with **bold**, *italic* and a [link](https://l.example) in it, long enough to wrap.

        - one
        - two with `code`
          - nested
        - three

        1. first
        2. second

        > A quote
        > over two lines

        ```swift
        let x = 1
        let y = 2
        ```

        | a | b |
        | - | - |
        | c | d |

        ---

        日本語のテキスト and 🎉 emoji.\\
        A line after a break.

        Last paragraph.

        """

    /// A session on a copy of `markdown`, in a directory of its own.
    static func session(columns: Int) throws -> (EditSession, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-layout-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("doc.md")
        try markdown.write(to: file, atomically: true, encoding: .utf8)
        return (try EditSession(path: file.path, setup: MarkupSetup(ConfigOptions.parse([])), size: (columns: columns, rows: 12)), directory)
    }

    /// The model: the whole text through the pipeline and laid out at once.
    static func wholeLayout(_ session: EditSession, width: Int) -> TextLayout {
        let editor = session.editor
        let source = DocumentLayout.intentText(editor: editor, mappings: session.cache.mappings, span: 0..<((editor.storage?.length ?? 0) + 1),
                                               textBlocks: editor.state.textBlocks())
        let styled = StyleEnvironment().apply(to: source.text, attachments: session.cache.attachments.results)
        return TextLayout(DocumentLayout.builder.build(styled, proposal: Double(width)), width: Double(width), metrics: TerminalMetrics())
    }

    /// The flat string's line and column (1-based) at each character boundary, counted in the
    /// storage's text.
    static func linesAndColumns(_ session: EditSession) throws -> [Int: (line: Int, column: Int)] {
        var result: [Int: (line: Int, column: Int)] = [0: (1, 1)]
        var offset = 0
        var position = (line: 1, column: 1)
        for character in try #require(session.editor.storage).string {
            offset += character.utf16.count
            position = character == "\n" ? (position.line + 1, 1) : (position.line, position.column + 1)
            result[offset] = position
        }
        return result
    }

    static let keys: [KeyEvent] = [
        .text("x"), .text("日"), .text("é"), .text(" "), .text("word "), .text("# "), .text("- "), .text("**b**"),
        .enter, .backspace, .backspace, .delete, .tab, .backTab, .left, .right, .up, .down, .home, .end, .pageUp, .pageDown,
        .control("b"), .control("u"), .control("z"), .control("y"), .paste("pasted\ntwo lines"), .paste("more text"),
    ]

    /// Three seeds of 700 steps by default; `QUIRE_LAYOUT_SEEDS=N` runs N.
    static let seeds = (1...max(1, UInt64(ProcessInfo.processInfo.environment["QUIRE_LAYOUT_SEEDS"] ?? "") ?? 3)).map { $0 }

    @Test(arguments: DocumentLayoutTests.seeds)
    func theParagraphAtATimeLayoutIsTheWholeOne(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var columns = 40
        let (session, directory) = try Self.session(columns: columns)
        defer { try? FileManager.default.removeItem(at: directory) }
        for step in 0..<700 {
            if Int.random(in: 0..<50, using: &random) == 0 {
                columns = [12, 30, 40, 80].randomElement(using: &random)!
                try session.resize(columns: columns, rows: 12)
            } else if Int.random(in: 0..<4, using: &random) == 0 {
                // A click somewhere: the caret lands between two characters.
                let text = try #require(session.editor.storage).string
                var boundaries = [0]
                for character in text { boundaries.append(boundaries[boundaries.count - 1] + character.utf16.count) }
                let offset = boundaries.randomElement(using: &random)!
                try session.editor.selectionDidChange(offset..<offset)
            } else {
                let key = Self.keys.randomElement(using: &random)!
                _ = session.handle(key)
            }
            _ = session.frame()
            let layout = session.cache.current
            let whole = Self.wholeLayout(session, width: columns)
            #expect(layout.width == Double(columns))
            let lines = layout.documentLines
            if let first = lines.indices.first(where: { $0 >= whole.lines.count || lines[$0] != whole.lines[$0] }) ?? (lines.count < whole.lines.count ? lines.count : nil) {
                Issue.record("seed \(seed), step \(step): line \(first) differs: \(first < lines.count ? "\(lines[first])" : "none") instead of \(first < whole.lines.count ? "\(whole.lines[first])" : "none")")
                break
            }
            #expect(layout.height == whole.height && layout.length == whole.length, "seed \(seed), step \(step)")
            for _ in 0..<3 {
                let offset = Int.random(in: 0...whole.length, using: &random)
                #expect(layout.caretRect(forOffset: offset) == whole.caretRect(forOffset: offset), "seed \(seed), step \(step), offset \(offset)")
                let point = LayoutPoint(x: Double.random(in: 0..<Double(columns), using: &random), y: Double.random(in: 0..<max(1, whole.height), using: &random))
                #expect(layout.offset(at: point) == whole.offset(at: point), "seed \(seed), step \(step), point \(point)")
                #expect(layout.line(atY: point.y).start == whole.line(atY: point.y).start, "seed \(seed), step \(step)")
            }
            for (offset, expected) in try Self.linesAndColumns(session) {
                let found = layout.lineAndColumn(at: offset)
                #expect(found.line == expected.line && found.column == expected.column, "seed \(seed), step \(step), offset \(offset)")
            }
        }
        // Every path ran: most keys change one paragraph, others change the root's children, and
        // a resize lays the document out whole.
        let statistics = session.cache.statistics
        #expect(statistics.paragraphUpdates > 100, "\(statistics)")
        #expect(statistics.childUpdates > 20, "\(statistics)")
        #expect(statistics.wholeLayouts > 1, "\(statistics)")
    }

    /// Typing into one paragraph of a long document lays out that paragraph alone.
    @Test func typingLaysOutOneParagraph() throws {
        let (session, directory) = try Self.session(columns: 40)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = session.cache.statistics
        for key in [KeyEvent.down, .down, .text("a"), .text("b"), .backspace, .control("b"), .text("c")] { _ = session.handle(key) }
        let after = session.cache.statistics
        #expect(after.wholeLayouts == before.wholeLayouts && after.childUpdates == before.childUpdates)
        #expect(after.paragraphUpdates - before.paragraphUpdates >= 4)
        #expect(session.cache.current.documentLines == Self.wholeLayout(session, width: 40).lines)
    }
}
