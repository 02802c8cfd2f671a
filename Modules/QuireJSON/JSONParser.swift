/// Parses whole JSON documents into ``JSONValue`` trees with ``JSONReader``'s input policy.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted by default
    /// (``JSONReader/Options/defaultMaximumDepth``).
    public static let maximumDepth = JSONReader.Options.defaultMaximumDepth

    /// Parses one JSON value from `bytes`; only whitespace may follow it.
    ///
    /// - Throws: ``JSONError`` with the byte offset, line, column and JSON path.
    /// - Complexity: O(n) in the input length.
    public static func parse<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, options: JSONReader.Options = JSONReader.Options()
    ) throws(JSONError) -> JSONValue {
        var reader = JSONReader(Array(bytes), options: options)
        let value = try reader.readValue()
        try reader.finish()
        return value
    }

    /// Parses one JSON value from a string.
    ///
    /// - Complexity: O(n) in the input length.
    public static func parse(_ text: String, options: JSONReader.Options = JSONReader.Options()) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), options: options)
    }
}
