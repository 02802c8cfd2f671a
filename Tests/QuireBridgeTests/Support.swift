import Foundation
import QuireBridge
import QuireCatalog
import QuireConfig
import QuireCRDT
import QuireEditor
import QuireModel
import QuireReconciler
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
    static var extensions: [any Sendable] { configuration.plugins.flatMap(\.extensions) }

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
        let extensions = Plugins.extensions
        editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(extensions))
        editor.install(extensions)
        let clock = clock
        binding = try EditorBinding(editor: editor, document: document.fork(peer: peer), clock: { clock.milliseconds })
    }

    var text: String { editor.storage?.string ?? "" }
    var json: JSONValue { LexicalJSON.export(editor.state) }

    /// Types at the native selection.
    func type(_ text: String) throws {
        try editor.replaceCharacters(in: editor.nativeSelection ?? 0..<0, with: text)
    }

    func select(_ range: Range<Int>) throws { try editor.selectionDidChange(range) }

    /// Imports what `other` has that this peer lacks.
    func receive(from other: Peer) throws {
        try binding.importUpdates(other.binding.exportUpdates(since: binding.document.version))
    }

    /// The invariant: the editor shows the projection of the CRDT document, and the storage the
    /// full render.
    func checkInvariant(_ context: String = "") throws {
        let projected = try Projection.state(of: binding.document, registry: Plugins.registry)
        #expect(LexicalJSON.export(projected) == json, "\(name) \(context): the editor is not the projection of its document")
        try editor.reconciler.verify(editor.state)
    }
}

