// Typing latency inside a table cell of a 200 × 20 table, next to the same keystroke in a
// paragraph of a document of the same size (about the same flat-string length and node count),
// both through the editor's native entry point with a text storage, in the same run. Also the
// cost of the table commands that lay out the whole grid (Tab, a row insert) for scale.
import BenchSupport
import Foundation
import QuireEditor
import QuireModel
import QuireReconciler
import QuireStyle
import QuireSelection
import QuireTable
import QuireTextStorage

let rows = 200
let columns = 20
let keystrokes = 600

func registry() throws -> NodeRegistry {
    var registry = NodeRegistry()
    for plugin: any NodePlugin in [TableNodePlugin(), TableRowNodePlugin(), TableCellNodePlugin()] { try registry.register(plugin) }
    return registry
}

/// A paragraph, then a `rows` × `columns` table of "cell0000"-style texts, then a paragraph.
func tableDocument() throws -> (EditorState, texts: [NodeKey]) {
    var state = EditorState(registry: try registry(), paragraphs: ["before"])
    let table = try state.createNode(type: TableNodePlugin.type)
    var texts: [NodeKey] = []
    for row in 0..<rows {
        let rowKey = try state.createNode(type: TableRowNodePlugin.type)
        try state.append(rowKey, to: table)
        for column in 0..<columns {
            let cell = try state.createNode(type: TableCellNodePlugin.type)
            let paragraph = try state.createNode(type: .paragraph)
            let text = try state.createNode(type: .text, text: "cell" + String(format: "%04d", row * columns + column))
            try state.append(text, to: paragraph)
            try state.append(paragraph, to: cell)
            try state.append(cell, to: rowKey)
            texts.append(text)
        }
    }
    try state.append(table, to: .root)
    let after = try state.createNode(type: .paragraph)
    try state.append(after, to: .root)
    try state.append(try state.createNode(type: .text, text: "after"), to: after)
    return (state, texts)
}

/// Paragraphs of plain text with about as many nodes and UTF-16 units as `reference`.
func paragraphDocument(like reference: EditorState, length: Int) throws -> (EditorState, texts: [NodeKey]) {
    let paragraphs = (reference.nodeCount - 1) / 2
    let textLength = max(1, Int((Double(length + 1) / Double(paragraphs)).rounded()) - 1)
    let state = EditorState(registry: try registry(), paragraphs: Array(repeating: String(repeating: "p", count: textLength), count: paragraphs))
    return (state, state.children(of: .root).compactMap(\.firstChild))
}

/// `keystrokes` single-character insertions at random places in texts from the middle half of
/// `texts`, through `Editor.replaceCharacters(in:with:)`; seconds per keystroke.
func type(in editor: Editor, texts: [NodeKey], using generator: inout some RandomNumberGenerator) throws -> [Double] {
    var samples: [Double] = []
    let middle = texts[(texts.count / 4)..<(3 * texts.count / 4)]
    for _ in 0..<keystrokes {
        let text = middle.randomElement(using: &generator)!
        let offset = Int.random(in: 0...editor.state.textLength(text), using: &generator)
        let location = try SelectionMapper.location(of: .text(text, offset), in: editor.state, index: editor.reconciler.index)
        samples.append(try Bench.time { try editor.replaceCharacters(in: location..<location, with: "x") })
    }
    return samples
}

print("# Table benchmark (release build, one run)\n")
var generator = Bench.generator(default: 0x7AB1E)
// Both editors use the table plugin's theme, as an app that selects the plugin would.
let theme = Theme.standard.including([TableTheme.contribution])
let (tableState, cellTexts) = try tableDocument()
let tableEditor = try Editor(state: tableState, storage: TextStorage(), theme: theme)
let tableLength = tableEditor.storage!.length
let (paragraphState, paragraphTexts) = try paragraphDocument(like: tableState, length: tableLength)
let paragraphEditor = try Editor(state: paragraphState, storage: TextStorage(), theme: theme)
let paragraphLength = paragraphEditor.storage!.length
// Warm both up so that first-touch allocation does not land in either sample.
_ = try type(in: tableEditor, texts: cellTexts, using: &generator).count
_ = try type(in: paragraphEditor, texts: paragraphTexts, using: &generator).count
let inCell = try type(in: tableEditor, texts: cellTexts, using: &generator)
let inParagraph = try type(in: paragraphEditor, texts: paragraphTexts, using: &generator)
Bench.table(
    ["keystroke into", "nodes", "UTF-16 units", "p50", "p99", "p50 / paragraph p50", "p99 / paragraph p99"],
    [
        ["a cell of a \(rows) × \(columns) table", "\(tableEditor.state.nodeCount)", "\(tableLength)",
         Bench.format(Bench.percentile(inCell, 0.5)), Bench.format(Bench.percentile(inCell, 0.99)),
         String(format: "%.2f×", Bench.percentile(inCell, 0.5) / Bench.percentile(inParagraph, 0.5)),
         String(format: "%.2f×", Bench.percentile(inCell, 0.99) / Bench.percentile(inParagraph, 0.99))],
        ["a paragraph (baseline)", "\(paragraphEditor.state.nodeCount)", "\(paragraphLength)",
         Bench.format(Bench.percentile(inParagraph, 0.5)), Bench.format(Bench.percentile(inParagraph, 0.99)), "1.00×", "1.00×"],
    ]
)

// Commands that lay out the grid (O(rows × columns)), for scale against the keystroke.
try tableEditor.install([TableCommandsExtension()])
var tabs: [Double] = []
var rowInserts: [Double] = []
for _ in 0..<50 {
    let text = cellTexts[Int.random(in: 0..<(cellTexts.count - columns), using: &generator)]
    let location = try SelectionMapper.location(of: .text(text, 0), in: tableEditor.state, index: tableEditor.reconciler.index)
    try tableEditor.selectionDidChange(location..<location)
    tabs.append(try Bench.time { _ = try tableEditor.dispatch(Commands.keyTab, false) })
}
for _ in 0..<50 {
    let text = cellTexts[Int.random(in: 0..<cellTexts.count, using: &generator)]
    let location = try SelectionMapper.location(of: .text(text, 0), in: tableEditor.state, index: tableEditor.reconciler.index)
    try tableEditor.selectionDidChange(location..<location)
    rowInserts.append(try Bench.time { _ = try tableEditor.dispatch(TableCommands.insertRowBelow) })
}
print("")
Bench.table(
    ["command in the \(rows) × \(columns) table", "p50", "p99", "p50 / cell keystroke p50"],
    [
        ["Tab (next cell)", Bench.format(Bench.percentile(tabs, 0.5)), Bench.format(Bench.percentile(tabs, 0.99)),
         String(format: "%.1f×", Bench.percentile(tabs, 0.5) / Bench.percentile(inCell, 0.5))],
        ["insert row below (lays out the grid)", Bench.format(Bench.percentile(rowInserts, 0.5)), Bench.format(Bench.percentile(rowInserts, 0.99)),
         String(format: "%.1f×", Bench.percentile(rowInserts, 0.5) / Bench.percentile(inCell, 0.5))],
    ]
)
