import QuireModel
import QuireReconciler
import QuireSelection
import QuireTextStorage

/// Why an editor operation failed. The editor's state, storage and selection are unchanged.
///
/// The editor's parts keep their own typed errors; an `EditorError` carries them as they were
/// thrown (a `ModelError` with the node at fault, a `TextStorageError` with its offsets, …), so an
/// app can tell them apart without parsing words.
public enum EditorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An editing operation refused the change.
    case model(ModelError)
    /// Node transforms kept writing for `passes` passes.
    case transformLoop(passes: Int)
    /// `dispatch(named:)` found no command of that name.
    case unknownCommand(String)
    /// A command's payload did not decode.
    case invalidPayload(command: String, reason: String)
    /// The reconciler could not bring the storage or the index up to date (both show the previous
    /// state again).
    case reconcile(ReconcilerError)
    /// A native range or selection could not be mapped to the document.
    case selection(SelectionError)
    /// The text storage refused an edit or a selection.
    case storage(TextStorageError)
    /// The operation needs a text storage and the editor is headless.
    case needsStorage(operation: String)
    /// A registration gave a command name (or alias) that another command declaration already
    /// has: the one registered first, and the one refused.
    case commandNameCollision(name: String, registered: CommandRegistration, refused: CommandRegistration)
    /// An update body, transform or command handler threw an error of its own (not one of the
    /// editor's); it is kept as thrown.
    case thrown(any Error)

    /// The error as an `EditorError`: the editor's own and its parts' typed errors are nested in
    /// their case, anything else is `.thrown`.
    public init(_ error: any Error) {
        switch error {
        case let error as EditorError: self = error
        case let error as ModelError: self = .model(error)
        case let error as ReconcilerError: self = .reconcile(error)
        case let error as SelectionError: self = .selection(error)
        case let error as TextStorageError: self = .storage(error)
        default: self = .thrown(error)
        }
    }

    /// For `.thrown`, the error as thrown; nil otherwise.
    public var thrownError: (any Error)? {
        if case .thrown(let error) = self { return error }
        return nil
    }

    public var description: String {
        switch self {
        case .model(let error): error.description
        case .transformLoop(let passes): "node transforms did not settle after \(passes) passes (a transform keeps writing)"
        case .unknownCommand(let name): "no listener handled command \"\(name)\""
        case .invalidPayload(let command, let reason): "invalid payload for command \"\(command)\": \(reason)"
        case .reconcile(let error): "reconcile failed: \(error)"
        case .selection(let error): "selection: \(error)"
        case .storage(let error): "text storage: \(error)"
        case .needsStorage(let operation): "\(operation) needs a text storage; the editor is headless"
        case .commandNameCollision(let name, let registered, let refused):
            "command name \"\(name)\" is taken by \(registered); \(refused) cannot have it too"
        case .thrown(let error): String(describing: error)
        }
    }

    public static func == (lhs: EditorError, rhs: EditorError) -> Bool {
        switch (lhs, rhs) {
        case (.model(let a), .model(let b)): a == b
        case (.transformLoop(let a), .transformLoop(let b)): a == b
        case (.unknownCommand(let a), .unknownCommand(let b)): a == b
        case (.invalidPayload(let a, let x), .invalidPayload(let b, let y)): a == b && x == y
        case (.reconcile(let a), .reconcile(let b)): a == b
        case (.selection(let a), .selection(let b)): a == b
        case (.storage(let a), .storage(let b)): a == b
        case (.needsStorage(let a), .needsStorage(let b)): a == b
        case (.commandNameCollision(let a, let x, let p), .commandNameCollision(let b, let y, let q)): a == b && x == y && p == q
        // Errors of unknown types compare by their full description (type and payload).
        case (.thrown(let a), .thrown(let b)): String(reflecting: a) == String(reflecting: b)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .thrown(let error): hasher.combine(String(reflecting: error))
        default: hasher.combine(description)
        }
    }
}
