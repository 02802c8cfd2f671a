import Foundation
import QuireModel

/// Why a configuration was refused. Each case says where.
public enum ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not YAML.
    case syntax(message: String, location: SourceLocation)
    /// Valid YAML that a configuration does not use (aliases, several documents, complex keys).
    case unsupportedYAML(feature: String, location: SourceLocation)
    /// A mapping repeats a key.
    case duplicateKey(String, location: SourceLocation)
    /// `version` is missing.
    case missingVersion
    /// `version` is not one this build reads.
    case unsupportedVersion(found: String, supported: [Int], location: SourceLocation?)
    /// A value has the wrong shape (the document is not a mapping, `plugins` is not a list, …).
    case wrongType(path: String, expected: String, found: String, location: SourceLocation?)
    /// A plugin name the catalog does not have.
    case unknownPlugin(name: String, path: String, available: [String], location: SourceLocation?)
    /// The same plugin selected twice.
    case duplicatePlugin(name: String, path: String, location: SourceLocation?)
    /// A plugin option has the wrong type or value; its path names it (`plugins[2].heading.maxLevel`).
    case wrongOptionType(OptionError)
    /// Two selected plugins register the same node type.
    case conflictingNodeType(NodeType, plugin: String)
    /// The file could not be read.
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .syntax(let message, let location):
            return "YAML syntax error at \(location): \(message)"
        case .unsupportedYAML(let feature, let location):
            return "\(location): not supported in a configuration: \(feature)"
        case .duplicateKey(let key, let location):
            return "\(location): key \"\(key)\" appears twice"
        case .missingVersion:
            return "the configuration has no `version`; add `version: 1`"
        case .unsupportedVersion(let found, let supported, let location):
            return (location.map { "\($0): " } ?? "") + "unsupported configuration version \(found); this build reads version "
                + supported.map(String.init).joined(separator: ", ")
        case .wrongType(let path, let expected, let found, let location):
            return (location.map { "\($0): " } ?? "") + "\(path): expected \(expected), found \(found)"
        case .unknownPlugin(let name, let path, let available, let location):
            return (location.map { "\($0): " } ?? "") + "\(path): unknown plugin \"\(name)\"; available: "
                + (available.isEmpty ? "(none)" : available.joined(separator: ", "))
        case .duplicatePlugin(let name, let path, let location):
            return (location.map { "\($0): " } ?? "") + "\(path): plugin \"\(name)\" is selected more than once"
        case .wrongOptionType(let error):
            return error.description
        case .conflictingNodeType(let type, let plugin):
            return "plugin \"\(plugin)\" registers node type \"\(type)\", which another plugin already registered"
        case .unreadableFile(let path, let reason):
            return "cannot read \(path): \(reason)"
        }
    }
}

/// A decoded configuration: which plugins are on, in priority order, with their options, and the
/// warnings about what was ignored.
///
/// ```yaml
/// version: 1
/// plugins:            # list order is priority order
///   - heading:
///       maxLevel: 3
///   - quote           # a bare name takes the defaults
/// ```
public struct Configuration: Sendable {
    /// The configuration versions this build reads.
    public static let supportedVersions = [1]

    public let version: Int
    /// The selected plugins, highest priority first.
    public let plugins: [ConfiguredPlugin]
    /// What was ignored: unknown option keys, unknown top-level keys, contributions of a kind
    /// the catalog has no reader for.
    public let warnings: [ConfigWarning]

    /// Decodes a configuration from YAML text. The catalog holds every plugin the app can select:
    /// register the app's own plugins in it before calling this.
    public static func load(yaml: String, catalog: PluginCatalog) throws(ConfigError) -> Configuration {
        let document = try YAMLLoader.load(yaml)
        return try decode(document.value, locations: document.locations, catalog: catalog)
    }

    /// Decodes the configuration file at `path`.
    public static func load(contentsOf path: String, catalog: PluginCatalog) throws(ConfigError) -> Configuration {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadableFile(path: path, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadableFile(path: path, reason: "the file is not UTF-8 text")
        }
        return try load(yaml: text, catalog: catalog)
    }

    /// Decodes a configuration from an already loaded value (YAML, or JSON with the same shape);
    /// `locations` says where its parts were written, for error messages.
    public static func decode(_ document: JSONValue, locations: SourceLocations? = nil, catalog: PluginCatalog) throws(ConfigError) -> Configuration {
        guard case .object(let entries) = document else {
            throw .wrongType(path: "$", expected: "a mapping with `version` and `plugins`", found: document.configurationTypeName, location: locations?.location)
        }
        var warnings: [ConfigWarning] = []
        for entry in entries where entry.key != "version" && entry.key != "plugins" {
            warnings.append(ConfigWarning(path: entry.key, message: "unknown key, ignored", location: locations?.members[entry.key]?.keyLocation))
        }
        guard let versionValue = entries["version"] else { throw .missingVersion }
        guard case .number(.integer(let version)) = versionValue, supportedVersions.contains(version) else {
            // A quoted "1" reads like the supported 1 unless the message says it is a string.
            let found = if case .string(let text) = versionValue, Int(text) != nil { "\"\(text)\" (a string, not a number)" } else { versionValue.flowText }
            throw .unsupportedVersion(found: found, supported: supportedVersions, location: locations?.members["version"]?.location)
        }
        var plugins: [ConfiguredPlugin] = []
        if let pluginsValue = entries["plugins"] {
            let pluginLocations = locations?.members["plugins"]
            switch pluginsValue {
            case .null: break
            case .array(let items):
                for (index, item) in items.enumerated() {
                    let itemLocations = pluginLocations.flatMap { index < $0.elements.count ? $0.elements[index] : nil }
                    let configured = try configurePlugin(item, locations: itemLocations, path: "plugins[\(index)]", catalog: catalog, warnings: &warnings)
                    if plugins.contains(where: { $0.name == configured.name }) {
                        throw .duplicatePlugin(name: configured.name, path: "plugins[\(index)]", location: itemLocations?.location)
                    }
                    plugins.append(configured)
                }
            default:
                throw .wrongType(path: "plugins", expected: "a list of plugin names or `name: {options}` mappings",
                                 found: pluginsValue.configurationTypeName, location: pluginLocations?.location)
            }
        }
        return Configuration(version: version, plugins: plugins, warnings: warnings)
    }

    private static func configurePlugin(
        _ item: JSONValue, locations: SourceLocations?, path: String, catalog: PluginCatalog, warnings: inout [ConfigWarning]
    ) throws(ConfigError) -> ConfiguredPlugin {
        let name: String
        let options: JSONValue?
        let optionLocations: SourceLocations?
        let nameLocation: SourceLocation?
        switch item {
        case .string(let bare):
            (name, options, optionLocations, nameLocation) = (bare, nil, nil, locations?.location)
        case .object(let entries) where entries.count == 1:
            let entry = entries.members[0]
            let member = locations?.members[entry.key]
            (name, options, optionLocations, nameLocation) = (entry.key, entry.value, member, member?.keyLocation)
        default:
            throw .wrongType(path: path, expected: "a plugin name or a one-key mapping `name: {options}`",
                             found: item.configurationTypeName, location: locations?.location)
        }
        guard let descriptor = catalog.descriptor(named: name) else {
            throw .unknownPlugin(name: name, path: path, available: catalog.names, location: nameLocation)
        }
        do {
            var reader = try OptionsReader(options, path: "\(path).\(name)", locations: optionLocations)
            let configured = try descriptor.configure(&reader)
            warnings += reader.warnings
            let unread = Set(configured.contributions.map(\.kind)).subtracting(catalog.readKinds)
            for kind in unread.sorted() {
                warnings.append(ConfigWarning(
                    path: "\(path).\(name)", message: "contributes \(kind), which nothing in this app reads; ignored",
                    location: nameLocation))
            }
            return configured
        } catch {
            throw .wrongOptionType(error)
        }
    }

    /// The registry with the core types and every selected plugin's node types, in priority order.
    ///
    /// - Throws: `ConfigError.conflictingNodeType` when two plugins register the same type.
    public func makeRegistry(startingFrom base: NodeRegistry = NodeRegistry()) throws(ConfigError) -> NodeRegistry {
        var registry = base
        for plugin in plugins {
            for node in plugin.nodePlugins {
                do { try registry.register(node) } catch { throw .conflictingNodeType(node.type, plugin: plugin.name) }
            }
        }
        return registry
    }
}
