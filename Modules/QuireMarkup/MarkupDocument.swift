import QuireModel

/// A place in a markup source: a 1-based line, a 1-based column counted in UTF-8 bytes (as
/// cmark-gfm reports it), and the 0-based UTF-8 byte offset from the start of the source.
public struct SourcePosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// The 1-based column, in UTF-8 bytes from the start of the line.
    public var column: Int
    /// The 0-based offset in UTF-8 bytes from the start of the source.
    public var byteOffset: Int

    /// A position.
    public init(line: Int, column: Int, byteOffset: Int) {
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    /// Orders by byte offset.
    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool { lhs.byteOffset < rhs.byteOffset }

    /// "line L, column C (byte B)".
    public var description: String { "line \(line), column \(column) (byte \(byteOffset))" }

    /// `bytes` as a string, or an ``MarkupError/invalidUTF8(at:)`` error at the first invalid
    /// sequence: how every markup and document format reads a file, refusing such input rather
    /// than reading U+FFFD.
    ///
    /// Valid input is checked once, by the standard library's validating initializer (a tenth of
    /// the time of decoding it scalar by scalar, which was 5% of converting a large markdown
    /// file); the line and column are worked out only for input that fails.
    ///
    /// - Complexity: O(n).
    public static func text(validating bytes: [UInt8]) throws(MarkupError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        guard let position = firstInvalidUTF8(in: bytes) else {
            // Only if the two validators disagreed; decoding keeps the text rather than losing it.
            return String(decoding: bytes, as: UTF8.self)
        }
        throw .invalidUTF8(at: position)
    }

    /// The position of the first invalid UTF-8 sequence in `bytes`, or nil when they are valid:
    /// every markup and document format refuses such input here rather than reading U+FFFD.
    ///
    /// - Complexity: O(n).
    public static func firstInvalidUTF8(in bytes: some Collection<UInt8>) -> SourcePosition? {
        var line = 1
        var lineStart = 0
        var offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
                if scalar == "\n" {
                    line += 1
                    lineStart = offset
                }
            case .emptyInput:
                return nil
            case .error:
                return SourcePosition(line: line, column: offset - lineStart + 1, byteOffset: offset)
            }
        }
    }
}

/// The span of source a markup node came from; both ends inclusive of their characters, as
/// cmark-gfm's source positions are.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// Where the node starts.
    public var start: SourcePosition
    /// Where the node ends.
    public var end: SourcePosition

    /// A range.
    public init(start: SourcePosition, end: SourcePosition) {
        self.start = start
        self.end = end
    }

    /// "start–end".
    public var description: String { "\(start) – \(end)" }
}

/// A column's alignment in a table.
public enum TableAlignment: String, Hashable, Sendable, CaseIterable {
    case none, left, center, right
}

/// The kind of list a list intent stands for.
public enum ListStyle: Hashable, Sendable {
    /// An unordered list.
    case bullet
    /// An ordered list starting at `start`.
    case ordered(start: Int)
    /// A task (check) list: every item has a checkbox.
    case task
}

/// What a block of markup means, independently of the markup language: our replacement for
/// Foundation's `PresentationIntent`, which Linux lacks.
public enum BlockIntent: Hashable, Sendable {
    /// A paragraph of inline content.
    case paragraph
    /// A heading of `level` 1…6 with inline content.
    case heading(level: Int)
    /// A block quote holding blocks.
    case blockQuote
    /// A list holding list items. `tight` lists separate items without blank lines.
    case list(ListStyle, tight: Bool)
    /// A list item holding blocks; `checked` is non-nil for a task item.
    case listItem(checked: Bool?)
    /// A code block; its text is the block's `literal`.
    case codeBlock(language: String?)
    /// Raw HTML; its text is the block's `literal`.
    case htmlBlock
    /// A thematic break (horizontal rule).
    case thematicBreak
    /// A table; its rows are its children, one alignment per column.
    case table(alignments: [TableAlignment])
    /// A table row; the first row of a markdown table is its header.
    case tableRow(isHeader: Bool)
    /// A table cell with inline content.
    case tableCell(column: Int, alignment: TableAlignment)
    /// A footnote definition holding blocks; `label` is the label as written (`[^label]:`).
    case footnoteDefinition(label: String)

    /// Whether the block's content is inline content rather than child blocks or a literal.
    public var hasInlineContent: Bool {
        switch self {
        case .paragraph, .heading, .tableCell: true
        default: false
        }
    }

    /// A short name for messages and for `quire show`.
    public var name: String {
        switch self {
        case .paragraph: "paragraph"
        case .heading(let level): "heading \(level)"
        case .blockQuote: "block quote"
        case .list(let style, _):
            switch style {
            case .bullet: "bullet list"
            case .ordered: "ordered list"
            case .task: "task list"
            }
        case .listItem: "list item"
        case .codeBlock: "code block"
        case .htmlBlock: "HTML block"
        case .thematicBreak: "thematic break"
        case .table: "table"
        case .tableRow: "table row"
        case .tableCell: "table cell"
        case .footnoteDefinition: "footnote definition"
        }
    }
}

/// What an inline piece of markup means.
public enum InlineIntent: Hashable, Sendable {
    /// Plain text.
    case text(String)
    /// A line ending inside a paragraph that is not a hard break.
    case softBreak
    /// A hard line break.
    case lineBreak
    /// An inline code span with its text.
    case code(String)
    /// Raw inline HTML.
    case html(String)
    /// Emphasis (italic) around its children.
    case emphasis
    /// Strong emphasis (bold) around its children.
    case strong
    /// Strikethrough (GFM) around its children.
    case strikethrough
    /// A link around its children.
    case link(destination: String, title: String?)
    /// An image; its children are the description (alt text).
    case image(source: String, title: String?)
    /// A reference to the footnote defined with `label` (`[^label]`).
    case footnoteReference(label: String)

    /// Whether the intent wraps child inlines.
    public var isContainer: Bool {
        switch self {
        case .emphasis, .strong, .strikethrough, .link, .image: true
        default: false
        }
    }
}

/// One inline node of a markup document.
public struct MarkupInline: Hashable, Sendable {
    /// What the node means.
    public var intent: InlineIntent
    /// The wrapped inlines of a container intent.
    public var children: [MarkupInline]
    /// Where the node came from, when it was parsed.
    public var range: SourceRange?
    /// How the source wrote the node, for a serializer that writes it the same way (markdown's
    /// emphasis delimiter, a hard break's trailing spaces): see ``MarkupDetails``.
    public var details: JSONObject

    /// An inline node.
    public init(_ intent: InlineIntent, children: [MarkupInline] = [], range: SourceRange? = nil, details: JSONObject = JSONObject()) {
        self.intent = intent
        self.children = children
        self.range = range
        self.details = details
    }

    /// Whether `self` and `other` mean and write the same, wherever they came from: equal but
    /// for the ranges, at every depth.
    ///
    /// - Complexity: O(n) in the subtrees' size.
    public func equalsIgnoringRanges(_ other: MarkupInline) -> Bool {
        intent == other.intent && details == other.details && children.count == other.children.count
            && zip(children, other.children).allSatisfy { $0.equalsIgnoringRanges($1) }
    }

    /// The plain text of the node and its children (alt text of an image, text of a link).
    ///
    /// - Complexity: O(n) in the subtree's size.
    public var plainText: String {
        switch intent {
        case .text(let text), .code(let text), .html(let text): text
        case .softBreak, .lineBreak: "\n"
        case .footnoteReference(let label): "[^\(label)]"
        default: children.map(\.plainText).joined()
        }
    }
}

/// One block of a markup document: a container of blocks, a block of inline content, or a
/// literal (code, HTML).
public struct MarkupBlock: Hashable, Sendable {
    /// What the block means.
    public var intent: BlockIntent
    /// Child blocks (quote, list, list item, table, row).
    public var children: [MarkupBlock]
    /// Inline content (paragraph, heading, table cell).
    public var inlines: [MarkupInline]
    /// The text of a code or HTML block, with its final line ending.
    public var literal: String
    /// Where the block came from, when it was parsed.
    public var range: SourceRange?
    /// How the source wrote the block, for a serializer that writes it the same way (a list's
    /// bullet, a code fence, a setext heading): see ``MarkupDetails``.
    public var details: JSONObject

    /// A block.
    public init(_ intent: BlockIntent, children: [MarkupBlock] = [], inlines: [MarkupInline] = [], literal: String = "",
                range: SourceRange? = nil, details: JSONObject = JSONObject()) {
        self.intent = intent
        self.children = children
        self.inlines = inlines
        self.literal = literal
        self.range = range
        self.details = details
    }

    /// The lines of a code or HTML block's literal, without its final line ending: split at each
    /// "\n" Character, so an empty literal is one empty line.
    ///
    /// The UTF-8 bytes are scanned instead of the Characters (which cost a grapheme break test
    /// each): a "\n" byte is a "\n" Character unless a "\r" before it makes them one "\r\n",
    /// which stays inside its line.
    ///
    /// - Complexity: O(n) in the literal's UTF-8 length.
    public static func lines(ofLiteral literal: String) -> [Substring] {
        let utf8 = literal.utf8
        var lines: [Substring] = []
        var start = utf8.startIndex
        var index = start
        var previous: UInt8 = 0
        var endsWithLineEnd = false
        while index != utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            endsWithLineEnd = byte == UInt8(ascii: "\n") && previous != UInt8(ascii: "\r")
            if endsWithLineEnd {
                lines.append(literal[start..<index])
                start = next
            }
            previous = byte
            index = next
        }
        if !endsWithLineEnd || lines.isEmpty { lines.append(literal[start...]) }
        return lines
    }
}

/// A parsed markup document: a sequence of blocks, independent of the markup language.
public struct MarkupDocument: Hashable, Sendable {
    /// The top-level blocks.
    public var blocks: [MarkupBlock]

    /// A document.
    public init(blocks: [MarkupBlock] = []) { self.blocks = blocks }

    /// The document with every source range removed, for comparing structure.
    public var withoutRanges: MarkupDocument {
        func strip(_ inline: MarkupInline) -> MarkupInline {
            MarkupInline(inline.intent, children: inline.children.map(strip), details: inline.details)
        }
        func strip(_ block: MarkupBlock) -> MarkupBlock {
            MarkupBlock(block.intent, children: block.children.map(strip), inlines: block.inlines.map(strip), literal: block.literal,
                        details: block.details)
        }
        return MarkupDocument(blocks: blocks.map(strip))
    }
}

/// Why markup could not be read, written or mapped, and where.
public enum MarkupError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The source bytes are not valid UTF-8 at `byteOffset` (line and column given too).
    case invalidUTF8(at: SourcePosition)
    /// The parser could not be created or failed (the markup library's own error).
    case parserFailure(String)
    /// A node has no markup mapping: no plugin maps its type. `path` is the node's JSON path.
    case unmappedNode(type: NodeTypeName, path: String)
    /// A block could not be turned into nodes (a plugin refused it); `range` says where in the source.
    case cannotImport(intent: String, reason: String, range: SourceRange?)
    /// No markup format is registered for the name or file extension.
    case unknownFormat(String, available: [String])

    /// A readable message naming the place.
    public var description: String {
        switch self {
        case .invalidUTF8(let position): "invalid UTF-8 at \(position)"
        case .parserFailure(let message): "markup parser failure: \(message)"
        case .unmappedNode(let type, let path): "\(path): no markup mapping for node type \"\(type)\""
        case .cannotImport(let intent, let reason, let range):
            (range.map { "\($0.start): " } ?? "") + "cannot import \(intent): \(reason)"
        case .unknownFormat(let name, let available):
            "no markup format \"\(name)\"; available: " + (available.isEmpty ? "(none)" : available.joined(separator: ", "))
        }
    }
}

/// A node type's name as a plain string, so that `MarkupError` stays free of model types.
public typealias NodeTypeName = String
