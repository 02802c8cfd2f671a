import CCmarkGFM
import QuireMarkup
import QuireModel

/// A node of cmark's tree.
typealias CmarkNode = UnsafeMutablePointer<cmark_node>

/// Converts cmark's tree into a `MarkupDocument`, mapping its (line, byte column) positions to
/// byte offsets and reading from the source what cmark's tree does not say (a list's bullet, a
/// setext heading, a rule's characters, emphasis written with `_`) into the blocks' and inlines'
/// `details`.
///
/// Nesting is bounded: containers deeper than `maxDepth` (block quotes, lists, items, footnotes)
/// and inline spans deeper than `maxDepth` give their content to the level above, so hostile input
/// (100,000 nested quotes) converts in linear time with every character kept, and everything
/// after conversion recurses at most `maxDepth` levels.
struct CmarkConverter {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The byte offset where each line starts; line 1 starts at 0.
    let lineStarts: [Int]
    let maxDepth: Int
    /// For the block whose inlines are being converted: whether each of its line endings, in
    /// order, is a hard break written with trailing spaces (rather than a backslash).
    private var lineEndings: [Bool] = []
    private var lineEndingIndex = 0
    /// How many more source bytes ``autolinkKind(range:url:children:)`` may probe: eight per byte
    /// of the source, so that looking for links' texts stays linear in the document's size
    /// whatever the links (once it runs out, a link not where its position says is `[text](url)`).
    private var autolinkSearchBudget: Int
    /// While the first paragraph of a task item or a footnote definition is converted: its first
    /// line and column. cmark-gfm places an inline of a later line as if that line's text began
    /// at this column (the tasklist extension moves the paragraph's start past the box, a
    /// definition's starts after its label), so its true column is the reported one minus this
    /// one plus the column where the line's text begins.
    private var laterLinesBase: (line: Int32, column: Int32)?
    /// While ``convertBlocks(_:eachBlock:)`` streams a document that ends with footnote
    /// definitions: the footnote references converted so far, in document order.
    private var footnoteReferences: [MarkupInline]?

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        autolinkSearchBudget = 8 * bytes.count + 2 * Self.autolinkSearchWindow
        var starts = [0]
        for index in bytes.indices where bytes[index] == 0x0A { starts.append(index + 1) }
        lineStarts = starts
    }

    // MARK: Reading cmark

    func position(line: Int32, column: Int32) -> SourcePosition {
        let line = max(1, Int(line))
        let column = max(1, Int(column))
        let start = line - 1 < lineStarts.count ? lineStarts[line - 1] : (lineStarts.last ?? 0)
        return SourcePosition(line: line, column: column, byteOffset: start + column - 1)
    }

    func range(_ node: CmarkNode) -> SourceRange? {
        let startLine = cmark_node_get_start_line(node)
        guard startLine > 0 else { return nil }
        let endLine = cmark_node_get_end_line(node)
        func column(_ reported: Int32, line: Int32) -> Int32 {
            guard let laterLinesBase, line > laterLinesBase.line, Int(line) - 1 < lineStarts.count else { return reported }
            var textStart = lineStarts[Int(line) - 1]
            while let byte = byte(at: textStart), byte == 0x20 || byte == 0x09 { textStart += 1 }
            return reported - laterLinesBase.column + Int32(textStart - lineStarts[Int(line) - 1] + 1)
        }
        return SourceRange(
            start: position(line: startLine, column: column(cmark_node_get_start_column(node), line: startLine)),
            end: position(line: endLine, column: column(cmark_node_get_end_column(node), line: endLine))
        )
    }

    func literal(_ node: CmarkNode) -> String {
        guard let pointer = cmark_node_get_literal(node) else { return "" }
        return String(cString: pointer)
    }

    /// The text of a text, code or inline HTML node, read from its chunk: cmark_node_get_literal
    /// makes a NUL-terminated copy of the chunk first (a C allocation per node), then its length
    /// is counted again. cmark-gfm's input has no NUL (it reads one as U+FFFD).
    func inlineLiteral(_ node: CmarkNode) -> String {
        Self.string(node.pointee.as.literal)
    }

    func typeString(_ node: CmarkNode) -> String {
        guard let pointer = cmark_node_get_type_string(node) else { return "" }
        return String(cString: pointer)
    }

    /// The text of a chunk of cmark's node struct.
    static func string(_ chunk: cmark_chunk) -> String {
        guard let data = chunk.data, chunk.len > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(chunk.len)), as: UTF8.self)
    }

    /// cmark's node struct, for what its API has no accessor for.
    static func fields(_ node: CmarkNode) -> cmark_node {
        node.pointee
    }

    /// A footnote definition's label as written, or a reference's (its definition's).
    func footnoteLabel(_ node: CmarkNode) -> String {
        var fields = Self.fields(node)
        if cmark_node_get_type(node) == CMARK_NODE_FOOTNOTE_REFERENCE {
            guard let definition = fields.parent_footnote_def else { return Self.string(fields.as.literal) }
            fields = definition.pointee
        }
        return Self.string(fields.as.literal)
    }

    /// Whether `node` is inside a block quote, whose markers begin its lines (where the text of
    /// a line begins is then not simply after its spaces).
    func isInBlockQuote(_ node: CmarkNode) -> Bool {
        var current = cmark_node_parent(node)
        while let ancestor = current {
            if cmark_node_get_type(ancestor) == CMARK_NODE_BLOCK_QUOTE { return true }
            current = cmark_node_parent(ancestor)
        }
        return false
    }

    /// The source byte at `offset`, or nil outside the source.
    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    // MARK: Blocks

    mutating func document(_ root: CmarkNode) -> MarkupDocument {
        var blocks: [MarkupBlock] = []
        var child = cmark_node_first_child(root)
        while let current = child {
            appendBlock(current, depth: 0, to: &blocks)
            child = cmark_node_next(current)
        }
        // A definition kept only for a reference in a definition cmark-gfm dropped would be
        // dropped on the next reading: its blocks are kept where that reading puts them.
        // And definitions come in the order the next reading gives them.
        return MarkupDocument(blocks: FootnoteDefinitions.arranged(blocks).blocks)
    }

    /// The blocks of ``document(_:)``, handed to `eachBlock` one top-level block at a time.
    ///
    /// cmark-gfm takes every footnote definition out of where it stood and puts the ones it
    /// keeps after everything else, at the top level; only that run of definitions (and an HTML
    /// block right before it, before which unwrapped definitions go) is arranged as
    /// ``document(_:)`` arranges it. The blocks before it are handed over as they are made, and
    /// stand in that arrangement as one paragraph of their footnote references, in order: all
    /// it reads of them. Each block's cmark nodes are freed once it is converted.
    mutating func convertBlocks(_ root: CmarkNode, eachBlock: (MarkupBlock) throws(MarkupError) -> Void) throws(MarkupError) {
        var tailStart: CmarkNode?
        if let last = cmark_node_last_child(root), cmark_node_get_type(last) == CMARK_NODE_FOOTNOTE_DEFINITION {
            var start = last
            while let previous = cmark_node_previous(start), cmark_node_get_type(previous) == CMARK_NODE_FOOTNOTE_DEFINITION { start = previous }
            if let previous = cmark_node_previous(start), cmark_node_get_type(previous) == CMARK_NODE_HTML_BLOCK { start = previous }
            tailStart = start
        }
        if tailStart != nil { footnoteReferences = [] }
        var blocks: [MarkupBlock] = []
        var child = cmark_node_first_child(root)
        while let current = child, current != tailStart {
            appendBlock(current, depth: 0, to: &blocks)
            child = cmark_node_next(current)
            // Freed while its nodes are still in the cache, rather than with the whole tree.
            cmark_node_unlink(current)
            cmark_node_free(current)
            for block in blocks { try eachBlock(block) }
            blocks.removeAll(keepingCapacity: true)
        }
        guard let references = footnoteReferences else { return }
        footnoteReferences = nil
        blocks.append(MarkupBlock(.paragraph, inlines: references))
        while let current = child {
            appendBlock(current, depth: 0, to: &blocks)
            child = cmark_node_next(current)
        }
        for block in FootnoteDefinitions.arranged(blocks).blocks.dropFirst() { try eachBlock(block) }
    }

    mutating func childBlocks(_ node: CmarkNode, depth: Int) -> [MarkupBlock] {
        var blocks: [MarkupBlock] = []
        var child = cmark_node_first_child(node)
        while let current = child {
            appendBlock(current, depth: depth, to: &blocks)
            child = cmark_node_next(current)
        }
        return blocks
    }

    /// Whether a cmark node is a container of blocks (quote, list, item, footnote definition).
    func isContainer(_ node: CmarkNode) -> Bool {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_BLOCK_QUOTE, CMARK_NODE_LIST, CMARK_NODE_ITEM, CMARK_NODE_FOOTNOTE_DEFINITION: true
        default: false
        }
    }

    mutating func appendBlock(_ node: CmarkNode, depth: Int, to blocks: inout [MarkupBlock]) {
        if depth >= maxDepth && isContainer(node) {
            appendLeaves(of: node, to: &blocks)
            return
        }
        if let block = block(node, depth: depth) { blocks.append(block) }
    }

    /// The leaf blocks under a container too deep to keep, in document order, without recursion.
    mutating func appendLeaves(of container: CmarkNode, to blocks: inout [MarkupBlock]) {
        guard let iterator = cmark_iter_new(container) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator), node != container else { continue }
            if isContainer(node) { continue }
            if let block = block(node, depth: maxDepth) { blocks.append(block) }
            // Its content is converted: continue after it.
            cmark_iter_reset(iterator, node, CMARK_EVENT_EXIT)
        }
    }

    mutating func block(_ node: CmarkNode, depth: Int) -> MarkupBlock? {
        let range = self.range(node)
        switch cmark_node_get_type(node) {
        case CMARK_NODE_PARAGRAPH:
            if let parent = cmark_node_parent(node), cmark_node_first_child(parent) == node,
               typeString(parent) == "tasklist" || cmark_node_get_type(parent) == CMARK_NODE_FOOTNOTE_DEFINITION,
               !isInBlockQuote(parent) {
                laterLinesBase = (cmark_node_get_start_line(node), cmark_node_get_start_column(node))
            }
            defer { laterLinesBase = nil }
            return MarkupBlock(.paragraph, inlines: inlineContent(node, range: range), range: range)
        case CMARK_NODE_HEADING:
            var details = JSONObject()
            if Self.fields(node).as.heading.setext { details[MarkupDetails.setext] = true }
            return MarkupBlock(.heading(level: Int(cmark_node_get_heading_level(node))), inlines: inlineContent(node, range: range),
                               range: range, details: details)
        case CMARK_NODE_BLOCK_QUOTE:
            return MarkupBlock(.blockQuote, children: childBlocks(node, depth: depth + 1), range: range)
        case CMARK_NODE_LIST:
            return list(node, range: range, depth: depth)
        case CMARK_NODE_ITEM:
            let checked: Bool? = typeString(node) == "tasklist" ? cmark_gfm_extensions_get_tasklist_item_checked(node) : nil
            return MarkupBlock(.listItem(checked: checked), children: childBlocks(node, depth: depth + 1), range: range)
        case CMARK_NODE_CODE_BLOCK:
            return codeBlock(node, range: range)
        case CMARK_NODE_HTML_BLOCK:
            return MarkupBlock(.htmlBlock, literal: literal(node), range: range)
        case CMARK_NODE_THEMATIC_BREAK:
            var details = JSONObject()
            if let range {
                let rule = lineText(from: range.start.byteOffset)
                if !rule.isEmpty && rule != "***" { details[MarkupDetails.rule] = .string(rule) }
            }
            return MarkupBlock(.thematicBreak, range: range, details: details)
        case CMARK_NODE_FOOTNOTE_DEFINITION:
            return MarkupBlock(.footnoteDefinition(label: footnoteLabel(node)), children: childBlocks(node, depth: depth + 1), range: range)
        default:
            if typeString(node) == "table" { return table(node, range: range) }
            // Unknown custom blocks keep their content.
            let content = childBlocks(node, depth: depth + 1)
            return content.isEmpty ? nil : MarkupBlock(.blockQuote, children: content, range: range)
        }
    }

    mutating func list(_ node: CmarkNode, range: SourceRange?, depth: Int) -> MarkupBlock {
        var items: [CmarkNode] = []
        var child = cmark_node_first_child(node)
        while let current = child {
            items.append(current)
            child = cmark_node_next(current)
        }
        let isTask = items.contains { typeString($0) == "tasklist" }
        let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
        let start = Int(cmark_node_get_list_start(node))
        var details = JSONObject()
        if ordered {
            if cmark_node_get_list_delim(node) == CMARK_PAREN_DELIM { details[MarkupDetails.delimiter] = ")" }
            if isTask { details[MarkupDetails.orderedStart] = .number(.integer(start)) }
        } else {
            let marker = Self.fields(node).as.list.bullet_char
            if marker == UInt8(ascii: "*") || marker == UInt8(ascii: "+") { details[MarkupDetails.bullet] = .string(String(UnicodeScalar(marker))) }
        }
        let style: ListStyle = isTask ? .task : ordered ? .ordered(start: start) : .bullet
        let tight = cmark_node_get_list_tight(node) != 0
        var children: [MarkupBlock] = []
        children.reserveCapacity(items.count)
        for item in items { appendBlock(item, depth: depth + 1, to: &children) }
        return MarkupBlock(.list(style, tight: tight), children: children, range: range, details: details)
    }

    mutating func codeBlock(_ node: CmarkNode, range: SourceRange?) -> MarkupBlock {
        let info = cmark_node_get_fence_info(node).map { String(cString: $0) } ?? ""
        let language = info.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        var details = JSONObject()
        var length: Int32 = 0
        var offset: Int32 = 0
        var character: CChar = 0
        if cmark_node_get_fenced(node, &length, &offset, &character) != 0 {
            var fence = String(repeating: Character(UnicodeScalar(UInt8(bitPattern: character))), count: Int(length))
            if let range, !info.isEmpty, byte(at: range.start.byteOffset + Int(offset) + Int(length)) == 0x20 { fence += " " }
            if fence != "```" { details[MarkupDetails.fence] = .string(fence) }
            if !info.isEmpty && info != language { details[MarkupDetails.info] = .string(info) }
        } else {
            details[MarkupDetails.fence] = ""
        }
        return MarkupBlock(.codeBlock(language: language), literal: literal(node), range: range, details: details)
    }

    mutating func table(_ node: CmarkNode, range: SourceRange?) -> MarkupBlock {
        let columns = Int(cmark_gfm_extensions_get_table_columns(node))
        var alignments: [TableAlignment] = []
        if let raw = cmark_gfm_extensions_get_table_alignments(node) {
            for index in 0..<columns {
                switch raw[index] {
                case UInt8(ascii: "l"): alignments.append(.left)
                case UInt8(ascii: "c"): alignments.append(.center)
                case UInt8(ascii: "r"): alignments.append(.right)
                default: alignments.append(.none)
                }
            }
        }
        var rows: [MarkupBlock] = []
        var row = cmark_node_first_child(node)
        while let currentRow = row {
            let isHeader = cmark_gfm_extensions_get_table_row_is_header(currentRow) != 0
            var cells: [MarkupBlock] = []
            var cell = cmark_node_first_child(currentRow)
            while let currentCell = cell {
                let column = cells.count
                let cellRange = self.range(currentCell)
                cells.append(MarkupBlock(.tableCell(column: column, alignment: column < alignments.count ? alignments[column] : .none),
                                         inlines: inlineContent(currentCell, range: cellRange), range: cellRange))
                cell = cmark_node_next(currentCell)
            }
            rows.append(MarkupBlock(.tableRow(isHeader: isHeader), children: cells, range: self.range(currentRow)))
            row = cmark_node_next(currentRow)
        }
        return MarkupBlock(.table(alignments: alignments), children: rows, range: range)
    }

    // MARK: Source details

    /// The first byte at or after `offset` that is not a space or tab.
    func firstNonSpace(from offset: Int) -> UInt8? {
        var index = offset
        while let byte = byte(at: index), byte == 0x20 || byte == 0x09 { index += 1 }
        return byte(at: index)
    }

    /// The text of the line from `offset` to its end, without the trailing whitespace.
    func lineText(from offset: Int) -> String {
        guard offset >= 0, offset < bytes.count else { return "" }
        var end = offset
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
        while end > offset, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
    }

    /// For each line ending inside `range`, in order: whether the line ends with two or more
    /// spaces (a hard break written that way) rather than with a backslash or nothing.
    func lineEndingSpaces(in range: SourceRange) -> [Bool] {
        var result: [Bool] = []
        let end = min(range.end.byteOffset, bytes.count - 1)
        var index = range.start.byteOffset
        while index < end {
            if bytes[index] == 0x0A {
                var back = index - 1
                if back >= 0, bytes[back] == 0x0D { back -= 1 }
                var spaces = 0
                while back >= 0, bytes[back] == 0x20 { spaces += 1; back -= 1 }
                result.append(spaces >= 2)
            }
            index += 1
        }
        return result
    }

    // MARK: Inlines

    mutating func inlineContent(_ node: CmarkNode, range: SourceRange?) -> [MarkupInline] {
        lineEndings = range.map(lineEndingSpaces) ?? []
        lineEndingIndex = 0
        var result: [MarkupInline] = []
        appendInlines(of: node, depth: 0, to: &result)
        return result
    }

    mutating func appendInlines(of node: CmarkNode, depth: Int, to result: inout [MarkupInline]) {
        // Room for the children at once: counting them is a walk of pointers, growing the array
        // as they come copied its inlines at every doubling.
        var count = 0
        var sibling = cmark_node_first_child(node)
        while let current = sibling {
            count += 1
            sibling = cmark_node_next(current)
        }
        result.reserveCapacity(result.count + count)
        var child = cmark_node_first_child(node)
        while let current = child {
            if depth >= maxDepth {
                appendFlattened(current, to: &result)
            } else {
                result.append(inline(current, depth: depth))
            }
            child = cmark_node_next(current)
        }
    }

    /// The leaves of an inline too deep to keep as spans: its text, breaks and code, without
    /// recursion.
    mutating func appendFlattened(_ node: CmarkNode, to result: inout [MarkupInline]) {
        guard let iterator = cmark_iter_new(node) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let current = cmark_iter_get_node(iterator) else { continue }
            if cmark_node_first_child(current) == nil { result.append(inline(current, depth: maxDepth)) }
        }
    }

    mutating func nextLineEndingIsSpaces() -> Bool {
        defer { lineEndingIndex += 1 }
        return lineEndingIndex < lineEndings.count && lineEndings[lineEndingIndex]
    }

    mutating func inline(_ node: CmarkNode, depth: Int) -> MarkupInline {
        let range = self.range(node)
        switch cmark_node_get_type(node) {
        case CMARK_NODE_TEXT: return MarkupInline(.text(inlineLiteral(node)), range: range)
        case CMARK_NODE_SOFTBREAK:
            _ = nextLineEndingIsSpaces()
            return MarkupInline(.softBreak, range: range)
        case CMARK_NODE_LINEBREAK:
            return MarkupInline(.lineBreak, range: range, details: nextLineEndingIsSpaces() ? [MarkupDetails.spaces: true] : [:])
        case CMARK_NODE_CODE: return MarkupInline(.code(inlineLiteral(node)), range: range)
        case CMARK_NODE_HTML_INLINE:
            let html = inlineLiteral(node)
            for byte in html.utf8 where byte == 0x0A { lineEndingIndex += 1 }
            return MarkupInline(.html(html), range: range)
        case CMARK_NODE_EMPH:
            return span(.emphasis, node, range: range, depth: depth, delimiter: "_")
        case CMARK_NODE_STRONG:
            return span(.strong, node, range: range, depth: depth, delimiter: "__")
        case CMARK_NODE_LINK:
            let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
            let title = cmark_node_get_title(node).map { String(cString: $0) }
            var children: [MarkupInline] = []
            appendInlines(of: node, depth: depth + 1, to: &children)
            var details = JSONObject()
            if let kind = autolinkKind(range: range, url: url, children: children) { details[MarkupDetails.autolink] = .string(kind) }
            return MarkupInline(.link(destination: url, title: title?.isEmpty == true ? nil : title), children: children, range: range,
                                details: details)
        case CMARK_NODE_IMAGE:
            let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
            let title = cmark_node_get_title(node).map { String(cString: $0) }
            var children: [MarkupInline] = []
            appendInlines(of: node, depth: depth + 1, to: &children)
            return MarkupInline(.image(source: url, title: title?.isEmpty == true ? nil : title), children: children, range: range)
        case CMARK_NODE_FOOTNOTE_REFERENCE:
            let label = footnoteLabel(node)
            footnoteReferences?.append(MarkupInline(.footnoteReference(label: label)))
            return MarkupInline(.footnoteReference(label: label), range: range)
        default:
            if typeString(node) == "strikethrough" {
                var single = false
                // Both ends must look single: cmark's positions in containers and after breaks
                // can be off, and a guess from one end made `~h~` and `~~h~~` alternate.
                let tilde = UInt8(ascii: "~")
                if let range, byte(at: range.start.byteOffset) == tilde, byte(at: range.start.byteOffset + 1) != tilde,
                   byte(at: range.end.byteOffset) == tilde, byte(at: range.end.byteOffset - 1) != tilde {
                    single = true
                }
                var children: [MarkupInline] = []
                appendInlines(of: node, depth: depth + 1, to: &children)
                return MarkupInline(.strikethrough, children: children, range: range, details: single ? [MarkupDetails.delimiter: "~"] : [:])
            }
            // Unknown custom inlines: their text.
            return MarkupInline(.text(literal(node)), range: range)
        }
    }

    /// Emphasis or strong emphasis, with `alternative` as its delimiter detail when the source's
    /// delimiters at both ends are underscores.
    mutating func span(_ intent: InlineIntent, _ node: CmarkNode, range: SourceRange?, depth: Int, delimiter alternative: String) -> MarkupInline {
        var children: [MarkupInline] = []
        appendInlines(of: node, depth: depth + 1, to: &children)
        var details = JSONObject()
        if let range, byte(at: range.start.byteOffset) == UInt8(ascii: "_"), byte(at: range.end.byteOffset) == UInt8(ascii: "_") {
            details[MarkupDetails.delimiter] = .string(alternative)
        }
        return MarkupInline(intent, children: children, range: range, details: details)
    }

    /// "angle" for `<url>`, "bare" for GFM's extended autolinks, nil for a `[text](url)` link.
    /// The source says which, where it can be found: GFM's extension makes most of its links
    /// without source positions (a link with none is bare when it has a bare link's shape), and
    /// cmark's positions can be off: a `<…>` link is placed one container indentation early
    /// (its text is not), a `www.` link one byte early, inlines after a backslash hard break or
    /// on a paragraph's indented continuation lines early by the indentation cmark took off, and
    /// on a footnote definition's later lines late by its label (``range(_:)`` corrects the last
    /// for a definition's and a task item's first paragraph). So the link's text is looked
    /// for nearest to where its position says, within ``autolinkSearchWindow`` bytes either side:
    /// `<`, the text and `>` there is `<…>`, the text after a `[` or as a destination after `](`
    /// is `[text](url)`, the text otherwise is bare. A link whose text is not found is
    /// written back as `[text](url)`, which reads the same and stays so.
    ///
    /// - Complexity: O(w) for a window of w bytes (most comparisons end at their first byte), and
    ///   O(n) over a document of n bytes whatever its links (``autolinkSearchBudget``); the text is
    ///   usually where the position says, or a few bytes from it.
    mutating func autolinkKind(range: SourceRange?, url: String, children: [MarkupInline]) -> String? {
        guard children.count == 1, case .text(let text) = children[0].intent else { return nil }
        let isEmail = url == "mailto:" + text
        guard url == text || isEmail || url == "http://" + text else { return nil }
        let bareShaped = text.hasPrefix("www.") || text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("ftp://")
            || (isEmail && text.contains("@"))
        guard let reported = (children[0].range ?? range)?.start.byteOffset else { return bareShaped ? "bare" : nil }
        // A link whose reported range starts with `[` right before its text's and ends with `)` is
        // `[text](url)`, its text written with escapes; the search below would find the text's
        // spelling elsewhere (in a `<…>` link after it).
        if let range, range.start.byteOffset + 1 == reported, byte(at: range.start.byteOffset) == UInt8(ascii: "["),
           byte(at: range.end.byteOffset) == UInt8(ascii: ")") {
            return nil
        }
        let spelled = Array(text.utf8)
        guard let first = spelled.first else { return nil }
        func spells(at offset: Int) -> Bool {
            guard offset >= 0, offset + spelled.count <= bytes.count, bytes[offset] == first else { return false }
            var index = 1
            while index < spelled.count, bytes[offset + index] == spelled[index] { index += 1 }
            return index == spelled.count
        }
        var found: Int?
        var distance = 0
        while found == nil, distance <= Self.autolinkSearchWindow, autolinkSearchBudget > 0 {
            if spells(at: reported + distance) {
                found = reported + distance
            } else if distance > 0, spells(at: reported - distance) {
                found = reported - distance
            }
            distance += 1
            autolinkSearchBudget -= 2
        }
        guard let start = found else { return nil }
        // The first spelling found may be the destination of a `[text](url)` link whose text is
        // written with escapes (`[http\\://a.b](http://a.b)`).
        func follows(_ prefix: String) -> Bool {
            let expected = Array(prefix.utf8)
            return start >= expected.count && bytes[start - expected.count..<start].elementsEqual(expected)
        }
        if follows("](") || follows("](<") || (url == "http://" + text && (follows("](http://") || follows("](<http://"))) { return nil }
        // Only a URI with a scheme (or an email address) can have been `<…>`.
        if url != "http://" + text, isEmail || InlineWriter.isAbsoluteURI(text), byte(at: start - 1) == UInt8(ascii: "<"),
           byte(at: start + spelled.count) == UInt8(ascii: ">"), byte(at: start - 2) != UInt8(ascii: "\\") {
            return "angle"
        }
        return bareShaped && byte(at: start - 1) != UInt8(ascii: "[") ? "bare" : nil
    }

    /// How far from its reported position a link's text is looked for in the source: past the
    /// indentation of a few hundred lines. A bound, so that a document of links whose text is
    /// nowhere in the source (entity references in it) costs at most this much per link.
    static let autolinkSearchWindow = 1024
}
