import QuireMarkup

/// cmark-gfm drops a footnote definition that nothing refers to, and every definition of a label
/// after its first; it moves the others to the document's end. Such a definition is kept as its
/// blocks, placed before the definitions among its siblings: where the next reading puts them.
/// The reader does this to what cmark-gfm keeps (a definition referred to only from a dropped
/// one), the writer to any document (an editor's, whose last reference was deleted).
struct FootnoteDefinitions {
    /// The ``footnoteKey(_:)`` of every label the document refers to.
    let referenced: Set<String>
    /// The ``footnoteKey(_:)`` of every label kept as a definition so far.
    var defined: Set<String> = []
    var losses: [MarkupLoss] = []

    /// `blocks` (a document's) as markdown keeps them: every definition it would drop replaced
    /// by its blocks (``unwrapping(_:)``, a loss for each), then the definitions that end them in
    /// reading order (``inReadingOrder(_:prefixReferences:)``). The document's footnote labels
    /// are collected once for both.
    ///
    /// - Complexity: O(n) in the blocks' size.
    static func arranged(_ blocks: [MarkupBlock]) -> (blocks: [MarkupBlock], losses: [MarkupLoss]) {
        // Most documents have no footnotes: their blocks are looked at, never their inlines.
        guard containsDefinition(blocks) else { return (blocks, []) }
        let (references, definitions) = labels(in: blocks)
        let referenced = Set(references.map(footnoteKey))
        let defined = definitions.map(footnoteKey)
        // Most documents keep every definition: they are left as they are, not copied, and the
        // references before their trailing definitions are the first of all references (the
        // definitions are walked last).
        guard Set(defined).count < defined.count || !defined.allSatisfy(referenced.contains) else {
            let tail = labels(in: blocks[trailingDefinitionsStart(blocks)...]).references
            return (inReadingOrder(blocks, prefixReferences: Array(references.dropLast(tail.count))), [])
        }
        var unwrapping = FootnoteDefinitions(referenced: referenced)
        let result = unwrapping.unwrapping(blocks) ?? blocks
        return (inReadingOrder(result), unwrapping.losses)
    }

    /// `blocks` with every definition that would be dropped replaced by its blocks, at every
    /// depth, in document order; nil when none is.
    mutating func unwrapping(_ blocks: [MarkupBlock]) -> [MarkupBlock]? {
        var result: [MarkupBlock]?
        // The kept definitions since the last other block: an unwrapped definition's blocks go
        // before them.
        var keptDefinitions: [MarkupBlock] = []
        // Where an HTML block followed only by definitions stands among the blocks kept so far.
        // cmark-gfm moves definitions after everything, an HTML block that never ends (`<!--`
        // never closed) included; an unwrapped definition's blocks written after that block
        // would be its text, so they go before it.
        let contentEnd = Self.trailingDefinitionsStart(blocks)
        var trailingHTML: Int?
        for (index, block) in blocks.enumerated() {
            var copy = block
            let children = unwrapping(block.children)
            if let children { copy.children = children }
            guard case .footnoteDefinition(let label) = block.intent else {
                if result != nil {
                    result!.append(contentsOf: keptDefinitions)
                    result!.append(copy)
                } else if children != nil {
                    result = Array(blocks[..<index]) + [copy]
                }
                if index == contentEnd - 1, block.intent == .htmlBlock { trailingHTML = (result?.count ?? index + 1) - 1 }
                keptDefinitions.removeAll()
                continue
            }
            let key = Self.footnoteKey(label)
            if referenced.contains(key) && defined.insert(key).inserted {
                if result == nil, children != nil { result = Array(blocks[..<(index - keptDefinitions.count)]) }
                keptDefinitions.append(copy)
                continue
            }
            losses.append(MarkupLoss("a footnote definition that no reference refers to, or that repeats an earlier definition's label, is written as its blocks",
                                     at: "the one labelled \"\(label.prefix(40))\""))
            if result == nil { result = Array(blocks[..<(index - keptDefinitions.count)]) }
            if let html = trailingHTML {
                result!.insert(contentsOf: copy.children, at: html)
                trailingHTML = html + copy.children.count
            } else {
                result!.append(contentsOf: copy.children)
            }
        }
        guard result != nil else { return nil }
        return result! + keptDefinitions
    }

    /// `blocks` (a document's) with the definitions that end it in the order cmark-gfm gives
    /// them when it reads them written at the end: by first reference, the document's other
    /// blocks read first, then each definition's content as it is reached. cmark-gfm orders by
    /// the first reference in the source, where a definition may stand before the references
    /// of the text; in that order, written at the end, they would come back in another.
    ///
    /// - Complexity: O(n) in the size of the blocks.
    /// `prefixReferences`, when given, are the labels of the references in the blocks before the
    /// definitions, in order (else they are collected).
    static func inReadingOrder(_ blocks: [MarkupBlock], prefixReferences: [String]? = nil) -> [MarkupBlock] {
        let definitionsStart = trailingDefinitionsStart(blocks)
        guard blocks.count - definitionsStart > 1 else { return blocks }
        var remaining: [String: Int] = [:]
        for index in definitionsStart..<blocks.count {
            if case .footnoteDefinition(let label) = blocks[index].intent, remaining[footnoteKey(label)] == nil {
                remaining[footnoteKey(label)] = index
            }
        }
        var ordered: [MarkupBlock] = []
        var queue = prefixReferences ?? labels(in: blocks[..<definitionsStart]).references
        var next = 0
        var unreached = definitionsStart
        while ordered.count < blocks.count - definitionsStart {
            let index: Int
            if next < queue.count {
                guard let found = remaining.removeValue(forKey: footnoteKey(queue[next])) else { next += 1; continue }
                next += 1
                index = found
            } else {
                // A definition no reference reaches (one only itself refers to) comes in its turn.
                while unreached < blocks.count, case .footnoteDefinition(let label) = blocks[unreached].intent,
                      remaining[footnoteKey(label)] == nil { unreached += 1 }
                // (Two definitions of one label: the pass that unwraps the second has not run.)
                guard unreached < blocks.count, case .footnoteDefinition(let label) = blocks[unreached].intent else { break }
                remaining[footnoteKey(label)] = nil
                index = unreached
            }
            ordered.append(blocks[index])
            queue += labels(in: blocks[index...index]).references
        }
        guard ordered.count == blocks.count - definitionsStart else { return blocks }
        return Array(blocks[..<definitionsStart]) + ordered
    }

    /// `blocks` (a document's) with the definitions that end it written before the HTML block
    /// in front of them. cmark-gfm moves every definition to the end, so a definition written
    /// in the source before an HTML block that never ends (`<!--` never closed runs to the end of
    /// the document) comes after that block; written there again it would be the block's text.
    /// Written before it, it reads back where it was.
    ///
    /// - Complexity: O(n) in the number of blocks.
    static func beforeTrailingHTML(_ blocks: [MarkupBlock]) -> [MarkupBlock] {
        let definitionsStart = trailingDefinitionsStart(blocks)
        guard definitionsStart > 0, definitionsStart < blocks.count, blocks[definitionsStart - 1].intent == .htmlBlock else { return blocks }
        var reordered = blocks
        let html = reordered.remove(at: definitionsStart - 1)
        reordered.append(html)
        return reordered
    }

    /// Where the run of definitions that ends `blocks` starts (`blocks.count` when none does).
    static func trailingDefinitionsStart(_ blocks: [MarkupBlock]) -> Int {
        blocks.lastIndex { if case .footnoteDefinition = $0.intent { false } else { true } }.map { $0 + 1 } ?? 0
    }

    /// Whether a footnote definition is among `blocks`, at any depth.
    ///
    /// - Complexity: O(b) for b blocks.
    static func containsDefinition(_ blocks: [MarkupBlock]) -> Bool {
        blocks.contains { block in
            if case .footnoteDefinition = block.intent { return true }
            return containsDefinition(block.children)
        }
    }

    /// The labels of the footnote references and of the footnote definitions in `blocks`, at
    /// every depth, in document order.
    ///
    /// - Complexity: O(n) in the blocks' size.
    static func labels(in blocks: some Collection<MarkupBlock>) -> (references: [String], definitions: [String]) {
        var references: [String] = []
        var definitions: [String] = []
        // Blocks nest no deeper than the writer recurses; inlines are walked with a stack of
        // sibling arrays and the next index in each (arrays are shared, never copied).
        var pending: [(siblings: [MarkupInline], next: Int)] = []
        func collect(_ blocks: some Collection<MarkupBlock>) {
            for block in blocks {
                if case .footnoteDefinition(let label) = block.intent { definitions.append(label) }
                if !block.inlines.isEmpty { pending.append((block.inlines, 0)) }
                while let (siblings, next) = pending.last {
                    guard next < siblings.count else {
                        pending.removeLast()
                        continue
                    }
                    pending[pending.count - 1].next = next + 1
                    if case .footnoteReference(let label) = siblings[next].intent { references.append(label) }
                    if !siblings[next].children.isEmpty { pending.append((siblings[next].children, 0)) }
                }
                collect(block.children)
            }
        }
        collect(blocks)
        return (references, definitions)
    }

    /// A footnote label as cmark-gfm matches it: case-folded, its whitespace collapsed.
    static func footnoteKey(_ label: String) -> String {
        label.uppercased().lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }
}
