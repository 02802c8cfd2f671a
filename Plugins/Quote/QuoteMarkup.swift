import QuireMarkup
import QuireModel

extension QuoteNodePlugin {
    /// The quote plugin's markup mapping: a block quote is a `quote`. Lexical's quote holds inline
    /// content, so the importer makes one quote per paragraph of a block quote, and the exporter
    /// joins consecutive quotes back into one block quote.
    public static let markupMapping = FixedIntentMapping(type, intent: .block(.blockQuote))
}
