/// One step of a text delta, as in Quill/Loro: keep, insert or delete a run of scalars.
public enum TextDelta: Hashable, Sendable {
    /// Keep `count` scalars; when `attributes` is non-nil, set those keys (`.null` removes a key).
    case retain(count: Int, attributes: [String: CRDTValue]?)
    /// Insert text with its attributes.
    case insert(String, attributes: [String: CRDTValue])
    /// Delete `count` scalars.
    case delete(count: Int)
}

/// One step of a list delta.
public enum ListDelta: Hashable, Sendable {
    /// Keep `count` items.
    case retain(count: Int)
    /// Insert values.
    case insert([CRDTValue])
    /// Delete `count` items.
    case delete(count: Int)
}

/// Where a tree node sits: a parent (nil = the tree's root level) and an index among siblings.
public struct TreePosition: Hashable, Sendable {
    /// The parent node, or nil for a root-level node.
    public var parent: TreeID?
    /// The index among the parent's children.
    public var index: Int
}

/// A change to the shape of a tree.
public enum TreeDiff: Hashable, Sendable {
    /// A node appeared at a position.
    case create(node: TreeID, at: TreePosition)
    /// A node moved.
    case move(node: TreeID, from: TreePosition, to: TreePosition)
    /// A node (and so its subtree) disappeared from a position.
    case delete(node: TreeID, from: TreePosition)
}

/// The diff of one container.
public enum ContainerDiff: Hashable, Sendable {
    case text([TextDelta])
    case list([ListDelta])
    /// Keys set to a new value; a nil value means the key was deleted.
    case map([String: CRDTValue?])
    case tree([TreeDiff])
    /// A counter changed by this amount.
    case counter(Double)
}

/// One step of a container's path from a root container.
public enum PathStep: Hashable, Sendable {
    /// The map key holding the child.
    case key(String)
    /// The list index holding the child.
    case index(Int)
    /// The tree node whose property map is the child.
    case node(TreeID)
}

/// The diff of one container and the path to it: `path[i]` is the step inside `pathContainers[i]`.
public struct ContainerEvent: Hashable, Sendable {
    /// The container that changed.
    public var target: ContainerID
    /// The containers from the root down to (not including) the target.
    public var pathContainers: [ContainerID]
    /// The step taken inside each of `pathContainers`.
    public var path: [PathStep]
    /// What changed.
    public var diff: ContainerDiff
}

/// Why an event was produced.
public enum EventOrigin: Hashable, Sendable {
    case local, `import`
}

/// The events of one commit or import, in application order.
public struct DocumentEvent: Hashable, Sendable {
    /// Local commit or import.
    public var origin: EventOrigin
    /// The container diffs, in order; apply them in this order to patch a mirror.
    public var events: [ContainerEvent]
}
