@testable import QuireMarkup
import Synchronization
import Testing

@Suite struct LinkInteractionTests {
    /// "Go to the quick brown fox page now." with the link on "the quick brown fox page"
    /// (offsets 6..<30), wrapped at 16 cells: "Go to the quick " / "brown fox page " / "now.".
    static let layout: TextLayout = {
        let document = MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.text("Go to ")),
            MarkupInline(.link(destination: "https://q.example", title: nil), children: [MarkupInline(.text("the quick brown fox page"))]),
            MarkupInline(.text(" now.")),
        ])])
        let built = RunBuilder(metrics: TerminalMetrics()).build(StyleEnvironment().apply(to: IntentText(document)), proposal: 16)
        return TextLayout(built, width: 16, metrics: TerminalMetrics())
    }()

    static let link = LinkHit(url: "https://q.example", range: 6..<30, frames: [
        LayoutRect(x: 6, y: 0, width: 10, height: 1), LayoutRect(x: 0, y: 1, width: 14, height: 1),
    ])

    @Test(arguments: [
        (6.0, 0.5, true), (7.5, 0.2, true), (15.9, 0.9, true), (3, 1.5, true), (13.9, 1.5, true),
        (5.9, 0.5, false), (16, 0.5, false), (2, 0.5, false), (14.5, 1.5, false), (1, 2.5, false), (20, 0.5, false), (3, 3.5, false), (-1, 1.5, false),
    ])
    func aLinkIsHitAtPointsOverItsTextOnEveryLineItWrapsTo(x: Double, y: Double, isOverLink: Bool) {
        let hit = Self.layout.linkHit(at: LayoutPoint(x: x, y: y))
        #expect(hit == (isOverLink ? Self.link : nil))
        #expect(Self.layout.link(at: LayoutPoint(x: x, y: y)) == (isOverLink ? "https://q.example" : nil))
        #expect(Self.link.contains(LayoutPoint(x: x, y: y)) == isOverLink)
    }

    @Test(arguments: 0..<36)
    func aLinkIsFoundByOffset(offset: Int) {
        #expect(Self.layout.linkHit(atOffset: offset) == ((6..<30).contains(offset) ? Self.link : nil))
    }

    /// Records what it was asked to open.
    final class RecordingOpener: LinkOpener {
        let opened = Mutex<[String]>([])
        let handles: Bool
        init(handles: Bool = true) { self.handles = handles }
        func open(_ url: String) -> Bool {
            opened.withLock { $0.append(url) }
            return handles
        }
    }

    @Test func aTapOverALinkCallsTheInjectedOpener() {
        let opener = RecordingOpener()
        var interaction = LinkInteraction(opener: opener)
        #expect(interaction.tap(at: LayoutPoint(x: 4, y: 1.5), in: Self.layout) == LinkActivation(link: Self.link, opened: true))
        #expect(interaction.tap(at: LayoutPoint(x: 1, y: 0.5), in: Self.layout) == nil)
        #expect(opener.opened.withLock { $0 } == ["https://q.example"])
        #expect(interaction.pressed == nil && !interaction.isHighlighted)
        // An opener that does not handle the link: the activation says so.
        var declining = LinkInteraction(opener: RecordingOpener(handles: false))
        #expect(declining.tap(at: LayoutPoint(x: 8, y: 0.5), in: Self.layout)?.opened == false)
        // A closure opener.
        let seen = Mutex<String?>(nil)
        var closure = LinkInteraction(opener: LinkOpenerFunction { url in seen.withLock { $0 = url }; return true })
        _ = closure.tap(at: LayoutPoint(x: 8, y: 0.5), in: Self.layout)
        #expect(seen.withLock { $0 } == "https://q.example")
    }

    @Test func aPressHighlightsTheLinkUntilThePointerLeavesAndOpensOnlyWhenReleasedOverIt() {
        let opener = RecordingOpener()
        var interaction = LinkInteraction(opener: opener)
        #expect(interaction.press(at: LayoutPoint(x: 8, y: 0.5), in: Self.layout) == Self.link)
        #expect(interaction.isHighlighted && interaction.pressed?.frames == Self.link.frames)
        interaction.move(to: LayoutPoint(x: 2, y: 0.5))
        #expect(!interaction.isHighlighted)
        interaction.move(to: LayoutPoint(x: 2, y: 1.5))
        #expect(interaction.isHighlighted)
        #expect(interaction.release(at: LayoutPoint(x: 1, y: 2.5)) == nil)
        #expect(opener.opened.withLock { $0 }.isEmpty)
        // A cancelled press opens nothing either.
        interaction.press(at: LayoutPoint(x: 8, y: 0.5), in: Self.layout)
        interaction.cancel()
        #expect(interaction.release(at: LayoutPoint(x: 8, y: 0.5)) == nil)
        #expect(opener.opened.withLock { $0 }.isEmpty)
        // A press off any link presses nothing.
        #expect(interaction.press(at: LayoutPoint(x: 1, y: 0.5), in: Self.layout) == nil)
        #expect(!interaction.isHighlighted)
    }

    /// Two links side by side stay two links.
    @Test func neighbouringLinksAreSeparate() {
        let document = MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.link(destination: "a", title: nil), children: [MarkupInline(.text("one"))]),
            MarkupInline(.link(destination: "b", title: nil), children: [MarkupInline(.text("two"))]),
        ])])
        let built = RunBuilder(metrics: TerminalMetrics()).build(StyleEnvironment().apply(to: IntentText(document)), proposal: 40)
        let layout = TextLayout(built, width: 40, metrics: TerminalMetrics())
        #expect(layout.linkHit(at: LayoutPoint(x: 1, y: 0)) == LinkHit(url: "a", range: 0..<3, frames: [LayoutRect(x: 0, y: 0, width: 3, height: 1)]))
        #expect(layout.linkHit(at: LayoutPoint(x: 3, y: 0)) == LinkHit(url: "b", range: 3..<6, frames: [LayoutRect(x: 3, y: 0, width: 3, height: 1)]))
    }
}
