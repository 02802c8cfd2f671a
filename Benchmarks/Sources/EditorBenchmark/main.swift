// Keystroke latency, paste and index memory for the editor, measured next to a baseline in the
// same run that does what Lexical iOS does on every keystroke: find the location's node by a
// linear walk, and recompute every node's absolute location (its RangeCache) in O(n).
import BenchSupport
import Foundation
import QuireEditor
import QuireModel
import QuirePositionIndex
import QuireReconciler
import QuireTextStorage

let sentence = "The quick brown fox jumps over the lazy dog, twice."  // 51 UTF-16 units

func document(paragraphs: Int) -> EditorState {
    EditorState(paragraphs: Array(repeating: sentence, count: paragraphs))
}

/// Lexical iOS's bookkeeping: absolute locations per node, rebuilt after each update.
struct AbsoluteLocationBaseline {
    var state: EditorState
    let storage: TextStorage
    var locations: [NodeKey: (location: Int, length: Int)] = [:]

    init(state: EditorState) throws {
        self.state = state
        storage = TextStorage(Reconciler.render(state))
        rebuildCache()
    }

    /// O(n): every node's absolute location, as RangeCache holds them.
    mutating func rebuildCache() {
        var location = 0
        var stack: [(Node, Bool)] = [(state.root, false)]
        while let (node, leaving) = stack.popLast() {
            if leaving {
                location += FlatString.postamble(of: node, in: state).utf16.count
                continue
            }
            let start = location
            location += FlatString.preamble(of: node, in: state).utf16.count + FlatString.content(of: node).utf16.count
            locations[node.key] = (start, 0)
            stack.append((node, true))
            for child in state.children(of: node.key).reversed() { stack.append((child, false)) }
        }
    }

    /// One keystroke at `location`: a linear search for the text node, the state update, the
    /// storage edit, and the O(n) location update.
    mutating func type(_ text: String, at location: Int) throws {
        var target: (NodeKey, Int)?
        for (key, entry) in locations where state[key]?.role == .text {
            let length = state.textLength(key)
            if entry.location <= location && location <= entry.location + length { target = (key, location - entry.location); break }
        }
        guard let (key, offset) = target else { return }
        try state.select(.text(key, offset))
        try state.insertText(text)
        try storage.performControllerEdit { (storage) throws(TextStorageError) in try storage.replaceCharacters(in: NSRange(location: location, length: 0), with: text) }
        rebuildCache()
    }
}

// `--only-paste PARAGRAPHS [N]`: N pastes (default 1) through an editor with a storage into a
// fresh document of PARAGRAPHS paragraphs, nothing else measured: for callgrind and perf.
if Bench.arguments.first == "--only-paste" {
    let paragraphs = Bench.arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
    let count = Bench.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1
    let source = document(paragraphs: paragraphs)
    let text = Array(repeating: sentence, count: 2_000).joined(separator: "\n")
    var times: [Double] = []
    for _ in 0..<count {
        let editor = try Editor(state: source, storage: TextStorage())
        let middle = editor.storage!.length / 2
        times.append(try Bench.time { try editor.replaceCharacters(in: middle..<middle, with: text) })
    }
    print("paste 2,000 paragraphs into \(paragraphs): median \(Bench.format(Bench.percentile(times, 0.5))) of \(count)")
    exit(0)
}

// Optional section names on the command line: keystroke, paste, memory (default: all).
let sections = Set(Bench.arguments)
func wants(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }
print("# Editor benchmark (release build, one run)\n")
var generator = Bench.generator(default: 0xED17)
var rows: [[String]] = []
var p50s: [Int: Double] = [:]
for paragraphs in wants("keystroke") ? [1_000, 10_000, 100_000] : [] {
    let state = document(paragraphs: paragraphs)
    let editor = try Editor(state: state, storage: TextStorage())
    let length = editor.storage!.length
    var quire: [Double] = []
    for _ in 0..<300 {
        let location = Int.random(in: (length / 2 - 1_000)...(length / 2 + 1_000), using: &generator)
        quire.append(try Bench.time { try editor.replaceCharacters(in: location..<location, with: "x") })
    }
    var baseline = try AbsoluteLocationBaseline(state: state)
    var lexical: [Double] = []
    let baselineKeystrokes = paragraphs >= 100_000 ? 20 : 100
    for _ in 0..<baselineKeystrokes {
        let location = Int.random(in: (length / 2 - 1_000)...(length / 2 + 1_000), using: &generator)
        lexical.append(try Bench.time { try baseline.type("x", at: location) })
    }
    p50s[paragraphs] = Bench.percentile(quire, 0.5)
    rows.append([
        "\(paragraphs)", "\(length)",
        Bench.format(Bench.percentile(quire, 0.5)), Bench.format(Bench.percentile(quire, 0.99)),
        Bench.format(Bench.percentile(lexical, 0.5)), Bench.format(Bench.percentile(lexical, 0.99)),
        String(format: "%.0f×", Bench.percentile(lexical, 0.5) / Bench.percentile(quire, 0.5)),
    ])
}
if wants("keystroke") {
    Bench.table(["paragraphs", "UTF-16 units", "Quire p50", "Quire p99", "baseline p50", "baseline p99", "baseline / Quire (p50)"], rows)
    print(String(format: "\nQuire p50 growth from 1k to 100k paragraphs: %.2f×", p50s[100_000]! / p50s[1_000]!))
}

// Paste of 2,000 paragraphs, into an empty editor and into the middle of a 10k-paragraph one:
// the median of several pastes, each into a fresh editor (QUIRE_BENCH_PASTE_RUNS, default 5; a
// large count makes a profile of the paste alone).
let pasted = Array(repeating: sentence, count: 2_000).joined(separator: "\n")
let pasteRuns = max(1, Int(ProcessInfo.processInfo.environment["QUIRE_BENCH_PASTE_RUNS"] ?? "") ?? 5)
var pasteRows: [[String]] = []
for paragraphs in wants("paste") ? [1, 10_000] : [] {
    let source = document(paragraphs: paragraphs)
    var withStorage: [Double] = [], stateAlone: [Double] = [], headlessTimes: [Double] = [], fullTimes: [Double] = []
    for _ in 0..<pasteRuns {
        let editor = try Editor(state: source, storage: TextStorage())
        let middle = editor.storage!.length / 2
        withStorage.append(try Bench.time { try editor.replaceCharacters(in: middle..<middle, with: pasted) })
        fullTimes.append(Bench.time { _ = Reconciler.render(editor.state) })
        var stateOnly = source
        try stateOnly.select(.text(stateOnly[stateOnly.child(at: paragraphs / 2, of: .root)!]!.firstChild!, 3))
        stateAlone.append(try Bench.time { try stateOnly.insertInput(pasted) })
        let headless = try Editor(state: source)
        headlessTimes.append(try Bench.time { try headless.replaceCharacters(in: middle..<middle, with: pasted) })
    }
    let median = { (times: [Double]) in Bench.format(Bench.percentile(times, 0.5)) }
    pasteRows.append(["\(paragraphs)", median(withStorage), median(stateAlone), median(headlessTimes), median(fullTimes), "6.4 s / 0.88 s"])
}
print("")
if wants("paste") { Bench.table(["paste 2,000 paragraphs into a document of (median of \(pasteRuns))", "Quire editor (state + reconcile + storage)", "state edit alone", "headless editor (no storage)", "full render of the result (for scale)", "lexical-ios main / best fork (DESIGN.md)"], pasteRows) }

// Index memory per node: resident growth while building the index of a 100k-paragraph state.
if wants("memory") {
let big = document(paragraphs: 100_000)
let before = Bench.residentBytes() ?? 0
let index = try Reconciler.buildIndex(big)
let after = Bench.residentBytes() ?? 0
print(String(format: "\nposition index: %d nodes, %.0f bytes per node (resident growth)", index.nodeCount, Double(after - before) / Double(index.nodeCount)))
}
