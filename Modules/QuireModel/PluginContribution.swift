/// What kind of thing a plugin contributes besides node types (editor commands, theme entries,
/// markup mappings …), named by the module that reads it. The kind is what a configuration
/// compares against the kinds its catalog has readers for, so that a contribution nothing
/// reads is reported instead of silently dropped.
public struct ContributionKind: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// A dotted name, the reading module's area first (`editor.extension`, `style.theme`).
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }

    public static func < (lhs: ContributionKind, rhs: ContributionKind) -> Bool { lhs.name < rhs.name }
}

/// A contribution kind together with the type of its values. The module that reads a kind
/// declares its key (`ContributionKey<ThemeContribution>.theme` in QuireStyle,
/// `ContributionKey<any EditorExtension>.editorExtension` in QuireEditor); plugins contribute
/// through the key and readers get values of that type back, never an `Any` to cast.
public struct ContributionKey<Value: Sendable>: Hashable, Sendable {
    public let kind: ContributionKind

    /// The key of the kind called `name`.
    public init(_ name: String) { kind = ContributionKind(name) }
}

/// One thing a configured plugin contributes: a value of the type its kind's key names.
public struct PluginContribution: Sendable {
    /// Which reader the value is for.
    public let kind: ContributionKind
    private let value: any Sendable

    /// A contribution of `value` for readers of `key`.
    public init<Value>(_ key: ContributionKey<Value>, _ value: Value) {
        kind = key.kind
        self.value = value
    }

    /// The value, when this contribution is of `key`'s kind.
    ///
    /// The initializer stores only values of the key's type under its kind, so the cast here
    /// fails only for two keys that share a name but not a type, a programming error that the
    /// reader then simply does not see.
    public func value<Value>(for key: ContributionKey<Value>) -> Value? {
        guard kind == key.kind else { return nil }
        return value as? Value
    }
}

extension Sequence<PluginContribution> {
    /// The values of `key`'s kind, in order.
    ///
    /// - Complexity: O(n).
    public func values<Value>(for key: ContributionKey<Value>) -> [Value] {
        compactMap { $0.value(for: key) }
    }
}

extension Sequence<ConfiguredPlugin> {
    /// Every contribution of the plugins, in plugin order.
    public var contributions: [PluginContribution] { flatMap(\.contributions) }

    /// The values of `key`'s kind the plugins contribute, in plugin order.
    ///
    /// - Complexity: O(contributions).
    public func values<Value>(for key: ContributionKey<Value>) -> [Value] {
        flatMap { $0.contributions.values(for: key) }
    }
}
