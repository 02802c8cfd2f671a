import Foundation
import QuireMarkup
import QuireTextStorage
import Testing

let sampleDocument = MarkupDocument(blocks: [
    MarkupBlock(.heading(level: 1), inlines: [MarkupInline(.text("Title :rocket:"))]),
    MarkupBlock(.paragraph, inlines: [
        MarkupInline(.text("Hi :smile: ")), MarkupInline(.code(":smile:")), MarkupInline(.text(" ")),
        MarkupInline(.strong, children: [MarkupInline(.text("bold"))]), MarkupInline(.softBreak),
        MarkupInline(.link(destination: "https://example.com", title: nil), children: [MarkupInline(.text("link"))]),
        MarkupInline(.text(" :nope: ")),
        MarkupInline(.image(source: "pic.png", title: nil), children: [MarkupInline(.text("a pic"))]),
    ]),
    MarkupBlock(.list(.ordered(start: 3), tight: true), children: [
        MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text("three"))])]),
        MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text("four"))])]),
    ]),
    MarkupBlock(.codeBlock(language: "swift"), literal: "let x = \":smile:\"\n"),
])

@Suite struct PipelineStageTests {
    @Test func parseGivesParagraphsWithBlockPathsAndInlineAttributes() throws {
        let text = IntentText(sampleDocument)
        #expect(text.paragraphs.count == 5)
        #expect(text.paragraphs.map { $0.block.intent.name } == ["heading 1", "paragraph", "paragraph", "paragraph", "code block"])
        let item = text.paragraphs[3].path
        #expect(item.map(\.intent.name) == ["ordered list", "list item", "paragraph"])
        #expect(item[1].ordinal == 1)
        #expect(text.paragraphs[2].path[1].id != text.paragraphs[3].path[1].id)
        // Ranges tile the text and every paragraph ends with "\n".
        var next = 0
        let units = Array(text.text.string.utf16)
        for paragraph in text.paragraphs {
            #expect(paragraph.range.lowerBound == next)
            #expect(units[paragraph.range.upperBound - 1] == 0x0A)
            next = paragraph.range.upperBound
        }
        #expect(next == units.count)
        let bold = text.text.runs.filter { $0.attributes[.bold] == .bool(true) }
        #expect(bold.count == 1)
        let attachments = text.text.runs.filter { $0.attributes[.attachment] != nil }
        #expect(attachments.map(\.range.length) == [1])
        #expect(text.string(of: text.paragraphs[1]).contains("\u{FFFC}"))
    }

    @Test func plainTextIsOneParagraphPerLineWithUTF16Ranges() {
        let text = IntentText(plainText: "a😀\n\nb")
        #expect(text.text.string == "a😀\n\nb\n")
        #expect(text.paragraphs.map(\.range) == [0..<4, 4..<5, 5..<7])
        #expect(text.paragraphs.map(\.path.count) == [1, 1, 1])
        #expect(text.paragraphs.map(\.block.intent) == [.paragraph, .paragraph, .paragraph])
        #expect(text.paragraphs.map(\.block.id) == [0, 1, 2])
        #expect(text.paragraphs.map(\.block.ordinal) == [0, 1, 2])
        #expect(text.text.runs.allSatisfy { $0.attributes.isEmpty })
        #expect(IntentText(plainText: "").paragraphs.map(\.range) == [0..<1])
    }

    @Test func emojiShortcodesAreReplacedOutsideCode() throws {
        let text = EmojiPreprocessor().process(IntentText(sampleDocument))
        #expect(text.string(of: text.paragraphs[0]) == "Title 🚀")
        let paragraph = text.string(of: text.paragraphs[1])
        #expect(paragraph.hasPrefix("Hi 😄 :smile: bold link :nope: "))
        #expect(text.string(of: text.paragraphs[4]) == "let x = \":smile:\"")
        // Paragraph ranges still tile the new text.
        #expect(text.paragraphs.last?.range.upperBound == text.text.length)
        let code = text.text.runs.filter { $0.attributes[.code] == .bool(true) }
        #expect(code.count == 2)
    }

    @Test(arguments: [("+1", "👍"), ("thumbs_up", "👍"), ("heart", "❤️"), ("rocket", "🚀")])
    func emojiTableHasCommonShortcodes(code: String, emoji: String) {
        #expect(EmojiPreprocessor.emoji(for: code) == emoji)
    }

    @Test(arguments: ["a:b:c", "::", ":smile", "no colons", ": smile :", "at 12:30:45", "x:smile:"])
    func textWithoutShortcodesIsUnchanged(text: String) {
        #expect(EmojiPreprocessor.replaceShortcodes(in: text) == text)
    }

    @Test func styleFollowsTheEnvironment() throws {
        let environment = StyleEnvironment(baseFontSize: 10, dynamicTypeScale: 1.5)
        let styled = environment.apply(to: IntentText(sampleDocument))
        let heading = try #require(styled.paragraphs[0].runs.first)
        #expect(heading.style.font.size == 10 * 1.5 * 2.0)
        #expect(heading.style.font.bold)
        let runs = styled.paragraphs[1].runs
        let code = try #require(runs.filter { $0.style.font.family == "monospace" }.first)
        #expect(code.style.background == "lightgray")
        let link = try #require(runs.filter { $0.style.link != nil }.first)
        #expect(link.style.link == "https://example.com")
        #expect(link.style.underline)
        let block = try #require(styled.paragraphs[4].runs.first)
        #expect(block.style.font.family == "monospace")
    }

    @Test func buildCapsImagesAtTheProposalKeepingTheAspectRatio() throws {
        let loaded = AttachmentResult.loaded(LoadedAttachment(url: "pic.png", size: AttachmentSize(width: 800, height: 400), byteCount: 10))
        let styled = StyleEnvironment().apply(to: IntentText(sampleDocument), attachments: ["pic.png": loaded])
        let cache = AttachmentSizeCache()
        let builder = RunBuilder(metrics: ProportionalMetrics(), cache: cache)
        let narrow = builder.build(styled, proposal: 200)
        let image = try #require(narrow.paragraphs[1].runs.filter { $0.attachment != nil }.first)
        #expect(image.size == AttachmentSize(width: 200, height: 100))
        let wide = builder.build(styled, proposal: 1000)
        let full = try #require(wide.paragraphs[1].runs.filter { $0.attachment != nil }.first)
        #expect(full.size == AttachmentSize(width: 800, height: 400))
        _ = builder.build(styled, proposal: 200)
        #expect(cache.statistics.hits == 1)
        #expect(cache.statistics.misses == 2)
        // List items get their markers; the second item's number follows the start.
        #expect(narrow.paragraphs[2].marker == "3.")
        #expect(narrow.paragraphs[3].marker == "4.")
    }
}

/// A loader that counts its calls and holds every load until released.
actor GatedLoader: AttachmentLoader {
    var calls = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var open = false

    func load(_ url: String) async throws(AttachmentError) -> LoadedAttachment {
        calls += 1
        if !open { await withCheckedContinuation { waiters.append($0) } }
        return LoadedAttachment(url: url, size: AttachmentSize(width: 10, height: 20), byteCount: 1)
    }

    func release() {
        open = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

@Suite struct AttachmentTests {
    @Test func concurrentRequestsForOneURLAreFetchedOnce() async throws {
        let loader = GatedLoader()
        let cache = AttachmentCache(loader: loader)
        async let first = cache.resolve("a.png")
        async let second = cache.resolve("a.png")
        // Both requests are waiting on the one load before it is released.
        while await cache.waitingRequests < 2 { await Task.yield() }
        await loader.release()
        let results = await [first, second]
        #expect(results[0] == results[1])
        #expect(await loader.calls == 1)
        _ = await cache.resolve("a.png")
        #expect(await loader.calls == 1)
    }

    @Test func aFailedLoadShowsItsPlaceholder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-attachments-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A 3×2 PNG header is enough for the size.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 3, 0, 0, 0, 2]
        png += [8, 6, 0, 0, 0]
        try Data(png).write(to: directory.appendingPathComponent("ok.png"))
        let document = MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.image(source: "ok.png", title: nil), children: [MarkupInline(.text("ok"))]),
            MarkupInline(.image(source: "missing.png", title: nil), children: [MarkupInline(.text("gone"))]),
        ])])
        let pipeline = MarkupPipeline(attachments: AttachmentCache(loader: FileAttachmentLoader(baseDirectory: directory)),
                                      builder: RunBuilder(metrics: TerminalMetrics()))
        let layout = await pipeline.layout(document, width: 80)
        let frames = layout.attachmentFrames
        #expect(frames.count == 2)
        guard frames.count == 2 else { return }
        #expect(frames[0].attachment.result == .loaded(LoadedAttachment(url: "ok.png", size: AttachmentSize(width: 3, height: 2), byteCount: png.count)))
        guard case .failed(let error)? = frames[1].attachment.result else {
            Issue.record("the missing file did not fail: \(String(describing: frames[1].attachment.result))")
            return
        }
        #expect(error.url == "missing.png")
        let label = RunBuilder.label(for: frames[1].attachment)
        #expect(label == "[! gone: no such file]")
        // The placeholder is as wide as its label, capped at the proposal.
        #expect(frames[1].frame.width == min(80, TerminalMetrics().width(of: label, font: FontDescriptor(family: "body", size: 16))))
    }
}

@Suite struct HostileMarkerTests {
    /// A parser may hand the run builder any start; the last numbers saturate instead of
    /// trapping on overflow (issue 20: `show` crashed on a list starting near Int.max).
    @Test func anOrderedListStartingAtIntMaxBuildsSaturatedMarkers() {
        let item = { (text: String) in MarkupBlock(.listItem(checked: nil), children: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text(text))])]) }
        let document = MarkupDocument(blocks: [MarkupBlock(.list(.ordered(start: Int.max - 1), tight: true), children: [item("a"), item("b"), item("c")])])
        let styled = StyleEnvironment().apply(to: IntentText(document), attachments: [:])
        let built = RunBuilder(metrics: TerminalMetrics()).build(styled, proposal: 80)
        #expect(built.paragraphs.map(\.marker) == ["\(Int.max - 1).", "\(Int.max).", "\(Int.max)."])
    }
}
