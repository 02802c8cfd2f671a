import QuireModel

/// Commands and node transforms: registration, dispatch by type and by name, and the built-in
/// commands every editor handles.
extension Editor: EditorRegistrar, CommandContext {
    /// Runs `transform` on every node of `type` an update writes, until nothing changes.
    @discardableResult
    public func registerNodeTransform(_ type: NodeType, _ transform: @escaping (inout EditorState, NodeKey) throws(ModelError) -> Void) -> ListenerToken {
        let token = makeToken()
        transforms[type, default: []].append((token.id, transform))
        return token
    }

    /// Runs `transform` once per transform pass with every attached node of `type` that the update
    /// (or the previous pass) wrote, in key order, after the pass's per-node transforms. For work
    /// that is cheaper per batch than per node: a list renumbers once from its first written item
    /// instead of once per written item. Its writes start another pass, as a per-node transform's do.
    @discardableResult
    public func registerNodeTransform(_ type: NodeType, batch transform: @escaping (inout EditorState, [NodeKey]) throws(ModelError) -> Void) -> ListenerToken {
        let token = makeToken()
        batchTransforms[type, default: []].append((token.id, transform))
        return token
    }

    /// Handles `command` at `priority`; the handler returns true to stop lower priorities.
    ///
    /// - Throws: `EditorError.commandNameCollision` when the command's name or one of its aliases
    ///   belongs to another command declaration (registered by a plugin, the built-ins or the app).
    @discardableResult
    public func registerCommand<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority, _ handler: @escaping CommandHandler<Payload>
    ) throws(EditorError) -> ListenerToken {
        try registerCommand(command, priority: priority, owner: "the app (Editor.registerCommand)", handler)
    }

    func registerCommand<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority, owner: String, _ handler: @escaping CommandHandler<Payload>
    ) throws(EditorError) -> ListenerToken {
        let registration = CommandRegistration(declaration: command.declaration, owner: owner)
        try commandNames.check(registration, aliases: command.aliases) { commandListeners[$0]?.isEmpty == false }
        return addListener(command, priority: priority, registration) { payload, editor throws(EditorError) in try handler(payload, editor) }
    }

    /// Adds a listener for a command whose names `CommandNames.check` has cleared (or that a new
    /// editor registers first).
    @discardableResult
    private func addListener<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority, _ registration: CommandRegistration,
        _ body: @escaping (Payload, Editor) throws(EditorError) -> Bool
    ) -> ListenerToken {
        let name = command.name
        let replacing = commandListeners[name]?.isEmpty != false
        commandNames.record(registration, aliases: command.aliases, replacing: replacing)
        let token = makeToken()
        let erased: (Any, Editor) throws(EditorError) -> Bool = { payload, editor throws(EditorError) in
            guard let typed = payload as? Payload else {
                throw .invalidPayload(command: name, reason: "expected \(Payload.self)")
            }
            return try body(typed, editor)
        }
        commandListeners[name, default: []].append((token.id, priority, erased))
        // A new declaration of a name whose handlers are gone brings its own decoder, or none.
        if let decode = command.decodePayload {
            payloadDecoders[name] = { json in try decode(json) }
        } else if replacing {
            payloadDecoders[name] = nil
        }
        return token
    }

    /// Dispatches a command by name with a JSON payload, for commands declared with a JSON
    /// decoder (every built-in, and plugin commands that opt in). An alias (a name from before
    /// the `namespace.command` scheme) dispatches the command it names. Returns whether a
    /// listener handled it.
    ///
    /// - Throws: `EditorError.unknownCommand` when no listener for `name` was registered with a
    ///   decoder, `.invalidPayload` when the payload does not decode, or what the listener throws.
    @discardableResult
    public func dispatch(named name: String, payload: JSONValue) throws(EditorError) -> Bool {
        let canonical = commandNames.canonicalName(for: name)
        guard let decode = payloadDecoders[canonical], commandListeners[canonical]?.isEmpty == false else {
            throw .unknownCommand(name)
        }
        let decoded: Any
        do { decoded = try decode(payload) } catch { throw .forwarding(error) }
        return try runListeners(canonical, decoded)
    }

    /// The canonical names of the commands `dispatch(named:payload:)` accepts, sorted (aliases
    /// are not listed).
    public var scriptableCommandNames: [String] {
        payloadDecoders.keys.filter { commandListeners[$0]?.isEmpty == false }.sorted()
    }

    /// Dispatches a command: listeners run from the highest priority down (the most recently
    /// registered first within a priority) until one returns true. Returns whether one did.
    @discardableResult
    public func dispatch<Payload>(_ command: CommandType<Payload>, _ payload: Payload) throws(EditorError) -> Bool {
        try runListeners(command.name, payload)
    }

    func runListeners(_ name: String, _ payload: Any) throws(EditorError) -> Bool {
        let listeners = (commandListeners[name] ?? []).enumerated()
            .sorted { ($0.element.priority, $0.offset) > ($1.element.priority, $1.offset) }
        for (_, listener) in listeners {
            // Every stored listener is `registerCommand`'s wrapper, which throws only EditorError.
            do { if try listener.body(payload, self) { return true } } catch { throw .forwarding(error) }
        }
        return false
    }

    /// The state a command decides on: the committed one.
    public var currentState: EditorState { state }

    /// `CommandContext.update`: `Editor.update` with the body's errors mapped by `failure`.
    public func update<Failure: Error>(
        tag: String?, _ body: @escaping (inout EditorState) throws(Failure) -> Void, failure: @escaping (Failure) -> EditorError
    ) throws(EditorError) {
        try update(tag: tag) { (state: inout EditorState) throws(EditorError) in
            do throws(Failure) { try body(&state) } catch { throw failure(error) }
        }
    }

    /// The built-ins, at `.editor` priority so that any plugin can override them.
    func registerBuiltInCommands() {
        let builtIn = { (declaration: CommandDeclaration) in CommandRegistration(declaration: declaration, owner: "the editor's built-in commands") }
        func edit<Payload>(_ command: CommandType<Payload>, tag: String? = nil, _ body: @escaping (inout EditorState, Payload) throws(ModelError) -> Void) {
            addListener(command, priority: .editor, builtIn(command.declaration)) { payload, editor throws(EditorError) in
                try editor.update(tag: tag, { (state) throws(ModelError) in try body(&state, payload) }, failure: EditorError.model)
                return true
            }
        }
        edit(Commands.insertText, tag: "typing") { state, text throws(ModelError) in try state.insertInput(text) }
        edit(Commands.insertParagraph) { state, _ throws(ModelError) in try state.insertParagraph() }
        edit(Commands.insertLineBreak) { state, selectStart throws(ModelError) in try state.insertLineBreak(selectStart: selectStart) }
        edit(Commands.deleteCharacter, tag: "delete") { state, backward throws(ModelError) in try state.deleteCharacter(backward: backward) }
        edit(Commands.deleteWord) { state, backward throws(ModelError) in try state.deleteWord(backward: backward) }
        edit(Commands.deleteLine) { state, backward throws(ModelError) in try state.deleteLine(backward: backward) }
        edit(Commands.setBlocksType) { state, template throws(ModelError) in try state.setBlocksType(template) }
        edit(Commands.formatText) { state, format throws(ModelError) in try state.formatText(format) }
        for (command, redo) in [(Commands.undo, false), (Commands.redo, true)] {
            addListener(command, priority: .editor, builtIn(command.declaration)) { _, editor throws(EditorError) in
                try redo ? editor.redo() : editor.undo()
            }
        }
    }
}

extension EditorError {
    /// What an untyped-throwing call inside the editor (a stored command listener or payload
    /// decoder) threw, as the typed error.
    static func forwarding(_ error: any Error) -> EditorError { EditorError(error) }
}

/// Which command declaration owns each name on one editor, and the aliases that lead to them.
/// A name stays claimed while the editor has a listener for its command.
struct CommandNames {
    private var owners: [String: CommandRegistration] = [:]
    private var aliases: [String: String] = [:]

    /// The canonical name `name` dispatches to: itself, or the command it is an alias of.
    func canonicalName(for name: String) -> String { aliases[name] ?? name }

    /// Throws when the registration's name or one of `newAliases` is the name or an alias of a live
    /// declaration (`isLive(its canonical name)`) other than the registration's own.
    ///
    /// - Complexity: O(aliases).
    func check(_ registration: CommandRegistration, aliases newAliases: [String], isLive: (String) -> Bool) throws(EditorError) {
        for claimed in [registration.declaration.name] + newAliases {
            for holder in [claimed, aliases[claimed]].compactMap({ $0 }) where isLive(holder) {
                guard let existing = owners[holder], existing.declaration != registration.declaration else { continue }
                throw .commandNameCollision(name: claimed, registered: existing, refused: registration)
            }
        }
    }

    /// Records the registration's names; `replacing` when no listener holds its name any more,
    /// so that the previous declaration's aliases go with it.
    ///
    /// - Complexity: O(aliases) when replacing, else O(new aliases).
    mutating func record(_ registration: CommandRegistration, aliases newAliases: [String], replacing: Bool) {
        let name = registration.declaration.name
        if replacing || owners[name] == nil {
            owners[name] = registration
            aliases = aliases.filter { $0.value != name }
        }
        for alias in newAliases { aliases[alias] = name }
    }
}
