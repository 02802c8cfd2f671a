import QuireModel

/// A block or an inline intent.
public enum MarkupIntent: Hashable, Sendable {
    case block(BlockIntent)
    case inline(InlineIntent)
}

/// What the importer knows about where an intent is being imported.
public struct MarkupImportContext: Hashable, Sendable {
    /// For a list item: its ordinal (the list's start plus its index); 1 elsewhere.
    public var ordinal: Int
    /// For a table cell: whether it is in the header row.
    public var isHeader: Bool
    /// For an image: the plain text of its description (the alt text).
    public var plainText: String

    /// A context.
    public init(ordinal: Int = 1, isHeader: Bool = false, plainText: String = "") {
        self.ordinal = ordinal
        self.isHeader = isHeader
        self.plainText = plainText
    }
}

/// How one node type maps to and from markup intents: a node plugin's markup import and export
/// rule. A plugin's descriptor contributes mappings (`PluginContribution.markupMapping(_:)`); the
/// markup importer and exporter look them up by type among a configuration's contributions.
///
/// Mappings speak in intents, not in markdown syntax, so one mapping serves every markup language
/// whose parser produces `MarkupDocument`s.
public protocol MarkupNodeMapping: Sendable {
    /// The node type this mapping creates and reads.
    var nodeType: NodeType { get }
    /// The fields of a node standing for `intent`, or nil when this mapping does not take it.
    func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject?
    /// The intent `node` (of `nodeType`) stands for.
    func intent(of node: Node) -> MarkupIntent
}

/// A node type that stands for one intent and has no fields of its own to map (a block quote, a
/// thematic break): the intent imports as a node with default fields, and every such node exports
/// as the intent.
public struct FixedIntentMapping: MarkupNodeMapping {
    public let nodeType: NodeType
    /// The intent the node type stands for.
    public let intent: MarkupIntent

    public init(_ nodeType: NodeType, intent: MarkupIntent) {
        self.nodeType = nodeType
        self.intent = intent
    }

    /// No fields for `intent`, nil for any other.
    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        intent == self.intent ? JSONObject() : nil
    }

    /// Always `intent`.
    public func intent(of node: Node) -> MarkupIntent { intent }
}

/// The mappings in force, in priority order: the first mapping that takes an intent (and whose
/// node type is registered) wins.
public struct MarkupMappings: Sendable {
    /// The mappings in priority order.
    public let mappings: [any MarkupNodeMapping]
    private let byType: [NodeType: any MarkupNodeMapping]

    /// The mappings among `contributions` (what configured plugins contribute), in order.
    public init(contributions: [PluginContribution]) {
        self.init(contributions.values(for: .markupMapping))
    }

    /// Explicit mappings.
    public init(_ mappings: [any MarkupNodeMapping]) {
        self.mappings = mappings
        var byType: [NodeType: any MarkupNodeMapping] = [:]
        for mapping in mappings where byType[mapping.nodeType] == nil { byType[mapping.nodeType] = mapping }
        self.byType = byType
    }

    /// The mapping for nodes of `type`.
    public func mapping(for type: NodeType) -> (any MarkupNodeMapping)? { byType[type] }

    /// The first mapping (with a registered type) that takes `intent`, and the fields it gives.
    ///
    /// - Complexity: O(m) for m mappings.
    public func importing(_ intent: MarkupIntent, context: MarkupImportContext = MarkupImportContext(), registry: NodeRegistry) -> (type: NodeType, fields: JSONObject)? {
        for mapping in mappings where registry.contains(mapping.nodeType) {
            if let fields = mapping.importFields(for: intent, context: context) { return (mapping.nodeType, fields) }
        }
        return nil
    }
}

/// A markup language's reader: text to a `MarkupDocument`. Parser plugins contribute one
/// (`PluginContribution.markupParser(_:)`); the configuration selects which are available.
public protocol MarkupParser: Sendable {
    /// The format's name ("markdown").
    var formatName: String { get }
    /// The file extensions it reads, without the dot ("md", "markdown").
    var fileExtensions: [String] { get }
    /// Parses `source`.
    func parse(_ source: String) throws(MarkupError) -> MarkupDocument
    /// Parses `source` and hands its top-level blocks to `eachBlock`, in order: the same blocks
    /// as ``parse(_:)``'s document. The default parses the whole document first; a parser that
    /// can make its blocks one at a time implements this, so that a caller importing them
    /// (``MarkupImporter/makeState(parsing:with:registry:)``) never holds them all.
    func parse(_ source: String, eachBlock: (MarkupBlock) throws(MarkupError) -> Void) throws(MarkupError)
}

extension MarkupParser {
    public func parse(_ source: String, eachBlock: (MarkupBlock) throws(MarkupError) -> Void) throws(MarkupError) {
        for block in try parse(source).blocks { try eachBlock(block) }
    }
}

/// A markup language's writer: a `MarkupDocument` to text that its parser reads back as the same
/// document.
public protocol MarkupSerializer: Sendable {
    /// The format's name ("markdown").
    var formatName: String { get }
    /// Writes `document`.
    func serialize(_ document: MarkupDocument) throws(MarkupError) -> String
    /// Writes `document`, with what of it the format could not keep, for a caller that reports
    /// losses (`quire convert` warns about them). The default writes with ``serialize(_:)`` and
    /// reports nothing: a format whose writer can leave something out implements this.
    func serializeReportingLosses(_ document: MarkupDocument) throws(MarkupError) -> (text: String, losses: [MarkupLoss])
}

extension MarkupSerializer {
    public func serializeReportingLosses(_ document: MarkupDocument) throws(MarkupError) -> (text: String, losses: [MarkupLoss]) {
        (try serialize(document), [])
    }
}

/// The markup formats among a configuration's contributions.
public struct MarkupFormats: Sendable {
    /// The parsers, in priority order.
    public let parsers: [any MarkupParser]
    /// The serializers, in priority order.
    public let serializers: [any MarkupSerializer]

    /// The parsers and serializers among `contributions`.
    public init(contributions: [PluginContribution]) {
        parsers = contributions.values(for: .markupParser)
        serializers = contributions.values(for: .markupSerializer)
    }

    /// The parser for a file extension ("md") or a format name ("markdown").
    public func parser(for nameOrExtension: String) throws(MarkupError) -> any MarkupParser {
        let key = nameOrExtension.lowercased()
        for parser in parsers where parser.formatName == key || parser.fileExtensions.contains(key) { return parser }
        throw .unknownFormat(nameOrExtension, available: parsers.flatMap { [$0.formatName] + $0.fileExtensions })
    }

    /// The serializer for a format name, or for a file extension its parser reads.
    public func serializer(for nameOrExtension: String) throws(MarkupError) -> any MarkupSerializer {
        let key = nameOrExtension.lowercased()
        let name = parsers.first { $0.fileExtensions.contains(key) }?.formatName ?? key
        for serializer in serializers where serializer.formatName == name { return serializer }
        throw .unknownFormat(nameOrExtension, available: serializers.map(\.formatName))
    }
}

extension ContributionKey where Value == any MarkupNodeMapping {
    /// A node type's markup mapping (`markup.mapping`), read by `MarkupMappings`.
    public static var markupMapping: ContributionKey<any MarkupNodeMapping> { ContributionKey("markup.mapping") }
}

extension ContributionKey where Value == any MarkupParser {
    /// A markup reader (`markup.parser`), read by `MarkupFormats`.
    public static var markupParser: ContributionKey<any MarkupParser> { ContributionKey("markup.parser") }
}

extension ContributionKey where Value == any MarkupSerializer {
    /// A markup writer (`markup.serializer`), read by `MarkupFormats`.
    public static var markupSerializer: ContributionKey<any MarkupSerializer> { ContributionKey("markup.serializer") }
}

extension PluginContribution {
    /// A node type's markup mapping.
    public static func markupMapping(_ mapping: any MarkupNodeMapping) -> PluginContribution {
        PluginContribution(.markupMapping, mapping)
    }

    /// A markup reader.
    public static func markupParser(_ parser: any MarkupParser) -> PluginContribution {
        PluginContribution(.markupParser, parser)
    }

    /// A markup writer.
    public static func markupSerializer(_ serializer: any MarkupSerializer) -> PluginContribution {
        PluginContribution(.markupSerializer, serializer)
    }
}
