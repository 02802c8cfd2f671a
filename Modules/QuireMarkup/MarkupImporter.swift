import QuireModel

/// Turns a `MarkupDocument` into an `EditorState` through the node plugins' mappings, shaping it
/// the way Lexical's markdown import does:
///
/// - a block quote whose node takes inline content only (Lexical's `quote`) becomes one quote per
///   paragraph; other blocks inside it leave the quote;
/// - a list item whose node takes inline content (Lexical's `listitem`) gets its first paragraph's
///   inlines; a nested list becomes a following item whose only child is the list; later
///   paragraphs join the item after a hard line break; code inside an item becomes code-formatted
///   lines;
/// - a task list becomes a `check` list; table cells hold one paragraph aligned like the column;
/// - a soft line break becomes a `linebreak`; a hard one a `linebreak` with `"hard": true`;
///   adjacent text with the same format is one text node.
///
/// Intents no registered mapping takes fall back to paragraphs of their text, so nothing is
/// dropped (a thematic break without a mapping becomes the paragraph "* * *").
public struct MarkupImporter: Sendable {
    /// The mappings used.
    public let mappings: MarkupMappings

    /// An importer with `mappings`.
    public init(mappings: MarkupMappings) { self.mappings = mappings }

    /// The fields a hard line break node carries, telling it from a soft one.
    public static let hardBreakField = "hard"

    /// The document as an editor state built with `registry`.
    ///
    /// - Throws: `MarkupError.cannotImport` when a plugin refuses a node the mapping described.
    /// - Complexity: O(n) in the document's size (each node stored in O(log₃₂ n)).
    public func makeState(_ document: MarkupDocument, registry: NodeRegistry) throws(MarkupError) -> EditorState {
        var builder = Builder(state: EditorState(registry: registry), mappings: mappings)
        for block in document.blocks { try builder.block(block, into: .root) }
        try builder.flush()
        return builder.state
    }
}

private struct Builder {
    var state: EditorState
    let mappings: MarkupMappings
    /// Text waiting to be written as one node: (parent, format, text).
    var pending: (parent: NodeKey, format: TextFormat, text: String, type: NodeType)?

    init(state: EditorState, mappings: MarkupMappings) {
        self.state = state
        self.mappings = mappings
    }

    var registry: NodeRegistry { state.registry }

    func fail(_ error: ModelError, _ what: String, _ range: SourceRange?) -> MarkupError {
        .cannotImport(intent: what, reason: error.description, range: range)
    }

    mutating func create(_ type: NodeType, text: String = "", fields: JSONObject = [:], range: SourceRange?) throws(MarkupError) -> NodeKey {
        do { return try state.createNode(type: type, text: text, fields: fields) } catch { throw fail(error, type.rawValue, range) }
    }

    mutating func attach(_ key: NodeKey, to parent: NodeKey, range: SourceRange?) throws(MarkupError) {
        do { try state.append(key, to: parent) } catch { throw fail(error, state[key]?.type.rawValue ?? "node", range) }
    }

    mutating func makeBlock(_ intent: BlockIntent, context: MarkupImportContext = MarkupImportContext(), range: SourceRange?) throws(MarkupError) -> NodeKey? {
        guard let (type, fields) = mappings.importing(.block(intent), context: context, registry: registry) else { return nil }
        return try create(type, fields: fields, range: range)
    }

    func accepts(_ parent: NodeType, _ child: NodeType) -> Bool {
        guard let plugin = registry.plugin(for: parent), let childPlugin = registry.plugin(for: child) else { return false }
        return plugin.childRule.accepts(type: child, role: childPlugin.role)
    }

    // MARK: Blocks

    mutating func block(_ block: MarkupBlock, into parent: NodeKey) throws(MarkupError) {
        try flush()
        switch block.intent {
        case .paragraph, .tableCell:
            try paragraph(block.inlines, into: parent, range: block.range)
        case .heading:
            if let key = try makeBlock(block.intent, range: block.range) {
                try attach(key, to: parent, range: block.range)
                try inlines(block.inlines, into: key, format: [])
                try flush()
            } else {
                try paragraph(block.inlines, into: parent, range: block.range)
            }
        case .blockQuote:
            try quote(block, into: parent)
        case .list:
            try list(block, into: parent)
        case .listItem:
            for child in block.children { try self.block(child, into: parent) }
        case .codeBlock:
            try code(block, into: parent)
        case .htmlBlock:
            try rawParagraphs(block.literal, into: parent, range: block.range)
        case .thematicBreak:
            if let key = try makeBlock(block.intent, range: block.range) {
                try attach(key, to: parent, range: block.range)
            } else {
                try paragraph([MarkupInline(.text("* * *"))], into: parent, range: block.range)
            }
        case .table:
            try table(block, into: parent)
        case .tableRow:
            try paragraph(rowAsText(block), into: parent, range: block.range)
        }
    }

    mutating func paragraph(_ content: [MarkupInline], into parent: NodeKey, range: SourceRange?, fields: JSONObject = [:]) throws(MarkupError) {
        let key = try create(.paragraph, fields: fields, range: range)
        try attach(key, to: parent, range: range)
        try inlines(content, into: key, format: [])
        try flush()
    }

    /// Raw HTML as text: one paragraph per blank-line-separated chunk, lines joined by soft breaks.
    mutating func rawParagraphs(_ literal: String, into parent: NodeKey, range: SourceRange?) throws(MarkupError) {
        var lines = literal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var chunk: [String] = []
        for line in lines + [""] {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                if !chunk.isEmpty {
                    var content: [MarkupInline] = []
                    for (index, text) in chunk.enumerated() {
                        if index > 0 { content.append(MarkupInline(.softBreak)) }
                        content.append(MarkupInline(.text(text)))
                    }
                    try paragraph(content, into: parent, range: range)
                    chunk = []
                }
            } else {
                chunk.append(line)
            }
        }
    }

    mutating func quote(_ block: MarkupBlock, into parent: NodeKey) throws(MarkupError) {
        guard let (type, fields) = mappings.importing(.block(.blockQuote), registry: registry) else {
            for child in block.children { try self.block(child, into: parent) }
            return
        }
        if !accepts(type, .text) {
            let key = try create(type, fields: fields, range: block.range)
            try attach(key, to: parent, range: block.range)
            for child in block.children { try self.block(child, into: key) }
            return
        }
        // Lexical's quote holds inline content: one quote per paragraph, other blocks leave it.
        if block.children.isEmpty {
            try attach(try create(type, fields: fields, range: block.range), to: parent, range: block.range)
            return
        }
        for child in block.children {
            if child.intent == .paragraph {
                let key = try create(type, fields: fields, range: child.range)
                try attach(key, to: parent, range: child.range)
                try inlines(child.inlines, into: key, format: [])
                try flush()
            } else {
                try self.block(child, into: parent)
            }
        }
    }

    mutating func list(_ block: MarkupBlock, into parent: NodeKey) throws(MarkupError) {
        guard case .list(let style, _) = block.intent,
              let listKey = try makeBlock(block.intent, range: block.range) else {
            for item in block.children { try self.block(item, into: parent) }
            return
        }
        try attach(listKey, to: parent, range: block.range)
        // Item values count like Lexical's: an item holding only a nested list repeats the value.
        var value: Int = if case .ordered(let start) = style { start } else { 1 }
        for item in block.children {
            var checked: Bool?
            if case .listItem(let itemChecked) = item.intent { checked = itemChecked }
            if style == .task && checked == nil { checked = false }
            try listItem(item, checked: checked, value: &value, into: listKey)
        }
    }

    mutating func newItem(checked: Bool?, value: inout Int, holdsList: Bool, into list: NodeKey, range: SourceRange?) throws(MarkupError) -> NodeKey {
        let context = MarkupImportContext(ordinal: value)
        guard let key = try makeBlock(.listItem(checked: checked), context: context, range: range) else {
            throw .cannotImport(intent: "list item", reason: "no registered mapping takes list items", range: range)
        }
        try attach(key, to: list, range: range)
        if !holdsList { value += 1 }
        return key
    }

    mutating func listItem(_ item: MarkupBlock, checked: Bool?, value: inout Int, into list: NodeKey) throws(MarkupError) {
        guard let probe = mappings.importing(.block(.listItem(checked: checked)), context: MarkupImportContext(ordinal: value), registry: registry) else {
            for child in item.children { try block(child, into: list) }
            return
        }
        if !accepts(probe.type, .text) {
            let key = try newItem(checked: checked, value: &value, holdsList: false, into: list, range: item.range)
            for child in item.children { try block(child, into: key) }
            return
        }
        // Lexical's list item: inline content, or a single nested list.
        var current: NodeKey?
        var sawList = false
        for child in itemContent(item.children) {
            try flush()
            if case .list = child.intent {
                let holder = try newItem(checked: checked, value: &value, holdsList: true, into: list, range: child.range)
                try self.list(child, into: holder)
                current = nil
                sawList = true
                continue
            }
            if let key = current {
                try hardBreak(into: key)
                try inlines(child.inlines, into: key, format: [])
            } else {
                let key = try newItem(checked: checked, value: &value, holdsList: false, into: list, range: child.range)
                try inlines(child.inlines, into: key, format: [])
                current = key
            }
        }
        try flush()
        if current == nil && !sawList {
            _ = try newItem(checked: checked, value: &value, holdsList: false, into: list, range: item.range)
        }
    }

    /// The blocks of a list item as paragraphs of inline content or lists: code becomes
    /// code-formatted lines, quotes and other containers give their content.
    func itemContent(_ blocks: [MarkupBlock]) -> [MarkupBlock] {
        var result: [MarkupBlock] = []
        for block in blocks {
            switch block.intent {
            case .paragraph, .heading, .tableCell:
                result.append(MarkupBlock(.paragraph, inlines: block.inlines, range: block.range))
            case .list:
                result.append(block)
            case .codeBlock, .htmlBlock:
                var lines = block.literal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                // Inline content cannot start or end with a line break: edge blank lines go.
                while lines.last == "" { lines.removeLast() }
                while lines.first == "" { lines.removeFirst() }
                var content: [MarkupInline] = []
                for (index, line) in lines.enumerated() {
                    if index > 0 { content.append(MarkupInline(.lineBreak)) }
                    if !line.isEmpty {
                        content.append(block.intent == .htmlBlock ? MarkupInline(.text(line)) : MarkupInline(.code(line)))
                    }
                }
                if !content.isEmpty { result.append(MarkupBlock(.paragraph, inlines: content, range: block.range)) }
            case .thematicBreak:
                result.append(MarkupBlock(.paragraph, inlines: [MarkupInline(.text("* * *"))], range: block.range))
            case .table:
                for row in block.children { result.append(MarkupBlock(.paragraph, inlines: rowAsText(row), range: row.range)) }
            case .tableRow:
                result.append(MarkupBlock(.paragraph, inlines: rowAsText(block), range: block.range))
            case .blockQuote, .listItem:
                result += itemContent(block.children)
            }
        }
        return result
    }

    func rowAsText(_ row: MarkupBlock) -> [MarkupInline] {
        var content: [MarkupInline] = []
        for (index, cell) in row.children.enumerated() {
            if index > 0 { content.append(MarkupInline(.text(" | "))) }
            content += cell.inlines
        }
        return content
    }

    mutating func code(_ block: MarkupBlock, into parent: NodeKey) throws(MarkupError) {
        guard let key = try makeBlock(block.intent, range: block.range) else {
            try paragraph(itemContent([block]).first?.inlines ?? [], into: parent, range: block.range)
            return
        }
        try attach(key, to: parent, range: block.range)
        let textType: NodeType = registry.contains("code-highlight") && accepts(state[key]!.type, "code-highlight") ? "code-highlight" : .text
        var literal = Substring(block.literal)
        if literal.hasSuffix("\n") { literal = literal.dropLast() }
        guard !block.literal.isEmpty else { return }
        for (index, line) in literal.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { try attach(try create(.lineBreak, range: block.range), to: key, range: block.range) }
            if !line.isEmpty { try attach(try create(textType, text: String(line), range: block.range), to: key, range: block.range) }
        }
    }

    mutating func table(_ block: MarkupBlock, into parent: NodeKey) throws(MarkupError) {
        guard let tableKey = try makeBlock(block.intent, range: block.range) else {
            for row in block.children { try paragraph(rowAsText(row), into: parent, range: row.range) }
            return
        }
        try attach(tableKey, to: parent, range: block.range)
        for row in block.children {
            guard let rowKey = try makeBlock(row.intent, range: row.range) else {
                throw .cannotImport(intent: "table row", reason: "no registered mapping takes table rows", range: row.range)
            }
            try attach(rowKey, to: tableKey, range: row.range)
            let isHeader = row.intent == .tableRow(isHeader: true)
            for cell in row.children {
                guard let cellKey = try makeBlock(cell.intent, context: MarkupImportContext(isHeader: isHeader), range: cell.range) else {
                    throw .cannotImport(intent: "table cell", reason: "no registered mapping takes table cells", range: cell.range)
                }
                try attach(cellKey, to: rowKey, range: cell.range)
                var fields: JSONObject = [:]
                if case .tableCell(_, let alignment) = cell.intent, alignment != .none {
                    fields["format"] = .string(alignment.rawValue)
                }
                try paragraph(cell.inlines, into: cellKey, range: cell.range, fields: fields)
            }
        }
    }

    // MARK: Inlines

    mutating func flush() throws(MarkupError) {
        guard let text = pending else { return }
        pending = nil
        var fields: JSONObject = [:]
        if !text.format.isEmpty { fields["format"] = .number(.integer(text.format.rawValue)) }
        let key = try create(text.type, text: text.text, fields: fields, range: nil)
        try attach(key, to: text.parent, range: nil)
    }

    mutating func text(_ string: String, format: TextFormat, into parent: NodeKey) throws(MarkupError) {
        guard !string.isEmpty else { return }
        if let current = pending, current.parent == parent, current.format == format {
            pending!.text += string
            return
        }
        try flush()
        pending = (parent, format, string, .text)
    }

    mutating func hardBreak(into parent: NodeKey) throws(MarkupError) {
        try flush()
        let key = try create(.lineBreak, fields: [MarkupImporter.hardBreakField: .bool(true)], range: nil)
        try attach(key, to: parent, range: nil)
    }

    mutating func inlines(_ content: [MarkupInline], into parent: NodeKey, format: TextFormat) throws(MarkupError) {
        for inline in content {
            switch inline.intent {
            case .text(let string), .html(let string):
                try text(string, format: format, into: parent)
            case .code(let string):
                try text(string, format: format.union(.code), into: parent)
            case .softBreak:
                try flush()
                try attach(try create(.lineBreak, range: inline.range), to: parent, range: inline.range)
            case .lineBreak:
                try hardBreak(into: parent)
            case .emphasis:
                try inlines(inline.children, into: parent, format: format.union(.italic))
            case .strong:
                try inlines(inline.children, into: parent, format: format.union(.bold))
            case .strikethrough:
                try inlines(inline.children, into: parent, format: format.union(.strikethrough))
            case .link:
                guard let (type, fields) = mappings.importing(.inline(inline.intent), registry: registry),
                      accepts(state[parent]!.type, type) else {
                    try inlines(inline.children, into: parent, format: format)
                    continue
                }
                try flush()
                let key = try create(type, fields: fields, range: inline.range)
                try attach(key, to: parent, range: inline.range)
                try inlines(inline.children, into: key, format: format)
                try flush()
            case .image:
                let alt = inline.children.map(\.plainText).joined()
                guard let (type, fields) = mappings.importing(.inline(inline.intent), context: MarkupImportContext(plainText: alt), registry: registry),
                      accepts(state[parent]!.type, type) else {
                    try text(alt, format: format, into: parent)
                    continue
                }
                try flush()
                try attach(try create(type, fields: fields, range: inline.range), to: parent, range: inline.range)
            }
        }
    }
}
