import QuireModel

/// How the content of an element that became a node is read.
public enum HTMLContentRule: Hashable, Sendable {
    /// The node's child rule decides: inline content goes in when it takes inlines (block
    /// children then flow into that content, each starting a new line), blocks go in when it
    /// takes blocks.
    case children
    /// Inline content. Blocks of the `nesting` types go in as children (a list inside a list
    /// item); other blocks flow into the content, each starting a new line, unless
    /// `splitsForBlocks`: then any block other than a paragraph ends the node, goes after it, and
    /// content after the block continues in a copy of the node (a list inside a block quote).
    case inlines(nesting: Set<NodeType> = [], splitsForBlocks: Bool = false)
    /// Preformatted text, as in `pre`: whitespace is kept, line feeds and `br` become line
    /// breaks, and inline markup is read for its text only (a code block).
    case literal
}

/// What an element becomes on import: Lexical's `DOMConversionOutput`.
public enum HTMLImport: Sendable {
    /// A node of `type` with `fields` (over its defaults); the element's content is read into it
    /// by `content`.
    case node(NodeType, fields: JSONObject = [:], content: HTMLContentRule = .children)
    /// A leaf node (an image, a horizontal rule); the element's content is not read.
    case leaf(NodeType, fields: JSONObject = [:])
    /// No node: the element's content is read with the formats `add` turned on and `remove`
    /// turned off (`b`, `em`, a styled `span`).
    case format(add: TextFormat, remove: TextFormat = [])
    /// Nothing at all: neither the element nor its content.
    case skip
}

/// What an import conversion knows besides the element.
public struct HTMLImportContext: Sendable {
    /// The node types the document is built with.
    public let registry: NodeRegistry
    /// Whether the element is inside preformatted content (`pre`, `white-space: pre`).
    public let isPreformatted: Bool

    /// A context.
    public init(registry: NodeRegistry, isPreformatted: Bool = false) {
        self.registry = registry
        self.isPreformatted = isPreformatted
    }
}

/// How one node type reads itself from HTML elements and writes itself back: a node plugin's
/// `importDOM` and `exportDOM`, as Lexical has them. A plugin's descriptor contributes its
/// conversions (`PluginContribution.htmlConversion(_:)`), so an app's plugin adds its own next
/// to the built-ins'; `HTMLConversions` collects them from a configuration.
///
/// The importer knows paragraphs, text, text formats (`b`, `strong`, `i`, `em`, `u`, `s`,
/// `del`, `code`, `sub`, `sup`, `mark`, inline `style`), line breaks and whitespace itself, and
/// reads the text of every element no conversion takes.
public protocol HTMLConversion: Sendable {
    /// The node type the conversion creates and writes.
    var nodeType: NodeType { get }
    /// The lower-case tag names of the elements it may import.
    var importedTags: [String] { get }
    /// What `element` becomes, or nil when this conversion does not take it (the next one, or
    /// the importer's own rule, then does).
    func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport?
    /// Brings a node this conversion created into shape once its content is in (Lexical's
    /// `after`): a list moves nested lists into items of their own and numbers its items.
    ///
    /// It runs once the whole document has been built, for each node in the order the nodes
    /// were closed (a node's descendants before the node), so it changes only the node's own
    /// subtree: its parent and siblings are those of the finished document (a paste's top-level
    /// blocks are still detached then).
    func finishImport(of node: NodeKey, in state: inout EditorState) throws(ModelError)
    /// Writes `node` (of `nodeType`): its element, and its children through
    /// `writer.writeChildren(of:)`.
    func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError)
}

extension HTMLConversion {
    /// Nothing to adjust.
    public func finishImport(of node: NodeKey, in state: inout EditorState) throws(ModelError) {}
}

/// The HTML conversions in force: the configuration's, in priority order, then the importer's
/// own paragraph conversion.
public struct HTMLConversions: Sendable {
    /// The conversions in priority order.
    public let conversions: [any HTMLConversion]
    private let byTag: [String: [any HTMLConversion]]
    private let byType: [NodeType: any HTMLConversion]

    /// The conversions among `contributions` (what configured plugins contribute), in order.
    public init(contributions: [PluginContribution]) {
        self.init(contributions.values(for: .htmlConversion))
    }

    /// Explicit conversions; the paragraph conversion is added after them.
    public init(_ conversions: [any HTMLConversion]) {
        let all = conversions + [ParagraphHTMLConversion()]
        self.conversions = all
        var byTag: [String: [any HTMLConversion]] = [:]
        var byType: [NodeType: any HTMLConversion] = [:]
        for conversion in all {
            for tag in conversion.importedTags { byTag[tag, default: []].append(conversion) }
            if byType[conversion.nodeType] == nil { byType[conversion.nodeType] = conversion }
        }
        self.byTag = byTag
        self.byType = byType
    }

    /// The conversion that writes nodes of `type`.
    public func conversion(for type: NodeType) -> (any HTMLConversion)? { byType[type] }

    /// What the first conversion that takes `element` (and whose node type is registered) makes
    /// of it, with that conversion.
    ///
    /// - Complexity: O(conversions for the element's tag).
    public func importing(_ element: HTMLElement, context: HTMLImportContext) -> (HTMLImport, any HTMLConversion)? {
        guard let candidates = byTag[element.tag] else { return nil }
        for conversion in candidates where context.registry.contains(conversion.nodeType) {
            if let result = conversion.importElement(element, context: context) { return (result, conversion) }
        }
        return nil
    }
}

/// `p` ↔ `paragraph`.
struct ParagraphHTMLConversion: HTMLConversion {
    var nodeType: NodeType { .paragraph }
    var importedTags: [String] { ["p"] }

    func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        .node(.paragraph)
    }

    func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("p", for: node)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}

extension ContributionKey where Value == any HTMLConversion {
    /// A node type's HTML conversion (`markup.html`), read by `HTMLConversions`.
    public static var htmlConversion: ContributionKey<any HTMLConversion> { ContributionKey("markup.html") }
}

extension PluginContribution {
    /// A node type's HTML conversion.
    public static func htmlConversion(_ conversion: any HTMLConversion) -> PluginContribution {
        PluginContribution(.htmlConversion, conversion)
    }
}

/// A markup language read into editor states and written from them directly, through node
/// conversions rather than through `MarkupDocument` intents, so that everything a node carries
/// survives (HTML: underline, spans, link targets, image sizes, an app's own nodes). A plugin
/// contributes one (`PluginContribution.documentFormat(_:)`); `DocumentFormats` finds it by
/// name or file extension.
public protocol DocumentFormat: Sendable {
    /// The format's name ("html").
    var formatName: String { get }
    /// The file extensions it reads, without the dot ("html", "htm").
    var fileExtensions: [String] { get }
    /// Reads `source` into a new state built with `registry`, with the conversions among
    /// `contributions`.
    func read(_ source: String, registry: NodeRegistry, contributions: [PluginContribution]) throws(MarkupError) -> EditorState
    /// Writes `state` as a whole document with the conversions among `contributions`.
    func write(_ state: EditorState, contributions: [PluginContribution]) throws(MarkupError) -> String
    /// Writes `state`, and says what of it the format cannot represent (default: nothing).
    func writeReportingLosses(_ state: EditorState, contributions: [PluginContribution]) throws(MarkupError) -> (text: String, losses: [MarkupLoss])
}

extension DocumentFormat {
    public func writeReportingLosses(_ state: EditorState, contributions: [PluginContribution]) throws(MarkupError) -> (text: String, losses: [MarkupLoss]) {
        (try write(state, contributions: contributions), [])
    }
}

/// The document formats among a configuration's contributions.
public struct DocumentFormats: Sendable {
    /// The formats, in priority order.
    public let formats: [any DocumentFormat]

    /// The formats among `contributions`.
    public init(contributions: [PluginContribution]) {
        formats = contributions.values(for: .documentFormat)
    }

    /// The format for a file extension ("htm") or a format name ("html"), or nil.
    public func format(for nameOrExtension: String) -> (any DocumentFormat)? {
        let key = nameOrExtension.lowercased()
        return formats.first { $0.formatName == key || $0.fileExtensions.contains(key) }
    }

    /// Every name and extension the formats answer to.
    public var names: [String] { formats.flatMap { [$0.formatName] + $0.fileExtensions } }
}

extension ContributionKey where Value == any DocumentFormat {
    /// A document format (`markup.document`), read by `DocumentFormats`.
    public static var documentFormat: ContributionKey<any DocumentFormat> { ContributionKey("markup.document") }
}

extension PluginContribution {
    /// A document format.
    public static func documentFormat(_ format: any DocumentFormat) -> PluginContribution {
        PluginContribution(.documentFormat, format)
    }
}
