// Measures QuireModel against baselines in the same run:
// 1. Import and export of a generated ~30 MB Lexical JSON document, next to Foundation's
//    JSONSerialization parsing and writing the same bytes (JSON work alone, no document model).
//    Lexical JS needs about 28 s to import 30 MB (DESIGN.md); the goal is under 1 s.
// 2. Cloning an EditorState and writing one node in the clone, at 1k, 10k and 100k nodes, next to
//    the same with the nodes in a plain Swift Dictionary (which copies everything on write).
import BenchSupport
import Foundation
import QuireAlgorithms
import QuireModel

func generateDocument(targetBytes: Int, using generator: inout SeededGenerator) -> [UInt8] {
    let words = ["editor", "quire", "lexical", "reconciler", "tree", "café", "naïve", "日本語", "emoji 👍🏽", "tab\tstop", "\"quoted\""]
    var state = EditorState()
    var approximateBytes = 0
    do {
        while approximateBytes < targetBytes {
            let paragraph = try state.createNode(type: .paragraph, fields: ["direction": .string("ltr")])
            try state.append(paragraph, to: .root)
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let text = (0..<Int.random(in: 2...12, using: &generator)).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
                let node = try state.createNode(type: .text, text: text, fields: [
                    "format": .number(.integer([0, 0, 1, 2, 3, 8].randomElement(using: &generator)!)),
                ])
                try state.append(node, to: paragraph)
                approximateBytes += text.utf8.count + 90
                if Int.random(in: 0..<10, using: &generator) == 0 {
                    try state.append(try state.createNode(type: .lineBreak), to: paragraph)
                    approximateBytes += 35
                }
            }
            approximateBytes += 120
        }
    } catch {
        fatalError("generating the benchmark document failed: \(error)")
    }
    return LexicalJSON.exportBytes(state)
}

let arguments = CommandLine.arguments.dropFirst()
// Profiling aids (for valgrind and perf): `--write-document FILE` writes the generated document;
// `--only-import FILE [N]` imports that file N times (default 5) and nothing else, printing each
// import's time (like the table's, which also frees the previous import's state).
if arguments.first == "--only-import", let path = arguments.dropFirst().first {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let count = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5
    var state = EditorState()
    for _ in 0..<count {
        let seconds = try Bench.time { state = try LexicalJSON.importState(from: bytes) }
        print("import \(Bench.format(seconds)) (\(state.nodeCount) nodes, \(bytes.count) bytes)")
    }
    exit(0)
}

print("# QuireModel benchmark (release build, one run)\n")
var generator = Bench.generator(default: 0x30DE1)
let document = generateDocument(targetBytes: 30_000_000, using: &generator)
print("document: \(document.count) bytes\n")
if arguments.first == "--write-document", let path = arguments.dropFirst().first {
    try Data(document).write(to: URL(fileURLWithPath: path))
    exit(0)
}

var imported = EditorState()
let importSeconds = try Bench.best(of: 3) { imported = try LexicalJSON.importState(from: document) }
var parsedOnly: JSONValue = .null
let parseSeconds = try Bench.best(of: 3) { parsedOnly = try JSONParser.parse(document) }
var exported: [UInt8] = []
let exportSeconds = Bench.best(of: 3) { exported = LexicalJSON.exportBytes(imported) }
precondition(exported == document, "export must reproduce the generated document byte for byte")

let data = Data(document)
var foundationObject: Any = NSNull()
let foundationParse = try Bench.best(of: 3) { foundationObject = try JSONSerialization.jsonObject(with: data) }
let foundationWrite = try Bench.best(of: 3) { _ = try JSONSerialization.data(withJSONObject: foundationObject) }

Bench.table(["30 MB Lexical JSON", "Quire", "Foundation JSONSerialization (JSON only)", "ratio Quire / Foundation", "Lexical JS (DESIGN.md)"], [
    ["import", Bench.format(importSeconds), Bench.format(foundationParse), String(format: "%.2f×", importSeconds / foundationParse), "28 s"],
    ["export", Bench.format(exportSeconds), Bench.format(foundationWrite), String(format: "%.2f×", exportSeconds / foundationWrite), "—"],
])
print("\nof which JSON parsing alone: \(Bench.format(parseSeconds))")
print("nodes imported: \(imported.nodeCount), throughput \(String(format: "%.0f", Double(document.count) / importSeconds / 1e6)) MB/s import\n")

func buildState(paragraphs: Int) -> EditorState {
    var state = EditorState()
    do {
        for index in 0..<paragraphs {
            let paragraph = try state.createNode(type: .paragraph)
            try state.append(paragraph, to: .root)
            try state.append(try state.createNode(type: .text, text: "paragraph \(index)"), to: paragraph)
        }
    } catch {
        fatalError("building the benchmark state failed: \(error)")
    }
    return state
}

var rows: [[String]] = []
for paragraphs in [500, 5_000, 50_000] {
    let state = buildState(paragraphs: paragraphs)
    let nodeCount = state.nodeCount
    let textKeys = state.children(of: .root).compactMap { $0.firstChild }
    var plain: [NodeKey: Node] = [:]
    for key in textKeys { plain[key] = state[key]! }
    for paragraph in state.children(of: .root) { plain[paragraph.key] = paragraph }

    let iterations = 2_000
    var sink = 0
    let persistent = try Bench.best(of: 3) {
        for iteration in 0..<iterations {
            var clone = state
            try clone.setText("edited \(iteration)", of: textKeys[iteration % textKeys.count])
            sink &+= clone.nodeCount
        }
    } / Double(iterations)
    let dictionaryIterations = max(20, iterations / (nodeCount / 500))
    let dictionary = Bench.best(of: 3) {
        for iteration in 0..<dictionaryIterations {
            var clone = plain
            // Any write into the copy forces Dictionary to copy all of its storage.
            clone[textKeys[iteration % textKeys.count]] = plain[textKeys[(iteration + 1) % textKeys.count]]
            sink &+= clone.count
        }
    } / Double(dictionaryIterations)
    precondition(sink != 0)
    rows.append(["\(nodeCount)", Bench.format(persistent), Bench.format(dictionary), String(format: "%.0f×", dictionary / persistent)])
}
Bench.table(["nodes", "clone + write one node (EditorState)", "same with a Swift Dictionary (baseline)", "baseline / Quire"], rows)
