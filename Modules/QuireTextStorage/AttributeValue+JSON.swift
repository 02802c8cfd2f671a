import QuireJSON

// Attribute values keep their own type (QuireJSON's ValueMapping article says why); these two
// conversions are the lossless bridge to the JSON value that node fields, plugin options and CRDT
// values share.

extension AttributeValue {
    /// The attribute value of a JSON value: booleans, strings, integers (`.int`) and doubles
    /// (`.double`) as they are, arrays as lists, objects as records.
    ///
    /// - Throws: `JSONConversionError` naming the path of a `null`, which has no attribute
    ///   form (an attribute is absent instead).
    /// - Complexity: O(size of the value).
    public init(_ json: JSONValue) throws(JSONConversionError) {
        try self.init(json, at: JSONPath())
    }

    private init(_ json: JSONValue, at path: JSONPath) throws(JSONConversionError) {
        switch json {
        case .null: throw JSONConversionError(path: path.description, value: "null", target: "AttributeValue")
        case .bool(let flag): self = .bool(flag)
        case .number(.integer(let integer)): self = .int(integer)
        case .number(.double(let double)): self = .double(double)
        case .string(let string): self = .string(string)
        case .array(let elements):
            var list: [AttributeValue] = []
            list.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() { list.append(try AttributeValue(element, at: path.appending(index: index))) }
            self = .list(list)
        case .object(let object):
            var record: [String: AttributeValue] = [:]
            record.reserveCapacity(object.count)
            for member in object { record[member.key] = try AttributeValue(member.value, at: path.appending(key: member.key)) }
            self = .record(record)
        }
    }
}

extension JSONValue {
    /// The JSON value of a text attribute: every attribute value has one (records become objects
    /// with their keys in sorted order, so equal attributes write equal JSON).
    ///
    /// - Complexity: O(size of the value), plus sorting each record's keys.
    public init(_ attribute: AttributeValue) {
        switch attribute {
        case .bool(let flag): self = .bool(flag)
        case .int(let integer): self = .number(.integer(integer))
        case .double(let double): self = .number(.double(double))
        case .string(let string): self = .string(string)
        case .list(let list): self = .array(list.map(JSONValue.init))
        case .record(let record):
            var object = JSONObject()
            for key in record.keys.sorted() { object.appendUnchecked(key, JSONValue(record[key]!)) }
            self = .object(object)
        }
    }
}
