import QuireCode
import QuireEditor
import QuireHeading
import QuireHorizontalRule
import QuireHTML
import QuireImage
import QuireLink
import QuireList
import QuireMarkdown
import QuireMarkup
import QuireModel
import QuirePlainText
import QuireQuote
import QuireStyle
import QuireTable

/// Every plugin that ships with Quire, by the name a configuration selects it with.
///
/// Swift has no runtime discovery, so this list is the registration: a new folder in `Plugins/`
/// adds its descriptor here (a test checks that none is missing).
public enum BuiltInPlugins {
    /// The built-in descriptors in their default priority order.
    public static let all: [PluginDescriptor] = [
        .heading, .quote, .list, .code, .link, .table, .horizontalRule, .image, .markdown, .plainText, .html,
    ]

    /// A catalog of the built-ins; an app registers its own plugins into a copy of it. It reads
    /// what the engine's modules read: editor extensions (QuireEditor), theme entries
    /// (QuireStyle), markup mappings, parsers and serializers, HTML conversions and document
    /// formats (QuireMarkup).
    public static var catalog: PluginCatalog { PluginCatalog(all, reading: engineContributionKinds) }

    /// A configuration file that selects every built-in with its defaults: what `quire` uses
    /// without a config file, and what tests and benchmarks load to get all node types.
    public static var allPluginsYAML: String {
        "version: 1\nplugins:\n" + all.map { "  - \($0.name)\n" }.joined()
    }

    /// The contribution kinds the engine's modules read.
    public static let engineContributionKinds: Set<ContributionKind> = [
        ContributionKey.editorExtension.kind, ContributionKey.theme.kind,
        ContributionKey.markupMapping.kind, ContributionKey.markupParser.kind, ContributionKey.markupSerializer.kind,
        ContributionKey.htmlConversion.kind, ContributionKey.documentFormat.kind,
    ]

    /// The plugin folders under `Plugins/` that hold node or markup plugins, for the completeness
    /// check. Each entry names the folder and the descriptor names it provides.
    public static let folders: [String: [String]] = [
        "Heading": ["heading"],
        "Quote": ["quote"],
        "List": ["list"],
        "Code": ["code"],
        "Link": ["link"],
        "Table": ["table"],
        "HorizontalRule": ["horizontalrule"],
        "Image": ["image"],
        "Markdown": ["markdown"],
        "PlainText": ["plaintext"],
        "HTML": ["html"],
    ]
}
