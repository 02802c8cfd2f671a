import QuireModel

/// A command's identity and payload type, as Lexical's `createCommand`.
public struct CommandType<Payload>: Hashable, Sendable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// Command listener priorities; higher runs first, as in Lexical.
public enum CommandPriority: Int, Comparable, Sendable, CaseIterable {
    case editor = 0, low, normal, high, critical

    public static func < (lhs: CommandPriority, rhs: CommandPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Returned by every registration; pass it to `Editor.unregister(_:)` to remove the listener.
public struct ListenerToken: Hashable, Sendable {
    let id: Int
}

/// The commands every editor handles at `.editor` priority.
public enum Commands {
    public static let insertText = CommandType<String>("insertText")
    public static let insertParagraph = CommandType<Void>("insertParagraph")
    public static let insertLineBreak = CommandType<Bool>("insertLineBreak")
    public static let deleteCharacter = CommandType<Bool>("deleteCharacter")
    public static let deleteWord = CommandType<Bool>("deleteWord")
    public static let deleteLine = CommandType<Bool>("deleteLine")
    public static let formatText = CommandType<TextFormat>("formatText")
    /// Turns the selected text blocks into blocks of the template's type (Lexical's
    /// `$setBlocksType`): paragraph, heading, quote, code … Blocks whose parent does not take the
    /// type (a list item) are left alone.
    public static let setBlocksType = CommandType<BlockTemplate>("setBlocksType")
    public static let undo = CommandType<Void>("undo")
    public static let redo = CommandType<Void>("redo")
    /// The Tab key, with `true` for Shift-Tab. No built-in handler: plugins give it meaning
    /// (a table moves between cells, a list indents), and `dispatch` returns false otherwise so
    /// that the view can insert a tab character.
    public static let keyTab = CommandType<Bool>("keyTab")
}

/// What a plugin adds to an editor at run time: commands, node transforms, listeners. A plugin
/// descriptor returns one among its extensions; `Editor.install(_:)` registers them.
public protocol EditorExtension: Sendable {
    /// Registers the extension's handlers on `editor`; returns their tokens so that an app can
    /// remove them again.
    func register(on editor: Editor) -> [ListenerToken]
}

extension Editor {
    /// Registers every `EditorExtension` among `extensions` (a configuration's plugin extensions,
    /// in plugin order) and returns all their tokens.
    @discardableResult
    public func install(_ extensions: [any Sendable]) -> [ListenerToken] {
        extensions.compactMap { $0 as? any EditorExtension }.flatMap { $0.register(on: self) }
    }
}

/// Why an editor operation failed. The editor's state, storage and selection are unchanged.
public enum EditorError: Error, Hashable, Sendable, CustomStringConvertible {
    case model(ModelError)
    case transformLoop(passes: Int)
    case unknownCommand(String)
    case invalidPayload(command: String, reason: String)
    case reconcile(String)
    case selection(String)
    case storage(String)

    public var description: String {
        switch self {
        case .model(let error): error.description
        case .transformLoop(let passes): "node transforms did not settle after \(passes) passes (a transform keeps writing)"
        case .unknownCommand(let name): "no listener handled command \"\(name)\""
        case .invalidPayload(let command, let reason): "invalid payload for command \"\(command)\": \(reason)"
        case .reconcile(let message): "reconcile failed: \(message)"
        case .selection(let message): "selection: \(message)"
        case .storage(let message): "text storage: \(message)"
        }
    }
}
