/// The JSON type a node field must have.
public enum FieldType: Hashable, Sendable, CustomStringConvertible {
    case string
    case integer
    case number
    case boolean
    /// A string or null.
    case optionalString
    /// One of the listed strings.
    case oneOf([String])
    /// One of the listed strings, or null.
    case optionalOneOf([String])
    /// Any JSON value; the plugin checks it itself.
    case any

    /// Whether `value` has this type.
    public func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.any, _): true
        case (.string, .string), (.boolean, .bool), (.number, .number): true
        case (.integer, .number(let number)): number.isInteger
        case (.optionalString, .string), (.optionalString, .null), (.optionalOneOf, .null): true
        case (.oneOf(let allowed), .string(let string)), (.optionalOneOf(let allowed), .string(let string)):
            allowed.contains(string)
        default: false
        }
    }

    public var description: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .optionalString: "string or null"
        case .oneOf(let allowed): "one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
        case .optionalOneOf(let allowed): "null or one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
        case .any: "any value"
        }
    }
}

/// A JSON field a node type serializes, with its type and the value a new node starts with.
public struct FieldSpec: Hashable, Sendable {
    public let name: String
    public let type: FieldType
    /// The value a node created in code gets; an imported node keeps exactly what its JSON had.
    public let defaultValue: JSONValue
    /// Whether import fails when the field is missing (most fields are optional, so that documents
    /// written by older Lexical versions import).
    public let isRequired: Bool

    public init(_ name: String, _ type: FieldType, default defaultValue: JSONValue, required: Bool = false) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isRequired = required
    }
}

/// Which children an element accepts.
public enum ChildRule: Hashable, Sendable {
    /// No children (leaves).
    case none
    /// Block nodes only (root, quote, list item containers).
    case blocks
    /// Inline nodes only (paragraph, heading).
    case inlines
    /// Anything.
    case any
    /// Only the listed types.
    case only(Set<NodeType>)

    /// Whether a node with `type` and `role` may be a child.
    ///
    /// - Complexity: O(1); a list of up to ``scanLimit`` types is scanned, since comparing a
    ///   few short names costs less than hashing one (the bulk paths check every node).
    public func accepts(type: NodeType, role: NodeRole) -> Bool {
        switch self {
        case .none: false
        case .any: true
        case .blocks: role != .root && !role.isInline
        case .inlines: role.isInline
        case .only(let types): types.count <= Self.scanLimit ? types.contains { $0 == type } : types.contains(type)
        }
    }

    /// Up to this many listed types, ``accepts(type:role:)`` compares names instead of hashing.
    static let scanLimit = 8
}

/// What a node type plugs into Quire: its wire-stable name, its JSON fields, its role, the children
/// it accepts, and its contribution to the flat string around its content.
///
/// A plugin is a Sendable value; the registry holds one per type. Implement the requirements that
/// differ from the defaults: most block elements only name their type and fields.
public protocol NodePlugin: Sendable {
    /// The wire-stable type name, Lexical JSON's `type`. Never change it once documents exist.
    var type: NodeType { get }
    /// The node's role: block or inline element, text, line break, decorator.
    var role: NodeRole { get }
    /// The JSON `version` written for new nodes. Defaults to 1.
    var version: Int { get }
    /// The JSON fields besides `type`, `version`, `children` and `text`.
    var fields: [FieldSpec] { get }
    /// The children an element accepts. Defaults: root and block containers take blocks, inline
    /// containers take inlines, leaves take none. Read once, when the plugin is registered (as
    /// `fields` is): the bulk paths check every node against the registry's copy.
    var childRule: ChildRule { get }
    /// The only parent types the node may have (a table row belongs in a table), or nil for any
    /// parent whose `childRule` takes it (the default). Checked where documents come in, so a
    /// document `check` accepts is one every renderer and exporter can process.
    var parentTypes: Set<NodeType>? { get }
    /// Text placed before the node's content in the flat string. Defaults to "".
    func preamble(of node: Node, in state: EditorState) -> String
    /// Text placed after the node's content. Defaults to "\n" after a block that has a next sibling.
    func postamble(of node: Node, in state: EditorState) -> String
    /// Extra checks on an imported node beyond field types; throw to reject it.
    func validate(_ node: Node) throws(NodeValidationError)
    /// The block Enter creates when it splits this block with the caret at `position`: at the
    /// end, the new block follows; at the start, it is inserted before and stays empty; in the
    /// middle, it receives the content after the caret. Defaults: the same type and fields in the
    /// middle, a paragraph with the same direction and alignment otherwise.
    func blockAfterSplit(of node: Node, at position: BlockSplitPosition) -> BlockTemplate
    /// Backspace with the caret at the very start of this block, before the default (merging into
    /// the previous block) runs. Return true when the plugin handled it. Default: not handled.
    func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool
    /// Enter with a collapsed caret in this block (the selected text is already removed), before
    /// the default split runs. Return true when the plugin handled it — a list item exits its
    /// list when empty, for instance. Default: not handled.
    func insertParagraph(in node: Node, at position: BlockSplitPosition, state: inout EditorState) throws(ModelError) -> Bool
    /// Whether the node is an editing boundary, Lexical's "shadow root" (a table cell): Backspace
    /// and Delete never merge blocks across it, and a selection that crosses it deletes text
    /// inside each block but keeps every block. Default: false.
    var isolatesContent: Bool { get }
    /// Whether text typed with the caret at the very start of this inline element's content goes
    /// inside it (Lexical's `canInsertTextBefore`). A link says no: typing there goes before the
    /// link. Only inline elements are asked. Default: true.
    var canInsertTextBefore: Bool { get }
    /// Whether text typed with the caret at the very end of this inline element's content goes
    /// inside it (Lexical's `canInsertTextAfter`). A link says no: typing at its end continues
    /// after the link. Only inline elements are asked. Default: true.
    var canInsertTextAfter: Bool { get }
    /// Whether typing and Backspace/Delete edit a text-role node's text in place, as they edit a
    /// `text` node's, rather than treating it as an atom that typing goes around (a tab, whose
    /// text is always "\t"). Lexical's subclasses of TextNode that hold ordinary text, such as
    /// `code-highlight`, say true. Default: true only for `text`.
    var editsTextInPlace: Bool { get }
}

/// Where the caret was when Enter split a block.
public enum BlockSplitPosition: Hashable, Sendable {
    case start, middle, end
}

/// The type and fields of a block to create.
public struct BlockTemplate: Hashable, Sendable {
    public var type: NodeType
    public var fields: JSONObject

    public init(type: NodeType, fields: JSONObject = [:]) {
        self.type = type
        self.fields = fields
    }

    /// A paragraph that keeps `node`'s direction and alignment, as Lexical's insertNewAfter does.
    public static func paragraph(continuing node: Node) -> BlockTemplate {
        var fields = JSONObject()
        if let direction = node.fields["direction"] { fields["direction"] = direction }
        if let alignment = node.fields["format"], alignment.stringValue != nil { fields["format"] = alignment }
        return BlockTemplate(type: .paragraph, fields: fields)
    }
}

/// A plugin's reason for rejecting an imported node, with the field at fault if there is one.
public struct NodeValidationError: Error, Hashable, Sendable {
    public let field: String?
    public let message: String

    public init(field: String? = nil, message: String) {
        self.field = field
        self.message = message
    }
}

extension NodePlugin {
    public var version: Int { 1 }
    public var fields: [FieldSpec] { [] }
    public var parentTypes: Set<NodeType>? { nil }
    public var childRule: ChildRule {
        switch role {
        case .root: .blocks
        case .element(inline: true): .inlines
        case .element(inline: false): .inlines
        case .text, .lineBreak, .decorator: .none
        }
    }
    public func preamble(of node: Node, in state: EditorState) -> String { "" }
    public func postamble(of node: Node, in state: EditorState) -> String {
        FlatString.defaultPostamble(of: node)
    }
    public func validate(_ node: Node) throws(NodeValidationError) {}
    public func blockAfterSplit(of node: Node, at position: BlockSplitPosition) -> BlockTemplate {
        position == .middle ? BlockTemplate(type: node.type, fields: node.fields) : .paragraph(continuing: node)
    }
    public func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool { false }
    public func insertParagraph(in node: Node, at position: BlockSplitPosition, state: inout EditorState) throws(ModelError) -> Bool { false }
    public var isolatesContent: Bool { false }
    public var canInsertTextBefore: Bool { true }
    public var canInsertTextAfter: Bool { true }
    public var editsTextInPlace: Bool { type == .text }
}

/// A node plugin for one fixed node type, named once as `static let type` so that other code
/// (commands, mappings, child rules) refers to the type without an instance, as every built-in
/// plugin does; the instance's ``NodePlugin/type`` follows from it.
public protocol FixedTypeNodePlugin: NodePlugin {
    /// The wire-stable type name. Never change it once documents exist.
    static var type: NodeType { get }
}

extension FixedTypeNodePlugin {
    public var type: NodeType { Self.type }
}

/// The fields every element serializes in Lexical JSON.
public enum ElementFields {
    public static let direction = FieldSpec("direction", .optionalOneOf(TextDirection.allCases.map(\.rawValue)), default: .null)
    public static let alignment = FieldSpec("format", .oneOf(ElementAlignment.allCases.map(\.rawValue)), default: .string(""))
    public static let indent = FieldSpec("indent", .integer, default: .number(.integer(0)))
    /// direction, format (alignment), indent: what Lexical's ElementNode writes.
    public static let common: [FieldSpec] = [direction, alignment, indent]
}

/// The fields every text-like node serializes in Lexical JSON.
public enum TextFields {
    public static let detail = FieldSpec("detail", .integer, default: .number(.integer(0)))
    public static let format = FieldSpec("format", .integer, default: .number(.integer(0)))
    public static let mode = FieldSpec("mode", .oneOf(TextMode.allCases.map(\.rawValue)), default: .string("normal"))
    public static let style = FieldSpec("style", .string, default: .string(""))
    /// detail, format, mode, style: what Lexical's TextNode writes besides `text`.
    public static let common: [FieldSpec] = [detail, format, mode, style]

    /// Refuses a `format` with bits no ``TextFormat`` names (a negative number has them all):
    /// every text-like plugin calls it from its `validate`.
    public static func validate(_ node: Node) throws(NodeValidationError) {
        if let format = node.fields["format"]?.intValue, format & ~TextFormat.known.rawValue != 0 {
            throw NodeValidationError(field: "format", message: "must combine Lexical's text format bits (0…\(TextFormat.known.rawValue)), not \(format)")
        }
    }
}
