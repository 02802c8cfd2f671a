import CYAML
import QuireModel

/// Loads YAML text into `OptionValue` trees through the system libyaml.
///
/// Plain scalars are resolved by YAML 1.2's core schema (null, booleans, integers, floats, strings);
/// quoted scalars are always strings. Anchors and aliases are refused: a configuration has no need
/// for them and they are the classic way to make a small file expand without bound.
public enum YAMLLoader {
    /// Parses a single-document YAML string. An empty document is null.
    ///
    /// - Throws: `ConfigError.syntax` with the line and column libyaml reports,
    ///   `ConfigError.unsupportedYAML` for aliases or several documents.
    /// - Complexity: O(n) in the input length.
    public static func load(_ text: String) throws(ConfigError) -> OptionValue {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ConfigError.syntax(message: "libyaml could not allocate a parser", location: SourceLocation(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ConfigError) -> OptionValue in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { throw syntaxError(parser) }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.consume(event)
            }
            return builder.result ?? OptionValue(.null, at: SourceLocation(line: 1, column: 1))
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

private struct TreeBuilder {
    enum Container {
        case list([OptionValue], SourceLocation)
        case map([OptionEntry], pendingKey: (String, SourceLocation)?, SourceLocation)
    }

    var stack: [Container] = []
    var result: OptionValue?
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
            try add(OptionValue(plain && !forcedString ? Self.resolve(text) : .string(text), at: location), keyText: text)
        case YAML_SEQUENCE_START_EVENT:
            if event.data.sequence_start.anchor != nil { throw .unsupportedYAML(feature: "anchors (&name)", location: location) }
            stack.append(.list([], location))
        case YAML_MAPPING_START_EVENT:
            if event.data.mapping_start.anchor != nil { throw .unsupportedYAML(feature: "anchors (&name)", location: location) }
            stack.append(.map([], pendingKey: nil, location))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let container = stack.popLast() else { return }
            switch container {
            case .list(let items, let start): try add(OptionValue(.list(items), at: start), keyText: nil)
            case .map(let entries, _, let start): try add(OptionValue(.map(entries), at: start), keyText: nil)
            }
        default:
            break
        }
    }

    /// Adds a finished value to the innermost container; in a mapping, every other value is a key.
    mutating func add(_ value: OptionValue, keyText: String?) throws(ConfigError) {
        guard let top = stack.popLast() else {
            result = value
            return
        }
        switch top {
        case .list(var items, let start):
            items.append(value)
            stack.append(.list(items, start))
        case .map(var entries, let pendingKey, let start):
            if let (key, keyLocation) = pendingKey {
                if entries.contains(where: { $0.key == key }) {
                    throw .duplicateKey(key, location: keyLocation)
                }
                entries.append(OptionEntry(key: key, keyLocation: keyLocation, value: value))
                stack.append(.map(entries, pendingKey: nil, start))
            } else {
                guard let keyText else {
                    throw .unsupportedYAML(feature: "a mapping key that is not a scalar", location: value.location ?? start)
                }
                stack.append(.map(entries, pendingKey: (keyText, value.location ?? start), start))
            }
        }
    }

    /// YAML 1.2 core schema resolution of a plain scalar.
    static func resolve(_ text: String) -> OptionValue.Kind {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .double(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .double(-.infinity)
        case ".nan", ".NaN", ".NAN": return .double(.nan)
        default: break
        }
        if text.hasPrefix("0x"), let value = Int(text.dropFirst(2), radix: 16) { return .int(value) }
        if text.hasPrefix("0o"), let value = Int(text.dropFirst(2), radix: 8) { return .int(value) }
        if isDecimalInteger(text), let value = Int(text) { return .int(value) }
        if isFloat(text), let value = Double(text) { return .double(value) }
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
