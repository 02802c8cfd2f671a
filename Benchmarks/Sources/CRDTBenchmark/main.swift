import BenchSupport
import Foundation
import QuireCRDT

// The CRDT benchmark: replays the automerge-paper trace into Quire and, in the same run, into Loro
// (PyPI loro) and Yrs (PyPI pycrdt) through Benchmarks/peers/peer_bench.py, then prints a table
// with ratios. Loro's own JSON updates, binary updates and snapshot of the trace are written by
// the Python side and imported by Quire here, next to Loro importing the same bytes. Run in release:
//   swift run -c release --package-path Benchmarks CRDTBenchmark [--no-peers] [TRACE.json.gz]

let arguments = CommandLine.arguments.dropFirst()

// Child mode: load one snapshot in a fresh process and print the resident-memory growth.
if arguments.first == "--rss-probe", let path = arguments.dropFirst().first {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let before = Bench.residentBytes() ?? 0
    let doc = try CRDTDocument.load(snapshot: bytes, peer: 2)
    let after = Bench.residentBytes() ?? 0
    print(after - before, doc.length(of: TraceReplay.textID))
    exit(0)
}
// Profiling aid: parse and import one Loro JSON updates file, best of 10.
if arguments.first == "--only-json", let path = arguments.dropFirst().first {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let parse = try Bench.best(of: 10) { _ = try LoroJSONUpdates(json: bytes) }
    let updates = try LoroJSONUpdates(json: bytes)
    let apply = try Bench.best(of: 10) { var d = CRDTDocument(peer: 3); try d.importJSONUpdates(updates) }
    print("parse \(Bench.format(parse)), import \(Bench.format(apply)) (\(updates.changes.reduce(0) { $0 + $1.ops.count }) ops)")
    exit(0)
}
// Profiling aid: import one Loro binary blob (updates or snapshot, then read the text), best of 10.
if arguments.first == "--only-loro", let path = arguments.dropFirst().first {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    var text = ""
    let seconds = try Bench.best(of: 10) {
        var d = CRDTDocument(peer: 3)
        try d.importLoro(bytes)
        text = d.text(TraceReplay.textID)
    }
    print("import + read text \(Bench.format(seconds)) (\(text.unicodeScalars.count) scalars)")
    // The first edit decodes the whole state (the load above leaves it undecoded).
    let edit = try Bench.best(of: 10) {
        var d = CRDTDocument(peer: 3)
        try d.importLoro(bytes)
        try d.insertText("x", at: 0, in: TraceReplay.textID)
    }
    print("import + first edit \(Bench.format(edit))")
    exit(0)
}
// Profiling aid (runs under valgrind, which cannot spawn gzip): replay an uncompressed trace,
// then import Quire's own updates blob of it into a fresh document `N` times (default 10).
if arguments.first == "--only-own", let path = arguments.dropFirst().first {
    let trace = try EditingTrace(json: Data(contentsOf: URL(fileURLWithPath: path)))
    let blob = try TraceReplay.replaySequential(trace).exportUpdates()
    let count = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10
    let seconds = try Bench.best(of: count) { var d = CRDTDocument(peer: 3); try d.importUpdates(blob) }
    print("import own updates \(Bench.format(seconds)) (\(blob.count) bytes)")
    exit(0)
}
let skipPeers = arguments.contains("--no-peers")
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let tracePath = arguments.first { !$0.hasPrefix("--") }
    ?? packageRoot.appendingPathComponent("Tests/Fixtures/traces/automerge-paper.json.gz").path

func run(_ executable: String, _ args: [String], environment: [String: String]? = nil) -> (Int32, Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = args
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
        FileHandle.standardError.write(Data("cannot run \(executable): \(error)\n".utf8))
        return (-1, Data())
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}

let (gzipStatus, json) = run("/usr/bin/gzip", ["-dc", tracePath])
guard gzipStatus == 0 else { fatalError("cannot decompress \(tracePath)") }
let trace = try EditingTrace(json: json)
let textID = TraceReplay.textID
print("trace: \(tracePath.split(separator: "/").last ?? "") — \(trace.patchCount) patches in \(trace.transactions.count) transactions")

if arguments.contains("--only-replay") {
    for _ in 0..<10 { _ = try TraceReplay.replaySequential(trace) }
    exit(0)
}
if arguments.contains("--only-import") || arguments.contains("--only-load") {
    let doc = try TraceReplay.replaySequential(trace)
    let blob = arguments.contains("--only-import") ? doc.exportUpdates() : doc.exportSnapshot()
    for _ in 0..<200 {
        if arguments.contains("--only-import") { var d = CRDTDocument(peer: 3); try d.importUpdates(blob) } else { _ = try CRDTDocument.load(snapshot: blob, peer: 3) }
    }
    exit(0)
}
// 1. Replay with a commit per transaction (best of 5).
var replayedDocs: [CRDTDocument] = []
let replaySeconds = try Bench.best(of: 5) { replayedDocs.append(try TraceReplay.replaySequential(trace)) }
let replayed = replayedDocs[0]
precondition(replayed.text(textID) == trace.endContent, "replay diverged from endContent")
// 1b. One commit at the end.
let oneCommitSeconds = try Bench.best(of: 5) { replayedDocs.append(try TraceReplay.replaySequential(trace, commitEachTransaction: false)) }

// 2. Snapshot size, load + read text.
let snapshot = replayed.exportSnapshot()
// Loaded documents stay alive until all runs are done, so no run pays for freeing the previous one
// (the Python side keeps its documents alive the same way).
var loadedText = ""
var loadedDocs: [CRDTDocument] = []
let loadSeconds = try Bench.best(of: 20) {
    let doc = try CRDTDocument.load(snapshot: snapshot, peer: 2)
    loadedText = doc.text(textID)
    loadedDocs.append(doc)
}
precondition(loadedText == trace.endContent)

// 3. All updates as one blob into a fresh document.
let allUpdates = replayed.exportUpdates()
var importedText = ""
var importedDocs: [CRDTDocument] = []
let importSeconds = try Bench.best(of: 5) {
    var doc = CRDTDocument(peer: 3)
    try doc.importUpdates(allUpdates)
    importedText = doc.text(textID)
    importedDocs.append(doc)
}
precondition(importedText == trace.endContent)

// 4. Mean update size per keystroke: export each transaction's change on its own. Peer 1 is what
// the Python side uses for Loro and Yrs; a random 64-bit peer (what real sessions get) costs a few
// more bytes in our varint peer table.
/// The mean size of one transaction's update, replaying the first `count` transactions and
/// exporting each with `export` (from the version before it).
func meanUpdateBytes(peer: PeerID, count: Int = trace.transactions.count,
                     _ export: (CRDTDocument, VersionVector) -> [UInt8] = { $0.exportUpdates(since: $1) }) throws -> Double {
    var total = 0
    var doc = CRDTDocument(peer: peer)
    for txn in trace.transactions.prefix(count) {
        let before = doc.version
        for p in txn.patches {
            if p.deleteCount > 0 { try doc.delete(at: p.position, count: p.deleteCount, in: textID) }
            if !p.insert.isEmpty { try doc.insertText(p.insert, at: p.position, in: textID) }
        }
        doc.commit()
        total += export(doc, before).count
    }
    return Double(total) / Double(max(1, count))
}
let meanUpdate = try meanUpdateBytes(peer: 1)
let meanUpdateRandomPeer = try meanUpdateBytes(peer: 0xC3A5_9F1E_77D2_4B06)

// 5. Resident memory of a loaded document, measured in a fresh child process.
let snapshotFile = FileManager.default.temporaryDirectory.appendingPathComponent("quire-crdt-bench-\(ProcessInfo.processInfo.processIdentifier).snapshot")
try Data(snapshot).write(to: snapshotFile)
let (probeStatus, probeOut) = run(CommandLine.arguments[0], ["--rss-probe", snapshotFile.path])
do { try FileManager.default.removeItem(at: snapshotFile) } catch {
    FileHandle.standardError.write(Data("could not remove \(snapshotFile.path): \(error)\n".utf8))
}
let perDoc = probeStatus == 0 ? Int(String(decoding: probeOut, as: UTF8.self).split(separator: " ").first ?? "") ?? 0 : 0

struct PeerNumbers {
    var replay: Double?
    var oneCommit: Double?
    var snapshotBytes: Int?
    var load: Double?
    var updatesBytes: Int?
    var importAll: Double?
    var updateBytes: Double?
    var jsonBytes: Int?
    var importJSON: Double?
    var exportSnapshot: Double?
    var exportUpdates: Double?
}

// Loro writes the whole history as JSON updates here, so that Quire imports exactly Loro's text.
let loroJSONFile = FileManager.default.temporaryDirectory.appendingPathComponent("quire-crdt-bench-\(ProcessInfo.processInfo.processIdentifier)-loro.json")
// …and its binary updates and snapshot (updates.bin, snapshot.bin).
let loroBinaryDir = FileManager.default.temporaryDirectory.appendingPathComponent("quire-crdt-bench-\(ProcessInfo.processInfo.processIdentifier)-loro")

func peerNumbers() -> [String: PeerNumbers] {
    if skipPeers { return [:] }
    let peersDir = packageRoot.appendingPathComponent("Benchmarks/peers")
    let venv = packageRoot.appendingPathComponent("Benchmarks/.venv")
    let python = venv.appendingPathComponent("bin/python").path
    if !FileManager.default.fileExists(atPath: python) {
        print("creating \(venv.path) with loro==1.17.1 and pycrdt==0.14.13 …")
        _ = run("/usr/bin/env", ["python3", "-m", "venv", venv.path])
        _ = run(python, ["-m", "pip", "install", "--quiet", "-r", peersDir.appendingPathComponent("requirements.txt").path])
    }
    do { try FileManager.default.createDirectory(at: loroBinaryDir, withIntermediateDirectories: true) } catch {
        FileHandle.standardError.write(Data("cannot create \(loroBinaryDir.path): \(error)\n".utf8))
    }
    let (status, out) = run(python, [peersDir.appendingPathComponent("peer_bench.py").path, tracePath, "--json-out", loroJSONFile.path,
                                     "--bin-out", loroBinaryDir.path])
    let object: [String: [String: Double]]
    do {
        guard status == 0, let parsed = try JSONSerialization.jsonObject(with: out) as? [String: [String: Double]] else {
            print("peer benchmark failed (status \(status)); showing Quire only")
            return [:]
        }
        object = parsed
    } catch {
        print("peer benchmark printed no JSON (\(error)); showing Quire only")
        return [:]
    }
    var result: [String: PeerNumbers] = [:]
    for (name, m) in object {
        result[name] = PeerNumbers(replay: m["replay_s"], oneCommit: m["one_commit_s"], snapshotBytes: m["snapshot_bytes"].map { Int($0) },
                                   load: m["load_s"], updatesBytes: m["updates_bytes"].map { Int($0) }, importAll: m["import_all_s"],
                                   updateBytes: m["update_bytes_per_txn"], jsonBytes: m["json_bytes"].map { Int($0) },
                                   importJSON: m["import_json_s"], exportSnapshot: m["export_snapshot_s"], exportUpdates: m["export_updates_s"])
    }
    return result
}

let peers = peerNumbers()

// 6. Loro JSON updates of the whole history: Quire imports the JSON Loro wrote (parse included),
// next to Loro importing the same text; without the peers, Quire's own export stands in.
let exportJSONSeconds = Bench.best(of: 3) { _ = replayed.exportJSONUpdates().jsonBytes() }
let ownJSON = replayed.exportJSONUpdates().jsonBytes()
var loroJSON: [UInt8]?
if FileManager.default.fileExists(atPath: loroJSONFile.path) {
    loroJSON = try [UInt8](Data(contentsOf: loroJSONFile))
    do { try FileManager.default.removeItem(at: loroJSONFile) } catch {
        FileHandle.standardError.write(Data("could not remove \(loroJSONFile.path): \(error)\n".utf8))
    }
}
let jsonToImport = loroJSON ?? ownJSON
var jsonDocs: [CRDTDocument] = []
let parseJSONSeconds = try Bench.best(of: 5) { _ = try LoroJSONUpdates(json: jsonToImport) }
let importJSONSeconds = try Bench.best(of: 5) {
    var doc = CRDTDocument(peer: 3)
    try doc.importJSONUpdates(LoroJSONUpdates(json: jsonToImport))
    jsonDocs.append(doc)
}
precondition(jsonDocs[0].text(textID) == trace.endContent, "the JSON import diverged from endContent")
print("Loro JSON updates imported: \(loroJSON != nil ? "written by Loro" : "Quire's own export (no peers)"), \(jsonToImport.count) bytes")
// 7. Loro's binary formats: Quire's exports of the trace, and Quire importing Loro's own bytes
// (without the peers, Quire's own Loro export stands in).
let loroUpdates = replayed.exportLoroUpdates()
let loroSnapshot = replayed.exportLoroSnapshot()
let exportLoroUpdatesSeconds = Bench.best(of: 5) { _ = replayed.exportLoroUpdates() }
let exportLoroSnapshotSeconds = Bench.best(of: 5) { _ = replayed.exportLoroSnapshot() }
func loroFile(_ name: String) throws -> [UInt8]? {
    let url = loroBinaryDir.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    defer {
        do { try FileManager.default.removeItem(at: url) } catch { FileHandle.standardError.write(Data("could not remove \(url.path): \(error)\n".utf8)) }
    }
    return try [UInt8](Data(contentsOf: url))
}
let updatesFromLoro = try loroFile("updates.bin")
let snapshotFromLoro = try loroFile("snapshot.bin")
do { try FileManager.default.removeItem(at: loroBinaryDir) } catch { if !skipPeers { FileHandle.standardError.write(Data("could not remove \(loroBinaryDir.path): \(error)\n".utf8)) } }
var loroDocs: [CRDTDocument] = []
/// The best time of importing `blob` into an empty document and reading the text (the documents
/// stay alive, so freeing them is not timed).
@MainActor func timeLoroImport(_ blob: [UInt8], runs: Int, _ what: String) throws -> Double {
    var text = ""
    let seconds = try Bench.best(of: runs) {
        var doc = CRDTDocument(peer: 3)
        try doc.importLoro(blob)
        text = doc.text(textID)
        loroDocs.append(doc)
    }
    precondition(text == trace.endContent, "the \(what) import diverged from endContent")
    return seconds
}
let importLoroUpdatesSeconds = try timeLoroImport(updatesFromLoro ?? loroUpdates, runs: 10, "Loro updates")
let loadLoroSnapshotSeconds = try timeLoroImport(snapshotFromLoro ?? loroSnapshot, runs: 20, "Loro snapshot")
// Keystroke-sized updates in Loro's binary format: each transaction's change on its own, over the
// first transactions (Quire's Loro export resolves positions against the whole history, so the
// whole trace this way would take minutes; the size per keystroke barely depends on it).
let keystrokeSample = min(2_000, trace.transactions.count)
let meanLoroUpdate = try meanUpdateBytes(peer: 1, count: keystrokeSample) { $0.exportLoroUpdates(from: $1) }
print("Loro binary blobs imported: \(updatesFromLoro != nil ? "written by Loro" : "Quire's own export (no peers)")")

func cell(_ v: Double?, time: Bool) -> String {
    guard let v else { return "—" }
    return time ? Bench.format(v) : String(format: "%.0f", v)
}
func ratio(_ quire: Double, _ other: Double?) -> String {
    guard let other, quire > 0 else { return "—" }
    return String(format: "%.1f×", other / quire)
}
let loro = peers["loro"], yrs = peers["yrs"]
let rows: [(String, Double, Double?, Double?, Bool)] = [
    ("replay, commit per txn", replaySeconds, loro?.replay, yrs?.replay, true),
    ("replay, one commit", oneCommitSeconds, loro?.oneCommit, yrs?.oneCommit, true),
    ("snapshot bytes", Double(snapshot.count), loro?.snapshotBytes.map(Double.init), yrs?.snapshotBytes.map(Double.init), false),
    ("snapshot load + read text", loadSeconds, loro?.load, yrs?.load, true),
    ("all-updates blob bytes", Double(allUpdates.count), loro?.updatesBytes.map(Double.init), yrs?.updatesBytes.map(Double.init), false),
    ("import all updates (fresh doc)", importSeconds, loro?.importAll, yrs?.importAll, true),
    ("mean update bytes per txn (peer 1)", meanUpdate, loro?.updateBytes, yrs?.updateBytes, false),
    ("same, random 64-bit peer", meanUpdateRandomPeer, nil, nil, false),
    ("Loro JSON updates bytes (whole history)", Double(ownJSON.count), loro?.jsonBytes.map(Double.init), nil, false),
    ("import Loro JSON updates (parse incl.)", importJSONSeconds, loro?.importJSON, nil, true),
    ("  of which parsing the JSON", parseJSONSeconds, nil, nil, true),
    ("export Loro JSON updates", exportJSONSeconds, nil, nil, true),
    ("Loro binary updates bytes (whole history)", Double(loroUpdates.count), loro?.updatesBytes.map(Double.init), nil, false),
    ("mean Loro binary update bytes per txn (first \(keystrokeSample))", meanLoroUpdate, loro?.updateBytes, nil, false),
    ("export Loro binary updates", exportLoroUpdatesSeconds, loro?.exportUpdates, nil, true),
    ("import Loro binary updates (Loro's blob)", importLoroUpdatesSeconds, loro?.importAll, nil, true),
    ("Loro snapshot bytes", Double(loroSnapshot.count), loro?.snapshotBytes.map(Double.init), nil, false),
    ("export Loro snapshot", exportLoroSnapshotSeconds, loro?.exportSnapshot, nil, true),
    ("Loro snapshot load + read text (Loro's blob)", loadLoroSnapshotSeconds, loro?.load, nil, true),
]
Bench.table(["what", "Quire", "Loro", "Yrs", "Loro/Quire", "Yrs/Quire"], rows.map { name, q, l, y, isTime in
    [name, cell(q, time: isTime), cell(l, time: isTime), cell(y, time: isTime), ratio(q, l), ratio(q, y)]
})
print("resident memory of the loaded automerge-paper document (fresh process, RSS growth): \(perDoc / 1024) KiB")
print("ratios > 1× mean Quire is smaller/faster")
