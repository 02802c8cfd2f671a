// Markdown → EditorState against cmark-gfm's own markdown → HTML on the same ~10 MB input, and
// layout of a 1 MB document at width 80 with the offset ↔ point cost at its end against its start.
// Run: swift run -c release --package-path Benchmarks MarkupBenchmark [megabytes] [--only STEP]
// `--only parse|import|state|state-whole|export [--runs N]` runs that one step N times (default 5) and nothing
// else, for a profiler (`perf record -g`, `valgrind --tool=callgrind`, or `perf stat -e
// instructions` with N and 0 runs: the difference is the step's cost alone).
import BenchSupport
import Foundation
import QuireCatalog
import QuireConfig
import QuireMarkdown
import QuireMarkup
import QuireModel

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The spec examples' markdown, concatenated (blank-line separated) until `bytes` is reached.
func corpus(bytes: Int) throws -> String {
    var examples: [String] = []
    for file in ["commonmark-spec-0.31.2.spec.json", "cmark-gfm-spec.json", "cmark-gfm-extensions.json"] {
        let data = try Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/commonmark/\(file)"))
        let value = try JSONParser.parse(Array(data))
        for entry in value.arrayValue ?? [] {
            if let markdown = entry.objectValue?["markdown"]?.stringValue { examples.append(markdown) }
        }
    }
    var text = ""
    var index = 0
    while text.utf8.count < bytes {
        text += examples[index % examples.count] + "\n\n"
        index += 1
    }
    return text
}

let arguments = Bench.arguments
let onlyStep = arguments.firstIndex(of: "--only").map { index -> String in
    guard index + 1 < arguments.count else { fatalError("--only needs a step: parse, import, state or export") }
    return arguments[index + 1]
}
let runs = arguments.firstIndex(of: "--runs").map { index -> Int in
    guard index + 1 < arguments.count, let count = Int(arguments[index + 1]) else { fatalError("--runs needs a count") }
    return count
} ?? 5
let megabytes = arguments.first.flatMap(Double.init) ?? 10
let configuration = try Configuration.load(
    yaml: "version: 1\nplugins:\n" + BuiltInPlugins.all.map { "  - \($0.name)\n" }.joined(), catalog: BuiltInPlugins.catalog)
let converter = MarkdownConverter(registry: try configuration.makeRegistry(), contributions: configuration.plugins.contributions)

let input = try corpus(bytes: Int(megabytes * 1_000_000))
print("input: \(input.utf8.count) bytes of spec examples")
if let onlyStep {
    let parsed = try MarkdownFormat().parse(input)
    let built = try converter.state(fromMarkdown: input)
    var sink = 0
    for _ in 0..<runs {
        switch onlyStep {
        case "parse": sink &+= try MarkdownFormat().parse(input).blocks.count
        case "import": sink &+= try MarkupImporter(mappings: converter.mappings).makeState(parsed, registry: converter.registry).nodeCount
        case "state": sink &+= try converter.state(fromMarkdown: input).nodeCount
        case "state-whole": sink &+= try MarkupImporter(mappings: converter.mappings).makeState(MarkdownFormat().parse(input), registry: converter.registry).nodeCount
        case "export": sink &+= try converter.markdown(from: built).utf8.count
        default: fatalError("unknown step \(onlyStep): parse, import, state, state-whole or export")
        }
    }
    print("\(onlyStep) × \(runs): \(sink)")
    exit(0)
}
var htmlBytes = 0
let html = try Bench.best(of: 3) { htmlBytes = try CmarkGFM.html(input).utf8.count }
var documentBlocks = 0
let parse = try Bench.best(of: 3) { documentBlocks = try MarkdownFormat().parse(input).blocks.count }
var nodes = 0
let state = try Bench.best(of: 3) { nodes = try converter.state(fromMarkdown: input).nodeCount }
// The same through a whole MarkupDocument, as a parser that cannot stream its blocks gives it.
let stateWhole = try Bench.best(of: 3) {
    _ = try MarkupImporter(mappings: converter.mappings).makeState(MarkdownFormat().parse(input), registry: converter.registry)
}
let parsedDocument = try MarkdownFormat().parse(input)
let importer = MarkupImporter(mappings: converter.mappings)
let importOnly = try Bench.best(of: 3) { _ = try importer.makeState(parsedDocument, registry: converter.registry) }
var written = 0
let sample = try converter.state(fromMarkdown: input)
let export = try Bench.best(of: 3) { written = try converter.markdown(from: sample).utf8.count }
Bench.table(["step", "time", "ratio to cmark-gfm markdown → HTML"], [
    ["cmark-gfm markdown → HTML (\(htmlBytes) B)", Bench.format(html), "1.00"],
    ["markdown → MarkupDocument (\(documentBlocks) blocks)", Bench.format(parse), String(format: "%.2f", parse / html)],
    ["markdown → EditorState (\(nodes) nodes)", Bench.format(state), String(format: "%.2f", state / html)],
    ["of which MarkupDocument → EditorState", Bench.format(importOnly), String(format: "%.2f", importOnly / html)],
    ["markdown → EditorState through a whole MarkupDocument", Bench.format(stateWhole), String(format: "%.2f", stateWhole / html)],
    ["EditorState → markdown (\(written) B)", Bench.format(export), String(format: "%.2f", export / html)],
])

// Layout of about 1 MB at width 80.
let layoutInput = try corpus(bytes: 1_000_000)
let document = try MarkdownFormat().parse(layoutInput)
let metrics = TerminalMetrics()
let built = RunBuilder(metrics: metrics).build(StyleEnvironment().apply(to: EmojiPreprocessor().process(IntentText(document))), proposal: 80)
var layout: TextLayout?
let layoutTime = Bench.best(of: 3) { layout = TextLayout(built, width: 80, metrics: metrics) }
let laidOut = layout!
let queries = 100_000
func conversions(near offsets: Range<Int>) -> Double {
    var sink = 0
    let time = Bench.best(of: 3) {
        var offset = offsets.lowerBound
        for _ in 0..<queries {
            let rect = laidOut.caretRect(forOffset: offset)
            sink &+= laidOut.offset(at: LayoutPoint(x: rect.x, y: rect.y))
            offset += 7
            if offset >= offsets.upperBound { offset = offsets.lowerBound }
        }
    }
    precondition(sink != 0)
    return time / Double(queries)
}
let start = conversions(near: 1..<10_000)
let end = conversions(near: (laidOut.length - 10_000)..<(laidOut.length - 1))
Bench.table(["layout of \(built.units.count) UTF-16 units at width 80", "value"], [
    ["lines", "\(laidOut.lines.count)"],
    ["layout time", Bench.format(layoutTime)],
    ["offset → caret → offset near the start", Bench.format(start)],
    ["offset → caret → offset near the end", Bench.format(end)],
    ["end / start", String(format: "%.2f", end / start)],
])
