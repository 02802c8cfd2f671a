import CYAML
import QuireModel

/// A loaded YAML document: its value as JSON, and where each part of it was written.
public struct YAMLDocument: Sendable, Hashable {
    /// The document's value; mappings keep their key order.
    public var value: JSONValue
    /// Where each value (and each mapping key) starts in the source.
    public var locations: SourceLocations
}

/// Loads YAML text into `JSONValue` trees through the system libyaml, with their
/// `SourceLocations`.
///
/// Plain scalars are resolved by YAML 1.2's core schema (null, booleans, integers, floats, strings);
/// quoted scalars are always strings. Anchors and aliases are refused: a configuration has no need
/// for them and they are the classic way to make a small file expand without bound. Lists and
/// mappings nest at most as deep as JSON does (`JSONReader.Options.defaultMaximumDepth`).
public enum YAMLLoader {
    /// The deepest nesting of lists and mappings accepted: the JSON reader's limit.
    public static let maximumDepth = JSONReader.Options.defaultMaximumDepth

    /// Parses a single-document YAML string. An empty document is null.
    ///
    /// - Throws: `ConfigError.syntax` with the line and column libyaml reports,
    ///   `ConfigError.unsupportedYAML` for aliases, several documents or too deep nesting,
    ///   `ConfigError.duplicateKey` for a mapping that repeats a key.
    /// - Complexity: O(n) in the input length.
    public static func load(_ text: String) throws(ConfigError) -> YAMLDocument {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ConfigError.syntax(message: "libyaml could not allocate a parser", location: SourceLocation(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ConfigError) -> YAMLDocument in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { throw syntaxError(parser) }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.consume(event)
            }
            return builder.result ?? YAMLDocument(value: .null, locations: SourceLocations(location: SourceLocation(line: 1, column: 1)))
        }
    }

    private static func syntaxError(_ parser: yaml_parser_t) -> ConfigError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) }
        let message = context.map { "\(problem) \($0)" } ?? problem
        let mark = parser.problem_mark
        return .syntax(message: message, location: SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1))
    }
}

/// Builds the value and its locations from libyaml's events. Each open list or mapping is a frame
/// mutated in place, so adding a value is O(1) (amortized) whatever the container's size.
private struct TreeBuilder {
    struct Frame {
        var isMapping: Bool
        var start: SourceLocation
        var items: [JSONValue] = []
        var object = JSONObject()
        var locations: SourceLocations
        var pendingKey: (key: String, location: SourceLocation)?

        init(isMapping: Bool, start: SourceLocation) {
            self.isMapping = isMapping
            self.start = start
            locations = SourceLocations(location: start)
        }
    }

    var stack: [Frame] = []
    var result: YAMLDocument?
    var documents = 0

    static func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    mutating func consume(_ event: yaml_event_t) throws(ConfigError) {
        let location = Self.location(event.start_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 { throw .unsupportedYAML(feature: "more than one document", location: location) }
        case YAML_ALIAS_EVENT:
            throw .unsupportedYAML(feature: "aliases (*name)", location: location)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            if scalar.anchor != nil { throw .unsupportedYAML(feature: "anchors (&name)", location: location) }
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: Int(scalar.length)), as: UTF8.self)
            let tag = scalar.tag.map { String(cString: $0) }
            let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE && tag == nil
            let forcedString = tag == "tag:yaml.org,2002:str"
            try add(plain && !forcedString ? Self.resolve(text) : .string(text), SourceLocations(location: location), keyText: text)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
            if anchor != nil { throw .unsupportedYAML(feature: "anchors (&name)", location: location) }
            guard stack.count < YAMLLoader.maximumDepth else {
                throw .unsupportedYAML(feature: "nesting deeper than \(YAMLLoader.maximumDepth) levels", location: location)
            }
            stack.append(Frame(isMapping: isMapping, start: location))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return }
            try add(frame.isMapping ? .object(frame.object) : .array(frame.items), frame.locations, keyText: nil)
        default:
            break
        }
    }

    /// Adds a finished value to the innermost container; in a mapping, every other value is a key.
    mutating func add(_ value: JSONValue, _ locations: SourceLocations, keyText: String?) throws(ConfigError) {
        let top = stack.count - 1
        guard top >= 0 else {
            result = YAMLDocument(value: value, locations: locations)
            return
        }
        if !stack[top].isMapping {
            stack[top].items.append(value)
            stack[top].locations.elements.append(locations)
        } else if let (key, keyLocation) = stack[top].pendingKey {
            // The locations' members double as the set of keys seen, so a duplicate costs O(1) to find.
            if stack[top].locations.members[key] != nil { throw .duplicateKey(key, location: keyLocation) }
            var member = locations
            member.keyLocation = keyLocation
            stack[top].locations.members[key] = member
            stack[top].object.appendUnchecked(key, value)
            stack[top].pendingKey = nil
        } else {
            guard let keyText else {
                throw .unsupportedYAML(feature: "a mapping key that is not a scalar", location: locations.location ?? stack[top].start)
            }
            stack[top].pendingKey = (keyText, locations.location ?? stack[top].start)
        }
    }

    /// YAML 1.2 core schema resolution of a plain scalar.
    static func resolve(_ text: String) -> JSONValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .number(.double(.infinity))
        case "-.inf", "-.Inf", "-.INF": return .number(.double(-.infinity))
        case ".nan", ".NaN", ".NAN": return .number(.double(.nan))
        default: break
        }
        if text.hasPrefix("0x"), let value = Int(text.dropFirst(2), radix: 16) { return .number(.integer(value)) }
        if text.hasPrefix("0o"), let value = Int(text.dropFirst(2), radix: 8) { return .number(.integer(value)) }
        if isDecimalInteger(text), let value = Int(text) { return .number(.integer(value)) }
        if isFloat(text), let value = Double(text) { return .number(.double(value)) }
        return .string(text)
    }

    static func isDecimalInteger(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars
        if let first = scalars.first, first == "-" || first == "+" { scalars = scalars.dropFirst() }
        return !scalars.isEmpty && scalars.allSatisfy { ("0"..."9").contains($0) }
    }

    static func isFloat(_ text: String) -> Bool {
        // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
        let allowed = Set("0123456789.eE+-")
        return text.contains(where: \.isNumber) && text.allSatisfy { allowed.contains($0) } && Double(text) != nil
    }
}
