/// Typing and inserting text at the selection.
///
/// Part of Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Inserting text

    /// Inserts what a text view sends for typed or pasted text: "\n", "\r\n" and U+2029 start a
    /// new paragraph, U+2028 inserts a line break, everything else is text.
    ///
    /// A paste of many paragraphs splits the block once and inserts the middle paragraphs as new
    /// blocks, so its cost is linear in what is pasted.
    public mutating func insertInput(_ input: String) throws(ModelError) {
        let lines = Self.inputLines(input)
        try insertLine(lines[0])
        guard lines.count > 1 else { return }
        try insertParagraph()
        // The caret is now at the start of the block that holds what followed it; the middle
        // lines become paragraphs in front of that block, built as one batch.
        let selection = try requireSelection()
        let tail = block(containing: selection.anchor.key)
        if lines.count > 2, let parent = self[tail]?.parent {
            let template = pastedLineTemplate(before: tail)
            // A field at the text type's default is left out: each line's node then takes it from
            // the defaults (the same node) without checking and writing it again.
            let defaults = registry.fieldTable(for: .text)?.defaults
            var lineFields = JSONObject()
            for (name, value) in textFields(selection) where defaults?[name] != value { lineFields[name] = value }
            var batch = makeBatch()
            var paragraphs: [NodeKey] = []
            paragraphs.reserveCapacity(lines.count - 2)
            for line in lines.dropFirst().dropLast() {
                let paragraph = try batch.create(type: template.type, fields: template.fields)
                try Self.appendLine(line, to: paragraph, in: &batch, fields: lineFields)
                paragraphs.append(paragraph)
            }
            try insert(consume batch, roots: paragraphs, under: parent, after: self[tail]?.previousSibling)
        }
        try insertLine(lines[lines.count - 1])
    }

    /// The lines of input: "\n", "\r\n", "\r" and U+2029 end one (a line may hold U+2028).
    ///
    /// - Complexity: O(n) in the input's length, scanned as UTF-8 bytes: line ends are ASCII or
    ///   U+2029 (E2 80 A9), and no other scalar's bytes contain those sequences.
    static func inputLines(_ input: String) -> [String] {
        var text = input
        return text.withUTF8 { bytes in
            var lines: [String] = []
            var start = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                var end = index + 1
                if byte == 0x0D, end < bytes.count, bytes[end] == 0x0A {
                    end += 1
                } else if byte == 0xE2, end + 1 < bytes.count, bytes[end] == 0x80, bytes[end + 1] == 0xA9 {
                    end += 2
                } else if byte != 0x0A && byte != 0x0D {
                    index = end
                    continue
                }
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = end
                index = end
            }
            lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return lines
        }
    }

    /// The block a pasted middle line becomes in front of `tail`: a paragraph, or, where the
    /// tail's parent takes no paragraphs (a list takes only list items), the block the tail's
    /// plugin makes when it is split in the middle.
    func pastedLineTemplate(before tail: NodeKey) -> BlockTemplate {
        guard let tailNode = self[tail], let parent = tailNode.parent.flatMap({ self[$0] }),
              let parentPlugin = plugin(of: parent), let tailPlugin = plugin(of: tailNode),
              !parentPlugin.childRule.accepts(type: .paragraph, role: .element(inline: false)) else {
            return BlockTemplate(type: .paragraph)
        }
        return tailPlugin.blockAfterSplit(of: tailNode, at: .middle)
    }

    /// Inserts one line of input at the selection: text, with U+2028 as line breaks.
    private mutating func insertLine(_ line: String) throws(ModelError) {
        var pending = ""
        for character in line {
            if character == "\u{2028}" {
                try insertText(pending)
                pending = ""
                try insertLineBreak()
            } else {
                pending.append(character)
            }
        }
        try insertText(pending)
    }

    /// Fills an empty block of `batch` with one line of input: text nodes with `fields`, and a
    /// line break for each U+2028.
    private static func appendLine(_ line: String, to block: NodeKey, in batch: inout NodeBatch, fields: JSONObject) throws(ModelError) {
        let pieces = line.unicodeScalars.contains("\u{2028}")
            ? line.unicodeScalars.split(separator: "\u{2028}", omittingEmptySubsequences: false).map { String($0) }
            : [line]
        for (index, piece) in pieces.enumerated() {
            if index > 0 { try batch.append(try batch.create(type: .lineBreak), to: block) }
            if !piece.isEmpty { try batch.append(try batch.create(type: .text, text: piece, fields: fields), to: block) }
        }
    }

    /// Replaces the selection with `text` in the selection's format and style.
    ///
    /// Typing at a different format than the text node's starts a new text node; typing at the
    /// edge of a token or segmented node (or a tab) goes into a neighbouring text node; typing
    /// inside a segmented node turns it into normal text, as in Lexical. Typing inside a token
    /// places the text after the token.
    public mutating func insertText(_ text: String) throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        guard !text.isEmpty else { return }
        try makeTextBlockAtCaret()
        selection = try requireSelection()
        let caret = selection.anchor
        let length = text.utf16.count
        switch caret.kind {
        case .element:
            let key = try createNode(type: .text, text: text, fields: textFields(selection))
            try insertChild(key, at: Boundary(parent: caret.key, index: caret.offset))
            self.selection = RangeSelection(caret: .text(key, length), format: selection.format, style: selection.style)
        case .text:
            let node = try node(caret.key)
            let textLength = node.text.utf16.count
            if let (outermost, before) = inlineEdgeRefusingText(at: caret) {
                try insertText(text, beside: outermost, before: before, selection: selection)
                return
            }
            let isPlain = editsTextInPlace(node)
            if !isPlain || node.textMode == .token {
                try insertText(text, beside: caret.key, before: caret.offset == 0, selection: selection)
                return
            }
            if node.textMode == .segmented {
                try setField("mode", to: .string(TextMode.normal.rawValue), of: caret.key)
            }
            if node.textFormat != selection.format || node.textStyle != selection.style {
                if textLength == 0 {
                    try setField("format", to: .number(.integer(selection.format.rawValue)), of: caret.key)
                    try setField("style", to: .string(selection.style), of: caret.key)
                } else {
                    let key = try createNode(type: .text, text: text, fields: textFields(selection))
                    try insertChild(key, at: try boundary(at: caret))
                    self.selection = RangeSelection(caret: .text(key, length), format: selection.format, style: selection.style)
                    return
                }
            }
            try spliceText(caret.key, at: caret.offset, deleting: 0, inserting: text)
            self.selection = RangeSelection(caret: .text(caret.key, caret.offset + length), format: selection.format, style: selection.style)
        }
    }

    /// Inserts `text` just before (or after) `key`: a neighbouring plain text node of the
    /// selection's format takes it, otherwise a new text node does; the caret follows the text.
    private mutating func insertText(_ text: String, beside key: NodeKey, before: Bool, selection: RangeSelection) throws(ModelError) {
        let length = text.utf16.count
        let node = try node(key)
        let neighbour = before ? node.previousSibling : node.nextSibling
        if let neighbour, let other = self[neighbour], other.isSimpleText,
           other.textFormat == selection.format, other.textStyle == selection.style {
            let offset = before ? other.text.utf16.count : 0
            try spliceText(neighbour, at: offset, deleting: 0, inserting: text)
            self.selection = RangeSelection(caret: .text(neighbour, offset + length), format: selection.format, style: selection.style)
        } else {
            let created = try createNode(type: .text, text: text, fields: textFields(selection))
            if before { try insert(created, before: key) } else { try insert(created, after: key) }
            self.selection = RangeSelection(caret: .text(created, length), format: selection.format, style: selection.style)
        }
    }

    /// Lexical's `canInsertTextBefore` / `canInsertTextAfter`: with the caret at the very end (or
    /// start) of the content of inline elements that refuse text there (a link), the outermost such
    /// element, and whether the text goes before it.
    ///
    /// - Complexity: O(depth).
    func inlineEdgeRefusingText(at caret: Point) -> (element: NodeKey, before: Bool)? {
        guard caret.kind == .text, let node = self[caret.key] else { return nil }
        // The end wins for an empty text node, as in Lexical.
        let before: Bool
        if caret.offset == node.text.utf16.count { before = false } else if caret.offset == 0 { before = true } else { return nil }
        var edge = caret.key
        var refusing: NodeKey?
        while let current = self[edge], let parentKey = current.parent, let parent = self[parentKey],
              parent.role == .element(inline: true), (before ? current.previousSibling : current.nextSibling) == nil {
            if let plugin = plugin(of: parent), !(before ? plugin.canInsertTextBefore : plugin.canInsertTextAfter) {
                refusing = parentKey
            }
            edge = parentKey
        }
        return refusing.map { ($0, before) }
    }

    /// With a collapsed caret between blocks (beside a horizontal rule, or in an empty document),
    /// makes an empty paragraph there and puts the caret in it, so that typing has a block to go
    /// into, and returns true. Where no paragraph may go (an empty table row), the caret moves to
    /// the nearest text block instead and it returns false; callers read the selection again.
    @discardableResult
    mutating func makeTextBlockAtCaret() throws(ModelError) -> Bool {
        guard let selection, selection.isCollapsed, selection.anchor.kind == .element,
              let container = self[selection.anchor.key], isBlockContainer(container) else { return false }
        guard plugin(of: container)?.childRule.accepts(type: .paragraph, role: .element(inline: false)) == true else {
            if let caret = textPosition(atContainerPoint: selection.anchor, isStart: false) {
                self.selection = RangeSelection(caret: caret, format: selection.format, style: selection.style)
            }
            return false
        }
        let paragraph = try createNode(type: .paragraph)
        try insertChild(paragraph, at: Boundary(parent: container.key, index: selection.anchor.offset))
        self.selection = RangeSelection(caret: .element(paragraph, 0), format: selection.format, style: selection.style)
        return true
    }

    /// Whether typing and deletion change the node's text in place (its plugin's
    /// `editsTextInPlace`; never for unknown nodes).
    func editsTextInPlace(_ node: Node) -> Bool {
        node.role == .text && !node.isUnknown && (plugin(of: node)?.editsTextInPlace ?? false)
    }

    func textFields(_ selection: RangeSelection) -> JSONObject {
        ["format": .number(.integer(selection.format.rawValue)), "style": .string(selection.style)]
    }

    /// Inserts a detached inline node at a boundary, lifting it out of nothing: the boundary must
    /// be in an element that accepts the node.
    mutating func insertChild(_ key: NodeKey, at boundary: Boundary) throws(ModelError) {
        if boundary.index == 0 {
            try prepend(key, to: boundary.parent)
        } else if let before = child(at: boundary.index - 1, of: boundary.parent) {
            try insert(key, after: before)
        } else {
            try append(key, to: boundary.parent)
        }
    }
}
