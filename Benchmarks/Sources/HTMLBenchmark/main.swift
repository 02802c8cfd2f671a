// HTML → EditorState against gumbo's own parse of the same page (the baseline: gumbo_parse and
// gumbo_destroy_output, nothing else), on real pages given as arguments or, by default, a 5 MB
// page of cmark-gfm's HTML of the CommonMark/GFM spec examples; then the time per megabyte of
// hostile inline markup at 1 MB and 10 MB (linear when the two agree).
// Run: swift run -c release --package-path Benchmarks HTMLBenchmark [PAGE.html ...]
import BenchSupport
import Foundation
import QuireCatalog
import QuireConfig
import QuireHTML
import QuireMarkdown
import QuireMarkup
import QuireModel

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// cmark-gfm's HTML of the spec examples, concatenated until `bytes` is reached, in one body.
func specPage(bytes: Int) throws -> String {
    var pieces: [String] = []
    for file in ["commonmark-spec-0.31.2.spec.json", "cmark-gfm-spec.json", "cmark-gfm-extensions.json"] {
        let data = try Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/commonmark/\(file)"))
        for entry in try JSONParser.parse(Array(data)).arrayValue ?? [] {
            if let markdown = entry.objectValue?["markdown"]?.stringValue { pieces.append(try CmarkGFM.html(markdown)) }
        }
    }
    var page = "<!DOCTYPE html>\n<html><head><title>spec</title></head><body>\n"
    var index = 0
    while page.utf8.count < bytes {
        page += "<section>\n" + pieces[index % pieces.count] + "</section>\n"
        index += 1
    }
    return page + "</body></html>\n"
}

let configuration = try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog)
let converter = HTMLConverter(registry: try configuration.makeRegistry(), contributions: configuration.plugins.contributions)

var pages: [(name: String, html: String)] = []
for path in CommandLine.arguments.dropFirst() {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    pages.append((URL(fileURLWithPath: path).lastPathComponent, String(decoding: bytes, as: UTF8.self)))
}
if pages.isEmpty { pages.append(("spec examples (cmark-gfm HTML)", try specPage(bytes: 5_000_000))) }

var rows: [[String]] = []
for page in pages {
    var gumboNodes = 0
    let gumbo = try Bench.best(of: 3) { gumboNodes = try Gumbo.countNodes(parsing: page.html) }
    var treeNodes = 0
    let parse = try Bench.best(of: 3) { treeNodes = try Gumbo.parse(page.html).count }
    var nodes = 0
    let importing = try Bench.best(of: 3) { nodes = try converter.state(fromHTML: page.html).nodeCount }
    let state = try converter.state(fromHTML: page.html)
    var written = 0
    let export = try Bench.best(of: 3) { written = try converter.html(from: state).utf8.count }
    let megabytes = String(format: "%.2f MB", Double(page.html.utf8.count) / 1_000_000)
    rows.append(["\(page.name) (\(megabytes))", "gumbo alone (\(gumboNodes) nodes)", Bench.format(gumbo), "1.00"])
    rows.append(["", "guard + gumbo + tree (\(treeNodes) nodes)", Bench.format(parse), String(format: "%.2f", parse / gumbo)])
    rows.append(["", "HTML → EditorState (\(nodes) nodes)", Bench.format(importing), String(format: "%.2f", importing / gumbo)])
    rows.append(["", "EditorState → HTML (\(written) B)", Bench.format(export), String(format: "%.2f", export / gumbo)])
}
Bench.table(["page", "step", "time", "ratio to gumbo alone"], rows)

// Hostile inline markup: the import's time per megabyte at 1 MB and at 10 MB.
var linearity: [[String]] = []
for (name, unit) in [("10 MB of <span>x</span>", "<span>x</span>"), ("mixed <b>, <i>, <a>", "<b>b</b><i>i</i><a href=\"/x\">a</a> ")] {
    var perMegabyte: [Double] = []
    for megabytes in [1, 10] {
        let html = String(repeating: unit, count: megabytes * 1_000_000 / unit.utf8.count)
        let seconds = try Bench.best(of: 2) { _ = try converter.state(fromHTML: html) }
        perMegabyte.append(seconds / Double(megabytes))
    }
    linearity.append([name, Bench.format(perMegabyte[0]), Bench.format(perMegabyte[1]), String(format: "%.2f", perMegabyte[1] / perMegabyte[0])])
}
Bench.table(["hostile input", "per MB at 1 MB", "per MB at 10 MB", "ratio (1.00 = linear)"], linearity)
