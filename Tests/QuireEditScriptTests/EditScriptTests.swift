import QuireCatalog
import QuireConfig
import QuireEditor
import QuireEditScript
import QuireJSON
import QuireModel
import Testing

/// An editor with every built-in plugin, as `quire edit-script` makes one.
private func makeEditor() throws -> Editor {
    let configuration = try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog)
    let registry = try configuration.makeRegistry()
    return try EditScript.makeEditor(state: EditorState(registry: registry, paragraphs: [""]), contributions: configuration.plugins.contributions)
}

/// Runs a script on a new editor with an interaction state; returns the editor and its result.
private func run(_ script: String) throws -> (editor: Editor, result: JSONObject) {
    let editor = try makeEditor()
    let interaction = ScriptInteraction(editor: editor)
    try EditScript.forEachStep(in: Array(script.utf8)) { try EditScript.apply($0, to: editor, interaction: interaction) }
    return (editor, EditScript.result(of: editor, interaction: interaction))
}

/// What a caller can see of an editor: its document, its flat string and its selection.
private func snapshot(_ editor: Editor) -> (json: [UInt8], text: String?, selection: Range<Int>?) {
    (LexicalJSON.exportBytes(editor.state), editor.storage?.string, editor.nativeSelection)
}

@Suite struct EditScriptTests {
    @Test func stepsSplitOnLFAndCRLFAfterAByteOrderMarkSkippingBlankLines() throws {
        let script: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\"op\":\"type\",\"text\":\"a\"}\r\n\r\n  \t\n{\"op\":\"type\",\"text\":\"b\"}\n{\"op\":\"undo\"}".utf8)
        var ops: [String] = []
        try EditScript.forEachStep(in: script) { ops.append($0.objectValue?["op"]?.stringValue ?? "?") }
        #expect(ops == ["type", "type", "undo"])
    }

    @Test func aBadLineIsAnErrorNamingItsLine() throws {
        let editor = try makeEditor()
        let script = "{\"op\":\"type\",\"text\":\"ok\"}\n\n{\"op\":\"type\",\"text\":"
        let error = #expect(throws: EditScriptError.self) {
            try EditScript.forEachStep(in: Array(script.utf8)) { try EditScript.apply($0, to: editor) }
        }
        #expect(error?.line == 3)
        #expect(editor.storage?.string == "ok", "the steps before the bad line were applied")
    }

    @Test func invalidUTF8IsAnErrorWithItsPlace() throws {
        let script = Array("{\"op\":\"type\",\"text\":\"a\"}\n{\"op\":\"type\",\"text\":\"".utf8) + [0xFF] + Array("\"}".utf8)
        let error = #expect(throws: EditScriptError.self) {
            try EditScript.forEachStep(in: script) { _ in }
        }
        #expect(error?.line == 2)
        #expect(error?.message.contains("UTF-8") == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        (#"[1,2]"#, "a step must be a JSON object"),
        (#"{"text":"a"}"#, "missing \"op\""),
        (#"{"op":"fly"}"#, "unknown op \"fly\""),
        (#"{"op":"select","start":"0","end":1}"#, "\"select\" needs an integer \"start\""),
        (#"{"op":"select","start":3,"end":1}"#, "invalid range 3..<1"),
        (#"{"op":"replace","start":0,"end":0}"#, "\"replace\" needs a string \"text\""),
        (#"{"op":"format","format":"shiny"}"#, "unknown format \"shiny\""),
        (#"{"op":"viewport","width":0,"height":5}"#, "a viewport needs a positive width and height, not 0×5"),
        (#"{"op":"userScroll","row":2}"#, "\"userScroll\" needs a viewport step before it"),
        (#"{"op":"suggest","word":"x","replace":"all"}"#, "\"replace\" is \"word\" or \"selection\""),
    ])
    func refusedStepsSayWhyAndLeaveTheEditorAsItWas(step: String, message: String) throws {
        let editor = try makeEditor()
        let interaction = ScriptInteraction(editor: editor)
        try EditScript.apply(JSONParser.parse(Array(#"{"op":"type","text":"Hello"}"#.utf8)), to: editor, interaction: interaction)
        let before = snapshot(editor)
        let error = #expect(throws: EditScriptError.self) {
            try EditScript.apply(JSONParser.parse(Array(step.utf8)), to: editor, interaction: interaction)
        }
        #expect(error?.message == message)
        let after = snapshot(editor)
        #expect(after.json == before.json && after.text == before.text && after.selection == before.selection)
    }

    @Test(arguments: ScriptInteraction.operations.sorted())
    func interactionStepsNeedAnInteractionState(op: String) throws {
        let editor = try makeEditor()
        let error = #expect(throws: EditScriptError.self) {
            try EditScript.apply(.object(["op": .string(op)]), to: editor)
        }
        #expect(error?.message == "\"\(op)\" needs the script's interaction state")
    }

    @Test func aRangeBeyondTheTextIsRefusedByTheEditorWithoutAChange() throws {
        let editor = try makeEditor()
        try EditScript.apply(.object(["op": .string("type"), "text": .string("abc")]), to: editor)
        let before = snapshot(editor)
        #expect(throws: (any Error).self) {
            try EditScript.apply(JSONParser.parse(Array(#"{"op":"replace","start":2,"end":40,"text":"x"}"#.utf8)), to: editor)
        }
        let after = snapshot(editor)
        #expect(after.json == before.json && after.text == before.text && after.selection == before.selection)
    }

    @Test func theResultHoldsTextSelectionStateAndTheInteractionFields() throws {
        let (_, plain) = try run(#"{"op":"type","text":"Hi there"}"# + "\n" + #"{"op":"select","start":0,"end":2}"# + "\n" + #"{"op":"format","format":"bold"}"#)
        #expect(plain["text"]?.stringValue == "Hi there")
        #expect(plain["selection"] == .array([.number(.integer(0)), .number(.integer(2))]))
        let text = plain["state"]?.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.first?.objectValue?["children"]?.arrayValue
        #expect(text?.first?.objectValue?["format"]?.intValue == 1, "bold is format bit 1")
        #expect(plain["viewport"] == nil && plain["caret"] == nil && plain["highlights"] == nil)

        let (_, viewed) = try run("""
        {"op":"viewport","width":10,"height":3}
        {"op":"type","text":"one two three four five six"}
        {"op":"highlight","ranges":[[0,3,"spell"]]}
        """)
        #expect(viewed["viewport"]?.objectValue?["columns"]?.intValue == 10)
        #expect(viewed["caret"]?.objectValue?["row"]?.intValue ?? 0 > 0, "the caret wrapped to a later row")
        #expect(viewed["highlights"] == .array([.array([.number(.integer(0)), .number(.integer(3)), .string("spell")])]))
    }

    @Test func namedCommandsReachPluginsAndUnknownNamesAreRefused() throws {
        let (editor, result) = try run("""
        {"op":"type","text":"Title"}
        {"op":"command","name":"heading.set","payload":"h2"}
        """)
        let blocks = result["state"]?.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.compactMap(\.objectValue)
        #expect(blocks?.map { $0["type"]?.stringValue } == ["heading"])
        #expect(blocks?.first?["tag"]?.stringValue == "h2")
        #expect(throws: EditorError.unknownCommand("nobody.handles")) {
            try EditScript.dispatchNamed("nobody.handles", payload: .null, on: editor)
        }
        // Undo with nothing to undo is a handled no-op, not an unknown command.
        let empty = try makeEditor()
        try EditScript.dispatchNamed("editor.undo", payload: .null, on: empty)
    }
}
