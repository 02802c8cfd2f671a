/// The node types an editor knows, by wire-stable type name.
///
/// A registry always contains the core types (root, paragraph, text, linebreak, tab); plugins add
/// theirs with `register(_:)`. A document type with no plugin imports as an unknown node.
public struct NodeRegistry: Sendable {
    private var plugins: [NodeType: any NodePlugin]
    /// Type names in registration order, which is also priority order.
    public private(set) var registeredTypes: [NodeType]

    /// The core node types.
    public static let coreTypes: [any NodePlugin] = [
        RootNodePlugin(), ParagraphNodePlugin(), TextNodePlugin(), LineBreakNodePlugin(), TabNodePlugin(),
    ]

    /// A registry with the core node types only.
    public init() {
        plugins = [:]
        registeredTypes = []
        for plugin in Self.coreTypes { plugins[plugin.type] = plugin; registeredTypes.append(plugin.type) }
    }

    /// Adds a node type.
    ///
    /// - Throws: `RegistryError.duplicateType` when the type is already registered; core types
    ///   cannot be replaced.
    public mutating func register(_ plugin: any NodePlugin) throws(RegistryError) {
        guard plugins[plugin.type] == nil else { throw .duplicateType(plugin.type) }
        plugins[plugin.type] = plugin
        registeredTypes.append(plugin.type)
    }

    /// The plugin for `type`, or nil when the type is unknown.
    ///
    /// - Complexity: O(1) on average.
    public func plugin(for type: NodeType) -> (any NodePlugin)? { plugins[type] }

    /// Whether `type` has a plugin.
    public func contains(_ type: NodeType) -> Bool { plugins[type] != nil }
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
