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
        let initial: EditorState
        if let document {
            initial = try LexicalJSON.importState(from: InputFile.read(document), registry: registry)
        } else {
            initial = EditorState(registry: registry, paragraphs: [""])
        }
        let editor = try Editor(state: initial, storage: TextStorage(), theme: Theme.standard.including(contributions))
        try editor.install(contributions)
        let interaction = ScriptInteraction(editor: editor)
        var committed: [JSONValue] = []
        if transactions {
            editor.registerUpdateListener { update in
                committed.append(update.transaction.jsonValue(replayingOn: update.previousState))
            }
        }
        let lines = String(decoding: try InputFile.read(script), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                try Self.apply(JSONParser.parse(String(line)), to: editor, interaction: interaction)
            } catch let error as StepError {
                throw StepError(line: offset + 1, message: error.message)
            } catch {
                throw StepError(line: offset + 1, message: "\(error)")
            }
        }
        let selection = editor.nativeSelection ?? 0..<0
        var output: JSONObject = [
            "text": .string(editor.storage?.string ?? FlatString.render(editor.state)),
            "selection": .array([.number(.integer(selection.lowerBound)), .number(.integer(selection.upperBound))]),
            "state": LexicalJSON.export(editor.state),
        ]
        if transactions { output["transactions"] = .array(committed) }
        for field in interaction.output { output[field.key] = field.value }
        print(JSONWriter().string(.object(output)))
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
