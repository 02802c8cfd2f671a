import QuireAlgorithms
import QuireCRDT
import QuireModel

/// Scalars with one set of attributes: a piece of a block's inline content as the shared text
/// holds it.
struct StyledRun: Equatable {
    var scalars: [Unicode.Scalar]
    var attributes: [String: CRDTValue]
}

/// Converting a block's inline content between the editor's nodes and the shared text.
///
/// A text node is its text, with its format bits (`bold`, `italic`, …), `style`, `mode`, `detail`
/// and, for another text type than `text`, `textType` and `textFields` as marks. A line break is
/// "\n". An inline decorator (or an unknown inline leaf) is U+FFFC marked `embed` = `{type,
/// fields}`. An inline element (a link) is a mark over its content, `link` or `inline:TYPE` =
/// its fields; nested inline elements nest in the order of their mark keys.
enum InlineContent {
    /// Whether a block has a run in the shared text: an element block that accepts inline
    /// content (an unknown one always does; a table, row or cell never does).
    static func hasRun(_ node: Node, in state: EditorState) -> Bool {
        hasRun(type: node.isUnknown ? nil : node.type, role: node.role, registry: state.registry)
    }

    /// `hasRun` for a node of `type` (nil: unknown) and `role`.
    static func hasRun(type: NodeType?, role: NodeRole, registry: NodeRegistry) -> Bool {
        guard role == .element(inline: false) else { return false }
        guard let type, let plugin = registry.plugin(for: type) else { return true }
        return plugin.childRule.accepts(type: .text, role: .text)
    }

    /// The runs of a block's inline children (block children are the tree's).
    ///
    /// - Complexity: O(inline nodes + scalars) of the block.
    static func runs(of block: NodeKey, in state: EditorState) -> [StyledRun] {
        var runs: [StyledRun] = []
        for leaf in InlineLayout(of: block, in: state).leaves {
            let scalars: [Unicode.Scalar] = switch leaf.role {
            case .text: Array(state[leaf.key]?.text.unicodeScalars ?? "".unicodeScalars)
            case .lineBreak: ["\n"]
            default: ["\u{FFFC}"]
            }
            guard !scalars.isEmpty else { continue }
            if runs.last?.attributes == leaf.attributes { runs[runs.count - 1].scalars += scalars } else { runs.append(StyledRun(scalars: scalars, attributes: leaf.attributes)) }
        }
        return runs
    }

    static func elementKey(_ type: NodeType) -> String {
        type == "link" ? DocumentSchema.linkKey : DocumentSchema.inlineElementPrefix + type.rawValue
    }

    /// A text node's own marks.
    static func textAttributes(of node: Node, in state: EditorState) -> [String: CRDTValue] {
        var attributes: [String: CRDTValue] = [:]
        let format = node.textFormat
        for (name, bit) in TextFormat.named where format.contains(bit) { attributes[name] = .bool(true) }
        if !node.textStyle.isEmpty { attributes[DocumentSchema.styleKey] = .string(node.textStyle) }
        if node.textMode != .normal { attributes[DocumentSchema.modeKey] = .string(node.textMode.rawValue) }
        if node.textDetail != 0 { attributes[DocumentSchema.detailKey] = .int(Int64(node.textDetail)) }
        if node.type != .text || node.isUnknown { attributes[DocumentSchema.textTypeKey] = .string(node.type.rawValue) }
        // Fields beyond the ones above (a token's, an unknown node's, a version other than 1).
        // Checked before any copy: a plain text node (every keystroke's) has none.
        let hasExtra = node.fields.contains { member in
            member.key == "version" ? member.value != .number(.integer(1)) : !ownTextFields.contains(member.key)
        }
        if hasExtra || node.fields["version"] == nil {
            var extra = node.fields
            for name in ownTextFields { extra[name] = nil }
            attributes[DocumentSchema.textFieldsKey] = CRDTValue(.object(extra))
        }
        return attributes
    }

    /// The text node fields that have marks of their own.
    private static let ownTextFields = ["format", "style", "mode", "detail"]

    // MARK: Building nodes

    /// Appends nodes for `runs` as the inline children of `block` (which has none).
    ///
    /// - Complexity: O(scalars + nodes · log n).
    static func build(_ runs: [StyledRun], into block: NodeKey, in state: inout EditorState) throws(ModelError) {
        // Inline content goes before the block's block children (a list item's nested list).
        let firstBlockChild = state.children(of: block).first { !$0.role.isInline }?.key
        // The open inline elements, outermost first: (mark key, value, node).
        var open: [(key: String, value: CRDTValue, node: NodeKey)] = []
        for run in runs {
            let chain = run.attributes.filter { DocumentSchema.isInlineElementKey($0.key) }.sorted { $0.key < $1.key }
            var common = 0
            while common < open.count, common < chain.count, open[common].key == chain[common].key, open[common].value == chain[common].value {
                common += 1
            }
            open.removeLast(open.count - common)
            for (key, value) in chain.dropFirst(common) {
                let parent = open.last?.node ?? block
                let type = key == DocumentSchema.linkKey ? NodeType("link") : NodeType(String(key.dropFirst(DocumentSchema.inlineElementPrefix.count)))
                // A block that does not take this element (a link mark that reached a code block
                // through concurrent edits) shows the content without it.
                guard accepts(parent, type: type, role: .element(inline: true), in: state) else { continue }
                let element = try makeNode(type: type, role: .element(inline: true), text: "", fields: object(value), in: &state)
                try place(element, in: parent, of: block, before: firstBlockChild, in: &state)
                open.append((key, value, element))
            }
            let parent = open.last?.node ?? block
            var pending: [Unicode.Scalar] = []
            // A text type whose nodes are atoms (a tab) gets a node per character; the editor
            // never merges them.
            var atomic = false
            if case .string(let name)? = run.attributes[DocumentSchema.textTypeKey], let plugin = state.registry.plugin(for: NodeType(name)) {
                atomic = !plugin.editsTextInPlace
            }
            func flushText() throws(ModelError) {
                guard !pending.isEmpty else { return }
                let pieces = atomic ? pending.map { [$0] } : [pending]
                for piece in pieces {
                    var node = try makeTextNode(String(scalars: piece), run.attributes, in: &state)
                    if let made = state[node], !accepts(parent, type: made.type, role: .text, in: state) {
                        // A text type the block does not take becomes plain text there.
                        try state.remove(node)
                        node = try makeTextNode(String(scalars: piece), run.attributes.filter { $0.key != DocumentSchema.textTypeKey && $0.key != DocumentSchema.textFieldsKey }, in: &state)
                    }
                    try place(node, in: parent, of: block, before: firstBlockChild, in: &state)
                }
                pending.removeAll()
            }
            for scalar in run.scalars {
                switch scalar {
                case "\n":
                    try flushText()
                    guard accepts(parent, type: .lineBreak, role: .lineBreak, in: state) else { continue }
                    try place(try makeNode(type: .lineBreak, role: .lineBreak, text: "", fields: [:], in: &state), in: parent, of: block, before: firstBlockChild, in: &state)
                case "\u{FFFC}" where run.attributes[DocumentSchema.embedKey] != nil:
                    try flushText()
                    guard case .map(let embed)? = run.attributes[DocumentSchema.embedKey], case .string(let type)? = embed["type"],
                          accepts(parent, type: NodeType(type), role: .decorator(inline: true), in: state) else { continue }
                    try place(try makeNode(type: NodeType(type), role: .decorator(inline: true), text: "", fields: object(embed["fields"]), in: &state), in: parent, of: block, before: firstBlockChild, in: &state)
                default:
                    pending.append(scalar)
                }
            }
            try flushText()
        }
    }

    /// Links an inline node: in the block itself before its first block child, else at the end of
    /// its inline element.
    private static func place(_ node: NodeKey, in parent: NodeKey, of block: NodeKey, before firstBlockChild: NodeKey?, in state: inout EditorState) throws(ModelError) {
        if parent == block, let firstBlockChild {
            try state.insert(node, before: firstBlockChild)
        } else {
            try state.append(node, to: parent)
        }
    }

    /// Whether `parent` takes a child of `type` (an unknown parent takes anything).
    static func accepts(_ parent: NodeKey, type: NodeType, role: NodeRole, in state: EditorState) -> Bool {
        guard let node = state[parent], let plugin = state.plugin(of: node) else { return true }
        return plugin.childRule.accepts(type: type, role: role)
    }

    /// The JSON object a mark or property value holds (the schema writes objects there). Bytes and
    /// container references, which a foreign peer could write and JSON cannot hold, become an
    /// array of byte values and the container's ID as a string, so nothing is dropped.
    static func object(_ value: CRDTValue?) -> JSONObject {
        guard case .object(let object)? = value.map(json) else { return [:] }
        return object
    }

    static func json(_ value: CRDTValue) -> JSONValue {
        switch value {
        case .binary(let bytes): .array(bytes.map { .number(.integer(Int($0))) })
        case .container(let id): .string(id.description)
        case .list(let list): .array(list.map(json))
        case .map(let map):
            .object(JSONObject(map.keys.sorted().map { ($0, json(map[$0]!)) }))
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let integer): .number(.integer(Int(integer)))
        case .double(let double): .number(.double(double))
        case .string(let string): .string(string)
        }
    }

    private static func makeTextNode(_ text: String, _ attributes: [String: CRDTValue], in state: inout EditorState) throws(ModelError) -> NodeKey {
        var fields: JSONObject = [:]
        if case .map(let extra)? = attributes[DocumentSchema.textFieldsKey] { fields = object(.map(extra)) }
        var format = TextFormat()
        for (name, bit) in TextFormat.named where attributes[name] == .bool(true) { format.insert(bit) }
        if !format.isEmpty { fields["format"] = .number(.integer(format.rawValue)) }
        if case .string(let style)? = attributes[DocumentSchema.styleKey] { fields["style"] = .string(style) }
        if case .string(let mode)? = attributes[DocumentSchema.modeKey] { fields["mode"] = .string(mode) }
        if case .int(let detail)? = attributes[DocumentSchema.detailKey] { fields["detail"] = .number(.integer(Int(detail))) }
        var type = NodeType.text
        if case .string(let name)? = attributes[DocumentSchema.textTypeKey] { type = NodeType(name) }
        return try makeNode(type: type, role: .text, text: text, fields: fields, in: &state)
    }

    /// A node of `type` with `fields`; a type the registry does not know, or fields its plugin
    /// refuses, make an unknown node that keeps them verbatim (the projection's rule too).
    static func makeNode(type: NodeType, role: NodeRole, text: String, fields: JSONObject, in state: inout EditorState) throws(ModelError) -> NodeKey {
        if state.registry.plugin(for: type) != nil {
            do {
                return try state.createNode(type: type, text: text, fields: fields)
            } catch .unknownType, .fieldTypeMismatch, .invalidNode, .textOnNonTextNode, .cannotCreateRoot {
                // Fall through to an unknown node: remote data this build's plugin refuses.
            } catch {
                throw error
            }
        }
        var kept = fields
        if kept["version"] == nil { kept["version"] = .number(.integer(1)) }
        return state.createUnknownNode(type: type, role: role, text: text, fields: kept)
    }
}
