import QuireEditor
import QuireMarkup
import QuireModel
import QuireStyle

/// Code blocks: Lexical's `code` node with an optional `language`, holding `code-highlight` text,
/// `linebreak` and `tab` nodes (plain `text` is accepted too, as before highlighting runs).
///
/// Editing, as Lexical's `CodeNode`: Enter adds a line inside the block, copying the tabs and
/// spaces that start the caret's line; Enter with the caret after two trailing empty lines
/// (two line breaks at the block's end) removes them and leaves the block for a new paragraph;
/// Backspace at the start of a code block turns it into a paragraph of plain text
/// (`collapseAtStart`), empty or not.
public struct CodeNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "code"
    public var role: NodeRole { .element(inline: false) }
    public var childRule: ChildRule { Self.childRule }
    /// Built once: a set literal in the getter was built again on every child check.
    private static let childRule: ChildRule = .only([CodeHighlightNodePlugin.type, .text, .lineBreak, .tab])
    public var fields: [FieldSpec] {
        ElementFields.common + [FieldSpec("language", .optionalString, default: .null)]
    }

    /// Enter: a new line in the block, or out of it after two empty lines
    /// (`EditorState.insertCodeLine(in:)`).
    public func insertParagraph(in node: Node, at position: BlockSplitPosition, state: inout EditorState) throws(ModelError) -> Bool {
        try state.insertCodeLine(in: node.key)
        return true
    }

    /// Backspace at the block's start: a paragraph of plain text
    /// (`EditorState.convertCodeBlockToParagraph(_:)`).
    public func deleteBackwardAtStart(of node: Node, in state: inout EditorState) throws(ModelError) -> Bool {
        try state.convertCodeBlockToParagraph(node.key)
        return true
    }
}

/// Lexical's `code-highlight`: a text node inside a code block. Typing and deleting edit it in
/// place, as a `text` node. `highlightType` (a highlighter's token class, or null) is written
/// only when a highlighter set it, as Lexical omits it when undefined, so it is checked here
/// rather than declared as a field with a default.
public struct CodeHighlightNodePlugin: FixedTypeNodePlugin {
    public init() {}
    public static let type: NodeType = "code-highlight"
    public var role: NodeRole { .text }
    public var fields: [FieldSpec] { TextFields.common }
    public var editsTextInPlace: Bool { true }

    public func validate(_ node: Node) throws(NodeValidationError) {
        try TextFields.validate(node)
        if let highlight = node.fields["highlightType"], !FieldType.optionalString.accepts(highlight) {
            throw NodeValidationError(field: "highlightType", message: "must be a string or null, not \(highlight.typeName)")
        }
    }
}

/// The code plugin's markup mapping: a code block with its language (the info string's first word).
public struct CodeMarkupMapping: MarkupNodeMapping {
    public init() {}
    public var nodeType: NodeType { CodeNodePlugin.type }

    public func importFields(for intent: MarkupIntent, context: MarkupImportContext) -> JSONObject? {
        guard case .block(.codeBlock(let language)) = intent else { return nil }
        return ["language": language.map(JSONValue.string) ?? .null]
    }

    public func intent(of node: Node) -> MarkupIntent {
        let language = node.fields["language"]?.stringValue
        return .block(.codeBlock(language: language?.isEmpty == true ? nil : language))
    }
}

extension PluginDescriptor {
    /// The code plugin, selected as `code`: `code` and `code-highlight`, the code commands
    /// (`CodeExtension`) and attributes (`CodeAttributes.themeContribution`).
    public static let code = PluginDescriptor(
        name: "code", summary: "Code blocks with a language (Lexical `code`, `code-highlight`)", options: NoOptions.self
    ) { _ in
        ([CodeNodePlugin(), CodeHighlightNodePlugin()],
         [.markupMapping(CodeMarkupMapping()), .htmlConversion(CodeHTMLConversion()), .editor(CodeExtension()), .theme(CodeAttributes.themeContribution)])
    }
}
