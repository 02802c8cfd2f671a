import QuireModel

/// A command's identity and payload type, as Lexical's `createCommand`.
///
/// A command that can also be dispatched by name with a JSON payload (scripts, tests, remote
/// control: `Editor.dispatch(named:payload:)`) carries a decoder from JSON to its payload.
public struct CommandType<Payload>: Hashable, Sendable {
    /// The command's identity: two command types with one name are the same command.
    public let name: String
    /// Decodes a JSON payload (throwing `EditorError.invalidPayload`); nil when the command
    /// cannot be dispatched by name.
    public let decodePayload: (@Sendable (JSONValue) throws -> Payload)?

    /// A command dispatched only with a typed payload, never by name.
    public init(_ name: String) {
        self.name = name
        decodePayload = nil
    }

    /// A command that can be dispatched by name, decoding its payload from JSON with `decode`.
    public init(_ name: String, decodingJSON decode: @escaping @Sendable (JSONValue) throws -> Payload) {
        self.name = name
        decodePayload = decode
    }

    public static func == (lhs: CommandType, rhs: CommandType) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

extension CommandType where Payload == Void {
    /// A command without payload, dispatchable by name (the JSON payload is ignored).
    public static func scriptable(_ name: String) -> CommandType { CommandType(name) { _ in () } }
}

extension CommandType where Payload == Bool {
    /// A command with a flag, dispatchable by name with `true`, `false` or null (true).
    public static func scriptable(_ name: String) -> CommandType {
        CommandType(name) { json in
            switch json {
            case .bool(let value): return value
            case .null: return true
            default: throw EditorError.invalidPayload(command: name, reason: "expected a boolean, not \(json.typeName)")
            }
        }
    }
}

extension CommandType where Payload == Int {
    /// A command with an integer, dispatchable by name with a JSON integer.
    public static func scriptable(_ name: String) -> CommandType {
        CommandType(name) { json in
            guard let value = json.intValue else { throw EditorError.invalidPayload(command: name, reason: "expected an integer, not \(json.typeName)") }
            return value
        }
    }
}

extension CommandType where Payload == String? {
    /// A command with an optional string, dispatchable by name with a JSON string or null.
    public static func scriptable(_ name: String) -> CommandType {
        CommandType(name) { json in
            switch json {
            case .null: return nil
            case .string(let value): return value
            default: throw EditorError.invalidPayload(command: name, reason: "expected a string or null, not \(json.typeName)")
            }
        }
    }
}

extension CommandType where Payload: RawRepresentable & SendableMetatype, Payload.RawValue == String {
    /// A command whose payload is a string enumeration (a list type, a heading tag),
    /// dispatchable by name with the case's raw value.
    public static func scriptable(_ name: String) -> CommandType {
        CommandType(name) { json in try decodeCase(from: json, command: name) }
    }
}

extension CommandType {
    /// A command whose payload is an optional string enumeration, dispatchable by name with the
    /// case's raw value or null.
    public static func scriptable<Case: RawRepresentable & SendableMetatype>(_ name: String) -> CommandType where Payload == Case?, Case.RawValue == String {
        CommandType(name) { json -> Case? in json == .null ? nil : try decodeCase(from: json, command: name) }
    }
}

/// The case of a string enumeration a JSON payload names.
private func decodeCase<Case: RawRepresentable>(from json: JSONValue, command: String) throws -> Case where Case.RawValue == String {
    guard let raw = json.stringValue, let value = Case(rawValue: raw) else {
        throw EditorError.invalidPayload(command: command, reason: "expected one of \(String(describing: Case.self)) as a string, not \(JSONWriter().string(json))")
    }
    return value
}

extension CommandType where Payload == String {
    /// A command with a string, dispatchable by name with a JSON string.
    public static func scriptable(_ name: String) -> CommandType {
        CommandType(name) { json in
            guard let string = json.stringValue else { throw EditorError.invalidPayload(command: name, reason: "expected a string, not \(json.typeName)") }
            return string
        }
    }
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
    /// Payload: the typed or pasted text ("\n" starts a paragraph), as `insertInput`.
    public static let insertText = CommandType<String>.scriptable("insertText")
    /// Enter: splits the block at the caret (plugins' Enter hooks run first).
    public static let insertParagraph = CommandType<Void>.scriptable("insertParagraph")
    /// Payload: `selectStart` (the caret stays before the break).
    public static let insertLineBreak = CommandType<Bool>.scriptable("insertLineBreak")
    /// Payload: backward (Backspace) or forward (Delete).
    public static let deleteCharacter = CommandType<Bool>.scriptable("deleteCharacter")
    /// Payload: backward (Option-Backspace) or forward.
    public static let deleteWord = CommandType<Bool>.scriptable("deleteWord")
    /// Payload: backward (to the line's start) or forward (to its end).
    public static let deleteLine = CommandType<Bool>.scriptable("deleteLine")
    /// Payload: one format; by name, a format name such as "bold".
    public static let formatText = CommandType<TextFormat>("formatText") { json in
        guard let format = json.stringValue.flatMap(TextFormat.init(named:)) else {
            throw EditorError.invalidPayload(command: "formatText", reason: "expected a format name such as \"bold\"")
        }
        return format
    }
    /// Turns the selected text blocks into blocks of the template's type (Lexical's
    /// `$setBlocksType`): paragraph, heading, quote, code … Blocks whose parent does not take the
    /// type (a list item) are left alone. By name: `{"type": "heading", "fields": {"tag": "h2"}}`.
    public static let setBlocksType = CommandType<BlockTemplate>("setBlocksType") { json in
        guard let object = json.objectValue, let type = object["type"]?.stringValue else {
            throw EditorError.invalidPayload(command: "setBlocksType", reason: "expected {\"type\": …, \"fields\": {…}}")
        }
        switch object["fields"] {
        case nil, .null?: return BlockTemplate(type: NodeType(type))
        case .object(let fields)?: return BlockTemplate(type: NodeType(type), fields: fields)
        case let other?: throw EditorError.invalidPayload(command: "setBlocksType", reason: "\"fields\" must be an object, not \(other.typeName)")
        }
    }
    /// Undoes the last history step.
    public static let undo = CommandType<Void>.scriptable("undo")
    /// Redoes the last undone step.
    public static let redo = CommandType<Void>.scriptable("redo")
    /// The Tab key, with `true` for Shift-Tab. No built-in handler: plugins give it meaning
    /// (a table moves between cells, a list indents), and `dispatch` returns false otherwise so
    /// that the view can insert a tab character.
    public static let keyTab = CommandType<Bool>.scriptable("keyTab")
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
