import QuireAlgorithms

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
        var value: JSONValue
        do { value = try JSONParser.parse(bytes, options: json) } catch { throw LexicalJSONError(.syntax(error), at: error.path) }
        // A node of Lexical JSON takes about a hundred bytes (a text node with its five fields
        // more): room for that many nodes is made at once instead of growing the array of
        // nodes by copying it, a few times over, as it fills. Room not used is never touched.
        return try importState(taking: &value, registry: registry, expectedNodes: bytes.count / 96)
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
        var parts = value
        return try importState(taking: &parts, registry: registry, expectedNodes: 0)
    }

    /// Imports a document from a parsed JSON value whose parts it moves into the nodes (leaving
    /// `value` null or partly taken apart): node fields reuse the parsed objects' storage when
    /// nothing else shares it, rather than copying every object and freeing the original.
    ///
    /// - Complexity: O(n) in the number of nodes (each stored in O(log₃₂ n)).
    private static func importState(taking value: inout JSONValue, registry: NodeRegistry, expectedNodes: Int) throws(LexicalJSONError) -> EditorState {
        guard var document = value.takeObject() else {
            throw LexicalJSONError(.wrongType(expected: "object", found: value.typeName), at: "$")
        }
        guard var rootValue = document.removeValue(forKey: "root") else { throw LexicalJSONError(.missingField("root"), at: "$") }
        guard let rootObject = rootValue.takeObject() else {
            throw LexicalJSONError(.wrongType(expected: "object", found: rootValue.typeName), at: "$.root")
        }
        var state = EditorState(registry: registry)
        var importer = Importer(batch: state.makeBatch())
        importer.batch.reserveCapacity(expectedNodes)
        let fields = try importer.importRoot(rootObject)
        state.setRootFields(fields)
        // The batch is moved out of the importer: with a second owner, linking the roots into it
        // would copy every node.
        var batch = NodeBatch(registry: registry, firstKey: 0)
        swap(&batch, &importer.batch)
        do { try state.insert(consume batch, roots: importer.roots, under: .root, after: nil) } catch {
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

    /// The document as UTF-8 Lexical JSON text: the bytes of ``export(_:)`` written, streamed
    /// from the nodes without building the JSON tree first (a 10 MB markdown document's tree is
    /// millions of objects, built, written and freed). A large document is written in two parts
    /// at once, as ``export(_:prettyPrinted:pieceSize:to:)`` describes.
    ///
    /// - Complexity: O(n) in the output length.
    public static func exportBytes(_ state: EditorState, prettyPrinted: Bool = false) -> [UInt8] {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        write(state, into: &writer, pieceSize: nil) { (_: UnsafeRawBufferPointer) in }
        return writer.takeOutput()
    }

    /// The document as UTF-8 Lexical JSON text (the bytes of ``exportBytes(_:prettyPrinted:)``),
    /// handed to `sink` in pieces of about `pieceSize` bytes as they are written: to write a large
    /// document to a file without holding its text (a 9 MB markdown file's pretty Lexical JSON
    /// is over 300 MB, and one array growing to that size cost a third of the export in copies
    /// and fresh pages). `sink` is called on the calling thread, in order; an error it throws
    /// stops the export.
    ///
    /// A document of over ``parallelNodeCount`` nodes with two top-level nodes or more is written
    /// in two parts at once: the later half of the top-level nodes on another thread, whose
    /// pieces wait until the earlier half has been handed out and are then handed out as they
    /// come. The text is the same either way.
    ///
    /// - Complexity: O(n) in the output length.
    public static func export<Failure: Error>(
        _ state: EditorState, prettyPrinted: Bool = false, pieceSize: Int = 1 << 20,
        to sink: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        try write(state, into: &writer, pieceSize: max(pieceSize, 1), sink: sink)
        try writer.flush(to: sink)
    }

    /// The number of nodes above which an export writes its two halves at once.
    public static let parallelNodeCount = 50_000

    /// Writes the document into `writer`, handing its text to `sink` whenever `pieceSize` bytes
    /// are waiting (never when nil: the text stays in the writer).
    private static func write<Failure: Error>(
        _ state: EditorState, into writer: inout JSONWriter, pieceSize: Int?,
        sink: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        writer.beginObject()
        writer.key("root")
        writer.beginObject()
        writer.key("children")
        writer.beginArray()
        let later = state.nodeCount > parallelNodeCount ? LaterPart(state, continuing: writer, pieceSize: pieceSize) : nil
        do throws(Failure) {
            try writeSubtrees(in: state, from: state.root.firstChild, until: later?.firstKey, into: &writer, pieceSize: pieceSize) {
                (writer: inout JSONWriter) throws(Failure) in try writer.flush(to: sink)
            }
            if let later {
                // The later half's pieces are handed out as they arrive, while it is still
                // being written, not all at the end.
                var flushed = false
                while let pieces = later.pieces.take() {
                    if !flushed {
                        try writer.flush(to: sink)
                        flushed = true
                    }
                    for piece in pieces { try JSONWriter.handOut(piece, to: sink) }
                }
                writer.resume(after: later.rest())
            }
        } catch {
            // Nothing more is handed out: the other thread stops at its next piece.
            later?.stop()
            throw error
        }
        writer.endArray()
        writeMembers(of: state.root, into: &writer)
        writer.endObject()
    }

    /// The top-level nodes from `first` up to (not including) `stop`, each with its subtree, as
    /// elements of the array `writer` has open; `flush` is called after a top-level node when
    /// `pieceSize` bytes or more are waiting (never when nil).
    private static func writeSubtrees<Failure: Error>(
        in state: EditorState, from first: NodeKey?, until stop: NodeKey?, into writer: inout JSONWriter, pieceSize: Int?,
        flush: (inout JSONWriter) throws(Failure) -> Void
    ) throws(Failure) {
        // Nodes are written with a stack of open elements and the key of each one's next child
        // to write, not recursion: a document as deep as an import allows does not need as deep
        // a call stack. Keys, not child iterators: an iterator holds a copy of the node storage,
        // retained and released for every element.
        var open: [(element: Node, next: NodeKey?)] = []
        var next = first
        while let key = next, key != stop, let topLevel = state[key] {
            next = topLevel.nextSibling
            var node = topLevel
            while true {
                writer.beginObject()
                if node.role.isElement {
                    writer.key("children")
                    writer.beginArray()
                    open.append((node, node.firstChild))
                } else {
                    writeMembers(of: node, into: &writer)
                }
                guard let child = nextChild(&open, in: state, writer: &writer) else { break }
                node = child
            }
            if let pieceSize, writer.output.count >= pieceSize { try flush(&writer) }
        }
    }

    /// The next child of the innermost open element, closing each element whose children are
    /// all written; nil when every open element is closed.
    private static func nextChild(_ open: inout [(element: Node, next: NodeKey?)], in state: EditorState, writer: inout JSONWriter) -> Node? {
        while !open.isEmpty {
            if let key = open[open.count - 1].next, let child = state[key] {
                open[open.count - 1].next = child.nextSibling
                return child
            }
            writer.endArray()
            writeMembers(of: open.removeLast().element, into: &writer)
        }
        return nil
    }

    /// The members after `children`: fields, text and type, as ``exportNode(_:in:)`` orders
    /// them; then the end of the node's object.
    private static func writeMembers(of node: Node, into writer: inout JSONWriter) {
        for member in node.fields.members {
            writer.key(member.key)
            writer.write(member.value)
        }
        if node.role == .text {
            writer.key("text")
            writer.write(string: node.text)
        }
        writer.key("type")
        writer.write(string: node.type.rawValue)
        writer.endObject()
    }

    /// The later half of a large document's top-level nodes, written on another thread into a
    /// continuation of the writer that writes the earlier half.
    private struct LaterPart {
        /// The first top-level node of the later half.
        let firstKey: NodeKey
        /// The text written, a piece at a time, as it is written; closed when the thread ends.
        let pieces = HandOffQueue<[UInt8]>()
        /// The writer holding the text after the last piece; nil when stopped.
        private let work: ForkedWork<JSONWriter?>

        private struct Stopped: Error {}

        /// Starts writing, or nil when the document has fewer than two top-level nodes.
        init?(_ state: EditorState, continuing writer: JSONWriter, pieceSize: Int?) {
            let root = state.root
            guard root.childCount >= 2 else { return nil }
            // The calling thread also hands out the later half's text: it takes a little less.
            var index = max(root.childCount * 9 / 20, 1)
            var next = root.firstChild
            while index > 0, let key = next {
                next = state[key]?.nextSibling
                index -= 1
            }
            guard let firstKey = next else { return nil }
            self.firstKey = firstKey
            let continuation = writer.continuation()
            work = ForkedWork(stoppable: { [pieces] isStopped in
                defer { pieces.close() }
                var writer = continuation
                do throws(Stopped) {
                    try LexicalJSON.writeSubtrees(in: state, from: firstKey, until: nil, into: &writer, pieceSize: pieceSize) {
                        (writer: inout JSONWriter) throws(Stopped) in
                        if isStopped() { throw Stopped() }
                        pieces.put(writer.takeOutput())
                        // Room for the next piece at once, rather than grown to it by copies.
                        writer.reserveCapacity(pieceSize.map { min($0, 1 << 24) / 4 * 5 } ?? 0)
                    }
                    return writer
                } catch {
                    return nil
                }
            })
        }

        /// The writer holding the text after the last piece, once the thread has finished.
        func rest() -> JSONWriter {
            // Only a stopped part has none, and nothing asks a stopped part for its rest.
            work.result()!
        }

        /// Stops the thread at its next piece and waits for it, the caller's export having failed.
        func stop() {
            work.stop()
            _ = work.result()
        }
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
    /// The keys of the root's children, in order.
    private(set) var roots: [NodeKey] = []
    /// Per node type, what the importer asks of its plugin, asked once per import rather than per
    /// node (a plugin's `childRule` or `parentTypes` may build a set on every access), in the
    /// order the types were first met. A document has a handful of types: scanning them
    /// (`NodeType.index(among:_:)`) costs less than hashing the type's name for every node (text
    /// and paragraph nodes alternate, so the last node's plan alone missed often).
    private var plans: [Plan] = []
    /// Where the last node's object had its `type`.
    private var typeHint = 0
    /// The index of each node among its siblings, from a child of the root down to the node
    /// being imported: its JSON path `$.root.children[i].children[j]…`, which is spelled out
    /// only for an error.
    private var trail: [Int] = []

    final class Plan {
        let type: NodeType
        let plugin: any NodePlugin
        let role: NodeRole
        let fields: [FieldSpec]
        let childRule: ChildRule
        let parentTypes: Set<NodeType>?
        /// Where the first object of this type had each of `fields`, and its `text` and
        /// `version`: the members of one type's objects usually come in one order, so lookups
        /// try there first (see `JSONObject.index(forKey:hint:)`).
        let fieldHints: [Int]
        let textHint: Int
        let versionHint: Int

        init(type: NodeType, plugin: any NodePlugin, shapedLike object: JSONObject) {
            self.type = type
            self.plugin = plugin
            role = plugin.role
            fields = plugin.fields
            childRule = plugin.childRule
            parentTypes = plugin.parentTypes
            fieldHints = fields.map { object.index(forKey: $0.name, hint: -1) ?? -1 }
            textHint = object.index(forKey: "text", hint: -1) ?? -1
            versionHint = object.index(forKey: "version", hint: -1) ?? -1
        }
    }

    /// What a child's checks need of its parent.
    struct Parent {
        let key: NodeKey
        let type: NodeType
        let role: NodeRole
        /// The children the parent's plugin accepts; nil for an unknown parent, which takes any.
        let childRule: ChildRule?
    }

    init(batch: NodeBatch) {
        self.batch = batch
        self.registry = batch.registry
    }

    /// The plan of a registered type, made from the first `object` of the type; nil for a type
    /// the registry does not know.
    ///
    /// - Complexity: O(t) for the t registered types the import has met.
    mutating func plan(for type: NodeType, shapedLike object: JSONObject) -> Plan? {
        if let index = type.index(among: plans.count, { plans[$0].type }) { return plans[index] }
        guard let plugin = registry.plugin(for: type) else { return nil }
        let plan = Plan(type: type, plugin: plugin, shapedLike: object)
        plans.append(plan)
        return plan
    }

    /// The JSON path of the node being imported, followed by `member` (such as ".type").
    ///
    /// - Complexity: O(depth).
    func path(_ member: String = "") -> String {
        var path = "$.root"
        for index in trail { path += ".children[\(index)]" }
        return path + member
    }

    /// The root's fields, every node built into the batch and the root's children in ``roots``.
    mutating func importRoot(_ object: consuming JSONObject) throws(LexicalJSONError) -> JSONObject {
        var object = object
        guard let typeValue = object["type"] else { throw LexicalJSONError(.missingField("type"), at: path()) }
        guard typeValue == .string("root") else { throw LexicalJSONError(.misplacedRoot, at: path()) }
        let rootPlugin = registry.plugin(for: .root) ?? RootNodePlugin()
        try checkFields(of: object, specs: rootPlugin.fields, hints: [], versionHint: -1)
        var children = takeMembers(of: &object)
        let root = Parent(key: .root, type: .root, role: .root, childRule: rootPlugin.childRule)
        try importChildren(of: &children, parent: root)
        return object
    }

    /// Imports the nodes of `childrenValue` (a node's `children` member, nil when it had none)
    /// under `parent`, each built into the batch and linked before its own children; the
    /// children are moved out of `childrenValue`.
    mutating func importChildren(of childrenValue: inout JSONValue?, parent: Parent) throws(LexicalJSONError) {
        guard childrenValue != nil else { return }
        guard var children = childrenValue!.takeArray() else {
            throw LexicalJSONError(.wrongType(expected: "array", found: childrenValue!.typeName), at: path(".children"))
        }
        guard !children.isEmpty else { return }
        // Only an unknown child needs to know whether its siblings are inline; most documents
        // have none. The siblings before it have been taken apart by then, so their roles say
        // it, and the later ones are looked at once (an inline one found among them that an
        // unknown child further on has passed is counted in `earlierInline` by then).
        var earlierInline = false
        var laterInline: Bool?
        trail.append(0)
        for index in children.indices {
            trail[trail.count - 1] = index
            // Moved out, leaving null, rather than copied and then cleared: a retain and a
            // release fewer per node.
            var childValue = JSONValue.null
            swap(&childValue, &children[index])
            guard var object = childValue.takeObject() else {
                throw LexicalJSONError(.wrongType(expected: "object", found: childValue.typeName), at: path())
            }
            let registry = self.registry
            let earlier = earlierInline
            var nodeChildren: JSONValue?
            let (node, childRule) = try makeNode(&object, key: batch.nextKey, parent: parent, children: &nodeChildren) {
                if earlier { return true }
                if let laterInline { return laterInline }
                let found = children[(index + 1)...].contains { child in
                    guard let type = child.objectValue?["type"]?.stringValue,
                          let plugin = registry.plugin(for: NodeType(type)) else { return false }
                    return plugin.role.isInline
                }
                laterInline = found
                return found
            }
            let summary = Parent(key: node.key, type: node.type, role: node.role, childRule: childRule)
            earlierInline = earlierInline || (childRule != nil && summary.role.isInline)
            batch.addChecked(node)
            if parent.key == .root { roots.append(summary.key) } else { batch.appendChecked(summary.key, to: parent.key) }
            if summary.role.isElement {
                try importChildren(of: &nodeChildren, parent: summary)
            }
        }
        trail.removeLast()
    }

    /// The node `object` describes, checked under `parent`, and the children its plugin accepts
    /// (nil for an unknown type); its `children` member moves to `children`, and the node's
    /// fields are what remains of `object`.
    mutating func makeNode(
        _ object: inout JSONObject, key: NodeKey, parent: Parent, children: inout JSONValue?, siblingsHaveInline: () -> Bool
    ) throws(LexicalJSONError) -> (node: Node, childRule: ChildRule?) {
        guard let typeIndex = object.index(forKey: "type", hint: typeHint) else { throw LexicalJSONError(.missingField("type"), at: path()) }
        typeHint = typeIndex
        guard case .string(let typeName) = object.members[typeIndex].value else {
            throw LexicalJSONError(.wrongType(expected: "string", found: object.members[typeIndex].value.typeName), at: path(".type"))
        }
        let type = NodeType(typeName)
        if type == .root { throw LexicalJSONError(.misplacedRoot, at: path()) }
        let node: Node
        let childRule: ChildRule?
        var allowedParents: Set<NodeType>?
        if let plan = plan(for: type, shapedLike: object) {
            allowedParents = plan.parentTypes
            childRule = plan.childRule
            if !plan.role.isElement && object["children"] != nil { throw LexicalJSONError(.unexpectedChildren(type), at: path(".children")) }
            var textIndex: Int?
            if plan.role == .text {
                guard let index = object.index(forKey: "text", hint: plan.textHint) else { throw LexicalJSONError(.missingField("text"), at: path()) }
                guard case .string = object.members[index].value else {
                    throw LexicalJSONError(.wrongType(expected: "string", found: object.members[index].value.typeName), at: path(".text"))
                }
                textIndex = index
            }
            try checkFields(of: object, specs: plan.fields, hints: plan.fieldHints, versionHint: plan.versionHint)
            var text = ""
            // Removed after `type`'s index is used (and before, when it comes first): removing
            // one member moves those after it.
            if let textIndex, textIndex > typeIndex, case .string(let string) = object.removeValue(at: textIndex) { text = string }
            object.removeValue(at: typeIndex)
            if let textIndex, textIndex < typeIndex, case .string(let string) = object.removeValue(at: textIndex) { text = string }
            children = plan.role.isElement ? object.removeValue(forKey: "children") : nil
            node = Node(key: key, type: type, role: plan.role, isUnknown: false, text: text, fields: object)
            do { try plan.plugin.validate(node) } catch {
                throw LexicalJSONError(.invalidNode(type, error.message), at: path(error.field.map { ".\($0)" } ?? ""))
            }
        } else {
            node = unknownNode(&object, key: key, type: type, parent: parent, children: &children, siblingsHaveInline: siblingsHaveInline)
            childRule = nil
        }
        if let parentRule = parent.childRule, !parentRule.accepts(type: type, role: node.role) {
            throw LexicalJSONError(.childNotAccepted(parent: parent.type, child: type), at: path())
        }
        if parent.childRule != nil, let allowedParents, !allowedParents.contains(parent.type) {
            throw LexicalJSONError(.childNotAccepted(parent: parent.type, child: type), at: path())
        }
        return (node, childRule)
    }

    /// An unknown type keeps all its members. Its role is inferred so that the flat string stays
    /// sensible: with `children` it is an element, inline when it sits in inline content; with a
    /// string `text` it is text-like; otherwise it is a decorator.
    func unknownNode(
        _ object: inout JSONObject, key: NodeKey, type: NodeType, parent: Parent, children: inout JSONValue?,
        siblingsHaveInline: () -> Bool
    ) -> Node {
        let parentTakesInlines = parent.childRule == .inlines || parent.role == .element(inline: true)
        let inline = parentTakesInlines || siblingsHaveInline()
        let role: NodeRole
        var text = ""
        if object["children"] != nil {
            role = .element(inline: inline)
        } else if case .string? = object["text"], case .string(let string)? = object.removeValue(forKey: "text") {
            role = .text
            text = string
        } else {
            role = .decorator(inline: inline)
        }
        children = takeMembers(of: &object)
        return Node(key: key, type: type, role: role, isUnknown: true, text: text, fields: object)
    }

    /// Checks the members `specs` describe: required ones present, each of its type, and
    /// `version` an integer.
    ///
    /// `hints` (one per spec, or none) and `versionHint` say where to look first.
    func checkFields(of object: JSONObject, specs: [FieldSpec], hints: [Int], versionHint: Int) throws(LexicalJSONError) {
        // The specs and values are read in place: copying a spec out retained its name, type
        // and default, and copying a value retained its payload, for every field of every node.
        for number in specs.indices {
            guard let index = object.index(forKey: specs[number].name, hint: number < hints.count ? hints[number] : -1) else {
                if specs[number].isRequired { throw LexicalJSONError(.missingField(specs[number].name), at: path()) }
                continue
            }
            guard specs[number].type.accepts(object.members[index].value) else {
                let spec = specs[number]
                throw LexicalJSONError(.wrongType(expected: spec.type.description, found: describe(object.members[index].value)),
                                       at: path(".\(spec.name)"))
            }
        }
        if let index = object.index(forKey: "version", hint: versionHint), !FieldType.integer.accepts(object.members[index].value) {
            throw LexicalJSONError(.wrongType(expected: "integer", found: describe(object.members[index].value)), at: path(".version"))
        }
    }

    /// Removes `type` and `children` from a node's object, which leaves its fields (a text
    /// node's `text` is removed already), and returns the `children` member.
    ///
    /// - Complexity: O(m) for m members.
    func takeMembers(of object: inout JSONObject) -> JSONValue? {
        object.removeValue(forKey: "type")
        return object.removeValue(forKey: "children")
    }

    func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): "string \"\(string.prefix(40))\""
        case .number(let number): "\(value.typeName) \(number)"
        default: value.typeName
        }
    }
}
