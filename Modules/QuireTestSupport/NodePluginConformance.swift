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
    /// (and whatever parent it needs; a plugin with `parentTypes` is placed in a new node of the
    /// first, a block plugin under the root, an inline one in a paragraph).
    ///
    /// Rules: a non-empty type name that is not a core type's; field names unique and not
    /// reserved (`type`, `children`, `text`, `version`); every default value accepted by its own
    /// field type; a node created with the defaults is accepted by `validate` (text-like nodes
    /// with "\t" for tabs, "x" otherwise); it exports to Lexical JSON with its `type` and every
    /// field, and that JSON imports back to an equal export and flat string. A block that holds
    /// text must also survive its editing hooks: Enter at its start, middle and end and in it
    /// empty, Backspace at its start (empty or not) and at the start of a paragraph after it,
    /// each leave a state whose export imports back, with a valid selection. An editing boundary
    /// (`isolatesContent`) that holds paragraphs keeps its blocks under Backspace at its start,
    /// Delete at its end, a range deletion into or out of it and Backspace right after it, and
    /// Enter inside it makes the new paragraph inside it.
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
            try place(key, of: plugin, in: &state)
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
        if plugin.role == .element(inline: false), plugin.childRule.accepts(type: .text, role: .text) {
            for rule in editingViolations(of: plugin.type, in: registry) { fail(rule) }
        }
        if plugin.isolatesContent, plugin.role == .element(inline: false),
           plugin.childRule.accepts(type: .paragraph, role: .element(inline: false)) {
            for rule in isolationViolations(of: plugin, in: registry) { fail(rule) }
        }
        return violations
    }

    /// Edits around an isolating node holding "b" and "c", between paragraphs "a" and "d"; the
    /// rules each edit broke.
    static func isolationViolations(of plugin: any NodePlugin, in registry: NodeRegistry) -> [String] {
        var found: [String] = []
        do {
            var state = EditorState(registry: registry, paragraphs: ["a", "b", "c", "d"])
            let blocks = state.children(of: .root).map(\.key)
            let texts = blocks.map { state[$0]!.firstChild! }
            let boundary = try state.createNode(type: plugin.type)
            try state.insert(boundary, before: blocks[1])
            for block in blocks[1...2] {
                try state.detach(block)
                try state.append(block, to: boundary)
            }
            let edits: [(String, Int, (inout EditorState) throws -> Void)] = [
                ("Backspace at its start", 2, { try $0.select(.text(texts[1], 0)); try $0.deleteCharacter(backward: true) }),
                ("Delete at its end", 2, { try $0.select(.text(texts[2], 1)); try $0.deleteCharacter(backward: false) }),
                ("deleting a range into it", 2, { try $0.select(anchor: .text(texts[0], 0), focus: .text(texts[2], 1)); try $0.removeSelectedText() }),
                ("deleting a range out of it", 2, { try $0.select(anchor: .text(texts[1], 0), focus: .text(texts[3], 1)); try $0.removeSelectedText() }),
                ("Backspace right after it", 2, { try $0.select(.text(texts[3], 0)); try $0.deleteCharacter(backward: true) }),
                ("Enter inside it", 3, { try $0.select(.text(texts[1], 1)); try $0.insertInput("\n") }),
            ]
            for (name, blocksInside, edit) in edits {
                var attempt = state
                try edit(&attempt)
                if !attempt.isAttached(boundary) || attempt[boundary]?.childCount != blocksInside
                    || attempt.root.childCount != 3 {
                    found.append("\(name) does not keep the blocks inside and around an isolating node")
                }
            }
        } catch {
            found.append("editing around an isolating node fails: \(error)")
        }
        return found
    }

    /// One editing scenario: the node's content, whether a paragraph "p" follows it, where the
    /// caret goes (in the node's text, or at the start of the paragraph after it), and the key.
    private struct Scenario {
        let name: String
        let content: String
        let caretInParagraphAfter: Bool
        let offset: Int
        let edit: (inout EditorState) throws(ModelError) -> Void
    }

    /// Appends `key` where its plugin allows it: in a new node of its first allowed parent type
    /// (placed the same way), else an inline in a new paragraph, a block under the root.
    static func place(_ key: NodeKey, of plugin: any NodePlugin, in state: inout EditorState, depth: Int = 0) throws(ModelError) {
        if depth < 8, let parentType = plugin.parentTypes?.map(\.rawValue).sorted().first.map({ NodeType($0) }),
           let parentPlugin = state.registry.plugin(for: parentType) {
            let parent = try state.createNode(type: parentType)
            try place(parent, of: parentPlugin, in: &state, depth: depth + 1)
            try state.append(key, to: parent)
        } else if plugin.role.isInline {
            let paragraph = try state.createNode(type: .paragraph)
            try state.append(paragraph, to: .root)
            try state.append(key, to: paragraph)
        } else {
            try state.append(key, to: .root)
        }
    }

    private static func editingViolations(of type: NodeType, in registry: NodeRegistry) -> [String] {
        let enter: (inout EditorState) throws(ModelError) -> Void = { state throws(ModelError) in try state.insertParagraph() }
        let backspace: (inout EditorState) throws(ModelError) -> Void = { state throws(ModelError) in try state.deleteCharacter(backward: true) }
        let scenarios = [
            Scenario(name: "Enter at the start", content: "xy", caretInParagraphAfter: false, offset: 0, edit: enter),
            Scenario(name: "Enter in the middle", content: "xy", caretInParagraphAfter: false, offset: 1, edit: enter),
            Scenario(name: "Enter at the end", content: "xy", caretInParagraphAfter: false, offset: 2, edit: enter),
            Scenario(name: "Enter in it empty", content: "", caretInParagraphAfter: false, offset: 0, edit: enter),
            Scenario(name: "Backspace at its start", content: "xy", caretInParagraphAfter: false, offset: 0, edit: backspace),
            Scenario(name: "Backspace in it empty", content: "", caretInParagraphAfter: false, offset: 0, edit: backspace),
            Scenario(name: "Backspace at the start of a paragraph after it", content: "xy", caretInParagraphAfter: true, offset: 0, edit: backspace),
        ]
        var rules: [String] = []
        for scenario in scenarios {
            do {
                // paragraph "p", the node, paragraph "q": every hook has blocks on both sides.
                var state = EditorState(registry: registry, paragraphs: ["p"])
                let node = try state.createNode(type: type)
                if let plugin = registry.plugin(for: type) { try place(node, of: plugin, in: &state) } else { try state.append(node, to: .root) }
                let after = try state.createNode(type: .paragraph)
                try state.append(after, to: .root)
                let q = try state.createNode(type: .text, text: "q")
                try state.append(q, to: after)
                if scenario.content.isEmpty {
                    try state.select(.element(node, 0))
                } else {
                    let text = try state.createNode(type: .text, text: scenario.content)
                    try state.append(text, to: node)
                    try state.select(scenario.caretInParagraphAfter ? .text(q, 0) : .text(text, scenario.offset))
                }
                try scenario.edit(&state)
                if let selection = state.selection {
                    try state.validate(selection.anchor)
                    try state.validate(selection.focus)
                }
                let exported = LexicalJSON.export(state)
                let imported = try LexicalJSON.importState(from: exported, registry: registry)
                if FlatString.render(imported) != FlatString.render(state) { rules.append("\(scenario.name): the flat string changes across a JSON round trip") }
            } catch {
                rules.append("\(scenario.name) leaves an invalid document or selection: \(error)")
            }
        }
        return rules
    }
}
