import Foundation
import QuireAlgorithms
import QuireCatalog
import QuireConfig
import QuireEditor
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTable
import QuireTestSupport
import QuireTextStorage
import Testing

/// Issue 7's randomized acceptance: random commands and typing over a document holding every node
/// type keep the reconciler invariant and produce only valid trees — no list item outside a list,
/// no cell outside a row, every table's rows covering the same number of columns once spans are
/// counted — and a command that fails leaves the document as it was.
@Suite struct AllNodeTypesRandomTests {
    /// A named command and a payload generator, as a script would send them.
    struct Action: Sendable {
        let name: String
        let payloads: @Sendable (inout SeededGenerator) -> JSONValue
    }

    static func constant(_ name: String, _ payload: JSONValue = .null) -> Action { Action(name: name) { _ in payload } }
    static func oneOf(_ name: String, _ payloads: [JSONValue]) -> Action {
        Action(name: name) { random in payloads.randomElement(using: &random)! }
    }
    static func strings(_ values: String...) -> [JSONValue] { values.map(JSONValue.string) }

    static let actions: [Action] = [
        oneOf("insertList", strings("bullet", "number", "check")),
        oneOf("toggleList", strings("bullet", "number", "check")),
        constant("removeList"), constant("indentListItem"), constant("outdentListItem"),
        constant("toggleListItemChecked"),
        oneOf("setHeading", strings("h1", "h2", "h3") + [.null]), oneOf("toggleHeading", strings("h1", "h2")),
        constant("toggleQuote"), oneOf("toggleCodeBlock", [.null, .string("swift")]),
        oneOf("setCodeLanguage", [.string("js"), .null]),
        oneOf("setBlocksType", [
            .object(["type": .string("paragraph")]), .object(["type": .string("quote")]),
            .object(["type": .string("heading"), "fields": .object(["tag": .string("h4")])]),
        ]),
        Action(name: "table.insertTable") { random in
            .object(["rows": .number(.integer(Int.random(in: 1...3, using: &random))),
                     "columns": .number(.integer(Int.random(in: 1...3, using: &random)))])
        },
        constant("table.insertRowAbove"), constant("table.insertRowBelow"),
        constant("table.insertColumnBefore"), constant("table.insertColumnAfter"),
        constant("table.deleteRows"), constant("table.deleteColumns"),
        constant("table.mergeCells"), constant("table.unmergeCell"),
        oneOf("link.toggle", [.object(["url": .string("https://quire.dev")]), .null]),
        constant("horizontalRule.insert"),
        oneOf("keyTab", [.bool(false), .bool(true)]),
        oneOf("formatText", strings("bold", "italic", "code")),
        oneOf("deleteCharacter", [.bool(true), .bool(false)]),
        constant("insertParagraph"), constant("insertLineBreak", .bool(false)),
        constant("undo"), constant("redo"),
    ]

    static let typed = ["a", "é", "👍🏽", " ", "\n", "xy", "\t", "한"]

    /// The editor over fixture 01 (heading, quote, list with links, code, table) plus a
    /// horizontal rule, with every built-in installed.
    static func makeEditor() throws -> Editor {
        let configuration = try Configuration.load(
            contentsOf: repositoryRoot.appendingPathComponent("config.yaml").path, catalog: BuiltInPlugins.catalog
        )
        let extensions = configuration.plugins.contributions
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json/01-lexical-serialization-test-playground-doc.json")
        let state = try LexicalJSON.importState(from: Array(try Data(contentsOf: url)), registry: try configuration.makeRegistry())
        let editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(extensions))
        try editor.install(extensions)
        try editor.selectionDidChange(0..<0)
        try editor.dispatch(named: "horizontalRule.insert", payload: .null)
        return editor
    }

    /// Why a state is not a valid tree, or nil.
    static func invalidity(of state: EditorState) -> String? {
        var pending: [NodeKey] = [.root]
        while let key = pending.popLast(), let node = state[key] {
            let parentType = node.parent.flatMap { state[$0]?.type }
            switch node.type.rawValue {
            case "listitem" where parentType != "list": return "list item \(key) in \(String(describing: parentType))"
            case "tablecell" where parentType != "tablerow": return "cell \(key) in \(String(describing: parentType))"
            case "tablerow" where parentType != "table": return "row \(key) in \(String(describing: parentType))"
            default: break
            }
            pending.append(contentsOf: state.children(of: key).map(\.key))
        }
        let tableViolations = TableMap.violations(in: state)
        if !tableViolations.isEmpty { return "tables: \(tableViolations)" }
        // Every node's fields and children satisfy its plugin: the export imports again, equal.
        let exported = LexicalJSON.export(state)
        do {
            let reimported = try LexicalJSON.importState(from: exported, registry: state.registry)
            if LexicalJSON.export(reimported) != exported { return "the export does not round-trip" }
        } catch {
            return "the export does not import: \(error)"
        }
        return nil
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func randomCommandsAndTypingKeepEveryInvariant(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let editor = try Self.makeEditor()
        #expect(Self.invalidity(of: editor.state) == nil)
        var handled: [String: Int] = [:]
        var refused: [String: Int] = [:]
        // Every commit's transaction must replay (and invert) exactly, and the text-content
        // listener's edits must keep a mirror of the flat string.
        var replayProblems: [String] = []
        var mirror = editor.storage?.string ?? ""
        editor.registerUpdateListener { update in
            replayProblems += TransactionReplay.violations(of: update.transaction, from: update.previousState, to: update.state)
        }
        editor.registerTextContentListener { change in mirror = FlatTextEdit.apply(change.edits, to: mirror) }
        let steps = ProcessInfo.processInfo.environment["QUIRE_LONG_STEPS"].flatMap(Int.init) ?? 500
        for step in 0..<steps {
            let length = editor.storage?.length ?? 0
            let before = LexicalJSON.export(editor.state)
            var description = ""
            do {
                switch Int.random(in: 0..<11, using: &random) {
                case 0..<3:
                    let start = Int.random(in: 0...length, using: &random)
                    let end = Bool.random(using: &random) ? start : Int.random(in: start...min(length, start + 12), using: &random)
                    description = "select \(start)..<\(end)"
                    try editor.selectionDidChange(start..<end)
                case 3..<5:
                    let text = Self.typed.randomElement(using: &random)!
                    let range = editor.nativeSelection ?? 0..<0
                    description = "type \(text.debugDescription) at \(range)"
                    try editor.replaceCharacters(in: range, with: text)
                case 5:
                    let start = Int.random(in: 0...length, using: &random)
                    let end = Int.random(in: start...min(length, start + 20), using: &random)
                    description = "native delete \(start)..<\(end)"
                    try editor.replaceCharacters(in: start..<end, with: "")
                case 6:
                    // Tables are a small part of the flat string; go into one on purpose.
                    let cells = editor.state.textBlocks().filter { block in
                        editor.state[block]?.parent.flatMap { editor.state[$0]?.type } == "tablecell"
                    }
                    guard let block = cells.randomElement(using: &random) else { continue }
                    description = "caret into the cell block \(block)"
                    try editor.update { try $0.select(.element(block, 0)) }
                default:
                    let action = Self.actions.randomElement(using: &random)!
                    let payload = action.payloads(&random)
                    description = "\(action.name) \(JSONWriter().string(payload))"
                    if try editor.dispatch(named: action.name, payload: payload) { handled[action.name, default: 0] += 1 }
                }
            } catch {
                refused[String(description.prefix { $0 != " " }), default: 0] += 1
                // A refused command (a table command outside a table, …) is fine when it leaves
                // the document alone.
                #expect(LexicalJSON.export(editor.state) == before, "seed \(seed) step \(step) \(description): \(error) changed the document")
            }
            if let problem = Self.invalidity(of: editor.state) {
                Issue.record("seed \(seed) step \(step) after \(description): \(problem)")
                return
            }
            do { try editor.reconciler.verify(editor.state) } catch {
                Issue.record("seed \(seed) step \(step) after \(description): \(error)")
                return
            }
            if !replayProblems.isEmpty || mirror != editor.storage?.string {
                Issue.record("seed \(seed) step \(step) after \(description): \(replayProblems), mirror \(mirror == editor.storage?.string ? "ok" : "differs")")
                return
            }
        }
        // The walk reaches every kind of node: these commands ran (not refused, not unhandled).
        let exercised: Set<String> = ["insertList", "indentListItem", "setHeading", "toggleQuote", "toggleCodeBlock",
                                      "table.insertTable", "table.insertRowBelow", "link.toggle", "horizontalRule.insert"]
        #expect(exercised.subtracting(handled.keys).isEmpty, "never handled: \(exercised.subtracting(handled.keys).sorted()); refused: \(refused)")
    }
}
