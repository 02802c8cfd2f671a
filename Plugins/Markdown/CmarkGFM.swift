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

    /// cmark-gfm keeps the inline parser's special characters in a process-wide table that each
    /// parse switches its extensions' characters on in while it reads inlines, and off after
    /// (strikethrough's `~`, autolink's `:` and `w`), so two parsers running at once corrupt each
    /// other's results; its arena is process-wide too. Every parse holds this.
    private static let parseLock = NSLock()

    /// The parse options: footnotes (`[^label]`) on, as GitHub reads them.
    public static let parseOptions: Int32 = CMARK_OPT_FOOTNOTES

    /// Parses `bytes` (UTF-8) and passes the document's root node to `body`, under `parseLock`.
    ///
    /// With `inArena`, cmark-gfm allocates the parser and the tree from its arena, returned whole
    /// when `body` ends: for a large source that `body` only reads (the converters), where
    /// allocating and freeing each node was a third of the parse and of the conversion after it.
    /// Nothing `body` is handed may be freed with `free` then (a renderer's output is), and the
    /// tree's memory stays until the end even where `body` frees nodes.
    static func withDocument<T>(
        _ bytes: UnsafeBufferPointer<UInt8>, options: Int32 = parseOptions, inArena: Bool = false,
        _ body: (OpaquePointer, CmarkNode) throws(MarkupError) -> T
    ) throws(MarkupError) -> T {
        parseLock.lock()
        defer { parseLock.unlock() }
        if inArena { return try parseInArena(bytes, options: options, body) }
        return try parseLocked(bytes, options: options, body)
    }

    /// The source length from which the converters parse in cmark-gfm's arena (``withDocument(_:options:inArena:_:)``):
    /// below it the arena's first block (4 MB) would cost more than it saves.
    static let arenaSourceLength = 1 << 16

    /// Parses `source` for a converter, which only reads the tree, and passes its bytes and root
    /// node to `body`: in the arena from ``arenaSourceLength`` bytes on.
    static func withDocumentToConvert<T>(_ source: String, _ body: (UnsafeBufferPointer<UInt8>, CmarkNode) throws(MarkupError) -> T) throws(MarkupError) -> T {
        try withUTF8(of: source) { (bytes) throws(MarkupError) -> T in
            try withDocument(bytes, inArena: bytes.count >= arenaSourceLength) { (_, root) throws(MarkupError) -> T in try body(bytes, root) }
        }
    }

    /// A parse in cmark-gfm's arena, under `parseLock` (the arena is one per process).
    private static func parseInArena<T>(_ bytes: UnsafeBufferPointer<UInt8>, options: Int32, _ body: (OpaquePointer, CmarkNode) throws(MarkupError) -> T) throws(MarkupError) -> T {
        precondition(registered)
        // The parser, the tree and everything the body frees are the arena's, returned at once:
        // nothing is freed on its own.
        defer { cmark_arena_reset() }
        guard let parser = cmark_parser_new_with_mem(options, cmark_get_arena_mem_allocator()) else {
            throw .parserFailure("cmark_parser_new_with_mem returned NULL")
        }
        for name in extensionNames {
            guard let syntax = cmark_find_syntax_extension(name) else { throw .parserFailure("cmark-gfm has no \"\(name)\" extension") }
            cmark_parser_attach_syntax_extension(parser, syntax)
        }
        bytes.withMemoryRebound(to: CChar.self) { chars in
            cmark_parser_feed(parser, chars.baseAddress, chars.count)
        }
        guard let root = cmark_parser_finish(parser) else { throw .parserFailure("cmark_parser_finish returned NULL") }
        return try body(parser, root)
    }

    /// A parser per set of options, kept between documents and used under `parseLock` only.
    /// cmark_parser_finish leaves a parser as new, its extensions still attached, and making one
    /// (five extensions attached, then freed) costs more than parsing a short paragraph, which the
    /// markdown writer's read-back does for many blocks of a document.
    nonisolated(unsafe) private static var parsers: [Int32: OpaquePointer] = [:]

    private static func parseLocked<T>(_ bytes: UnsafeBufferPointer<UInt8>, options: Int32, _ body: (OpaquePointer, CmarkNode) throws(MarkupError) -> T) throws(MarkupError) -> T {
        let parser: OpaquePointer
        if let kept = parsers[options] {
            parser = kept
        } else {
            parser = try makeParser(options: options)
            parsers[options] = parser
        }
        bytes.withMemoryRebound(to: CChar.self) { chars in
            cmark_parser_feed(parser, chars.baseAddress, chars.count)
        }
        guard let root = cmark_parser_finish(parser) else {
            // Not left as new: the next document gets a parser of its own.
            parsers[options] = nil
            cmark_parser_free(parser)
            throw .parserFailure("cmark_parser_finish returned NULL")
        }
        defer { cmark_node_free(root) }
        return try body(parser, root)
    }

    /// cmark-gfm's HTML for `markdown`, with the GFM extensions, footnotes and raw HTML kept
    /// (`--unsafe`).
    ///
    /// - Complexity: O(n) in the input size.
    public static func html(_ markdown: String) throws(MarkupError) -> String {
        try render(markdown) { root, extensions in cmark_render_html(root, CMARK_OPT_UNSAFE | parseOptions, extensions) }
    }

    /// cmark-gfm's plain text for `markdown` (`cmark-gfm -t plaintext`): the text a reader sees,
    /// without markup, raw HTML or link destinations. The real-document tests compare its words.
    ///
    /// - Complexity: O(n) in the input size.
    public static func plainText(_ markdown: String) throws(MarkupError) -> String {
        try render(markdown) { root, _ in cmark_render_plaintext(root, parseOptions, 0) }
    }

    private static func render(
        _ markdown: String, _ renderer: (CmarkNode, UnsafeMutablePointer<cmark_llist>?) -> UnsafeMutablePointer<CChar>?
    ) throws(MarkupError) -> String {
        try withUTF8(of: markdown) { (bytes) throws(MarkupError) -> String in
            try withDocument(bytes) { (parser, root) throws(MarkupError) -> String in
                guard let output = renderer(root, cmark_parser_get_syntax_extensions(parser)) else {
                    throw .parserFailure("cmark-gfm's renderer returned NULL")
                }
                defer { free(output) }
                return String(cString: output)
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
}
