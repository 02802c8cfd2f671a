/// The root: one per state, holding the document's blocks.
public struct RootNodePlugin: NodePlugin {
    public init() {}
    public var type: NodeType { .root }
    public var role: NodeRole { .root }
    public var fields: [FieldSpec] { ElementFields.common }
    public var childRule: ChildRule { .blocks }
    public func postamble(of node: Node, in state: EditorState) -> String { "" }
}

/// A paragraph: a block of inline content. Lexical 0.17+ also stores the format and style that
/// typing into an empty paragraph starts with (`textFormat`, `textStyle`).
public struct ParagraphNodePlugin: NodePlugin {
    public init() {}
    public var type: NodeType { .paragraph }
    public var role: NodeRole { .element(inline: false) }
    public var fields: [FieldSpec] {
        ElementFields.common + [
            FieldSpec("textFormat", .integer, default: .number(.integer(0))),
            FieldSpec("textStyle", .string, default: .string("")),
        ]
    }
    public var childRule: ChildRule { .inlines }
}

/// Text with a format bitmask, a mode, a detail bitmask and an inline style.
public struct TextNodePlugin: NodePlugin {
    public init() {}
    public var type: NodeType { .text }
    public var role: NodeRole { .text }
    public var fields: [FieldSpec] { TextFields.common }

    public func validate(_ node: Node) throws(NodeValidationError) {
        try TextFields.validate(node)
    }
}

/// A line break inside a block ("\n" in the flat string; Shift-Enter).
public struct LineBreakNodePlugin: NodePlugin {
    public init() {}
    public var type: NodeType { .lineBreak }
    public var role: NodeRole { .lineBreak }
}

/// A tab: a text node whose text is always "\t".
public struct TabNodePlugin: NodePlugin {
    public init() {}
    public var type: NodeType { .tab }
    public var role: NodeRole { .text }
    public var fields: [FieldSpec] { TextFields.common }

    public func validate(_ node: Node) throws(NodeValidationError) {
        try TextFields.validate(node)
        guard node.text == "\t" else {
            throw NodeValidationError(field: "text", message: "a tab node's text must be \"\\t\"")
        }
    }
}
