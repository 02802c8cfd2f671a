/// Errors thrown by the CRDT store. Each says what went wrong and where; a throwing call leaves
/// the document unchanged.
public enum CRDTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A position or range was outside a container's bounds (`length` counted in `unit`).
    case outOfBounds(container: ContainerID, position: Int, length: Int, unit: TextUnit)
    /// A UTF-16 or UTF-8 position fell inside a scalar.
    case notAScalarBoundary(container: ContainerID, position: Int, unit: TextUnit)
    /// An operation of the wrong kind was applied to a container.
    case wrongContainerType(container: ContainerID, expected: ContainerType)
    /// A tree node does not exist (or is deleted) in the tree.
    case unknownTreeNode(container: ContainerID, node: OpID)
    /// Moving the node under the new parent would create a cycle.
    case cyclicMove(container: ContainerID, node: OpID, parent: OpID)
    /// An empty range was given where a non-empty one is required.
    case emptyRange(container: ContainerID, position: Int)
    /// A cursor's anchor is not known to this document.
    case unknownCursorAnchor(container: ContainerID, anchor: OpID)
    /// Encoded bytes are malformed: the byte offset where decoding failed and why.
    case malformedBytes(offset: Int, reason: String)
    /// The checksum of encoded bytes does not match their content: the byte offset where the
    /// stored checksum sits, the stored and the computed value.
    case checksumMismatch(offset: Int, expected: UInt32, actual: UInt32)
    /// The encoding's version is not supported.
    case unsupportedVersion(UInt8)
    /// An imported operation refers to something that does not exist, or that its container
    /// does not allow: the container, the operation's ID (or the reference) and why.
    case invalidReference(container: ContainerID, id: OpID, reason: String)

    public var description: String {
        switch self {
        case let .outOfBounds(c, p, l, u): return "position \(p) out of bounds 0...\(l) (\(u)) in \(c)"
        case let .notAScalarBoundary(c, p, u): return "position \(p) (\(u)) splits a scalar in \(c)"
        case let .wrongContainerType(c, t): return "\(c) is not a \(t) container"
        case let .unknownTreeNode(c, n): return "tree node \(n) does not exist in \(c)"
        case let .cyclicMove(c, n, p): return "moving \(n) under \(p) would create a cycle in \(c)"
        case let .emptyRange(c, p): return "empty range at \(p) in \(c)"
        case let .unknownCursorAnchor(c, a): return "cursor anchor \(a) is unknown in \(c)"
        case let .malformedBytes(o, r): return "malformed bytes at offset \(o): \(r)"
        case let .checksumMismatch(o, e, a): return "checksum mismatch at offset \(o): stored \(e), computed \(a)"
        case let .unsupportedVersion(v): return "unsupported encoding version \(v)"
        case let .invalidReference(c, id, r): return "invalid reference to \(id) in \(c): \(r)"
        }
    }
}
