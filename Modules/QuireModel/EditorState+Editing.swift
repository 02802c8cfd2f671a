/// Lexical's RangeSelection operations, applied to a (pending) state and its selection.
///
/// Every operation either completes or throws before writing, or throws from a check that runs
/// before its first write, so a failed operation leaves the state as it was. Offsets are UTF-16
/// units; deletions work on grapheme clusters, so a family emoji, a flag or a skin-toned thumb is
/// deleted whole.
extension EditorState {
    // MARK: Selection helpers

    /// The selection, or `ModelError.noSelection`.
    func requireSelection() throws(ModelError) -> RangeSelection {
        guard let selection else { throw .noSelection }
        try validate(selection.anchor)
        try validate(selection.focus)
        return selection
    }

    /// The selection's points in document order.
    public func orderedSelectionPoints() throws(ModelError) -> (start: Point, end: Point) {
        let selection = try requireSelection()
        return compare(selection.anchor, selection.focus) <= 0
            ? (selection.anchor, selection.focus) : (selection.focus, selection.anchor)
    }

    /// Places a caret.
    public mutating func select(_ point: Point) throws(ModelError) {
        try validate(point)
        let format = self[point.key].flatMap { $0.role == .text ? $0.textFormat : nil } ?? selection?.format ?? []
        let style = self[point.key].flatMap { $0.role == .text ? $0.textStyle : nil } ?? selection?.style ?? ""
        selection = RangeSelection(caret: point, format: format, style: style)
    }

    /// Selects from `anchor` to `focus`.
    public mutating func select(anchor: Point, focus: Point) throws(ModelError) {
        try validate(anchor)
        try validate(focus)
        let format = self[anchor.key].flatMap { $0.role == .text ? $0.textFormat : nil } ?? selection?.format ?? []
        selection = RangeSelection(anchor: anchor, focus: focus, format: format, style: selection?.style ?? "")
    }

    /// A caret point for a boundary: the end of the text before it, else the start of the text
    /// after it, else the element point itself.
    ///
    /// - Complexity: O(index) to find the children beside the boundary.
    public func caretPoint(at boundary: Boundary) -> Point {
        if boundary.index > 0, let before = child(at: boundary.index - 1, of: boundary.parent), let node = self[before] {
            if node.role == .text { return .text(before, textLength(before)) }
        }
        if let after = child(at: boundary.index, of: boundary.parent), self[after]?.role == .text {
            return .text(after, 0)
        }
        return .element(boundary.parent, boundary.index)
    }

    // MARK: Splitting

    /// Splits a text node at a UTF-16 offset strictly inside it; returns the new right half.
    mutating func splitText(_ key: NodeKey, at offset: Int) throws(ModelError) -> NodeKey {
        let node = try node(key)
        let utf16 = node.text.utf16
        let index = utf16.index(utf16.startIndex, offsetBy: offset)
        let right = createUnchecked(copying: node, text: String(node.text[index...]))
        try setText(String(node.text[..<index]), of: key)
        try insert(right, after: key)
        return right
    }

    /// A new detached node with the same type, role and fields as `node`.
    mutating func createUnchecked(copying node: Node, text: String = "") -> NodeKey {
        if node.isUnknown {
            return createUnknownNode(type: node.type, role: node.role, text: text, fields: node.fields)
        }
        let copy = Node(key: allocateKey(), type: node.type, role: node.role, isUnknown: false, text: text, fields: node.fields)
        storeImported(copy)
        return copy.key
    }

    /// The boundary at a point, splitting the text node the point is inside.
    mutating func boundary(at point: Point) throws(ModelError) -> Boundary {
        try validate(point)
        switch point.kind {
        case .element:
            return Boundary(parent: point.key, index: point.offset)
        case .text:
            let node = try node(point.key)
            guard let parent = node.parent, let index = indexInParent(point.key) else {
                throw .invalidPoint(point, reason: "the node is not in the document")
            }
            if point.offset == 0 { return Boundary(parent: parent, index: index) }
            if point.offset == node.text.utf16.count { return Boundary(parent: parent, index: index + 1) }
            _ = try splitText(point.key, at: point.offset)
            return Boundary(parent: parent, index: index + 1)
        }
    }

    /// Splits inline elements between a boundary and its block so that the boundary sits directly
    /// in the block; returns that block-level boundary.
    mutating func liftBoundary(_ boundary: Boundary) throws(ModelError) -> Boundary {
        var current = boundary
        while let parent = self[current.parent], parent.role == .element(inline: true), let grandparent = parent.parent,
              let parentIndex = indexInParent(parent.key) {
            if current.index == 0 {
                current = Boundary(parent: grandparent, index: parentIndex)
            } else if current.index >= parent.childCount {
                current = Boundary(parent: grandparent, index: parentIndex + 1)
            } else {
                let right = createUnchecked(copying: parent)
                try moveChildren(of: parent.key, from: current.index, to: right, at: 0)
                try insert(right, after: parent.key)
                current = Boundary(parent: grandparent, index: parentIndex + 1)
            }
        }
        return current
    }

    /// Moves the children of `source` from `start` on to `target`, before its child `index`; their
    /// keys survive.
    ///
    /// - Throws: `ModelError.childNotAccepted` when `target` does not take one of them (or
    ///   `target` is inside a moved child); nothing is moved then.
    /// - Complexity: O(start + index + moved · log₃₂ n).
    public mutating func moveChildren(of source: NodeKey, from start: Int, to target: NodeKey, at index: Int) throws(ModelError) {
        var moving: [NodeKey] = []
        var current = child(at: start, of: source)
        while let key = current {
            moving.append(key)
            current = self[key]?.nextSibling
        }
        guard !moving.isEmpty else { return }
        var attempt = self
        var anchor = index > 0 ? attempt.child(at: index - 1, of: target) : nil
        for key in moving {
            try attempt.detach(key)
            if let previous = anchor { try attempt.insert(key, after: previous) } else { try attempt.prepend(key, to: target) }
            anchor = key
        }
        self = attempt
    }

    // MARK: Deleting the selection

    /// Deletes the selected content, merging the blocks at its ends, and collapses the selection
    /// to where it was. Does nothing for a collapsed selection.
    public mutating func removeSelectedText() throws(ModelError) {
        var (start, end) = try orderedSelectionPoints()
        guard start != end else { return }
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        let startSide = blockDecoratorSide(of: start)
        let endSide = blockDecoratorSide(of: end)
        if startSide != nil || endSide != nil {
            try removeBesideBlockDecorators(start, end, startSide: startSide, endSide: endSide)
            return
        }
        // An end between blocks (not beside a decorator) moves into the text block there, so that
        // the deletion below only ever sees boundaries inside text blocks.
        start = textPosition(atContainerPoint: start) ?? start
        end = textPosition(atContainerPoint: end, isStart: false) ?? end
        guard compare(start, end) < 0 else {
            selection = RangeSelection(caret: start, format: format, style: style)
            return
        }
        let (startBoundary, endBoundary) = try splitBoundaries(start, end, lift: true)
        let caret = isolatingAncestor(of: startBoundary.parent) == isolatingAncestor(of: endBoundary.parent)
            ? try deleteBetween(startBoundary, endBoundary)
            : try deleteInsideBlocks(startBoundary, endBoundary)
        selection = RangeSelection(caret: caret, format: format, style: style)
        try normalizeText(around: caret)
    }

    /// Whether `node` holds blocks rather than inline content (the root, a table cell, an empty
    /// container), so that an element point in it sits between blocks.
    ///
    /// - Complexity: O(1).
    public func isBlockContainer(_ node: Node) -> Bool {
        node.role == .root || (node.role == .element(inline: false) && !isTextBlock(node))
    }

    /// For an element point between blocks, the caret where the flat string continues: the start
    /// of the first text block from child `offset` on, else the end of the last one before it —
    /// or, in a container holding no text block (a table row whose cells span in from above), the
    /// nearest text block after it for a start and before it for an end. Nil for any other point.
    func textPosition(atContainerPoint point: Point, isStart: Bool = true) -> Point? {
        guard point.kind == .element, let container = self[point.key], isBlockContainer(container) else { return nil }
        if let next = child(at: point.offset, of: point.key),
           let block = firstTextBlock(in: next, crossingBoundaries: true) ?? nextTextBlock(after: next, crossingBoundaries: true) {
            return startPoint(of: block)
        }
        if let previous = child(at: point.offset - 1, of: point.key) {
            if let block = lastTextBlock(in: previous, crossingBoundaries: true) ?? previousTextBlock(before: previous, crossingBoundaries: true) {
                return endPoint(of: block)
            }
        } else if container.childCount == 0, container.role != .root {
            let block = isStart
                ? nextTextBlock(after: container.key, crossingBoundaries: true) ?? previousTextBlock(before: container.key, crossingBoundaries: true)
                : previousTextBlock(before: container.key, crossingBoundaries: true) ?? nextTextBlock(after: container.key, crossingBoundaries: true)
            if let block {
                return compare(startPoint(of: block), point) >= 0 ? startPoint(of: block) : endPoint(of: block)
            }
        }
        return nil
    }

    /// For a selection end between blocks right beside a block decorator (a horizontal rule): the
    /// decorator and whether the end is after it. Nil for any other point.
    func blockDecoratorSide(of point: Point) -> (decorator: NodeKey, isAfter: Bool)? {
        guard point.kind == .element, let container = self[point.key], isBlockContainer(container) else { return nil }
        if let previous = child(at: point.offset - 1, of: point.key), self[previous]?.role == .decorator(inline: false) {
            return (previous, true)
        }
        if let next = child(at: point.offset, of: point.key), self[next]?.role == .decorator(inline: false) {
            return (next, false)
        }
        return nil
    }

    /// Deletes a range with an end beside a block decorator. The decorators wholly inside the
    /// range go, the text between goes as it always does, and a decorator never merges: a range
    /// holding nothing but the separator beside one (Backspace right after a horizontal rule,
    /// Delete right before it) removes that decorator instead.
    ///
    /// - Complexity: O(depth · siblings) to order the ends, plus the deletion itself.
    mutating func removeBesideBlockDecorators(
        _ start: Point, _ end: Point, startSide: (decorator: NodeKey, isAfter: Bool)?, endSide: (decorator: NodeKey, isAfter: Bool)?
    ) throws(ModelError) {
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        // The text just inside the range, past the decorators at its ends.
        var innerStart: Point? = start
        if let startSide {
            innerStart = nextTextBlock(after: startSide.decorator, crossingBoundaries: true).map { startPoint(of: $0) }
        }
        var innerEnd: Point? = end
        if let endSide {
            innerEnd = previousTextBlock(before: endSide.decorator, crossingBoundaries: true).map { endPoint(of: $0) }
        }
        // Decorators at the ends that the range covers whole.
        var covered: [NodeKey] = []
        func collect(from first: NodeKey?, forward: Bool) {
            var current = first
            while let key = current, let node = self[key], node.role == .decorator(inline: false),
                  let parent = node.parent, let index = indexInParent(key) {
                if compare(start, .element(parent, index)) <= 0, compare(.element(parent, index + 1), end) <= 0, !covered.contains(key) {
                    covered.append(key)
                }
                current = forward ? node.nextSibling : node.previousSibling
            }
        }
        if let startSide { collect(from: startSide.isAfter ? self[startSide.decorator]?.nextSibling : startSide.decorator, forward: true) }
        if let endSide { collect(from: endSide.isAfter ? endSide.decorator : self[endSide.decorator]?.previousSibling, forward: false) }
        let firstCovered = covered.first.flatMap { key in self[key]?.parent.map { ($0, indexInParent(key) ?? 0) } }

        var attempt = self
        var caret: Point?
        if let innerStart, let innerEnd, attempt.compare(innerStart, innerEnd) < 0 {
            attempt.selection = RangeSelection(anchor: innerStart, focus: innerEnd, format: format, style: style)
            try attempt.removeSelectedText()
            caret = attempt.selection?.anchor
        }
        for key in covered where attempt[key] != nil && attempt.isAttached(key) {
            let parent = attempt[key]?.parent
            try attempt.remove(key)
            if let parent, let refilled = try attempt.refillIfEmpty(parent), caret == nil { caret = .element(refilled, 0) }
        }
        if caret == nil, let (parent, index) = firstCovered {
            caret = try attempt.caretWhereBlockWas(parent: parent, index: index)
        }
        if caret == nil {
            // Nothing but the separator beside a decorator: what Backspace and Delete do there.
            if let startSide, startSide.isAfter, endSide == nil, isolatingAncestor(of: startSide.decorator) == isolatingAncestor(of: end.key) {
                caret = try attempt.deleteSeparator(between: block(containing: end.key), andDecorator: startSide.decorator, blockIsAfter: true, caret: end)
            } else if let endSide, !endSide.isAfter, startSide == nil, isolatingAncestor(of: endSide.decorator) == isolatingAncestor(of: start.key) {
                caret = try attempt.deleteSeparator(between: block(containing: start.key), andDecorator: endSide.decorator, blockIsAfter: false, caret: start)
            } else if let startSide, startSide.isAfter, let parent = self[startSide.decorator]?.parent {
                // Between two decorators: the first goes, the caret stays before the second.
                let index = indexInParent(startSide.decorator) ?? 0
                try attempt.remove(startSide.decorator)
                caret = .element(parent, index)
            } else {
                caret = start
            }
        }
        attempt.selection = RangeSelection(caret: caret ?? start, format: format, style: style)
        self = attempt
    }

    /// A caret for where a removed block was, before child `index` of `parent`: the start of the
    /// next text block, else the end of the previous one, else a new empty paragraph when the
    /// container is left empty.
    ///
    /// - Complexity: O(index + depth).
    public mutating func caretWhereBlockWas(parent: NodeKey, index: Int) throws(ModelError) -> Point {
        if let next = child(at: index, of: parent) {
            return firstTextBlock(in: next, crossingBoundaries: true).map { startPoint(of: $0) } ?? .element(parent, index)
        }
        if let previous = child(at: index - 1, of: parent) {
            return lastTextBlock(in: previous, crossingBoundaries: true).map { endPoint(of: $0) } ?? .element(parent, index)
        }
        let paragraph = try createNode(type: .paragraph)
        try append(paragraph, to: parent)
        return .element(paragraph, 0)
    }

    /// Deletes the selected range the way a text view means it. A text view sends Backspace at the
    /// start of a block (and Delete at the end of the block before it) as the deletion of the
    /// "\n" between the two; a range that spans exactly that separator between two adjacent text
    /// blocks is therefore Backspace at the start of the later block, so that the block's plugin
    /// hook (`deleteBackwardAtStart`) runs: a list item outdents, an empty heading becomes a
    /// paragraph. Every other range is deleted with `removeSelectedText()`.
    ///
    /// - Complexity: O(depth + siblings walked) to recognise the separator, then the deletion's.
    public mutating func deleteSelectedRange() throws(ModelError) {
        let (start, end) = try orderedSelectionPoints()
        guard start != end else { return }
        let first = block(containing: start.key)
        let second = block(containing: end.key)
        if first != second, nextTextBlock(after: first) == second,
           adjacentBlock(of: second, backward: true).map({ self[$0]?.role != .decorator(inline: false) }) ?? false,
           isAtBlockEdge(start, of: first, atEnd: true), isAtBlockEdge(end, of: second, atEnd: false) {
            selection = RangeSelection(caret: end, format: selection?.format ?? [], style: selection?.style ?? "")
            try deleteCharacter(backward: true)
            return
        }
        try removeSelectedText()
    }

    /// Whether nothing of `block`'s content lies after (`atEnd`) or before the point.
    func isAtBlockEdge(_ point: Point, of block: NodeKey, atEnd: Bool) -> Bool {
        guard let node = self[point.key] else { return false }
        switch point.kind {
        case .text:
            guard point.offset == (atEnd ? node.text.utf16.count : 0) else { return false }
        case .element:
            guard point.offset == (atEnd ? node.childCount : 0) else { return false }
        }
        var key = point.key
        while key != block {
            guard let current = self[key], let parent = current.parent,
                  (atEnd ? current.nextSibling : current.previousSibling) == nil else { return false }
            key = parent
        }
        return true
    }

    /// Splits the document at two ordered points and returns the boundaries there, optionally
    /// lifted out of inline elements to block level.
    ///
    /// The end is split first so that the start's offsets stay valid; the end is then located by
    /// the node after it, because splitting at the start can shift its index. Plugins use it to
    /// act on exactly the selected inline nodes (wrapping them in a link, for instance).
    ///
    /// - Complexity: O(depth + siblings + text length at the two points).
    public mutating func splitBoundaries(_ start: Point, _ end: Point, lift: Bool) throws(ModelError) -> (Boundary, Boundary) {
        var endBoundary = try boundary(at: end)
        if lift { endBoundary = try liftBoundary(endBoundary) }
        let nodeAfterEnd = child(at: endBoundary.index, of: endBoundary.parent)
        var startBoundary = try boundary(at: start)
        if lift { startBoundary = try liftBoundary(startBoundary) }
        if let nodeAfterEnd, let index = indexInParent(nodeAfterEnd) {
            endBoundary.index = index
        } else {
            endBoundary.index = self[endBoundary.parent]?.childCount ?? 0
        }
        return (startBoundary, endBoundary)
    }

    /// Removes everything between two block-level boundaries; returns the caret point.
    mutating func deleteBetween(_ start: Boundary, _ end: Boundary) throws(ModelError) -> Point {
        if start.parent == end.parent {
            for _ in start.index..<max(start.index, end.index) {
                if let key = child(at: start.index, of: start.parent) { try remove(key) }
            }
            return caretPoint(at: start)
        }
        let startBlock = start.parent
        let endBlock = end.parent
        // Content after the start boundary in its block, and before the end boundary in its block.
        while let key = child(at: start.index, of: startBlock) { try remove(key) }
        for _ in 0..<end.index { if let key = self[endBlock]?.firstChild { try remove(key) } }
        // Everything strictly between the two blocks.
        let startAncestors = [startBlock] + ancestors(of: startBlock)
        let endAncestors = [endBlock] + ancestors(of: endBlock)
        guard let common = startAncestors.first(where: { endAncestors.contains($0) }) else {
            throw .invalidPoint(.element(endBlock, 0), reason: "the ends of the selection share no ancestor")
        }
        for key in startAncestors.prefix(while: { $0 != common }) {
            while let next = self[key]?.nextSibling, !endAncestors.contains(next) { try remove(next) }
        }
        for key in endAncestors.prefix(while: { $0 != common }) {
            while let previous = self[key]?.previousSibling, !startAncestors.contains(previous) { try remove(previous) }
        }
        // Join: the rest of the end block moves to the start block; emptied containers go.
        let joinIndex = self[startBlock]?.childCount ?? 0
        try moveChildren(of: endBlock, from: 0, to: startBlock, at: joinIndex)
        var emptied: NodeKey? = endBlock
        while let key = emptied, key != common, let node = self[key], node.childCount == 0 {
            emptied = node.parent
            try remove(key)
        }
        return caretPoint(at: Boundary(parent: startBlock, index: joinIndex))
    }

    /// Removes the inline content between two block-level boundaries in different editing
    /// boundaries (table cells): each text block in between is emptied, the end blocks lose the
    /// selected part, and no block is removed or merged, so a cell can never lose its place.
    /// Returns the caret point at the start.
    ///
    /// - Complexity: O(blocks + removed nodes) between the boundaries.
    mutating func deleteInsideBlocks(_ start: Boundary, _ end: Boundary) throws(ModelError) -> Point {
        var block: NodeKey? = start.parent
        while let current = block {
            let from = current == start.parent ? start.index : 0
            let isLast = current == end.parent
            let to = isLast ? end.index : self[current]?.childCount ?? 0
            for _ in from..<max(from, to) {
                if let key = child(at: from, of: current) { try remove(key) }
            }
            if isLast { break }
            block = nextTextBlock(after: current, crossingBoundaries: true)
        }
        return caretPoint(at: start)
    }

    // MARK: Inserting text

    /// Inserts what a text view sends for typed or pasted text: "\n", "\r\n" and U+2029 start a
    /// new paragraph, U+2028 inserts a line break, everything else is text.
    ///
    /// A paste of many paragraphs splits the block once and inserts the middle paragraphs as new
    /// blocks, so its cost is linear in what is pasted.
    public mutating func insertInput(_ input: String) throws(ModelError) {
        var lines: [String] = [""]
        for character in input {
            switch character {
            case "\n", "\r\n", "\r", "\u{2029}": lines.append("")
            default: lines[lines.count - 1].append(character)
            }
        }
        try insertLine(lines[0])
        guard lines.count > 1 else { return }
        try insertParagraph()
        // The caret is now at the start of the block that holds what followed it; the middle
        // lines become paragraphs in front of that block.
        let selection = try requireSelection()
        let tail = block(containing: selection.anchor.key)
        let template = pastedLineTemplate(before: tail)
        for line in lines.dropFirst().dropLast() {
            let paragraph = try createNode(type: template.type, fields: template.fields)
            try insert(paragraph, before: tail)
            try appendLine(line, to: paragraph, format: selection.format, style: selection.style)
        }
        try insertLine(lines[lines.count - 1])
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

    /// Fills an empty block with one line of input.
    private mutating func appendLine(_ line: String, to block: NodeKey, format: TextFormat, style: String) throws(ModelError) {
        let fields: JSONObject = ["format": .number(.integer(format.rawValue)), "style": .string(style)]
        for (index, piece) in line.split(separator: "\u{2028}", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { try append(try createNode(type: .lineBreak), to: block) }
            if !piece.isEmpty { try append(try createNode(type: .text, text: String(piece), fields: fields), to: block) }
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

    /// Replaces `deleting` UTF-16 units at `offset` of a text node with `inserting`.
    public mutating func spliceText(_ key: NodeKey, at offset: Int, deleting count: Int, inserting text: String) throws(ModelError) {
        let node = try node(key)
        let utf16 = node.text.utf16
        guard offset >= 0, count >= 0, offset + count <= utf16.count else {
            throw .invalidPoint(.text(key, offset), reason: "splice of \(count) units outside the text")
        }
        let start = utf16.index(utf16.startIndex, offsetBy: offset)
        let end = utf16.index(start, offsetBy: count)
        var updated = node.text
        updated.replaceSubrange(start..<end, with: text)
        try setText(updated, of: key)
    }

    // MARK: Paragraphs and line breaks

    /// Splits the block at the caret (Enter). At the start of a non-empty block an empty block
    /// goes before it and the caret stays with the text; at the end a new block follows; in the
    /// middle the block is split. The new block's type comes from the block's plugin.
    public mutating func insertParagraph() throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        // Between blocks, Enter makes one empty paragraph there.
        if try makeTextBlockAtCaret() { return }
        selection = try requireSelection()
        let split = try liftBoundary(try boundary(at: selection.anchor))
        let blockNode = try node(split.parent)
        guard blockNode.role == .element(inline: false), blockNode.parent != nil else {
            throw .invalidPoint(selection.anchor, reason: "Enter needs a caret inside a block")
        }
        let position: BlockSplitPosition = split.index == 0 && blockNode.childCount > 0 ? .start
            : split.index >= blockNode.childCount ? .end : .middle
        if let plugin = plugin(of: blockNode) {
            var attempt = self
            attempt.selection = RangeSelection(caret: attempt.caretPoint(at: split), format: selection.format, style: selection.style)
            if try plugin.insertParagraph(in: blockNode, at: position, state: &attempt) {
                self = attempt
                return
            }
        }
        let template = plugin(of: blockNode)?.blockAfterSplit(of: blockNode, at: position)
            ?? (position == .middle ? BlockTemplate(type: blockNode.type, fields: blockNode.fields) : .paragraph(continuing: blockNode))
        let newBlock: NodeKey
        if registry.contains(template.type) && !(blockNode.isUnknown && template.type == blockNode.type) {
            newBlock = try createNode(type: template.type, fields: template.fields)
        } else {
            newBlock = createUnchecked(copying: blockNode)
        }
        switch position {
        case .start:
            try insert(newBlock, before: blockNode.key)
            self.selection = RangeSelection(caret: caretPoint(at: Boundary(parent: blockNode.key, index: 0)), format: selection.format, style: selection.style)
        case .end, .middle:
            try moveChildren(of: blockNode.key, from: split.index, to: newBlock, at: 0)
            try insert(newBlock, after: blockNode.key)
            let caret = self[newBlock]?.firstChild.flatMap { self[$0]?.role == .text ? Point.text($0, 0) : nil } ?? .element(newBlock, 0)
            self.selection = RangeSelection(caret: caret, format: selection.format, style: selection.style)
        }
    }

    /// Inserts a line break at the caret (Shift-Enter). With `selectStart`, the caret stays before
    /// the break; otherwise it goes after it.
    public mutating func insertLineBreak(selectStart: Bool = false) throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        try makeTextBlockAtCaret()
        selection = try requireSelection()
        let position = try boundary(at: selection.anchor)
        let lineBreak = try createNode(type: .lineBreak)
        try insertChild(lineBreak, at: position)
        let caretBoundary = Boundary(parent: position.parent, index: position.index + (selectStart ? 0 : 1))
        self.selection = RangeSelection(caret: caretPoint(at: caretBoundary), format: selection.format, style: selection.style)
    }

    // MARK: Deleting characters

    /// Backspace (`backward`) or forward delete: removes the selection, else the grapheme cluster
    /// (or token, or line break, or decorator) next to the caret, else merges blocks.
    public mutating func deleteCharacter(backward: Bool) throws(ModelError) {
        let selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            return
        }
        let caret = selection.anchor
        let block = block(containing: caret.key)
        // The leaf next to the caret in the direction of deletion, and the offset inside it.
        var target: (key: NodeKey, offset: Int)?
        switch caret.kind {
        case .text:
            let length = textLength(caret.key)
            if backward ? caret.offset > 0 : caret.offset < length {
                target = (caret.key, caret.offset)
            } else if let leaf = backward ? previousLeaf(before: caret.key, inBlock: block) : nextLeaf(after: caret.key, inBlock: block) {
                target = (leaf, backward ? textLength(leaf) : 0)
            }
        case .element:
            if let neighbour = child(at: backward ? caret.offset - 1 : caret.offset, of: caret.key) {
                let leaf = backward ? lastLeaf(in: neighbour) : firstLeaf(in: neighbour)
                target = (leaf, backward ? textLength(leaf) : 0)
            }
        }
        guard let (key, offset) = target else {
            try mergeBlock(block, backward: backward, caret: caret)
            return
        }
        let leaf = try node(key)
        if editsTextInPlace(leaf) && leaf.textMode != .token && !leaf.text.isEmpty {
            let range = leaf.textMode == .segmented
                ? segmentRange(in: leaf.text, at: offset, backward: backward)
                : graphemeRange(in: leaf.text, at: offset, backward: backward)
            if range.count == leaf.text.utf16.count {
                try removeLeaf(key, format: selection.format, style: selection.style)
            } else {
                try spliceText(key, at: range.lowerBound, deleting: range.count, inserting: "")
                if leaf.textMode == .segmented {
                    try setField("mode", to: .string(TextMode.normal.rawValue), of: key)
                }
                self.selection = RangeSelection(caret: .text(key, range.lowerBound), format: selection.format, style: selection.style)
            }
        } else {
            try removeLeaf(key, format: selection.format, style: selection.style)
        }
        try normalizeText(around: self.selection!.anchor)
    }

    /// Removes a leaf (and inline ancestors it empties) and puts the caret where it was.
    mutating func removeLeaf(_ key: NodeKey, format: TextFormat, style: String) throws(ModelError) {
        var target = key
        while let node = self[target], let parent = self[node.parent ?? target], parent.role == .element(inline: true), parent.childCount == 1 {
            target = parent.key
        }
        guard let parent = self[target]?.parent, let index = indexInParent(target) else { return }
        try remove(target)
        let caret = try refillIfEmpty(parent).map { Point.element($0, 0) } ?? caretPoint(at: Boundary(parent: parent, index: index))
        selection = RangeSelection(caret: caret, format: format, style: style)
    }

    /// The root or an editing boundary (a table cell) left without blocks gets an empty
    /// paragraph, so that it keeps a place for the caret; returns it.
    @discardableResult
    mutating func refillIfEmpty(_ container: NodeKey) throws(ModelError) -> NodeKey? {
        guard let node = self[container], node.childCount == 0, container == .root || isolatesContent(container),
              plugin(of: node)?.childRule.accepts(type: .paragraph, role: .element(inline: false)) ?? (container == .root) else { return nil }
        let paragraph = try createNode(type: .paragraph)
        try append(paragraph, to: container)
        return paragraph
    }

    /// Backspace at a block's start or forward delete at its end.
    mutating func mergeBlock(_ block: NodeKey, backward: Bool, caret: Point) throws(ModelError) {
        let blockNode = try node(block)
        // Only text blocks merge; a caret left in a container (an empty table row) deletes nothing.
        guard isTextBlock(blockNode) else { return }
        let format = selection?.format ?? []
        let style = selection?.style ?? ""
        if backward, let plugin = plugin(of: blockNode) {
            var attempt = self
            if try plugin.deleteBackwardAtStart(of: blockNode, in: &attempt) {
                self = attempt
                return
            }
        }
        if let neighbour = adjacentBlock(of: block, backward: backward), self[neighbour]?.role == .decorator(inline: false) {
            let caret = try deleteSeparator(between: block, andDecorator: neighbour, blockIsAfter: backward, caret: caret)
            selection = RangeSelection(caret: caret, format: format, style: style)
            return
        }
        let first: NodeKey
        let second: NodeKey
        if backward {
            guard let previous = previousTextBlock(before: block) else {
                try leaveEmptyBlock(block, backward: true, format: format, style: style)
                return
            }
            if blockNode.childCount == 0 {
                // An empty block goes; the caret moves to the end of the previous one.
                try remove(block)
                selection = RangeSelection(caret: endPoint(of: previous), format: format, style: style)
                return
            }
            if self[previous]?.childCount == 0 {
                try remove(previous)
                selection = RangeSelection(caret: caret, format: format, style: style)
                return
            }
            (first, second) = (previous, block)
        } else {
            guard let next = nextTextBlock(after: block) else {
                try leaveEmptyBlock(block, backward: false, format: format, style: style)
                return
            }
            (first, second) = (block, next)
        }
        let join = self[first]?.childCount ?? 0
        let caretAtJoin = try deleteBetween(Boundary(parent: first, index: join), Boundary(parent: second, index: 0))
        selection = RangeSelection(caret: caretAtJoin, format: format, style: style)
        try normalizeText(around: caretAtJoin)
    }

    /// Deleting the separator between a text block and a block decorator: a decorator cannot
    /// merge, so the decorator goes and the caret stays — unless the text block is empty, which
    /// goes instead with the caret beside the decorator (Lexical selects the decorator there, so
    /// that the next Backspace deletes it). Returns the caret.
    mutating func deleteSeparator(between block: NodeKey, andDecorator decorator: NodeKey, blockIsAfter: Bool, caret: Point) throws(ModelError) -> Point {
        guard self[block]?.childCount == 0, let parent = self[decorator]?.parent else {
            try remove(decorator)
            return caret
        }
        try remove(block)
        let index = indexInParent(decorator) ?? 0
        return .element(parent, blockIsAfter ? index + 1 : index)
    }

    /// Backspace (Delete) in an empty block with no text block to merge with inside its editing
    /// boundary, but a block beyond it (a table after a paragraph): the empty block goes and the
    /// caret moves into that block's nearest cell, as Lexical does. Otherwise nothing happens.
    mutating func leaveEmptyBlock(_ block: NodeKey, backward: Bool, format: TextFormat, style: String) throws(ModelError) {
        guard self[block]?.childCount == 0, adjacentBlock(of: block, backward: backward) != nil,
              let target = backward ? previousTextBlock(before: block, crossingBoundaries: true) : nextTextBlock(after: block, crossingBoundaries: true)
        else { return }
        try remove(block)
        selection = RangeSelection(caret: backward ? endPoint(of: target) : startPoint(of: target), format: format, style: style)
    }

    /// The block right before (or after) `block` at the nearest level that has one, without
    /// leaving the editing boundary that holds it.
    func adjacentBlock(of block: NodeKey, backward: Bool) -> NodeKey? {
        var current = block
        while let node = self[current] {
            if let sibling = backward ? node.previousSibling : node.nextSibling { return sibling }
            guard let parent = node.parent, parent != .root, !isolatesContent(parent) else { return nil }
            current = parent
        }
        return nil
    }

    /// The caret point at the start of a block's content.
    ///
    /// - Complexity: O(1).
    public func startPoint(of block: NodeKey) -> Point {
        caretPoint(at: Boundary(parent: block, index: 0))
    }

    /// The caret point at the end of a block's content.
    ///
    /// - Complexity: O(children) to reach the last child's neighbour.
    public func endPoint(of block: NodeKey) -> Point {
        caretPoint(at: Boundary(parent: block, index: self[block]?.childCount ?? 0))
    }

    /// The UTF-16 range of the grapheme cluster before (or after) `offset` in `text`.
    func graphemeRange(in text: String, at offset: Int, backward: Bool) -> Range<Int> {
        var previousBoundary = 0
        var position = 0
        for character in text {
            let end = position + character.utf16.count
            if backward {
                if end >= offset { return position..<offset.clamped(above: position) }
            } else if end > offset {
                return offset.clamped(below: end, above: position)..<end
            }
            previousBoundary = end
            position = end
        }
        return backward ? previousBoundary..<offset : offset..<offset
    }

    /// The space-separated segment of a segmented node next to `offset`, with its separating space.
    func segmentRange(in text: String, at offset: Int, backward: Bool) -> Range<Int> {
        let units = Array(text.utf16)
        let space: UInt16 = 0x20
        if backward {
            var start = offset
            while start > 0 && units[start - 1] == space { start -= 1 }
            while start > 0 && units[start - 1] != space { start -= 1 }
            return start..<offset
        }
        var end = offset
        while end < units.count && units[end] == space { end += 1 }
        while end < units.count && units[end] != space { end += 1 }
        return offset..<end
    }

    /// Deletes from the caret to the previous (or next) word boundary inside the block, or merges
    /// blocks when the caret is at the block's edge.
    public mutating func deleteWord(backward: Bool) throws(ModelError) {
        try deleteTo(backward: backward) { character, seenWord in
            let isWord = character.isLetter || character.isNumber || character == "_"
            return seenWord && !isWord ? .stop : (isWord ? .word : .skip)
        }
    }

    /// Deletes from the caret to the start (or end) of the line: the block edge or a line break.
    public mutating func deleteLine(backward: Bool) throws(ModelError) {
        try deleteTo(backward: backward) { _, _ in .word }
    }

    enum ScanStep { case skip, word, stop }

    /// Extends the selection from the caret through the block's leaves while `scan` says to, then
    /// deletes it. Line breaks and decorators end the scan.
    private mutating func deleteTo(backward: Bool, scan: (Character, Bool) -> ScanStep) throws(ModelError) {
        let selection = try requireSelection()
        guard selection.isCollapsed else {
            try removeSelectedText()
            return
        }
        let caret = selection.anchor
        let block = block(containing: caret.key)
        var focus = caret
        var seenWord = false
        var current: (key: NodeKey, offset: Int)? = caret.kind == .text ? (caret.key, caret.offset) : nil
        if current == nil, let neighbour = child(at: backward ? caret.offset - 1 : caret.offset, of: caret.key) {
            let leaf = backward ? lastLeaf(in: neighbour) : firstLeaf(in: neighbour)
            current = (leaf, backward ? textLength(leaf) : 0)
        }
        scanning: while let (key, offset) = current, let leaf = self[key], leaf.role == .text {
            let text = leaf.text
            let characters = backward ? Array(String(text.utf16Prefix(offset)).reversed()) : Array(String(text.utf16Suffix(from: offset)))
            var moved = 0
            for character in characters {
                switch scan(character, seenWord) {
                case .stop:
                    focus = .text(key, backward ? offset - moved : offset + moved)
                    break scanning
                case .word: seenWord = true
                case .skip: break
                }
                moved += character.utf16.count
            }
            focus = .text(key, backward ? offset - moved : offset + moved)
            guard let next = backward ? previousLeaf(before: key, inBlock: block) : nextLeaf(after: key, inBlock: block) else { break }
            current = (next, backward ? textLength(next) : 0)
        }
        if focus == caret {
            try deleteCharacter(backward: backward)
            return
        }
        self.selection = RangeSelection(anchor: caret, focus: focus, format: selection.format, style: selection.style)
        try removeSelectedText()
    }

    // MARK: Formatting

    /// Toggles a text format over the selection (Lexical's FORMAT_TEXT_COMMAND): when the first
    /// selected text node has it, it is removed from every selected text node, otherwise added.
    /// Nodes are split exactly at the selection's ends. A collapsed selection toggles the format
    /// typing will use.
    public mutating func formatText(_ format: TextFormat) throws(ModelError) {
        var selection = try requireSelection()
        if selection.isCollapsed {
            selection.format.formSymmetricDifference(format)
            if selection.anchor.kind == .text, let node = self[selection.anchor.key], node.text.isEmpty, node.isSimpleText {
                try setTextFormat(selection.format, of: node.key)
            }
            self.selection = selection
            return
        }
        let backward = compare(selection.anchor, selection.focus) > 0
        let (start, end) = try orderedSelectionPoints()
        let (startBoundary, endBoundary) = try splitBoundaries(start, end, lift: false)
        let nodes = textNodes(from: startBoundary, to: endBoundary)
        guard let first = nodes.first, let last = nodes.last else {
            selection.format.formSymmetricDifference(format)
            self.selection = selection
            return
        }
        let adding = !(self[first]!.textFormat.contains(format))
        for key in nodes {
            var updated = self[key]!.textFormat
            if adding { updated.formUnion(format) } else { updated.subtract(format) }
            try setTextFormat(updated, of: key)
        }
        let startPoint = Point.text(first, 0)
        let endPoint = Point.text(last, textLength(last))
        self.selection = RangeSelection(
            anchor: backward ? endPoint : startPoint, focus: backward ? startPoint : endPoint,
            format: self[first]!.textFormat, style: selection.style
        )
    }

    /// The text nodes between two boundaries, in document order.
    func textNodes(from start: Boundary, to end: Boundary) -> [NodeKey] {
        var result: [NodeKey] = []
        var current: NodeKey? = child(at: start.index, of: start.parent).map { firstLeaf(in: $0) }
            ?? nextNode(afterSubtreeOf: start.parent)
        let stop: NodeKey? = child(at: end.index, of: end.parent).map { firstLeaf(in: $0) } ?? nextNode(afterSubtreeOf: end.parent)
        while let key = current, key != stop {
            if let node = self[key], node.role == .text, node.type == .text || node.isUnknown { result.append(key) }
            current = nextInDocument(key)
        }
        return result
    }

    /// The node after `key` in document order (pre-order).
    func nextInDocument(_ key: NodeKey) -> NodeKey? {
        if let first = self[key]?.firstChild { return first }
        return nextNode(afterSubtreeOf: key)
    }

    func nextNode(afterSubtreeOf key: NodeKey) -> NodeKey? {
        var current = key
        while let node = self[current] {
            if let next = node.nextSibling { return next }
            guard let parent = node.parent else { return nil }
            current = parent
        }
        return nil
    }

    // MARK: Nodes and text content

    /// Inserts detached nodes at the selection: inline nodes go into the block at the caret; block
    /// nodes split the block and go between its halves (an empty first half is replaced). The
    /// caret ends after the last inserted node.
    public mutating func insertNodes(_ keys: [NodeKey]) throws(ModelError) {
        var selection = try requireSelection()
        if !selection.isCollapsed {
            try removeSelectedText()
            selection = try requireSelection()
        }
        guard !keys.isEmpty else { return }
        let nodes = try keys.map { (key) throws(ModelError) -> Node in try node(key) }
        if nodes.allSatisfy({ $0.role.isInline }) {
            try makeTextBlockAtCaret()
            selection = try requireSelection()
            var position = try boundary(at: selection.anchor)
            for key in keys {
                try insertChild(key, at: position)
                position.index += 1
            }
            self.selection = RangeSelection(caret: caretPoint(at: position), format: selection.format, style: selection.style)
            return
        }
        let split = try liftBoundary(try boundary(at: selection.anchor))
        let block = try node(split.parent)
        var anchor: NodeKey
        if split.parent == .root {
            guard let previous = split.index > 0 ? child(at: split.index - 1, of: .root) : nil else {
                try prepend(keys[0], to: .root)
                for (previous, key) in zip(keys, keys.dropFirst()) { try insert(key, after: previous) }
                self.selection = RangeSelection(caret: endPoint(of: keys.last!), format: selection.format, style: selection.style)
                return
            }
            anchor = previous
        } else if split.index == 0 {
            // Nothing before the caret: the blocks go before this block.
            for key in keys { try insert(key, before: block.key) }
            self.selection = RangeSelection(caret: endPoint(of: keys.last!), format: selection.format, style: selection.style)
            return
        } else {
            if split.index < block.childCount {
                let tail = createUnchecked(copying: block)
                try moveChildren(of: block.key, from: split.index, to: tail, at: 0)
                try insert(tail, after: block.key)
            }
            anchor = block.key
        }
        for key in keys {
            try insert(key, after: anchor)
            anchor = key
        }
        self.selection = RangeSelection(caret: endPoint(of: keys.last!), format: selection.format, style: selection.style)
    }

    /// The selected text, blocks separated by "\n" as in the flat string.
    public func selectedTextContent() throws(ModelError) -> String {
        let (start, end) = try orderedSelectionPoints()
        var result = ""
        var key: NodeKey? = start.key
        var lastBlock = block(containing: start.key)
        while let current = key, let node = self[current] {
            let currentBlock = block(containing: current)
            if currentBlock != lastBlock && node.role != .root && !node.role.isInline {
                result += "\n"
                lastBlock = currentBlock
            }
            var content = FlatString.content(of: node)
            if node.role == .text {
                let utf16 = Array(node.text.utf16)
                let from = current == start.key && start.kind == .text ? start.offset : 0
                let to = current == end.key && end.kind == .text ? end.offset : utf16.count
                content = String(decoding: utf16[from..<max(from, to)], as: UTF16.self)
            }
            if !(current == start.key && start.kind == .element) { result += content }
            if current == end.key { break }
            key = nextInDocument(current)
        }
        return result
    }

    // MARK: Normalization

    /// Merges simple text nodes next to the point with equal neighbours (same format, style and
    /// mode, and not marked unmergeable) and drops empty simple text nodes the point is not in,
    /// keeping the selection on the same characters.
    public mutating func normalizeText(around point: Point) throws(ModelError) {
        guard let node = self[point.key] else { return }
        let parent = node.role == .text ? node.parent : node.key
        guard let parent else { return }
        try normalizeTextChildren(of: parent)
    }

    /// Normalizes the text children of one element.
    public mutating func normalizeTextChildren(of parent: NodeKey) throws(ModelError) {
        var current = self[parent]?.firstChild
        while let key = current, let node = self[key] {
            current = node.nextSibling
            guard node.isSimpleText else { continue }
            if node.text.isEmpty, !(selectionTouches(key)) {
                try remove(key)
                continue
            }
            guard let nextKey = node.nextSibling, let next = self[nextKey], next.isSimpleText,
                  next.textFormat == node.textFormat, next.textStyle == node.textStyle,
                  node.textDetail & 2 == 0, next.textDetail & 2 == 0 else { continue }
            let shift = node.text.utf16.count
            try setText(node.text + next.text, of: key)
            if var selection {
                for point in [\RangeSelection.anchor, \RangeSelection.focus] where selection[keyPath: point].key == nextKey {
                    selection[keyPath: point] = .text(key, selection[keyPath: point].offset + shift)
                }
                self.selection = selection
            }
            try remove(nextKey)
            current = key
        }
    }

    private func selectionTouches(_ key: NodeKey) -> Bool {
        guard let selection else { return false }
        return selection.anchor.key == key || selection.focus.key == key
    }
}

extension Int {
    func clamped(above lower: Int) -> Int { Swift.max(self, lower) }
    func clamped(below upper: Int, above lower: Int) -> Int { Swift.min(Swift.max(self, lower), upper) }
}

extension String {
    /// The first `count` UTF-16 units as a string.
    func utf16Prefix(_ count: Int) -> Substring {
        let end = utf16.index(utf16.startIndex, offsetBy: count)
        return self[..<end]
    }

    /// The string from UTF-16 offset `start` on.
    func utf16Suffix(from start: Int) -> Substring {
        let begin = utf16.index(utf16.startIndex, offsetBy: start)
        return self[begin...]
    }
}
