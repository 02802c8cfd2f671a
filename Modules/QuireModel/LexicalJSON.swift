/// Why a Lexical JSON document could not be imported, and where: `path` is a JSON path such as
/// `$.root.children[0].children[2].format`.
public struct LexicalJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The bytes are not JSON, or repeat a key (with line, column, byte offset and JSON path).
        case syntax(JSONError)
        /// A required member is absent.
        case missingField(String)
        /// A member has the wrong JSON type or value.
        case wrongType(expected: String, found: String)
        /// A node of a type that has no children (text, linebreak, …) has a `children` member.
        case unexpectedChildren(NodeType)
        /// The parent's type does not accept a child of this type.
        case childNotAccepted(parent: NodeType, child: NodeType)
        /// The node at `$.root` is not of type "root", or "root" appears below it.
        case misplacedRoot
        /// A plugin rejected the node.
        case invalidNode(NodeType, String)
    }

    public let reason: Reason
    public let path: String

    public init(_ reason: Reason, at path: String) {
        self.reason = reason
        self.path = path
    }

    public var description: String {
        switch reason {
        case .syntax(let error): return error.description
        case .missingField(let field): return "\(path): missing required member \"\(field)\""
        case .wrongType(let expected, let found): return "\(path): expected \(expected), found \(found)"
        case .unexpectedChildren(let type): return "\(path): a \"\(type)\" node cannot have children"
        case .childNotAccepted(let parent, let child): return "\(path): a \"\(parent)\" node does not accept a \"\(child)\" child"
        case .misplacedRoot: return "\(path): the document must have exactly one \"root\" node, at $.root"
        case .invalidNode(let type, let message): return "\(path): invalid \"\(type)\" node: \(message)"
        }
    }
}

/// Lexical's serialized editor state, `{"root": {…}}`, both ways.
///
/// Import keeps every member of every node (known fields are type-checked against the node's
/// plugin; extra members are kept verbatim), so export gives back JSON equal to the input as a
/// value. Node types without a plugin import as unknown nodes with their JSON and children intact.
public enum LexicalJSON {
    /// Imports a document from UTF-8 JSON bytes, read with QuireJSON's input policy; `json`
    /// changes its nesting limit or duplicate-key rule.
    ///
    /// - Complexity: O(n) in the input size.
    public static func importState<Bytes: Collection<UInt8>>(
        from bytes: Bytes, registry: NodeRegistry = NodeRegistry(), json: JSONReader.Options = JSONReader.Options()
    ) throws(LexicalJSONError) -> EditorState {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: json) } catch { throw LexicalJSONError(.syntax(error), at: error.path) }
        return try importState(from: value, registry: registry)
    }

    /// Imports a document from a JSON string.
    public static func importState(
        from text: String, registry: NodeRegistry = NodeRegistry(), json: JSONReader.Options = JSONReader.Options()
    ) throws(LexicalJSONError) -> EditorState {
        try importState(from: Array(text.utf8), registry: registry, json: json)
    }

    /// Imports a document from a parsed JSON value.
    ///
    /// - Complexity: O(n) in the number of nodes (each stored in O(log₃₂ n)).
    public static func importState(from value: JSONValue, registry: NodeRegistry = NodeRegistry()) throws(LexicalJSONError) -> EditorState {
        guard case .object(let document) = value else {
            throw LexicalJSONError(.wrongType(expected: "object", found: value.typeName), at: "$")
        }
        guard let rootValue = document["root"] else { throw LexicalJSONError(.missingField("root"), at: "$") }
        guard case .object(let rootObject) = rootValue else {
            throw LexicalJSONError(.wrongType(expected: "object", found: rootValue.typeName), at: "$.root")
        }
        var state = EditorState(registry: registry)
        var importer = Importer(batch: state.makeBatch())
        let (fields, roots) = try importer.importRoot(rootObject)
        state.setRootFields(fields)
        do { try state.insert(importer.batch, roots: roots, under: .root, after: nil) } catch {
            preconditionFailure("the importer checked every node it built: \(error)")
        }
        return state
    }

    /// The document as Lexical JSON.
    ///
    /// - Complexity: O(n) in the number of nodes.
    public static func export(_ state: EditorState) -> JSONValue {
        .object(["root": .object(exportNode(state.root, in: state))])
    }

    /// The document as UTF-8 Lexical JSON text.
    public static func exportBytes(_ state: EditorState, prettyPrinted: Bool = false) -> [UInt8] {
        JSONWriter(prettyPrinted: prettyPrinted).bytes(export(state))
    }

    /// The document as Lexical JSON text.
    public static func exportString(_ state: EditorState, prettyPrinted: Bool = false) -> String {
        JSONWriter(prettyPrinted: prettyPrinted).string(export(state))
    }

    /// One node and its subtree as a Lexical JSON object.
    public static func exportNode(_ node: Node, in state: EditorState) -> JSONObject {
        var object = JSONObject()
        if node.role.isElement {
            object.appendUnchecked("children", .array(state.children(of: node.key).map { .object(exportNode($0, in: state)) }))
        }
        for (name, value) in node.fields { object.appendUnchecked(name, value) }
        if node.role == .text { object.appendUnchecked("text", .string(node.text)) }
        object.appendUnchecked("type", .string(node.type.rawValue))
        return object
    }
}

private struct Importer {
    var batch: NodeBatch
    let registry: NodeRegistry
    /// Per node type, the plugin and its field specs, looked up once per import rather than per node.
    private var plans: [NodeType: Plan] = [:]

    struct Plan {
        let plugin: any NodePlugin
        let fields: [FieldSpec]
    }

    init(batch: NodeBatch) {
        self.batch = batch
        self.registry = batch.registry
    }

    mutating func plan(for type: NodeType) -> Plan? {
        if let plan = plans[type] { return plan }
        guard let plugin = registry.plugin(for: type) else { return nil }
        let plan = Plan(plugin: plugin, fields: plugin.fields)
        plans[type] = plan
        return plan
    }

    /// The root's fields and its children's keys, every node built into the batch.
    mutating func importRoot(_ object: JSONObject) throws(LexicalJSONError) -> (fields: JSONObject, children: [NodeKey]) {
        let path = "$.root"
        guard let typeValue = object["type"] else { throw LexicalJSONError(.missingField("type"), at: path) }
        guard typeValue == .string("root") else { throw LexicalJSONError(.misplacedRoot, at: path) }
        let rootPlugin = registry.plugin(for: .root) ?? RootNodePlugin()
        let fields = try fields(of: object, specs: rootPlugin.fields, role: .root, path: path)
        let rootNode = Node(key: .root, type: .root, role: .root, isUnknown: false, text: "", fields: fields)
        var roots: [NodeKey] = []
        try importChildren(try childArray(of: object, path: path), parent: rootNode, parentPlugin: rootPlugin, path: path) { roots.append($1) }
        return (fields, roots)
    }

    func childArray(of object: JSONObject, path: String) throws(LexicalJSONError) -> [JSONValue] {
        guard let value = object["children"] else { return [] }
        guard case .array(let children) = value else {
            throw LexicalJSONError(.wrongType(expected: "array", found: value.typeName), at: path + ".children")
        }
        return children
    }

    /// Imports `children` under `parent`, each built into the batch before its own children, and
    /// hands every child's key to `link` (which links it under the parent).
    mutating func importChildren(
        _ children: [JSONValue], parent: Node, parentPlugin: (any NodePlugin)?, path: String,
        link: (inout NodeBatch, NodeKey) -> Void
    ) throws(LexicalJSONError) {
        guard !children.isEmpty else { return }
        // Only an unknown child needs to know whether its siblings are inline; most documents have none.
        let registry = self.registry
        lazy var siblingsHaveInline = children.contains { child in
            guard let type = child.objectValue?["type"]?.stringValue,
                  let plugin = registry.plugin(for: NodeType(type)) else { return false }
            return plugin.role.isInline
        }
        for (index, childValue) in children.enumerated() {
            let childPath = "\(path).children[\(index)]"
            guard case .object(let object) = childValue else {
                throw LexicalJSONError(.wrongType(expected: "object", found: childValue.typeName), at: childPath)
            }
            let node = try makeNode(
                object, key: batch.nextKey, parent: parent, parentPlugin: parentPlugin,
                siblingsHaveInline: { siblingsHaveInline }, path: childPath
            )
            batch.addChecked(node)
            link(&batch, node.key)
            if node.role.isElement {
                let parentKey = node.key
                try importChildren(
                    try childArray(of: object, path: childPath), parent: node,
                    parentPlugin: node.isUnknown ? nil : registry.plugin(for: node.type), path: childPath
                ) { batch, child in batch.appendChecked(child, to: parentKey) }
            }
        }
    }

    mutating func makeNode(
        _ object: JSONObject, key: NodeKey, parent: Node, parentPlugin: (any NodePlugin)?,
        siblingsHaveInline: () -> Bool, path: String
    ) throws(LexicalJSONError) -> Node {
        guard let typeValue = object["type"] else { throw LexicalJSONError(.missingField("type"), at: path) }
        guard case .string(let typeName) = typeValue else {
            throw LexicalJSONError(.wrongType(expected: "string", found: typeValue.typeName), at: path + ".type")
        }
        let type = NodeType(typeName)
        if type == .root { throw LexicalJSONError(.misplacedRoot, at: path) }
        let hasChildren = object["children"] != nil
        var node: Node
        var allowedParents: Set<NodeType>?
        if let plan = plan(for: type) {
            let plugin = plan.plugin
            allowedParents = plugin.parentTypes
            if hasChildren && !plugin.role.isElement { throw LexicalJSONError(.unexpectedChildren(type), at: path + ".children") }
            var text = ""
            if plugin.role == .text {
                guard let textValue = object["text"] else { throw LexicalJSONError(.missingField("text"), at: path) }
                guard case .string(let string) = textValue else {
                    throw LexicalJSONError(.wrongType(expected: "string", found: textValue.typeName), at: path + ".text")
                }
                text = string
            }
            node = Node(
                key: key, type: type, role: plugin.role, isUnknown: false, text: text,
                fields: try fields(of: object, specs: plan.fields, role: plugin.role, path: path)
            )
            do { try plugin.validate(node) } catch {
                let at = error.field.map { "\(path).\($0)" } ?? path
                throw LexicalJSONError(.invalidNode(type, error.message), at: at)
            }
        } else {
            node = unknownNode(object, key: key, type: type, parent: parent, parentPlugin: parentPlugin,
                               siblingsHaveInline: siblingsHaveInline)
        }
        if let parentPlugin, !parentPlugin.childRule.accepts(type: node.type, role: node.role) {
            throw LexicalJSONError(.childNotAccepted(parent: parent.type, child: type), at: path)
        }
        if !parent.isUnknown, let allowedParents, !allowedParents.contains(parent.type) {
            throw LexicalJSONError(.childNotAccepted(parent: parent.type, child: type), at: path)
        }
        return node
    }

    /// An unknown type keeps all its members. Its role is inferred so that the flat string stays
    /// sensible: with `children` it is an element, inline when it sits in inline content; with a
    /// string `text` it is text-like; otherwise it is a decorator.
    func unknownNode(
        _ object: JSONObject, key: NodeKey, type: NodeType, parent: Node, parentPlugin: (any NodePlugin)?,
        siblingsHaveInline: () -> Bool
    ) -> Node {
        let parentTakesInlines = parentPlugin?.childRule == .inlines || parent.role == .element(inline: true)
        let inline = parentTakesInlines || siblingsHaveInline()
        let role: NodeRole
        var text = ""
        if object["children"] != nil {
            role = .element(inline: inline)
        } else if case .string(let string)? = object["text"] {
            role = .text
            text = string
        } else {
            role = .decorator(inline: inline)
        }
        var fields = JSONObject()
        for member in object.members where member.key != "type" && member.key != "children" && !(role == .text && member.key == "text") {
            fields.appendUnchecked(member.key, member.value)
        }
        return Node(key: key, type: type, role: role, isUnknown: true, text: text, fields: fields)
    }

    /// The node's fields: every member but type, children and text, known ones type-checked.
    func fields(of object: JSONObject, specs: [FieldSpec], role: NodeRole, path: String) throws(LexicalJSONError) -> JSONObject {
        for spec in specs {
            guard let value = object[spec.name] else {
                if spec.isRequired { throw LexicalJSONError(.missingField(spec.name), at: path) }
                continue
            }
            guard spec.type.accepts(value) else {
                throw LexicalJSONError(.wrongType(expected: spec.type.description, found: describe(value)), at: "\(path).\(spec.name)")
            }
        }
        if let version = object["version"], !FieldType.integer.accepts(version) {
            throw LexicalJSONError(.wrongType(expected: "integer", found: describe(version)), at: "\(path).version")
        }
        var fields = JSONObject()
        for member in object.members {
            switch member.key {
            case "type", "children": continue
            case "text" where role == .text: continue
            default: fields.appendUnchecked(member.key, member.value)
            }
        }
        return fields
    }

    func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): "string \"\(string.prefix(40))\""
        case .number(let number): "\(value.typeName) \(number)"
        default: value.typeName
        }
    }
}
