import QuireJSON

extension CRDTDocument {
    /// The whole document as plain values, in the shape of Loro's `get_deep_value()`: a map from
    /// each root container's name to its deep value (see ``deepValue(of:)``).
    /// - Complexity: O(size of the document).
    public var deepValue: CRDTValue {
        var roots: [String: CRDTValue] = [:]
        for c in containers {
            if case .root(let name, _) = c { roots[name] = deepValue(of: c) }
        }
        return .map(roots)
    }

    /// A container as plain values, child containers replaced by their deep values: a text is its
    /// string, a list an array, a map a map, and a tree the array of its root-level nodes, each
    /// node `{"id", "parent", "meta", "index", "fractional_index", "children"}` as loro-py
    /// returns them (`id` and `parent` as `counter@peer`, `parent` null at the root level, `meta`
    /// the node's map, `index` its place among its siblings, `fractional_index` in upper-case hex).
    /// - Complexity: O(size of the container and its descendants).
    public func deepValue(of c: ContainerID) -> CRDTValue {
        switch c.type {
        case .text: return .string(text(c))
        case .list, .movableList: return .list(list(c).map(resolve))
        case .map: return .map(map(c).mapValues(resolve))
        case .tree: return .list(treeNodes(under: nil, in: c))
        case .counter: return .double(counterValue(c))
        }
    }

    private func resolve(_ v: CRDTValue) -> CRDTValue {
        if case .container(let child) = v { return deepValue(of: child) }
        return v
    }

    private func treeNodes(under parent: TreeID?, in c: ContainerID) -> [CRDTValue] {
        children(of: parent, in: c).enumerated().map { index, node in
            .map([
                "id": .string(node.description),
                "parent": parent.map { .string($0.description) } ?? .null,
                "meta": deepValue(of: properties(of: node)),
                "index": .int(Int64(index)),
                "fractional_index": .string(LoroJSONEncoder.hex(fractionalIndex(of: node, in: c) ?? [])),
                "children": .list(treeNodes(under: node, in: c)),
            ])
        }
    }

    /// ``deepValue`` as JSON text, as Loro serializes a deep value: binary as an array of bytes,
    /// keys sorted.
    /// - Complexity: O(size of the document).
    public func deepValueJSON(prettyPrinted: Bool = false) -> String {
        CRDTValue.json(deepValue, prettyPrinted: prettyPrinted)
    }
}

extension CRDTValue {
    /// A value as JSON text, as Loro serializes a LoroValue: binary as an array of bytes, a
    /// container reference as `🦜:cid:…`, map keys sorted, non-finite doubles as null.
    /// - Complexity: O(size of the value).
    public static func json(_ value: CRDTValue, prettyPrinted: Bool = false) -> String {
        JSONWriter(prettyPrinted: prettyPrinted).string(JSONValue(loroJSON: value) { $0.description })
    }

    /// Reads a JSON value the way Loro reads a LoroValue: integers that fit 64 bits are `.int`,
    /// other numbers `.double`, strings starting with `🦜:cid:` container references (with real
    /// peer IDs).
    /// - Throws: ``LoroJSONError/syntax(line:column:offset:reason:)`` or `.schema` with a path.
    /// - Complexity: O(size of the text).
    public init(json: String) throws(LoroJSONError) {
        var reader = JSONReader(Array(json.utf8))
        self = try LoroJSONDecoder.value(&reader, nil)
        try reader.loroFinish()
    }
}
