/// Transactions as JSON, for tools that show what an edit did (`quire edit-script --transactions`).
extension Transaction {
    /// `{"origin": …, "tag": …, "operations": [{"kind": "insertText", "node": 3, "offset": 5,
    /// "text": "a"}, …]}`. Structural operations name the child index they happened at, found by
    /// replaying the operations on `previous` (the state the transaction was committed on).
    ///
    /// - Complexity: O(operations · siblings): a debugging aid, not for the typing path.
    public func jsonValue(replayingOn previous: EditorState) -> JSONValue {
        var state = previous
        var operationsJSON: [JSONValue] = []
        for operation in operations {
            var object: JSONObject = ["kind": .string(operation.kindName)]
            if let key = operation.key { object["node"] = .number(.integer(key.rawValue)) }
            switch operation {
            case .createNode(let node):
                object["type"] = .string(node.type.rawValue)
                if node.role == .text { object["text"] = .string(node.text) }
                object["fields"] = .object(node.fields)
            case .destroyNode(let node):
                object["type"] = .string(node.type.rawValue)
            case .insertNode(_, let parent, let after):
                object["parent"] = .number(.integer(parent.rawValue))
                object["index"] = .number(.integer(after.map { Self.childIndex(of: $0, in: state) + 1 } ?? 0))
            case .detachNode(let key, let parent, _):
                object["parent"] = .number(.integer(parent.rawValue))
                object["index"] = .number(.integer(Self.childIndex(of: key, in: state)))
            case .spliceText(_, let offset, let deleted, let inserted):
                object["offset"] = .number(.integer(offset))
                if !deleted.isEmpty { object["deleted"] = .string(deleted) }
                if !inserted.isEmpty { object["text"] = .string(inserted) }
            case .setField(_, let name, _, let new):
                object["field"] = .string(name)
                object["value"] = new ?? .null
            case .setSelection(_, let new):
                object["selection"] = new.map(Self.json) ?? .null
            }
            operationsJSON.append(.object(object))
            // The replay only serves the indexes; a transaction that does not fit its state gets
            // the rest of its indexes from the unchanged state.
            do { try state.apply(operation) } catch { continue }
        }
        return .object([
            "origin": .string(origin.description),
            "tag": tag.map(JSONValue.string) ?? .null,
            "operations": .array(operationsJSON),
        ])
    }

    private static func childIndex(of key: NodeKey, in state: EditorState) -> Int {
        var index = 0
        var current = state[key]?.previousSibling
        while let sibling = current {
            index += 1
            current = state[sibling]?.previousSibling
        }
        return index
    }

    private static func json(_ selection: RangeSelection) -> JSONValue {
        func point(_ point: Point) -> JSONValue {
            .object([
                "node": .number(.integer(point.key.rawValue)),
                "offset": .number(.integer(point.offset)),
                "type": .string(point.kind == .text ? "text" : "element"),
            ])
        }
        return .object(["anchor": point(selection.anchor), "focus": point(selection.focus)])
    }
}
