import QuireModel

/// What a command handler may do with the editor it runs on: read the state, edit it in one
/// update, dispatch other commands. Handlers never see the reconciler, the storage or the
/// history; `Editor` conforms, and a test can hand a plugin's handlers a context of its own.
public protocol CommandContext: AnyObject {
    /// The state a handler decides on: the committed one (an update body reads the pending state
    /// through its parameter).
    var currentState: EditorState { get }

    /// Runs `body` on the state as one update (one commit, one history step); called while an
    /// update runs, it is queued and runs in that update's commit. Nothing is committed when it
    /// throws.
    ///
    /// - Throws: `failure(error)` for what `body` throws; the editor's own `EditorError`s
    ///   (a node transform's `ModelError` as `.model`).
    func update<Failure: Error>(
        tag: String?, _ body: @escaping (inout EditorState) throws(Failure) -> Void, failure: @escaping (Failure) -> EditorError
    ) throws(EditorError)

    /// Dispatches another command (see `Editor.dispatch(_:_:)`).
    @discardableResult
    func dispatch<Payload>(_ command: CommandType<Payload>, _ payload: Payload) throws(EditorError) -> Bool
}

extension CommandContext {
    /// Runs a model edit as one update; its `ModelError` becomes `EditorError.model`.
    ///
    /// Swift infers a closure's thrown type only when it is written, so the body names it:
    /// `try context.update { state throws(ModelError) in try state.insertList(type) }`.
    public func update(tag: String? = nil, _ body: @escaping (inout EditorState) throws(ModelError) -> Void) throws(EditorError) {
        try update(tag: tag, body, failure: EditorError.model)
    }

    /// Dispatches a command without payload.
    @discardableResult
    public func dispatch(_ command: CommandType<Void>) throws(EditorError) -> Bool {
        try dispatch(command, ())
    }
}

/// Handles a command's payload; returns true to stop lower priorities (the command is handled).
public typealias CommandHandler<Payload> = (Payload, any CommandContext) throws(EditorError) -> Bool

/// What an `EditorExtension` registers with: commands, node transforms and update listeners, and
/// nothing else of the editor. `Editor.install(_:)` hands each extension a registrar that records
/// who registered what, so that a command name two declarations claim is refused with both named.
public protocol EditorRegistrar: AnyObject {
    /// Handles `command` at `priority` (see `Editor.registerCommand(_:priority:_:)`).
    ///
    /// - Throws: `EditorError.commandNameCollision` when the command's name or an alias belongs
    ///   to another command declaration; nothing is registered then.
    func registerCommand<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority, _ handler: @escaping CommandHandler<Payload>
    ) throws(EditorError) -> ListenerToken

    /// Runs `transform` on every node of `type` an update writes, until nothing changes.
    func registerNodeTransform(_ type: NodeType, _ transform: @escaping (inout EditorState, NodeKey) throws(ModelError) -> Void) -> ListenerToken

    /// Runs `transform` once per transform pass with the written nodes of `type`, in key order.
    func registerNodeTransform(_ type: NodeType, batch transform: @escaping (inout EditorState, [NodeKey]) throws(ModelError) -> Void) -> ListenerToken

    /// Called after every commit with (state, previous state, written nodes).
    func registerUpdateListener(_ body: @escaping (EditorUpdate) -> Void) -> ListenerToken

    /// Runs `body` after every commit, once all its listeners ran, with the update and the
    /// editor: where an extension answers a commit with an edit of its own (markdown shortcuts
    /// turn a typed `# ` into a heading, as Lexical's do from an update listener). That edit is a
    /// commit of its own; running it after the listeners keeps every listener seeing commits in
    /// order. Errors of that edit reach the error listeners through its commit.
    func registerFollowUp(_ body: @escaping (EditorUpdate, Editor) -> Void) -> ListenerToken
}

extension EditorRegistrar {
    /// Handles `command` at `.normal` priority.
    @discardableResult
    public func registerCommand<Payload>(_ command: CommandType<Payload>, _ handler: @escaping CommandHandler<Payload>) throws(EditorError) -> ListenerToken {
        try registerCommand(command, priority: .normal, handler)
    }

    /// Handles `command` by running `edit` with its payload in one update (one undo step). The
    /// command is handled (true) unless `applies` says the current state is not one it acts on,
    /// so that lower priorities and the view get it (Tab outside a list).
    ///
    /// - Parameter failure: how what `edit` throws becomes an `EditorError` (what `applies`
    ///   throws becomes `.model`).
    @discardableResult
    public func registerEdit<Payload, Failure: Error>(
        _ command: CommandType<Payload>, priority: CommandPriority = .normal, tag: String? = nil,
        when applies: @escaping (EditorState) throws(ModelError) -> Bool = { _ in true }, failure: @escaping (Failure) -> EditorError,
        _ edit: @escaping (inout EditorState, Payload) throws(Failure) -> Void
    ) throws(EditorError) -> ListenerToken {
        try registerCommand(command, priority: priority) { (payload, context) throws(EditorError) in
            do throws(ModelError) { guard try applies(context.currentState) else { return false } } catch { throw .model(error) }
            try context.update(tag: tag, { (state) throws(Failure) in try edit(&state, payload) }, failure: failure)
            return true
        }
    }

    /// `registerEdit` for a model edit, whose `ModelError` becomes `EditorError.model`.
    @discardableResult
    public func registerEdit<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority = .normal, tag: String? = nil,
        when applies: @escaping (EditorState) throws(ModelError) -> Bool = { _ in true },
        _ edit: @escaping (inout EditorState, Payload) throws(ModelError) -> Void
    ) throws(EditorError) -> ListenerToken {
        try registerEdit(command, priority: priority, tag: tag, when: applies, failure: EditorError.model, edit)
    }
}

/// What a plugin adds to an editor at run time: commands, node transforms, listeners. A plugin
/// descriptor contributes one (`PluginContribution.editor(_:)`); `Editor.install(_:)` registers
/// them.
public protocol EditorExtension: Sendable {
    /// Registers the extension's handlers; returns their tokens so that an app can remove them
    /// again.
    ///
    /// - Throws: what a registration throws (a command name collision).
    func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken]
}

extension ContributionKey where Value == any EditorExtension {
    /// Commands, transforms and listeners (`editor.extension`), read by `Editor.install(_:)`.
    public static var editorExtension: ContributionKey<any EditorExtension> { ContributionKey("editor.extension") }
}

extension PluginContribution {
    /// An editor extension: the plugin's commands, transforms and listeners.
    public static func editor(_ editorExtension: any EditorExtension) -> PluginContribution {
        PluginContribution(.editorExtension, editorExtension)
    }
}

/// Who registered a command declaration: the extension's type (`QuireList.ListExtension`), the
/// editor's built-ins, or the app through `Editor.registerCommand`.
public struct CommandRegistration: Hashable, Sendable, CustomStringConvertible {
    /// The declaration registered.
    public let declaration: CommandDeclaration
    /// Who registered it.
    public let owner: String

    public var description: String { "\(owner)'s command \(declaration)" }
}

extension Editor {
    /// Registers `extensions` in order and returns all their tokens. All or nothing: when one
    /// throws (a command name another extension, a built-in or an earlier registration has), the
    /// handlers this call registered are removed again and the error names both claimants.
    @discardableResult
    public func install(_ extensions: [any EditorExtension]) throws(EditorError) -> [ListenerToken] {
        var tokens: [ListenerToken] = []
        for item in extensions {
            let registrar = OwnedRegistrar(editor: self, owner: String(reflecting: type(of: item)))
            do {
                _ = try item.register(on: registrar)
                tokens += registrar.tokens
            } catch {
                for token in tokens + registrar.tokens { unregister(token) }
                throw error
            }
        }
        return tokens
    }

    /// Registers the editor extensions among a configuration's contributions
    /// (`configuration.plugins.contributions`), in plugin order.
    @discardableResult
    public func install(_ contributions: [PluginContribution]) throws(EditorError) -> [ListenerToken] {
        try install(contributions.values(for: .editorExtension))
    }
}

/// The registrar an installed extension gets: it forwards to the editor under the extension's
/// name and keeps every token, for `install`'s rollback.
private final class OwnedRegistrar: EditorRegistrar {
    let editor: Editor
    let owner: String
    private(set) var tokens: [ListenerToken] = []

    init(editor: Editor, owner: String) {
        self.editor = editor
        self.owner = owner
    }

    private func kept(_ token: ListenerToken) -> ListenerToken {
        tokens.append(token)
        return token
    }

    func registerCommand<Payload>(
        _ command: CommandType<Payload>, priority: CommandPriority, _ handler: @escaping CommandHandler<Payload>
    ) throws(EditorError) -> ListenerToken {
        kept(try editor.registerCommand(command, priority: priority, owner: owner, handler))
    }

    func registerNodeTransform(_ type: NodeType, _ transform: @escaping (inout EditorState, NodeKey) throws(ModelError) -> Void) -> ListenerToken {
        kept(editor.registerNodeTransform(type, transform))
    }

    func registerNodeTransform(_ type: NodeType, batch transform: @escaping (inout EditorState, [NodeKey]) throws(ModelError) -> Void) -> ListenerToken {
        kept(editor.registerNodeTransform(type, batch: transform))
    }

    func registerUpdateListener(_ body: @escaping (EditorUpdate) -> Void) -> ListenerToken {
        kept(editor.registerUpdateListener(body))
    }

    func registerFollowUp(_ body: @escaping (EditorUpdate, Editor) -> Void) -> ListenerToken {
        kept(editor.registerFollowUp(body))
    }
}
