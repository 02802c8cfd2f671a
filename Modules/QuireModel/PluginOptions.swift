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

/// A configuration value as a plugin's options see it: the typed tree a YAML (or any other)
/// configuration source is loaded into, with where each value came from.
public struct OptionValue: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case list([OptionValue])
        case map([OptionEntry])
    }

    public let kind: Kind
    /// Where the value starts in its source, when it came from one.
    public let location: SourceLocation?

    public init(_ kind: Kind, at location: SourceLocation? = nil) {
        self.kind = kind
        self.location = location
    }

    /// The value's type as error messages name it.
    public var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .list: "list"
        case .map: "mapping"
        }
    }

    /// The value written as YAML flow text, for listings such as `quire plugins`.
    public var flowText: String {
        switch kind {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): value.isEmpty || value.contains(where: { ":#{}[],\"'".contains($0) }) ? "\"\(value)\"" : value
        case .list(let items): "[" + items.map(\.flowText).joined(separator: ", ") + "]"
        case .map(let entries): "{" + entries.map { "\($0.key): \($0.value.flowText)" }.joined(separator: ", ") + "}"
        }
    }
}

/// One key of a mapping, with where the key was written.
public struct OptionEntry: Hashable, Sendable {
    public let key: String
    public let keyLocation: SourceLocation?
    public let value: OptionValue

    public init(key: String, keyLocation: SourceLocation? = nil, value: OptionValue) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
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
    private let entries: [OptionEntry]
    private var consumed: Set<String> = []
    private var nestedWarnings: [ConfigWarning] = []
    /// The options in force after reading, defaults included, in the order they were read.
    public private(set) var settings: [OptionEntry] = []

    /// A reader over `value`, which must be a mapping or null (no options).
    public init(_ value: OptionValue?, path: String) throws(OptionError) {
        self.path = path
        switch value?.kind {
        case nil, .null?: entries = []
        case .map(let entries)?: self.entries = entries
        case let other?:
            throw OptionError(path: path, expected: "a mapping of options", found: OptionValue(other).typeName, location: value?.location)
        }
    }

    /// Keys that were present but never read, as warnings.
    public var warnings: [ConfigWarning] {
        nestedWarnings + entries.filter { !consumed.contains($0.key) }.map {
            ConfigWarning(path: "\(path).\($0.key)", message: "unknown option, ignored", location: $0.keyLocation ?? $0.value.location)
        }
    }

    /// The raw value of `key`, marking it read.
    public mutating func value(_ key: String) -> OptionValue? {
        consumed.insert(key)
        return entries.first { $0.key == key }?.value
    }

    private mutating func record<T>(_ key: String, _ value: T, as kind: (T) -> OptionValue.Kind, location: SourceLocation?) -> T {
        settings.append(OptionEntry(key: key, value: OptionValue(kind(value), at: location)))
        return value
    }

    private func mismatch(_ key: String, expected: String, _ value: OptionValue) -> OptionError {
        OptionError(path: "\(path).\(key)", expected: expected, found: value.typeName + Self.quoted(value), location: value.location)
    }

    private static func quoted(_ value: OptionValue) -> String {
        switch value.kind {
        case .string, .int, .double, .bool: " \(value.flowText)"
        default: ""
        }
    }

    /// An integer option, optionally limited to `range`.
    public mutating func int(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>? = nil) throws(OptionError) -> Int {
        guard let value = value(key), value.kind != .null else { return record(key, defaultValue, as: OptionValue.Kind.int, location: nil) }
        let expected = range.map { "an integer in \($0.lowerBound)...\($0.upperBound)" } ?? "an integer"
        guard case .int(let integer) = value.kind else { throw mismatch(key, expected: expected, value) }
        if let range, !range.contains(integer) { throw mismatch(key, expected: expected, value) }
        return record(key, integer, as: OptionValue.Kind.int, location: value.location)
    }

    /// A boolean option.
    public mutating func bool(_ key: String, default defaultValue: Bool) throws(OptionError) -> Bool {
        guard let value = value(key), value.kind != .null else { return record(key, defaultValue, as: OptionValue.Kind.bool, location: nil) }
        guard case .bool(let flag) = value.kind else { throw mismatch(key, expected: "a boolean", value) }
        return record(key, flag, as: OptionValue.Kind.bool, location: value.location)
    }

    /// A number option; integers are accepted.
    public mutating func double(_ key: String, default defaultValue: Double) throws(OptionError) -> Double {
        guard let value = value(key), value.kind != .null else { return record(key, defaultValue, as: OptionValue.Kind.double, location: nil) }
        switch value.kind {
        case .double(let number): return record(key, number, as: OptionValue.Kind.double, location: value.location)
        case .int(let integer): return record(key, Double(integer), as: OptionValue.Kind.double, location: value.location)
        default: throw mismatch(key, expected: "a number", value)
        }
    }

    /// A string option, optionally one of `allowed`.
    public mutating func string(_ key: String, default defaultValue: String, allowed: [String]? = nil) throws(OptionError) -> String {
        guard let value = value(key), value.kind != .null else { return record(key, defaultValue, as: OptionValue.Kind.string, location: nil) }
        let expected = allowed.map { "one of " + $0.joined(separator: ", ") } ?? "a string"
        guard case .string(let string) = value.kind else { throw mismatch(key, expected: expected, value) }
        if let allowed, !allowed.contains(string) { throw mismatch(key, expected: expected, value) }
        return record(key, string, as: OptionValue.Kind.string, location: value.location)
    }

    /// A list-of-strings option.
    public mutating func strings(_ key: String, default defaultValue: [String]) throws(OptionError) -> [String] {
        guard let value = value(key), value.kind != .null else {
            return record(key, defaultValue, as: { .list($0.map { OptionValue(.string($0)) }) }, location: nil)
        }
        guard case .list(let items) = value.kind else { throw mismatch(key, expected: "a list of strings", value) }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let string) = item.kind else { throw mismatch("\(key)[\(index)]", expected: "a string", item) }
            strings.append(string)
        }
        return record(key, strings, as: { .list($0.map { OptionValue(.string($0)) }) }, location: value.location)
    }

    /// Reads a nested mapping of options with `body`; its unknown keys join this reader's warnings.
    public mutating func section<T>(_ key: String, _ body: (inout OptionsReader) throws(OptionError) -> T) throws(OptionError) -> T {
        let raw = value(key)
        var nested = try OptionsReader(raw, path: "\(path).\(key)")
        let result = try body(&nested)
        nestedWarnings += nested.warnings
        settings.append(OptionEntry(key: key, value: OptionValue(.map(nested.settings), at: raw?.location)))
        return result
    }
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
    /// Every option with the value in force, defaults included.
    public let settings: [OptionEntry]
    /// The node types it registers, in order.
    public let nodePlugins: [any NodePlugin]
    /// Everything else it contributes (commands, theme entries, markup mappings and formats),
    /// each tagged with the kind of reader it is for.
    public let contributions: [PluginContribution]

    public init(name: String, settings: [OptionEntry], nodePlugins: [any NodePlugin], contributions: [PluginContribution] = []) {
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
