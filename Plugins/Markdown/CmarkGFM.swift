import CCmarkGFM
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import QuireMarkup
import Foundation

/// Debian's cmark-gfm, wrapped: parses CommonMark with the GitHub extensions (table,
/// strikethrough, autolink, tasklist, tagfilter) into a `MarkupDocument`, and renders cmark's
/// own HTML (the reference for conformance reports and benchmarks).
public enum CmarkGFM {
    /// The GFM extensions every parser attaches.
    public static let extensionNames = ["table", "strikethrough", "autolink", "tasklist", "tagfilter"]

    /// Registers the core extensions once per process (cmark keeps a global registry).
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// A parser with the GFM extensions attached; the caller frees it.
    static func makeParser(options: Int32) throws(MarkupError) -> OpaquePointer {
        precondition(registered)
        guard let parser = cmark_parser_new(options) else { throw .parserFailure("cmark_parser_new returned NULL") }
        for name in extensionNames {
            guard let syntax = cmark_find_syntax_extension(name) else {
                cmark_parser_free(parser)
                throw .parserFailure("cmark-gfm has no \"\(name)\" extension")
            }
            cmark_parser_attach_syntax_extension(parser, syntax)
        }
        return parser
    }

    /// cmark-gfm keeps the inline parser's special characters in a process-wide table that
    /// attaching and freeing extension parsers edit (strikethrough adds `~`, autolink `:` and
    /// `w`), so two parsers running at once corrupt each other's results. Every parse holds this.
    private static let parseLock = NSLock()

    /// Parses `bytes` (UTF-8) and passes the document's root node to `body`, under `parseLock`.
    static func withDocument<T>(_ bytes: UnsafeBufferPointer<UInt8>, options: Int32 = CMARK_OPT_DEFAULT, _ body: (OpaquePointer, OpaquePointer) throws(MarkupError) -> T) throws(MarkupError) -> T {
        parseLock.lock()
        defer { parseLock.unlock() }
        return try parseLocked(bytes, options: options, body)
    }

    private static func parseLocked<T>(_ bytes: UnsafeBufferPointer<UInt8>, options: Int32, _ body: (OpaquePointer, OpaquePointer) throws(MarkupError) -> T) throws(MarkupError) -> T {
        let parser = try makeParser(options: options)
        defer { cmark_parser_free(parser) }
        bytes.withMemoryRebound(to: CChar.self) { chars in
            cmark_parser_feed(parser, chars.baseAddress, chars.count)
        }
        guard let root = cmark_parser_finish(parser) else { throw .parserFailure("cmark_parser_finish returned NULL") }
        defer { cmark_node_free(root) }
        return try body(parser, root)
    }

    /// cmark-gfm's HTML for `markdown`, with the GFM extensions and raw HTML kept (`--unsafe`).
    ///
    /// - Complexity: O(n) in the input size.
    public static func html(_ markdown: String) throws(MarkupError) -> String {
        try withUTF8(of: markdown) { (bytes) throws(MarkupError) -> String in
            try withDocument(bytes) { (parser, root) throws(MarkupError) -> String in
                guard let html = cmark_render_html(root, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser)) else {
                    throw .parserFailure("cmark_render_html returned NULL")
                }
                defer { free(html) }
                return String(cString: html)
            }
        }
    }

    /// Runs `body` over the UTF-8 bytes of `string`, keeping its typed error.
    static func withUTF8<T>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) throws(MarkupError) -> T) throws(MarkupError) -> T {
        var copy = string
        var result: Result<T, MarkupError>?
        copy.withUTF8 { bytes in
            result = Result { () throws(MarkupError) -> T in try body(bytes) }
        }
        return try result!.get()
    }

    /// The position of the first invalid UTF-8 sequence in `bytes`, or nil when they are valid.
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

/// Converts cmark's tree into a `MarkupDocument`, mapping its (line, byte column) positions to
/// byte offsets.
struct CmarkConverter {
    /// The byte offset where each line starts; line 1 starts at 0.
    let lineStarts: [Int]

    init(bytes: UnsafeBufferPointer<UInt8>) {
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == 0x0A { starts.append(index + 1) }
        lineStarts = starts
    }

    func position(line: Int32, column: Int32) -> SourcePosition {
        let line = max(1, Int(line))
        let column = max(1, Int(column))
        let start = line - 1 < lineStarts.count ? lineStarts[line - 1] : (lineStarts.last ?? 0)
        return SourcePosition(line: line, column: column, byteOffset: start + column - 1)
    }

    func range(_ node: OpaquePointer) -> SourceRange? {
        let startLine = cmark_node_get_start_line(node)
        guard startLine > 0 else { return nil }
        return SourceRange(
            start: position(line: startLine, column: cmark_node_get_start_column(node)),
            end: position(line: cmark_node_get_end_line(node), column: cmark_node_get_end_column(node))
        )
    }

    func literal(_ node: OpaquePointer) -> String {
        guard let pointer = cmark_node_get_literal(node) else { return "" }
        return String(cString: pointer)
    }

    func typeString(_ node: OpaquePointer) -> String {
        guard let pointer = cmark_node_get_type_string(node) else { return "" }
        return String(cString: pointer)
    }

    func children(_ node: OpaquePointer) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var child = cmark_node_first_child(node)
        while let current = child {
            result.append(current)
            child = cmark_node_next(current)
        }
        return result
    }

    func document(_ root: OpaquePointer) -> MarkupDocument {
        MarkupDocument(blocks: children(root).compactMap { block($0) })
    }

    func block(_ node: OpaquePointer) -> MarkupBlock? {
        let range = self.range(node)
        switch cmark_node_get_type(node) {
        case CMARK_NODE_PARAGRAPH:
            return MarkupBlock(.paragraph, inlines: inlines(node), range: range)
        case CMARK_NODE_HEADING:
            return MarkupBlock(.heading(level: Int(cmark_node_get_heading_level(node))), inlines: inlines(node), range: range)
        case CMARK_NODE_BLOCK_QUOTE:
            return MarkupBlock(.blockQuote, children: children(node).compactMap { block($0) }, range: range)
        case CMARK_NODE_LIST:
            let items = children(node)
            let isTask = items.contains { typeString($0) == "tasklist" }
            let style: ListStyle = if isTask { .task } else if cmark_node_get_list_type(node) == CMARK_ORDERED_LIST {
                .ordered(start: Int(cmark_node_get_list_start(node)))
            } else { .bullet }
            let tight = cmark_node_get_list_tight(node) != 0
            return MarkupBlock(.list(style, tight: tight), children: items.compactMap { block($0) }, range: range)
        case CMARK_NODE_ITEM:
            let checked: Bool? = typeString(node) == "tasklist" ? cmark_gfm_extensions_get_tasklist_item_checked(node) : nil
            return MarkupBlock(.listItem(checked: checked), children: children(node).compactMap { block($0) }, range: range)
        case CMARK_NODE_CODE_BLOCK:
            let info = cmark_node_get_fence_info(node).map { String(cString: $0) } ?? ""
            let language = info.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
            return MarkupBlock(.codeBlock(language: language), literal: literal(node), range: range)
        case CMARK_NODE_HTML_BLOCK:
            return MarkupBlock(.htmlBlock, literal: literal(node), range: range)
        case CMARK_NODE_THEMATIC_BREAK:
            return MarkupBlock(.thematicBreak, range: range)
        default:
            switch typeString(node) {
            case "table":
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
                let rows = children(node).map { row in
                    let isHeader = cmark_gfm_extensions_get_table_row_is_header(row) != 0
                    let cells = children(row).enumerated().map { column, cell in
                        MarkupBlock(.tableCell(column: column, alignment: column < alignments.count ? alignments[column] : .none),
                                    inlines: inlines(cell), range: self.range(cell))
                    }
                    return MarkupBlock(.tableRow(isHeader: isHeader), children: cells, range: self.range(row))
                }
                return MarkupBlock(.table(alignments: alignments), children: rows, range: range)
            default:
                // Footnote definitions and unknown custom blocks: keep their text as paragraphs.
                let content = children(node).compactMap { block($0) }
                return content.isEmpty ? nil : MarkupBlock(.blockQuote, children: content, range: range)
            }
        }
    }

    func inlines(_ node: OpaquePointer) -> [MarkupInline] {
        children(node).map { inline($0) }
    }

    func inline(_ node: OpaquePointer) -> MarkupInline {
        let range = self.range(node)
        switch cmark_node_get_type(node) {
        case CMARK_NODE_TEXT: return MarkupInline(.text(literal(node)), range: range)
        case CMARK_NODE_SOFTBREAK: return MarkupInline(.softBreak, range: range)
        case CMARK_NODE_LINEBREAK: return MarkupInline(.lineBreak, range: range)
        case CMARK_NODE_CODE: return MarkupInline(.code(literal(node)), range: range)
        case CMARK_NODE_HTML_INLINE: return MarkupInline(.html(literal(node)), range: range)
        case CMARK_NODE_EMPH: return MarkupInline(.emphasis, children: inlines(node), range: range)
        case CMARK_NODE_STRONG: return MarkupInline(.strong, children: inlines(node), range: range)
        case CMARK_NODE_LINK:
            let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
            let title = cmark_node_get_title(node).map { String(cString: $0) }
            return MarkupInline(.link(destination: url, title: title?.isEmpty == true ? nil : title), children: inlines(node), range: range)
        case CMARK_NODE_IMAGE:
            let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
            let title = cmark_node_get_title(node).map { String(cString: $0) }
            return MarkupInline(.image(source: url, title: title?.isEmpty == true ? nil : title), children: inlines(node), range: range)
        default:
            if typeString(node) == "strikethrough" {
                return MarkupInline(.strikethrough, children: inlines(node), range: range)
            }
            // Footnote references and unknown custom inlines: their text.
            return MarkupInline(.text(literal(node)), range: range)
        }
    }
}
