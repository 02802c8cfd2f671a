import QuireCalloutExample
import QuireCatalog
import QuireConfig
import QuireHTML
import QuireMarkup
import QuireModel
import Testing

/// The callout declares its own HTML conversion next to its node type; configuring the plugin
/// (with `html`) is all an app does for callouts to be pasted, copied and converted.
@Suite struct CalloutHTMLTests {
    static func converter() throws -> HTMLConverter {
        var catalog = BuiltInPlugins.catalog
        catalog.register(.callout)
        let configuration = try Configuration.load(yaml: "version: 1\nplugins:\n  - html\n  - callout:\n      defaultEmoji: \"📌\"\n", catalog: catalog)
        #expect(configuration.warnings.isEmpty, "\(configuration.warnings)")
        return HTMLConverter(registry: try configuration.makeRegistry(), contributions: configuration.plugins.contributions)
    }

    @Test func aCalloutAsideImportsAsACallout() throws {
        let converter = try Self.converter()
        let state = try converter.state(fromHTML: #"<aside class="callout" data-emoji="⚠️">Mind <b>the</b> gap</aside><aside>plain aside</aside><div data-callout>default</div>"#)
        let blocks = Array(state.children(of: .root))
        #expect(blocks.map(\.type.rawValue) == ["callout", "paragraph", "callout"])
        #expect(blocks[0].fields["emoji"] == .string("⚠️"))
        #expect(blocks[2].fields["emoji"] == .string("📌"))
        #expect(FlatString.render(state) == "⚠️ Mind the gap\nplain aside\n📌 default")
    }

    @Test func aCalloutIsWrittenAsAnAsideAndComesBack() throws {
        let converter = try Self.converter()
        let state = try converter.state(fromHTML: #"<p>before</p><aside class="callout" data-emoji="🔥">hot <i>stuff</i></aside>"#)
        let html = try converter.html(from: state)
        #expect(html == "<p>before</p>\n<aside class=\"callout\" data-emoji=\"🔥\">hot <em>stuff</em></aside>\n")
        let again = try converter.state(fromHTML: html)
        #expect(LexicalJSON.exportString(again) == LexicalJSON.exportString(state))
    }
}
