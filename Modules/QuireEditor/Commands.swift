import QuireModel

/// A command's identity and payload type, as Lexical's `createCommand`.
///
/// Names follow one scheme, `namespace.command`: the built-ins are `editor.*` (``Commands``), a
/// plugin's commands take the plugin's name as namespace (`list.insert`, `heading.set`,
/// `table.insertTable`). A command renamed to the scheme keeps its old name as an alias for one
/// release: `Editor.dispatch(named:payload:)` accepts it, no other command may take it.
///
/// A command that can also be dispatched by name with a JSON payload (scripts, tests, remote
/// control) carries a decoder from JSON to its payload.
///
/// Where a command type is declared is part of its identity: the same declaration registered by
/// several extensions is one command with several handlers (Tab in a table and in a list), while
/// two declarations with one name are a collision that `Editor.install(_:)` refuses.
public struct CommandType<Payload>: Hashable, Sendable {
    /// The command's canonical name, `namespace.command`.
    public let name: String
    /// Older names that still dispatch to it by name (deprecated, kept for one release).
    public let aliases: [String]
    /// Decodes a JSON payload (throwing `EditorError.invalidPayload`); nil when the command
    /// cannot be dispatched by name.
    public let decodePayload: (@Sendable (JSONValue) throws(EditorError) -> Payload)?
    /// Where it was declared, with its payload type.
    public let declaration: CommandDeclaration

    /// A command dispatched only with a typed payload, never by name.
    public init(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) {
        self.name = name
        self.aliases = aliases
        decodePayload = nil
        declaration = CommandDeclaration(name: name, payload: Payload.self, fileID: fileID, line: line)
    }

    /// A command that can be dispatched by name, decoding its payload from JSON with `decode`.
    public init(
        _ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line,
        decodingJSON decode: @escaping @Sendable (JSONValue) throws(EditorError) -> Payload
    ) {
        self.name = name
        self.aliases = aliases
        decodePayload = decode
        declaration = CommandDeclaration(name: name, payload: Payload.self, fileID: fileID, line: line)
    }

    /// Every name the command answers to by name: the canonical one first, then the aliases.
    public var names: [String] { [name] + aliases }

    public static func == (lhs: CommandType, rhs: CommandType) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// Where a command type was declared and with which payload type: what tells two command types
/// that share a name apart.
public struct CommandDeclaration: Hashable, Sendable, CustomStringConvertible {
    /// The canonical name.
    public let name: String
    /// The payload type's name (`ListType`, `Optional<String>`).
    public let payloadType: String
    /// `Module/File.swift:line`.
    public let site: String

    init<Payload>(name: String, payload: Payload.Type, fileID: StaticString, line: UInt) {
        self.name = name
        payloadType = String(describing: Payload.self)
        site = "\(fileID):\(line)"
    }

    public var description: String { "\"\(name)\" (payload \(payloadType), declared at \(site))" }
}

extension CommandType where Payload == Void {
    /// A command without payload, dispatchable by name (the JSON payload is ignored).
    public static func scriptable(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) -> CommandType {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (_) throws(EditorError) in () }
    }
}

extension CommandType where Payload == Bool {
    /// A command with a flag, dispatchable by name with `true`, `false` or null (true).
    public static func scriptable(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) -> CommandType {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (json) throws(EditorError) in
            switch json {
            case .bool(let value): return value
            case .null: return true
            default: throw .invalidPayload(command: name, reason: "expected a boolean, not \(json.typeName)")
            }
        }
    }
}

extension CommandType where Payload == Int {
    /// A command with an integer, dispatchable by name with a JSON integer.
    public static func scriptable(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) -> CommandType {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (json) throws(EditorError) in
            guard let value = json.intValue else { throw .invalidPayload(command: name, reason: "expected an integer, not \(json.typeName)") }
            return value
        }
    }
}

extension CommandType where Payload == String? {
    /// A command with an optional string, dispatchable by name with a JSON string or null.
    public static func scriptable(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) -> CommandType {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (json) throws(EditorError) in
            switch json {
            case .null: return nil
            case .string(let value): return value
            default: throw .invalidPayload(command: name, reason: "expected a string or null, not \(json.typeName)")
            }
        }
    }
}

extension CommandType where Payload: RawRepresentable & SendableMetatype, Payload.RawValue == String {
    /// A command whose payload is a string enumeration (a list type, a heading tag),
    /// dispatchable by name with the case's raw value.
    public static func scriptable(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) -> CommandType {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (json) throws(EditorError) in try decodeCase(from: json, command: name) }
    }
}

extension CommandType {
    /// A command whose payload is an optional string enumeration, dispatchable by name with the
    /// case's raw value or null.
    public static func scriptable<Case: RawRepresentable & SendableMetatype>(
        _ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line
    ) -> CommandType where Payload == Case?, Case.RawValue == String {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (json) throws(EditorError) -> Case? in
            json == .null ? nil : try decodeCase(from: json, command: name)
        }
    }
}

/// The case of a string enumeration a JSON payload names.
private func decodeCase<Case: RawRepresentable>(from json: JSONValue, command: String) throws(EditorError) -> Case where Case.RawValue == String {
    guard let raw = json.stringValue, let value = Case(rawValue: raw) else {
        throw .invalidPayload(command: command, reason: "expected one of \(String(describing: Case.self)) as a string, not \(JSONWriter().string(json))")
    }
    return value
}

extension CommandType where Payload == String {
    /// A command with a string, dispatchable by name with a JSON string.
    public static func scriptable(_ name: String, aliases: [String] = [], fileID: StaticString = #fileID, line: UInt = #line) -> CommandType {
        CommandType(name, aliases: aliases, fileID: fileID, line: line) { (json) throws(EditorError) in
            guard let string = json.stringValue else { throw .invalidPayload(command: name, reason: "expected a string, not \(json.typeName)") }
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
    package let id: Int

    /// A token with `id`; for registrars inside this package (the editor, test harnesses).
    package init(id: Int) { self.id = id }
}

/// The commands every editor handles at `.editor` priority, in the `editor` namespace. Their
/// names before the `namespace.command` scheme (`insertText`, `formatText` …) are aliases for
/// one release.
public enum Commands {
    /// Payload: the typed or pasted text ("\n" starts a paragraph), as `insertInput`.
    public static let insertText = CommandType<String>.scriptable("editor.insertText", aliases: ["insertText"])
    /// Enter: splits the block at the caret (plugins' Enter hooks run first).
    public static let insertParagraph = CommandType<Void>.scriptable("editor.insertParagraph", aliases: ["insertParagraph"])
    /// Payload: `selectStart` (the caret stays before the break).
    public static let insertLineBreak = CommandType<Bool>.scriptable("editor.insertLineBreak", aliases: ["insertLineBreak"])
    /// Payload: backward (Backspace) or forward (Delete).
    public static let deleteCharacter = CommandType<Bool>.scriptable("editor.deleteCharacter", aliases: ["deleteCharacter"])
    /// Payload: backward (Option-Backspace) or forward.
    public static let deleteWord = CommandType<Bool>.scriptable("editor.deleteWord", aliases: ["deleteWord"])
    /// Payload: backward (to the line's start) or forward (to its end).
    public static let deleteLine = CommandType<Bool>.scriptable("editor.deleteLine", aliases: ["deleteLine"])
    /// Payload: one format; by name, a format name such as "bold".
    public static let formatText = CommandType<TextFormat>("editor.formatText", aliases: ["formatText"]) { (json) throws(EditorError) in
        guard let format = json.stringValue.flatMap(TextFormat.init(named:)) else {
            throw .invalidPayload(command: "editor.formatText", reason: "expected a format name such as \"bold\"")
        }
        return format
    }
    /// Turns the selected text blocks into blocks of the template's type (Lexical's
    /// `$setBlocksType`): paragraph, heading, quote, code … Blocks whose parent does not take the
    /// type (a list item) are left alone. By name: `{"type": "heading", "fields": {"tag": "h2"}}`.
    public static let setBlocksType = CommandType<BlockTemplate>("editor.setBlocksType", aliases: ["setBlocksType"]) { (json) throws(EditorError) in
        let command = "editor.setBlocksType"
        guard let object = json.objectValue, let type = object["type"]?.stringValue else {
            throw .invalidPayload(command: command, reason: "expected {\"type\": …, \"fields\": {…}}")
        }
        switch object["fields"] {
        case nil, .null?: return BlockTemplate(type: NodeType(type))
        case .object(let fields)?: return BlockTemplate(type: NodeType(type), fields: fields)
        case let other?: throw .invalidPayload(command: command, reason: "\"fields\" must be an object, not \(other.typeName)")
        }
    }
    /// Undoes the last history step.
    public static let undo = CommandType<Void>.scriptable("editor.undo", aliases: ["undo"])
    /// Redoes the last undone step.
    public static let redo = CommandType<Void>.scriptable("editor.redo", aliases: ["redo"])
    /// The Tab key, with `true` for Shift-Tab. No built-in handler: plugins give it meaning
    /// (a table moves between cells, a list indents), and `dispatch` returns false otherwise so
    /// that the view can insert a tab character.
    public static let keyTab = CommandType<Bool>.scriptable("editor.keyTab", aliases: ["keyTab"])
}
