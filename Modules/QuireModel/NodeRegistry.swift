/// The node types an editor knows, by wire-stable type name.
///
/// A registry always contains the core types (root, paragraph, text, linebreak, tab); plugins add
/// theirs with `register(_:)`. A document type with no plugin imports as an unknown node.
public struct NodeRegistry: Sendable {
    /// Each type's plugin, role, child rule, field specs and default field values, computed once at
    /// registration: a plugin's `fields` and `childRule` are computed properties (some build a
    /// set on every access), and node creation and linking are on the import and paste paths.
    private var tables: [NodeType: TypeTable] = [:]
    /// Type names in registration order, which is also priority order.
    public private(set) var registeredTypes: [NodeType]

    /// The core node types.
    public static let coreTypes: [any NodePlugin] = [
        RootNodePlugin(), ParagraphNodePlugin(), TextNodePlugin(), LineBreakNodePlugin(), TabNodePlugin(),
    ]

    /// A registry with the core node types only.
    public init() {
        registeredTypes = []
        for plugin in Self.coreTypes { add(plugin) }
    }

    /// Adds a node type.
    ///
    /// - Throws: `RegistryError.duplicateType` when the type is already registered; core types
    ///   cannot be replaced.
    public mutating func register(_ plugin: any NodePlugin) throws(RegistryError) {
        guard tables[plugin.type] == nil else { throw .duplicateType(plugin.type) }
        add(plugin)
    }

    private mutating func add(_ plugin: any NodePlugin) {
        registeredTypes.append(plugin.type)
        tables[plugin.type] = TypeTable(plugin)
    }

    /// The field specs and defaults of a registered type, or nil when the type is unknown.
    ///
    /// - Complexity: O(1) on average.
    func fieldTable(for type: NodeType) -> FieldTable? { tables[type]?.fields }

    /// What the registry computed of a registered type, or nil when the type is unknown.
    ///
    /// - Complexity: O(1) on average.
    func table(for type: NodeType) -> TypeTable? { tables[type] }

    /// The plugin for `type`, or nil when the type is unknown.
    ///
    /// - Complexity: O(1) on average.
    public func plugin(for type: NodeType) -> (any NodePlugin)? { tables[type]?.plugin }

    /// Whether `type` has a plugin.
    public func contains(_ type: NodeType) -> Bool { tables[type] != nil }
}

/// A registered type's plugin with the properties the bulk paths read per node, read once.
///
/// A class: the bulk paths read a table per node, and a reference is one retain where a copy of
/// the struct retained each of its members.
final class TypeTable: Sendable {
    let type: NodeType
    let plugin: any NodePlugin
    let role: NodeRole
    let childRule: ChildRule
    let fields: FieldTable

    init(_ plugin: any NodePlugin) {
        type = plugin.type
        self.plugin = plugin
        role = plugin.role
        childRule = plugin.childRule
        fields = FieldTable(plugin)
    }

    /// Refuses what no node of this type can be created as: a root, or text on a type that is
    /// not text.
    func checkCreating(text: String) throws(ModelError) {
        guard role != .root else { throw .cannotCreateRoot }
        guard role == .text || text.isEmpty else { throw .textOnNonTextNode(type) }
    }

    /// Refuses a field of `given` whose value its spec does not accept.
    ///
    /// - Complexity: O(s · g) for s specs and g fields given (a handful each), O(g) past
    ///   ``FieldTable/scanLimit`` specs.
    func check(_ given: JSONObject) throws(ModelError) {
        for member in given.members {
            if let spec = fields.spec(named: member.key), !spec.type.accepts(member.value) {
                throw .fieldTypeMismatch(type: type, field: member.key, expected: spec.type, found: member.value)
            }
        }
    }

    /// The type's default fields overlaid by `given`, each checked against its spec.
    ///
    /// - Complexity: O(d · g) for d defaults and g fields given (a handful each).
    func fields(overlaidBy given: JSONObject) throws(ModelError) -> JSONObject {
        try check(given)
        // No fields given: the defaults' storage is shared, not copied.
        guard given.count > 0 else { return fields.defaults }
        // One allocation with room for the given fields the defaults lack; overlaying a copy of
        // the defaults copied them on the first write and again when a member was appended.
        let defaults = fields.defaults.members
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(defaults.count + given.count)
        // Appended one by one: copying the shared array into new room goes through the generic
        // value witnesses of its tuples, several times slower.
        for index in defaults.indices { members.append(defaults[index]) }
        for member in given.members {
            let length = member.key.utf8.count
            if let index = members.firstIndex(where: { $0.key.utf8.count == length && $0.key == member.key }) {
                members[index].value = member.value
            } else {
                members.append(member)
            }
        }
        return JSONObject(uniqueMembers: members)
    }
}

/// A type's field specs by name, and the fields (with `version`) a new node starts with.
struct FieldTable: Sendable {
    let specs: [String: FieldSpec]
    let defaults: JSONObject
    /// The specs in declaration order, each name's first (as in `specs`), their names and
    /// their names' UTF-8 byte counts, apart: a scan reads the counts and names in place.
    private let ordered: [FieldSpec]
    private let names: [String]
    private let nameLengths: [Int]

    /// Past this many specs, ``spec(named:)`` hashes the name instead of scanning.
    static let scanLimit = 16

    init(_ plugin: any NodePlugin) {
        let fields = plugin.fields
        specs = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        defaults = EditorState.defaultFields(plugin, fields: fields)
        var seen = Set<String>()
        ordered = fields.filter { seen.insert($0.name).inserted }
        names = ordered.map(\.name)
        nameLengths = names.map(\.utf8.count)
    }

    /// The spec of field `name`, or nil when the type declares none.
    ///
    /// Creating and importing nodes looks up every field given: a type has a handful, where a
    /// scan comparing byte counts first costs less than hashing the name.
    ///
    /// - Complexity: O(s) for s specs up to ``scanLimit``, O(1) on average past it.
    func spec(named name: String) -> FieldSpec? {
        guard ordered.count <= Self.scanLimit else { return specs[name] }
        let length = name.utf8.count
        for index in nameLengths.indices where nameLengths[index] == length && names[index] == name { return ordered[index] }
        return nil
    }
}

/// A registration that could not be made.
public enum RegistryError: Error, Hashable, Sendable, CustomStringConvertible {
    case duplicateType(NodeType)

    public var description: String {
        switch self {
        case .duplicateType(let type): "node type \"\(type)\" is already registered"
        }
    }
}
