import Foundation
import QuireJSON
import QuireTestSupport
import Testing
@testable import QuireCRDT

/// A real Loro peer: `Tests/Interop/loro_peer.py` run by the Python of the interop virtualenv
/// (`QUIRE_LORO_PYTHON`, which `make test` sets after creating `.venv-interop`), spoken to in
/// JSON lines over its standard input and output.
final class LoroPeer {
    /// The interpreter with loro==1.17.1 installed, when the environment names one.
    static var python: String? { JSONLinesPeer.loroPython }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/loro_peer.py").path

    typealias Failure = JSONLinesPeer.Failure

    private let process: JSONLinesPeer

    init() throws {
        guard let python = Self.python else { throw Failure(description: "QUIRE_LORO_PYTHON is not set") }
        process = try JSONLinesPeer(name: "loro peer", executable: python, arguments: [Self.script])
    }

    /// Sends one request and returns the reply's fields; a reply with `"ok": false` throws its error.
    @discardableResult
    func request(_ fields: JSONObject) throws -> JSONObject { try process.request(fields) }

    // MARK: commands

    func create(_ doc: String, peer: PeerID) throws { try request(["cmd": "new", "doc": .string(doc), "peer": .string(String(peer))]) }
    func drop(_ doc: String) throws { try request(["cmd": "drop", "doc": .string(doc)]) }

    @discardableResult
    func edit(_ doc: String, _ ops: [JSONValue]) throws -> JSONObject { try request(["cmd": "edit", "doc": .string(doc), "ops": .array(ops)]) }

    /// Random edits; with `all`, the movable list and counter too.
    func randomEdits(_ doc: String, seed: UInt64, count: Int, all: Bool = false) throws {
        // The seed's 64 bits as a JSON integer (Python seeds from any integer).
        try request([
            "cmd": "random", "doc": .string(doc), "seed": .number(.integer(Int(truncatingIfNeeded: seed))),
            "count": .number(.integer(count)), "all": .bool(all),
        ])
    }

    func exportJSON(_ doc: String, from version: VersionVector = VersionVector()) throws -> String {
        var from = JSONObject()
        for (peer, end) in version.ends { from[String(peer)] = .number(.integer(Int(end))) }
        guard let json = try request(["cmd": "export", "doc": .string(doc), "from": .object(from)])["json"]?.stringValue else {
            throw Failure(description: "export returned no json")
        }
        return json
    }

    func importJSON(_ doc: String, _ json: String) throws { try request(["cmd": "import", "doc": .string(doc), "json": .string(json)]) }

    /// What `export(ExportMode…)` writes.
    enum BinaryMode {
        case updates(from: VersionVector)
        case snapshot
        case shallow(Frontiers)
    }

    func exportBinary(_ doc: String, _ mode: BinaryMode) throws -> [UInt8] {
        var fields: JSONObject = ["cmd": "export_bin", "doc": .string(doc)]
        switch mode {
        case .updates(let from):
            fields["mode"] = "updates"
            var ends = JSONObject()
            for (peer, end) in from.ends { ends[String(peer)] = .number(.integer(Int(end))) }
            fields["from"] = .object(ends)
        case .snapshot: fields["mode"] = "snapshot"
        case .shallow(let f):
            fields["mode"] = "shallow"
            fields["frontiers"] = .array(f.ids.map { .string($0.description) })
        }
        guard let text = try request(fields)["bytes"]?.stringValue, let data = Data(base64Encoded: text) else {
            throw Failure(description: "export_bin returned no bytes")
        }
        return [UInt8](data)
    }

    /// Imports a binary blob; returns whether changes wait for missing dependencies.
    @discardableResult
    func importBinary(_ doc: String, _ bytes: [UInt8]) throws -> Bool {
        try request(["cmd": "import_bin", "doc": .string(doc), "bytes": .string(Data(bytes).base64EncodedString())])["pending"]?.boolValue ?? false
    }

    /// What a Loro document holds, as values comparable with a ``CRDTDocument``'s.
    struct State {
        var deep: CRDTValue
        var deltas: [String: CRDTValue]
        var version: VersionVector
        var frontiers: Frontiers
    }

    func state(_ doc: String, texts: [ContainerID]) throws -> State {
        let reply = try request(["cmd": "state", "doc": .string(doc), "texts": .array(texts.map { .string($0.description) })])
        // Loro's JSON conventions (🦜: container references), as its deep values carry them.
        func value(_ json: JSONValue?) throws -> CRDTValue { try CRDTValue(loroJSON: json ?? .null, peers: nil) }
        var deltas: [String: CRDTValue] = [:]
        for (name, list) in reply["deltas"]?.objectValue ?? JSONObject() { deltas[name] = try value(list) }
        var ends: [PeerID: OpCounter] = [:]
        for (peer, end) in reply["vv"]?.objectValue ?? JSONObject() {
            guard let peerID = PeerID(peer), let counter = end.intValue else { throw Failure(description: "a bad version vector entry \(peer)") }
            ends[peerID] = OpCounter(counter)
        }
        var ids: [OpID] = []
        for entry in reply["frontiers"]?.arrayValue ?? [] {
            let parts = (entry.stringValue ?? "").split(separator: "@")
            guard parts.count == 2, let peer = PeerID(parts[1]), let counter = OpCounter(parts[0]) else {
                throw Failure(description: "a bad frontier \(entry)")
            }
            ids.append(OpID(peer: peer, counter: counter))
        }
        return State(deep: try value(reply["deep"]), deltas: deltas, version: VersionVector(ends), frontiers: Frontiers(ids))
    }
}

/// What both sides are compared on.
enum Comparable {
    /// A deep value without root containers that are empty (the peer script gets a handle of
    /// every container its random edits use, and Loro lists a root once a handle touched it).
    static func deep(_ v: CRDTValue) -> CRDTValue {
        guard case .map(let roots) = plain(v) else { return v }
        return .map(roots.filter { _, value in
            switch value {
            case .string(let s): return !s.isEmpty
            case .list(let l): return !l.isEmpty
            case .map(let m): return !m.isEmpty
            case .int(let i): return i != 0
            default: return true
            }
        })
    }

    /// Binary as a list of byte values, as the peer sends Loro's bytes over JSON, and whole
    /// numbers as integers (the JSON between the two sides drops a float's `.0`).
    static func plain(_ v: CRDTValue) -> CRDTValue {
        switch v {
        case .binary(let b): return .list(b.map { .int(Int64($0)) })
        case .double(let d) where d.rounded() == d && d.magnitude < 1e15: return .int(Int64(d))
        case .list(let l): return .list(l.map(plain))
        case .map(let m): return .map(m.mapValues(plain))
        default: return v
        }
    }

    /// A text delta as loro-py's `to_delta()` gives it (attributes omitted when there are none).
    static func delta(_ doc: CRDTDocument, _ c: ContainerID) -> CRDTValue {
        .list(doc.toDelta(c).compactMap { step in
            guard case let .insert(s, attributes) = step else { return nil }
            return attributes.isEmpty ? .map(["insert": .string(s)]) : .map(["insert": .string(s), "attributes": .map(attributes)])
        })
    }

    /// Every text container of a document.
    static func texts(_ doc: CRDTDocument) -> [ContainerID] { doc.containers.filter { $0.type == .text } }
}
