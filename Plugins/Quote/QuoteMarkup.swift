import QuireMarkup
import QuireModel

/// The quote plugin's markup mapping: a block quote is a `quote`. Lexical's quote holds inline
/// content, so the importer makes one quote per paragraph of a block quote, and the exporter joins
/// consecutive quotes back into one block quote.
public struct QuoteMarkupMapping: MarkupNodeMapping {
    /// A mapping.
    public init() {}

    /// `quote`.
    public var nodeType: NodeType { QuoteNodePlugin.type }

    /// A block quote intent becomes a quote node.
    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        intent == .block(.blockQuote) ? [:] : nil
    }

    /// Always a block quote.
    public func intent(of node: Node) -> MarkupIntent { .block(.blockQuote) }
}
