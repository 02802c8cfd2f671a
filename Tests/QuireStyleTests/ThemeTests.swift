import QuireModel
import QuireStyle
import QuireTextStorage
import Testing

/// The theme both renderers share: attributes from ancestors, types, fields and formats, and the
/// entries plugins contribute.
@Suite struct ThemeTests {
    static let tone = AttributeKey("test.tone")
    static let depth = AttributeKey("test.depth")

    struct Box: NodePlugin {
        var type: NodeType { "box" }
        var role: NodeRole { .element(inline: false) }
        var childRule: ChildRule { .blocks }
        var fields: [FieldSpec] { ElementFields.common + [FieldSpec("tone", .string, default: .string("plain"))] }
    }

    /// root > box(tone: loud) > paragraph > "hi" (bold, style "color: red").
    static func sample() throws -> (EditorState, box: NodeKey, paragraph: NodeKey, text: NodeKey) {
        var registry = NodeRegistry()
        try registry.register(Box())
        var state = EditorState(registry: registry)
        let box = try state.createNode(type: "box", fields: ["tone": .string("loud")])
        try state.append(box, to: .root)
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: box)
        let text = try state.createNode(type: .text, text: "hi")
        try state.append(text, to: paragraph)
        try state.setField("format", to: .number(.integer(Int(TextFormat.bold.rawValue))), of: text)
        try state.setField("style", to: .string("color: red"), of: text)
        return (state, box, paragraph, text)
    }

    @Test func theLeafWinsAlongTheAncestorChain() throws {
        let (state, box, paragraph, text) = try Self.sample()
        let theme = Theme(
            base: [Self.depth: 0],
            nodeTypes: ["box": [Self.depth: 1, Self.tone: "box"], .paragraph: [Self.depth: 2]],
            nodeStyles: ["box": { node in [Self.tone: .string(node.fields["tone"]?.stringValue ?? "")] }]
        )
        let inherited = theme.elementAttributes(of: paragraph, in: state)
        #expect(inherited[Self.depth] == .int(2), "the paragraph's own entry wins over the box's and the base")
        #expect(inherited[Self.tone] == .string("loud"), "a field style comes after the type's entry")
        #expect(inherited[Theme.Keys.nodeType] == .string("paragraph"))
        #expect(theme.elementAttributes(of: box, in: state)[Theme.Keys.nodeType] == .string("box"))
        let content = theme.contentAttributes(of: try state.node(text), inherited: inherited)
        #expect(content[Theme.Keys.nodeType] == .string("paragraph"), "text keeps its block's type")
        #expect(content[Self.depth] == .int(2))
    }

    @Test func formatsAndStylesAreTextAttributes() throws {
        let (state, _, paragraph, text) = try Self.sample()
        let theme = Theme.standard
        let content = theme.contentAttributes(of: try state.node(text), inherited: theme.elementAttributes(of: paragraph, in: state))
        #expect(content[Theme.Keys.bold] == .bool(true))
        #expect(content[Theme.Keys.italic] == nil)
        #expect(content[Theme.Keys.inlineStyle] == .string("color: red"))
    }

    @Test func contributionsAddEntriesTheAppThemeLacks() {
        let app = Theme(nodeTypes: ["box": [Self.tone: "app"]])
        let first = ThemeContribution(nodeTypes: ["box": [Self.tone: "first"], "card": [Self.tone: "first"]])
        let second = ThemeContribution(
            nodeTypes: ["card": [Self.tone: "second"], "note": [Self.tone: "second"]],
            nodeStyles: ["note": { _ in [Self.depth: 9] }]
        )
        let theme = app.including([first, second])
        #expect(theme.nodeTypes["box"] == [Self.tone: "app"], "the app's theme wins")
        #expect(theme.nodeTypes["card"] == [Self.tone: "first"], "the higher-priority plugin wins")
        #expect(theme.nodeTypes["note"] == [Self.tone: "second"])
        #expect(theme.nodeStyles["note"] != nil)
    }

    @Test func onlyThemeContributionsAreReadFromAConfiguration() {
        let contributions: [PluginContribution] = [
            .theme(ThemeContribution(nodeTypes: ["card": [Self.tone: "theme"]])),
            PluginContribution(ContributionKey<ThemeContribution>("test.notATheme"), ThemeContribution(nodeTypes: ["note": [Self.tone: "x"]])),
        ]
        let theme = Theme.standard.including(contributions)
        #expect(theme.nodeTypes["card"] == [Self.tone: "theme"])
        #expect(theme.nodeTypes["note"] == nil, "a value of the right type under another kind is not a theme entry")
        #expect(ContributionKey.theme.kind.name == "style.theme")
    }
}
