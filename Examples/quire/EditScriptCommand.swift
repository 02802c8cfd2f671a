import ArgumentParser
import Foundation
import QuireEditor
import QuireEditScript
import QuireModel

/// `quire edit-script SCRIPT.jsonl [--document FILE.json]`: replays what a text view would send.
struct EditScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit-script",
        abstract: "Replay a JSON Lines script of text-view edits and print the result.",
        discussion: """
        One step per line: {"op":"select","start":S,"end":E}, {"op":"type","text":T}, \
        {"op":"replace","start":S,"end":E,"text":T}, {"op":"mark","text":T,"selStart":A,"selEnd":B}, \
        {"op":"unmark"}, {"op":"backspace"}, {"op":"deleteForward"}, {"op":"deleteWord"}, \
        {"op":"format","format":"bold"}, {"op":"command","name":N,"payload":P}, {"op":"undo"}, {"op":"redo"}; \
        interaction steps: {"op":"reload","text":T} (a new version from a plain-string source), \
        {"op":"suggest","word":W} and {"op":"suggest","word":W,"replace":"word"}, \
        {"op":"viewport","width":COLUMNS,"height":ROWS} (a terminal viewport), {"op":"userScroll","row":R} \
        (the user scrolls row R to the top and reads), {"op":"highlight","ranges":[[START,END,NAME],…]}, {"op":"focus"}. \
        A command name is namespace.command: editor.* for the built-ins (editor.insertText, editor.formatText, \
        editor.setBlocksType …), the plugin's name for a plugin's (list.insert, heading.set, table.insertTable …); \
        names from before that scheme (insertList, setHeading …) still work for one release. \
        Prints {"text": flat string, "selection": [start, end], "state": Lexical JSON}; with \
        --transactions also "transactions": one {"origin", "tag", "operations"} per commit; once a viewport \
        was set also "viewport": {"firstRow", "rows", "columns"} and "caret": {"row", "column"} (0-based \
        terminal cells after soft wrapping), once a highlight step ran "highlights".
        """
    )

    @Argument(help: "The script, JSON Lines, or - for standard input.")
    var script: String

    @Option(help: "The document to start from (default: a new empty document).")
    var document: String?

    @Flag(help: "Also print every commit's transaction: its origin, tag and operations.")
    var transactions = false

    @OptionGroup var config: ConfigOptions

    func run() throws {
        let loaded = try config.load()
        let registry = loaded.registry
        let contributions = loaded.configuration.plugins.contributions
        let editor = try EditScript.makeEditor(state: Self.initialState(document, registry: registry), contributions: contributions)
        let interaction = ScriptInteraction(editor: editor)
        var committed: [JSONValue] = []
        if transactions {
            editor.registerUpdateListener { update in
                committed.append(update.transaction.jsonValue(replayingOn: update.previousState))
            }
        }
        try EditScript.forEachStep(in: InputFile.read(script)) { step in try EditScript.apply(step, to: editor, interaction: interaction) }
        var output = EditScript.result(of: editor, interaction: interaction)
        if transactions { output["transactions"] = .array(committed) }
        print(JSONWriter().string(.object(output)))
    }

    /// The document a script starts from: the file's, or one empty paragraph.
    static func initialState(_ document: String?, registry: NodeRegistry) throws -> EditorState {
        guard let document else { return EditorState(registry: registry, paragraphs: [""]) }
        return try LexicalJSON.importState(from: InputFile.read(document), registry: registry)
    }
}
