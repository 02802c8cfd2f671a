import QuireJSON

// The CRDT side of QuireJSON's one value mapping (its ValueMapping article): JSON values become
// CRDT values without loss; CRDT values become JSON values except for bytes and container
// references, which are a typed error, or follow Loro's own JSON conventions where a Loro format
// asks for them.

extension CRDTValue {
    /// The CRDT value of a JSON value: null, booleans and strings as they are, an integer as
    /// `.int` (64-bit, exact), a double as `.double` (the same bits, `-0.0` included), an array as
    /// `.list`, an object as `.map` (member order is not kept: a CRDT map has none, and JSON object
    /// equality ignores it). Strings are never read as container references here; see
    /// `init(loroJSON:peers:)`, which Loro's JSON formats use.
    ///
    /// - Complexity: O(size of the value).
    public init(_ json: JSONValue) {
        var path = JSONPath()
        self = Self.converting(json, at: &path) { (string, _) throws(Never) in .string(string) }
    }

    /// A LoroValue as Loro's JSON formats carry it: ``init(_:)``, except that a string starting
    /// with `🦜:` is a container reference (`🦜:cid:…`), with its peer resolved through `peers`
    /// (the updates' peer table) or taken as written when `peers` is nil.
    ///
    /// - Throws: ``LoroJSONError/schema(path:reason:)`` or
    ///   ``LoroJSONError/unsupportedContainerType(path:type:)`` with the path inside the value.
    /// - Complexity: O(size of the value).
    init(loroJSON json: JSONValue, peers: [PeerID]?) throws(LoroJSONError) {
        var path = JSONPath()
        self = try Self.converting(json, at: &path) { (string, path) throws(LoroJSONError) in
            guard string.hasPrefix(LoroJSONDecoder.containerValuePrefix) else { return .string(string) }
            do throws(LoroJSONError) {
                return .container(try LoroJSONDecoder.containerID(Substring(string.dropFirst(LoroJSONDecoder.containerValuePrefix.count)), peers))
            } catch {
                throw error.prefixed(path.relativeDescription)
            }
        }
    }

    /// The one walk from JSON to CRDT values; `string` decides what a string becomes.
    private static func converting<Failure: Error>(
        _ json: JSONValue, at path: inout JSONPath, string: (String, JSONPath) throws(Failure) -> CRDTValue
    ) throws(Failure) -> CRDTValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(.integer(let integer)): return .int(Int64(integer))
        case .number(.double(let double)): return .double(double)
        case .string(let text): return try string(text, path)
        case .array(let elements):
            var list: [CRDTValue] = []
            list.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                path.components.append(.index(index))
                list.append(try converting(element, at: &path, string: string))
                path.components.removeLast()
            }
            return .list(list)
        case .object(let object):
            var map: [String: CRDTValue] = [:]
            map.reserveCapacity(object.count)
            for member in object {
                path.components.append(.key(member.key))
                map[member.key] = try converting(member.value, at: &path, string: string)
                path.components.removeLast()
            }
            return .map(map)
        }
    }
}

extension JSONValue {
    /// The JSON value of a CRDT value: the inverse of `CRDTValue.init(_:)`, with map keys in
    /// sorted order so that equal maps write equal JSON.
    ///
    /// - Throws: `JSONConversionError` naming the path of `.binary` bytes or a `.container`
    ///   reference, which have no JSON form (resolve containers first, as
    ///   ``CRDTDocument/deepValue`` does).
    /// - Complexity: O(size of the value), plus sorting each map's keys.
    public init(_ value: CRDTValue) throws(JSONConversionError) {
        var path = JSONPath()
        self = try Self.converting(value, at: &path) { (value, path) throws(JSONConversionError) in
            switch value {
            case .binary(let bytes):
                throw JSONConversionError(path: path.description, value: "binary (\(bytes.count) bytes)", target: "JSONValue")
            case .container(let id):
                throw JSONConversionError(path: path.description, value: "container \(id)", target: "JSONValue")
            default:
                preconditionFailure("only bytes and containers lack a JSON form")
            }
        }
    }

    /// A CRDT value as Loro writes a LoroValue in JSON: ``init(_:)``, with bytes as an array of
    /// integers (which reads back as a list: Loro's JSON cannot tell them apart) and a container
    /// reference as the string `🦜:` followed by `container`'s spelling of its ID.
    ///
    /// - Complexity: O(size of the value), plus sorting each map's keys.
    init(loroJSON value: CRDTValue, container: (ContainerID) -> String) {
        var path = JSONPath()
        self = Self.converting(value, at: &path) { (value, _) throws(Never) in
            switch value {
            case .binary(let bytes): return .array(bytes.map { .number(.integer(Int($0))) })
            case .container(let id): return .string(LoroJSONDecoder.containerValuePrefix + container(id))
            default: preconditionFailure("only bytes and containers lack a JSON form")
            }
        }
    }

    /// The one walk from CRDT to JSON values; `other` decides what bytes and containers become.
    private static func converting<Failure: Error>(
        _ value: CRDTValue, at path: inout JSONPath, other: (CRDTValue, JSONPath) throws(Failure) -> JSONValue
    ) throws(Failure) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let integer): return .number(.integer(Int(integer)))
        case .double(let double): return .number(.double(double))
        case .string(let string): return .string(string)
        case .binary, .container: return try other(value, path)
        case .list(let list):
            var elements: [JSONValue] = []
            elements.reserveCapacity(list.count)
            for (index, element) in list.enumerated() {
                path.components.append(.index(index))
                elements.append(try converting(element, at: &path, other: other))
                path.components.removeLast()
            }
            return .array(elements)
        case .map(let map):
            var object = JSONObject()
            for key in map.keys.sorted() {
                path.components.append(.key(key))
                object.appendUnchecked(key, try converting(map[key]!, at: &path, other: other))
                path.components.removeLast()
            }
            return .object(object)
        }
    }
}
