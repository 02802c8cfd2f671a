/// The kind of a container.
public enum ContainerType: UInt8, Sendable, Hashable, CaseIterable {
    case text = 0, list = 1, map = 2, tree = 3
    /// A list whose elements move and change value in place (Loro's MovableList).
    case movableList = 4
    /// A number that peers add to (Loro's Counter).
    case counter = 5

    /// The name Loro gives the type (`Text`, `MovableList` …).
    public var loroName: String { ["Text", "List", "Map", "Tree", "MovableList", "Counter"][Int(rawValue)] }

    /// Whether the container is an ordered sequence (a text or either kind of list).
    var isSequence: Bool { self == .text || self == .list || self == .movableList }
}

/// A container's identity: a named root or a container created by an operation (Loro's rules).
public enum ContainerID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// A root container, addressed by name and type.
    case root(name: String, type: ContainerType)
    /// A child container, identified by the ID of the operation that created it.
    case normal(id: OpID, type: ContainerType)

    /// The container's type.
    public var type: ContainerType {
        switch self {
        case .root(_, let t), .normal(_, let t): return t
        }
    }

    /// Loro's textual form: `cid:root-NAME:Type` or `cid:COUNTER@PEER:Type`.
    public var description: String {
        let typeName = type.loroName
        switch self {
        case .root(let name, _): return "cid:root-\(name):\(typeName)"
        case .normal(let id, _): return "cid:\(id):\(typeName)"
        }
    }

    /// A deterministic order used when listing containers.
    /// - Complexity: O(length of the descriptions).
    public static func < (a: ContainerID, b: ContainerID) -> Bool { a.description < b.description }
}

/// A JSON-like value stored in maps and lists, or a reference to a child container.
public enum CRDTValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case binary([UInt8])
    case list([CRDTValue])
    case map([String: CRDTValue])
    /// A child container; its contents live in the document.
    case container(ContainerID)
}
