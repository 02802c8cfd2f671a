import ArgumentParser
import Foundation
import QuireEditor
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
        {"op":"format","format":"bold"}, {"op":"command","name":N,"payload":P}, {"op":"undo"}, {"op":"redo"}. \
        A command name is namespace.command: editor.* for the built-ins (editor.insertText, editor.formatText, \
        editor.setBlocksType …), the plugin's name for a plugin's (list.insert, heading.set, table.insertTable …); \
        names from before that scheme (insertList, setHeading …) still work for one release. \
        Prints {"text": flat string, "selection": [start, end], "state": Lexical JSON}; with \
        --transactions also "transactions": one {"origin", "tag", "operations"} per commit.
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
        var committed: [JSONValue] = []
        if transactions {
            editor.registerUpdateListener { update in
                committed.append(update.transaction.jsonValue(replayingOn: update.previousState))
            }
        }
        try Self.forEachStep(in: script) { step in try Self.apply(step, to: editor) }
        var output = Self.result(of: editor)
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
        let lines = String(decoding: try InputFile.read(script), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                try body(JSONParser.parse(String(line)))
            } catch let error as StepError {
                throw StepError(line: offset + 1, message: error.message)
            } catch {
                throw StepError(line: offset + 1, message: "\(error)")
            }
        }
    }

    /// What a script leaves in an editor: {"text": flat string, "selection": [start, end], "state": Lexical JSON}.
    static func result(of editor: Editor) -> JSONObject {
        let selection = editor.nativeSelection ?? 0..<0
        return [
            "text": .string(editor.storage?.string ?? FlatString.render(editor.state)),
            "selection": .array([.number(.integer(selection.lowerBound)), .number(.integer(selection.upperBound))]),
            "state": LexicalJSON.export(editor.state),
        ]
    }

    static func apply(_ step: JSONValue, to editor: Editor) throws {
        guard let object = step.objectValue else { throw StepError(line: 0, message: "a step must be a JSON object") }
        guard let op = object["op"]?.stringValue else { throw StepError(line: 0, message: "missing \"op\"") }
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
