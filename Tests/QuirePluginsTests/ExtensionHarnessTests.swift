import QuireCatalog
import QuireConfig
import QuireEditor
import QuireHeading
import QuireList
import QuireModel
import QuireTable
import QuireTestSupport
import Testing

/// The built-ins' editor extensions against `ExtensionHarness`: a registrar and command context
/// that are not an `Editor`, so whatever passes here uses only the narrow protocols.
@Suite struct ExtensionHarnessTests {
    static func allBuiltIns() throws -> Configuration {
        try Configuration.load(
            yaml: "version: 1\nplugins:\n" + BuiltInPlugins.catalog.names.map { "  - \($0)\n" }.joined(),
            catalog: BuiltInPlugins.catalog
        )
    }

    /// The namespace each plugin's own commands take (its name as a Swift identifier).
    static let namespaces: [String: String] = [
        "heading": "heading", "quote": "quote", "list": "list", "code": "code", "link": "link",
        "table": "table", "horizontalrule": "horizontalRule", "image": "image",
    ]

    @Test func everyBuiltInRegistersItsCommandsInItsNamespace() throws {
        let configuration = try Self.allBuiltIns()
        #expect(configuration.warnings.isEmpty, "the built-in catalog reads every built-in contribution: \(configuration.warnings)")
        var seen: Set<String> = []
        for plugin in configuration.plugins {
            let extensions = plugin.contributions.values(for: .editorExtension)
            let harness = ExtensionHarness(state: EditorState(registry: try configuration.makeRegistry()))
            for item in extensions { try harness.install(item) }
            guard let namespace = Self.namespaces[plugin.name] else {
                #expect(harness.commands.isEmpty, "\(plugin.name) has no commands")
                continue
            }
            #expect(!harness.commands.isEmpty, "\(plugin.name)")
            for (declaration, _) in harness.commands {
                let parts = declaration.name.split(separator: ".")
                #expect(parts.count == 2 && (parts[0] == namespace || declaration.name == Commands.keyTab.name), "\(plugin.name): \(declaration.name)")
                if parts[0] == namespace { #expect(seen.insert(declaration.name).inserted, "declared once: \(declaration.name)") }
            }
        }
        #expect(seen.contains("list.insert") && seen.contains("heading.set") && seen.contains("table.insertTable"))
    }

    @Test func aHeadingCommandRunsWithoutAnEditor() throws {
        let configuration = try Self.allBuiltIns()
        var state = EditorState(registry: try configuration.makeRegistry(), paragraphs: ["Title", "body"])
        let title = try #require(state[state.textBlocks()[0]]?.firstChild)
        try state.select(.text(title, 2))
        let harness = ExtensionHarness(state: state)
        try harness.install(HeadingExtension())
        #expect(harness.commands.map(\.declaration.name) == ["heading.set", "heading.toggle"])
        #expect(harness.commands.allSatisfy { $0.priority == .low })
        #expect(try harness.dispatch(HeadingCommands.setHeading, .h2))
        #expect(harness.updateCount == 1)
        let first = try #require(harness.state[harness.state.textBlocks()[0]])
        #expect(first.type == HeadingNodePlugin.type && first.fields["tag"] == .string("h2"))
        #expect(FlatString.render(harness.state) == "Title\nbody")
    }

    @Test func commandsThatDoNotApplyAreNotHandled() throws {
        let configuration = try Self.allBuiltIns()
        var state = EditorState(registry: try configuration.makeRegistry(), paragraphs: ["plain"])
        try state.select(.text(try #require(state[state.textBlocks()[0]]?.firstChild), 0))
        let harness = ExtensionHarness(state: state)
        try harness.install(ListExtension())
        try harness.install(TableCommandsExtension())
        #expect(harness.transformTypes == [ListItemNodePlugin.type, ListNodePlugin.type])
        #expect(try !harness.dispatch(Commands.keyTab, false), "Tab outside a list or table falls through to the view")
        #expect(try !harness.dispatch(TableCommands.insertRowBelow), "not in a cell")
        #expect(harness.updateCount == 0)
        #expect(throws: EditorError.invalidPayload(command: "table.insertTable", reason: TableError.invalidDimensions(rows: 0, columns: 2).description)) {
            try harness.dispatch(TableCommands.insertTable, InsertTableOptions(rows: 0, columns: 2))
        }
        #expect(FlatString.render(harness.state) == "plain", "a refused command changes nothing")
    }
}
