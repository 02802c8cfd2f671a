import QuireMarkup
import QuireModel

/// HTML read by gumbo and written by `HTMLExporter`, through the configured plugins' HTML
/// conversions: the document format the `html` plugin contributes.
public struct HTMLFormat: DocumentFormat {
    /// The options in force.
    public let options: HTMLOptions

    /// A format.
    public init(options: HTMLOptions = HTMLOptions()) { self.options = options }

    /// "html".
    public var formatName: String { "html" }
    /// html, htm, xhtml.
    public var fileExtensions: [String] { ["html", "htm", "xhtml"] }

    public func read(_ source: String, registry: NodeRegistry, contributions: [PluginContribution]) throws(MarkupError) -> EditorState {
        try HTMLConverter(registry: registry, contributions: contributions, options: options).state(fromHTML: source)
    }

    /// A whole document titled with the first heading's text ("Document" without one).
    public func write(_ state: EditorState, contributions: [PluginContribution]) throws(MarkupError) -> String {
        try writeReportingLosses(state, contributions: contributions).text
    }

    /// The document and what HTML cannot represent of it (`HTMLExporter.htmlReportingLosses(_:)`).
    public func writeReportingLosses(_ state: EditorState, contributions: [PluginContribution]) throws(MarkupError) -> (text: String, losses: [MarkupLoss]) {
        let converter = HTMLConverter(registry: state.registry, contributions: contributions, options: options)
        let (page, losses) = try converter.exporter.documentReportingLosses(state, title: HTMLConverter.title(of: state) ?? "Document")
        return (page, losses)
    }
}

/// The `html` plugin's options in `config.yaml`.
public struct HTMLOptions: PluginOptions, Hashable {
    /// The deepest element nesting a document may have (gumbo's time grows with its square).
    public var maximumNesting: Int
    /// How deeply imported blocks may nest; deeper ones join the block around them.
    public var maximumDepth: Int

    /// Options.
    public init(maximumNesting: Int = NestingGuard.defaultLimit, maximumDepth: Int = 48) {
        self.maximumNesting = maximumNesting
        self.maximumDepth = maximumDepth
    }

    public init(from reader: inout OptionsReader) throws(OptionError) {
        maximumNesting = try reader.int("maximumNesting", default: NestingGuard.defaultLimit, in: 16...100_000)
        maximumDepth = try reader.int("maximumDepth", default: 48, in: 4...200)
    }
}

/// HTML ↔ editor state in one place, for callers that have the registry and a configuration's
/// contributions at hand (the conversions of the plugins they configure).
public struct HTMLConverter: Sendable {
    /// The registry documents are built with.
    public let registry: NodeRegistry
    /// The conversions in force.
    public let conversions: HTMLConversions
    /// The limits.
    public let options: HTMLOptions

    /// A converter for `registry` with the conversions among `contributions`.
    public init(registry: NodeRegistry, contributions: [PluginContribution], options: HTMLOptions = HTMLOptions()) {
        self.init(registry: registry, conversions: HTMLConversions(contributions: contributions), options: options)
    }

    /// A converter with explicit conversions.
    public init(registry: NodeRegistry, conversions: HTMLConversions, options: HTMLOptions = HTMLOptions()) {
        self.registry = registry
        self.conversions = conversions
        self.options = options
    }

    /// The importer.
    public var importer: HTMLImporter { HTMLImporter(conversions: conversions, maximumDepth: options.maximumDepth) }
    /// The exporter.
    public var exporter: HTMLExporter { HTMLExporter(conversions: conversions) }

    /// Parses HTML with gumbo, refusing nesting past `options.maximumNesting`.
    ///
    /// - Complexity: O(n · d) for d ≤ the nesting limit.
    public func parse(_ html: String) throws(MarkupError) -> HTMLTree {
        try Gumbo.parse(html, maximumNesting: options.maximumNesting)
    }

    /// HTML as a new editor state.
    ///
    /// - Complexity: O(n) in the input size (after parsing).
    public func state(fromHTML html: String) throws(MarkupError) -> EditorState {
        try importer.makeState(try parse(html), registry: registry)
    }

    /// The HTML content of a state (a fragment, blocks one per line).
    public func html(from state: EditorState) throws(MarkupError) -> String {
        try exporter.html(state)
    }

    /// The text of the first heading, or of the first block when there is none.
    static func title(of state: EditorState) -> String? {
        let blocks = state.textBlocks()
        let heading = blocks.first { state[$0]?.type == "heading" } ?? blocks.first
        let text = heading.map { FlatString.render($0, in: state).trimmingHTMLWhitespace() } ?? ""
        return text.isEmpty ? nil : text
    }
}

/// Images: `img` ↔ the `image` node (`src`, `alt` → `altText`, `width`, `height`, `title`). The
/// image plugin declares the node; its HTML conversion lives here, next to the reader, until
/// the image plugin takes it over.
public struct ImageHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { "image" }
    public var importedTags: [String] { ["img"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        guard let source = element.urlAttribute("src") else { return nil }
        var fields: JSONObject = ["src": .string(source), "altText": .string(element.attribute("alt") ?? "")]
        let style = element.style
        for name in ["width", "height"] {
            let value = element.attribute(name) ?? style[name].map { $0.hasSuffix("px") ? String($0.dropLast(2)) : $0 }
            if let value, let pixels = Int(value.trimmingHTMLWhitespace()), pixels > 0 { fields[name] = .number(.integer(pixels)) }
        }
        if let title = element.attribute("title") { fields["title"] = .string(title) }
        return .leaf(nodeType, fields: fields)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        var attributes = [HTMLAttribute("src", node.fields["src"]?.stringValue ?? ""), HTMLAttribute("alt", node.fields["altText"]?.stringValue ?? "")]
        for name in ["width", "height"] {
            if let pixels = node.fields[name]?.intValue, pixels > 0 { attributes.append(HTMLAttribute(name, String(pixels))) }
        }
        if let title = node.fields["title"]?.stringValue { attributes.append(HTMLAttribute("title", title)) }
        writer.voidElement("img", attributes: attributes)
    }
}

extension PluginDescriptor {
    /// The HTML plugin, selected as `html` (options: `maximumNesting`, `maximumDepth`):
    /// contributes `HTMLFormat` and the image's HTML conversion (no node types).
    public static let html = PluginDescriptor(
        name: "html", summary: "HTML through gumbo (HTML5 parsing), with each plugin's HTML conversions", options: HTMLOptions.self
    ) { options in
        ([], [.documentFormat(HTMLFormat(options: options)), .htmlConversion(ImageHTMLConversion())])
    }
}
