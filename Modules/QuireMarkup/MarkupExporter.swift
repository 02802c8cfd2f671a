import QuireAlgorithms
import QuireModel

/// Turns an `EditorState` into a `MarkupDocument` through the node plugins' mappings: the inverse
/// of `MarkupImporter`, so that a serializer writes markup that imports back into the same
/// document.
///
/// - quotes of inline content become block quotes of paragraphs, joined and nested as their
///   ``MarkupDetails/quotes`` say (by default consecutive non-empty quotes are one block quote),
///   and so do the other blocks that carry quotes;
/// - a list item whose only child is a list nests that list in the item before it, unless it is
///   an item of its own (``MarkupDetails/ownItem``); an item holding blocks gives them;
/// - text formats become nested emphasis, strong and strikethrough, opened longest-first so that
///   spans nest, with whitespace at a span's edge moved outside it (markup cannot express it),
///   unless the block's text keeps its spans (``MarkupDetails/spans``);
/// - a `linebreak` with `"hard": true` is a hard break, any other a soft break;
/// - every node's ``MarkupDetails/field`` goes back into its block's or inline's details.
///
/// Formats markup has no syntax for (underline, highlight, sub- and superscript, case) are not
/// written; `droppedFormats` reports whether any were present.
public struct MarkupExporter: Sendable {
    /// The mappings used.
    public let mappings: MarkupMappings

    /// An exporter with `mappings`.
    public init(mappings: MarkupMappings) { self.mappings = mappings }

    /// The formats a markup document expresses.
    public static let expressibleFormats: TextFormat = [.bold, .italic, .strikethrough, .code]

    /// The document of `state`.
    ///
    /// - Throws: `MarkupError.unmappedNode` for an attached node no mapping (or core rule) covers,
    ///   with its JSON path.
    /// - Complexity: O(n) in the number of nodes plus the text length.
    public func makeDocument(_ state: EditorState) throws(MarkupError) -> MarkupDocument {
        try makeDocumentReportingLosses(state).document
    }

    /// The document of `state`, and what of it markup cannot represent (``MarkupLoss``), which a
    /// markup writer drops or approximates: a line break ending a block (dropped), a list start
    /// outside `listStartRange` (clamped), block content or a span in a table cell (written as
    /// one line, one cell). The document itself keeps them, for renderers that can show them.
    ///
    /// A state of over ``parallelNodeCount`` nodes is read in two parts at once: the later half
    /// of the top-level nodes on another thread, from one that starts no block quote and is
    /// quoted by none (the quotes around a block depend on the blocks before it). The document
    /// is the same either way.
    ///
    /// - Throws: as `makeDocument(_:)`.
    /// - Complexity: O(n) in the number of nodes plus the text length.
    public func makeDocumentReportingLosses(_ state: EditorState) throws(MarkupError) -> (document: MarkupDocument, losses: [MarkupLoss]) {
        let reader = Reader(state: state, mappings: mappings)
        guard state.nodeCount > Self.parallelNodeCount, let split = reader.independentBlock(nearMiddleOf: state.root) else {
            let document = MarkupDocument(blocks: try reader.blocks(of: state.root))
            return (document, reader.log.losses)
        }
        let later = ForkedWork { [mappings] () -> Result<(blocks: [MarkupBlock], losses: [MarkupLoss]), MarkupError> in
            let reader = Reader(state: state, mappings: mappings)
            do throws(MarkupError) {
                return .success((try reader.blocks(of: state.root, from: split), reader.log.losses))
            } catch {
                return .failure(error)
            }
        }
        // An error in the earlier part is the first in the document.
        var blocks = try reader.blocks(of: state.root, until: split)
        let (laterBlocks, laterLosses) = try later.result().get()
        blocks += laterBlocks
        return (MarkupDocument(blocks: blocks), reader.log.losses + laterLosses)
    }

    /// The number of nodes above which a state is read in two parts at once.
    public static let parallelNodeCount = 50_000

    /// The list numbers markup can write: CommonMark reads at most nine digits and no sign.
    public static let listStartRange = 0...999_999_999

    /// Whether `state` has text formats markup cannot express.
    ///
    /// - Complexity: O(n) in the number of nodes.
    public static func droppedFormats(in state: EditorState) -> TextFormat {
        var dropped: TextFormat = []
        // Walked along the nodes' links, each read once by its key: a sequence of children per
        // node copied the state (every storage it holds retained and released) and every child
        // into a stack, a tenth of a large document's `quire convert` to markdown.
        var next = state.root.firstChild
        while let key = next, var node = state[key] {
            if node.role == .text { dropped.formUnion(node.textFormat.subtracting(expressibleFormats)) }
            if let child = node.firstChild {
                next = child
                continue
            }
            // The next sibling of the node, or of its nearest ancestor that has one.
            while node.nextSibling == nil, let parent = node.parent, parent != .root, let parentNode = state[parent] { node = parentNode }
            next = node.nextSibling
        }
        return dropped
    }
}

/// Something of a document that a markup export cannot represent, and the JSON path of the node
/// it concerns: it is written approximately (or not at all), and a caller says so.
public struct MarkupLoss: Hashable, Sendable, CustomStringConvertible {
    /// What is lost and how it is written instead.
    public var what: String
    /// Where: the JSON path of the node, or for a loss a serializer reports, the words the block
    /// starts with (a written document has no node paths).
    public var path: String

    public init(_ what: String, at path: String) {
        self.what = what
        self.path = path
    }

    public var description: String { "\(what) (\(path))" }
}

/// The losses one export collects (the reader's functions do not mutate it otherwise).
final class LossLog {
    var losses: [MarkupLoss] = []
}

/// A node's ``MarkupDetails/field`` as details, without the keys the importer itself reads.
func details(of node: Node) -> JSONObject {
    guard case .object(let object)? = node.fields[MarkupDetails.field] else { return JSONObject() }
    var details = JSONObject()
    for (key, value) in object where !Reader.structuralKeys.contains(key) { details[key] = value }
    return details
}

struct Reader {
    let state: EditorState
    let mappings: MarkupMappings
    let log = LossLog()

    /// Keys of the markup field that say where a node goes rather than how it is written.
    static let structuralKeys: Set<String> = [MarkupDetails.quotes, MarkupDetails.ownItem, MarkupDetails.loose, MarkupDetails.spans]

    /// The JSON path of `node`, for an error or a loss: built only then, from the node's place,
    /// since a path string per node would cost more than reading the node.
    func path(_ node: Node) -> String { state.jsonPath(of: node.key) }

    func unmapped(_ node: Node) -> MarkupError { .unmappedNode(type: node.type.rawValue, path: path(node)) }

    func intent(of node: Node) throws(MarkupError) -> MarkupIntent {
        if node.type == .paragraph && !node.isUnknown { return .block(.paragraph) }
        guard !node.isUnknown, let mapping = mappings.mapping(for: node.type) else { throw unmapped(node) }
        return mapping.intent(of: node)
    }

    /// The children of `node`, read as they are walked (most walks need no array of them).
    func children(_ node: Node) -> EditorState.Children { state.children(of: node.key) }

    func hasBlockChildren(_ node: Node) -> Bool {
        state.children(of: node.key).contains { !$0.role.isInline }
    }

    func markup(_ node: Node) -> JSONObject {
        node.fields[MarkupDetails.field]?.objectValue ?? JSONObject()
    }

    func isQuote(_ node: Node) -> Bool {
        !node.isUnknown && node.role == .element(inline: false) && node.type != .paragraph
            && mappings.mapping(for: node.type).map { $0.intent(of: node) == .block(.blockQuote) } == true
            && !hasBlockChildren(node)
    }

    // MARK: Blocks

    /// The blocks under `parent`, with the block quotes their ``MarkupDetails/quotes`` (or the
    /// default) put around them.
    ///
    /// `first` and `stop` limit the children read to those from `first` (a child of `parent`)
    /// up to `stop`: the parts of a state read apart (``independentBlock(nearMiddleOf:)``).
    func blocks(of parent: Node, from first: NodeKey? = nil, until stop: NodeKey? = nil) throws(MarkupError) -> [MarkupBlock] {
        var result: [MarkupBlock] = []
        // The open quotes, outermost first.
        var open: [MarkupBlock] = []
        func close(to depth: Int) {
            while open.count > depth {
                let quote = open.removeLast()
                if open.isEmpty { result.append(quote) } else { open[open.count - 1].children.append(quote) }
            }
        }
        func add(_ block: MarkupBlock) {
            if open.isEmpty { result.append(block) } else { open[open.count - 1].children.append(block) }
        }
        var previous: QuoteDefaults.Sibling?
        var run: [Node] = []
        func flushRun() throws(MarkupError) {
            if !run.isEmpty { add(MarkupBlock(.paragraph, inlines: try inlines(run))) }
            run = []
        }
        var next = first ?? parent.firstChild
        while let key = next, key != stop, let child = state[key] {
            next = child.nextSibling
            if child.role.isInline {
                // Inline nodes among blocks (an item of blocks after an edit): a paragraph.
                run.append(child)
                continue
            }
            try flushRun()
            let quoteNode = isQuote(child)
            let sibling = QuoteDefaults.Sibling(isQuote: quoteNode, isEmpty: child.childCount == 0)
            var quotes = markup(child)[MarkupDetails.quotes]?.stringValue.map(Array.init)
                ?? Array(QuoteDefaults.quotes(of: sibling, after: previous))
            if quoteNode && quotes.isEmpty { quotes = [">"] }
            previous = sibling
            // Keep the quotes that continue; close the rest; open the new ones.
            var keep = 0
            while keep < open.count, keep < quotes.count, quotes[keep] == "|" { keep += 1 }
            close(to: keep)
            while open.count < quotes.count { open.append(MarkupBlock(.blockQuote)) }
            if quoteNode {
                let content = try inlines(of: child)
                if !content.isEmpty || child.childCount > 0 { add(MarkupBlock(.paragraph, inlines: content)) }
            } else {
                add(try block(child))
            }
        }
        try flushRun()
        close(to: 0)
        return result
    }

    /// A child of `parent` near the middle of its children from which the rest can be read
    /// apart (``blocks(of:from:until:)``), or nil: a block (not inline) that is no quote node
    /// and whose quotes are none, so that it closes every quote open before it and its own
    /// default is the same whatever came before.
    ///
    /// - Complexity: O(c) for the c children.
    func independentBlock(nearMiddleOf parent: Node) -> NodeKey? {
        var index = 0
        var next = parent.firstChild
        while let key = next, let child = state[key] {
            next = child.nextSibling
            index += 1
            if index > parent.childCount / 2, isIndependent(child) { return key }
        }
        return nil
    }

    /// Whether the blocks from `child` on read the same apart from those before it.
    func isIndependent(_ child: Node) -> Bool {
        !child.role.isInline && !isQuote(child) && (markup(child)[MarkupDetails.quotes]?.stringValue ?? "").isEmpty
    }

    func block(_ node: Node) throws(MarkupError) -> MarkupBlock {
        guard case .block(let intent) = try self.intent(of: node) else { throw unmapped(node) }
        let details = QuireMarkup.details(of: node)
        switch intent {
        case .paragraph, .heading:
            let content = try inlines(of: node)
            // A break ending a block is no break in markup (`\` would be text, spaces nothing):
            // a writer leaves it out.
            if let last = content.last, last.intent == .softBreak || last.intent == .lineBreak {
                log.losses.append(MarkupLoss("a line break ending a \(intent.name) cannot be written in markup; dropped", at: path(node)))
            }
            return MarkupBlock(intent, inlines: content, details: details)
        case .blockQuote:
            // A quote node holding blocks (a quote plugin other than Lexical's).
            if hasBlockChildren(node) { return MarkupBlock(.blockQuote, children: try blocks(of: node)) }
            let content = try inlines(of: node)
            return MarkupBlock(.blockQuote, children: content.isEmpty && node.childCount == 0 ? [] : [MarkupBlock(.paragraph, inlines: content)])
        case .list(let style, _):
            let tight = markup(node)[MarkupDetails.loose] != .bool(true)
            if case .ordered(let start) = style, !MarkupExporter.listStartRange.contains(start) {
                let written = min(max(start, MarkupExporter.listStartRange.lowerBound), MarkupExporter.listStartRange.upperBound)
                log.losses.append(MarkupLoss("a list starting at \(start) cannot be written in markup; it starts at \(written)", at: path(node)))
            }
            return try list(node, intent: .list(style, tight: tight), details: details)
        case .listItem:
            return MarkupBlock(intent, children: try itemBlocks(node), details: details)
        case .codeBlock, .htmlBlock:
            return MarkupBlock(intent, literal: literal(of: node), details: details)
        case .thematicBreak:
            return MarkupBlock(intent, details: details)
        case .table:
            return try table(node)
        case .footnoteDefinition:
            return MarkupBlock(intent, children: try blocks(of: node), details: details)
        case .tableRow, .tableCell:
            throw unmapped(node)
        }
    }

    /// A code or HTML block's text: its lines with a final line ending (none when it has no
    /// children at all).
    func literal(of node: Node) -> String {
        guard node.childCount > 0 else { return "" }
        var literal = ""
        for child in children(node) {
            switch child.role {
            case .lineBreak: literal += "\n"
            case .text: literal += child.text
            case .decorator: literal += FlatString.objectReplacement
            default: literal += FlatString.render(child.key, in: state)
            }
        }
        literal += "\n"
        return literal
    }

    func list(_ node: Node, intent: BlockIntent, details: JSONObject) throws(MarkupError) -> MarkupBlock {
        var items: [MarkupBlock] = []
        let isTask = if case .list(.task, _) = intent { true } else { false }
        for child in children(node) {
            guard case .block(let itemIntent) = try self.intent(of: child) else { throw unmapped(child) }
            var checked: Bool? = nil
            if case .listItem(let value) = itemIntent { checked = isTask ? value : nil }
            let content = try itemBlocks(child)
            // Lexical nests a list in an item of its own; markup nests it in the item before.
            if content.count == 1, case .list = content[0].intent, child.childCount == 1, !items.isEmpty,
               markup(child)[MarkupDetails.ownItem] != .bool(true) {
                items[items.count - 1].children.append(content[0])
            } else {
                items.append(MarkupBlock(.listItem(checked: checked), children: content, details: QuireMarkup.details(of: child)))
            }
        }
        return MarkupBlock(intent, children: items, details: details)
    }

    func itemBlocks(_ item: Node) throws(MarkupError) -> [MarkupBlock] {
        if hasBlockChildren(item) { return try blocks(of: item) }
        let content = try inlines(of: item)
        return content.isEmpty ? [] : [MarkupBlock(.paragraph, inlines: content)]
    }

    func table(_ node: Node) throws(MarkupError) -> MarkupBlock {
        var rows: [MarkupBlock] = []
        var alignments: [TableAlignment] = []
        for (rowIndex, row) in children(node).enumerated() {
            _ = try intent(of: row)
            var cells: [MarkupBlock] = []
            for (column, cell) in children(row).enumerated() {
                _ = try intent(of: cell)
                var content: [MarkupInline] = []
                var alignment = TableAlignment.none
                let blocks = Array(children(cell))
                for (index, block) in blocks.enumerated() {
                    if index == 0, let value = TableAlignment(rawValue: block.alignment.rawValue) { alignment = value }
                    if index > 0 { content.append(MarkupInline(.text(" "))) }
                    if block.role.isInline {
                        content += try inlines([block])
                    } else if hasBlockChildren(block) {
                        // A list or quote of blocks in a cell: its text, one line.
                        content.append(MarkupInline(.text(plainText(of: block))))
                    } else {
                        content += try inlines(of: block)
                    }
                }
                let blockCount = blocks.filter { !$0.role.isInline }.count
                if blockCount > 1 || blocks.contains(where: { !$0.role.isInline && $0.type != .paragraph }) {
                    log.losses.append(MarkupLoss("a table cell's blocks cannot be written in markup; they are one line of text", at: path(cell)))
                }
                let spans = ["colSpan", "rowSpan"].compactMap { name in cell.fields[name]?.intValue.flatMap { $0 > 1 ? "\(name) \($0)" : nil } }
                if !spans.isEmpty {
                    log.losses.append(MarkupLoss("a cell's \(spans.joined(separator: " and ")) cannot be written in markup; it is one cell", at: path(cell)))
                }
                if rowIndex == 0 { alignments.append(alignment) }
                cells.append(MarkupBlock(.tableCell(column: column, alignment: column < alignments.count ? alignments[column] : .none), inlines: content))
            }
            rows.append(MarkupBlock(.tableRow(isHeader: rowIndex == 0), children: cells))
        }
        return MarkupBlock(.table(alignments: alignments), children: rows)
    }

    /// The text under `node`, its blocks and breaks as spaces.
    /// - Complexity: O(size of the subtree), without recursion.
    func plainText(of node: Node) -> String {
        var parts: [String] = []
        var pending = Array(children(node).reversed())
        while let next = pending.popLast() {
            switch next.role {
            case .text: parts.append(next.text)
            case .lineBreak: parts.append(" ")
            default:
                if !next.role.isInline && !parts.isEmpty { parts.append(" ") }
                pending.append(contentsOf: children(next).reversed())
            }
        }
        return parts.joined()
    }

    // MARK: Inlines

    func inlines(of node: Node) throws(MarkupError) -> [MarkupInline] {
        try inlines(children(node))
    }

    /// A leaf node as its inline, and the spans it keeps (nil when it keeps none).
    struct NodeLeaf {
        var inline: MarkupInline
        var format: TextFormat
        var spans: [String]?
        /// The link node it is in, and that link as an inline.
        var link: (key: NodeKey, inline: MarkupInline)?
    }

    func leaves(_ nodes: some Sequence<Node>, link: (key: NodeKey, inline: MarkupInline)?, into result: inout [NodeLeaf]) throws(MarkupError) {
        for node in nodes {
            let spans = markup(node)[MarkupDetails.spans]?.arrayValue?.compactMap(\.stringValue)
            let details = QuireMarkup.details(of: node)
            switch node.role {
            case .text where node.type == .text || node.isUnknown || !(mappings.mapping(for: node.type) != nil):
                let format = node.textFormat
                let inline = MarkupInline(format.contains(.code) ? .code(node.text) : .text(node.text))
                result.append(NodeLeaf(inline: inline, format: format, spans: spans, link: link))
            case .lineBreak:
                let hard = node.fields[MarkupImporter.hardBreakField] == .bool(true)
                result.append(NodeLeaf(inline: MarkupInline(hard ? .lineBreak : .softBreak, details: details), format: [], spans: spans, link: link))
            case .text, .decorator:
                guard case .inline(let intent) = try self.intent(of: node) else { throw unmapped(node) }
                var inline = MarkupInline(intent, details: details)
                if case .image = intent {
                    let alt = node.fields["altText"]?.stringValue ?? ""
                    inline.children = alt.isEmpty ? [] : [MarkupInline(.text(alt))]
                }
                result.append(NodeLeaf(inline: inline, format: [], spans: spans, link: link))
            case .element(inline: true):
                guard case .inline(let intent) = try self.intent(of: node), case .link = intent else { throw unmapped(node) }
                let link = (key: node.key, inline: MarkupInline(intent, details: details))
                if node.childCount == 0 {
                    // An empty link still has a place: one empty text.
                    result.append(NodeLeaf(inline: MarkupInline(.text("")), format: [], spans: nil, link: link))
                }
                try leaves(children(node), link: link, into: &result)
            default:
                throw unmapped(node)
            }
        }
    }

    func inlines(_ nodes: some Sequence<Node>) throws(MarkupError) -> [MarkupInline] {
        var collected: [NodeLeaf] = []
        try leaves(nodes, link: nil, into: &collected)
        if let explicit = explicitSpans(collected) { return explicit }
        return Self.nested(collected)
    }

    /// The leaves nested into spans by their formats and links. Leaves with no format a span
    /// writes are their inlines as they are, each run in one link node gathered into that link:
    /// what the segments would give back, without building them.
    ///
    /// - Complexity: O(n) in the number of leaves.
    static func nested(_ leaves: [NodeLeaf]) -> [MarkupInline] {
        guard leaves.allSatisfy({ $0.format.isDisjoint(with: InlineSegment.marks) }) else { return nestedBySegments(leaves) }
        var result: [MarkupInline] = []
        result.reserveCapacity(leaves.count)
        var openLink: NodeKey?
        for leaf in leaves {
            guard let link = leaf.link else {
                result.append(leaf.inline)
                openLink = nil
                continue
            }
            if openLink == link.key {
                result[result.count - 1].children.append(leaf.inline)
            } else {
                var inline = link.inline
                inline.children = [leaf.inline]
                result.append(inline)
                openLink = link.key
            }
        }
        return result
    }

    /// The leaves grouped into segments by link, their marks nested into spans.
    static func nestedBySegments(_ leaves: [NodeLeaf]) -> [MarkupInline] {
        let segments = InlineSegment.grouping(leaves) { leaf in
            (leaf.inline, leaf.format, leaf.link.map { (id: $0.key, inline: $0.inline) })
        }
        return InlineSegment.build(InlineSegment.normalize(segments))
    }

    /// The inlines rebuilt from the spans every leaf keeps, or nil when a leaf keeps none or its
    /// spans no longer match its formats (the text was edited since it was imported).
    func explicitSpans(_ leaves: [NodeLeaf]) -> [MarkupInline]? {
        guard let first = leaves.first, first.spans != nil else { return nil }
        var chains: [[SpanToken]] = []
        chains.reserveCapacity(leaves.count)
        for leaf in leaves {
            guard let spans = leaf.spans else { return nil }
            var chain: [SpanToken] = []
            var sawLink = false
            for text in spans {
                guard let token = SpanToken(text, linkID: leaf.link?.key.rawValue) else { return nil }
                if token.kind == .link { sawLink = true }
                chain.append(token)
            }
            guard sawLink == (leaf.link != nil) else { return nil }
            if case .text = leaf.inline.intent, chain.reduce(TextFormat(), { $0.union($1.format) }) != leaf.format.intersection(InlineSegment.marks) {
                return nil
            }
            if case .code = leaf.inline.intent, chain.reduce(TextFormat(), { $0.union($1.format) }) != leaf.format.intersection(InlineSegment.marks) {
                return nil
            }
            chains.append(chain)
        }
        // Open and close spans as the chains change, outermost first.
        var stack: [(token: SpanToken, inline: MarkupInline)] = []
        var result: [MarkupInline] = []
        func append(_ inline: MarkupInline) {
            if stack.isEmpty { result.append(inline) } else { stack[stack.count - 1].inline.children.append(inline) }
        }
        func close(to depth: Int) {
            while stack.count > depth {
                let top = stack.removeLast()
                append(top.inline)
            }
        }
        for (leaf, chain) in zip(leaves, chains) {
            var common = 0
            while common < stack.count, common < chain.count, stack[common].token == chain[common] { common += 1 }
            close(to: common)
            for token in chain[common...] { stack.append((token, token.inline(link: leaf.link?.inline))) }
            append(leaf.inline)
        }
        close(to: 0)
        return result
    }
}
