// Renumbering a long numbered list when an item goes in at its top or its bottom, through an
// editor with a text storage (and headless), next to a baseline in the same run that renumbers
// as Lexical does: a list transform that recounts every item of a written list from its start
// (`updateChildrenListItemValue`), so every insertion costs O(items) even at the bottom.
import BenchSupport
import Foundation
import QuireEditor
import QuireList
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage

let itemCount = 10_000
let repetitions = 7

/// Lexical's list item for the baseline: Enter makes another item (`insertNewAfter`), with no
/// numbering of its own.
struct LexicalStyleListItem: NodePlugin {
    var type: NodeType { ListItemNodePlugin.type }
    var role: NodeRole { .element(inline: false) }
    var childRule: ChildRule { .any }
    var fields: [FieldSpec] { ListItemNodePlugin().fields }
    func blockAfterSplit(of node: Node, at position: BlockSplitPosition) -> BlockTemplate {
        BlockTemplate(type: type, fields: node.fields)
    }
}

/// Lexical's list transform: every written list recounts all of its items.
func lexicalRenumber(_ state: inout EditorState, _ list: NodeKey) throws(ModelError) {
    var value = state[list]?.fields["start"]?.intValue ?? 1
    for item in state.children(of: list) {
        if item.fields["value"]?.intValue != value { try state.setField("value", to: .number(.integer(value)), of: item.key) }
        if !state.isNestedListWrapper(item.key) { value += 1 }
    }
}

func numberedList(registry: NodeRegistry) throws -> EditorState {
    var state = EditorState(registry: registry)
    let list = try state.createNode(type: ListNodePlugin.type, fields: ListType.number.listFields)
    try state.append(list, to: .root)
    for index in 1...itemCount {
        let item = try state.createNode(type: ListItemNodePlugin.type, fields: ["value": .number(.integer(index))])
        try state.append(item, to: list)
        try state.append(try state.createNode(type: .text, text: "Item number \(index)"), to: item)
    }
    return state
}

enum Renumbering: String { case quire = "Quire (hooks + batch transform)", lexical = "Lexical-style full recount" }

var quireRegistry = NodeRegistry()
try quireRegistry.register(ListNodePlugin())
try quireRegistry.register(ListItemNodePlugin())
var lexicalRegistry = NodeRegistry()
try lexicalRegistry.register(ListNodePlugin())
try lexicalRegistry.register(LexicalStyleListItem())
let quireState = try numberedList(registry: quireRegistry)
let lexicalState = try numberedList(registry: lexicalRegistry)
let theme = Theme.standard.including([ListAttributes.themeContribution])

/// A fresh editor on the list (its set-up is not timed).
func makeEditor(_ renumbering: Renumbering, headless: Bool) throws -> Editor {
    let state = renumbering == .quire ? quireState : lexicalState
    let editor = try Editor(state: state, storage: headless ? nil : TextStorage(), theme: theme)
    editor.reconciler.checksInvariants = false
    switch renumbering {
    case .quire: try editor.install([ListExtension()])
    case .lexical: editor.registerNodeTransform(ListNodePlugin.type) { state, list throws(ModelError) in try lexicalRenumber(&state, list) }
    }
    return editor
}

/// The best time of Enter at the start of the first item (top) or the end of the last (bottom),
/// as a text view sends it, and how many item values the edit wrote.
func measure(_ renumbering: Renumbering, top: Bool, headless: Bool) throws -> (seconds: Double, written: Int) {
    var best = Double.infinity
    var written = 0
    for _ in 0..<repetitions {
        let editor = try makeEditor(renumbering, headless: headless)
        let end = editor.reconciler.index.totalLength
        let location = top ? 0 : end
        try editor.selectionDidChange(location..<location)
        var values = 0
        editor.registerUpdateListener { update in
            values = update.changes.allKeys.filter { key in
                update.state[key]?.type == ListItemNodePlugin.type && update.state[key]?.fields["value"] != update.previousState[key]?.fields["value"]
            }.count
        }
        best = min(best, try Bench.time { try editor.replaceCharacters(in: location..<location, with: "\n") })
        written = values
        // Every value must be right afterwards, whichever way it was renumbered.
        let list = editor.state.root.firstChild!
        for (index, item) in editor.state.children(of: list).enumerated() where item.fields["value"]?.intValue != index + 1 {
            fatalError("\(renumbering) left item \(index) numbered \(String(describing: item.fields["value"]))")
        }
    }
    return (best, written)
}

// Optional words on the command line narrow the run: storage, headless, top, bottom.
let words = Set(CommandLine.arguments.dropFirst())
func wants(_ word: String, among choices: [String]) -> Bool { words.isDisjoint(with: choices) || words.contains(word) }
print("# List benchmark (release build): Enter in a \(itemCount)-item numbered list, best of \(repetitions)\n")
var rows: [[String]] = []
for headless in [false, true] where wants(headless ? "headless" : "storage", among: ["storage", "headless"]) {
    for top in [true, false] where wants(top ? "top" : "bottom", among: ["top", "bottom"]) {
        let quire = try measure(.quire, top: top, headless: headless)
        let lexical = try measure(.lexical, top: top, headless: headless)
        rows.append([
            (top ? "new first item" : "new last item") + (headless ? ", headless" : ", with storage"),
            "\(Bench.format(quire.seconds)) (\(quire.written) values)",
            "\(Bench.format(lexical.seconds)) (\(lexical.written) values)",
            String(format: "%.2f×", lexical.seconds / quire.seconds),
        ])
    }
}
Bench.table(["edit", Renumbering.quire.rawValue, Renumbering.lexical.rawValue, "baseline ÷ Quire"], rows)
print("\nQuire renumbers from the edit to the first item that already has its number: a new last item")
print("writes one value, a new first item all of them; the baseline recounts every item either way.")
