import QuireAlgorithms
import QuireMarkup
import Testing

/// Linear scans over the same layout: the simple model the binary searches must agree with.
struct NaiveLayoutModel {
    let layout: TextLayout

    func position(ofOffset offset: Int) -> TextPosition {
        var best: (line: Int, index: Int)?
        for (index, line) in layout.lines.enumerated() where line.start <= offset { best = (index, index) }
        let global = best?.index ?? 0
        let line = layout.lines[global]
        let lineInLayout = layout.lines[..<global].filter { $0.paragraph == line.paragraph }.count
        if line.runs.isEmpty { return TextPosition(layout: line.paragraph, line: lineInLayout, run: 0, runSlice: 0) }
        for (runIndex, run) in line.runs.enumerated() {
            for (slice, start) in run.clusterStarts.enumerated() {
                let end = slice + 1 < run.clusterStarts.count ? run.clusterStarts[slice + 1] : run.range.upperBound
                if offset >= start && offset < end { return TextPosition(layout: line.paragraph, line: lineInLayout, run: runIndex, runSlice: slice) }
            }
        }
        let last = line.runs.count - 1
        return TextPosition(layout: line.paragraph, line: lineInLayout, run: last, runSlice: line.runs[last].clusterStarts.count)
    }
}

@Suite struct LayoutTests {
    static let alphabet: [String] = ["a", "b", "c", " ", " ", "漢", "字", "한", "😀", "👩‍👩‍👧", "é", "e\u{301}", "ｗ", "-"]

    /// A document of `lines` paragraphs of random words with wide characters and emoji.
    static func document(lines: Int, seed: UInt64) -> MarkupDocument {
        var random = SeededGenerator(seed: seed)
        var blocks: [MarkupBlock] = []
        for _ in 0..<lines {
            let length = Int.random(in: 0...60, using: &random)
            var text = ""
            for _ in 0..<length { text += alphabet.randomElement(using: &random)! }
            let inline: MarkupInline = Bool.random(using: &random) ? MarkupInline(.text(text)) : MarkupInline(.strong, children: [MarkupInline(.text(text))])
            blocks.append(MarkupBlock(.paragraph, inlines: [inline]))
        }
        return MarkupDocument(blocks: blocks)
    }

    static func layout(_ document: MarkupDocument, width: Double) -> TextLayout {
        let builder = RunBuilder(metrics: TerminalMetrics())
        let built = builder.build(StyleEnvironment().apply(to: IntentText(document)), proposal: width)
        return TextLayout(built, width: width, metrics: TerminalMetrics())
    }

    @Test func softWrapKeepsLinesWithinTheWidthAndCoversTheText() {
        let document = Self.document(lines: 300, seed: 7)
        let units = Array(IntentText(document).text.string.utf16)
        let layout = Self.layout(document, width: 20)
        var expectedStart = 0
        for line in layout.lines {
            // Only hanging spaces may pass the edge.
            for run in line.runs {
                for (index, start) in run.clusterStarts.enumerated() where run.x + run.clusterEdges[index + 1] > 20 {
                    #expect(units[start] == 0x20, "line at \(line.start) overflows with a non-space")
                }
            }
            if line.start != expectedStart {
                // A new paragraph starts after the previous one's "\n".
                #expect(line.start == expectedStart + 1)
            }
            expectedStart = line.end
        }
        #expect(layout.lines.count > 300)
    }

    @Test(arguments: [UInt64(1), 2])
    func offsetsPositionsAndPointsRoundTripOverTenThousandLines(seed: UInt64) {
        let layout = Self.layout(Self.document(lines: 10_000, seed: seed), width: 40)
        let model = NaiveLayoutModel(layout: layout)
        var random = SeededGenerator(seed: seed &* 31)
        var checked = 0
        for _ in 0..<300 {
            let global = Int.random(in: 0..<layout.lines.count, using: &random)
            let line = layout.lines[global]
            guard !line.runs.isEmpty else { continue }
            let run = line.runs.randomElement(using: &random)!
            let offset = run.clusterStarts.randomElement(using: &random)!
            let position = layout.position(ofOffset: offset)
            #expect(layout.offset(of: position) == offset)
            #expect(position == model.position(ofOffset: offset))
            // offset → caret point → offset.
            let caret = layout.caretRect(at: position)
            let point = LayoutPoint(x: caret.x, y: caret.y + caret.height / 2)
            #expect(layout.offset(at: point) == offset)
            // point → offset → point: a caret point maps to itself.
            #expect(layout.caretRect(forOffset: layout.offset(at: point)) == caret)
            checked += 1
        }
        #expect(checked > 200)
    }

    @Test(arguments: [("a", 1), ("漢", 2), ("😀", 2), ("👩‍👩‍👧", 2), ("e\u{301}", 1), ("\u{301}", 0), ("ｗ", 2)])
    func terminalCellsFollowEastAsianWidth(cluster: String, cells: Int) {
        #expect(TerminalMetrics.cells(of: Character(cluster)) == cells)
    }

    @Test func linksAreHitTestedFromTheLayout() {
        let document = MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.text("see ")), MarkupInline(.link(destination: "https://q.example", title: nil), children: [MarkupInline(.text("here"))]),
        ])])
        let layout = Self.layout(document, width: 80)
        #expect(layout.link(at: LayoutPoint(x: 5, y: 0.5)) == "https://q.example")
        #expect(layout.link(at: LayoutPoint(x: 1, y: 0.5)) == nil)
        #expect(layout.link(at: LayoutPoint(x: 5, y: 3)) == nil)
    }
}

/// `BuiltText.paragraphText(_:)`: what an editor lays out again when one paragraph changed.
@Suite struct ParagraphTextTests {
    /// A paragraph alone lays out as it does in the whole text, counted from its start.
    @Test func aParagraphOnItsOwnLaysOutAsInTheWholeText() {
        let text = IntentText(plainText: "first line that wraps around\nsecond\n\nfourth one")
        let built = RunBuilder(metrics: TerminalMetrics(), blockStyles: .compact).build(StyleEnvironment().apply(to: text), proposal: 10)
        let whole = TextLayout(built, width: 10, metrics: TerminalMetrics())
        for index in built.paragraphs.indices {
            let own = built.paragraphText(index)
            let start = built.paragraphs[index].paragraph.range.lowerBound
            #expect(own.units == Array(built.units[built.paragraphs[index].paragraph.range]))
            let lines = TextLayout(own, width: 10, metrics: TerminalMetrics()).lines
            let expected = whole.lines.filter { $0.paragraph == index }
            #expect(lines.map { $0.start + start } == expected.map(\.start))
            #expect(lines.map { $0.end + start } == expected.map(\.end))
            #expect(lines.flatMap { $0.runs.flatMap { $0.clusterStarts.map { $0 + start } } } == expected.flatMap { $0.runs.flatMap(\.clusterStarts) })
        }
    }

    /// A break that ends a paragraph leaves an empty line after it, which starts after the break
    /// (it started at the paragraph's start, out of offset order, and the caret after the break
    /// was placed on another line).
    @Test func theEmptyLineAfterAParagraphsLastBreakStartsAfterIt() {
        let text = IntentText(plainText: "ab\u{2028}\nnext")
        let built = RunBuilder(metrics: TerminalMetrics(), blockStyles: .compact).build(StyleEnvironment().apply(to: text), proposal: 10)
        let layout = TextLayout(built, width: 10, metrics: TerminalMetrics())
        #expect(layout.lines.map(\.start) == [0, 3, 4])
        #expect(layout.lines.map(\.y) == [0, 1, 2])
        #expect(layout.caretRect(forOffset: 3) == LayoutRect(x: 0, y: 1, width: 0, height: 1))
        #expect(layout.caretRect(forOffset: 5) == LayoutRect(x: 1, y: 2, width: 0, height: 1))
    }
}
