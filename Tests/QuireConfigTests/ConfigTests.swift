import QuireModel
import Testing
@testable import QuireConfig

/// A plugin with every kind of option, standing in for the built-ins and an app's own plugins.
struct WidgetOptions: PluginOptions, Equatable {
    var maxLevel: Int
    var label: String
    var enabled: Bool
    var ratio: Double
    var tags: [String]
    var nestedDepth: Int

    init(from reader: inout OptionsReader) throws(OptionError) {
        maxLevel = try reader.int("maxLevel", default: 6, in: 1...6)
        label = try reader.string("label", default: "none", allowed: ["none", "short", "long"])
        enabled = try reader.bool("enabled", default: true)
        ratio = try reader.double("ratio", default: 0.5)
        tags = try reader.strings("tags", default: [])
        nestedDepth = try reader.section("nested") { (nested: inout OptionsReader) throws(OptionError) -> Int in
            try nested.int("depth", default: 1)
        }
    }
}

struct WidgetNode: NodePlugin {
    var type: NodeType { "widget" }
    var role: NodeRole { .decorator(inline: false) }
}

/// The widget contributes its decoded options, which the tests read back.
let widgetOptions = ContributionKey<WidgetOptions>("test.widgetOptions")
let widget = PluginDescriptor(name: "widget", summary: "test widget", options: WidgetOptions.self) { options in
    ([WidgetNode()], [PluginContribution(widgetOptions, options)])
}
let plain = PluginDescriptor(name: "plain", summary: "no options", nodes: [])
let catalog = PluginCatalog([widget, plain], reading: [widgetOptions.kind])

@Suite struct YAMLLoaderTests {
    @Test func resolvesScalarsByTheCoreSchema() throws {
        let value = try YAMLLoader.load("""
        a: 1
        b: -0x10
        c: 2.5
        d: true
        e: ~
        f: "1"
        g: text
        h: [x, 'y']
        i: {k: v}
        j:
        """)
        guard case .object(let entries) = value.value else { Issue.record("not a map"); return }
        let kinds = entries.map(\.value)
        // isIdentical: an integer must stay an integer, a double a double.
        #expect(kinds[0].isIdentical(to: .number(.integer(1))))
        #expect(kinds[1] == .string("-0x10"))
        #expect(kinds[2].isIdentical(to: .number(.double(2.5))))
        #expect(kinds[3] == .bool(true))
        #expect(kinds[4] == .null)
        #expect(kinds[5] == .string("1"))
        #expect(kinds[6] == .string("text"))
        #expect(kinds[7].flowText == "[x, y]")
        #expect(kinds[8].flowText == "{k: v}")
        #expect(kinds[9] == .null)
        #expect(value.locations.members["g"]?.keyLocation == SourceLocation(line: 7, column: 1))
        #expect(value.locations.members["g"]?.location == SourceLocation(line: 7, column: 4))
    }

    @Test func syntaxErrorsCarryLineAndColumn() {
        #expect(throws: ConfigError.syntax(message: "did not find expected ',' or ']' while parsing a flow sequence", location: SourceLocation(line: 3, column: 1))) {
            try YAMLLoader.load("version: 1\nplugins: [a, b\n")
        }
        do {
            _ = try YAMLLoader.load("a: 1\n  b: 2\n")
            Issue.record("expected a syntax error")
        } catch {
            guard case .syntax(_, let location) = error else { Issue.record("wrong error \(error)"); return }
            #expect(location.line == 2)
        }
    }

    /// Issue 20: 60,000 nested lists crashed in a recursive deinit of the value tree; nesting
    /// stops at the JSON limit (the document's mapping counting as one level) where it went too deep.
    @Test func nestingBeyondTheLimitIsRefusedWhereItStarts() {
        let depth = 60_000
        let yaml = "a: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        #expect(throws: ConfigError.unsupportedYAML(feature: "nesting deeper than \(YAMLLoader.maximumDepth) levels",
                                                     location: SourceLocation(line: 1, column: 3 + YAMLLoader.maximumDepth))) {
            try YAMLLoader.load(yaml)
        }
    }

    @Test func refusesAliasesDuplicatesAndSeveralDocuments() {
        #expect(throws: ConfigError.unsupportedYAML(feature: "anchors (&name)", location: SourceLocation(line: 1, column: 4))) {
            try YAMLLoader.load("a: &x 1\nb: *x\n")
        }
        #expect(throws: ConfigError.duplicateKey("a", location: SourceLocation(line: 2, column: 1))) {
            try YAMLLoader.load("a: 1\na: 2\n")
        }
        #expect(throws: ConfigError.unsupportedYAML(feature: "more than one document", location: SourceLocation(line: 2, column: 1))) {
            try YAMLLoader.load("a: 1\n---\nb: 2\n")
        }
    }
}

@Suite struct ConfigurationTests {
    @Test func decodesPluginsInPriorityOrderWithOptions() throws {
        let configuration = try Configuration.load(yaml: """
        version: 1
        plugins:
          - plain
          - widget:
              maxLevel: 3
              label: short
              tags: [a, b]
              nested: {depth: 4}
        """, catalog: catalog)
        #expect(configuration.plugins.map(\.name) == ["plain", "widget"])
        let options = try #require(configuration.plugins[1].contributions.values(for: widgetOptions).first)
        #expect(options.maxLevel == 3 && options.label == "short" && options.enabled && options.ratio == 0.5)
        #expect(options.tags == ["a", "b"] && options.nestedDepth == 4)
        #expect(configuration.plugins[1].settings.map(\.key) == ["maxLevel", "label", "enabled", "ratio", "tags", "nested"])
        #expect(configuration.warnings.isEmpty)
        let registry = try configuration.makeRegistry()
        #expect(registry.contains("widget"))
    }

    @Test func unknownOptionKeysAreWarnings() throws {
        let configuration = try Configuration.load(yaml: """
        version: 1
        theme: dark
        plugins:
          - widget:
              maxLevl: 3
              nested: {depht: 2}
        """, catalog: catalog)
        #expect(configuration.warnings.map(\.path) == ["theme", "plugins[0].widget.nested.depht", "plugins[0].widget.maxLevl"])
        #expect(configuration.warnings[2].location == SourceLocation(line: 5, column: 7))
    }

    @Test func unsupportedVersion() {
        #expect(throws: ConfigError.unsupportedVersion(found: "2", supported: [1], location: SourceLocation(line: 1, column: 10))) {
            try Configuration.load(yaml: "version: 2\nplugins: []\n", catalog: catalog)
        }
        #expect(throws: ConfigError.unsupportedVersion(found: "one", supported: [1], location: SourceLocation(line: 1, column: 10))) {
            try Configuration.load(yaml: "version: one\n", catalog: catalog)
        }
        #expect(throws: ConfigError.missingVersion) { try Configuration.load(yaml: "plugins: []\n", catalog: catalog) }
    }

    /// Issue 20: `version: "1"` was refused as "version 1; this build reads version 1".
    @Test func aQuotedVersionSaysItIsAString() {
        #expect(throws: ConfigError.unsupportedVersion(found: #""1" (a string, not a number)"#, supported: [1], location: SourceLocation(line: 1, column: 10))) {
            try Configuration.load(yaml: "version: \"1\"\nplugins: []\n", catalog: catalog)
        }
    }

    @Test func unknownPluginListsWhatIsAvailable() {
        let expected = ConfigError.unknownPlugin(name: "tabel", path: "plugins[1]", available: ["widget", "plain"], location: SourceLocation(line: 4, column: 5))
        #expect(throws: expected) {
            try Configuration.load(yaml: "version: 1\nplugins:\n  - plain\n  - tabel\n", catalog: catalog)
        }
        #expect(expected.description.contains("available: widget, plain"))
    }

    @Test func wrongOptionTypeNamesItsPath() {
        let yaml = "version: 1\nplugins:\n  - plain\n  - widget\n  - other\n"
        var extended = catalog
        extended.register(PluginDescriptor(name: "other", summary: "", options: WidgetOptions.self) { _ in ([], []) })
        #expect(throws: Never.self) { try Configuration.load(yaml: yaml, catalog: extended) }
        let bad = "version: 1\nplugins:\n  - plain\n  - widget\n  - other:\n      maxLevel: seven\n"
        #expect(throws: ConfigError.wrongOptionType(OptionError(path: "plugins[2].other.maxLevel", expected: "an integer in 1...6", found: "string seven", location: SourceLocation(line: 6, column: 17)))) {
            try Configuration.load(yaml: bad, catalog: extended)
        }
        let outOfRange = "version: 1\nplugins:\n  - widget: {maxLevel: 9}\n"
        #expect(throws: ConfigError.wrongOptionType(OptionError(path: "plugins[0].widget.maxLevel", expected: "an integer in 1...6", found: "integer 9", location: SourceLocation(line: 3, column: 24)))) {
            try Configuration.load(yaml: outOfRange, catalog: extended)
        }
        let nested = "version: 1\nplugins:\n  - widget: {nested: {depth: [1]}}\n"
        #expect(throws: ConfigError.self) { try Configuration.load(yaml: nested, catalog: extended) }
        let notAMapping = "version: 1\nplugins:\n  - widget: 5\n"
        #expect(throws: ConfigError.wrongOptionType(OptionError(path: "plugins[0].widget", expected: "a mapping of options", found: "integer", location: SourceLocation(line: 3, column: 13)))) {
            try Configuration.load(yaml: notAMapping, catalog: extended)
        }
    }

    @Test func malformedShapes() {
        #expect(throws: ConfigError.wrongType(path: "$", expected: "a mapping with `version` and `plugins`", found: "list", location: SourceLocation(line: 1, column: 1))) {
            try Configuration.load(yaml: "- a\n", catalog: catalog)
        }
        #expect(throws: ConfigError.self) { try Configuration.load(yaml: "version: 1\nplugins: widget\n", catalog: catalog) }
        #expect(throws: ConfigError.self) { try Configuration.load(yaml: "version: 1\nplugins:\n  - {widget: {}, plain: {}}\n", catalog: catalog) }
        #expect(throws: ConfigError.duplicatePlugin(name: "plain", path: "plugins[1]", location: SourceLocation(line: 4, column: 5))) {
            try Configuration.load(yaml: "version: 1\nplugins:\n  - plain\n  - plain\n", catalog: catalog)
        }
        #expect(throws: ConfigError.self) { try Configuration.load(contentsOf: "/nonexistent/config.yaml", catalog: catalog) }
    }

    @Test func appPluginsRegisteredInCodeBeforeTheConfigIsApplied() throws {
        struct CalloutNode: NodePlugin {
            var type: NodeType { "callout" }
            var role: NodeRole { .element(inline: false) }
        }
        var appCatalog = catalog
        appCatalog.register(PluginDescriptor(name: "callout", summary: "the app's own", nodes: [CalloutNode()]))
        let configuration = try Configuration.load(yaml: "version: 1\nplugins: [callout, widget]\n", catalog: appCatalog)
        let registry = try configuration.makeRegistry()
        #expect(registry.registeredTypes.suffix(2) == ["callout", "widget"])
        let state = try LexicalJSON.importState(from: #"{"root":{"type":"root","children":[{"type":"callout","children":[]}]}}"#, registry: registry)
        #expect(state.child(at: 0, of: .root).flatMap { state[$0] }?.isUnknown == false)
    }

    @Test func conflictingNodeTypes() throws {
        let twin = PluginDescriptor(name: "twin", summary: "", nodes: [WidgetNode()])
        let configuration = try Configuration.load(yaml: "version: 1\nplugins: [widget, twin]\n", catalog: PluginCatalog([widget, twin]))
        #expect(throws: ConfigError.conflictingNodeType("widget", plugin: "twin")) { try configuration.makeRegistry() }
    }

    @Test func contributionsNothingReadsAreWarnings() throws {
        let badge = ContributionKey<String>("test.badge")
        let toolbar = ContributionKey<Int>("test.toolbar")
        var extended = catalog
        extended.register(PluginDescriptor(name: "decorated", summary: "contributes what no reader takes", options: NoOptions.self) { _ in
            ([], [PluginContribution(toolbar, 1), PluginContribution(badge, "new"), PluginContribution(badge, "beta")])
        })
        let configuration = try Configuration.load(yaml: "version: 1\nplugins:\n  - widget\n  - decorated\n", catalog: extended)
        #expect(configuration.warnings.map(\.path) == ["plugins[1].decorated", "plugins[1].decorated"], "one warning per unread kind, in name order")
        #expect(configuration.warnings.map(\.message) == [
            "contributes test.badge, which nothing in this app reads; ignored",
            "contributes test.toolbar, which nothing in this app reads; ignored",
        ])
        #expect(configuration.warnings[0].location == SourceLocation(line: 4, column: 5))
        // The values are still there for a reader added later; declaring one silences the warning.
        #expect(configuration.plugins.values(for: badge) == ["new", "beta"])
        extended.addReader(for: badge.kind)
        extended.addReader(for: toolbar.kind)
        #expect(try Configuration.load(yaml: "version: 1\nplugins: [widget, decorated]\n", catalog: extended).warnings.isEmpty)
    }

    @Test func typedContributionsReturnOnlyTheirKind() {
        let names = ContributionKey<String>("test.names")
        let counts = ContributionKey<Int>("test.counts")
        let mixed = [PluginContribution(names, "a"), PluginContribution(counts, 2), PluginContribution(names, "b")]
        #expect(mixed.values(for: names) == ["a", "b"])
        #expect(mixed.values(for: counts) == [2])
        #expect(mixed.values(for: ContributionKey<String>("test.other")).isEmpty)
        // A key with the same name but another type sees nothing instead of a wrong value.
        #expect(mixed.values(for: ContributionKey<Double>("test.counts")).isEmpty)
    }
}
