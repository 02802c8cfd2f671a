import QuireModel

/// Commands and node transforms: registration, dispatch by type and by name, and the built-in
/// commands every editor handles.
extension Editor {
    /// Runs `transform` on every node of `type` an update writes, until nothing changes.
    @discardableResult
    public func registerNodeTransform(_ type: NodeType, _ transform: @escaping (inout EditorState, NodeKey) throws -> Void) -> ListenerToken {
        let token = makeToken()
        transforms[type, default: []].append((token.id, transform))
        return token
    }

    /// Runs `transform` once per transform pass with every attached node of `type` that the update
    /// (or the previous pass) wrote, in key order, after the pass's per-node transforms. For work
    /// that is cheaper per batch than per node: a list renumbers once from its first written item
    /// instead of once per written item. Its writes start another pass, as a per-node transform's do.
    @discardableResult
    public func registerNodeTransform(_ type: NodeType, batch transform: @escaping (inout EditorState, [NodeKey]) throws -> Void) -> ListenerToken {
        let token = makeToken()
        batchTransforms[type, default: []].append((token.id, transform))
        return token
    }

    /// Handles `command` at `priority`; return true to stop lower priorities.
    @discardableResult
    public func registerCommand<Payload>(_ command: CommandType<Payload>, priority: CommandPriority = .normal, _ handler: @escaping (Payload, Editor) throws -> Bool) -> ListenerToken {
        let token = makeToken()
        let erased: (Any, Editor) throws -> Bool = { payload, editor in
            guard let typed = payload as? Payload else {
                throw EditorError.invalidPayload(command: command.name, reason: "expected \(Payload.self)")
            }
            return try handler(typed, editor)
        }
        commandListeners[command.name, default: []].append((token.id, priority, erased))
        if let decode = command.decodePayload {
            payloadDecoders[command.name] = { json in try decode(json) }
        }
        return token
    }

    /// Dispatches a command by name with a JSON payload, for commands declared with a JSON
    /// decoder (every built-in, and plugin commands that opt in). Returns whether a listener
    /// handled it.
    ///
    /// - Throws: `EditorError.unknownCommand` when no listener for `name` was registered with a
    ///   decoder, `.invalidPayload` when the payload does not decode, or what the listener throws.
    @discardableResult
    public func dispatch(named name: String, payload: JSONValue) throws -> Bool {
        guard let decode = payloadDecoders[name], commandListeners[name]?.isEmpty == false else {
            throw EditorError.unknownCommand(name)
        }
        return try runListeners(name, try decode(payload))
    }

    /// The names of the commands `dispatch(named:payload:)` accepts, sorted.
    public var scriptableCommandNames: [String] {
        payloadDecoders.keys.filter { commandListeners[$0]?.isEmpty == false }.sorted()
    }

    /// Dispatches a command: listeners run from the highest priority down (the most recently
    /// registered first within a priority) until one returns true. Returns whether one did.
    @discardableResult
    public func dispatch<Payload>(_ command: CommandType<Payload>, _ payload: Payload) throws -> Bool {
        try runListeners(command.name, payload)
    }

    func runListeners(_ name: String, _ payload: Any) throws -> Bool {
        let listeners = (commandListeners[name] ?? []).enumerated()
            .sorted { ($0.element.priority, $0.offset) > ($1.element.priority, $1.offset) }
        for (_, listener) in listeners where try listener.body(payload, self) { return true }
        return false
    }

    /// Dispatches a command.
    @discardableResult
    public func dispatch(_ command: CommandType<Void>) throws -> Bool { try dispatch(command, ()) }

    func registerBuiltInCommands() {
        registerCommand(Commands.insertText, priority: .editor) { text, editor in
            try editor.update(tag: "typing") { try $0.insertInput(text) }
            return true
        }
        registerCommand(Commands.insertParagraph, priority: .editor) { _, editor in
            try editor.update { try $0.insertParagraph() }
            return true
        }
        registerCommand(Commands.insertLineBreak, priority: .editor) { selectStart, editor in
            try editor.update { try $0.insertLineBreak(selectStart: selectStart) }
            return true
        }
        registerCommand(Commands.deleteCharacter, priority: .editor) { backward, editor in
            try editor.update(tag: "delete") { try $0.deleteCharacter(backward: backward) }
            return true
        }
        registerCommand(Commands.deleteWord, priority: .editor) { backward, editor in
            try editor.update { try $0.deleteWord(backward: backward) }
            return true
        }
        registerCommand(Commands.deleteLine, priority: .editor) { backward, editor in
            try editor.update { try $0.deleteLine(backward: backward) }
            return true
        }
        registerCommand(Commands.setBlocksType, priority: .editor) { template, editor in
            try editor.update { try $0.setBlocksType(template) }
            return true
        }
        registerCommand(Commands.formatText, priority: .editor) { format, editor in
            try editor.update { try $0.formatText(format) }
            return true
        }
        registerCommand(Commands.undo, priority: .editor) { _, editor in try editor.undo() }
        registerCommand(Commands.redo, priority: .editor) { _, editor in try editor.redo() }
    }
}
