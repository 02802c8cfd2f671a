import QuireEditor
import QuireModel
import Testing

/// Command names: the `namespace.command` scheme, old names as aliases, and collisions refused
/// at install time with both claimants named.
@Suite struct CommandNameTests {
    /// A plugin declaring `note.add` with a string payload.
    enum Notes {
        static let add = CommandType<String>.scriptable("note.add", aliases: ["addNote"])
    }

    /// Another plugin that declares a command of its own under the same name.
    enum Rival {
        static let add = CommandType<Int>("note.add")
        static let sameTypeElsewhere = CommandType<String>.scriptable("note.add")
        static let takesAnAlias = CommandType<Void>.scriptable("rival.addNote", aliases: ["addNote"])
        static let takesABuiltInsOldName = CommandType<String>.scriptable("insertText")
    }

    /// Registers one handler for `command` that counts its calls.
    struct Handles<Payload>: EditorExtension {
        let command: CommandType<Payload>
        let counter: Counter

        func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
            let counter = counter
            return [try registrar.registerCommand(command) { _, _ in counter.calls += 1; return true }]
        }
    }

    final class Counter: @unchecked Sendable {
        var calls = 0
    }

    @Test func everyBuiltInIsInTheEditorNamespaceWithItsOldNameAsAlias() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["ab"]))
        let names = editor.scriptableCommandNames
        #expect(names == names.sorted())
        #expect(names.allSatisfy { $0.hasPrefix("editor.") }, "canonical names only: \(names)")
        #expect(names.contains("editor.insertText") && !names.contains("insertText"))
        let builtIns = [
            Commands.insertText.names, Commands.insertParagraph.names, Commands.insertLineBreak.names, Commands.deleteCharacter.names,
            Commands.deleteWord.names, Commands.deleteLine.names, Commands.formatText.names, Commands.setBlocksType.names,
            Commands.undo.names, Commands.redo.names, Commands.keyTab.names,
        ]
        for command in builtIns {
            #expect(command.count == 2 && command[0] == "editor." + command[1], "\(command)")
        }
    }

    @Test func anAliasDispatchesTheCommandItNames() throws {
        let editor = try Editor(state: EditorState(paragraphs: ["ab"]))
        let text = try #require(editor.state[editor.state.textBlocks()[0]]?.firstChild)
        try editor.update { try $0.select(.text(text, 2)) }
        #expect(try editor.dispatch(named: "insertText", payload: .string("c")))
        #expect(try editor.dispatch(named: "editor.insertText", payload: .string("d")))
        #expect(FlatString.render(editor.state) == "abcd")
        // A payload error names the canonical command, whichever name was used.
        #expect(throws: EditorError.invalidPayload(command: "editor.insertText", reason: "expected a string, not null")) {
            try editor.dispatch(named: "insertText", payload: .null)
        }
        let counter = Counter()
        try editor.install([Handles(command: Notes.add, counter: counter)])
        #expect(try editor.dispatch(named: "addNote", payload: .string("x")))
        #expect(try editor.dispatch(named: "note.add", payload: .string("y")))
        #expect(counter.calls == 2)
        #expect(editor.scriptableCommandNames.contains("note.add") && !editor.scriptableCommandNames.contains("addNote"))
    }

    @Test func oneDeclarationRegisteredByTwoExtensionsIsOneCommand() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        let first = Counter(), second = Counter()
        try editor.install([Handles(command: Notes.add, counter: first), Handles(command: Notes.add, counter: second)])
        #expect(try editor.dispatch(Notes.add, "x"))
        #expect(second.calls == 1 && first.calls == 0, "the later registration runs first and handles it")
    }

    @Test func anotherDeclarationOfTheNameIsRefusedNamingBoth() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        let counter = Counter()
        try editor.install([Handles(command: Notes.add, counter: counter)])
        for rival in [Rival.add.declaration, Rival.sameTypeElsewhere.declaration] {
            #expect(rival.name == "note.add" && rival != Notes.add.declaration)
        }
        #expect {
            try editor.install([Handles(command: Rival.add, counter: Counter())])
        } throws: { error in
            guard case .commandNameCollision(let name, let registered, let refused)? = error as? EditorError else { return false }
            return name == "note.add"
                && registered.declaration == Notes.add.declaration && registered.owner == String(reflecting: Handles<String>.self)
                && refused.declaration == Rival.add.declaration && refused.owner == String(reflecting: Handles<Int>.self)
        }
        #expect(throws: EditorError.self) { try editor.install([Handles(command: Rival.sameTypeElsewhere, counter: Counter())]) }
        let error = #expect(throws: EditorError.self) { try editor.install([Handles(command: Rival.add, counter: Counter())]) }
        let message = error?.description ?? ""
        #expect(message.contains("CommandNameTests.Handles<Swift.String>") && message.contains("CommandNameTests.Handles<Swift.Int>"), "\(message)")
        #expect(message.contains("CommandNameTests.swift:"), "both declaration sites: \(message)")
        #expect(try editor.dispatch(Notes.add, "still mine"))
        #expect(counter.calls == 1)
    }

    @Test func aliasesCollideWithNamesAndAliases() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        try editor.install([Handles(command: Notes.add, counter: Counter())])
        #expect {
            try editor.install([Handles(command: Rival.takesAnAlias, counter: Counter())])
        } throws: { error in
            guard case .commandNameCollision(let name, let registered, _)? = error as? EditorError else { return false }
            return name == "addNote" && registered.declaration == Notes.add.declaration
        }
        #expect {
            try editor.install([Handles(command: Rival.takesABuiltInsOldName, counter: Counter())])
        } throws: { error in
            guard case .commandNameCollision(let name, let registered, _)? = error as? EditorError else { return false }
            return name == "insertText" && registered.owner == "the editor's built-in commands"
        }
        #expect(throws: EditorError.self, "an app's direct registration is checked too") {
            try editor.registerCommand(Rival.add) { _, _ in true }
        }
    }

    @Test func aFailedInstallRegistersNothing() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        try editor.install([Handles(command: Notes.add, counter: Counter())])
        let fresh = CommandType<Void>.scriptable("fresh.command")
        #expect(throws: EditorError.self) {
            try editor.install([Handles(command: fresh, counter: Counter()), Handles(command: Rival.add, counter: Counter())])
        }
        #expect(try !editor.dispatch(fresh), "the first extension of the failed install was removed again")
        #expect(!editor.scriptableCommandNames.contains("fresh.command"))
    }

    @Test func aNameIsFreeAgainOnceItsHandlersAreGone() throws {
        let editor = try Editor(state: EditorState(paragraphs: [""]))
        let tokens = try editor.install([Handles(command: Notes.add, counter: Counter())])
        for token in tokens { editor.unregister(token) }
        let counter = Counter()
        try editor.install([Handles(command: Rival.add, counter: counter)])
        #expect(try editor.dispatch(Rival.add, 1))
        #expect(counter.calls == 1)
        #expect(throws: EditorError.unknownCommand("addNote"), "the old declaration's alias went with it") {
            try editor.dispatch(named: "addNote", payload: .string("x"))
        }
        #expect(throws: EditorError.unknownCommand("note.add"), "and its decoder: the new one has none") {
            try editor.dispatch(named: "note.add", payload: .string("x"))
        }
    }
}
