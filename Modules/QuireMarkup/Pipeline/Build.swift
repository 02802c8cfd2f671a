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
/// number, a checkbox, a quote bar), the space above it and what its long lines do — all from
/// the block styles of the blocks around it — and its runs.
public struct BuiltParagraph: Hashable, Sendable {
    public var paragraph: IntentParagraph
    /// The left indent in layout units.
    public var indent: Double
    /// Drawn at the start of the first line, right-aligned in the indent; empty for none.
    public var marker: String
    public var runs: [BuiltRun]
    /// The space between the paragraph above and this one: the block spacings that meet there,
    /// collapsed (0 for the first paragraph).
    public var spacingBefore: Double = 0
    /// Whether long lines wrap or the paragraph scrolls horizontally.
    public var overflow: BlockOverflow = .wrap
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
    /// The style of each kind of block: indents, markers, spacing, overflow.
    public var blockStyles: BlockStyles

    /// A builder measuring with `metrics`, caching attachment sizes in `cache` and decorating
    /// blocks with `blockStyles`.
    public init(metrics: any LayoutMetrics, cache: AttachmentSizeCache = AttachmentSizeCache(), blockStyles: BlockStyles = .standard) {
        self.metrics = metrics
        self.cache = cache
        self.blockStyles = blockStyles
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

    /// The marker of a list item in `list`.
    static func listMarker(_ item: BlockIdentity, in list: BlockIntent) -> String? {
        guard case .list(let style, _) = list, case .listItem(let checked) = item.intent else { return nil }
        switch style {
        case .bullet: return "•"
        case .ordered(let start):
            // A parser may hand over any start: the number saturates rather than trap.
            let (number, overflow) = start.addingReportingOverflow(item.ordinal)
            return "\(overflow ? Int.max : number)."
        case .task: return (checked ?? false) ? "☑" : "☐"
        }
    }

    /// Where each block's paragraphs are and how big each table is: what the block styles are
    /// told beyond a paragraph's own path.
    struct BlockExtents {
        /// The first and last paragraph index of each block, by block id.
        var paragraphs: [Int: ClosedRange<Int>] = [:]
        /// Each table's row count and widest row, by table id.
        var tableSizes: [Int: (rows: Int, columns: Int)] = [:]

        init(_ paragraphs: [StyledParagraph]) {
            var rowsSeen: [Int: Set<Int>] = [:]
            for (index, styled) in paragraphs.enumerated() {
                let path = styled.paragraph.path
                for block in path {
                    self.paragraphs[block.id] = (self.paragraphs[block.id]?.lowerBound ?? index)...index
                }
                for (depth, block) in path.enumerated() where depth >= 2 && block.intent.kind == .tableCell {
                    let table = path[depth - 2].id
                    rowsSeen[table, default: []].insert(path[depth - 1].id)
                    let size = tableSizes[table] ?? (0, 0)
                    tableSizes[table] = (rowsSeen[table]?.count ?? 0, max(size.columns, block.ordinal + 1))
                }
            }
        }
    }

    /// A paragraph's decoration from the styles of the blocks in its path: indents add up, the
    /// innermost marker and scrolling block win, and the paragraph's top (bottom) spacing is the
    /// largest of the blocks it starts (ends).
    ///
    /// - Complexity: O(d) for a path of depth d, plus the styles' own work.
    func decoration(of index: Int, _ paragraph: IntentParagraph, content: String, extents: BlockExtents)
        -> (indent: Double, marker: String, top: Double, bottom: Double, overflow: BlockOverflow) {
        let body = FontDescriptor(family: "body", size: 16)
        let spaceWidth = metrics.advance(of: " ", font: body)
        let lineHeight = metrics.lineHeight(for: body)
        let path = paragraph.path
        var result = (indent: 0.0, marker: "", top: 0.0, bottom: 0.0, overflow: BlockOverflow.wrap)
        var listDepth = 0
        var quoteDepth = 0
        var tight = false
        for (depth, block) in path.enumerated() {
            let parent = depth > 0 ? path[depth - 1] : nil
            var configuration = BlockStyleConfiguration(
                block: block, enclosing: Array(path[..<depth]), content: content,
                isFirstParagraph: extents.paragraphs[block.id]?.lowerBound ?? index == index,
                isLastParagraph: extents.paragraphs[block.id]?.upperBound ?? index == index,
                spaceWidth: spaceWidth, lineHeight: lineHeight)
            switch block.intent {
            case .heading(let level): configuration.headingLevel = level
            case .list(_, let isTight):
                listDepth += 1
                tight = isTight
            case .listItem: configuration.listMarker = parent.flatMap { Self.listMarker(block, in: $0.intent) }
            case .blockQuote: quoteDepth += 1
            case .codeBlock(let language): configuration.codeLanguage = language
            case .tableCell(let column, let alignment):
                if depth >= 2, case .tableRow(let isHeader) = path[depth - 1].intent {
                    let size = extents.tableSizes[path[depth - 2].id] ?? (1, column + 1)
                    configuration.table = TableGeometry(row: path[depth - 1].ordinal, column: column, rowCount: size.rows,
                                                        columnCount: size.columns, isHeader: isHeader, alignment: alignment)
                }
            default: break
            }
            configuration.listDepth = listDepth
            configuration.quoteDepth = quoteDepth
            configuration.isInTightList = tight
            let decoration = blockStyles[block.intent.kind].decoration(configuration)
            result.indent += decoration.indent
            if let marker = decoration.marker { result.marker = marker }
            if decoration.overflow == .scrollHorizontally { result.overflow = .scrollHorizontally }
            if configuration.isFirstParagraph { result.top = max(result.top, decoration.spacing.top) }
            if configuration.isLastParagraph { result.bottom = max(result.bottom, decoration.spacing.bottom) }
        }
        return result
    }

    /// Builds `text` for a width proposal.
    ///
    /// - Complexity: O(r) for r runs, plus one size computation per distinct attachment, font
    ///   and available width (cached).
    public func build(_ text: StyledText, proposal width: Double) -> BuiltText {
        var paragraphs: [BuiltParagraph] = []
        let extents = BlockExtents(text.paragraphs)
        var bottomAbove: Double?
        for (index, styled) in text.paragraphs.enumerated() {
            let range = styled.paragraph.range
            let content = String(decoding: text.units[range.lowerBound..<max(range.lowerBound, range.upperBound - 1)], as: UTF16.self)
            let decoration = decoration(of: index, styled.paragraph, content: content, extents: extents)
            let indent = decoration.indent
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
            // The first paragraph has nothing above it to keep apart from.
            let spacing = bottomAbove.map { BlockSpacing.collapsed(bottom: $0, top: decoration.top) } ?? 0
            bottomAbove = decoration.bottom
            paragraphs.append(BuiltParagraph(paragraph: styled.paragraph, indent: indent, marker: decoration.marker, runs: runs,
                                             spacingBefore: spacing, overflow: decoration.overflow))
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


extension BuiltText {
    /// Paragraph `index` on its own: its units (its final "\n" included), with its range and its
    /// runs' ranges counted from its start. `TextLayout` lays it out as it lays the paragraph out
    /// in the whole text, lines and heights measured from the paragraph's top: what an editor
    /// needs to lay out again only the paragraph that changed in a long document.
    ///
    /// - Complexity: O(k + r) for the paragraph's k units and r runs.
    public func paragraphText(_ index: Int) -> BuiltText {
        var paragraph = paragraphs[index]
        let range = paragraph.paragraph.range
        let start = range.lowerBound
        paragraph.paragraph.range = 0..<range.count
        paragraph.runs = paragraph.runs.map { run in
            var moved = run
            moved.range = (run.range.lowerBound - start)..<(run.range.upperBound - start)
            return moved
        }
        return BuiltText(units: Array(units[range]), paragraphs: [paragraph], proposalWidth: proposalWidth)
    }
}
