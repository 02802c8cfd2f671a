import Foundation

/// How far an attribute reaches, which decides how `fixAttributes` treats it.
public enum AttributeScope: Sendable, Hashable {
    /// Applies to exactly the characters it is set on (bold, colour, link).
    case character
    /// Describes a whole paragraph (alignment, heading level, list style). After every editing
    /// session the value carried by a paragraph's first character is spread over the paragraph,
    /// as NSTextStorage does for `.paragraphStyle`.
    case paragraph
    /// Describes an attachment and is only meaningful on U+FFFC OBJECT REPLACEMENT CHARACTER;
    /// `fixAttributes` removes it from every other character.
    case attachment
}

/// The name of an attribute together with its scope.
///
/// Two keys are equal only when both name and scope are equal, so a paragraph-level `"align"` and
/// a character-level `"align"` never shadow each other silently.
public struct AttributeKey: Sendable, Hashable, CustomStringConvertible {
    /// The wire-stable name of the attribute.
    public var name: String
    /// How far the attribute reaches.
    public var scope: AttributeScope

    /// Creates a key; `scope` defaults to `.character`.
    public init(_ name: String, scope: AttributeScope = .character) {
        self.name = name
        self.scope = scope
    }

    /// The name.
    public var description: String { name }

    /// Bold text (character scope).
    public static let bold = AttributeKey("bold")
    /// Italic text (character scope).
    public static let italic = AttributeKey("italic")
    /// Underlined text (character scope).
    public static let underline = AttributeKey("underline")
    /// Struck-through text (character scope).
    public static let strikethrough = AttributeKey("strikethrough")
    /// Inline code (character scope).
    public static let code = AttributeKey("code")
    /// A font description, for example a record of family and size (character scope).
    public static let font = AttributeKey("font")
    /// The text colour, for example a hex string (character scope).
    public static let foregroundColor = AttributeKey("foregroundColor")
    /// The highlight colour (character scope).
    public static let backgroundColor = AttributeKey("backgroundColor")
    /// A link target, usually a URL string (character scope).
    public static let link = AttributeKey("link")
    /// Paragraph-level: the style of the paragraph (alignment, indentation, heading level …).
    public static let paragraphStyle = AttributeKey("paragraphStyle", scope: .paragraph)
    /// Attachment-level: identifies the attachment a U+FFFC stands for.
    public static let attachment = AttributeKey("attachment", scope: .attachment)
}

/// An attribute value: a small closed set of Sendable, Hashable shapes instead of `Any`, so that
/// runs can be compared and coalesced and storages can be checked for equality.
public enum AttributeValue: Sendable, Hashable {
    /// A flag such as bold.
    case bool(Bool)
    /// A whole number such as a heading level.
    case int(Int)
    /// A measurement such as a font size.
    case double(Double)
    /// Text such as a URL, a colour or an attachment identifier.
    case string(String)
    /// An ordered list of values.
    case list([AttributeValue])
    /// Named values, for structured attributes such as a paragraph style.
    case record([String: AttributeValue])
}

extension AttributeValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    /// `true` and `false` become `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Integer literals become `.int`.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// Floating-point literals become `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// String literals become `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
}

/// The attributes of one character: a dictionary from keys to values.
public struct Attributes: Sendable, Hashable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The attributes as a dictionary.
    public private(set) var values: [AttributeKey: AttributeValue] {
        didSet { scopes = Self.scopes(of: values) }
    }
    /// Which scopes occur among the keys, kept so that `fixAttributes` and the run tree's
    /// summaries can skip runs without paragraph or attachment attributes in O(1).
    private(set) var scopes: ScopeMask

    /// Creates attributes from a dictionary.
    public init(_ values: [AttributeKey: AttributeValue] = [:]) {
        self.values = values
        self.scopes = Self.scopes(of: values)
    }

    /// Creates attributes from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (AttributeKey, AttributeValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    private static func scopes(of values: [AttributeKey: AttributeValue]) -> ScopeMask {
        values.keys.reduce(into: ScopeMask()) { $0.insert(ScopeMask($1.scope)) }
    }

    /// No attributes at all.
    public static let empty = Attributes()

    /// True when there are no attributes.
    public var isEmpty: Bool { values.isEmpty }
    /// The number of keys.
    public var count: Int { values.count }

    /// The value for `key`, or nil. Setting nil removes the key.
    public subscript(key: AttributeKey) -> AttributeValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// These attributes with `other`'s values added on top (`other` wins on a shared key).
    ///
    /// - Complexity: O(a + b); no copy when `other` adds nothing new (bold on bold), so equal
    ///   runs keep sharing storage.
    public func merging(_ other: Attributes) -> Attributes {
        if other.values.allSatisfy({ values[$0.key] == $0.value }) { return self }
        return Attributes(values.merging(other.values, uniquingKeysWith: { _, new in new }))
    }

    /// These attributes without `key`.
    ///
    /// - Complexity: O(a); no copy when `key` is absent.
    public func removing(_ key: AttributeKey) -> Attributes {
        guard values[key] != nil else { return self }
        var copy = self
        copy.values[key] = nil
        return copy
    }

    /// The attributes whose key has `scope`.
    public func filtered(scope: AttributeScope) -> Attributes {
        Attributes(values.filter { $0.key.scope == scope })
    }

    /// True when some key has `scope`.
    ///
    /// - Complexity: O(1).
    public func contains(scope: AttributeScope) -> Bool {
        scopes.contains(ScopeMask(scope))
    }

    /// These attributes with every key of `scope` replaced by `replacement`'s keys (which are
    /// expected to have that scope).
    func replacingScope(_ scope: AttributeScope, with replacement: Attributes) -> Attributes {
        var result = values.filter { $0.key.scope != scope }
        for (key, value) in replacement.values { result[key] = value }
        return Attributes(result)
    }

    /// The attributes sorted by key name, for logs and test failures.
    public var description: String {
        let parts = values.sorted { $0.key.name < $1.key.name }.map { "\($0.key.name): \($0.value)" }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}

/// A set of attribute scopes, as bits.
struct ScopeMask: OptionSet, Sendable, Hashable {
    let rawValue: UInt8

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ scope: AttributeScope) {
        switch scope {
        case .character: rawValue = 1
        case .paragraph: rawValue = 2
        case .attachment: rawValue = 4
        }
    }
}

/// A maximal stretch of UTF-16 units sharing the same attributes.
public struct AttributeRun: Sendable, Hashable {
    /// The run's range in UTF-16 units.
    public var range: NSRange
    /// The attributes of every unit in the run.
    public var attributes: Attributes
}
