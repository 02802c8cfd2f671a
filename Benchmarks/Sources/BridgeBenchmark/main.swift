// The bridge benchmark: what binding an editor to a CRDT document costs, each number next to a
// baseline measured in the same run.
//   keystroke  a local keystroke in a bound editor vs the same editor unbound (1k/10k/100k
//              paragraphs; goal ≤ 2× the unbound p50, flat from 1k to 100k)
//   remote     one remote keystroke applied to a bound editor (goal at 100k paragraphs: p50 ≤ 50 µs)
//              vs importing it, re-projecting the whole document and re-rendering it, as
//              loro-prosemirror does
//   open       a 10k-paragraph document from a snapshot into a bound editor vs the same document
//              from Lexical JSON into an unbound editor
// Sampling stops at a sample count or a time budget, whichever comes first, so that a slow path
// still reports (with fewer samples, which the tables show).
// Run in release: swift run -c release --package-path Benchmarks BridgeBenchmark [SECTION...]
//   [--paragraphs N,N…] (the sizes of keystroke and remote) [--no-baseline] (for profiling the
//   bound paths alone) [--rounds N] (keystrokes per size, 400 by default; more for a profiler)
import BenchSupport
import Foundation
import QuireAlgorithms
import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import QuireTextStorage

let sentence = "The quick brown fox jumps over the lazy dog, twice."  // 51 UTF-16 units
let arguments = Array(CommandLine.arguments.dropFirst())
let sizes: [Int] = {
    guard let flag = arguments.firstIndex(of: "--paragraphs"), flag + 1 < arguments.count else { return [1_000, 10_000, 100_000] }
    return arguments[flag + 1].split(separator: ",").compactMap { Int($0) }
}()
let withBaselines = !arguments.contains("--no-baseline")
let keystrokeRounds: Int = {
    guard let flag = arguments.firstIndex(of: "--rounds"), flag + 1 < arguments.count, let count = Int(arguments[flag + 1]), count > 0 else { return 400 }
    return count
}()

func document(paragraphs: Int) -> EditorState {
    EditorState(paragraphs: Array(repeating: sentence, count: paragraphs))
}

/// An editor with a text storage, as a text view has it.
func makeEditor(_ state: EditorState) throws -> Editor {
    try Editor(state: state, storage: TextStorage())
}

/// A location near the middle of a text of `length` (typing spots vary, the document's size
/// does not).
func location(in length: Int, _ random: inout SeededGenerator) -> Int {
    Int.random(in: max(0, length / 2 - 1_000)...min(length, length / 2 + 1_000), using: &random)
}

/// Runs `body` (which appends its samples) until `count` rounds or `budget` seconds have passed,
/// whichever comes first, and at least `minimum` rounds.
func rounds(_ count: Int, budget: Double, minimum: Int = 3, _ body: (Int) throws -> Void) rethrows {
    let clock = ContinuousClock()
    let start = clock.now
    var round = 0
    while round < count && (round < minimum || Bench.seconds(clock.now - start) < budget) {
        try body(round)
        round += 1
    }
}

func p50(_ samples: [Double]) -> String { samples.isEmpty ? "–" : Bench.format(Bench.percentile(samples, 0.5)) }
func p99(_ samples: [Double]) -> String { samples.isEmpty ? "–" : Bench.format(Bench.percentile(samples, 0.99)) }

var random = SeededGenerator(seed: 0xB1D6_E001)
let sections = Set(arguments.filter { ["keystroke", "remote", "open"].contains($0) })
func wants(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }
print("# Bridge benchmark (release build, one run)\n")

// MARK: Local keystroke, bound vs unbound

if wants("keystroke") {
    var rows: [[String]] = []
    var boundP50: [Int: Double] = [:]
    for paragraphs in sizes {
        let state = document(paragraphs: paragraphs)
        let unbound = try makeEditor(state)
        let bound = try makeEditor(state)
        let binding = try EditorBinding(editor: bound, document: CRDTDocument(peer: 1))
        var plain: [Double] = []
        var bridged: [Double] = []
        // Interleaved, so that both see the same machine (the cores are shared).
        try rounds(keystrokeRounds, budget: keystrokeRounds == 400 ? 30 : .infinity) { _ in
            let at = location(in: unbound.storage!.length, &random)
            plain.append(try Bench.time { try unbound.replaceCharacters(in: at..<at, with: "x") })
            bridged.append(try Bench.time { try bound.replaceCharacters(in: at..<at, with: "x") })
        }
        // Every keystroke reached the CRDT: its text is the storage's plus one marker per paragraph,
        // less the separators between them.
        precondition(binding.document.length(of: DocumentSchema.text) == unbound.storage!.length + 1)
        precondition(bound.storage!.string == unbound.storage!.string)
        let ratio = Bench.percentile(bridged, 0.5) / Bench.percentile(plain, 0.5)
        boundP50[paragraphs] = Bench.percentile(bridged, 0.5)
        rows.append([
            "\(paragraphs)", "\(bridged.count)", p50(bridged), p99(bridged), p50(plain), p99(plain),
            String(format: "%.2f×", ratio), ratio <= 2 ? "yes" : String(format: "no: %.1f× the goal", ratio / 2),
        ])
    }
    print("## Local keystroke: bound editor vs the same editor unbound (interleaved)\n")
    Bench.table(["paragraphs", "keystrokes", "bound p50", "bound p99", "unbound p50", "unbound p99", "bound / unbound (p50)", "≤ 2×"], rows)
    if let small = sizes.first, let large = sizes.last, small != large {
        print(String(format: "\nbound p50 growth from %d to %d paragraphs: %.2f× (goal: flat)\n", small, large, boundP50[large]! / boundP50[small]!))
    }
}

// MARK: One remote keystroke

if wants("remote") {
    var rows: [[String]] = []
    var baselineSeconds: [Int: Double] = [:]
    for paragraphs in sizes {
        // The reader: a bound editor that seeded the document. The writer: a fork of that document
        // typing into the shared text as any peer on the schema does (a keystroke is one text
        // insertion inside a block's run).
        let reader = try makeEditor(document(paragraphs: paragraphs))
        let readerBinding = try EditorBinding(editor: reader, document: CRDTDocument(peer: 2))
        var writer = readerBinding.document.fork(peer: 1)
        try reader.selectionDidChange(1_000..<1_000)
        func keystroke() throws -> [UInt8] {
            let since = writer.version
            let length = writer.length(of: DocumentSchema.text)
            try writer.insertText("x", at: max(1, location(in: length, &random)), in: DocumentSchema.text)
            writer.commit()
            return writer.exportUpdates(since: since)
        }
        var applied: [Double] = []
        var bytes = 0
        try rounds(300, budget: 30) { _ in
            let update = try keystroke()
            bytes = update.count
            applied.append(try Bench.time { try readerBinding.importUpdates(update) })
        }
        precondition(reader.storage!.length == paragraphs * 52 - 1 + applied.count, "the reader shows every keystroke")
        precondition(readerBinding.document.version == writer.version)

        // The baseline: the same import into a CRDT document, then the whole projection shown
        // again in an unbound editor. Its cost grows with the document; it is measured where the
        // previous size says it finishes in a few minutes.
        var baseline: [Double] = []
        // Growth with the square of the size: what the projection does today.
        let estimate = sizes.firstIndex(of: paragraphs).flatMap { index -> Double? in
            guard index > 0, let previous = baselineSeconds[sizes[index - 1]] else { return nil }
            return previous * pow(Double(paragraphs) / Double(sizes[index - 1]), 2)
        }
        if withBaselines, estimate.map({ $0 < 120 }) ?? true {
            var baselineDocument = writer.fork(peer: 3)
            let baselineEditor = try makeEditor(try Projection.state(of: baselineDocument, registry: reader.state.registry))
            try rounds(10, budget: 60, minimum: 1) { _ in
                let update = try keystroke()
                baseline.append(try Bench.time {
                    try baselineDocument.importUpdates(update)
                    try baselineEditor.setState(try Projection.state(of: baselineDocument, registry: baselineEditor.state.registry))
                })
            }
            precondition(baselineEditor.storage!.length == paragraphs * 52 - 1 + applied.count + baseline.count)
            baselineSeconds[paragraphs] = Bench.percentile(baseline, 0.5)
        }
        let bound = Bench.percentile(applied, 0.5)
        let goal = paragraphs == 100_000 ? (bound <= 50e-6 ? "met" : String(format: "missed: %.1f× the goal", bound / 50e-6)) : ""
        rows.append([
            "\(paragraphs)", "\(bytes) B", "\(applied.count)", p50(applied), p99(applied),
            baseline.isEmpty ? (withBaselines ? String(format: "skipped (≈ %.0f s each, estimated)", estimate ?? 0) : "skipped") : "\(baseline.count)",
            p50(baseline), baseline.isEmpty ? "–" : String(format: "%.0f×", Bench.percentile(baseline, 0.5) / bound), goal,
        ])
    }
    print("## One remote keystroke: bound editor (import + minimal remote transaction) vs import + Projection.state + Editor.setState\n")
    Bench.table(["paragraphs", "update", "samples", "bound p50", "bound p99", "baseline samples", "baseline p50", "baseline / bound (p50)", "p50 ≤ 50 µs at 100k"], rows)
    print("")
}

// MARK: Opening a document

if wants("open") {
    let paragraphs = 10_000
    let state = document(paragraphs: paragraphs)
    var seeded = CRDTDocument(peer: 1)
    try Projection.seed(&seeded, from: state)
    let snapshot = seeded.exportSnapshot()
    let json = LexicalJSON.exportBytes(state)
    var loads: [Double] = []
    var binds: [Double] = []
    var opens: [Double] = []
    var baselines: [Double] = []
    try rounds(7, budget: 60, minimum: 1) { _ in
        var loaded: CRDTDocument?
        var editor: Editor?
        loads.append(try Bench.time { loaded = try CRDTDocument.load(snapshot: snapshot, peer: 2) })
        binds.append(try Bench.time {
            editor = try makeEditor(EditorState(paragraphs: [""]))
            _ = try EditorBinding(editor: editor!, document: loaded!)
        })
        opens.append(loads.last! + binds.last!)
        precondition(editor!.storage!.length == paragraphs * 52 - 1, "the whole document is shown")
        baselines.append(try Bench.time { _ = try makeEditor(try LexicalJSON.importState(from: json)) })
    }
    let open = Bench.percentile(opens, 0.5)
    print("## Opening a \(paragraphs)-paragraph document (median of \(opens.count))\n")
    Bench.table(["", "median"], [
        ["snapshot (\(snapshot.count) B) → bound editor", p50(opens)],
        ["  of which CRDTDocument.load(snapshot:)", p50(loads)],
        ["  of which EditorBinding (projection + full render)", p50(binds)],
        ["baseline: Lexical JSON (\(json.count) B) → unbound editor", p50(baselines)],
    ])
    print(String(format: "\nbound open / baseline (median): %.2f×", open / Bench.percentile(baselines, 0.5)))
}
