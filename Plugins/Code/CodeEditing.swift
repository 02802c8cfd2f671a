import QuireEditor
import QuireModel
import QuireStyle
import QuireTextStorage

extension EditorState {
    /// Enter in a code block with a collapsed caret (the code node's `insertParagraph` hook,
    /// Lexical's `CodeNode.insertNewAfter` and `$exitCodeNodeOnEnter`):
    ///
    /// - with the caret at the block's end after two line breaks (two empty last lines), those
    ///   line breaks go and an empty paragraph after the block takes the caret;
    /// - otherwise a line break goes in at the caret, followed, when the caret is in text, by the
    ///   tabs and spaces that start the caret's line, and the caret goes after them.
    ///
    /// - Throws: `ModelError.noSelection`, or `.notAnElement` when `code` is not a block.
    /// - Complexity: O(children of the block).
    public mutating func insertCodeLine(in code: NodeKey) throws(ModelError) {
        guard let current = selection else { throw .noSelection }
        let block = try node(code)
        guard block.role.isElement else { throw .notAnElement(code) }
        let caret = current.anchor
        let index = caret.kind == .element ? caret.offset
            : (indexInParent(caret.key) ?? 0) + (caret.offset == textLength(caret.key) ? 1 : 0)
        if index == block.childCount, let last = block.lastChild, let beforeLast = self[last]?.previousSibling,
           self[last]?.role == .lineBreak, self[beforeLast]?.role == .lineBreak {
            try remove(last)
            try remove(beforeLast)
            let paragraph = try createNode(type: .paragraph)
            try insert(paragraph, after: code)
            selection = RangeSelection(caret: .element(paragraph, 0), format: current.format, style: current.style)
            return
        }
        let indentation = caret.kind == .text ? try lineIndentation(around: caret.key) : []
        var inserted: [NodeKey] = [try createNode(type: .lineBreak)]
        inserted += indentation
        var previous = index > 0 ? child(at: index - 1, of: code) : nil
        for key in inserted {
            if let previous { try insert(key, after: previous) } else { try prepend(key, to: code) }
            previous = key
        }
        let caretPoint: Point
        if let last = indentation.last {
            caretPoint = .text(last, textLength(last))
        } else if let next = self[inserted[0]]?.nextSibling, self[next]?.role == .text {
            caretPoint = .text(next, 0)
        } else {
            caretPoint = .element(code, index + 1)
        }
        selection = RangeSelection(caret: caretPoint, format: current.format, style: current.style)
    }

    /// New nodes repeating the tabs and leading spaces of the line holding `key`.
    private mutating func lineIndentation(around key: NodeKey) throws(ModelError) -> [NodeKey] {
        var first = key
        while let previous = self[first]?.previousSibling, self[previous]?.role != .lineBreak { first = previous }
        var result: [NodeKey] = []
        var current: NodeKey? = first
        while let candidate = current, let node = self[candidate] {
            if node.type == .tab {
                result.append(try createNode(type: .tab, text: "\t"))
            } else if node.type == CodeHighlightNodePlugin.type || node.type == .text {
                let spaces = node.text.prefix { $0 == " " }.count
                if spaces > 0 { result.append(try createNode(type: CodeHighlightNodePlugin.type, text: String(repeating: " ", count: spaces))) }
                if spaces != node.text.count { break }
            } else {
                break
            }
            current = node.nextSibling
        }
        return result
    }

    /// Turns a code block into a paragraph of its content, its `code-highlight` nodes becoming
    /// plain `text` with the same text (Lexical's `CodeNode.collapseAtStart`, after which
    /// highlighting stops). The selection stays on the same characters.
    ///
    /// - Complexity: O(children · log n).
    @discardableResult
    public mutating func convertCodeBlockToParagraph(_ code: NodeKey) throws(ModelError) -> NodeKey {
        let block = try node(code)
        var attempt = self
        for child in children(of: code) where child.type == CodeHighlightNodePlugin.type {
            var fields = JSONObject()
            for name in TextFields.common.map(\.name) { if let value = child.fields[name] { fields[name] = value } }
            let text = try attempt.createNode(type: .text, text: child.text, fields: fields)
            try attempt.insert(text, after: child.key)
            if var selection = attempt.selection {
                for point in [\RangeSelection.anchor, \RangeSelection.focus] where selection[keyPath: point].key == child.key {
                    selection[keyPath: point] = .text(text, selection[keyPath: point].offset)
                }
                attempt.selection = selection
            }
            try attempt.remove(child.key)
        }
        let paragraph = try attempt.replaceBlock(code, with: .paragraph(continuing: block))
        self = attempt
        return paragraph
    }

    /// Turns the selected text blocks into code blocks with `language`, or back into paragraphs
    /// when they all are code blocks already (Lexical's `$setBlocksType` with `$createCodeNode`;
    /// a code block turned back loses its highlighting). Inline elements such as links give up
    /// their text to the code and inline decorators go, as a code block holds only text, tabs
    /// and line breaks. Blocks whose parent takes no code block (list items) are left alone.
    ///
    /// - Complexity: O(selected blocks · (children + depth) · log n).
    @discardableResult
    public mutating func toggleCodeBlock(language: String? = nil) throws(ModelError) -> [NodeKey] {
        let role = NodeRole.element(inline: false)
        let eligible = try selectedTextBlocks().filter { key in
            self[key].map { parentAccepts($0, type: CodeNodePlugin.type, role: role) } ?? false
        }
        var attempt = self
        var result: [NodeKey] = []
        if !eligible.isEmpty && eligible.allSatisfy({ self[$0]?.type == CodeNodePlugin.type }) {
            for block in eligible { result.append(try attempt.convertCodeBlockToParagraph(block)) }
        } else {
            for block in eligible where attempt[block]?.type != CodeNodePlugin.type { try attempt.flattenForCode(block) }
            result = try attempt.setBlocksType(BlockTemplate(type: CodeNodePlugin.type, fields: ["language": language.map(JSONValue.string) ?? .null]))
        }
        self = attempt
        return result
    }

    /// Sets the `language` of the selected code blocks (nil for none).
    public mutating func setCodeLanguage(_ language: String?) throws(ModelError) {
        var attempt = self
        for block in try selectedTextBlocks() where attempt[block]?.type == CodeNodePlugin.type {
            try attempt.setField("language", to: language.map(JSONValue.string) ?? .null, of: block)
        }
        self = attempt
    }

    /// Leaves only what a code block holds among `block`'s children: inline elements are replaced
    /// by their children, inline decorators removed.
    private mutating func flattenForCode(_ block: NodeKey) throws(ModelError) {
        var current = self[block]?.firstChild
        while let key = current, let node = self[key] {
            switch node.role {
            case .element(inline: true):
                current = node.firstChild ?? node.nextSibling
                while let child = self[key]?.firstChild {
                    try detach(child)
                    try insert(child, before: key)
                }
                try remove(key)
            case .decorator:
                current = node.nextSibling
                try remove(key)
            default:
                current = node.nextSibling
            }
        }
        if var selection, let first = self[block]?.firstChild {
            // A point on a removed element goes to the start of the block's content.
            for point in [\RangeSelection.anchor, \RangeSelection.focus] where self[selection[keyPath: point].key] == nil {
                selection[keyPath: point] = self[first]?.role == .text ? .text(first, 0) : .element(block, 0)
            }
            self.selection = selection
        }
    }
}

/// The code commands; `CodeExtension` handles them at `.low` priority.
public enum CodeCommands {
    /// Makes the selected blocks code blocks with the language, or paragraphs when they already
    /// are (`EditorState.toggleCodeBlock(language:)`).
    public static let toggleCodeBlock = CommandType<String?>.scriptable("code.toggle", aliases: ["toggleCodeBlock"])
    /// Sets the language of the selected code blocks (`EditorState.setCodeLanguage`).
    public static let setLanguage = CommandType<String?>.scriptable("code.setLanguage", aliases: ["setCodeLanguage"])
}

/// What the code plugin adds to an editor: the `CodeCommands` handlers.
public struct CodeExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [
            try registrar.registerEdit(CodeCommands.toggleCodeBlock, priority: .low) { state, language throws(ModelError) in
                try state.toggleCodeBlock(language: language)
            },
            try registrar.registerEdit(CodeCommands.setLanguage, priority: .low) { state, language throws(ModelError) in
                try state.setCodeLanguage(language)
            },
        ]
    }
}

/// The attributes through which a view styles code: `quire.codeBlock` true on every character of
/// a code block, `quire.codeLanguage` its language when it has one, and `quire.codeHighlight` a
/// `code-highlight`'s token class when a highlighter set one.
public enum CodeAttributes {
    /// Whether the text is in a code block.
    public static let codeBlock = AttributeKey("quire.codeBlock")
    /// The code block's language.
    public static let language = AttributeKey("quire.codeLanguage")
    /// A highlighted token's class (`highlightType`).
    public static let highlight = AttributeKey("quire.codeHighlight")

    /// The code plugin's theme entries.
    public static let themeContribution = ThemeContribution(
        nodeTypes: [CodeNodePlugin.type: [codeBlock: true]],
        nodeStyles: [
            CodeNodePlugin.type: { node in node.fields["language"]?.stringValue.map { [language: .string($0)] } ?? .empty },
            CodeHighlightNodePlugin.type: { node in node.fields["highlightType"]?.stringValue.map { [highlight: .string($0)] } ?? .empty },
        ]
    )
}
