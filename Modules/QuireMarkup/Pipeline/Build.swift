import Foundation
import QuireAlgorithms
import Synchronization

/// Measures text and attachments for layout. Deterministic, so layouts are testable.
public protocol LayoutMetrics: Sendable {
    /// A name that identifies the metric in caches.
    var name: String { get }
    /// The advance width of one grapheme cluster.
    func advance(of cluster: Character, font: FontDescriptor) -> Double
    /// The height of a line of text in `font`.
    func lineHeight(for font: FontDescriptor) -> Double
    /// The size an attachment takes, before capping at the proposed width: from its intrinsic
    /// size when it loaded, or from the label its placeholder shows.
    func attachmentSize(intrinsic: AttachmentSize?, label: String, font: FontDescriptor) -> AttachmentSize
}

extension LayoutMetrics {
    /// The width of `text` laid out on one line.
    ///
    /// - Complexity: O(n) in the text length.
    public func width(of text: String, font: FontDescriptor) -> Double {
        text.reduce(0) { $0 + advance(of: $1, font: font) }
    }
}

/// Monospace terminal cells: East Asian wide and fullwidth characters and emoji take two cells,
/// combining marks and other zero-width characters none, everything else one; a grapheme
/// cluster takes the width of its widest scalar (an emoji ZWJ sequence is two cells). A line of
/// text is one row; an attachment is a box one row high and as wide as its label, or, with an
/// ``imageCell`` and a known size, a box of the cells the image covers.
public struct TerminalMetrics: LayoutMetrics {
    /// How many pixels of an image one cell stands for, or nil to draw every attachment as its
    /// one-row label (what an editor whose lines are one row each wants).
    public let imageCell: AttachmentSize?

    /// A metric drawing attachments as their one-row labels.
    public init() { imageCell = nil }

    /// A metric drawing an attachment of known size as a box of `imageCell`-sized cells (8 × 16
    /// pixels is a common terminal cell); one of unknown size, or too small for a box (under 3
    /// cells wide or 2 rows high), stays its one-row label.
    public init(imageCell: AttachmentSize) { self.imageCell = imageCell }

    public var name: String { imageCell.map { "terminal-\($0.width)x\($0.height)" } ?? "terminal" }

    /// The cell width of a cluster (0, 1 or 2).
    public static func cells(of cluster: Character) -> Int {
        var widest = 0
        var hasEmojiSelector = false
        for scalar in cluster.unicodeScalars where scalar.value == 0xFE0F { hasEmojiSelector = true }
        for scalar in cluster.unicodeScalars {
            let properties = scalar.properties
            let width: Int
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format, .control: width = 0
            default:
                if scalar.value == 0x2028 || scalar.value == 0x2029 { width = 0 }
                else if properties.isEmojiPresentation || (hasEmojiSelector && properties.isEmoji) { width = 2 }
                else if isWide(scalar.value) { width = 2 }
                else { width = 1 }
            }
            widest = max(widest, width)
        }
        return widest
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt, condensed.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF,
        0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
        0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    /// Whether a scalar is East Asian wide or fullwidth.
    ///
    /// - Complexity: O(log r) over the range table.
    static func isWide(_ value: UInt32) -> Bool {
        let index = wideRanges.partitioningIndex { $0.upperBound >= value }
        return index < wideRanges.count && wideRanges[index].lowerBound <= value
    }

    public func advance(of cluster: Character, font: FontDescriptor) -> Double { Double(Self.cells(of: cluster)) }
    public func lineHeight(for font: FontDescriptor) -> Double { 1 }
    public func attachmentSize(intrinsic: AttachmentSize?, label: String, font: FontDescriptor) -> AttachmentSize {
        if let imageCell, let intrinsic, imageCell.width > 0, imageCell.height > 0 {
            let cells = AttachmentSize(width: (intrinsic.width / imageCell.width).rounded(.up), height: (intrinsic.height / imageCell.height).rounded(.up))
            // Too small for a box around a label (a border on each side and a row inside): the label.
            if cells.width >= 3, cells.height >= 2 { return cells }
        }
        return AttachmentSize(width: width(of: label, font: font), height: 1)
    }
}

/// A simple proportional metric for tests and previews: every cluster is `0.5 × size` wide
/// (twice that for terminal-wide ones), lines are `1.25 × size` high, attachments keep their
/// intrinsic pixel size.
public struct ProportionalMetrics: LayoutMetrics {
    /// A metric.
    public init() {}
    public var name: String { "proportional" }
    public func advance(of cluster: Character, font: FontDescriptor) -> Double {
        Double(TerminalMetrics.cells(of: cluster)) * font.size * 0.5
    }
    public func lineHeight(for font: FontDescriptor) -> Double { font.size * 1.25 }
    public func attachmentSize(intrinsic: AttachmentSize?, label: String, font: FontDescriptor) -> AttachmentSize {
        intrinsic ?? AttachmentSize(width: width(of: label, font: font), height: lineHeight(for: font))
    }
}

/// Attachment sizes cached by attachment, font, metric and available width, shared by builds.
public final class AttachmentSizeCache: Sendable {
    struct Key: Hashable {
        var source: String
        var resolved: AttachmentResult?
        var declaredWidth: Double?
        var declaredHeight: Double?
        var font: FontDescriptor
        var metric: String
        var available: Double
    }
    private let storage = Mutex<(sizes: [Key: AttachmentSize], hits: Int, misses: Int)>((sizes: [:], hits: 0, misses: 0))

    /// An empty cache.
    public init() {}

    /// How many lookups were answered from the cache and how many computed.
    public var statistics: (hits: Int, misses: Int) { storage.withLock { ($0.hits, $0.misses) } }

    func size(for key: Key, compute: () -> AttachmentSize) -> AttachmentSize {
        if let size = storage.withLock({ state -> AttachmentSize? in
            guard let size = state.sizes[key] else { return nil }
            state.hits += 1
            return size
        }) { return size }
        let size = compute()
        storage.withLock { state in
            state.sizes[key] = size
            state.misses += 1
        }
        return size
    }
}

/// One run of built text: styled text, or an attachment placeholder with its size.
public struct BuiltRun: Hashable, Sendable {
    /// UTF-16 range in the text.
    public var range: Range<Int>
    public var style: TextStyle
    /// For an attachment: the reference, its placeholder size and label.
    public var attachment: AttachmentReference?
    public var size: AttachmentSize?
    public var label: String?
}

/// A paragraph ready for layout: its indentation, the marker drawn in the indent (a bullet, a
/// number, a checkbox, a quote bar), and its runs.
public struct BuiltParagraph: Hashable, Sendable {
    public var paragraph: IntentParagraph
    /// The left indent in layout units.
    public var indent: Double
    /// Drawn at the start of the first line, right-aligned in the indent; empty for none.
    public var marker: String
    public var runs: [BuiltRun]
}

/// Stage 5's output.
public struct BuiltText: Hashable, Sendable {
    public var units: [UInt16]
    public var paragraphs: [BuiltParagraph]
    /// The width the attachments were sized for.
    public var proposalWidth: Double
}

/// Stage 5: builds runs with each attachment as a U+FFFC placeholder sized for a width proposal.
/// Loaded images keep their aspect ratio and are capped at the width available to their
/// paragraph; failed ones show a placeholder labelled with the error.
public struct RunBuilder: Sendable {
    public let metrics: any LayoutMetrics
    public let cache: AttachmentSizeCache

    /// A builder measuring with `metrics` and caching attachment sizes in `cache`.
    public init(metrics: any LayoutMetrics, cache: AttachmentSizeCache = AttachmentSizeCache()) {
        self.metrics = metrics
        self.cache = cache
    }

    /// The placeholder label of an attachment.
    public static func label(for attachment: AttachmentReference) -> String {
        let name = attachment.alt.isEmpty ? attachment.source : attachment.alt
        switch attachment.result {
        case .loaded(let loaded)?: return "[image: \(name) \(Int(loaded.size.width))×\(Int(loaded.size.height))]"
        case .failed(let error)?: return "[! \(name): \(error.message)]"
        case nil: return "[image: \(name)]"
        }
    }

    /// The width a paragraph's content wraps to: what the indent leaves, but never less than a
    /// quarter of the width. Without that floor a paragraph nested deeper than the width is
    /// wide wrapped one character a line, and its drawing grows with text length × indent.
    /// - Complexity: O(1).
    public static func contentWidth(_ width: Double, indent: Double) -> Double {
        max(width - indent, width / 4, 1)
    }

    /// The indent and marker a paragraph gets from its path.
    func decoration(_ path: [BlockIdentity], firstInItem: Set<Int>) -> (indent: Double, marker: String) {
        let font = FontDescriptor(family: "body", size: 16)
        let cell = metrics.advance(of: " ", font: font)
        var indent = 0.0
        var marker = ""
        for (depth, block) in path.enumerated() {
            switch block.intent {
            case .blockQuote:
                indent += 2 * cell
                marker = "│"
            case .listItem(let checked):
                guard depth > 0, case .list(let style, _) = path[depth - 1].intent else { continue }
                let text: String
                switch style {
                case .bullet: text = "•"
                case .ordered(let start):
                    // A parser may hand over any start: the number saturates rather than trap.
                    let (number, overflow) = start.addingReportingOverflow(block.ordinal)
                    text = "\(overflow ? Int.max : number)."
                case .task: text = (checked ?? false) ? "☑" : "☐"
                }
                indent += Double(max(2, text.count + 1)) * cell
                marker = firstInItem.contains(block.id) ? text : ""
            case .codeBlock:
                indent += 2 * cell
            default: break
            }
        }
        return (indent, marker)
    }

    /// Builds `text` for a width proposal.
    ///
    /// - Complexity: O(r) for r runs, plus one size computation per distinct attachment, font
    ///   and available width (cached).
    public func build(_ text: StyledText, proposal width: Double) -> BuiltText {
        var paragraphs: [BuiltParagraph] = []
        var seenItems: Set<Int> = []
        for styled in text.paragraphs {
            var firstInItem: Set<Int> = []
            for block in styled.paragraph.path where block.intent.isListItem && seenItems.insert(block.id).inserted {
                firstInItem.insert(block.id)
            }
            let (indent, marker) = decoration(styled.paragraph.path, firstInItem: firstInItem)
            let available = Self.contentWidth(width, indent: indent)
            let runs = styled.runs.map { run -> BuiltRun in
                guard let attachment = run.attachment else { return BuiltRun(range: run.range, style: run.style) }
                let label = Self.label(for: attachment)
                let key = AttachmentSizeCache.Key(source: attachment.source, resolved: attachment.result, declaredWidth: attachment.declaredWidth,
                                                  declaredHeight: attachment.declaredHeight, font: run.style.font, metric: metrics.name, available: available)
                let size = cache.size(for: key) {
                    var size = metrics.attachmentSize(intrinsic: attachment.intrinsicSize, label: label, font: run.style.font)
                    if size.width > available, size.width > 0 {
                        size = AttachmentSize(width: available, height: size.height * available / size.width)
                    }
                    return size
                }
                return BuiltRun(range: run.range, style: run.style, attachment: attachment, size: size, label: label)
            }
            paragraphs.append(BuiltParagraph(paragraph: styled.paragraph, indent: indent, marker: marker, runs: runs))
        }
        return BuiltText(units: text.units, paragraphs: paragraphs, proposalWidth: width)
    }
}

extension AttachmentReference {
    /// The size the attachment is drawn at before capping at the available width: the document's
    /// width and height when it sets both (before or after the image loads, so the placeholder
    /// already has the final size); with one of them set and the image loaded, the other from the
    /// image's aspect ratio; else the loaded image's own size. nil while none is known (the
    /// metric's default placeholder then).
    ///
    /// - Complexity: O(1).
    public var intrinsicSize: AttachmentSize? {
        var loaded: AttachmentSize?
        if case .loaded(let attachment)? = result { loaded = attachment.size }
        switch (declaredWidth, declaredHeight, loaded) {
        case (let width?, let height?, _): return AttachmentSize(width: width, height: height)
        case (let width?, nil, let own?) where own.width > 0: return AttachmentSize(width: width, height: own.height * width / own.width)
        case (nil, let height?, let own?) where own.height > 0: return AttachmentSize(width: own.width * height / own.height, height: height)
        default: return loaded
        }
    }
}

extension BuiltRun {
    init(range: Range<Int>, style: TextStyle) {
        self.init(range: range, style: style, attachment: nil, size: nil, label: nil)
    }
}

extension BlockIntent {
    var isListItem: Bool {
        if case .listItem = self { return true }
        return false
    }
}
