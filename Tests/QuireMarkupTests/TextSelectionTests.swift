import QuireMarkup
import Testing

/// Selection over a rendered document, headless with the terminal metrics. The document:
///
/// ```
/// 0  Hello brave           "Hello brave new world" (0..<21), wrapped at 12 cells
/// 1  new world
/// 2
/// 3    let x = 1 and a long tail   a code block (22..<47) that scrolls, wider than 12
/// 4
/// 5  Last words            "Last words here." (48..<64)
/// 6  here.
/// ```
@Suite struct TextSelectionTests {
    static let text: IntentText = IntentText(MarkupDocument(blocks: [
        MarkupBlock(.paragraph, inlines: [MarkupInline(.text("Hello brave new world"))]),
        MarkupBlock(.codeBlock(language: "swift"), literal: "let x = 1 and a long tail\n"),
        MarkupBlock(.paragraph, inlines: [MarkupInline(.text("Last words here."))]),
    ]))
    static let layout: TextLayout = {
        let built = RunBuilder(metrics: TerminalMetrics()).build(StyleEnvironment().apply(to: text), proposal: 12)
        return TextLayout(built, width: 12, metrics: TerminalMetrics())
    }()

    func model() -> RenderedTextSelection { RenderedTextSelection(text: Self.text, layout: Self.layout) }

    @Test func theFixtureIsLaidOutAsDrawn() {
        #expect(Self.layout.lines.map(\.y) == [0, 1, 3, 5, 6])
        #expect(Self.layout.lines.map(\.start) == [0, 12, 22, 48, 59])
        #expect(Self.layout.overflow == [.wrap, .scrollHorizontally, .wrap])
    }

    @Test func aPointAndADragSelectAcrossAWrappedLine() {
        var selection = model()
        selection.begin(at: LayoutPoint(x: 1.2, y: 0.5))
        #expect(selection.selectedRange == 1..<1 && selection.selectedRanges.isEmpty && selection.plainText.isEmpty)
        selection.drag(to: LayoutPoint(x: 3.4, y: 1.5))
        #expect(selection.selection?.context == .document)
        #expect(selection.selectedRange == 1..<15)
        #expect(selection.plainText == "ello brave new")
        #expect(selection.highlightRects == [LayoutRect(x: 1, y: 0, width: 11, height: 1), LayoutRect(x: 0, y: 1, width: 3, height: 1)])
        // Dragging back above the anchor selects backwards.
        selection.drag(to: LayoutPoint(x: 0, y: 0.5))
        #expect(selection.selectedRange == 0..<1)
        #expect(selection.selection.map { Self.layout.offset(of: $0.focus) } == 0)
    }

    @Test(arguments: [
        (7.0, 0.5, "brave"), (5.5, 0.5, " "), (0, 0.5, "Hello"), (2, 1.5, "new"), (8.5, 1.5, "world"), (11, 1.5, "world"),
        (4.5, 3.5, "let"), (6.5, 3.5, "x"), (7.5, 3.5, " "), (10.5, 3.5, "1"), (15, 6.5, "."), (15, 5.5, " "), (3, 6.5, "here"),
    ])
    func aWordIsSelectedAtAPoint(x: Double, y: Double, word: String) {
        var selection = model()
        selection.selectWord(at: LayoutPoint(x: x, y: y))
        #expect(selection.plainText == word)
    }

    @Test(arguments: [(2.0, 0.5, "Hello brave "), (2, 1.5, "new world"), (2, 5.5, "Last words "), (2, 6.5, "here."), (30, 3.5, "let x = 1 and a long tail")])
    func aLineIsSelectedAtAPoint(x: Double, y: Double, line: String) {
        var selection = model()
        selection.selectLine(at: LayoutPoint(x: x, y: y))
        #expect(selection.plainText == line)
    }

    @Test(arguments: [(2.0, 1.5, "Hello brave new world"), (2, 6.5, "Last words here."), (5, 3.5, "let x = 1 and a long tail")])
    func aParagraphIsSelectedAtAPoint(x: Double, y: Double, paragraph: String) {
        var selection = model()
        selection.selectParagraph(at: LayoutPoint(x: x, y: y))
        #expect(selection.plainText == paragraph)
    }

    /// A caret at offset 14 ("ne|w world", column 2 of line 1), then one move with Shift.
    @Test(arguments: [
        (SelectionMove.left, 13), (.right, 15), (.wordLeft, 12), (.wordRight, 15), (.up, 2), (.down, 50), (.lineStart, 12), (.lineEnd, 21),
        (.paragraphStart, 0), (.paragraphEnd, 21), (.documentStart, 0), (.documentEnd, 64),
    ])
    func aKeyboardMoveExtendsTheFocusAndKeepsTheAnchor(move: SelectionMove, focus: Int) throws {
        var selection = model()
        selection.begin(at: LayoutPoint(x: 2, y: 1.5))
        #expect(selection.selectedRange == 14..<14)
        selection.extend(move)
        let current = try #require(selection.selection)
        #expect(Self.layout.offset(of: current.anchor) == 14)
        #expect(Self.layout.offset(of: current.focus) == focus)
        #expect(selection.selectedRange == min(14, focus)..<max(14, focus))
    }

    @Test func keyboardMovesStepOverTheScrollingBlockAndKeepTheirColumn() throws {
        var selection = model()
        selection.begin(at: LayoutPoint(x: 0, y: 5.5))
        selection.extend(.left)
        // From the start of the last paragraph, one step back is the first paragraph's end.
        #expect(selection.selectedRange == 21..<48)
        #expect(selection.selectedRanges == [21..<22])
        selection.extend(.right)
        #expect(selection.selectedRange == 48..<48)
        // Down and up keep to the column they started from, across a shorter line.
        selection.begin(at: LayoutPoint(x: 10, y: 0.5))
        selection.extend(.down)
        #expect(selection.selectedRange == 10..<21)
        selection.extend(.down)
        #expect(selection.selectedRange == 10..<58)
        selection.extend(.up)
        #expect(selection.selectedRange == 10..<21)
        selection.extend(.wordLeft)
        #expect(selection.selectedRange == 10..<16)
    }

    @Test func aDocumentSelectionLeavesTheScrollingCodeBlockOut() {
        var selection = model()
        selection.begin(at: LayoutPoint(x: 0, y: 0.5))
        selection.drag(to: LayoutPoint(x: 2, y: 6.5))
        #expect(selection.selectedRange == 0..<61)
        #expect(selection.selectedRanges == [0..<22, 48..<61])
        #expect(selection.plainText == "Hello brave new world\nLast words he")
        #expect(selection.highlightRects.map(\.y) == [0, 1, 5, 6])
        selection.selectAll()
        #expect(selection.selectedRanges == [0..<22, 48..<64])
        #expect(selection.plainText == "Hello brave new world\nLast words here.")
    }

    @Test func theCodeBlockHasItsOwnSelectionAndStartingOneClearsTheOther() throws {
        var selection = model()
        selection.begin(at: LayoutPoint(x: 0, y: 0.5))
        selection.drag(to: LayoutPoint(x: 5, y: 1.5))
        #expect(selection.selection?.context == .document)
        // A press in the code block starts its selection: the document's is gone.
        selection.begin(at: LayoutPoint(x: 4, y: 3.5))
        #expect(selection.selection?.context == .scrollingBlock(layout: 1))
        #expect(selection.selectedRange == 24..<24)
        // A drag out of the block stops at its end; past the width, the line goes on.
        selection.drag(to: LayoutPoint(x: 3, y: 6.5))
        #expect(selection.plainText == "t x = 1 and a long tail")
        selection.drag(to: LayoutPoint(x: 20, y: 3.5))
        #expect(selection.plainText == "t x = 1 and a lo")
        selection.drag(to: LayoutPoint(x: 3, y: 0))
        #expect(selection.plainText == "le")
        selection.extend(.documentEnd)
        #expect(selection.selectedRange == 24..<47)
        selection.selectAll()
        #expect(selection.plainText == "let x = 1 and a long tail")
        selection.extend(.down)
        #expect(selection.selectedRange == 22..<47)
        // Back in the document: the code block's selection is gone.
        selection.selectWord(at: LayoutPoint(x: 1, y: 6.5))
        #expect(selection.selection?.context == .document)
        #expect(selection.plainText == "here")
        selection.clear()
        #expect(selection.selection == nil && selection.plainText.isEmpty && selection.highlightRects.isEmpty)
    }

    @Test func hardBreaksAndImagesCopyAsPlainText() {
        let text = IntentText(MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.text("one")), MarkupInline(.lineBreak), MarkupInline(.image(source: "a.png", title: nil), children: [MarkupInline(.text("alt"))]),
            MarkupInline(.text("two")),
        ])]))
        let built = RunBuilder(metrics: TerminalMetrics()).build(StyleEnvironment().apply(to: text), proposal: 40)
        var selection = RenderedTextSelection(text: text, layout: TextLayout(built, width: 40, metrics: TerminalMetrics()))
        selection.selectAll()
        #expect(selection.plainText == "one\ntwo")
    }

    struct NoAttachments: AttachmentLoader {
        func load(_ url: String) async throws(AttachmentError) -> LoadedAttachment { throw AttachmentError(url: url, message: "none here") }
    }

    /// The pipeline's rendering keeps the preprocessed text, which is what is selected.
    @Test func aRenderedDocumentIsSelectedAsPreprocessed() async {
        let pipeline = MarkupPipeline(attachments: AttachmentCache(loader: NoAttachments()), builder: RunBuilder(metrics: TerminalMetrics()))
        let rendered = await pipeline.render(MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text("Party :tada: now"))])]), width: 40)
        var selection = RenderedTextSelection(rendered)
        selection.selectAll()
        #expect(selection.plainText == "Party 🎉 now")
        selection.selectWord(at: LayoutPoint(x: 6.5, y: 0.5))
        #expect(selection.plainText == "🎉")
        #expect(rendered.built == (await pipeline.build(MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text("Party :tada: now"))])]), proposal: 40)))
    }
}
