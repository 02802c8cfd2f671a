import QuireModel

/// Where a selection over rendered text lives: the document, or one block that scrolls
/// horizontally (a code block with overflowing lines), which has a selection of its own and is
/// left out of the document's.
public enum SelectionContext: Hashable, Sendable {
    /// The document's text, less its horizontally scrolling blocks.
    case document
    /// The block laid out as `layout` (its paragraph index).
    case scrollingBlock(layout: Int)
}

/// A selection in a layout's ``TextPosition`` coordinates: where it started (the anchor) and
/// where it ends now (the focus, which moves as it is extended), in one context.
public struct TextSelection: Hashable, Sendable {
    public var context: SelectionContext
    public var anchor: TextPosition
    public var focus: TextPosition
}

/// A keyboard-style move of a selection's focus (Shift with an arrow key, Home, End …).
public enum SelectionMove: String, Hashable, Sendable, CaseIterable {
    /// One grapheme cluster back or forward (a paragraph end and the next paragraph's start are
    /// one move apart).
    case left, right
    /// To the start of the word before, to the end of the word after.
    case wordLeft, wordRight
    /// To the line above or below, keeping to the column the moves started from.
    case up, down
    /// To the start or end of the laid-out line.
    case lineStart, lineEnd
    /// To the start or end of the paragraph.
    case paragraphStart, paragraphEnd
    /// To the start or end of the context (the document, or the scrolling block).
    case documentStart, documentEnd
}

/// Selection over a read-only rendered document (Textual's text selection on macOS and iOS),
/// headless: a view feeds it points and keys and draws ``highlightRects``. Select by point and
/// drag, by word, line or paragraph, extend with keyboard-style moves, select all. A block that
/// scrolls horizontally is its own context: a selection started in it stays in it, a document
/// selection leaves it out, and starting a selection in one context clears the other. The
/// selection copies as plain text, and as markdown or HTML through the configured exporters
/// (``SelectionExport``).
public struct RenderedTextSelection: Sendable {
    /// The rendered text (stage 1's output after preprocessing), which copies are cut from.
    public let text: IntentText
    /// Its layout.
    public let layout: TextLayout
    /// The selection, if any.
    public private(set) var selection: TextSelection?
    private let units: [UInt16]
    /// The x that vertical moves keep to, from the first of a run of them.
    private var goalX: Double?

    /// A selection model over `text` laid out as `layout` (the same text: its units and
    /// paragraphs are the layout's).
    public init(text: IntentText, layout: TextLayout) {
        self.text = text
        self.layout = layout
        units = Array(text.text.string.utf16)
    }

    /// A selection model over a document rendered by ``MarkupPipeline/render(_:width:)``.
    public init(_ rendered: RenderedText) {
        self.init(text: rendered.text, layout: rendered.layout)
    }

    // MARK: Contexts

    /// The context of the paragraph laid out as `paragraph`.
    func context(ofParagraph paragraph: Int) -> SelectionContext {
        layout.overflow[paragraph] == .scrollHorizontally ? .scrollingBlock(layout: paragraph) : .document
    }

    /// The offsets a selection in `context` may span: the paragraph's text for a scrolling
    /// block, the whole text but its final "\n" for the document.
    func bounds(of context: SelectionContext) -> ClosedRange<Int> {
        switch context {
        case .document: return 0...max(0, layout.length - 1)
        case .scrollingBlock(let paragraph):
            let range = text.paragraphs[paragraph].range
            return range.lowerBound...(range.upperBound - 1)
        }
    }

    /// The paragraph containing `offset` (a paragraph's final "\n" belongs to it).
    ///
    /// - Complexity: O(log p).
    func paragraph(containing offset: Int) -> Int {
        TextLayout.lastIndex(in: text.paragraphs, notAfter: offset) { $0.range.lowerBound }
    }

    // MARK: Selecting

    /// A click or touch at `point`: a caret there, in the context under the point (any selection
    /// in the other context is cleared).
    public mutating func begin(at point: LayoutPoint) {
        let position = layout.position(at: point)
        select(context(ofParagraph: position.layout), anchor: position, focus: position)
    }

    /// A drag to `point`: the focus follows, inside the context the selection began in (a drag
    /// out of a scrolling block stops at its edge; a document selection passes over scrolling
    /// blocks without taking them).
    public mutating func drag(to point: LayoutPoint) {
        guard let current = selection else { return begin(at: point) }
        var offset = layout.offset(at: point)
        if case .scrollingBlock = current.context {
            let bounds = bounds(of: current.context)
            offset = min(max(offset, bounds.lowerBound), bounds.upperBound)
        }
        moveFocus(to: offset)
    }

    /// The word (or the run of spaces, or the one other character) under `point`.
    public mutating func selectWord(at point: LayoutPoint) {
        let offset = clusterOffset(at: point)
        let paragraph = paragraph(containing: offset)
        let range = wordRange(around: offset, in: paragraph)
        select(context(ofParagraph: paragraph), range: range)
    }

    /// The laid-out line under `point`.
    public mutating func selectLine(at point: LayoutPoint) {
        let position = layout.position(at: point)
        let line = layout.lines[layout.firstLine[position.layout] + position.line]
        select(context(ofParagraph: position.layout), range: line.start..<line.end)
    }

    /// The paragraph under `point`, without its final "\n".
    public mutating func selectParagraph(at point: LayoutPoint) {
        let paragraph = layout.position(at: point).layout
        let range = text.paragraphs[paragraph].range
        select(context(ofParagraph: paragraph), range: range.lowerBound..<(range.upperBound - 1))
    }

    /// Everything in the current context: the whole document, or the whole scrolling block the
    /// selection is in.
    public mutating func selectAll() {
        let context = selection?.context ?? .document
        let bounds = bounds(of: context)
        select(context, range: bounds.lowerBound..<bounds.upperBound)
    }

    /// No selection.
    public mutating func clear() {
        selection = nil
        goalX = nil
    }

    /// Moves the focus as a key with Shift would; the anchor stays. Without a selection, one
    /// starts at the document's start.
    public mutating func extend(_ move: SelectionMove) {
        if selection == nil { select(.document, range: 0..<0) }
        guard let current = selection else { return }
        let focus = layout.offset(of: current.focus)
        let bounds = bounds(of: current.context)
        if move != .up && move != .down { goalX = nil }
        let paragraph = paragraph(containing: focus)
        let paragraphRange = text.paragraphs[paragraph].range
        let target: Int
        switch move {
        case .left: target = previousClusterStart(before: focus, context: current.context)
        case .right: target = nextClusterEnd(after: focus, context: current.context)
        case .wordLeft:
            var offset = previousClusterStart(before: focus, context: current.context)
            // Skip spaces and punctuation back to a word, then to the word's start.
            while offset > bounds.lowerBound, !isWordCharacter(at: offset) { offset = previousClusterStart(before: offset, context: current.context) }
            let inParagraph = self.paragraph(containing: offset)
            target = isWordCharacter(at: offset) ? wordRange(around: offset, in: inParagraph).lowerBound : offset
        case .wordRight:
            var offset = focus
            while offset < bounds.upperBound, !isWordCharacter(at: offset) { offset = nextClusterEnd(after: offset, context: current.context) }
            target = offset < bounds.upperBound ? wordRange(around: offset, in: self.paragraph(containing: offset)).upperBound : offset
        case .up, .down:
            let caret = layout.caretRect(at: layout.position(ofOffset: focus))
            let x = goalX ?? caret.x
            goalX = x
            let step = move == .up ? -1 : 1
            var next = layout.lineIndex(containing: focus) + step
            // A document selection steps over the lines of scrolling blocks.
            while next >= 0, next < layout.lines.count, current.context == .document, context(ofParagraph: layout.lines[next].paragraph) != .document {
                next += step
            }
            if next < 0 { target = bounds.lowerBound }
            else if next >= layout.lines.count { target = bounds.upperBound }
            else { target = layout.offset(at: LayoutPoint(x: x, y: layout.lines[next].y + layout.lines[next].height / 2)) }
        case .lineStart: target = layout.lines[layout.lineIndex(containing: focus)].start
        case .lineEnd: target = layout.lines[layout.lineIndex(containing: focus)].end
        case .paragraphStart: target = paragraphRange.lowerBound
        case .paragraphEnd: target = paragraphRange.upperBound - 1
        case .documentStart: target = bounds.lowerBound
        case .documentEnd: target = bounds.upperBound
        }
        moveFocus(to: min(max(target, bounds.lowerBound), bounds.upperBound))
    }

    private mutating func select(_ context: SelectionContext, anchor: TextPosition, focus: TextPosition) {
        selection = TextSelection(context: context, anchor: anchor, focus: focus)
        goalX = nil
    }

    private mutating func select(_ context: SelectionContext, range: Range<Int>) {
        select(context, anchor: layout.position(ofOffset: range.lowerBound), focus: focus(at: range.upperBound, after: range.lowerBound))
    }

    /// The focus position for `offset`: a selection ending at a wrapped line's end keeps its
    /// focus on that line rather than the next line's start.
    private func focus(at offset: Int, after start: Int) -> TextPosition {
        let position = layout.position(ofOffset: offset)
        guard offset > start, position.line > 0, position.run == 0, position.runSlice == 0 else { return position }
        let previous = layout.lines[layout.firstLine[position.layout] + position.line - 1]
        guard previous.end == offset, let last = previous.runs.indices.last else { return position }
        return TextPosition(layout: position.layout, line: position.line - 1, run: last, runSlice: previous.runs[last].clusterStarts.count)
    }

    private mutating func moveFocus(to offset: Int) {
        guard var current = selection else { return }
        current.focus = focus(at: offset, after: min(offset, layout.offset(of: current.anchor)))
        let goal = goalX
        selection = current
        goalX = goal
    }

    // MARK: Clusters and words

    /// The offset of the cluster under `point` (not the nearest caret edge): the last cluster of
    /// the line when the point is past its end.
    func clusterOffset(at point: LayoutPoint) -> Int {
        let line = layout.lines[layout.lineIndex(atY: point.y)]
        guard !line.runs.isEmpty else { return line.start }
        let run = line.runs[TextLayout.lastIndex(in: line.runs, notAfter: point.x) { $0.x }]
        let slice = min(TextLayout.lastIndex(in: run.clusterEdges, notAfter: point.x - run.x), run.clusterStarts.count - 1)
        return run.clusterStarts[slice]
    }

    /// The clusters of a paragraph's text (without its "\n") as offset ranges.
    func clusters(of paragraph: Int) -> [Range<Int>] {
        let range = text.paragraphs[paragraph].range
        var result: [Range<Int>] = []
        var offset = range.lowerBound
        for character in String(decoding: units[range.lowerBound..<(range.upperBound - 1)], as: UTF16.self) {
            let length = character.utf16.count
            result.append(offset..<(offset + length))
            offset += length
        }
        return result
    }

    func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }

    func isWordCharacter(at offset: Int) -> Bool {
        let paragraph = paragraph(containing: offset)
        guard let cluster = clusters(of: paragraph).first(where: { $0.contains(offset) }) else { return false }
        return isWordCharacter(character(cluster))
    }

    func character(_ cluster: Range<Int>) -> Character {
        String(decoding: units[cluster], as: UTF16.self).first ?? " "
    }

    /// The word around `offset` in `paragraph`: letters, digits and "_" together, whitespace
    /// together, any other cluster alone; at the paragraph's end, the empty range there.
    func wordRange(around offset: Int, in paragraph: Int) -> Range<Int> {
        let clusters = clusters(of: paragraph)
        guard let index = clusters.firstIndex(where: { $0.contains(offset) }) else { return offset..<offset }
        func kind(_ cluster: Range<Int>) -> Int {
            let character = character(cluster)
            return isWordCharacter(character) ? 0 : character.isWhitespace ? 1 : 2
        }
        let own = kind(clusters[index])
        guard own != 2 else { return clusters[index] }
        var first = index
        while first > 0, kind(clusters[first - 1]) == own { first -= 1 }
        var last = index
        while last + 1 < clusters.count, kind(clusters[last + 1]) == own { last += 1 }
        return clusters[first].lowerBound..<clusters[last].upperBound
    }

    /// One cluster back: the previous cluster's start, or the previous paragraph's end from a
    /// paragraph's start; a document selection steps over scrolling blocks.
    func previousClusterStart(before offset: Int, context: SelectionContext) -> Int {
        let paragraph = paragraph(containing: offset)
        if offset > text.paragraphs[paragraph].range.lowerBound {
            return clusters(of: paragraph).last { $0.lowerBound < offset }?.lowerBound ?? text.paragraphs[paragraph].range.lowerBound
        }
        var previous = paragraph - 1
        while previous >= 0, context == .document, self.context(ofParagraph: previous) != .document { previous -= 1 }
        return previous >= 0 ? text.paragraphs[previous].range.upperBound - 1 : offset
    }

    /// One cluster forward: the cluster's end, or the next paragraph's start from a paragraph's
    /// end; a document selection steps over scrolling blocks.
    func nextClusterEnd(after offset: Int, context: SelectionContext) -> Int {
        let paragraph = paragraph(containing: offset)
        let end = text.paragraphs[paragraph].range.upperBound - 1
        if offset < end { return clusters(of: paragraph).first { $0.contains(offset) }?.upperBound ?? end }
        var next = paragraph + 1
        while next < text.paragraphs.count, context == .document, self.context(ofParagraph: next) != .document { next += 1 }
        return next < text.paragraphs.count ? text.paragraphs[next].range.lowerBound : offset
    }

    // MARK: Reading the selection

    /// The selected UTF-16 range, anchor and focus in text order (nil without a selection).
    public var selectedRange: Range<Int>? {
        guard let selection else { return nil }
        let anchor = layout.offset(of: selection.anchor)
        let focus = layout.offset(of: selection.focus)
        return min(anchor, focus)..<max(anchor, focus)
    }

    /// The selected ranges: the selected range less the scrolling blocks in it, for a document
    /// selection; empty without a selection or for a caret.
    public var selectedRanges: [Range<Int>] {
        guard let selection, let range = selectedRange, !range.isEmpty else { return [] }
        guard selection.context == .document else { return [range] }
        var ranges: [Range<Int>] = []
        var start = range.lowerBound
        var paragraph = paragraph(containing: range.lowerBound)
        while paragraph < text.paragraphs.count, text.paragraphs[paragraph].range.lowerBound < range.upperBound {
            if context(ofParagraph: paragraph) != .document {
                let excluded = text.paragraphs[paragraph].range
                if start < excluded.lowerBound { ranges.append(start..<excluded.lowerBound) }
                start = max(start, excluded.upperBound)
            }
            paragraph += 1
        }
        if start < range.upperBound { ranges.append(start..<range.upperBound) }
        return ranges
    }

    /// The rectangles to highlight, one per line part selected, top to bottom.
    ///
    /// - Complexity: O(log n + k) for the k lines selected, plus their runs.
    public var highlightRects: [LayoutRect] {
        var rects: [LayoutRect] = []
        for range in selectedRanges {
            var index = layout.lineIndex(containing: range.lowerBound)
            while index < layout.lines.count, layout.lines[index].start < range.upperBound {
                let line = layout.lines[index]
                let from = max(range.lowerBound, line.start)
                let to = min(range.upperBound, line.end)
                if from < to || line.runs.isEmpty {
                    let left = layout.caretRect(forOffset: from).x
                    let right = to >= line.end ? (line.runs.last.map { $0.x + $0.width } ?? line.x) : layout.caretRect(forOffset: to).x
                    rects.append(LayoutRect(x: left, y: line.y, width: right - left, height: line.height))
                }
                index += 1
            }
        }
        return rects
    }

    /// The selected text as plain text: paragraphs separated by "\n", hard line breaks as "\n",
    /// without the object replacement characters of attachments (as the editor's copy).
    public var plainText: String {
        var result: [UInt16] = []
        for range in selectedRanges {
            for unit in units[range] where unit != 0xFFFC { result.append(unit == TextLayout.lineSeparator ? 0x0A : unit) }
        }
        return String(decoding: result, as: UTF16.self)
    }

    /// The selected content as a markup document of its own (``IntentText/document(in:)``).
    public var selectedDocument: MarkupDocument { text.document(in: selectedRanges) }

    /// The selected content as markdown (or the export's serializer's format).
    ///
    /// - Throws: `MarkupError` when a block cannot be imported or written.
    public func markdown(_ export: SelectionExport) throws(MarkupError) -> String {
        try export.markup(selectedDocument)
    }

    /// The selected content as an HTML fragment.
    ///
    /// - Throws: `MarkupError` when a block cannot be imported or written.
    public func html(_ export: SelectionExport) throws(MarkupError) -> String {
        try export.html(selectedDocument)
    }
}

/// How a copy of rendered text is written as markup and HTML: the same path as the editor's
/// copy of a selection — the content imported into an editor state by the configured mappings
/// (``MarkupImporter``), then written by ``MarkupExporter`` and a ``MarkupSerializer``, or by
/// ``HTMLExporter``.
public struct SelectionExport: Sendable {
    public let registry: NodeRegistry
    public let importer: MarkupImporter
    public let exporter: MarkupExporter
    public let serializer: any MarkupSerializer
    public let htmlExporter: HTMLExporter

    /// An export through the mappings, serializers and HTML conversions among `contributions`;
    /// markup is written in `format` ("markdown").
    ///
    /// - Throws: `MarkupError.unknownFormat` when no serializer writes `format`.
    public init(registry: NodeRegistry, contributions: [PluginContribution], format: String = "markdown") throws(MarkupError) {
        let mappings = MarkupMappings(contributions: contributions)
        self.registry = registry
        importer = MarkupImporter(mappings: mappings)
        exporter = MarkupExporter(mappings: mappings)
        serializer = try MarkupFormats(contributions: contributions).serializer(for: format)
        htmlExporter = HTMLExporter(conversions: HTMLConversions(contributions: contributions))
    }

    /// `document` as markup.
    public func markup(_ document: MarkupDocument) throws(MarkupError) -> String {
        try serializer.serialize(exporter.makeDocument(importer.makeState(document, registry: registry)))
    }

    /// `document` as an HTML fragment.
    public func html(_ document: MarkupDocument) throws(MarkupError) -> String {
        try htmlExporter.html(importer.makeState(document, registry: registry))
    }
}
