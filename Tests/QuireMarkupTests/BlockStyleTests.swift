import QuireMarkup
import Synchronization
import Testing

@Suite struct BlockStyleTests {
    static func paragraph(_ text: String) -> MarkupBlock { MarkupBlock(.paragraph, inlines: [MarkupInline(.text(text))]) }
    static func heading(_ text: String, level: Int = 1) -> MarkupBlock { MarkupBlock(.heading(level: level), inlines: [MarkupInline(.text(text))]) }

    static func build(_ blocks: [MarkupBlock], styles: BlockStyles = .standard, width: Double = 40) -> (built: BuiltText, layout: TextLayout) {
        let built = RunBuilder(metrics: TerminalMetrics(), blockStyles: styles)
            .build(StyleEnvironment().apply(to: IntentText(MarkupDocument(blocks: blocks))), proposal: width)
        return (built, TextLayout(built, width: width, metrics: TerminalMetrics()))
    }

    /// The y of each paragraph's first line.
    static func tops(_ layout: TextLayout) -> [Double] { layout.firstLine.map { layout.lines[$0].y } }

    /// A style that gives every block of its kind the same spacing.
    static func spaced(top: Double, bottom: Double) -> BlockStyleFunction {
        BlockStyleFunction { _ in BlockDecoration(spacing: BlockSpacing(top: top, bottom: bottom)) }
    }

    @Test(arguments: [(1.0, 1.0, 1.0), (3, 1, 3), (0, 2, 2), (0, 0, 0), (2.5, 4, 4)])
    func adjacentSpacingCollapsesToTheLarger(headingBottom: Double, paragraphTop: Double, gap: Double) {
        let styles = BlockStyles.standard
            .replacing(.heading, with: Self.spaced(top: 7, bottom: headingBottom))
            .replacing(.paragraph, with: Self.spaced(top: paragraphTop, bottom: 9))
        let (built, layout) = Self.build([Self.heading("Title"), Self.paragraph("Body")], styles: styles)
        // The first block has nothing above it; the second is `gap` below the heading's line.
        #expect(built.paragraphs.map(\.spacingBefore) == [0, gap])
        #expect(Self.tops(layout) == [0, 1 + gap])
        #expect(layout.height == 2 + gap)
    }

    /// A container's spacing and its first child's meet at the same edge: they collapse too, with
    /// the spacing of the block that ends above.
    @Test func spacingCollapsesThroughNestedBlocks() {
        let styles = BlockStyles.standard
            .replacing(.paragraph, with: Self.spaced(top: 1, bottom: 1))
            .replacing(.blockQuote, with: BlockStyleFunction { _ in BlockDecoration(indent: 2, marker: "│", spacing: BlockSpacing(top: 3, bottom: 2)) })
        let quote = MarkupBlock(.blockQuote, children: [Self.paragraph("one"), Self.paragraph("two")])
        let (built, layout) = Self.build([Self.paragraph("before"), quote, Self.paragraph("after")], styles: styles)
        #expect(built.paragraphs.map(\.spacingBefore) == [0, 3, 1, 2])
        #expect(Self.tops(layout) == [0, 4, 6, 9])
    }

    @Test func theStandardThemeSeparatesBlocksButNotATightListsItems() {
        let tight = MarkupBlock(.list(.bullet, tight: true), children: [
            MarkupBlock(.listItem(checked: nil), children: [Self.paragraph("a")]),
            MarkupBlock(.listItem(checked: nil), children: [Self.paragraph("b"),
                MarkupBlock(.list(.ordered(start: 3), tight: true), children: [MarkupBlock(.listItem(checked: nil), children: [Self.paragraph("c")])])]),
        ])
        let loose = MarkupBlock(.list(.bullet, tight: false), children: [
            MarkupBlock(.listItem(checked: nil), children: [Self.paragraph("d")]),
            MarkupBlock(.listItem(checked: nil), children: [Self.paragraph("e")]),
        ])
        let (built, _) = Self.build([Self.heading("H"), Self.paragraph("p"), tight, loose, MarkupBlock(.codeBlock(language: nil), literal: "x\n")])
        #expect(built.paragraphs.map(\.spacingBefore) == [0, 1, 1, 0, 0, 1, 1, 1])
        #expect(built.paragraphs.map(\.marker) == ["", "", "•", "•", "3.", "•", "•", ""])
        #expect(built.paragraphs.map(\.indent) == [0, 0, 2, 2, 5, 2, 2, 2])
        #expect(built.paragraphs.map(\.overflow) == [.wrap, .wrap, .wrap, .wrap, .wrap, .wrap, .wrap, .scrollHorizontally])
    }

    @Test func compactStylesKeepIndentsAndMarkersWithoutSpacing() {
        let blocks = [Self.heading("H"), MarkupBlock(.blockQuote, children: [Self.paragraph("q")]), MarkupBlock(.codeBlock(language: "swift"), literal: "let x = 1\n")]
        let standard = Self.build(blocks).built.paragraphs
        let compact = Self.build(blocks, styles: .compact).built.paragraphs
        #expect(compact.map(\.spacingBefore) == [0, 0, 0])
        #expect(compact.map(\.indent) == standard.map(\.indent))
        #expect(compact.map(\.marker) == standard.map(\.marker))
        #expect(compact.map(\.overflow) == [.wrap, .wrap, .wrap])
    }

    /// An app replaces one kind's style: that kind changes, every other block is decorated as
    /// the theme decorates it.
    @Test(arguments: BlockKind.allCases)
    func anAppOverridesOneBlockStyleAndKeepsTheOthers(kind: BlockKind) {
        let blocks = [
            Self.heading("Title", level: 2), Self.paragraph("Body"),
            MarkupBlock(.blockQuote, children: [Self.paragraph("quoted")]),
            MarkupBlock(.list(.task, tight: true), children: [MarkupBlock(.listItem(checked: true), children: [Self.paragraph("done")])]),
            MarkupBlock(.codeBlock(language: "swift"), literal: "let x = 1\n"),
            MarkupBlock(.table(alignments: [.left]), children: [
                MarkupBlock(.tableRow(isHeader: true), children: [MarkupBlock(.tableCell(column: 0, alignment: .left), inlines: [MarkupInline(.text("h"))])]),
            ]),
            MarkupBlock(.thematicBreak),
        ]
        // The theme's style for the kind, 11 wider and marked "»".
        let override = BlockStyleFunction { configuration in
            var decoration = StandardBlockStyle(kind).decoration(configuration)
            decoration.indent += 11
            decoration.marker = "»"
            return decoration
        }
        let standard = Self.build(blocks).built.paragraphs
        let custom = Self.build(blocks, styles: BlockStyles.standard.replacing(kind, with: override)).built.paragraphs
        #expect(custom.count == standard.count)
        for (mine, theirs) in zip(custom, standard) {
            let path = mine.paragraph.path.map(\.intent.kind)
            guard let depth = path.firstIndex(of: kind) else {
                #expect(mine == theirs, "\(mine.paragraph.block.intent.name)")
                continue
            }
            #expect(mine.indent == theirs.indent + 11, "\(mine.paragraph.block.intent.name)")
            // An inner quote or list item draws its own marker over the override's.
            let innerMarker = path[(depth + 1)...].contains { $0 == .blockQuote || $0 == .listItem }
            #expect(mine.marker == (innerMarker ? theirs.marker : "»"), "\(mine.paragraph.block.intent.name)")
        }
    }

    /// What the styles are told: the block's content, heading level, list depth and marker, quote
    /// depth, code language and table geometry.
    @Test func stylesReceiveTheBlocksContentAndMetadata() {
        let seen = Mutex<[BlockStyleConfiguration]>([])
        let recorder = BlockStyleFunction { configuration in
            seen.withLock { $0.append(configuration) }
            return StandardBlockStyle(configuration.block.intent.kind).decoration(configuration)
        }
        var styles = BlockStyles.standard
        for kind in BlockKind.allCases { styles[kind] = recorder }
        let cell = { (text: String, column: Int) in MarkupBlock(.tableCell(column: column, alignment: column == 0 ? .left : .right), inlines: [MarkupInline(.text(text))]) }
        _ = Self.build([
            Self.heading("Deep", level: 3),
            MarkupBlock(.blockQuote, children: [MarkupBlock(.blockQuote, children: [
                MarkupBlock(.list(.ordered(start: 7), tight: false), children: [
                    MarkupBlock(.listItem(checked: nil), children: [Self.paragraph("first")]),
                    MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.list(.task, tight: true), children: [
                        MarkupBlock(.listItem(checked: false), children: [Self.paragraph("todo")]),
                    ])]),
                ]),
            ])]),
            MarkupBlock(.codeBlock(language: "swift"), literal: "print(1)\n"),
            MarkupBlock(.table(alignments: [.left, .right]), children: [
                MarkupBlock(.tableRow(isHeader: true), children: [cell("a", 0), cell("b", 1)]),
                MarkupBlock(.tableRow(isHeader: false), children: [cell("c", 0)]),
            ]),
        ], styles: styles)
        let configurations = seen.withLock { $0 }
        func of(_ kind: BlockKind) -> [BlockStyleConfiguration] { configurations.filter { $0.block.intent.kind == kind } }
        #expect(of(.heading).map(\.headingLevel) == [3])
        #expect(of(.heading).map(\.content) == ["Deep"])
        #expect(of(.listItem).map(\.listMarker) == ["7.", "8.", "☐"])
        #expect(of(.listItem).map(\.listDepth) == [1, 1, 2])
        #expect(of(.listItem).map(\.isInTightList) == [false, false, true])
        #expect(of(.listItem).map(\.quoteDepth) == [2, 2, 2])
        #expect(of(.paragraph).map(\.content) == ["first", "todo"])
        #expect(of(.codeBlock).map(\.codeLanguage) == ["swift"])
        #expect(of(.codeBlock).map(\.content) == ["print(1)"])
        #expect(of(.tableCell).compactMap(\.table) == [
            TableGeometry(row: 0, column: 0, rowCount: 2, columnCount: 2, isHeader: true, alignment: .left),
            TableGeometry(row: 0, column: 1, rowCount: 2, columnCount: 2, isHeader: true, alignment: .right),
            TableGeometry(row: 1, column: 0, rowCount: 2, columnCount: 2, isHeader: false, alignment: .left),
        ])
        // A quote with two paragraphs is asked once per paragraph, told which is first and last.
        let outerQuote = of(.blockQuote).filter { $0.enclosing.isEmpty }
        #expect(outerQuote.map(\.isFirstParagraph) == [true, false])
        #expect(outerQuote.map(\.isLastParagraph) == [false, true])
    }

    /// A block that scrolls horizontally keeps its lines whole; the others wrap at the width.
    @Test func aScrollingCodeBlockIsNotWrapped() {
        let long = String(repeating: "word ", count: 12)
        let (_, layout) = Self.build([Self.paragraph(long), MarkupBlock(.codeBlock(language: nil), literal: long + "\nshort\n")], width: 20)
        let code = layout.overflow.firstIndex(of: .scrollHorizontally)
        #expect(code == 1)
        let codeLines = layout.lines.filter { $0.paragraph == 1 }
        #expect(codeLines.count == 2)
        #expect(codeLines[0].runs.map(\.width).reduce(0, +) > 20)
        #expect(layout.lines.filter { $0.paragraph == 0 }.count > 1)
    }
}
