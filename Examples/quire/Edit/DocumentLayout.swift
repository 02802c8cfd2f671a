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
    /// The child of the root its blocks are in (nil before every block), and its text blocks
    /// with their intents: what finds it again when a commit changed some of the root's children.
    var root: NodeKey?
    var blocks: [(key: NodeKey, intent: BlockIntent)]

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
        let length = (editor.storage?.length ?? FlatString.render(editor.state).utf16.count) + 1
        let source = Self.intentText(editor: editor, mappings: mappings, span: 0..<length, textBlocks: editor.state.textBlocks())
        self.width = Double(width)
        paragraphs = []
        starts = []
        tops = []
        firstLineNumbers = []
        self.length = 0
        height = 0
        blocks = [:]
        paragraphs = Self.lay(source, width: self.width, attachments: attachments, loaded: loaded,
                              reusing: previous?.width == self.width ? previous?.paragraphs[...] : nil)
        placeParagraphs()
    }

    /// `source` styled, built and laid out a paragraph at a time; a paragraph whose built text is
    /// the same as one of `previous` keeps that one's lines.
    ///
    /// - Complexity: O(k) for the source's k units, the paragraphs kept from `previous` excepted
    ///   from measuring.
    private static func lay(_ source: Source, width: Double, attachments: LiveAttachments, loaded: @escaping @Sendable () -> Void,
                            reusing previous: ArraySlice<LaidParagraph>?) -> [LaidParagraph] {
        attachments.request(in: source.text) { _, _ in loaded() }
        let styled = StyleEnvironment().apply(to: source.text, attachments: attachments.results)
        // The editor draws one row per line of the flat string: no block spacing.
        let built = builder.build(styled, proposal: width)
        var reusable: [BuiltText: TextLayout] = [:]
        for paragraph in previous ?? [] { reusable[reuseKey(paragraph.built)] = paragraph.layout }
        return built.paragraphs.indices.map { index in
            let own = built.paragraphText(index)
            let layout = reusable[reuseKey(own)] ?? TextLayout(own, width: width, metrics: metrics)
            return LaidParagraph(built: own, layout: layout, lineBreaks: source.lineBreaks[index], root: source.roots[index], blocks: source.blocks[index])
        }
    }

    static let metrics = TerminalMetrics()
    static let builder = RunBuilder(metrics: TerminalMetrics(), blockStyles: .compact)

    /// A paragraph's built text without its block path: the lines come from its units, runs and
    /// decoration alone, and the path's identities and ordinals number the blocks in document
    /// order, so a paragraph inserted above changes the path but not the lines.
    static func reuseKey(_ text: BuiltText) -> BuiltText {
        var key = text
        key.paragraphs[0].paragraph.path = []
        return key
    }

    /// The starts, tops and line numbers of the paragraphs from their lengths and heights, and
    /// where each text block is.
    ///
    /// - Complexity: O(p + b) for p paragraphs and b text blocks.
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
        blocks = [:]
        blocks.reserveCapacity(paragraphs.count)
        for (index, paragraph) in paragraphs.enumerated() {
            for block in paragraph.blocks { blocks[block.key] = BlockPlace(paragraph: index, intent: block.intent) }
        }
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
        guard newLength >= 1, start + newLength <= storage.length + 1 else { return false }
        guard var (units, runs) = Self.storedText(storage, span: start..<(start + newLength)) else { return false }
        // The paragraph ends where it did: at the "\n" before the next one's start.
        guard units.count == newLength, units.last == 0x0A else { return false }
        let path = old.built.paragraphs[0].paragraph.path
        let lineBreaks = units.indices.dropLast().filter { units[$0] == 0x0A }
        for offset in lineBreaks { units[offset] = TextLayout.lineSeparator }
        Self.drawTabs(in: &units, range: 0..<units.count, path: path)
        runs.append((units.count - runs.reduce(0) { $0 + $1.length }, .empty))
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
        paragraphs[index] = LaidParagraph(built: built, layout: TextLayout(built, width: width, metrics: Self.metrics), lineBreaks: lineBreaks,
                                          root: old.root, blocks: old.blocks)
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

    /// Brings this layout up to date with `updates` (the commits since it was made) by laying out
    /// again the children of the root they changed — a paragraph split by Enter, a list whose
    /// item was indented, a block whose kind changed, pasted blocks — and moving the paragraphs
    /// after them. The paragraphs around them must be the same children of the root before and
    /// after. False, and nothing changed, when they are not (the commits replaced the document or
    /// changed its first or last child's neighbourhood in a way this layout cannot place): the
    /// caller lays the document out whole.
    ///
    /// - Complexity: O(k + p + b + r + c · d): the changed children's k units, moving p
    ///   paragraphs and re-indexing their b text blocks, numbering the root's r children, and the
    ///   c changed nodes' walks to the root at depth d.
    mutating func updateChildren(after updates: [EditorUpdate], editor: Editor, mappings: MarkupMappings, attachments: LiveAttachments,
                                 loaded: @escaping @Sendable () -> Void) -> Bool {
        guard let storage = editor.storage, !updates.contains(where: \.replacedWholeState) else { return false }
        let state = editor.state
        // The root's children that the commits changed (the root's own write is only its child
        // links: the children it gained or lost are among the changed nodes).
        var changed: Set<NodeKey> = []
        for update in updates {
            let changes = update.changes
            for key in changes.removed {
                guard let child = Self.rootChild(of: key, in: update.previousState) else { return false }
                changed.insert(child)
            }
            for key in changes.created.union(changes.updated).union(changes.moved) where key != .root {
                guard let child = Self.rootChild(of: key, in: update.state) else { return false }
                changed.insert(child)
            }
        }
        guard !changed.isEmpty else { return storage.length + 1 == length }
        // The old paragraphs of those children: a contiguous run, between paragraphs of children
        // that did not change.
        guard let first = paragraphs.firstIndex(where: { $0.root.map(changed.contains) ?? false }),
              let last = paragraphs.lastIndex(where: { $0.root.map(changed.contains) ?? false }) else { return false }
        let before = first > 0 ? paragraphs[first - 1].root : nil
        let after = last + 1 < paragraphs.count ? paragraphs[last + 1].root : nil
        if first > 0 { guard let before, state[before]?.parent == .root else { return false } }
        if last + 1 < paragraphs.count { guard let after, state[after]?.parent == .root else { return false } }
        // The children between them now.
        var children: [NodeKey] = []
        var child = before.map { state[$0]?.nextSibling } ?? state[.root]?.firstChild
        while let key = child, key != after {
            children.append(key)
            child = state[key]?.nextSibling
        }
        guard child == after else { return false }
        let delta = storage.length + 1 - length
        let spanStart = starts[first]
        let spanEnd = (last + 1 < paragraphs.count ? starts[last + 1] : length) + delta
        guard spanEnd >= spanStart else { return false }
        let source = Self.intentText(editor: editor, mappings: mappings, span: spanStart..<spanEnd,
                                     textBlocks: children.flatMap { state.textBlocks(in: $0) })
        // Each new paragraph belongs to one of the children laid out again.
        guard source.roots.allSatisfy({ $0.map { children.contains($0) } ?? false }) || spanStart == spanEnd else { return false }
        let laid = spanStart == spanEnd ? [] : Self.lay(source, width: width, attachments: attachments, loaded: loaded, reusing: paragraphs[first...last])
        guard laid.reduce(0, { $0 + $1.length }) == spanEnd - spanStart else { return false }
        paragraphs.replaceSubrange(first...last, with: laid)
        placeParagraphs()
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

    /// The child of the root that holds `key` (itself, when it is one); nil for the root and for
    /// a key not in `state`.
    ///
    /// - Complexity: O(d) for its depth d.
    static func rootChild(of key: NodeKey, in state: EditorState) -> NodeKey? {
        guard key != .root, state[key] != nil else { return nil }
        return state.ancestors(of: key).reversed().first { $0 != .root } ?? key
    }

    /// The block intent the markup mapping gives `node` (a paragraph when it gives none).
    static func intent(of node: Node, mappings: MarkupMappings) -> BlockIntent {
        if case .block(let mapped)? = mappings.mapping(for: node.type)?.intent(of: node) { return mapped }
        return .paragraph
    }

    // MARK: Building

    /// The intent text of a stretch of the document, with what the layout remembers of it.
    struct Source {
        var text: IntentText
        /// Where the flat string's "\n" are inside each paragraph (its final one not included).
        var lineBreaks: [[Int]]
        /// The child of the root each paragraph is in.
        var roots: [NodeKey?]
        /// The text blocks starting in each paragraph, with their intents.
        var blocks: [[(key: NodeKey, intent: BlockIntent)]]
    }

    /// The storage's text in `span` of the flat string (the whole text ends in a "\n" the
    /// storage does not have) as intent text, offsets from the span's start; `textBlocks` are
    /// the text blocks that start in it, in order. A "\n" that does not start a block (a line
    /// break, a line of a code block) becomes U+2028, the layout's break inside a paragraph,
    /// which keeps every offset. The span holds whole children of the root: block identities are
    /// numbered within it, and a block's paragraphs and a table's rows are all in it.
    ///
    /// - Complexity: O(k + b log n + r) for the span's k units, its b text blocks found in the
    ///   position index, and the root's r children (numbered once).
    static func intentText(editor: Editor, mappings: MarkupMappings, span: Range<Int>, textBlocks: [NodeKey]) -> Source {
        let state = editor.state
        var units: [UInt16]
        var runs: [(length: Int, attributes: Attributes)] = []
        if let storage = editor.storage {
            (units, runs) = storedText(storage, span: span) ?? ([], [])
        } else {
            units = Array(FlatString.render(state).utf16) + [0x0A]
        }
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
        // The paths of the blocks starting at each offset (from the span's start).
        var starts: [Int: (path: [BlockIdentity], root: NodeKey?)] = [:]
        var startingBlocks: [Int: [(key: NodeKey, intent: BlockIntent)]] = [:]
        for block in textBlocks {
            guard let location = try? SelectionMapper.location(of: SelectionMapper.start(of: block, in: state), in: state, index: editor.reconciler.index),
                  span.contains(location)
            else { continue }
            let blockPath = path(of: block)
            if starts[location - span.lowerBound] == nil { starts[location - span.lowerBound] = (blockPath, rootChild(of: block, in: state)) }
            if let last = blockPath.last { startingBlocks[location - span.lowerBound, default: []].append((block, last.intent)) }
        }
        func decorator(at offset: Int) -> (path: [BlockIdentity], root: NodeKey?)? {
            decoratorKey(at: span.lowerBound + offset, editor: editor).map { (path(of: $0), rootChild(of: $0, in: state)) }
        }
        var paragraphs: [IntentParagraph] = []
        var source = Source(text: IntentText(text: AttributedText(""), paragraphs: []), lineBreaks: [], roots: [], blocks: [])
        var paragraphBreaks: [Int] = []
        var paragraphStart = 0
        // A span after the document's start may begin with a block decorator (a rule), which the
        // whole text finds after the "\n" before it.
        var current = starts[0] ?? (span.lowerBound > 0 ? decorator(at: 0) : nil) ?? ([BlockIdentities<NodeKey>.outsideEveryBlock], nil)
        func endParagraph(at next: Int) {
            paragraphs.append(IntentParagraph(range: paragraphStart..<next, path: current.path))
            source.lineBreaks.append(paragraphBreaks)
            source.roots.append(current.root)
            source.blocks.append((paragraphStart..<next).flatMap { startingBlocks[$0] ?? [] })
            paragraphBreaks = []
            paragraphStart = next
        }
        for index in units.indices where units[index] == 0x0A {
            let next = index + 1
            if next < units.count, starts[next] == nil, let found = decorator(at: next) {
                endParagraph(at: next)
                current = found
            } else if next < units.count, let found = starts[next] {
                endParagraph(at: next)
                current = found
            } else if next < units.count {
                units[index] = TextLayout.lineSeparator
                paragraphBreaks.append(index - paragraphStart)
            } else {
                endParagraph(at: next)
            }
        }
        for paragraph in paragraphs { drawTabs(in: &units, range: paragraph.range, path: paragraph.path) }
        runs.append((units.count - runs.reduce(0) { $0 + $1.length }, .empty))
        let text = (try? AttributedText(String(decoding: units, as: UTF16.self), runs: runs)) ?? AttributedText(String(decoding: units, as: UTF16.self))
        source.text = IntentText(text: text, paragraphs: paragraphs)
        return source
    }

    /// The storage's units and attribute runs (as markup intents) in `span` of the flat string;
    /// the final "\n" the storage does not have is added when the span reaches it. nil when the
    /// span is not inside the storage's text.
    ///
    /// - Complexity: O(log n + k + r) for the span's k units and r runs.
    static func storedText(_ storage: TextStorage, span: Range<Int>) -> (units: [UInt16], runs: [(length: Int, attributes: Attributes)])? {
        guard span.lowerBound >= 0, span.upperBound <= storage.length + 1 else { return nil }
        let stored = NSRange(location: span.lowerBound, length: max(0, min(span.upperBound, storage.length) - span.lowerBound))
        var units: [UInt16] = []
        var runs: [(length: Int, attributes: Attributes)] = []
        if stored.length > 0 {
            guard let text = try? storage.substring(in: stored), let storageRuns = try? storage.runs(in: stored) else { return nil }
            units = Array(text.utf16)
            runs = storageRuns.map { ($0.range.length, markupAttributes($0.attributes)) }
        }
        if span.upperBound > storage.length { units.append(0x0A) }
        return (units, runs)
    }

    /// A tab is a control character the layout gives no width, but a terminal would jump to its
    /// next tab stop: it is drawn as one cell, the column rule between a table row's cells (the
    /// flat string separates cells with tabs) and a space elsewhere.
    static func drawTabs(in units: inout [UInt16], range: Range<Int>, path: [BlockIdentity]) {
        let inTable = path.contains { if case .tableCell = $0.intent { true } else { false } }
        for index in range where units[index] == 0x09 { units[index] = inTable ? 0x2502 : 0x20 }
    }

    /// The block-level decorator (a horizontal rule) that starts at `location`.
    private static func decoratorKey(at location: Int, editor: Editor) -> NodeKey? {
        let state = editor.state
        guard let point = try? SelectionMapper.point(at: location, in: state, index: editor.reconciler.index), point.kind == .element else { return nil }
        let children = Array(state.children(of: point.key))
        guard point.offset < children.count, children[point.offset].role == .decorator(inline: false) else { return nil }
        return children[point.offset].key
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
        while end > line.start, end - 1 < units.count, [0x0A, TextLayout.lineSeparator].contains(units[end - 1]) { end -= 1 }
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
