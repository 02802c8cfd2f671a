import ArgumentParser
import Foundation
import QuireEditor
import QuireInteraction
import QuireModel
import QuireStyle
import QuireTextStorage

/// `quire edit-script SCRIPT.jsonl [--document FILE.json]`: replays what a text view would send.
struct EditScript: ParsableCommand {
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

    struct StepError: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    func run() throws {
        let loaded = try config.load()
        let registry = loaded.registry
        let contributions = loaded.configuration.plugins.contributions
        let editor = try Self.makeEditor(state: Self.initialState(document, registry: registry), contributions: contributions)
        let interaction = ScriptInteraction(editor: editor)
        var committed: [JSONValue] = []
        if transactions {
            editor.registerUpdateListener { update in
                committed.append(update.transaction.jsonValue(replayingOn: update.previousState))
            }
        }
        try Self.forEachStep(in: script) { step in try Self.apply(step, to: editor, interaction: interaction) }
        var output = Self.result(of: editor, interaction: interaction)
        if transactions { output["transactions"] = .array(committed) }
        print(JSONWriter().string(.object(output)))
    }

    /// The document a script starts from: the file's, or one empty paragraph.
    static func initialState(_ document: String?, registry: NodeRegistry) throws -> EditorState {
        guard let document else { return EditorState(registry: registry, paragraphs: [""]) }
        return try LexicalJSON.importState(from: InputFile.read(document), registry: registry)
    }

    /// An editor with a text storage and the plugins' contributions, as a text view would have it.
    static func makeEditor(state: EditorState, contributions: [PluginContribution]) throws -> Editor {
        let editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(contributions))
        try editor.install(contributions)
        return editor
    }

    /// Reads a JSON Lines script (a file, or - for standard input) and hands every non-blank line's
    /// JSON to `body`; any error, the line's JSON or the step's, is thrown as a ``StepError``
    /// naming the line.
    static func forEachStep(in script: String, _ body: (JSONValue) throws -> Void) throws {
        var bytes = try InputFile.read(script)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // Split the bytes, not a String: "\r\n" is one Character, so a String split on "\n" kept
        // CRLF lines together; and the JSON reader sees invalid UTF-8 rather than U+FFFD.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (offset, rawLine) in lines.enumerated() {
            let line = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                try body(JSONParser.parse(line))
            } catch let error as StepError {
                throw StepError(line: offset + 1, message: error.message)
            } catch {
                throw StepError(line: offset + 1, message: "\(error)")
            }
        }
    }

    /// What a script leaves in an editor: {"text": flat string, "selection": [start, end], "state":
    /// Lexical JSON}, and what its interaction steps left (the viewport, the caret, highlights).
    static func result(of editor: Editor, interaction: ScriptInteraction) -> JSONObject {
        let selection = editor.nativeSelection ?? 0..<0
        var output: JSONObject = [
            "text": .string(editor.storage?.string ?? FlatString.render(editor.state)),
            "selection": .array([.number(.integer(selection.lowerBound)), .number(.integer(selection.upperBound))]),
            "state": LexicalJSON.export(editor.state),
        ]
        for field in interaction.output { output[field.key] = field.value }
        return output
    }

    /// Applies one step to `editor`. `interaction` keeps what the interaction steps need across
    /// steps (live reload, the viewport, highlights); without it those steps are refused. The
    /// collab script calls this for each peer's steps, with that peer's interaction state.
    static func apply(_ step: JSONValue, to editor: Editor, interaction: ScriptInteraction? = nil) throws {
        guard let object = step.objectValue else { throw StepError(line: 0, message: "a step must be a JSON object") }
        guard let op = object["op"]?.stringValue else { throw StepError(line: 0, message: "missing \"op\"") }
        if let interaction {
            if try interaction.apply(op, object) {
                try interaction.afterStep()
                return
            }
            // The editor's own steps, with the reason each gives the viewport ("select" is
            // navigation; an editing step that changes nothing still returns to the caret).
            let reason: ScrollReason
            switch op {
            case "select": reason = .navigation
            case "undo", "redo": reason = .undo
            case "replace", "command", "format": reason = .insertion
            default: reason = .typing
            }
            try interaction.perform(reason) { try applyEditorStep(op, object, to: editor) }
            try interaction.afterStep()
            return
        }
        if ["reload", "suggest", "viewport", "userScroll", "highlight", "focus"].contains(op) {
            throw StepError(line: 0, message: "\"\(op)\" needs the script's interaction state")
        }
        try applyEditorStep(op, object, to: editor)
    }

    static func applyEditorStep(_ op: String, _ object: JSONObject, to editor: Editor) throws {
        func int(_ key: String) throws -> Int {
            guard let value = object[key]?.intValue else { throw StepError(line: 0, message: "\"\(op)\" needs an integer \"\(key)\"") }
            return value
        }
        func string(_ key: String) throws -> String {
            guard let value = object[key]?.stringValue else { throw StepError(line: 0, message: "\"\(op)\" needs a string \"\(key)\"") }
            return value
        }
        func range(_ start: Int, _ end: Int) throws -> Range<Int> {
            guard start >= 0, end >= start else { throw StepError(line: 0, message: "invalid range \(start)..<\(end)") }
            return start..<end
        }
        switch op {
        case "select": try editor.selectionDidChange(range(int("start"), int("end")))
        case "type":
            guard let selection = editor.nativeSelection else { throw StepError(line: 0, message: "no selection to type at") }
            try editor.replaceCharacters(in: selection, with: string("text"))
        case "replace": try editor.replaceCharacters(in: range(int("start"), int("end")), with: string("text"))
        case "mark": try editor.setMarkedText(string("text"), selectedRange: range(int("selStart"), int("selEnd")))
        case "unmark": try editor.unmarkText()
        case "backspace": try editor.dispatch(Commands.deleteCharacter, true)
        case "deleteForward": try editor.dispatch(Commands.deleteCharacter, false)
        case "deleteWord": try editor.dispatch(Commands.deleteWord, true)
        case "format":
            let name = try string("format")
            guard let format = TextFormat(named: name) else { throw StepError(line: 0, message: "unknown format \"\(name)\"") }
            try editor.dispatch(Commands.formatText, format)
        case "undo": try editor.undo()
        case "redo": try editor.redo()
        case "command": try dispatchNamed(try string("name"), payload: object["payload"] ?? .null, on: editor)
        default: throw StepError(line: 0, message: "unknown op \"\(op)\"")
        }
    }

    static func dispatchNamed(_ name: String, payload: JSONValue, on editor: Editor) throws {
        let handled = try editor.dispatch(named: name, payload: payload)
        // Undo and redo with nothing to step are handled no-ops, not unknown commands.
        if !handled && !(Commands.undo.names + Commands.redo.names).contains(name) { throw EditorError.unknownCommand(name) }
    }
}
