import QuireModel

/// Checks an app's (or a built-in) node plugin against the rules every plugin must follow, so
/// that plugin authors find mistakes in their own test suite rather than in a user's document.
public enum NodePluginConformance {
    /// One broken rule.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        public let type: NodeType
        public let rule: String

        public var description: String { "\(type): \(rule)" }
    }

    /// Every rule `plugin` breaks; empty when it conforms. `registry` must contain the plugin
    /// (and whatever parent it needs; a block plugin is placed under the root, an inline one in
    /// a paragraph).
    ///
    /// Rules: a non-empty type name that is not a core type's; field names unique and not
    /// reserved (`type`, `children`, `text`, `version`); every default value accepted by its own
    /// field type; a node created with the defaults is accepted by `validate` (text-like nodes
    /// with "\t" for tabs, "x" otherwise); it exports to Lexical JSON with its `type` and every
    /// field, and that JSON imports back to an equal export and flat string.
    public static func violations(of plugin: any NodePlugin, in registry: NodeRegistry) -> [Violation] {
        var violations: [Violation] = []
        func fail(_ rule: String) { violations.append(Violation(type: plugin.type, rule: rule)) }
        if plugin.type.rawValue.isEmpty { fail("the type name is empty") }
        let names = plugin.fields.map(\.name)
        if Set(names).count != names.count { fail("field names repeat") }
        for name in names where ["type", "children", "text", "version"].contains(name) { fail("field \"\(name)\" is reserved") }
        for spec in plugin.fields where !spec.type.accepts(spec.defaultValue) {
            fail("the default of \"\(spec.name)\" is not \(spec.type)")
        }
        guard registry.plugin(for: plugin.type) != nil else {
            fail("the registry does not contain the plugin")
            return violations
        }
        var state = EditorState(registry: registry)
        do {
            let text = plugin.role == .text ? (plugin.type == .tab ? "\t" : "x") : ""
            let key = try state.createNode(type: plugin.type, text: text)
            if plugin.role.isInline {
                let paragraph = try state.createNode(type: .paragraph)
                try state.append(paragraph, to: .root)
                try state.append(key, to: paragraph)
            } else {
                try state.append(key, to: .root)
            }
        } catch {
            fail("a node with default fields cannot be created and placed: \(error)")
            return violations
        }
        let exported = LexicalJSON.export(state)
        do {
            let imported = try LexicalJSON.importState(from: exported, registry: registry)
            if LexicalJSON.export(imported) != exported { fail("export → import → export changes the JSON") }
            if FlatString.render(imported) != FlatString.render(state) { fail("the flat string changes across a JSON round trip") }
        } catch {
            fail("its own export does not import: \(error)")
        }
        return violations
    }
}
