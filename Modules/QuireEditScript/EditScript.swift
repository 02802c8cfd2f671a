import QuireEditor
import QuireInteraction
import QuireJSON
import QuireModel
import QuireStyle
import QuireTextStorage

/// A step of an edit script that could not be read or applied: the 1-based line it stands on
/// (0 while the step is applied on its own, outside a script) and what was wrong with it.
public struct EditScriptError: Error, Equatable, CustomStringConvertible {
    /// The 1-based line of the script, or 0 for a step applied on its own.
    public let line: Int
    /// What was wrong with the step.
    public let message: String

    /// An error for a step, at `line` (0, the default, for a step applied on its own:
    /// ``EditScript/forEachStep(in:_:)`` sets the line of a step's error).
    public init(_ message: String, line: Int = 0) {
        (self.message, self.line) = (message, line)
    }

    public var description: String { "line \(line): \(message)" }
}

/// The edit-script format: JSON Lines of what a text view sends an editor (selection changes,
/// typing, replacements, marked text, deletions, formats, named commands, undo and redo) and the
/// interaction steps a view's policies take (live reload, suggestions, a terminal viewport,
/// scrolling, highlights, focus). `quire edit-script` and `quire collab-script` replay it, tests
/// drive editors with it, and the fuzzers feed it arbitrary bytes.
///
/// One step a line: `{"op":"select","start":S,"end":E}`, `{"op":"type","text":T}`,
/// `{"op":"replace","start":S,"end":E,"text":T}`, `{"op":"mark","text":T,"selStart":A,"selEnd":B}`,
/// `{"op":"unmark"}`, `{"op":"backspace"}`, `{"op":"deleteForward"}`, `{"op":"deleteWord"}`,
/// `{"op":"format","format":"bold"}`, `{"op":"command","name":N,"payload":P}`, `{"op":"undo"}`,
/// `{"op":"redo"}`; interaction steps (they need a ``ScriptInteraction``): `{"op":"reload","text":T}`,
/// `{"op":"suggest","word":W,"replace":"word"|"selection"}`, `{"op":"viewport","width":C,"height":R}`,
/// `{"op":"userScroll","row":R}`, `{"op":"highlight","ranges":[[START,END,NAME],…]}`, `{"op":"focus"}`.
/// Offsets are UTF-16 units of the flat string.
///
/// A step that is refused throws an ``EditScriptError`` and leaves the editor as it was.
public enum EditScript {
    /// Splits a script into its steps and hands each non-blank line's JSON to `body`. Lines end
    /// in LF or CRLF; a leading byte-order mark is skipped; invalid UTF-8 is an error with its
    /// place. Any error, the line's JSON or the step's, is thrown as an ``EditScriptError``
    /// naming the line.
    ///
    /// - Complexity: O(n) in the script's bytes, plus what the steps cost.
    public static func forEachStep(in script: some Collection<UInt8>, _ body: (JSONValue) throws -> Void) throws {
        var bytes = ArraySlice(script)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // Split the bytes, not a String: "\r\n" is one Character, so a String split on "\n" kept
        // CRLF lines together; and the JSON reader sees invalid UTF-8 rather than U+FFFD.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (offset, rawLine) in lines.enumerated() {
            let line = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                try body(JSONParser.parse(line))
            } catch let error as EditScriptError {
                throw EditScriptError(error.message, line: offset + 1)
            } catch {
                throw EditScriptError("\(error)", line: offset + 1)
            }
        }
    }

    /// An editor with a text storage and the plugins' contributions installed, as a text view
    /// would have it.
    public static func makeEditor(state: EditorState, contributions: [PluginContribution]) throws -> Editor {
        let editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(contributions))
        try editor.install(contributions)
        return editor
    }

    /// What a script leaves in an editor: `{"text": flat string, "selection": [start, end],
    /// "state": Lexical JSON}`, and what its interaction steps left (the viewport, the caret,
    /// highlights).
    public static func result(of editor: Editor, interaction: ScriptInteraction) -> JSONObject {
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
    /// steps (live reload, the viewport, highlights); without it those steps are refused. A
    /// collaboration script calls this for each peer's steps, with that peer's interaction state.
    public static func apply(_ step: JSONValue, to editor: Editor, interaction: ScriptInteraction? = nil) throws {
        guard let object = step.objectValue else { throw EditScriptError("a step must be a JSON object") }
        guard let op = object["op"]?.stringValue else { throw EditScriptError("missing \"op\"") }
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
        if ScriptInteraction.operations.contains(op) {
            throw EditScriptError("\"\(op)\" needs the script's interaction state")
        }
        try applyEditorStep(op, object, to: editor)
    }

    static func applyEditorStep(_ op: String, _ object: JSONObject, to editor: Editor) throws {
        let fields = StepFields(op: op, object: object)
        switch op {
        case "select": try editor.selectionDidChange(fields.range("start", "end"))
        case "type":
            guard let selection = editor.nativeSelection else { throw EditScriptError("no selection to type at") }
            try editor.replaceCharacters(in: selection, with: fields.string("text"))
        case "replace": try editor.replaceCharacters(in: fields.range("start", "end"), with: fields.string("text"))
        case "mark": try editor.setMarkedText(fields.string("text"), selectedRange: fields.range("selStart", "selEnd"))
        case "unmark": try editor.unmarkText()
        case "backspace": try editor.dispatch(Commands.deleteCharacter, true)
        case "deleteForward": try editor.dispatch(Commands.deleteCharacter, false)
        case "deleteWord": try editor.dispatch(Commands.deleteWord, true)
        case "format":
            let name = try fields.string("format")
            guard let format = TextFormat(named: name) else { throw EditScriptError("unknown format \"\(name)\"") }
            try editor.dispatch(Commands.formatText, format)
        case "undo": try editor.undo()
        case "redo": try editor.redo()
        case "command": try dispatchNamed(fields.string("name"), payload: object["payload"] ?? .null, on: editor)
        default: throw EditScriptError("unknown op \"\(op)\"")
        }
    }

    /// Dispatches a command by its registered name (`namespace.command`, or a name from before
    /// that scheme); a name nothing handles is ``EditorError/unknownCommand(_:)``.
    public static func dispatchNamed(_ name: String, payload: JSONValue, on editor: Editor) throws {
        let handled = try editor.dispatch(named: name, payload: payload)
        // Undo and redo with nothing to step are handled no-ops, not unknown commands.
        if !handled && !(Commands.undo.names + Commands.redo.names).contains(name) { throw EditorError.unknownCommand(name) }
    }
}

/// The typed fields of one step's JSON object, each missing or mistyped field an
/// ``EditScriptError`` that names the op and the field.
struct StepFields {
    let op: String
    let object: JSONObject

    func int(_ key: String) throws -> Int {
        guard let value = object[key]?.intValue else { throw EditScriptError("\"\(op)\" needs an integer \"\(key)\"") }
        return value
    }

    func string(_ key: String) throws -> String {
        guard let value = object[key]?.stringValue else { throw EditScriptError("\"\(op)\" needs a string \"\(key)\"") }
        return value
    }

    /// `start..<end` from two integer fields; a negative start or an end before it is refused.
    func range(_ startKey: String, _ endKey: String) throws -> Range<Int> {
        let start = try int(startKey)
        let end = try int(endKey)
        guard start >= 0, end >= start else { throw EditScriptError("invalid range \(start)..<\(end)") }
        return start..<end
    }
}
