import Foundation
import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import QuireTestSupport
import Testing

/// A real Loro peer (loro==1.17.1, `Tests/Interop/loro_peer.py`) on a document in the bridge's
/// schema, exchanging Loro's JSON updates with bound Quire editors.
final class SchemaLoroPeer {
    static let script = repositoryRoot.appendingPathComponent("Tests/Interop/loro_peer.py").path
    private let process: JSONLinesPeer
    private let doc = "schema"

    /// A Loro document with peer ID `peer` and the schema's expand rules (`configTextStyle`).
    init(peer: PeerID) throws {
        guard let python = JSONLinesPeer.loroPython else { throw JSONLinesPeer.Failure(description: "QUIRE_LORO_PYTHON is not set") }
        process = try JSONLinesPeer(name: "loro peer", executable: python, arguments: [Self.script])
        try process.request(["cmd": "new", "doc": .string(doc), "peer": .string(String(peer))])
        var styles = JSONObject()
        for (key, rule) in DocumentSchema.expandRules.sorted(by: { $0.key < $1.key }) {
            styles[key] = switch rule {
            case .after: "after"
            case .before: "before"
            case .both: "both"
            case .none: "none"
            }
        }
        try process.request(["cmd": "styles", "doc": .string(doc), "styles": .object(styles)])
    }

    /// Scripted edits in one commit (loro_peer.py's ops; the schema's block ops name the shared
    /// text and tree by the schema's root names).
    @discardableResult
    func edit(_ ops: [JSONObject]) throws -> JSONObject {
        try process.request(["cmd": "edit", "doc": .string(doc), "ops": .array(ops.map(JSONValue.object))])
    }

    /// Loro's JSON updates beyond `version`.
    func updates(since version: VersionVector) throws -> String {
        var from = JSONObject()
        for (peer, end) in version.ends { from[String(peer)] = .number(.integer(Int(end))) }
        guard let json = try process.request(["cmd": "export", "doc": .string(doc), "from": .object(from)])["json"]?.stringValue else {
            throw JSONLinesPeer.Failure(description: "export returned no json")
        }
        return json
    }

    /// Imports what `binding`'s document has beyond this peer's version.
    func receive(from binding: EditorBinding) throws {
        let json = binding.document.exportJSONUpdates(from: try version()).jsonString()
        try process.request(["cmd": "import", "doc": .string(doc), "json": .string(json)])
    }

    /// Sends `binding` what this peer has beyond its document's version.
    func send(to binding: EditorBinding) throws {
        try binding.importJSONUpdates(updates(since: binding.document.version))
    }

    /// `get_deep_value()` and the shared text's delta.
    func state() throws -> (deep: JSONObject, delta: [JSONObject]) {
        let reply = try process.request(["cmd": "state", "doc": .string(doc), "texts": [.string(DocumentSchema.text.description)]])
        let delta = reply["deltas"]?.objectValue?[DocumentSchema.text.description]?.arrayValue?.compactMap(\.objectValue) ?? []
        return (reply["deep"]?.objectValue ?? [:], delta)
    }

    func version() throws -> VersionVector {
        let reply = try process.request(["cmd": "state", "doc": .string(doc)])
        var ends: [PeerID: OpCounter] = [:]
        for (peer, end) in reply["vv"]?.objectValue ?? [:] {
            guard let id = PeerID(peer), let counter = end.intValue else { throw JSONLinesPeer.Failure(description: "a bad version entry \(peer)") }
            ends[id] = OpCounter(counter)
        }
        return VersionVector(ends)
    }
}

@Suite(.enabled(if: JSONLinesPeer.loroPython != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test creates .venv-interop and sets it)"))
struct LoroCoEditTests {
    static let text = DocumentSchema.text.description
    static let tree = "blocks"

    /// A tree ID as the schema writes it.
    static func string(_ id: TreeID) -> String { "\(id.counter)@\(id.peer)" }

    /// The blocks under the root of a bound document, in order.
    static func rootBlocks(_ binding: EditorBinding) -> [String] {
        binding.document.children(of: nil, in: DocumentSchema.blocks).map(string)
    }

    /// The child objects of a Lexical node (or of the root of an exported document).
    static func children(_ node: JSONValue?) -> [JSONObject] {
        let object = node?.objectValue?["root"] ?? node
        return object?.objectValue?["children"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    /// Sends Loro's edits to the editor, which must show `text` (and the projection of its
    /// document) with top-level blocks of `types`; returns those blocks' Lexical JSON.
    static func show(_ loro: SchemaLoroPeer, in quire: Peer, expecting text: String, types: [String]) throws -> [JSONObject] {
        try loro.send(to: quire.binding)
        #expect(quire.text == text)
        try quire.checkInvariant("after Loro's edits")
        let blocks = children(quire.json)
        #expect(blocks.map { $0["type"]?.stringValue } == types)
        return blocks
    }

    /// A bound editor showing one paragraph of `text`, and a Loro peer holding the same document;
    /// with the paragraph's tree ID.
    static func start(with text: String, quire: PeerID, loro: PeerID) throws -> (Peer, SchemaLoroPeer, String) {
        let editor = try Peer("Q", peer: quire, document: CRDTDocument(peer: quire), state: EditorState(registry: Plugins.registry, paragraphs: [text]))
        let peer = try SchemaLoroPeer(peer: loro)
        try peer.receive(from: editor.binding)
        return (editor, peer, try #require(rootBlocks(editor.binding).first))
    }

    /// Loro types into a block, bolds a word and creates a heading block: the bound editor shows
    /// all of it, and Loro sees the editor's answer.
    @Test func aLoroPeersEditsShowInABoundEditor() throws {
        let (quire, loro, paragraph) = try Self.start(with: "Hello", quire: 1, loro: 2)
        try quire.select(5..<5)

        let reply = try loro.edit([
            ["op": "block_insert", "block": .string(paragraph), "offset": 5, "text": " world", "container": .string(Self.text)],
            ["op": "block_mark", "block": .string(paragraph), "start": 0, "end": 5, "key": "bold", "value": true, "container": .string(Self.text)],
            ["op": "block_create", "tree": .string(Self.tree), "container": .string(Self.text), "parent": .null, "index": 1,
             "after": .string(paragraph), "meta": ["type": "heading", "tag": "h2"], "text": "Loro"],
        ])
        let heading = try #require(reply["ids"]?.arrayValue?.first?.stringValue)
        let blocks = try Self.show(loro, in: quire, expecting: "Hello world\nLoro", types: ["paragraph", "heading"])
        let runs = Self.children(blocks.first.map(JSONValue.object))
        #expect(runs.map { $0["text"]?.stringValue } == ["Hello", " world"])
        #expect(runs.map { $0["format"]?.intValue } == [1, 0])
        #expect(blocks.last?["tag"]?.stringValue == "h2")
        #expect(blocks.last?["children"]?.arrayValue?.first?.objectValue?["text"]?.stringValue == "Loro")
        // The caret stays after "Hello", before the text Loro inserted there.
        #expect(quire.editor.nativeSelection == 5..<5)
        #expect(Self.rootBlocks(quire.binding) == [paragraph, heading])

        // The editor answers in the heading; Loro gets it in that block's run.
        try quire.select(16..<16)
        try quire.type("!")
        try loro.receive(from: quire.binding)
        let (deep, delta) = try loro.state()
        #expect(deep["text"]?.stringValue == "\u{2029}Hello world\u{2029}Loro!")
        #expect(delta.last?["insert"]?.stringValue == "Loro!")
        #expect(try loro.version() == quire.binding.document.version)
    }

    /// The editor's typing, bold, Enter and a heading appear in Loro's deep value in the
    /// documented shape: a tree node per block whose meta is the block's type and Lexical fields,
    /// and one text where each block's run starts with U+2029 marked with the block's ID.
    @Test func aBoundEditorsEditsAppearInLorosDeepValue() throws {
        let quire = try Peer("Q", peer: 7, document: CRDTDocument(peer: 7))
        try quire.type("Hello world")
        try quire.type("\n")
        try quire.type("Title")
        try quire.select(0..<5)
        try quire.editor.dispatch(Commands.formatText, .bold)
        try quire.select(14..<14)
        #expect(try quire.editor.dispatch(named: "heading.set", payload: "h1"))
        #expect(quire.text == "Hello world\nTitle")
        let loro = try SchemaLoroPeer(peer: 8)
        try loro.receive(from: quire.binding)
        let (deep, delta) = try loro.state()

        let nodes = deep["blocks"]?.arrayValue?.compactMap(\.objectValue) ?? []
        let ids = Self.rootBlocks(quire.binding)
        #expect(nodes.map { $0["id"]?.stringValue } == ids)
        #expect(nodes.map { $0["parent"] } == [.null, .null])
        #expect(nodes.map { $0["index"]?.intValue } == [0, 1])
        #expect(nodes.allSatisfy { $0["children"]?.arrayValue?.isEmpty == true })
        // Each node's meta: the block's type and its Lexical fields, as the editor exports them.
        let exported = Self.children(quire.json)
        #expect(exported.count == nodes.count)
        for (node, block) in zip(nodes, exported) {
            var fields = block
            fields["children"] = nil
            #expect(node["meta"]?.objectValue == fields)
        }
        #expect(nodes.map { $0["meta"]?.objectValue?["type"]?.stringValue } == ["paragraph", "heading"])
        #expect(nodes.last?["meta"]?.objectValue?["tag"]?.stringValue == "h1")

        #expect(deep["text"]?.stringValue == "\u{2029}Hello world\u{2029}Title")
        let expected: [JSONObject] = [
            ["insert": "\u{2029}", "attributes": ["block": .string(ids[0])]],
            ["insert": "Hello", "attributes": ["bold": true]],
            ["insert": " world"],
            ["insert": "\u{2029}", "attributes": ["block": .string(ids[1])]],
            ["insert": "Title"],
        ]
        #expect(delta == expected)
        #expect(try loro.version() == quire.binding.document.version)
    }

    /// Loro splits a paragraph (a new block whose marker lands inside the run) while the editor
    /// types into its second half: the typing ends up in the new paragraph on both sides.
    @Test func aLoroSplitKeepsTheEditorsConcurrentTyping() throws {
        let (quire, loro, paragraph) = try Self.start(with: "hello world", quire: 3, loro: 4)
        let base = quire.binding.document.version

        // Loro: a new paragraph block whose marker goes before "world" (shared text position 7:
        // the first marker, then "hello ").
        let created = try loro.edit([["op": "tree_create", "parent": .null, "index": 1, "container": .string(Self.tree)]])
        let split = try #require(created["ids"]?.arrayValue?.first?.stringValue)
        try loro.edit([
            ["op": "tree_meta", "node": .string(split), "key": "type", "value": "paragraph", "container": .string(Self.tree)],
            ["op": "insert", "text": "\u{2029}", "pos": 7, "container": .string(Self.text)],
            ["op": "mark", "start": 7, "end": 8, "key": "block", "value": .string(split), "container": .string(Self.text)],
        ])
        // The editor, concurrently: types at the end of "world".
        try quire.select(11..<11)
        try quire.type("!")

        try quire.binding.importJSONUpdates(loro.updates(since: base))
        try loro.receive(from: quire.binding)
        #expect(quire.text == "hello \nworld!")
        try quire.checkInvariant("after the split")
        #expect(Self.rootBlocks(quire.binding) == [paragraph, split])
        // Loro's document projects to what the editor shows.
        var mirror = CRDTDocument(peer: 99)
        try mirror.importJSONUpdates(try loro.updates(since: VersionVector()))
        let projected = try Projection.state(of: mirror, registry: Plugins.registry)
        #expect(Projection.canonicalJSON(of: projected) == quire.canonicalJSON)
        #expect(try loro.version() == quire.binding.document.version)
    }

    /// Loro creates a nested block: a bullet list (a tree node without a run) with two items
    /// under it (each with its marker), after the paragraph.
    @Test func aListALoroPeerCreatesShowsNested() throws {
        let (quire, loro, paragraph) = try Self.start(with: "Shopping", quire: 5, loro: 6)
        let list = try #require(try loro.edit([
            ["op": "tree_create", "parent": .null, "index": 1, "container": .string(Self.tree)],
        ])["ids"]?.arrayValue?.first?.stringValue)
        let first = try #require(try loro.edit([
            ["op": "tree_meta", "node": .string(list), "key": "type", "value": "list", "container": .string(Self.tree)],
            ["op": "tree_meta", "node": .string(list), "key": "listType", "value": "bullet", "container": .string(Self.tree)],
            ["op": "tree_meta", "node": .string(list), "key": "tag", "value": "ul", "container": .string(Self.tree)],
            ["op": "block_create", "tree": .string(Self.tree), "container": .string(Self.text), "parent": .string(list), "index": 0,
             "after": .string(paragraph), "meta": ["type": "listitem", "value": 1], "text": "milk"],
        ])["ids"]?.arrayValue?.first?.stringValue)
        try loro.edit([
            ["op": "block_create", "tree": .string(Self.tree), "container": .string(Self.text), "parent": .string(list), "index": 1,
             "after": .string(first), "meta": ["type": "listitem", "value": 2], "text": "eggs"],
        ])
        let blocks = try Self.show(loro, in: quire, expecting: "Shopping\nmilk\neggs", types: ["paragraph", "list"])
        let items = Self.children(blocks.last.map(JSONValue.object))
        #expect(items.map { $0["type"]?.stringValue } == ["listitem", "listitem"])
        #expect(items.map { $0["children"]?.arrayValue?.first?.objectValue?["text"]?.stringValue } == ["milk", "eggs"])
        // Enter at the end of "eggs" in the editor makes a third item that Loro sees under the list.
        try quire.select(18..<18)
        try quire.type("\n")
        try quire.type("bread")
        try loro.receive(from: quire.binding)
        let nodes = try loro.state().deep["blocks"]?.arrayValue?.compactMap(\.objectValue) ?? []
        let children = Self.children(nodes.last.map(JSONValue.object))
        #expect(children.map { $0["meta"]?.objectValue?["type"]?.stringValue } == ["listitem", "listitem", "listitem"])
        #expect(children.allSatisfy { $0["parent"]?.stringValue == list })
        #expect(try loro.state().deep["text"]?.stringValue == "\u{2029}Shopping\u{2029}milk\u{2029}eggs\u{2029}bread")
    }
}
