import QuireAlgorithms

/// A place in a text layout: paragraph layout, line within it, run within the line, and
/// grapheme cluster within the run (`runSlice == cluster count` is the run's end).
public struct TextPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var layout: Int
    public var line: Int
    public var run: Int
    public var runSlice: Int

    /// A position.
    public init(layout: Int, line: Int, run: Int, runSlice: Int) {
        self.layout = layout
        self.line = line
        self.run = run
        self.runSlice = runSlice
    }

    public static func < (lhs: TextPosition, rhs: TextPosition) -> Bool {
        (lhs.layout, lhs.line, lhs.run, lhs.runSlice) < (rhs.layout, rhs.line, rhs.run, rhs.runSlice)
    }

    /// "[layout, line, run, runSlice]".
    public var description: String { "[\(layout), \(line), \(run), \(runSlice)]" }
}

/// A point in layout coordinates (y grows downwards).
public struct LayoutPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle in layout coordinates.
public struct LayoutRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether `point` is inside (left and top edges included).
    public func contains(_ point: LayoutPoint) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }
}

/// One run on a line: a stretch of one style, or an attachment placeholder.
public struct LayoutRun: Hashable, Sendable {
    /// The UTF-16 range.
    public var range: Range<Int>
    /// The left edge.
    public var x: Double
    /// The width.
    public var width: Double
    public var style: TextStyle
    /// Set for an attachment placeholder.
    public var attachment: AttachmentReference?
    /// The placeholder's label, for an attachment.
    public var label: String?
    /// The UTF-16 offset where each cluster starts.
    public var clusterStarts: [Int]
    /// The left edge of each cluster relative to `x`, then the run's width.
    public var clusterEdges: [Double]
}

/// One laid-out line.
public struct LayoutLine: Hashable, Sendable {
    /// The paragraph (layout) index.
    public var paragraph: Int
    /// The first UTF-16 offset on the line.
    public var start: Int
    /// The offset after the line's last cluster.
    public var end: Int
    public var y: Double
    public var height: Double
    /// Where the line's content starts (the paragraph's indent).
    public var x: Double
    /// The paragraph's marker, on its first line only.
    public var marker: String
    public var runs: [LayoutRun]
}

/// A deterministic layout of built text with soft wrap at a width; the coordinate conversions
/// between `TextPosition`, UTF-16 offset and geometry are binary searches, O(log n).
public struct TextLayout: Sendable {
    /// Every line in order.
    public private(set) var lines: [LayoutLine]
    /// The index in `lines` of each paragraph's first line.
    public private(set) var firstLine: [Int]
    /// The wrap width.
    public let width: Double
    /// The text's length in UTF-16 units.
    public let length: Int
    /// The total height.
    public private(set) var height: Double
    /// What each paragraph (layout) does with long lines: a paragraph that scrolls
    /// horizontally is never wrapped, so its lines may be wider than `width`.
    public private(set) var overflow: [BlockOverflow]
    /// The line break inside a paragraph: U+2028 (a hard break, a line of a code block).
    public static let lineSeparator: UInt16 = 0x2028

    /// Lays `text` out at `width` with `metrics`.
    ///
    /// - Complexity: O(n) in the text length (each cluster measured once).
    public init(_ text: BuiltText, width: Double, metrics: any LayoutMetrics) {
        self.width = width
        self.length = text.units.count
        lines = []
        firstLine = []
        height = 0
        overflow = text.paragraphs.map(\.overflow)
        var y = 0.0
        for (index, paragraph) in text.paragraphs.enumerated() {
            firstLine.append(lines.count)
            y += paragraph.spacingBefore
            let laid = Self.layoutParagraph(paragraph, index: index, units: text.units, width: width, metrics: metrics, y: &y)
            lines += laid
        }
        height = y
    }

    struct Cluster {
        var start: Int
        var end: Int
        var width: Double
        var run: Int
        var isSpace: Bool
        var isBreak: Bool
    }

    static func layoutParagraph(_ paragraph: BuiltParagraph, index paragraphIndex: Int, units: [UInt16], width: Double, metrics: any LayoutMetrics, y: inout Double) -> [LayoutLine] {
        var clusters: [Cluster] = []
        for (runIndex, run) in paragraph.runs.enumerated() {
            if let size = run.size {
                clusters.append(Cluster(start: run.range.lowerBound, end: run.range.upperBound, width: size.width, run: runIndex, isSpace: false, isBreak: false))
                continue
            }
            var offset = run.range.lowerBound
            for character in String(decoding: units[run.range], as: UTF16.self) {
                let count = character.utf16.count
                let isBreak = character.unicodeScalars.first?.value == 0x2028
                clusters.append(Cluster(
                    start: offset, end: offset + count, width: isBreak ? 0 : metrics.advance(of: character, font: run.style.font),
                    run: runIndex, isSpace: character == " ", isBreak: isBreak
                ))
                offset += count
            }
        }
        let available = paragraph.overflow == .scrollHorizontally ? .infinity : RunBuilder.contentWidth(width, indent: paragraph.indent)
        // Greedy wrap: break after the last space that fits, else before the cluster that
        // overflows; spaces may hang past the edge; U+2028 forces a break after itself.
        var breaks: [Int] = []
        var lineStart = 0
        var x = 0.0
        var lastSpace: Int?
        var index = 0
        while index < clusters.count {
            let cluster = clusters[index]
            if cluster.isBreak {
                breaks.append(index + 1)
                lineStart = index + 1
                x = 0
                lastSpace = nil
                index += 1
                continue
            }
            if x + cluster.width > available && index > lineStart && !cluster.isSpace {
                let breakAt = lastSpace.map { $0 + 1 } ?? index
                breaks.append(breakAt)
                lineStart = breakAt
                x = clusters[lineStart..<index].reduce(0) { $0 + $1.width }
                lastSpace = nil
                continue
            }
            x += cluster.width
            if cluster.isSpace { lastSpace = index }
            index += 1
        }
        breaks.append(clusters.count)
        var result: [LayoutLine] = []
        var from = 0
        for to in breaks {
            var runs: [LayoutRun] = []
            var lineX = 0.0
            var lineHeight = 0.0
            var position = from
            while position < to {
                let runIndex = clusters[position].run
                let built = paragraph.runs[runIndex]
                var starts: [Int] = []
                var edges: [Double] = []
                let runX = lineX
                var runWidth = 0.0
                while position < to && clusters[position].run == runIndex {
                    starts.append(clusters[position].start)
                    edges.append(runWidth)
                    runWidth += clusters[position].width
                    position += 1
                }
                edges.append(runWidth)
                let runStart = starts[0]
                let runEnd = position < clusters.count ? clusters[position - 1].end : clusters[position - 1].end
                lineHeight = max(lineHeight, built.size?.height ?? metrics.lineHeight(for: built.style.font))
                runs.append(LayoutRun(range: runStart..<runEnd, x: paragraph.indent + runX, width: runWidth, style: built.style,
                                      attachment: built.attachment, label: built.label, clusterStarts: starts, clusterEdges: edges))
                lineX += runWidth
            }
            // A line without clusters is an empty paragraph's, or the one after a break that ends
            // the paragraph: it starts where the break ends, so that lines stay in offset order.
            let start = from < clusters.count ? clusters[from].start : (clusters.last?.end ?? paragraph.paragraph.range.lowerBound)
            let end = to > from ? clusters[to - 1].end : start
            if lineHeight == 0 { lineHeight = metrics.lineHeight(for: FontDescriptor(family: "body", size: 16)) }
            result.append(LayoutLine(paragraph: paragraphIndex, start: start, end: end, y: y, height: lineHeight, x: paragraph.indent,
                                     marker: result.isEmpty ? paragraph.marker : "", runs: runs))
            y += lineHeight
            from = to
        }
        return result
    }

    // MARK: Conversions

    /// The index in `lines` of the last line starting at or before `offset`.
    ///
    /// - Complexity: O(log L) for L lines.
    func lineIndex(containing offset: Int) -> Int {
        Self.lastIndex(in: lines, notAfter: offset) { $0.start }
    }

    /// The position of a UTF-16 offset (the end of a paragraph maps to its last line's end).
    ///
    /// - Complexity: O(log L + log r + log c) for L lines, r runs on the line, c clusters in the run.
    public func position(ofOffset offset: Int) -> TextPosition {
        let global = lineIndex(containing: max(0, min(offset, length)))
        let line = lines[global]
        let lineInLayout = global - firstLine[line.paragraph]
        guard !line.runs.isEmpty else { return TextPosition(layout: line.paragraph, line: lineInLayout, run: 0, runSlice: 0) }
        if offset >= line.end {
            let last = line.runs.count - 1
            return TextPosition(layout: line.paragraph, line: lineInLayout, run: last, runSlice: line.runs[last].clusterStarts.count)
        }
        let low = Self.lastIndex(in: line.runs, notAfter: offset) { $0.range.lowerBound }
        let run = line.runs[low]
        let slice = Self.lastIndex(in: run.clusterStarts, notAfter: offset)
        return TextPosition(layout: line.paragraph, line: lineInLayout, run: low, runSlice: slice)
    }

    /// The UTF-16 offset of a position.
    ///
    /// - Complexity: O(1).
    public func offset(of position: TextPosition) -> Int {
        let line = lines[firstLine[position.layout] + position.line]
        guard position.run < line.runs.count else { return line.start }
        let run = line.runs[position.run]
        return position.runSlice < run.clusterStarts.count ? run.clusterStarts[position.runSlice] : run.range.upperBound
    }

    /// The caret rectangle at a position (zero width, the line's height).
    ///
    /// - Complexity: O(1).
    public func caretRect(at position: TextPosition) -> LayoutRect {
        let line = lines[firstLine[position.layout] + position.line]
        guard position.run < line.runs.count else { return LayoutRect(x: line.x, y: line.y, width: 0, height: line.height) }
        let run = line.runs[position.run]
        return LayoutRect(x: run.x + run.clusterEdges[min(position.runSlice, run.clusterEdges.count - 1)], y: line.y, width: 0, height: line.height)
    }

    /// The caret rectangle for a UTF-16 offset.
    ///
    /// - Complexity: O(log n).
    public func caretRect(forOffset offset: Int) -> LayoutRect { caretRect(at: position(ofOffset: offset)) }

    /// The index of the line at height `y` (clamped to the first and last lines).
    ///
    /// - Complexity: O(log L).
    func lineIndex(atY y: Double) -> Int {
        Self.lastIndex(in: lines, notAfter: y) { $0.y }
    }

    /// The caret position nearest to `point`: the line under it, then the nearest cluster edge.
    ///
    /// - Complexity: O(log L + log r + log c).
    public func position(at point: LayoutPoint) -> TextPosition {
        let global = lineIndex(atY: point.y)
        let line = lines[global]
        let lineInLayout = global - firstLine[line.paragraph]
        guard !line.runs.isEmpty else { return TextPosition(layout: line.paragraph, line: lineInLayout, run: 0, runSlice: 0) }
        let low = Self.lastIndex(in: line.runs, notAfter: point.x) { $0.x }
        let run = line.runs[low]
        let local = point.x - run.x
        let slice = Self.lastIndex(in: run.clusterEdges, notAfter: local)
        guard slice < run.clusterStarts.count else { return TextPosition(layout: line.paragraph, line: lineInLayout, run: low, runSlice: run.clusterStarts.count) }
        let nearer = local - run.clusterEdges[slice] > run.clusterEdges[slice + 1] - local ? slice + 1 : slice
        // The end of a wrapped line is the start of the next: stay on this line's last cluster.
        let isWrappedEnd = nearer == run.clusterStarts.count && low == line.runs.count - 1 && global + 1 < lines.count
            && lines[global + 1].paragraph == line.paragraph
        return TextPosition(layout: line.paragraph, line: lineInLayout, run: low, runSlice: isWrappedEnd ? slice : nearer)
    }

    /// The UTF-16 offset of the caret nearest to `point`.
    ///
    /// - Complexity: O(log n).
    public func offset(at point: LayoutPoint) -> Int { offset(of: position(at: point)) }

    static func lastIndex<T: Comparable>(in sorted: [T], notAfter value: T) -> Int {
        lastIndex(in: sorted, notAfter: value) { $0 }
    }

    /// The index of the last element whose `key` is at or before `value` (0 when none is), for
    /// elements sorted by `key`: the binary search behind every coordinate conversion here.
    ///
    /// - Complexity: O(log n).
    static func lastIndex<Element, T: Comparable>(in sorted: [Element], notAfter value: T, by key: (Element) -> T) -> Int {
        max(0, sorted.partitioningIndex { key($0) > value } - 1)
    }

    // MARK: Overlays

    /// An attachment's frame in the layout.
    public struct AttachmentFrame: Hashable, Sendable {
        public var offset: Int
        public var attachment: AttachmentReference
        public var frame: LayoutRect
    }

    /// The frames of every attachment placeholder, in text order.
    ///
    /// - Complexity: O(L + r) over all lines and runs.
    public var attachmentFrames: [AttachmentFrame] {
        var frames: [AttachmentFrame] = []
        for line in lines {
            for run in line.runs {
                guard let attachment = run.attachment else { continue }
                frames.append(AttachmentFrame(offset: run.range.lowerBound, attachment: attachment,
                                              frame: LayoutRect(x: run.x, y: line.y, width: run.width, height: line.height)))
            }
        }
        return frames
    }

    /// The link target under `point`, if the point is over linked text (``linkHit(at:)`` gives
    /// its range and frames too).
    ///
    /// - Complexity: O(log n + k) for the k runs of the link.
    public func link(at point: LayoutPoint) -> String? { linkHit(at: point)?.url }

    func runsNear(_ x: Double, in line: LayoutLine) -> ArraySlice<LayoutRun> {
        guard !line.runs.isEmpty else { return [] }
        let low = Self.lastIndex(in: line.runs, notAfter: x) { $0.x }
        return line.runs[low...low]
    }
}
