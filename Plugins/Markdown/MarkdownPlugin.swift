import QuireMarkup
import QuireModel

/// Markdown (CommonMark 0.31 + GFM) read by Debian's cmark-gfm and written by `MarkdownWriter`:
/// the markup format the `markdown` plugin contributes.
public struct MarkdownFormat: MarkupParser, MarkupSerializer {
    /// How deep block containers (quotes, lists, items, footnotes) and inline spans nest before
    /// deeper ones give their content to the level above: what keeps hostile input (100,000
    /// nested quotes) linear and every later stage's recursion shallow, while the JSON of the
    /// deepest document stays within the JSON reader's nesting limit.
    public static let defaultMaxDepth = 100

    /// The nesting bound in force.
    public let maxDepth: Int

    /// A format.
    public init(maxDepth: Int = MarkdownFormat.defaultMaxDepth) { self.maxDepth = max(1, maxDepth) }

    /// "markdown".
    public var formatName: String { "markdown" }
    /// md, markdown, mdown, mkd.
    public var fileExtensions: [String] { ["md", "markdown", "mdown", "mkd"] }

    /// Parses markdown text with the table, strikethrough, autolink, tasklist and tagfilter
    /// extensions.
    ///
    /// - Complexity: O(n) in the input size.
    public func parse(_ source: String) throws(MarkupError) -> MarkupDocument {
        try CmarkGFM.withDocumentToConvert(source) { (bytes, root) -> MarkupDocument in
            var converter = CmarkConverter(bytes: bytes, maxDepth: maxDepth)
            return converter.document(root)
        }
    }

    /// Parses markdown text as ``parse(_:)`` does, handing each top-level block to `eachBlock`
    /// as soon as it is converted. Footnote definitions, which cmark-gfm moves to the document's
    /// end, are handed over last, arranged as ``parse(_:)`` arranges them (which of them are
    /// kept, and in what order, depends on the references before them).
    ///
    /// cmark-gfm's tree of a source under 64 KiB is freed block by block as it is converted; a
    /// larger one's comes from cmark-gfm's arena and is returned whole at the end, which is a
    /// third faster and holds the tree's memory (about 40 bytes per byte of source) until then.
    ///
    /// - Complexity: O(n) in the input size.
    public func parse(_ source: String, eachBlock: (MarkupBlock) throws(MarkupError) -> Void) throws(MarkupError) {
        try CmarkGFM.withDocumentToConvert(source) { (bytes, root) throws(MarkupError) in
            var converter = CmarkConverter(bytes: bytes, maxDepth: maxDepth)
            try converter.convertBlocks(root, eachBlock: eachBlock)
        }
    }

    /// Parses UTF-8 bytes, refusing invalid UTF-8 with its line, column and byte offset.
    public func parse(bytes: [UInt8]) throws(MarkupError) -> MarkupDocument {
        try parse(SourcePosition.text(validating: bytes))
    }

    /// Writes `document` as markdown.
    public func serialize(_ document: MarkupDocument) throws(MarkupError) -> String {
        MarkdownWriter().write(document)
    }

    /// Writes `document` as markdown, with the emphasis the writer had to leave out
    /// (``MarkdownWriter/writeReportingLosses(_:)``).
    public func serializeReportingLosses(_ document: MarkupDocument) throws(MarkupError) -> (text: String, losses: [MarkupLoss]) {
        MarkdownWriter().writeReportingLosses(document)
    }
}

/// Markdown ↔ editor state in one place, for callers that have the mappings at hand.
public struct MarkdownConverter: Sendable {
    /// The node mappings in force.
    public let mappings: MarkupMappings
    /// The registry documents are built with.
    public let registry: NodeRegistry

    /// A converter for `registry` with the mappings among `contributions` (a configuration's).
    public init(registry: NodeRegistry, contributions: [PluginContribution]) {
        self.registry = registry
        self.mappings = MarkupMappings(contributions: contributions)
    }

    /// A converter with explicit mappings.
    public init(registry: NodeRegistry, mappings: MarkupMappings) {
        self.registry = registry
        self.mappings = mappings
    }

    /// Markdown text as an editor state.
    ///
    /// - Complexity: O(n) in the input size.
    public func state(fromMarkdown markdown: String) throws(MarkupError) -> EditorState {
        try MarkupImporter(mappings: mappings).makeState(parsing: markdown, with: MarkdownFormat(), registry: registry)
    }

    /// An editor state as markdown text.
    ///
    /// - Complexity: O(n) in the number of nodes plus the text length.
    public func markdown(from state: EditorState) throws(MarkupError) -> String {
        MarkdownWriter().write(try MarkupExporter(mappings: mappings).makeDocument(state))
    }
}

extension PluginDescriptor {
    /// The markdown plugin, selected as `markdown`: contributes `MarkdownFormat` and the node
    /// types that keep what only markdown has: raw HTML (`rawhtml`, `rawhtml-inline`) and
    /// footnotes (`footnote`, `footnote-reference`), with their mappings.
    public static let markdown = PluginDescriptor(
        name: "markdown", summary: "Markdown (CommonMark + GFM) through cmark-gfm", options: NoOptions.self
    ) { _ in
        ([RawHTMLBlockNodePlugin(), RawHTMLInlineNodePlugin(), FootnoteNodePlugin(), FootnoteReferenceNodePlugin()],
         [.markupParser(MarkdownFormat()), .markupSerializer(MarkdownFormat())] + MarkdownNodeMappings.all.map(PluginContribution.markupMapping))
    }
}
