import QuireEditor
import QuireImage
import QuireMarkup
import QuireModel
import QuireTextStorage
import Testing

/// A loader scripted per URL: `ok.png` loads at once, `slow.png` only when the test opens its
/// gate, anything else fails. It counts loads, so de-duplication shows.
final class ScriptedLoader: AttachmentLoader {
    let gate = Gate()
    let loads = Counter()

    actor Gate {
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        func pass() async {
            if isOpen { return }
            await withCheckedContinuation { waiting.append($0) }
        }
        func open() {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    actor Counter {
        private(set) var byURL: [String: Int] = [:]
        func count(_ url: String) { byURL[url, default: 0] += 1 }
    }

    func load(_ url: String) async throws(AttachmentError) -> LoadedAttachment {
        await loads.count(url)
        switch url {
        case "ok.png": return LoadedAttachment(url: url, size: AttachmentSize(width: 300, height: 150), byteCount: 1_000)
        case "slow.png":
            await gate.pass()
            return LoadedAttachment(url: url, size: AttachmentSize(width: 40, height: 20), byteCount: 100)
        default: throw AttachmentError(url: url, message: "no such file")
        }
    }
}

/// The attachment stage in a live editor: images in the text storage lay out as placeholders at
/// once (sized from the width and height the document sets, or the metric's default), loads run
/// in the background through the pipeline's cache, and each finished load changes only sizes —
/// never the storage's text or the selection.
@Suite struct ImageAttachmentStageTests {
    /// Every attachment placeholder's source, size and label, built from the storage with what
    /// `live` knows (stage 4 and 5 of the pipeline, as a view runs them for each layout).
    static func frames(_ storage: TextStorage, _ live: LiveAttachments) -> [String: (size: AttachmentSize, label: String, loaded: Bool?)] {
        let styled = StyleEnvironment().apply(to: IntentText(storage: storage), attachments: live.results)
        let built = RunBuilder(metrics: ProportionalMetrics()).build(styled, proposal: 1_000)
        var result: [String: (AttachmentSize, String, Bool?)] = [:]
        for run in built.paragraphs.flatMap(\.runs) {
            guard let attachment = run.attachment, let size = run.size else { continue }
            var loaded: Bool?
            switch attachment.result {
            case .loaded?: loaded = true
            case .failed?: loaded = false
            case nil: loaded = nil
            }
            result[attachment.source] = (size, run.label ?? "", loaded)
        }
        return result
    }

    @Test func placeholdersThenLoadsThatChangeOnlySizes() async throws {
        let (editor, storage) = try PluginFixture.editor(try PluginFixture.state(["text"]))
        try editor.selectionDidChange(4..<4)
        for image in [ImageAttributes(source: "ok.png", altText: "fine"), ImageAttributes(source: "bad.png", altText: "missing", width: 64, height: 32),
                      ImageAttributes(source: "slow.png", altText: "later", width: 100)] {
            #expect(try editor.dispatch(ImageCommands.insertImage, image))
        }
        try editor.selectionDidChange(1..<3)
        let text = storage.string
        let selection = editor.nativeSelection
        #expect(text == "text\u{FFFC}\u{FFFC}\u{FFFC}")

        let loader = ScriptedLoader()
        let live = LiveAttachments(cache: AttachmentCache(loader: loader))
        // Before any load: the default placeholder (its label's width, one line high) or the size
        // the document sets.
        var frames = Self.frames(storage, live)
        let body = ProportionalMetrics().lineHeight(for: FontDescriptor(family: "body", size: 16))
        #expect(frames["ok.png"]?.size.height == body && frames["ok.png"]?.loaded == nil)
        #expect(frames["ok.png"]?.label == "[image: fine]")
        #expect(frames["bad.png"]?.size == AttachmentSize(width: 64, height: 32))
        #expect(frames["slow.png"]?.size.height == body, "a width alone gives no size until the image's aspect ratio is known")

        let (finished, continuation) = AsyncStream.makeStream(of: String.self)
        let started = live.request(in: IntentText(storage: storage)) { url, _ in continuation.yield(url) }
        #expect(Set(started) == ["ok.png", "bad.png", "slow.png"])
        var iterator = finished.makeAsyncIterator()
        var done: Set<String> = []
        for _ in 0..<2 { done.insert(try #require(await iterator.next())) }
        #expect(done == ["ok.png", "bad.png"])

        frames = Self.frames(storage, live)
        #expect(frames["ok.png"]?.size == AttachmentSize(width: 300, height: 150) && frames["ok.png"]?.loaded == true)
        #expect(frames["bad.png"]?.size == AttachmentSize(width: 64, height: 32) && frames["bad.png"]?.loaded == false)
        #expect(frames["bad.png"]?.label == "[! missing: no such file]", "a failed load is a placeholder with its alt text")
        #expect(frames["slow.png"]?.loaded == nil)
        #expect(storage.string == text && editor.nativeSelection == selection)
        // Asking again while the slow load runs starts nothing: loads are de-duplicated by URL.
        #expect(live.request(in: IntentText(storage: storage)).isEmpty)

        await loader.gate.open()
        #expect(await iterator.next() == "slow.png")
        frames = Self.frames(storage, live)
        #expect(frames["slow.png"]?.size == AttachmentSize(width: 100, height: 50), "the declared width with the image's aspect ratio")
        #expect(frames["slow.png"]?.loaded == true)
        #expect(storage.string == text && editor.nativeSelection == selection)
        #expect(await loader.loads.byURL == ["ok.png": 1, "bad.png": 1, "slow.png": 1])
        // Once resolved, nothing loads again, not even the failure.
        #expect(live.request(in: IntentText(storage: storage)).isEmpty)
        await live.waitForLoads()
        continuation.finish()
    }
}
