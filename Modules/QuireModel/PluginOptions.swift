/// A 1-based line and column in a configuration source.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}

/// Where each value of a loaded configuration was written: a tree shaped like the value (members
/// by key, elements by index), kept beside the ``JSONValue`` it describes so that plugin options
/// are plain JSON values and errors can still name a line and column.
public struct SourceLocations: Hashable, Sendable {
    /// Where the value starts.
    public var location: SourceLocation?
    /// Where the key of the member holding the value was written (members of a mapping only).
    public var keyLocation: SourceLocation?
    /// The locations of a mapping's members, by key.
    public var members: [String: SourceLocations]
    /// The locations of a list's elements, by index.
    public var elements: [SourceLocations]

    public init(location: SourceLocation? = nil, keyLocation: SourceLocation? = nil,
                members: [String: SourceLocations] = [:], elements: [SourceLocations] = []) {
        self.location = location
        self.keyLocation = keyLocation
        self.members = members
        self.elements = elements
    }

    /// The locations of the value at `path` below this one, when they were recorded.
    ///
    /// - Complexity: O(length of the path).
    public subscript(path: JSONPath) -> SourceLocations? {
        var node = self
        for component in path.components {
            switch component {
            case .key(let key):
                guard let member = node.members[key] else { return nil }
                node = member
            case .index(let index):
                guard node.elements.indices.contains(index) else { return nil }
                node = node.elements[index]
            }
        }
        return node
    }
}

extension JSONValue {
    /// The value's type as configuration messages name it: YAML's words (`list`, `mapping`), and
    /// `integer` or `number` by how the number was written.
    public var configurationTypeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number(.integer): "integer"
        case .number(.double): "number"
        case .string: "string"
        case .array: "list"
        case .object: "mapping"
        }
    }

    /// The value written as YAML flow text, for listings such as `quire plugins`.
    public var flowText: String {
        switch self {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(.integer(let value)): String(value)
        case .number(.double(let value)):
            value.isNaN ? ".nan" : value.isInfinite ? (value < 0 ? "-.inf" : ".inf") : String(value)
        case .string(let value): value.isEmpty || value.contains(where: { ":#{}[],\"'".contains($0) }) ? "\"\(value)\"" : value
        case .array(let items): "[" + items.map(\.flowText).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { "\($0.key): \($0.value.flowText)" }.joined(separator: ", ") + "}"
        }
    }
}

/// An option with the wrong type or an out-of-range value, named by its full path
/// (`plugins[2].heading.maxLevel`).
public struct OptionError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let expected: String
    public let found: String
    public let location: SourceLocation?

    public init(path: String, expected: String, found: String, location: SourceLocation?) {
        self.path = path
        self.expected = expected
        self.found = found
        self.location = location
    }

    public var description: String {
        (location.map { "\($0): " } ?? "") + "\(path): expected \(expected), found \(found)"
    }
}

/// Something in a configuration that was ignored, such as an option key no plugin reads.
public struct ConfigWarning: Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String
    public let location: SourceLocation?

    public init(path: String, message: String, location: SourceLocation?) {
        self.path = path
        self.message = message
        self.location = location
    }

    public var description: String { (location.map { "\($0): " } ?? "") + "\(path): \(message)" }
}

/// Reads a plugin's options from a mapping, checking types, recording defaults and remembering
/// which keys were read so that the rest can be reported as unknown.
public struct OptionsReader: Sendable {
    /// The path of the mapping being read, such as `plugins[2].heading`.
    public let path: String
    private let entries: JSONObject
    private let locations: SourceLocations?
    private var consumed: Set<String> = []
    private var nestedWarnings: [ConfigWarning] = []
    /// The options in force after reading, defaults included, in the order they were read.
    public private(set) var settings = JSONObject()

    /// A reader over `value`, which must be a mapping or null (no options); `locations` says where
    /// its values were written, for error messages.
    public init(_ value: JSONValue?, path: String, locations: SourceLocations? = nil) throws(OptionError) {
        self.path = path
        self.locations = locations
        switch value {
        case nil, .null?: entries = JSONObject()
        case .object(let entries)?: self.entries = entries
        case let other?:
            throw OptionError(path: path, expected: "a mapping of options", found: other.configurationTypeName, location: locations?.location)
        }
    }

    /// Keys that were present but never read, as warnings.
    public var warnings: [ConfigWarning] {
        nestedWarnings + entries.filter { !consumed.contains($0.key) }.map {
            ConfigWarning(path: "\(path).\($0.key)", message: "unknown option, ignored",
                          location: locations?.members[$0.key].flatMap { $0.keyLocation ?? $0.location })
        }
    }

    /// The raw value of `key`, marking it read.
    public mutating func value(_ key: String) -> JSONValue? {
        consumed.insert(key)
        return entries[key]
    }

    /// Where the value of `key` was written, when the source said.
    public func location(of key: String) -> SourceLocation? {
        locations?.members[key]?.location
    }

    private mutating func record<T>(_ key: String, _ value: T, as json: (T) -> JSONValue) -> T {
        settings[key] = json(value)
        return value
    }

    private func mismatch(_ key: String, expected: String, _ value: JSONValue, at location: SourceLocation?) -> OptionError {
        OptionError(path: "\(path).\(key)", expected: expected, found: value.configurationTypeName + Self.quoted(value), location: location)
    }

    private static func quoted(_ value: JSONValue) -> String {
        switch value {
        case .string, .number, .bool: " \(value.flowText)"
        default: ""
        }
    }

    /// An integer option, optionally limited to `range`.
    public mutating func int(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>? = nil) throws(OptionError) -> Int {
        guard let value = value(key), value != .null else { return record(key, defaultValue) { .number(.integer($0)) } }
        let expected = range.map { "an integer in \($0.lowerBound)...\($0.upperBound)" } ?? "an integer"
        guard case .number(.integer(let integer)) = value else { throw mismatch(key, expected: expected, value, at: location(of: key)) }
        if let range, !range.contains(integer) { throw mismatch(key, expected: expected, value, at: location(of: key)) }
        return record(key, integer) { .number(.integer($0)) }
    }

    /// A boolean option.
    public mutating func bool(_ key: String, default defaultValue: Bool) throws(OptionError) -> Bool {
        guard let value = value(key), value != .null else { return record(key, defaultValue, as: JSONValue.bool) }
        guard case .bool(let flag) = value else { throw mismatch(key, expected: "a boolean", value, at: location(of: key)) }
        return record(key, flag, as: JSONValue.bool)
    }

    /// A number option; integers are accepted.
    public mutating func double(_ key: String, default defaultValue: Double) throws(OptionError) -> Double {
        guard let value = value(key), value != .null else { return record(key, defaultValue) { .number(.double($0)) } }
        guard case .number(let number) = value else { throw mismatch(key, expected: "a number", value, at: location(of: key)) }
        return record(key, number.doubleValue) { .number(.double($0)) }
    }

    /// A string option, optionally one of `allowed`.
    public mutating func string(_ key: String, default defaultValue: String, allowed: [String]? = nil) throws(OptionError) -> String {
        guard let value = value(key), value != .null else { return record(key, defaultValue, as: JSONValue.string) }
        let expected = allowed.map { "one of " + $0.joined(separator: ", ") } ?? "a string"
        guard case .string(let string) = value else { throw mismatch(key, expected: expected, value, at: location(of: key)) }
        if let allowed, !allowed.contains(string) { throw mismatch(key, expected: expected, value, at: location(of: key)) }
        return record(key, string, as: JSONValue.string)
    }

    /// A list-of-strings option.
    public mutating func strings(_ key: String, default defaultValue: [String]) throws(OptionError) -> [String] {
        guard let value = value(key), value != .null else { return record(key, defaultValue) { .array($0.map(JSONValue.string)) } }
        guard case .array(let items) = value else { throw mismatch(key, expected: "a list of strings", value, at: location(of: key)) }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let string) = item else {
                throw mismatch("\(key)[\(index)]", expected: "a string", item, at: locations?.members[key]?.elements[safe: index]?.location)
            }
            strings.append(string)
        }
        return record(key, strings) { .array($0.map(JSONValue.string)) }
    }

    /// Reads a nested mapping of options with `body`; its unknown keys join this reader's warnings.
    public mutating func section<T>(_ key: String, _ body: (inout OptionsReader) throws(OptionError) -> T) throws(OptionError) -> T {
        let raw = value(key)
        var nested = try OptionsReader(raw, path: "\(path).\(key)", locations: locations?.members[key])
        let result = try body(&nested)
        nestedWarnings += nested.warnings
        settings[key] = .object(nested.settings)
        return result
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// A plugin's options, decoded by the plugin's own type from its configuration mapping.
public protocol PluginOptions: Sendable {
    /// Reads the options; absent keys take their defaults.
    init(from reader: inout OptionsReader) throws(OptionError)
}

/// The options of a plugin that has none.
public struct NoOptions: PluginOptions {
    public init() {}
    public init(from reader: inout OptionsReader) throws(OptionError) {}
}

/// A plugin as configured: its name, the options in force, and what it contributes.
public struct ConfiguredPlugin: Sendable {
    /// The name the configuration selects it by.
    public let name: String
    /// Every option with the value in force, defaults included, in the order they were read.
    public let settings: JSONObject
    /// The node types it registers, in order.
    public let nodePlugins: [any NodePlugin]
    /// Everything else it contributes (commands, theme entries, markup mappings and formats),
    /// each tagged with the kind of reader it is for.
    public let contributions: [PluginContribution]

    public init(name: String, settings: JSONObject, nodePlugins: [any NodePlugin], contributions: [PluginContribution] = []) {
        self.name = name
        self.settings = settings
        self.nodePlugins = nodePlugins
        self.contributions = contributions
    }
}

/// What a catalog knows about a plugin before any configuration: its name, a one-line summary,
/// and how to build it from its options.
public struct PluginDescriptor: Sendable {
    /// What a configuration selects the plugin by; unique within a catalog.
    public let name: String
    /// One line for listings.
    public let summary: String
    private let build: @Sendable (inout OptionsReader) throws(OptionError) -> ConfiguredPlugin

    /// A plugin whose options are decoded by `Options` and which then contributes `contribute(options)`.
    public init<Options: PluginOptions>(
        name: String, summary: String, options: Options.Type,
        contribute: @escaping @Sendable (Options) -> (nodes: [any NodePlugin], contributions: [PluginContribution])
    ) {
        self.name = name
        self.summary = summary
        self.build = { (reader: inout OptionsReader) throws(OptionError) -> ConfiguredPlugin in
            let options = try Options(from: &reader)
            let contribution = contribute(options)
            return ConfiguredPlugin(name: name, settings: reader.settings, nodePlugins: contribution.nodes, contributions: contribution.contributions)
        }
    }

    /// A plugin without options that registers `nodes`.
    public init(name: String, summary: String, nodes: [any NodePlugin]) {
        self.init(name: name, summary: summary, options: NoOptions.self) { _ in (nodes, []) }
    }

    /// Builds the plugin from its options mapping.
    public func configure(_ reader: inout OptionsReader) throws(OptionError) -> ConfiguredPlugin {
        try build(&reader)
    }
}

/// The plugins an app can select by name: the built-ins it links plus its own, registered in code
/// before a configuration is applied; and the contribution kinds the app has readers for, so
/// that a configuration can report what a selected plugin contributes in vain.
public struct PluginCatalog: Sendable {
    private var descriptors: [String: PluginDescriptor] = [:]
    /// Names in registration order.
    public private(set) var names: [String] = []
    /// The contribution kinds something in the app reads (a configuration warns about the others).
    public private(set) var readKinds: Set<ContributionKind>

    public init(_ descriptors: [PluginDescriptor] = [], reading readKinds: Set<ContributionKind> = []) {
        self.readKinds = readKinds
        for descriptor in descriptors where self.descriptors[descriptor.name] == nil {
            self.descriptors[descriptor.name] = descriptor
            names.append(descriptor.name)
        }
    }

    /// Declares that the app reads contributions of `kind` (an app's own kind, next to the
    /// engine's that the built-in catalog declares).
    public mutating func addReader(for kind: ContributionKind) {
        readKinds.insert(kind)
    }

    /// Adds a plugin; a later registration under the same name replaces the earlier one, so an app
    /// can override a built-in.
    public mutating func register(_ descriptor: PluginDescriptor) {
        if descriptors[descriptor.name] == nil { names.append(descriptor.name) }
        descriptors[descriptor.name] = descriptor
    }

    /// The plugin called `name`.
    public func descriptor(named name: String) -> PluginDescriptor? { descriptors[name] }
}
