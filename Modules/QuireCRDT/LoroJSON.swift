/// Loro's JSON updates (`schema_version` 1, loro-dev/loro `docs/JsonSchema.md`): the changes of a
/// document as readable JSON, exchanged with real Loro peers through `export_json_updates` and
/// `import_json_updates`.
///
/// Peer IDs are real 64-bit IDs here; the text form replaces them with indexes into a `peers`
/// table of decimal strings, as Loro does. Positions in the operations are counted at each
/// change's dependencies (Loro's ops are position-based), see ``CRDTDocument/exportJSONUpdates(from:to:)``
/// and ``CRDTDocument/importJSONUpdates(_:)-(LoroJSONUpdates)``.
public struct LoroJSONUpdates: Sendable, Hashable {
    /// The schema version this build reads and writes.
    public static let schemaVersion = 1

    /// The frontiers of the version the changes start from (informational, as in Loro).
    public var startVersion: Frontiers
    /// The changes, in causal order when exported.
    public var changes: [LoroJSONChange]

    /// Creates updates from changes.
    public init(startVersion: Frontiers = Frontiers(), changes: [LoroJSONChange] = []) {
        self.startVersion = startVersion
        self.changes = changes
    }
}

/// One change: consecutive operations of one peer, with Lamport timestamp and dependencies.
public struct LoroJSONChange: Sendable, Hashable {
    /// The ID of the first operation.
    public var id: OpID
    /// Unix time of the commit (0 when not recorded; local QuireCRDT commits record none).
    public var timestamp: Int64
    /// The frontiers the change was made on.
    public var deps: [OpID]
    /// The Lamport timestamp of the first operation.
    public var lamport: Lamport
    /// The commit message, if any (kept from imported changes; local commits have none).
    public var message: String?
    /// The operations, their counters contiguous from `id.counter`.
    public var ops: [LoroJSONOp]

    /// Creates a change.
    public init(id: OpID, timestamp: Int64 = 0, deps: [OpID], lamport: Lamport, message: String? = nil, ops: [LoroJSONOp]) {
        self.id = id
        self.timestamp = timestamp
        self.deps = deps
        self.lamport = lamport
        self.message = message
        self.ops = ops
    }

    /// The number of atoms (counters) the change spans.
    /// - Complexity: O(ops).
    public var length: Int { ops.reduce(0) { $0 + $1.length } }
}

/// One operation of a change.
public struct LoroJSONOp: Sendable, Hashable {
    /// The container the operation applies to.
    public var container: ContainerID
    /// The counter of the operation's first atom.
    public var counter: OpCounter
    /// What the operation does (fixed, because ``length`` follows from it).
    public let content: LoroJSONOpContent
    /// The number of atoms the operation occupies (scalars inserted, elements deleted, else 1).
    public let length: Int

    /// Creates an operation.
    /// - Complexity: O(length of inserted text).
    public init(container: ContainerID, counter: OpCounter, content: LoroJSONOpContent) {
        self.container = container
        self.counter = counter
        self.content = content
        switch content {
        case .insertText(_, let text):
            // Scalars are the UTF-8 bytes that do not continue one (much faster than walking the scalars).
            length = text.utf8.withContiguousStorageIfAvailable { $0.isASCII ? $0.count : $0.reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) } }
                ?? text.unicodeScalars.count
        case .insertValues(_, let values): length = values.count
        case .delete(_, let n, _): length = n.magnitude > Int.max ? Int.max : Int(n.magnitude)
        default: length = 1
        }
    }

    /// An operation whose length its decoder already knows (the scalars of a text it checked):
    /// the content is taken, not copied, and not walked again.
    init(container: ContainerID, counter: OpCounter, content: consuming LoroJSONOpContent, length: Int) {
        self.container = container
        self.counter = counter
        self.content = content
        self.length = length
    }
}

/// The content of a Loro JSON operation. Positions count Unicode scalars plus, in a text, every
/// mark anchor (Loro's entity index), at the version the operation was made on.
public enum LoroJSONOpContent: Sendable, Hashable {
    /// Text: `{"type":"insert","pos","text"}`.
    case insertText(position: Int, text: String)
    /// List: `{"type":"insert","pos","value":[…]}`.
    case insertValues(position: Int, values: [CRDTValue])
    /// Text or list: `{"type":"delete","pos","len","start_id"}`; a negative `length` deletes
    /// backwards from `position` (Backspace), and `startID` is the leftmost deleted element.
    case delete(position: Int, length: Int, startID: OpID)
    /// Text: the first atom of a mark, `{"type":"mark","start","end","style_key","style_value","info"}`;
    /// `info` holds the expand bits (before `0x02`, after `0x04`) and `0x80`.
    case mark(start: Int, end: Int, key: String, value: CRDTValue, info: UInt8)
    /// Text: the second atom of a mark, `{"type":"mark_end"}`.
    case markEnd
    /// Map: `{"type":"insert","key","value"}`.
    case mapInsert(key: String, value: CRDTValue)
    /// Map: `{"type":"delete","key"}`.
    case mapDelete(key: String)
    /// Tree: `{"type":"create","target","parent","fractional_index"}`.
    case treeCreate(target: TreeID, parent: TreeID?, fractionalIndex: [UInt8])
    /// Tree: `{"type":"move","target","parent","fractional_index"}`.
    case treeMove(target: TreeID, parent: TreeID?, fractionalIndex: [UInt8])
    /// Tree: `{"type":"delete","target"}`.
    case treeDelete(target: TreeID)
    /// Movable list: `{"type":"move","from","to","elem_id"}`: the element `elem` at position
    /// `from` goes to position `to` of the list without it (positions count every item no
    /// delete or move removed). Inserts and deletes are `insertValues` and `delete`.
    case move(from: Int, to: Int, elem: IdLp)
    /// Movable list: `{"type":"set","elem_id","value"}`.
    case setValue(elem: IdLp, value: CRDTValue)
    /// Counter: `{"type":"counter","prop":0,"value_type":"f64","value"}`, an increment.
    case counter(Double)
}

/// Why Loro JSON updates could not be read or imported. Each case says where; a failed import
/// leaves the document unchanged.
public enum LoroJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON: line and column (1-based), byte offset and reason.
    case syntax(line: Int, column: Int, offset: Int, reason: String)
    /// The JSON does not follow the schema at a JSON path such as `$.changes[2].ops[0].content.pos`.
    case schema(path: String, reason: String)
    /// `schema_version` is not 1.
    case unsupportedSchemaVersion(Int)
    /// A container type QuireCRDT does not have (Unknown(k), from a newer Loro), at a JSON path.
    case unsupportedContainerType(path: String, type: String)
    /// An operation cannot be applied at its change's version (a position out of range, an
    /// unknown ID): where and why.
    case invalidOperation(path: String, reason: String)
    /// The document refused the converted changes.
    case rejected(CRDTError)

    public var description: String {
        switch self {
        case let .syntax(line, column, offset, reason): return "JSON syntax error at line \(line), column \(column) (byte \(offset)): \(reason)"
        case let .schema(path, reason): return "\(path): \(reason)"
        case let .unsupportedSchemaVersion(v): return "$.schema_version: unsupported schema version \(v) (this build reads \(LoroJSONUpdates.schemaVersion))"
        case let .unsupportedContainerType(path, type): return "\(path): unsupported container type \(type)"
        case let .invalidOperation(path, reason): return "\(path): \(reason)"
        case let .rejected(error): return "the document refused the changes: \(error)"
        }
    }

    /// The same error with `prefix` put in front of its path (decoders add their level on the way out).
    /// A path that already starts at `$` (the reader's own, or one a level above completed) stays.
    func prefixed(_ prefix: String) -> LoroJSONError {
        switch self {
        case let .schema(path, _) where path.hasPrefix("$"): return self
        case let .unsupportedContainerType(path, _) where path.hasPrefix("$"): return self
        case let .schema(path, reason): return .schema(path: prefix + path, reason: reason)
        case let .unsupportedContainerType(path, type): return .unsupportedContainerType(path: prefix + path, type: type)
        default: return self
        }
    }
}

extension ExpandType {
    /// Loro's style info byte: `0x80` plus the expand-before (`0x02`) and expand-after (`0x04`) bits.
    var loroInfo: UInt8 { 0x80 | (expandsBefore ? 0x02 : 0) | (expandsAfter ? 0x04 : 0) }

    /// The expand rule of a Loro style info byte.
    init(loroInfo info: UInt8) {
        switch (info & 0x02 != 0, info & 0x04 != 0) {
        case (true, true): self = .both
        case (true, false): self = .before
        case (false, true): self = .after
        case (false, false): self = .none
        }
    }
}
