import Foundation
import Synchronization

/// An attachment's intrinsic size, in points (pixels for images).
public struct AttachmentSize: Hashable, Sendable {
    public var width: Double
    public var height: Double

    /// A size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// What a loader fetched for an attachment.
public struct LoadedAttachment: Hashable, Sendable {
    /// The URL it was loaded from.
    public var url: String
    /// Its intrinsic size.
    public var size: AttachmentSize
    /// Its bytes.
    public var byteCount: Int

    /// A loaded attachment.
    public init(url: String, size: AttachmentSize, byteCount: Int) {
        self.url = url
        self.size = size
        self.byteCount = byteCount
    }
}

/// Why an attachment could not be loaded; shown in its placeholder.
public struct AttachmentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL that failed.
    public var url: String
    /// What went wrong.
    public var message: String

    /// An error.
    public init(url: String, message: String) {
        self.url = url
        self.message = message
    }

    /// "url: message".
    public var description: String { "\(url): \(message)" }
}

/// The outcome of resolving an attachment: loaded, or failed with the error its placeholder shows.
public enum AttachmentResult: Hashable, Sendable {
    case loaded(LoadedAttachment)
    case failed(AttachmentError)
}

/// Fetches attachments by URL (stage 3). Loaders are async and may run concurrently.
public protocol AttachmentLoader: Sendable {
    /// Loads the attachment at `url`.
    func load(_ url: String) async throws(AttachmentError) -> LoadedAttachment
}

/// Caches attachments by URL and de-duplicates concurrent requests for the same URL: while a
/// load is in flight, later requests wait for it instead of starting another.
public actor AttachmentCache {
    private let loader: any AttachmentLoader
    private var results: [String: AttachmentResult] = [:]
    private var inFlight: [String: Task<AttachmentResult, Never>] = [:]
    /// How many requests are waiting on a load right now (for tests and diagnostics).
    public private(set) var waitingRequests = 0

    /// A cache over `loader`.
    public init(loader: any AttachmentLoader) { self.loader = loader }

    /// The attachment at `url`: cached, joined to a load in flight, or loaded now. Failures are
    /// cached too, so a broken URL is not fetched again for every occurrence.
    public func resolve(_ url: String) async -> AttachmentResult {
        if let result = results[url] { return result }
        let task: Task<AttachmentResult, Never>
        if let running = inFlight[url] {
            task = running
        } else {
            let loader = self.loader
            task = Task {
                do throws(AttachmentError) {
                    return .loaded(try await loader.load(url))
                } catch {
                    return .failed(error)
                }
            }
            inFlight[url] = task
        }
        waitingRequests += 1
        let result = await task.value
        waitingRequests -= 1
        results[url] = result
        inFlight[url] = nil
        return result
    }

    /// Every attachment of `text` resolved, by URL (stage 3). URLs are requested concurrently.
    public func resolveAll(in text: IntentText) async -> [String: AttachmentResult] {
        let urls = text.attachmentSources
        return await withTaskGroup(of: (String, AttachmentResult).self) { group in
            for url in urls { group.addTask { (url, await self.resolve(url)) } }
            var results: [String: AttachmentResult] = [:]
            for await (url, result) in group { results[url] = result }
            return results
        }
    }
}

extension IntentText {
    /// The source of every attachment record in the text, each once, in text order.
    ///
    /// - Complexity: O(r) for r attribute runs.
    public var attachmentSources: [String] {
        var urls: [String] = []
        var seen: Set<String> = []
        for run in text.runs {
            if case .record(let record)? = run.attributes[.attachment], case .string(let url)? = record[IntentText.AttachmentField.source],
               seen.insert(url).inserted {
                urls.append(url)
            }
        }
        return urls
    }
}

/// The attachment stage of a live editor, which cannot wait for loads: ``results`` says what is
/// known now (a view lays out with it at once, attachments still loading as placeholders sized
/// from the width and height the document sets, or the metric's default), and ``request(in:resolved:)``
/// starts the missing loads through an ``AttachmentCache`` (its loader, cache and de-duplication
/// by URL), calling back as each finishes so the view lays out again. Only sizes change then:
/// the text, and so every offset and the selection, stay as they are.
public final class LiveAttachments: Sendable {
    /// The cache loads go through.
    public let cache: AttachmentCache
    private let state = Mutex<(results: [String: AttachmentResult], loading: [String: Task<Void, Never>])>((results: [:], loading: [:]))

    /// A stage loading through `cache`.
    public init(cache: AttachmentCache) { self.cache = cache }

    /// What has been resolved so far, by URL: the `attachments` argument of
    /// `StyleEnvironment.apply(to:attachments:)`.
    public var results: [String: AttachmentResult] { state.withLock { $0.results } }

    /// Starts a load for every attachment source of `text` that is neither resolved nor loading;
    /// `resolved` is called once for each as it finishes, after ``results`` has it, on a task of
    /// its own (a view hops to its own thread from there). Returns the sources whose loads started.
    ///
    /// - Complexity: O(r) for r attribute runs, plus the loads.
    @discardableResult
    public func request(in text: IntentText, resolved: @escaping @Sendable (String, AttachmentResult) -> Void = { _, _ in }) -> [String] {
        let cache = self.cache
        return state.withLock { state -> [String] in
            var started: [String] = []
            for url in text.attachmentSources where state.results[url] == nil && state.loading[url] == nil {
                started.append(url)
                state.loading[url] = Task {
                    let result = await cache.resolve(url)
                    self.state.withLock { state in
                        state.results[url] = result
                        state.loading[url] = nil
                    }
                    resolved(url, result)
                }
            }
            return started
        }
    }

    /// Waits until every load started so far has finished.
    public func waitForLoads() async {
        while let task = state.withLock({ $0.loading.values.first }) { await task.value }
    }
}

/// Loads attachments from local files, relative to a base directory; reads PNG, GIF and JPEG
/// sizes from their headers. The test loader, and what `quire show` uses.
public struct FileAttachmentLoader: AttachmentLoader {
    /// The directory relative URLs are resolved against.
    public let baseDirectory: URL

    /// A loader reading files under `baseDirectory`.
    public init(baseDirectory: URL) { self.baseDirectory = baseDirectory }

    public func load(_ url: String) async throws(AttachmentError) -> LoadedAttachment {
        let path = url.hasPrefix("file://") ? String(url.dropFirst("file://".count)) : url
        guard !path.contains("://") else { throw AttachmentError(url: url, message: "only local files are loaded") }
        let file = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: file.path) else { throw AttachmentError(url: url, message: "no such file") }
        let bytes: [UInt8]
        do { bytes = Array(try Data(contentsOf: file)) } catch {
            throw AttachmentError(url: url, message: "cannot read the file: \(error.localizedDescription)")
        }
        guard let size = ImageHeader.size(of: bytes) else {
            throw AttachmentError(url: url, message: "not a PNG, GIF or JPEG image (\(bytes.count) bytes)")
        }
        return LoadedAttachment(url: url, size: size, byteCount: bytes.count)
    }
}

/// Image sizes from file headers.
public enum ImageHeader {
    /// The pixel size of a PNG, GIF or JPEG, or nil.
    ///
    /// - Complexity: O(1) for PNG and GIF; O(n) in the worst case for JPEG (segment walk).
    public static func size(of bytes: [UInt8]) -> AttachmentSize? {
        func be16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return AttachmentSize(width: Double(be32(16)), height: Double(be32(20)))
        }
        if bytes.count >= 10, bytes.starts(with: Array("GIF8".utf8)) {
            return AttachmentSize(width: Double(Int(bytes[6]) | Int(bytes[7]) << 8), height: Double(Int(bytes[8]) | Int(bytes[9]) << 8))
        }
        if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            var index = 2
            while index + 9 < bytes.count {
                guard bytes[index] == 0xFF else { return nil }
                let marker = bytes[index + 1]
                let length = be16(index + 2)
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return AttachmentSize(width: Double(be16(index + 7)), height: Double(be16(index + 5)))
                }
                index += 2 + length
            }
        }
        return nil
    }
}
