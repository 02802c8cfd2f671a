import QuireEditor
import QuireModel

/// Markdown typed as you go, as Lexical's markdown shortcuts: at the start of a paragraph,
/// `# ` … `###### ` make a heading, `- `, `* ` or `+ ` a bullet list, `1. ` a numbered list
/// (starting at the number typed), `[ ] `, `[x] ` or `- [ ] ` a check list, `> ` a quote,
/// "```" (with a language) and a space a code block, `--- ` a horizontal rule; inline,
/// `**bold**`, `*italic*`, `` `code` `` and `~~strike~~` become formats when the closing mark
/// is typed.
///
/// Install it on an editor whose configuration has the plugins the shortcuts make (heading,
/// list, quote, code, horizontal rule); a shortcut whose node type or command is missing leaves
/// the text as typed. Only the user's typing triggers it (a local commit tagged "typing" that
/// added one character before the caret), never a paste, an undo or a remote change. The
/// conversion is its own commit, so one undo gives back the characters as typed.
public struct MarkdownShortcuts: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [registrar.registerFollowUp { update, editor in Self.followUp(update, editor) }]
    }

    /// The tag of a shortcut's commit.
    public static let tag = "markdownShortcut"

    static func followUp(_ update: EditorUpdate, _ editor: Editor) {
        guard update.transaction.origin == .local, update.transaction.tag == "typing",
              let typed = TypedCharacter(update) else { return }
        do {
            if typed.character == " ", try blockShortcut(typed, editor) { return }
            if "*`~".contains(typed.character) { try inlineShortcut(typed, editor) }
        } catch {
            // The shortcut's own commit failed and committed nothing: the error listeners were
            // told by that commit, and the text stays as typed.
        }
    }

    /// The character the commit typed, where the caret is after it.
    struct TypedCharacter {
        let state: EditorState
        let block: NodeKey
        let textNode: NodeKey
        /// The caret's UTF-16 offset in the text node.
        let offset: Int
        let character: Character
        /// The block's text before the caret, when the block holds only text nodes.
        let blockPrefix: String?

        init?(_ update: EditorUpdate) {
            let state = update.state
            guard let selection = state.selection, selection.isCollapsed, selection.anchor.kind == .text,
                  let node = state[selection.anchor.key], node.role == .text, let block = node.parent,
                  selection.anchor.offset > 0 else { return nil }
            let units = Array(node.text.utf16)
            let offset = selection.anchor.offset
            guard offset <= units.count, let scalar = Unicode.Scalar(units[offset - 1]) else { return nil }
            // One character typed: the text node grew by exactly it (a node the commit created
            // holds only it).
            let before = update.previousState[node.key]?.text ?? ""
            let without = String(decoding: units[..<(offset - 1)] + units[offset...], as: UTF16.self)
            guard before == without else { return nil }
            self.state = state
            self.block = block
            textNode = node.key
            self.offset = offset
            character = Character(scalar)
            var prefix: String? = ""
            for child in state.children(of: block) {
                guard child.role == .text else { prefix = nil; break }
                if child.key == node.key {
                    prefix! += String(decoding: units[..<offset], as: UTF16.self)
                    break
                }
                prefix! += child.text
            }
            blockPrefix = prefix
        }
    }

    // MARK: Block shortcuts

    /// What a paragraph-start pattern makes.
    enum BlockAction: Equatable {
        case heading(Int), quote, code(String?), list(String, start: Int), horizontalRule
    }

    /// The action for the text before the caret (the space included), if it is a pattern.
    static func blockAction(for prefix: String) -> BlockAction? {
        guard prefix.hasSuffix(" ") else { return nil }
        let marker = String(prefix.dropLast())
        switch marker {
        case "-", "*", "+": return .list("bullet", start: 1)
        case "[ ]", "[]", "- [ ]": return .list("check", start: 1)
        case "[x]", "- [x]": return .list("check", start: 1)
        case ">": return .quote
        case "---", "***", "___": return .horizontalRule
        default: break
        }
        if marker.count <= 6, !marker.isEmpty, marker.allSatisfy({ $0 == "#" }) { return .heading(marker.count) }
        if marker.hasPrefix("```"), marker.dropFirst(3).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "+" }) {
            let language = String(marker.dropFirst(3))
            return .code(language.isEmpty ? nil : language)
        }
        if marker.hasSuffix("."), let number = Int(marker.dropLast()), number >= 0, marker.count <= 10 {
            return .list("number", start: number)
        }
        return nil
    }

    static func blockShortcut(_ typed: TypedCharacter, _ editor: Editor) throws(EditorError) -> Bool {
        let state = typed.state
        guard let prefix = typed.blockPrefix, let action = blockAction(for: prefix),
              let block = state[typed.block], block.type == .paragraph, block.parent == .root,
              let first = state.children(of: typed.block).first else { return false }
        let commands = Set(editor.scriptableCommandNames)
        let available: Bool = switch action {
        case .heading: state.registry.contains("heading")
        case .quote: state.registry.contains("quote")
        case .code: state.registry.contains("code")
        case .list: commands.contains("list.insert")
        case .horizontalRule: commands.contains("horizontalRule.insert")
        }
        guard available else { return false }
        let start = Point.text(first.key, 0)
        let caret = Point.text(typed.textNode, typed.offset)
        try editor.update(tag: tag) { (state: inout EditorState) throws(EditorError) in
            do throws(ModelError) {
                try state.select(anchor: start, focus: caret)
                try state.deleteSelectedRange()
            } catch {
                throw .model(error)
            }
            // Dispatched inside the update: the commands' edits queue and run on this pending
            // state, after the marker is gone, in the same commit.
            switch action {
            case .heading(let level):
                try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "heading", fields: ["tag": .string("h\(level)")]))
            case .quote:
                try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "quote"))
            case .code(let language):
                try editor.dispatch(Commands.setBlocksType, BlockTemplate(type: "code", fields: ["language": language.map(JSONValue.string) ?? .null]))
            case .list(let type, let number):
                try editor.dispatch(named: "list.insert", payload: .string(type))
                if number != 1 { try editor.dispatch(named: "list.setStart", payload: .number(.integer(number))) }
            case .horizontalRule:
                try editor.dispatch(named: "horizontalRule.insert", payload: .null)
                // The rule goes after the paragraph, which the marker was all of: the rule takes its
                // place (this body queues after the insertion's, in the same commit).
                let paragraph = typed.block
                try editor.update { (state: inout EditorState) throws(ModelError) in
                    guard state.isAttached(paragraph), state.children(of: paragraph).allSatisfy({ $0.role == .text && $0.text.isEmpty }),
                          state[paragraph]?.nextSibling != nil else { return }
                    try state.remove(paragraph)
                }
            }
        }
        return true
    }

    // MARK: Inline shortcuts

    /// The marks, longest first so that `**` wins over `*`.
    static let inlineMarks: [(mark: String, format: TextFormat)] = [("**", .bold), ("~~", .strikethrough), ("*", .italic), ("`", .code)]

    /// Where an inline pattern closed by the caret lies in `text` (UTF-16 offsets): the opening
    /// mark's start, the content, the closing mark's end; nil when none closes here.
    static func inlineMatch(in units: [UInt16], caret: Int) -> (open: Int, content: Range<Int>, close: Int, format: TextFormat)? {
        let text = Array(String(decoding: units[..<caret], as: UTF16.self).utf16)
        for (mark, format) in inlineMarks {
            let markUnits = Array(mark.utf16)
            let length = markUnits.count
            guard caret >= 2 * length + 1, Array(text[(caret - length)..<caret]) == markUnits else { continue }
            let contentEnd = caret - length
            // A single mark must not be half of a double one (`**` typed halfway).
            if length == 1 && contentEnd > 0 && text[contentEnd - 1] == markUnits[0] { continue }
            guard text[contentEnd - 1] != 0x20 else { continue }
            for open in stride(from: contentEnd - length - 1, through: 0, by: -1) {
                guard Array(text[open..<(open + length)]) == markUnits else { continue }
                let contentStart = open + length
                guard contentStart < contentEnd, text[contentStart] != 0x20 else { break }
                if length == 1 && ((open > 0 && text[open - 1] == markUnits[0]) || text[contentStart] == markUnits[0]) { break }
                return (open, contentStart..<contentEnd, caret, format)
            }
        }
        return nil
    }

    static func inlineShortcut(_ typed: TypedCharacter, _ editor: Editor) throws(EditorError) {
        guard let node = typed.state[typed.textNode], node.isSimpleText, !node.textFormat.contains(.code) else { return }
        guard let match = inlineMatch(in: Array(node.text.utf16), caret: typed.offset) else { return }
        let key = typed.textNode
        try editor.update(tag: tag) { (state: inout EditorState) throws(ModelError) in
            // The closing mark first, so that the opening mark's offsets still hold.
            try state.select(anchor: .text(key, match.content.upperBound), focus: .text(key, match.close))
            try state.deleteSelectedRange()
            try state.select(anchor: .text(key, match.open), focus: .text(key, match.content.lowerBound))
            try state.deleteSelectedRange()
            // The deletion leaves the caret where the content starts; its node may be a new one
            // (a deletion at a node's start can replace the node).
            guard let start = state.selection?.anchor, start.kind == .text else { return }
            try state.select(anchor: start, focus: .text(start.key, start.offset + match.content.count))
            try state.formatText(match.format)
            // The caret after the formatted text, typing on without the format.
            guard let selection = state.selection else { return }
            // Selected forwards above, so the focus is the end.
            let end = selection.focus
            var caret = RangeSelection(caret: end)
            if let endNode = state[end.key] { caret.format = endNode.textFormat.subtracting(match.format) }
            state.selection = caret
        }
    }
}
