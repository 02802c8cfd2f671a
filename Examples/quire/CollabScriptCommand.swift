import ArgumentParser
import Foundation
import QuireBridge
import QuireCRDT
import QuireEditScript
import QuireEditor
import QuireModel

/// `quire collab-script SCRIPT.jsonl [--document FILE.json]`: replays a session of several
/// editors, each bound to its own CRDT document, in one process.
struct CollabScript: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collab-script",
        abstract: "Replay a JSON Lines script of several collaborating editors and print each one's result.",
        discussion: """
        One step per line: an edit-script step with a "peer" field, {"peer":"A","op":"type","text":"hi"} \
        (see `quire edit-script --help` for the ops, interaction steps included), {"op":"sync","from":A,"to":B} (B imports what A \
        has that B lacks), or {"op":"syncAll"} (every peer gets everything). A peer is created when a \
        step first names it; every peer starts from the same document (--document, or one empty \
        paragraph): the first one seeds a CRDT document from it, the others start from its bytes. \
        Prints {"peers": {NAME: {"text", "selection", "state"}}, "converged": true when every peer \
        holds the same CRDT version and the same Lexical JSON}.
        """
    )

    @Argument(help: "The script, JSON Lines, or - for standard input.")
    var script: String

    @Option(help: "The document every peer starts from (default: one empty paragraph).")
    var document: String?

    @OptionGroup var config: ConfigOptions

    func run() throws {
        let loaded = try config.load()
        var session = try CollabSession(
            initial: EditScriptCommand.initialState(document, registry: loaded.registry),
            contributions: loaded.configuration.plugins.contributions
        )
        try EditScript.forEachStep(in: InputFile.read(script)) { step in try session.apply(step) }
        print(JSONWriter().string(.object(session.result())))
    }
}

/// The editors of a collaboration script, each bound to its own CRDT document.
struct CollabSession {
    struct Peer {
        let editor: Editor
        let binding: EditorBinding
        /// The peer's interaction state (live reload, viewport, highlights).
        let interaction: ScriptInteraction
        /// What the binding reported while writing a local commit (it then showed the CRDT's
        /// projection again, so the step's edit is lost).
        let failures: Failures
    }

    final class Failures {
        var errors: [BridgeError] = []
    }

    let initial: EditorState
    let contributions: [PluginContribution]
    private(set) var names: [String] = []
    private(set) var peers: [String: Peer] = [:]
    /// The first peer's document right after it seeded it: where every later peer starts.
    private var seed: [UInt8]?

    init(initial: EditorState, contributions: [PluginContribution]) {
        self.initial = initial
        self.contributions = contributions
    }

    /// Applies one step of the script.
    mutating func apply(_ step: JSONValue) throws {
        guard let object = step.objectValue else { throw EditScriptError("a step must be a JSON object") }
        switch object["op"]?.stringValue {
        case "sync":
            try sync(from: existing(object, "from"), to: existing(object, "to"))
        case "syncAll":
            try syncAll()
        default:
            guard let name = object["peer"]?.stringValue else {
                throw EditScriptError("an edit step needs a string \"peer\"")
            }
            let peer = try self.peer(named: name)
            try EditScript.apply(step, to: peer.editor, interaction: peer.interaction)
            if let error = peer.failures.errors.first {
                peer.failures.errors.removeAll()
                throw EditScriptError("peer \"\(name)\": the edit could not be written to its CRDT document: \(error)")
            }
        }
    }

    /// The peer a sync step names in `key`; it must exist.
    private func existing(_ object: JSONObject, _ key: String) throws -> Peer {
        guard let name = object[key]?.stringValue else { throw EditScriptError("\"sync\" needs a string \"\(key)\"") }
        guard let peer = peers[name] else {
            let known = names.isEmpty ? "none yet" : names.map { "\"\($0)\"" }.joined(separator: ", ")
            throw EditScriptError("\"sync\" names peer \"\(name)\", which does not exist (peers: \(known))")
        }
        return peer
    }

    /// The named peer, created on first use (peer IDs 1, 2, … in order of creation).
    private mutating func peer(named name: String) throws -> Peer {
        if let peer = peers[name] { return peer }
        let id = PeerID(names.count + 1)
        var document = CRDTDocument(peer: id)
        if let seed { try document.importUpdates(seed) }
        // A peer after the first starts from the seed's bytes: its editor shows their projection.
        let editor = try EditScript.makeEditor(state: seed == nil ? initial : EditorState(registry: initial.registry, paragraphs: [""]), contributions: contributions)
        let binding = try EditorBinding(editor: editor, document: document)
        if seed == nil { seed = binding.exportUpdates() }
        let failures = Failures()
        binding.onError = { failures.errors.append($0) }
        let peer = Peer(editor: editor, binding: binding, interaction: ScriptInteraction(editor: editor), failures: failures)
        names.append(name)
        peers[name] = peer
        return peer
    }

    /// `to` imports what `from` has that it lacks.
    private func sync(from: Peer, to: Peer) throws {
        try to.binding.importUpdates(from.binding.exportUpdates(since: to.binding.document.version))
    }

    /// Every peer gets everything: the first gathers what the others have, then each of them
    /// takes what it lacks from the first.
    private func syncAll() throws {
        guard let first = names.first.flatMap({ peers[$0] }) else { return }
        let others = names.dropFirst().compactMap { peers[$0] }
        for peer in others { try sync(from: peer, to: first) }
        for peer in others { try sync(from: first, to: peer) }
    }

    /// Every peer's edit-script result, and whether they converged: the same CRDT version and
    /// the same document (Lexical JSON without the empty text nodes only a caret keeps).
    func result() -> JSONObject {
        var results = JSONObject()
        for name in names {
            let peer = peers[name]!
            results[name] = .object(EditScript.result(of: peer.editor, interaction: peer.interaction))
        }
        let all = names.compactMap { peers[$0] }
        let converged = all.dropFirst().allSatisfy { peer in
            peer.binding.document.version == all[0].binding.document.version
                && Projection.canonicalJSON(of: peer.editor.state) == Projection.canonicalJSON(of: all[0].editor.state)
        }
        return ["peers": .object(results), "converged": .bool(converged)]
    }
}
