import QuireMarkup
import QuireModel

/// Raw HTML blocks: `rawhtml`, a block element holding the HTML's lines as `text` nodes separated
/// by `linebreak`s, exported back byte for byte. It keeps HTML a markdown document contains
/// (`<details>`, `<!-- comments -->`, `<div align="center">`) as the source it is, never as
/// escaped visible text. Fields: Lexical's element fields (`direction`, `format`, `indent`).
public struct RawHTMLBlockNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "rawhtml"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .only([.text, .lineBreak]) }
    public var fields: [FieldSpec] { ElementFields.common }

    /// Enter adds a line inside the block, as in a code block.
    public func blockAfterSplit(of node: Node, at position: BlockSplitPosition) -> BlockTemplate {
        position == .end ? .paragraph(continuing: node) : BlockTemplate(type: Self.type, fields: node.fields)
    }
}

/// Inline raw HTML: `rawhtml-inline`, a text-like node whose `text` is the HTML as written
/// (`<br>`, `<span class="x">`, `</span>`; a tag may span lines). Typing goes around it, never
/// into it, and deleting beside it removes it whole. Fields: Lexical's text fields (`detail`,
/// `format`, `mode`, `style`) and `text`.
public struct RawHTMLInlineNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "rawhtml-inline"
    public var role: NodeRole { .text }
    public var fields: [FieldSpec] { TextFields.common }

    public func validate(_ node: Node) throws(NodeValidationError) {
        try TextFields.validate(node)
    }
}

/// Footnote definitions (cmark-gfm's footnotes): `footnote`, a block holding blocks, with its
/// `label` (as written after `[^`). cmark-gfm moves definitions to the end of the document in
/// the order of their first reference, and drops those never referenced.
public struct FootnoteNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "footnote"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { .blocks }
    public var fields: [FieldSpec] { ElementFields.common + [FieldSpec("label", .string, default: "", required: true)] }
}

/// Footnote references: `footnote-reference`, an inline decorator (U+FFFC in the flat string)
/// with the `label` of the footnote it refers to.
public struct FootnoteReferenceNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "footnote-reference"
    public var role: NodeRole { .decorator(inline: true) }
    public var fields: [FieldSpec] { [FieldSpec("label", .string, default: "", required: true)] }
}

/// The markup mappings of the markdown plugin's node types.
public enum MarkdownNodeMappings {
    /// A raw HTML block is a `rawhtml` node.
    public static let htmlBlock = FixedIntentMapping(RawHTMLBlockNodePlugin.type, intent: .block(.htmlBlock))

    /// Inline raw HTML is a `rawhtml-inline` node whose text is the HTML.
    public struct HTMLInline: MarkupNodeMapping {
        public init() {}
        public var nodeType: NodeType { RawHTMLInlineNodePlugin.type }
        public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
            if case .inline(.html) = intent { return [:] }
            return nil
        }
        public func intent(of node: Node) -> MarkupIntent { .inline(.html(node.text)) }
    }

    /// A footnote definition is a `footnote` node with its label.
    public struct Footnote: MarkupNodeMapping {
        public init() {}
        public var nodeType: NodeType { FootnoteNodePlugin.type }
        public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
            if case .block(.footnoteDefinition(let label)) = intent { return ["label": .string(label)] }
            return nil
        }
        public func intent(of node: Node) -> MarkupIntent { .block(.footnoteDefinition(label: node.fields["label"]?.stringValue ?? "")) }
    }

    /// A footnote reference is a `footnote-reference` node with its label.
    public struct FootnoteReference: MarkupNodeMapping {
        public init() {}
        public var nodeType: NodeType { FootnoteReferenceNodePlugin.type }
        public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
            if case .inline(.footnoteReference(let label)) = intent { return ["label": .string(label)] }
            return nil
        }
        public func intent(of node: Node) -> MarkupIntent { .inline(.footnoteReference(label: node.fields["label"]?.stringValue ?? "")) }
    }

    /// Every mapping, as the plugin contributes them.
    public static var all: [any MarkupNodeMapping] { [htmlBlock, HTMLInline(), Footnote(), FootnoteReference()] }
}
