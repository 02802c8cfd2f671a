import QuireModel

/// Turns an `EditorState` into a `MarkupDocument` through the node plugins' mappings: the inverse
/// of `MarkupImporter`, so that a serializer can write markup that imports back into the same
/// document.
///
/// - consecutive non-empty quotes of inline content become one block quote of paragraphs;
/// - a list item whose only child is a list nests that list in the item before it;
/// - text formats become nested emphasis, strong and strikethrough, opened longest-first so that
///   spans nest, with whitespace at a span's edge moved outside it (markup cannot express it);
/// - a `linebreak` with `"hard": true` is a hard break, any other a soft break.
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
        let reader = Reader(state: state, mappings: mappings)
        return MarkupDocument(blocks: try reader.blocks(of: state.root, path: "$.root"))
    }

    /// Whether `state` has text formats markup cannot express.
    public static func droppedFormats(in state: EditorState) -> TextFormat {
        var dropped: TextFormat = []
        var pending = [state.root]
        while let node = pending.popLast() {
            if node.role == .text { dropped.formUnion(node.textFormat.subtracting(expressibleFormats)) }
            pending.append(contentsOf: state.children(of: node.key))
        }
        return dropped
    }
}

private struct Reader {
    let state: EditorState
    let mappings: MarkupMappings

    func intent(of node: Node, path: String) throws(MarkupError) -> MarkupIntent {
        if node.type == .paragraph && !node.isUnknown { return .block(.paragraph) }
        guard !node.isUnknown, let mapping = mappings.mapping(for: node.type) else {
            throw .unmappedNode(type: node.type.rawValue, path: path)
        }
        return mapping.intent(of: node)
    }

    func children(_ node: Node) -> [Node] { Array(state.children(of: node.key)) }

    func hasBlockChildren(_ node: Node) -> Bool {
        state.children(of: node.key).contains { !$0.role.isInline }
    }

    func blocks(of parent: Node, path: String) throws(MarkupError) -> [MarkupBlock] {
        var result: [MarkupBlock] = []
        let siblings = children(parent)
        for (index, child) in siblings.enumerated() {
            let childPath = "\(path).children[\(index)]"
            let raised = try block(child, path: childPath)
            // Consecutive non-empty quotes of inline content are one block quote of paragraphs.
            if raised.intent == .blockQuote, !raised.children.isEmpty, !hasBlockChildren(child),
               let last = result.last, last.intent == .blockQuote, !last.children.isEmpty,
               index > 0, !hasBlockChildren(siblings[index - 1]) {
                result[result.count - 1].children += raised.children
            } else {
                result.append(raised)
            }
        }
        return result
    }

    func block(_ node: Node, path: String) throws(MarkupError) -> MarkupBlock {
        guard case .block(let intent) = try self.intent(of: node, path: path) else {
            throw .unmappedNode(type: node.type.rawValue, path: path)
        }
        switch intent {
        case .paragraph, .heading:
            return MarkupBlock(intent, inlines: try inlines(of: node, path: path))
        case .blockQuote:
            if hasBlockChildren(node) { return MarkupBlock(.blockQuote, children: try blocks(of: node, path: path)) }
            let content = try inlines(of: node, path: path)
            return MarkupBlock(.blockQuote, children: content.isEmpty && node.childCount == 0 ? [] : [MarkupBlock(.paragraph, inlines: content)])
        case .list:
            return try list(node, intent: intent, path: path)
        case .listItem:
            return MarkupBlock(intent, children: try itemBlocks(node, path: path))
        case .codeBlock:
            var literal = ""
            for child in children(node) {
                switch child.role {
                case .lineBreak: literal += "\n"
                case .text: literal += child.text
                case .decorator: literal += FlatString.objectReplacement
                default: literal += FlatString.render(child.key, in: state)
                }
            }
            return MarkupBlock(intent, literal: node.childCount == 0 ? "" : literal + "\n")
        case .htmlBlock:
            return MarkupBlock(intent, literal: FlatString.render(node.key, in: state))
        case .thematicBreak:
            return MarkupBlock(intent)
        case .table:
            return try table(node, path: path)
        case .tableRow, .tableCell:
            throw .unmappedNode(type: node.type.rawValue, path: path)
        }
    }

    func list(_ node: Node, intent: BlockIntent, path: String) throws(MarkupError) -> MarkupBlock {
        var items: [MarkupBlock] = []
        let isTask = if case .list(.task, _) = intent { true } else { false }
        for (index, child) in children(node).enumerated() {
            let childPath = "\(path).children[\(index)]"
            guard case .block(let itemIntent) = try self.intent(of: child, path: childPath) else {
                throw .unmappedNode(type: child.type.rawValue, path: childPath)
            }
            var checked: Bool? = nil
            if case .listItem(let value) = itemIntent { checked = isTask ? (value ?? false) : nil }
            let content = try itemBlocks(child, path: childPath)
            // Lexical nests a list in an item of its own; markup nests it in the item before.
            if content.count == 1, case .list = content[0].intent, child.childCount == 1, !items.isEmpty {
                items[items.count - 1].children.append(content[0])
            } else {
                items.append(MarkupBlock(.listItem(checked: checked), children: content))
            }
        }
        return MarkupBlock(intent, children: items)
    }

    func itemBlocks(_ item: Node, path: String) throws(MarkupError) -> [MarkupBlock] {
        if hasBlockChildren(item) {
            // A nested list (Lexical), or blocks when the item plugin takes them.
            var result: [MarkupBlock] = []
            var run: [Node] = []
            func flushRun() throws(MarkupError) {
                if !run.isEmpty { result.append(MarkupBlock(.paragraph, inlines: try inlines(run, path: path))) }
                run = []
            }
            for (index, child) in children(item).enumerated() {
                if child.role.isInline { run.append(child); continue }
                try flushRun()
                result.append(try block(child, path: "\(path).children[\(index)]"))
            }
            try flushRun()
            return result
        }
        let content = try inlines(of: item, path: path)
        return content.isEmpty ? [] : [MarkupBlock(.paragraph, inlines: content)]
    }

    func table(_ node: Node, path: String) throws(MarkupError) -> MarkupBlock {
        var rows: [MarkupBlock] = []
        var alignments: [TableAlignment] = []
        for (rowIndex, row) in children(node).enumerated() {
            let rowPath = "\(path).children[\(rowIndex)]"
            _ = try intent(of: row, path: rowPath)
            var cells: [MarkupBlock] = []
            for (column, cell) in children(row).enumerated() {
                let cellPath = "\(rowPath).children[\(column)]"
                _ = try intent(of: cell, path: cellPath)
                var content: [MarkupInline] = []
                var alignment = TableAlignment.none
                for (index, block) in children(cell).enumerated() {
                    if index == 0, let value = TableAlignment(rawValue: block.alignment.rawValue) { alignment = value }
                    if index > 0 { content.append(MarkupInline(.text(" "))) }
                    content += block.role.isInline
                        ? try inlines([block], path: cellPath)
                        : try inlines(of: block, path: "\(cellPath).children[\(index)]")
                }
                if rowIndex == 0 { alignments.append(alignment) }
                cells.append(MarkupBlock(.tableCell(column: column, alignment: column < alignments.count ? alignments[column] : .none), inlines: content))
            }
            rows.append(MarkupBlock(.tableRow(isHeader: rowIndex == 0), children: cells))
        }
        return MarkupBlock(.table(alignments: alignments), children: rows)
    }

    // MARK: Inlines

    func inlines(of node: Node, path: String) throws(MarkupError) -> [MarkupInline] {
        try inlines(children(node), path: path)
    }

    /// A flat piece of inline content with the marks (bold, italic, strikethrough) around it.
    struct Segment {
        enum Content {
            case text(String, code: Bool)
            case soft, hard
            case image(MarkupInline)
            case link(destination: String, title: String?, [Segment])
        }
        var content: Content
        var marks: TextFormat
        /// Breaks and images take the marks around them instead of their own.
        var isTransparent: Bool {
            switch content {
            case .soft, .hard, .image: true
            default: false
            }
        }
    }

    static let markOrder: [(TextFormat, InlineIntent)] = [(.bold, .strong), (.italic, .emphasis), (.strikethrough, .strikethrough)]
    static let marks: TextFormat = [.bold, .italic, .strikethrough]

    func segments(_ nodes: [Node], path: String) throws(MarkupError) -> [Segment] {
        var result: [Segment] = []
        for (index, node) in nodes.enumerated() {
            let nodePath = "\(path).children[\(index)]"
            switch node.role {
            case .text:
                let format = node.textFormat
                result.append(Segment(content: .text(node.text, code: format.contains(.code)), marks: format.intersection(Self.marks)))
            case .lineBreak:
                let hard = node.fields[MarkupImporter.hardBreakField] == .bool(true)
                result.append(Segment(content: hard ? .hard : .soft, marks: []))
            case .decorator:
                guard case .inline(let intent) = try self.intent(of: node, path: nodePath) else {
                    throw .unmappedNode(type: node.type.rawValue, path: nodePath)
                }
                let alt = node.fields["altText"]?.stringValue ?? ""
                result.append(Segment(content: .image(MarkupInline(intent, children: alt.isEmpty ? [] : [MarkupInline(.text(alt))])), marks: []))
            case .element(inline: true):
                guard case .inline(let intent) = try self.intent(of: node, path: nodePath),
                      case .link(let destination, let title) = intent else {
                    throw .unmappedNode(type: node.type.rawValue, path: nodePath)
                }
                let inner = try segments(children(node), path: nodePath)
                // The link carries the marks all its text shares; its children keep the rest.
                let texts = inner.filter { !$0.isTransparent }
                let shared = texts.isEmpty ? [] : texts.dropFirst().reduce(texts[0].marks) { $0.intersection($1.marks) }
                let children = inner.map { segment in
                    var copy = segment
                    copy.marks.subtract(shared)
                    return copy
                }
                result.append(Segment(content: .link(destination: destination, title: title, children), marks: shared))
            default:
                throw .unmappedNode(type: node.type.rawValue, path: nodePath)
            }
        }
        return result
    }

    func inlines(_ nodes: [Node], path: String) throws(MarkupError) -> [MarkupInline] {
        build(normalize(try segments(nodes, path: path)))
    }

    /// Gives breaks and images the marks shared by what is open before them and the next text,
    /// and moves whitespace at the edge of a span outside it.
    func normalize(_ input: [Segment]) -> [Segment] {
        var segments = input
        var nextMarks: TextFormat = []
        for index in segments.indices.reversed() {
            if segments[index].isTransparent {
                segments[index].marks = nextMarks
            } else {
                nextMarks = segments[index].marks
            }
        }
        var previous: TextFormat = []
        for index in segments.indices {
            if segments[index].isTransparent { segments[index].marks.formIntersection(previous) }
            previous = segments[index].marks
        }
        var result: [Segment] = []
        for (index, segment) in segments.enumerated() {
            guard case .text(let text, let code) = segment.content, !segment.marks.isEmpty else {
                result.append(segment)
                continue
            }
            let before = result.last?.marks ?? []
            let after = index + 1 < segments.count ? segments[index + 1].marks : []
            var body = Substring(text)
            var leading = Substring("")
            var trailing = Substring("")
            if !segment.marks.subtracting(before).isEmpty, !code {
                let count = body.prefix { $0 == " " || $0 == "\t" }.count
                leading = body.prefix(count)
                body = body.dropFirst(count)
            }
            if !segment.marks.subtracting(after).isEmpty, !code {
                let count = body.reversed().prefix { $0 == " " || $0 == "\t" }.count
                trailing = body.suffix(count)
                body = body.dropLast(count)
            }
            if !leading.isEmpty { result.append(Segment(content: .text(String(leading), code: false), marks: segment.marks.intersection(before))) }
            if !body.isEmpty { result.append(Segment(content: .text(String(body), code: code), marks: segment.marks)) }
            if !trailing.isEmpty { result.append(Segment(content: .text(String(trailing), code: false), marks: segment.marks.intersection(after))) }
        }
        return result
    }

    /// Nests the segments' marks: a mark opens where it starts and closes where it ends; marks
    /// that start together open longest first.
    func build(_ segments: [Segment]) -> [MarkupInline] {
        var stack: [(mark: TextFormat, intent: InlineIntent, children: [MarkupInline])] = [(mark: [], intent: .strong, children: [])]
        func close() {
            let top = stack.removeLast()
            stack[stack.count - 1].children.append(MarkupInline(top.intent, children: top.children))
        }
        for (index, segment) in segments.enumerated() {
            // Close every open mark the segment lacks, and everything opened after it.
            if let depth = stack.indices.dropFirst().first(where: { !segment.marks.contains(stack[$0].mark) }) {
                while stack.count > depth { close() }
            }
            let open = stack.dropFirst().reduce(TextFormat()) { $0.union($1.mark) }
            let opening = Self.markOrder.enumerated().filter { segment.marks.contains($0.element.0) && !open.contains($0.element.0) }
                .map { (order: $0.offset, mark: $0.element.0, intent: $0.element.1, run: runLength(of: $0.element.0, from: index, in: segments)) }
            let ordered = opening.sorted { ($0.run, -$0.order) > ($1.run, -$1.order) }
            for entry in ordered { stack.append((mark: entry.mark, intent: entry.intent, children: [])) }
            stack[stack.count - 1].children.append(inline(segment))
        }
        while stack.count > 1 { close() }
        return stack[0].children
    }

    func runLength(of mark: TextFormat, from start: Int, in segments: [Segment]) -> Int {
        var count = 0
        for segment in segments[start...] {
            guard segment.marks.contains(mark) else { break }
            count += 1
        }
        return count
    }

    func inline(_ segment: Segment) -> MarkupInline {
        switch segment.content {
        case .text(let text, let code): MarkupInline(code ? .code(text) : .text(text))
        case .soft: MarkupInline(.softBreak)
        case .hard: MarkupInline(.lineBreak)
        case .image(let image): image
        case .link(let destination, let title, let children):
            MarkupInline(.link(destination: destination, title: title), children: build(normalize(children)))
        }
    }
}
