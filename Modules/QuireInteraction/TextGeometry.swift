import QuireMarkup
import QuireReconciler
import QuireTextStorage

/// Where text is on screen, in content coordinates (y grows downwards), by UTF-16 offset of the
/// flat string: what the viewport policies need from a layout.
///
/// The markup layout (`TextLayout`) implements it, for terminals among others; an app
/// implements it for its own text view (TextKit's caret and line fragment rectangles).
public protocol TextGeometry {
    /// The height of all the content.
    var contentHeight: Double { get }
    /// The caret rectangle at a UTF-16 offset (zero or caret width, the line's height).
    func caretRect(forOffset offset: Int) -> LayoutRect
    /// The rectangles of the lines that `range` touches, top to bottom (one line for an empty
    /// range).
    func lineRects(for range: Range<Int>) -> [LayoutRect]
    /// The line at height `y` (clamped to the first and last lines): its first UTF-16 offset and
    /// its rectangle.
    func line(atY y: Double) -> (start: Int, rect: LayoutRect)
}

extension TextLayout: TextGeometry {
    public var contentHeight: Double { height }

    /// - Complexity: O(log L + k) for L lines and the k lines returned.
    public func lineRects(for range: Range<Int>) -> [LayoutRect] {
        guard !lines.isEmpty else { return [] }
        let first = position(ofOffset: range.lowerBound)
        var index = firstLine[first.layout] + first.line
        var rects: [LayoutRect] = []
        repeat {
            rects.append(Self.rect(of: lines[index]))
            index += 1
        } while index < lines.count && lines[index].start < range.upperBound
        return rects
    }

    /// - Complexity: O(log n).
    public func line(atY y: Double) -> (start: Int, rect: LayoutRect) {
        guard !lines.isEmpty else { return (0, LayoutRect(x: 0, y: 0, width: 0, height: 0)) }
        let position = position(at: LayoutPoint(x: 0, y: y))
        let line = lines[firstLine[position.layout] + position.line]
        return (line.start, Self.rect(of: line))
    }

    /// A line's rectangle: from its indent to the end of its last run.
    static func rect(of line: LayoutLine) -> LayoutRect {
        LayoutRect(x: line.x, y: line.y, width: line.runs.last.map { $0.x + $0.width - line.x } ?? 0, height: line.height)
    }

    /// Lays out plain text (the flat string a text view shows) at `width`: one paragraph per
    /// "\n", soft-wrapped, measured by `metrics` — terminal cells by default, where East Asian
    /// wide characters and emoji take two cells and combining marks none. Offsets are the
    /// text's UTF-16 offsets. Lines are not spaced apart (`BlockStyles.compact`): one row a line.
    ///
    /// - Complexity: O(n).
    public init(plainText text: String, width: Double, metrics: any LayoutMetrics = TerminalMetrics()) {
        let styled = StyleEnvironment().apply(to: IntentText(plainText: text))
        self.init(RunBuilder(metrics: metrics, blockStyles: .compact).build(styled, proposal: width), width: width, metrics: metrics)
    }
}

/// What keeps the text the user reads in place when content changes above it (scroll
/// anchoring, as CodeMirror and the browsers do it): the first line under the viewport's
/// visible top, and how far into it the top is.
public struct ScrollAnchor: Hashable, Sendable {
    /// The UTF-16 offset where the anchor line starts.
    public var location: Int
    /// The visible top minus the anchor line's top.
    public var distance: Double

    /// The anchor of what `viewport` shows now.
    ///
    /// - Complexity: O(log n) in the geometry's line lookup.
    public static func capture(_ viewport: Viewport, in geometry: any TextGeometry) -> ScrollAnchor {
        let line = geometry.line(atY: viewport.visibleTop)
        return ScrollAnchor(location: line.start, distance: viewport.visibleTop - line.rect.y)
    }

    /// Moves `viewport` so that the anchor's text, carried through `edits` (in order, as the
    /// editor reports them), is where it was: a change above it shifts the offset by the
    /// change's height; a change below it moves nothing.
    ///
    /// - Complexity: O(e) for e edits, plus the geometry's caret lookup.
    public func restore(_ viewport: inout Viewport, through edits: [FlatTextEdit], in geometry: any TextGeometry) {
        let location = edits.reduce(self.location) { $1.mapLocation($0) }
        let top = geometry.caretRect(forOffset: location).y + distance
        viewport.offset = top - viewport.insets.top
    }
}
