/// Replaying recorded operations: how a transaction that did not originate in this state (a
/// remote change, an undo step, a test's replay) is applied to it.
extension EditorState {
    /// Applies one operation, checking that the state is the one it was recorded on (the node to
    /// detach is where the operation says, a splice deletes the text it names, …). Applied
    /// operations are recorded like any other write.
    ///
    /// - Throws: `ModelError.operationMismatch` when the state does not match, or the error of the
    ///   write itself; the state is then unchanged.
    /// - Complexity: O(log₃₂ n) for structure and fields, O(log₃₂ n + t) for a splice, plus the
    ///   depth of the parent for an insertion (the cycle check).
    public mutating func apply(_ operation: EditOperation) throws(ModelError) {
        switch operation {
        case .createNode(let node):
            guard self[node.key] == nil else { throw .operationMismatch(operation, reason: "the key is in use") }
            guard node.key != .root else { throw .cannotCreateRoot }
            storeCreated(node)
            reserveKeys(through: node.key)
        case .destroyNode(let node):
            guard self[node.key] != nil else { throw .operationMismatch(operation, reason: "no such node") }
            try destroy(node.key)
        case .insertNode(let key, let parent, let after):
            let parentNode = try self.node(parent)
            let before: NodeKey?
            if let after {
                let previous = try self.node(after)
                guard previous.parent == parent else { throw .operationMismatch(operation, reason: "\(after) is not a child of \(parent)") }
                before = previous.nextSibling
            } else {
                before = parentNode.firstChild
            }
            try insertLinking(key, parent: parentNode, after: after, before: before)
        case .detachNode(let key, let parent, let after):
            let node = try self.node(key)
            guard node.parent == parent, node.previousSibling == after else {
                throw .operationMismatch(operation, reason: "the node is not at that place")
            }
            try detach(key)
        case .spliceText(let key, let offset, let deleted, let inserted):
            let node = try self.node(key)
            let utf16 = node.text.utf16
            let count = deleted.utf16.count
            guard offset >= 0, offset <= utf16.count, count <= utf16.count - offset,
                  utf16[utf16.index(utf16.startIndex, offsetBy: offset)..<utf16.index(utf16.startIndex, offsetBy: offset + count)]
                    .elementsEqual(deleted.utf16)
            else { throw .operationMismatch(operation, reason: "the text there is not the deleted text") }
            try spliceText(key, at: offset, deleting: count, inserting: inserted)
        case .setField(let key, let name, let old, let new):
            guard try self.node(key).fields[name] == old else {
                throw .operationMismatch(operation, reason: "the field does not hold the old value")
            }
            try setField(name, to: new, of: key)
        case .setSelection(_, let new):
            selection = new
        }
    }

    /// Applies operations in order; on failure nothing is applied.
    ///
    /// - Complexity: the sum of the operations' costs.
    public mutating func apply(_ operations: [EditOperation]) throws(ModelError) {
        var working = self
        for operation in operations { try working.apply(operation) }
        self = working
    }
}
