import Foundation
import QuireBridge
import QuireCatalog
import QuireConfig
import QuireCRDT
import QuireEditor
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Every built-in plugin, as config.yaml selects them.
enum Plugins {
    static let configuration: Configuration = {
        do {
            return try Configuration.load(contentsOf: repositoryRoot.appendingPathComponent("config.yaml").path, catalog: BuiltInPlugins.catalog)
        } catch {
            preconditionFailure("config.yaml loads: \(error)")
        }
    }()
    static let registry: NodeRegistry = {
        do { return try configuration.makeRegistry() } catch { preconditionFailure("the registry builds: \(error)") }
    }()
    static var contributions: [PluginContribution] { configuration.plugins.contributions }

    static func fixture(_ name: String) throws -> EditorState {
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/\(name)")
        return try LexicalJSON.importState(from: Array(try Data(contentsOf: url)), registry: registry)
    }

    static var fixtureNames: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json").path))?
            .filter { $0.hasSuffix(".json") }.sorted() ?? []
    }
}

/// A peer: an editor with a storage, bound to its own CRDT document.
final class Peer {
    let name: String
    let editor: Editor
    let binding: EditorBinding
    var clock = Clock()

    final class Clock: @unchecked Sendable { var milliseconds: Double = 0 }

    init(_ name: String, peer: PeerID, document: CRDTDocument, state: EditorState = EditorState(registry: Plugins.registry, paragraphs: [""])) throws {
        self.name = name
        let contributions = Plugins.contributions
        editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(contributions))
        try editor.install(contributions)
        let clock = clock
        binding = try EditorBinding(editor: editor, document: document.fork(peer: peer), clock: { clock.milliseconds })
        // The binding recovers from an editor that refused a change by showing the projection
        // again; in a test that is a bug to see, not to recover from.
        binding.onError = { [name] error in Issue.record("\(name): the binding had to recover: \(error)") }
    }

    var text: String { editor.storage?.string ?? "" }
    var json: JSONValue { LexicalJSON.export(editor.state) }
    var canonicalJSON: JSONValue { Projection.canonicalJSON(of: editor.state) }

    /// Types at the native selection.
    func type(_ text: String) throws {
        try editor.replaceCharacters(in: editor.nativeSelection ?? 0..<0, with: text)
    }

    func select(_ range: Range<Int>) throws { try editor.selectionDidChange(range) }

    /// Imports what `other` has that this peer lacks.
    func receive(from other: Peer) throws {
        try binding.importUpdates(other.binding.exportUpdates(since: binding.document.version))
    }

    /// The block tree, one node per line, indented by depth (for failure dumps).
    var treeOutline: String {
        var outline = ""
        func walk(_ parent: TreeID?, _ indent: String) {
            for child in binding.document.children(of: parent, in: DocumentSchema.blocks) {
                let type = binding.document.get("type", in: binding.document.properties(of: child))
                outline += "\n  \(indent)\(child.counter)@\(child.peer) \(type.map { "\($0)" } ?? "?")"
                walk(child, indent + "  ")
            }
        }
        walk(nil, "")
        return outline
    }

    /// The invariant: the editor shows the projection of the CRDT document, and the storage the
    /// full render.
    func checkInvariant(_ context: String = "") throws {
        let projected = try Projection.state(of: binding.document, registry: Plugins.registry)
        if let difference = firstDifference(Projection.canonicalJSON(of: projected), canonicalJSON) {
            var dump = ""
            if ProcessInfo.processInfo.environment["QUIRE_BRIDGE_DUMP"] != nil {
                for step in binding.document.toDelta(DocumentSchema.text) {
                    if case .insert(let text, let attributes) = step { dump += "\n  \(text.debugDescription) \(attributes.keys.sorted()) \(attributes["block"].map { "\($0)" } ?? "")" }
                }
                if let match = difference.firstMatch(of: /\$\.root\.children\[(\d+)\]/), let index = Int(match.1) {
                    let mine = canonicalJSON.objectValue?["root"]?.objectValue?["children"]?.arrayValue
                    let theirs = Projection.canonicalJSON(of: projected).objectValue?["root"]?.objectValue?["children"]?.arrayValue
                    if let mine, index < mine.count { dump += "\n editor block:     \(JSONWriter().string(mine[index]))" }
                    if let theirs, index < theirs.count { dump += "\n projection block: \(JSONWriter().string(theirs[index]))" }
                }
                dump += "\n tree:\(treeOutline)"
                dump += "\n editor:    \(text.debugDescription)"
                dump += "\n projection: \(FlatString.render(projected).debugDescription)"
            }
            Issue.record("\(name) \(context): the editor is not the projection of its document: \(difference)\(dump)")
            throw InvariantFailure()
        }
        try editor.reconciler.verify(editor.state)
    }
}


struct InvariantFailure: Error {}

/// Where two JSON values first differ, compactly (projection on the left, editor on the right).
func firstDifference(_ a: JSONValue, _ b: JSONValue, path: String = "$") -> String? {
    switch (a, b) {
    case (.object(let x), .object(let y)):
        for key in Set(x.keys).union(y.keys).sorted() {
            guard let left = x[key] else { return "\(path).\(key) only in the editor: \(short(y[key]!))" }
            guard let right = y[key] else { return "\(path).\(key) only in the projection: \(short(left))" }
            if let difference = firstDifference(left, right, path: "\(path).\(key)") { return difference }
        }
        return nil
    case (.array(let x), .array(let y)):
        for index in 0..<min(x.count, y.count) {
            if let difference = firstDifference(x[index], y[index], path: "\(path)[\(index)]") { return difference }
        }
        return x.count == y.count ? nil : "\(path): \(x.count) vs \(y.count) elements: \(short(a)) vs \(short(b))"
    default:
        return a == b ? nil : "\(path): \(short(a)) vs \(short(b))"
    }
}

func short(_ value: JSONValue) -> String {
    let text = JSONWriter().string(value)
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
}
