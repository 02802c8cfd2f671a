import Foundation
import QuireAlgorithms
import QuireEditor
import QuireInteraction
import QuireLink
import QuireMarkup
import QuireModel
import QuireSelection
import QuireStyle
import QuireTextStorage

/// One paragraph of the document laid out on its own: its built text (its units, the final "\n"
/// included, offsets from its start) and its lines (y from its top).
struct LaidParagraph {
    var built: BuiltText
    var layout: TextLayout
    /// Where the flat string's "\n" are inside it (offsets from its start): line breaks, lines
    /// of a code block, which the layout sees as U+2028. Its own final "\n" is not among them.
    var lineBreaks: [Int]

    var length: Int { built.units.count }
    /// The flat string's line ends in it, its final "\n" included.
    var lineEnds: Int { lineBreaks.count + 1 }
}

/// The editor's text storage laid out through the markup pipeline for a terminal, a paragraph at
/// a time: the storage's string is the intent text (so layout offsets are the flat string's UTF-16
/// offsets and the caret maps directly), its paragraphs carry the block paths of the editor
/// state's blocks (headings, list items with their markers, quotes, code, table cells), and its
/// character attributes are the theme's format attributes as markup intents.
///
/// Each paragraph is laid out apart, with offsets and heights from its own start, and placed by
/// the paragraphs' starts and tops. A commit that changed one text block (typing, deleting,
/// formatting inside it, locally or from a collaborator) lays out that paragraph again and moves
/// the ones after it: ``update(after:editor:mappings:attachments:loaded:)``. Anything else is
/// laid out whole, but a paragraph whose built text did not change keeps its lines.
struct DocumentLayout {
    private(set) var paragraphs: [LaidParagraph]
    /// The UTF-16 offset where each paragraph starts.
    private(set) var starts: [Int]
    /// The y of each paragraph's top (the space above it included).
    private(set) var tops: [Double]
    /// The flat string's line number (0-based) of each paragraph's first line.
    private(set) var firstLineNumbers: [Int]
    /// The wrap width.
    let width: Double
    /// The laid-out text's length in UTF-16 units (the storage's, plus the final "\n").
    private(set) var length: Int
    /// The height of all the lines.
    private(set) var height: Double
    /// Each text block's paragraph and block intent, for laying out one block's paragraph alone.
    private(set) var blocks: [NodeKey: BlockPlace]

    struct BlockPlace: Hashable {
        var paragraph: Int
        var intent: BlockIntent
    }

    /// Lays `editor`'s storage out whole at `width` cells, images as `attachments` knows them;
    /// loads of the images it does not know yet start, and `loaded` is called when each ends.
    /// A paragraph whose built text is the same as one in `previous` (at the same width) keeps
    /// that one's lines instead of being measured again.
    ///
    /// - Complexity: O(n) in the document, the paragraphs `previous` has excepted from measuring.
    init(editor: Editor, mappings: MarkupMappings, width: Int, attachments: LiveAttachments,
         loaded: @escaping @Sendable () -> Void, reusing previous: DocumentLayout? = nil) {
        let source = Self.intentText(editor: editor, mappings: mappings)
        attachments.request(in: source.text) { _, _ in loaded() }
        let styled = StyleEnvironment().apply(to: source.text, attachments: attachments.results)
        // The editor draws one row per line of the flat string: no block spacing.
        let built = Self.builder.build(styled, proposal: Double(width))
        var reusable: [BuiltText: TextLayout] = [:]
        if let previous, previous.width == Double(width) {
            for paragraph in previous.paragraphs { reusable[Self.reuseKey(paragraph.built)] = paragraph.layout }
        }
        self.width = Double(width)
        paragraphs = built.paragraphs.indices.map { index in
            let own = built.paragraphText(index)
            let layout = reusable[Self.reuseKey(own)] ?? TextLayout(own, width: Double(width), metrics: Self.metrics)
            return LaidParagraph(built: own, layout: layout, lineBreaks: source.lineBreaks[index])
        }
        starts = []
        tops = []
        firstLineNumbers = []
        length = 0
        height = 0
        blocks = [:]
        placeParagraphs()
        for (key, block) in source.blocks {
            let paragraph = max(0, starts.partitioningIndex { $0 > block.location } - 1)
            blocks[key] = BlockPlace(paragraph: paragraph, intent: block.intent)
        }
    }

    static let metrics = TerminalMetrics()
    static let builder = RunBuilder(metrics: TerminalMetrics(), blockStyles: .compact)

    /// A paragraph's built text without its block identities, which number the blocks in document
    /// order: a paragraph inserted above another changes its identities but not its lines.
    static func reuseKey(_ text: BuiltText) -> BuiltText {
        var key = text
        for index in key.paragraphs[0].paragraph.path.indices { key.paragraphs[0].paragraph.path[index].id = 0 }
        return key
    }

    /// The starts, tops and line numbers of the paragraphs from their lengths and heights.
    ///
    /// - Complexity: O(p) for p paragraphs.
    private mutating func placeParagraphs() {
        starts = []
        tops = []
        firstLineNumbers = []
        starts.reserveCapacity(paragraphs.count)
        tops.reserveCapacity(paragraphs.count)
        firstLineNumbers.reserveCapacity(paragraphs.count)
        var offset = 0
        var y = 0.0
        var lineNumber = 0
        for paragraph in paragraphs {
            starts.append(offset)
            tops.append(y)
            firstLineNumbers.append(lineNumber)
            offset += paragraph.length
            y += paragraph.layout.height
            lineNumber += paragraph.lineEnds
        }
        length = offset
        height = y
    }

    // MARK: One block changed

    /// Brings this layout up to date with `updates` (the commits since it was made) when they
    /// changed the content of one text block only — its text, its formats, its inline nodes — and
    /// nothing around it: that block's paragraph is laid out again and the ones after it move.
    /// False, and nothing changed, when the commits did more (created, removed or moved a block,
    /// changed a block's kind, replaced the document) or the paragraph is not where this layout
    /// expects it: the caller lays the document out whole.
    ///
    /// - Complexity: O(k + p + c · d): the paragraph's k units, moving p paragraphs' places, and
    ///   the c changed nodes' walks to their block at depth d.
    mutating func update(after updates: [EditorUpdate], editor: Editor, mappings: MarkupMappings, attachments: LiveAttachments,
                         loaded: @escaping @Sendable () -> Void) -> Bool {
        guard let storage = editor.storage, !updates.contains(where: \.replacedWholeState) else { return false }
        var changedBlock: NodeKey?
        for update in updates {
            let changes = update.changes
            for key in changes.removed {
                guard let block = Self.textBlock(holding: key, in: update.previousState), changedBlock == nil || changedBlock == block else { return false }
                changedBlock = block
            }
            for key in changes.created.union(changes.updated).union(changes.moved) {
                guard let block = Self.textBlock(holding: key, in: update.state), changedBlock == nil || changedBlock == block else { return false }
                changedBlock = block
            }
            if let changedBlock, changes.created.contains(changedBlock) || changes.removed.contains(changedBlock) || changes.moved.contains(changedBlock) {
                return false
            }
        }
        let delta = storage.length + 1 - length
        guard let block = changedBlock else { return delta == 0 }
        guard let place = blocks[block], let node = editor.state[block], Self.intent(of: node, mappings: mappings) == place.intent else { return false }
        let index = place.paragraph
        let old = paragraphs[index]
        let start = starts[index]
        let newLength = old.length + delta
        let isLast = index == paragraphs.count - 1
        guard newLength >= 1, start + newLength <= storage.length + 1 else { return false }
        let stored = min(start + newLength, storage.length) - start
        guard let text = try? storage.substring(in: NSRange(location: start, length: stored)),
              let storageRuns = try? storage.runs(in: NSRange(location: start, length: stored)) else { return false }
        var units = Array(text.utf16)
        if isLast { units.append(0x0A) }
        // The paragraph ends where it did: at the "\n" before the next one's start.
        guard units.count == newLength, units.last == 0x0A else { return false }
        let path = old.built.paragraphs[0].paragraph.path
        let lineBreaks = units.indices.dropLast().filter { units[$0] == 0x0A }
        for offset in lineBreaks { units[offset] = TextLayoutBreak.lineSeparator }
        Self.drawTabs(in: &units, range: 0..<units.count, path: path)
        var runs = storageRuns.map { ($0.range.length, Self.markupAttributes($0.attributes)) }
        runs.append((units.count - stored, .empty))
        guard let attributed = try? AttributedText(String(decoding: units, as: UTF16.self), runs: runs) else { return false }
        let intent = IntentText(text: attributed, paragraphs: [IntentParagraph(range: 0..<units.count, path: path)])
        attachments.request(in: intent) { _, _ in loaded() }
        var built = Self.builder.build(StyleEnvironment().apply(to: intent, attachments: attachments.results), proposal: width)
        // Alone, the paragraph would be the first and last of its blocks: its decoration (marker,
        // spacing) is the one its neighbours gave it, which did not change.
        let decorated = old.built.paragraphs[0]
        built.paragraphs[0].indent = decorated.indent
        built.paragraphs[0].marker = decorated.marker
        built.paragraphs[0].spacingBefore = decorated.spacingBefore
        built.paragraphs[0].overflow = decorated.overflow
        paragraphs[index] = LaidParagraph(built: built, layout: TextLayout(built, width: width, metrics: Self.metrics), lineBreaks: lineBreaks)
        let heightDelta = paragraphs[index].layout.height - old.layout.height
        let lineDelta = lineBreaks.count - old.lineBreaks.count
        for later in (index + 1)..<max(index + 1, paragraphs.count) {
            starts[later] += delta
            tops[later] += heightDelta
            firstLineNumbers[later] += lineDelta
        }
        length += delta
        height += heightDelta
        return true
    }

    /// The text block `key` is in (itself, when it is one), or nil when it is in none (a block
    /// that holds blocks, a block decorator, the root).
    ///
    /// - Complexity: O(d) for its depth d.
    static func textBlock(holding key: NodeKey, in state: EditorState) -> NodeKey? {
        var current = key
        while current != .root, let node = state[current] {
            if node.role == .element(inline: false), state.firstTextBlock(in: current, crossingBoundaries: true) == current { return current }
            guard let parent = node.parent else { return nil }
            current = parent
        }
        return nil
    }

    /// The block intent the markup mapping gives `node` (a paragraph when it gives none).
    static func intent(of node: Node, mappings: MarkupMappings) -> BlockIntent {
        if case .block(let mapped)? = mappings.mapping(for: node.type)?.intent(of: node) { return mapped }
        return .paragraph
    }

    // MARK: Building

    /// The intent text of a whole layout, with what it remembers of it.
    struct Source {
        var text: IntentText
        /// Where the flat string's "\n" are inside each paragraph (its final one not included).
        var lineBreaks: [[Int]]
        /// Where each text block starts in the flat string, and its intent.
        var blocks: [NodeKey: (location: Int, intent: BlockIntent)]
    }

    /// The storage's text (with a final "\n") as intent text. A "\n" that does not start a block
    /// (a line break, a line of a code block) becomes U+2028, the layout's break inside a
    /// paragraph, which keeps every offset.
    ///
    /// - Complexity: O(n log n): each text block's start is found in the position index.
    static func intentText(editor: Editor, mappings: MarkupMappings) -> Source {
        let state = editor.state
        let storage = editor.storage
        var units = Array((storage?.string ?? FlatString.render(state)).utf16)
        // Where each text block starts in the flat string, and its block path.
        var identities = BlockIdentities<NodeKey>()
        // Each parent's children are numbered once (asking every child for its index would scan
        // its siblings each time: quadratic in a long document).
        var ordinals: [NodeKey: Int] = [:]
        var numbered: Set<NodeKey> = []
        func ordinal(_ key: NodeKey, parent: NodeKey?) -> Int {
            if let parent, numbered.insert(parent).inserted {
                for (index, child) in state.children(of: parent).enumerated() { ordinals[child.key] = index }
            }
            return ordinals[key] ?? 0
        }
        func identity(_ key: NodeKey, _ node: Node) -> BlockIdentity {
            identities.identity(of: key, intent: intent(of: node, mappings: mappings), ordinal: ordinal(key, parent: node.parent))
        }
        func path(of key: NodeKey) -> [BlockIdentity] {
            (state.ancestors(of: key).reversed() + [key]).compactMap { ancestor in
                guard ancestor != .root, let node = state[ancestor] else { return nil }
                return identity(ancestor, node)
            }
        }
        var starts: [Int: [BlockIdentity]] = [:]
        var blocks: [NodeKey: (location: Int, intent: BlockIntent)] = [:]
        for block in state.textBlocks() {
            guard let location = try? SelectionMapper.location(of: SelectionMapper.start(of: block, in: state), in: state, index: editor.reconciler.index)
            else { continue }
            let blockPath = path(of: block)
            if starts[location] == nil { starts[location] = blockPath }
            if let last = blockPath.last { blocks[block] = (location, last.intent) }
        }
        var paragraphs: [IntentParagraph] = []
        var lineBreaks: [[Int]] = []
        var paragraphBreaks: [Int] = []
        var paragraphStart = 0
        var currentPath: [BlockIdentity] = starts[0] ?? [BlockIdentities<NodeKey>.outsideEveryBlock]
        func endParagraph(at next: Int) {
            paragraphs.append(IntentParagraph(range: paragraphStart..<next, path: currentPath))
            lineBreaks.append(paragraphBreaks)
            paragraphBreaks = []
            paragraphStart = next
        }
        units.append(0x0A)
        for index in units.indices where units[index] == 0x0A {
            let next = index + 1
            if next < units.count, starts[next] == nil, let decorator = decoratorPath(at: next, editor: editor, path: path) {
                endParagraph(at: next)
                currentPath = decorator
            } else if next < units.count, let path = starts[next] {
                endParagraph(at: next)
                currentPath = path
            } else if next < units.count {
                units[index] = TextLayoutBreak.lineSeparator
                paragraphBreaks.append(index - paragraphStart)
            } else {
                endParagraph(at: next)
            }
        }
        for paragraph in paragraphs { drawTabs(in: &units, range: paragraph.range, path: paragraph.path) }
        var runs: [(length: Int, attributes: Attributes)] = []
        if let storage, storage.length > 0, let storageRuns = try? storage.runs(in: NSRange(location: 0, length: storage.length)) {
            runs = storageRuns.map { ($0.range.length, markupAttributes($0.attributes)) }
        }
        runs.append((units.count - runs.reduce(0) { $0 + $1.length }, .empty))
        let text = (try? AttributedText(String(decoding: units, as: UTF16.self), runs: runs)) ?? AttributedText(String(decoding: units, as: UTF16.self))
        return Source(text: IntentText(text: text, paragraphs: paragraphs), lineBreaks: lineBreaks, blocks: blocks)
    }

    /// A tab is a control character the layout gives no width, but a terminal would jump to its
    /// next tab stop: it is drawn as one cell, the column rule between a table row's cells (the
    /// flat string separates cells with tabs) and a space elsewhere.
    static func drawTabs(in units: inout [UInt16], range: Range<Int>, path: [BlockIdentity]) {
        let inTable = path.contains { if case .tableCell = $0.intent { true } else { false } }
        for index in range where units[index] == 0x09 { units[index] = inTable ? 0x2502 : 0x20 }
    }

    /// The path of a block-level decorator (a horizontal rule) that starts at `location`.
    private static func decoratorPath(at location: Int, editor: Editor, path: (NodeKey) -> [BlockIdentity]) -> [BlockIdentity]? {
        let state = editor.state
        guard let point = try? SelectionMapper.point(at: location, in: state, index: editor.reconciler.index), point.kind == .element else { return nil }
        let children = Array(state.children(of: point.key))
        guard point.offset < children.count, children[point.offset].role == .decorator(inline: false) else { return nil }
        return path(children[point.offset].key)
    }

    /// The theme's format attributes as the markup pipeline's inline intents; underline (which
    /// markup has no intent for) is kept under its theme key for drawing.
    static func markupAttributes(_ attributes: Attributes) -> Attributes {
        var result: [AttributeKey: AttributeValue] = [:]
        let pairs: [(AttributeKey, AttributeKey)] = [
            (Theme.Keys.bold, .bold), (Theme.Keys.italic, .italic), (Theme.Keys.strikethrough, .strikethrough),
            (Theme.Keys.code, .code), (Theme.Keys.underline, Theme.Keys.underline),
        ]
        for (theme, markup) in pairs where attributes[theme] == .bool(true) { result[markup] = .bool(true) }
        // An image's attachment record (its plugin's theme entry) is the pipeline's own.
        if let attachment = attributes[.attachment] { result[.attachment] = attachment }
        // The link plugin's theme puts the link's URL on its text, so the layout can hit-test
        // it; without that entry the node type still marks the text as a link.
        if case .string(let url)? = attributes[LinkTheme.Keys.link] {
            result[.link] = .string(url)
        } else if attributes[Theme.Keys.nodeType] == .string("link") {
            result[.link] = .string("")
        }
        return Attributes(result)
    }

    // MARK: Finding lines

    /// The paragraph holding `offset` (clamped to the text).
    ///
    /// - Complexity: O(log p).
    func paragraphIndex(containing offset: Int) -> Int {
        max(0, starts.partitioningIndex { $0 > min(max(0, offset), length) } - 1)
    }

    /// The paragraph whose first line is the last to start at or above `y` (the first one above
    /// every line).
    ///
    /// - Complexity: O(log p).
    func paragraphIndex(atY y: Double) -> Int {
        max(0, paragraphs.indices.partitioningIndex { tops[$0] + paragraphs[$0].layout.lines[0].y > y } - 1)
    }

    /// `rect` moved from paragraph `index`'s coordinates into the document's.
    private func placed(_ rect: LayoutRect, in index: Int) -> LayoutRect {
        LayoutRect(x: rect.x, y: rect.y + tops[index], width: rect.width, height: rect.height)
    }

    /// The UTF-16 offset of the caret nearest to `point`.
    ///
    /// - Complexity: O(log p + log n).
    func offset(at point: LayoutPoint) -> Int {
        let index = paragraphIndex(atY: point.y)
        return starts[index] + paragraphs[index].layout.offset(at: LayoutPoint(x: point.x, y: point.y - tops[index]))
    }

    /// The caret's visual line: its first offset and the offset before its line end (before the
    /// next line's start at a soft wrap).
    ///
    /// - Complexity: O(log p + log n).
    func lineBounds(at offset: Int) -> (start: Int, end: Int) {
        let index = paragraphIndex(containing: offset)
        let paragraph = paragraphs[index]
        let layout = paragraph.layout
        let position = layout.position(ofOffset: offset - starts[index])
        let lineIndex = layout.firstLine[position.layout] + position.line
        let line = layout.lines[lineIndex]
        var end = line.end
        let units = paragraph.built.units
        while end > line.start, end - 1 < units.count, [0x0A, TextLayoutBreak.lineSeparator].contains(units[end - 1]) { end -= 1 }
        let isWrapped = lineIndex + 1 < layout.lines.count && layout.lines[lineIndex + 1].start == line.end
        // At a soft wrap the line's end is the next line's start; stay before it.
        if isWrapped, end == line.end, end > line.start { end -= 1 }
        return (starts[index] + line.start, starts[index] + end)
    }

    /// The link under `point`: its URL, range in the flat string and frames.
    ///
    /// - Complexity: O(log p + log n + k), as `TextLayout.linkHit(at:)`.
    func linkHit(at point: LayoutPoint) -> LinkHit? {
        let index = paragraphIndex(atY: point.y)
        guard let hit = paragraphs[index].layout.linkHit(at: LayoutPoint(x: point.x, y: point.y - tops[index])) else { return nil }
        let start = starts[index]
        return LinkHit(url: hit.url, range: (hit.range.lowerBound + start)..<(hit.range.upperBound + start), frames: hit.frames.map { placed($0, in: index) })
    }

    /// The line and column (1-based) of `offset` in the flat string's lines and characters.
    ///
    /// - Complexity: O(log p + log b + k) for b line breaks in its paragraph and the k units
    ///   of its line before it.
    func lineAndColumn(at offset: Int) -> (line: Int, column: Int) {
        let index = paragraphIndex(containing: offset)
        let units = paragraphs[index].built.units
        let local = min(max(0, offset - starts[index]), units.count)
        let breaks = paragraphs[index].lineBreaks
        let before = breaks.partitioningIndex { $0 >= local }
        let lineStart = before > 0 ? breaks[before - 1] + 1 : 0
        return (firstLineNumbers[index] + before + 1, String(decoding: units[lineStart..<local], as: UTF16.self).count + 1)
    }

    // MARK: Drawing

    /// The layout's lines as one layout of the whole text would have them (offsets from the
    /// text's start, y from its top, paragraph indices of the document): for checking the
    /// paragraph-at-a-time layout against a whole one.
    ///
    /// - Complexity: O(n).
    var documentLines: [LayoutLine] {
        paragraphs.indices.flatMap { index in
            paragraphs[index].layout.lines.map { line in
                var moved = line
                let start = starts[index]
                moved.paragraph = index
                moved.start += start
                moved.end += start
                moved.y += tops[index]
                moved.runs = line.runs.map { run in
                    var shifted = run
                    shifted.range = (run.range.lowerBound + start)..<(run.range.upperBound + start)
                    shifted.clusterStarts = run.clusterStarts.map { $0 + start }
                    return shifted
                }
                return moved
            }
        }
    }

    /// The rows from `top` down, `count` of them: each line drawn by `draw` (given the paragraph,
    /// the line's index in it, and the paragraph's start), nil where no line is.
    ///
    /// - Complexity: O(log p + count) lines visited.
    func rows(from top: Int, count: Int, draw: (LaidParagraph, Int, Int) -> String) -> [String?] {
        var rows: [String?] = []
        var index = paragraphIndex(atY: Double(top))
        var line = index < paragraphs.count ? paragraphs[index].layout.position(at: LayoutPoint(x: 0, y: Double(top) - tops[index])).line : 0
        while rows.count < count {
            guard index < paragraphs.count else { rows.append(nil); continue }
            let lines = paragraphs[index].layout.lines
            guard line < lines.count else {
                index += 1
                line = 0
                continue
            }
            let y = Int(tops[index] + lines[line].y)
            if y < top + rows.count {
                line += 1
            } else if y == top + rows.count {
                rows.append(draw(paragraphs[index], line, starts[index]))
                line += 1
            } else {
                rows.append(nil)
            }
        }
        return rows
    }
}

/// The layout's break inside a paragraph.
enum TextLayoutBreak {
    /// U+2028, a hard break inside a paragraph.
    static let lineSeparator: UInt16 = 0x2028
}

extension DocumentLayout: TextGeometry {
    var contentHeight: Double { height }

    /// - Complexity: O(log p + log n).
    func caretRect(forOffset offset: Int) -> LayoutRect {
        let index = paragraphIndex(containing: offset)
        return placed(paragraphs[index].layout.caretRect(forOffset: min(max(0, offset), length) - starts[index]), in: index)
    }

    /// - Complexity: O(log p + log n + k) for the k lines returned.
    func lineRects(for range: Range<Int>) -> [LayoutRect] {
        var index = paragraphIndex(containing: range.lowerBound)
        var rects = paragraphs[index].layout.lineRects(for: (range.lowerBound - starts[index])..<(range.upperBound - starts[index]))
            .map { placed($0, in: index) }
        index += 1
        while index < paragraphs.count, starts[index] < range.upperBound {
            let end = range.upperBound - starts[index]
            rects += paragraphs[index].layout.lineRects(for: 0..<end).map { placed($0, in: index) }
            index += 1
        }
        return rects
    }

    /// - Complexity: O(log p + log n).
    func line(atY y: Double) -> (start: Int, rect: LayoutRect) {
        let index = paragraphIndex(atY: y)
        let line = paragraphs[index].layout.line(atY: y - tops[index])
        return (starts[index] + line.start, placed(line.rect, in: index))
    }
}
