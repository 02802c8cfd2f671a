import QuireModel

/// A block element that holds blocks: for nesting, moves into and out of it, and restyles (its
/// `tone` field is an attribute of everything inside it).
struct BoxPlugin: NodePlugin {
    var type: NodeType { "box" }
    var role: NodeRole { .element(inline: false) }
    var childRule: ChildRule { .blocks }
    var fields: [FieldSpec] { [FieldSpec("tone", .string, default: .string("plain"))] }
}

/// A block decorator (U+FFFC in the flat string).
struct RulePlugin: NodePlugin {
    var type: NodeType { "rule" }
    var role: NodeRole { .decorator(inline: false) }
}
