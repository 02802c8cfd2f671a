import QuireEditor
import QuireModel

/// Runs an `EditorExtension` on a plain `EditorState`, without an `Editor`: the registrar and the
/// command context a plugin sees, and nothing else. A plugin whose tests pass here uses only what
/// the narrow protocols offer, so it cannot depend on the editor's reconciler, storage or history.
///
/// Commands dispatch as on an editor (highest priority first, the latest registration first within
/// one, until a handler returns true); an update applies its body to the state in one step. Node
/// transforms and listeners are recorded but not run: a plugin whose commands rely on its
/// transforms is tested on an `Editor`.
public final class ExtensionHarness: EditorRegistrar, CommandContext {
    /// The state commands edit.
    public private(set) var state: EditorState
    /// Every command declaration registered, in order, with its priority.
    public private(set) var commands: [(declaration: CommandDeclaration, priority: CommandPriority)] = []
    /// The node types transforms were registered for, in order.
    public private(set) var transformTypes: [NodeType] = []
    /// How many update listeners were registered.
    public private(set) var updateListenerCount = 0
    /// How many follow-ups were registered (recorded, not run: they need an `Editor`).
    public private(set) var followUpCount = 0
    /// How many updates committed, nested ones included.
    public private(set) var updateCount = 0
    private var handlers: [String: [(id: Int, priority: CommandPriority, body: (Any, ExtensionHarness) throws(EditorError) -> Bool)]] = [:]
    private var nextID = 0

    /// A harness over `state`.
    public init(state: EditorState) {
        self.state = state
    }

    /// Registers `editorExtension` here, as `Editor.install(_:)` would.
    @discardableResult
    public func install(_ editorExtension: any EditorExtension) throws(EditorError) -> [ListenerToken] {
        try editorExtension.register(on: self)
    }

    /// Replaces the state (a selection to act on, a document to start from).
    public func setState(_ newState: EditorState) {
        state = newState
    }

    // MARK: EditorRegistrar

    public func registerCommand<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority, _ handler: @escaping CommandHandler<Payload>
    ) throws(EditorError) -> ListenerToken {
        let token = token()
        commands.append((command.declaration, priority))
        let name = command.name
        handlers[name, default: []].append((token.id, priority, { payload, harness throws(EditorError) in
            guard let typed = payload as? Payload else { throw .invalidPayload(command: name, reason: "expected \(Payload.self)") }
            return try handler(typed, harness)
        }))
        return token
    }

    public func registerNodeTransform(_ type: NodeType, _ transform: @escaping (inout EditorState, NodeKey) throws(ModelError) -> Void) -> ListenerToken {
        transformTypes.append(type)
        return token()
    }

    public func registerNodeTransform(_ type: NodeType, batch transform: @escaping (inout EditorState, [NodeKey]) throws(ModelError) -> Void) -> ListenerToken {
        transformTypes.append(type)
        return token()
    }

    public func registerUpdateListener(_ body: @escaping (EditorUpdate) -> Void) -> ListenerToken {
        updateListenerCount += 1
        return token()
    }

    public func registerFollowUp(_ body: @escaping (EditorUpdate, Editor) -> Void) -> ListenerToken {
        followUpCount += 1
        return token()
    }

    /// A token for the latest registration (the harness never removes one).
    private func token() -> ListenerToken {
        nextID += 1
        return ListenerToken(id: nextID)
    }

    // MARK: CommandContext

    public var currentState: EditorState { state }

    public func update<Failure: Error>(
        tag: String?, _ body: @escaping (inout EditorState) throws(Failure) -> Void, failure: @escaping (Failure) -> EditorError
    ) throws(EditorError) {
        var next = state
        do { try body(&next) } catch { throw failure(error) }
        state = next
        updateCount += 1
    }

    @discardableResult
    public func dispatch<Payload>(_ command: CommandType<Payload>, _ payload: Payload) throws(EditorError) -> Bool {
        let listeners = (handlers[command.name] ?? []).sorted { ($0.priority, $0.id) > ($1.priority, $1.id) }
        for listener in listeners where try listener.body(payload, self) { return true }
        return false
    }
}
