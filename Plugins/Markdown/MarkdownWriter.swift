import QuireAlgorithms
import QuireMarkup
import QuireModel

/// Writes a `MarkupDocument` as CommonMark + GFM that cmark-gfm reads back as the same document.
///
/// - blocks are separated by blank lines; tight lists keep their items and their items' blocks
///   together;
/// - nested blocks are written under their container's prefixes (`> ` for a quote, the content
///   column of a list item, four spaces in a footnote), line by line, so the output is linear in
///   the document's size however deep it nests;
/// - the source's choices kept in the blocks' and inlines' details (``MarkupDetails``) are
///   written back: bullets and delimiters, setext headings, fences and info strings, indented
///   code, rule characters, emphasis written with `_`, hard breaks written with spaces,
///   autolinks; without them, the defaults (`-`, `.`, ATX, backtick fences, `***`, `*`, `\`);
/// - sibling lists that would run together get other markers (`-`/`*`, `.`/`)`);
/// - task items are written `- [x]`; ordered lists keep their start number;
/// - code blocks get a fence longer than any run of its character inside them;
/// - raw HTML is written as it is; footnotes as `[^label]` and `[^label]: …`;
/// - text escapes `\`, backticks, `*`, `_`, `~`, brackets and `<` everywhere, entity-like `&`,
///   and at a line start whatever would begin a block (`#`, `>`, `-`, `+`, `=`, a "1." marker,
///   leading whitespace); trailing whitespace before a line end is written as `&#32;`.
///
/// A soft break that would leave an empty line is written as a hard break; a heading of level 3
/// or more with breaks (ATX headings are one line) gets spaces instead.
///
/// A block with emphasis, strong emphasis or strikethrough is read back by cmark-gfm before it is
/// kept, and written more plainly when it would not come back (`InlineReadBack`).
public struct MarkdownWriter: Sendable {
    /// A writer.
    public init() {}

    /// The markdown text of `document`, ending with a newline unless it is empty.
    ///
    /// - Complexity: O(n) in the size of the output; a block with emphasis is parsed once more
    ///   (up to a few times when it needs writing more plainly).
    public func write(_ document: MarkupDocument) -> String {
        writeReportingLosses(document).text
    }

    /// The markdown text of `document`, and what of it markdown could not keep: emphasis that
    /// cmark-gfm would not read back as written and that is left out.
    ///
    /// A document of over ``parallelBlockCount`` top-level blocks is written in two parts at
    /// once: the later half on another thread, from a block that follows a paragraph or a
    /// heading (after which a block is written the same whatever came before). The text is the
    /// same either way.
    ///
    /// - Complexity: as ``write(_:)``.
    public func writeReportingLosses(_ document: MarkupDocument) -> (text: String, losses: [MarkupLoss]) {
        var writer = BlockWriter()
        let (arranged, losses) = FootnoteDefinitions.arranged(document.blocks)
        writer.losses = losses
        let blocks = FootnoteDefinitions.beforeTrailingHTML(arranged)
        guard blocks.count > Self.parallelBlockCount, let split = Self.independentBlock(nearMiddleOf: blocks) else {
            writer.blocks(blocks, tight: false)
            return (writer.output, writer.losses)
        }
        let later = ForkedWork { () -> (text: String, losses: [MarkupLoss]) in
            var writer = BlockWriter()
            writer.blocks(blocks[split...], tight: false, after: blocks[split - 1])
            return (writer.output, writer.losses)
        }
        writer.blocks(blocks[..<split], tight: false)
        let (laterText, laterLosses) = later.result()
        writer.output += laterText
        return (writer.output, writer.losses + laterLosses)
    }

    /// The number of top-level blocks above which a document is written in two parts at once.
    public static let parallelBlockCount = 2_000

    /// The index of a block near the middle of `blocks` that follows a paragraph or a heading,
    /// or nil: the writer passes nothing else from one block to the next (a list's marker is
    /// passed to the list after it; a paragraph and a heading pass none).
    ///
    /// - Complexity: O(b) for the b blocks.
    static func independentBlock(nearMiddleOf blocks: [MarkupBlock]) -> Int? {
        blocks.indices.dropFirst(max(blocks.count / 2, 1)).first { startsIndependently(at: $0, in: blocks) }
    }

    /// Whether the blocks from `index` on (not the first) are written the same apart from
    /// those before them.
    static func startsIndependently(at index: Int, in blocks: [MarkupBlock]) -> Bool {
        switch blocks[index - 1].intent {
        case .paragraph, .heading: true
        default: false
        }
    }
}

/// Writes blocks line by line under the prefixes of the containers they are in.
struct BlockWriter {
    var output = ""
    var losses: [MarkupLoss] = []

    /// A container's prefix: its first line's (a list item's marker) and the others'.
    struct Prefix {
        var first: String
        var rest: String
        var isFirstPending = true
    }

    var prefixes: [Prefix] = []

    /// Writes one line under the containers' prefixes; an empty line drops the prefixes'
    /// trailing spaces (`>` for a blank line in a quote).
    mutating func line(_ text: String) {
        guard text.isEmpty else {
            // Written straight into the output: most lines have text, and need no trimming.
            Self.writePrefixes(&prefixes, into: &output)
            output += text
            output += "\n"
            return
        }
        var line = ""
        Self.writePrefixes(&prefixes, into: &line)
        while line.last == " " { line.removeLast() }
        // A task item's marker is `[ ]` or `[x]` and a space: without the space an empty
        // task item reads back as a bullet with the text "[ ]" (found by MarkdownFuzz).
        if line.hasSuffix("[ ]") || line.hasSuffix("[x]") { line += " " }
        output += line
        output += "\n"
    }

    /// The prefixes of the containers around the next line: a container's first line gets its
    /// first prefix (a list item's marker), every later one its rest.
    private static func writePrefixes(_ prefixes: inout [Prefix], into line: inout String) {
        for index in prefixes.indices {
            if prefixes[index].isFirstPending {
                line += prefixes[index].first
                prefixes[index].isFirstPending = false
            } else {
                line += prefixes[index].rest
            }
        }
    }

    mutating func lines(_ texts: [String]) {
        for text in texts { line(text) }
    }

    mutating func within(first: String, rest: String, _ body: (inout BlockWriter) -> Void) {
        prefixes.append(Prefix(first: first, rest: rest))
        body(&self)
        // A container with no line of its own still shows its marker.
        if prefixes[prefixes.count - 1].isFirstPending { line("") }
        prefixes.removeLast()
    }

    // MARK: Blocks

    /// Writes `blocks` in order, with a blank line between two where
    /// ``needsBlankLine(between:and:tight:)`` says.
    ///
    /// `first` is the block before them, for blocks written apart from it
    /// (``MarkdownWriter/independentBlock(nearMiddleOf:)``); it must not be a list.
    mutating func blocks(_ blocks: some Collection<MarkupBlock>, tight: Bool, after first: MarkupBlock? = nil) {
        var previous = first
        var previousMarker: String?
        for block in blocks {
            if let previous, Self.needsBlankLine(between: previous, and: block, tight: tight) { line("") }
            previousMarker = self.block(block, after: previous, previousMarker: previousMarker, tight: tight)
            previous = block
        }
    }

    static func needsBlankLine(between previous: MarkupBlock, and next: MarkupBlock, tight: Bool) -> Bool {
        guard tight else { return true }
        // Inside a tight item the blocks follow each other directly, except where they would
        // join: two paragraphs would merge (a setext heading would take the paragraph along),
        // a paragraph after a table would be a row, and a list may only interrupt a paragraph
        // when it starts at 1 with a non-empty first item.
        switch previous.intent {
        case .paragraph, .tableCell:
            switch next.intent {
            case .paragraph, .tableCell: return true
            case .heading: return next.details[MarkupDetails.setext] == .bool(true)
            case .list(let style, _):
                if case .ordered(let start) = style, start != 1 { return true }
                return next.children.first?.children.isEmpty ?? true
            default: return false
            }
        case .table:
            return next.intent == .paragraph
        default:
            return false
        }
    }

    /// Writes one block; returns the list marker it used (for the next sibling list).
    mutating func block(_ block: MarkupBlock, after previous: MarkupBlock?, previousMarker: String?, tight: Bool) -> String? {
        switch block.intent {
        case .paragraph, .tableCell:
            lines(inlineLines(block.inlines, context: .paragraph))
        case .heading(let level):
            lines(headingLines(block, level: level))
        case .blockQuote:
            within(first: "> ", rest: "> ") { $0.blocks(block.children, tight: false) }
        case .list(let style, let tight):
            return list(block, style: style, tight: tight, after: previous, previousMarker: previousMarker)
        case .listItem:
            within(first: "- ", rest: "  ") { $0.blocks(block.children, tight: true) }
        case .codeBlock(let language):
            lines(codeLines(block, language: language, after: previous, tight: tight))
        case .htmlBlock:
            // An HTML block without its end condition (`<!--` never closed) in a container runs on
            // through blank lines to the container's end and takes them in; written back with the
            // blank line after the block, each round would add one. Its trailing blank lines are
            // left to the block separation, which gives them back. (At the top level such a block
            // runs to the document's end, and its blank lines are kept.)
            var literal = Self.literalLines(block.literal)
            while !prefixes.isEmpty, let last = literal.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { literal.removeLast() }
            // Right after a list, a first line indented two or three spaces (as far as a `- `
            // item's content) could continue the list's last item; without its indentation,
            // which HTML does not see, it cannot. One space is kept: no item starts there.
            if case .list? = previous?.intent, let first = literal.first, first.hasPrefix("  ") {
                literal[0] = String(first.drop { $0 == " " })
            }
            lines(literal)
        case .thematicBreak:
            var rule = block.details[MarkupDetails.rule]?.stringValue ?? "***"
            let isRule = rule.filter { $0 != " " && $0 != "\t" }.count >= 3
                && Set(rule.filter { $0 != " " && $0 != "\t" }).count == 1 && "*-_".contains(rule.first { $0 != " " } ?? "x")
            // "---" under a paragraph would underline it as a heading.
            if !isRule || (tight && rule.contains("-") && previous?.intent == .paragraph) { rule = "***" }
            line(rule)
        case .table:
            lines(tableLines(block))
        case .tableRow:
            line(rowLine(block.children.map(\.inlines), columns: block.children.count))
        case .footnoteDefinition(let label):
            within(first: "[^" + label + "]: ", rest: "    ") { writer in
                // Indented code needs its four spaces from the definition's content column.
                if case .codeBlock = block.children.first?.intent, block.children.first?.details[MarkupDetails.fence] == "" { writer.line("") }
                writer.blocks(block.children, tight: false)
            }
        }
        return nil
    }

    static func literalLines(_ literal: String) -> [String] {
        MarkupBlock.lines(ofLiteral: literal).map(String.init)
    }

    /// The lines of one block's inlines, read back before they are kept (``InlineReadBack``).
    mutating func inlineLines(_ inlines: [MarkupInline], context: InlineWriter.Context) -> [String] {
        var inlines = inlines
        if let (withText, opening) = InlineWriter.withUnfenceableCodeAsText(inlines) {
            losses.append(MarkupLoss("code holding a run of \(InlineWriter.longestCodeFence) or more backticks cannot be a code span in markdown and is written as text",
                                     at: "the one starting \"\(opening)\""))
            inlines = withText
        }
        if let (unindented, opening) = InlineWriter.withHTMLLaterLinesUnindented(inlines) {
            losses.append(MarkupLoss("whitespace starting a later line of raw HTML cannot be kept: markdown reads a paragraph's later lines without it",
                                     at: "the HTML starting \"\(opening)\""))
            inlines = unindented
        }
        let written = InlineReadBack.checked(inlines, context: context) { InlineWriter.lines($0, context: context) }
        if written.htmlAsText {
            losses.append(MarkupLoss("raw HTML that would begin an HTML block at the start of a \(context.name) is written as text",
                                     at: "the one starting \"\(Self.opening(of: inlines))\""))
        }
        if written.droppedFormats {
            losses.append(MarkupLoss("emphasis, strong emphasis or strikethrough that markdown would not read back as written is left out of a \(context.name)",
                                     at: "the one starting \"\(Self.opening(of: inlines))\""))
        }
        return written.lines
    }

    /// The first 40 characters of a block's first line, to name it in a loss.
    static func opening(of inlines: [MarkupInline]) -> Substring {
        let opening = inlines.map(\.plainText).joined().prefix(40)
        return opening.firstIndex(of: "\n").map { opening[..<$0] } ?? opening
    }

    mutating func headingLines(_ block: MarkupBlock, level: Int) -> [String] {
        let content = inlineLines(block.inlines, context: .heading)
        let setext = block.details[MarkupDetails.setext] == .bool(true)
        if level <= 2 && !content.isEmpty && (content.count > 1 || setext) {
            return content + [level == 1 ? "===" : "---"]
        }
        let single = content.count > 1 ? inlineLines(block.inlines, context: .headingOneLine) : content
        let text = single.first ?? ""
        return [String(repeating: "#", count: max(1, min(6, level))) + (text.isEmpty ? "" : " " + text)]
    }

    // MARK: Lists

    static func isOrdered(_ style: ListStyle) -> Bool {
        if case .ordered = style { return true }
        return false
    }

    mutating func list(_ list: MarkupBlock, style: ListStyle, tight: Bool, after previous: MarkupBlock?, previousMarker: String?) -> String {
        let ordered = Self.isOrdered(style) || list.details[MarkupDetails.orderedStart] != nil
        var mark: String
        if ordered {
            mark = list.details[MarkupDetails.delimiter]?.stringValue == ")" ? ")" : "."
        } else {
            mark = list.details[MarkupDetails.bullet]?.stringValue ?? "-"
            if !["-", "*", "+"].contains(mark) { mark = "-" }
        }
        // A list right after another of the same kind needs another marker, or they would join.
        let followsList: Bool
        if let previous, case .list = previous.intent { followsList = true } else { followsList = false }
        if followsList, previousMarker == mark {
            mark = ordered ? (mark == "." ? ")" : ".") : (mark == "-" ? "*" : "-")
        }
        // An item opening with indented code made only of the bullet's character would make a
        // thematic break of its marker's line (`-     -      -`): the list takes a bullet no such
        // code is made of. (Starting the code on the next line instead, ``codeReadsAsRule(_:after:)``,
        // leaves the item's first line blank, and such an item cannot interrupt a paragraph: after
        // one, its bare marker underlines a setext heading. It stays the fallback.)
        if !ordered {
            let ruleCharacters = Set(list.children.compactMap { $0.children.first.flatMap(Self.ruleCharacter(ofOpeningCode:)) })
            if ruleCharacters.contains(mark),
               let other = ["-", "*", "+"].first(where: { !ruleCharacters.contains($0) && !(followsList && $0 == previousMarker) }) {
                mark = other
            }
        }
        var start = 1
        if case .ordered(let value) = style { start = value }
        if let value = list.details[MarkupDetails.orderedStart]?.intValue { start = value }
        // cmark reads at most nine digits, never a sign (the exporter reports a start clamped).
        start = min(max(start, MarkupExporter.listStartRange.lowerBound), MarkupExporter.listStartRange.upperBound - list.children.count)
        for (index, item) in list.children.enumerated() {
            if index > 0 && !tight { line("") }
            var marker = ordered ? String(start + index) + mark : mark
            let indent = String(repeating: " ", count: marker.count + 1)
            if case .listItem(let checked?) = item.intent {
                marker += checked ? " [x]" : " [ ]"
                // cmark-gfm reads `[ ]` as a task's box only where the item's marker begins its
                // line: `- - [ ] a` is a bullet with the text "[ ] a". An outer container that
                // has not written its first line yet writes it alone.
                if prefixes.contains(where: \.isFirstPending) { line("") }
            }
            let itemStart = output.utf8.count
            within(first: marker + " ", rest: indent) { writer in
                // After a task's box the rest of the line is its paragraph's text: a quote, a
                // heading, a list or a fence there would be text. Other first blocks start on
                // the next line. So does an HTML block indented in its source (`   <!--`): on
                // the marker's line, its spaces would join the marker's and be lost.
                if let first = item.children.first {
                    var isTask = false
                    if case .listItem(_?) = item.intent { isTask = true }
                    if (isTask && first.intent != .paragraph) || (first.intent == .htmlBlock && first.literal.first == " ")
                        || (!ordered && Self.codeReadsAsRule(first, after: mark)) { writer.line("") }
                }
                writer.blocks(item.children, tight: tight)
            }
            if case .listItem(false) = item.intent, case .paragraph? = item.children.first?.intent {
                movingContentOffTheMarkerLine(from: itemStart, marker: marker + " ", indent: indent)
            }
        }
        return mark
    }

    /// Whether `block`, first in a bullet item, is indented code whose first line holds only the
    /// bullet's character and spaces: on the marker's line it would make a thematic break of the
    /// whole line (`-     -      -`, a MarkdownFuzz finding). The list takes another bullet where
    /// it can; where it cannot, such code starts on the next line, where an item that begins with
    /// a blank line has it as indented code.
    static func codeReadsAsRule(_ block: MarkupBlock, after mark: String) -> Bool {
        ruleCharacter(ofOpeningCode: block) == mark
    }

    /// The one character, other than spaces and tabs, of the first line of `block` when it is
    /// indented code whose first line has no other: the bullet that would make a thematic break
    /// of a marker's line holding that code.
    static func ruleCharacter(ofOpeningCode block: MarkupBlock) -> String? {
        guard case .codeBlock = block.intent, block.details[MarkupDetails.fence]?.stringValue == "",
              let firstLine = MarkupBlock.lines(ofLiteral: block.literal).first else { return nil }
        let characters = firstLine.filter { $0 != " " && $0 != "\t" }
        guard let first = characters.first, characters.allSatisfy({ $0 == first }) else { return nil }
        return String(first)
    }

    /// cmark-gfm checks a task item whose first line holds `[x]` or `[X]` anywhere (`- [ ] a
    /// `[x]``: its code, or raw HTML, cannot escape it). The line of such an unchecked item,
    /// written from `start` of the output, keeps only the marker; its content goes on the next
    /// line, which the item's paragraph continues.
    mutating func movingContentOffTheMarkerLine(from start: Int, marker: String, indent: String) {
        let lineStart = output.utf8.index(output.utf8.startIndex, offsetBy: start)
        guard let lineEnd = output[lineStart...].firstIndex(of: "\n") else { return }
        let outer = prefixes.map(\.rest).joined()
        let line = output[lineStart..<lineEnd]
        guard line.hasPrefix(outer + marker) else { return }
        let content = line.dropFirst(outer.count + marker.count)
        guard content.contains("[x]") || content.contains("[X]") else { return }
        output.replaceSubrange(lineStart..<lineEnd, with: outer + marker + "\n" + outer + indent + content)
    }

    // MARK: Code

    func codeLines(_ block: MarkupBlock, language: String?, after previous: MarkupBlock?, tight: Bool) -> [String] {
        let literal = block.literal
        let content = literal.isEmpty ? [] : Self.literalLines(literal)
        let requested = block.details[MarkupDetails.fence]?.stringValue
        // Indented code as the source had it, where it cannot join what is before it.
        if requested == "", let first = content.first, let last = content.last,
           !first.allSatisfy({ $0 == " " || $0 == "\t" }), !last.allSatisfy({ $0 == " " || $0 == "\t" }) {
            var safe = true
            switch previous?.intent {
            case .list?, .codeBlock?: safe = false
            case .paragraph?, .heading?: safe = !tight
            default: break
            }
            if safe { return content.map { $0.isEmpty ? "" : "    " + $0 } }
        }
        let info = block.details[MarkupDetails.info]?.stringValue ?? language ?? ""
        var fenceCharacter: Character = requested?.first == "~" ? "~" : "`"
        if fenceCharacter == "`" && info.contains("`") { fenceCharacter = "~" }
        // Only a line of fence characters (after at most three spaces) could close the fence.
        var longest = 0
        for line in content {
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(indent)
            let run = body.prefix { $0 == fenceCharacter }.count
            if indent <= 3, body.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" }) { longest = max(longest, run) }
        }
        // An info string starting with the fence character would lengthen the fence.
        let spaced = (requested?.hasSuffix(" ") == true || info.first == fenceCharacter) && !info.isEmpty
        let fence = String(repeating: fenceCharacter, count: max(3, requested?.filter { $0 != " " }.count ?? 0, longest + 1))
        var escaped = ""
        for character in info {
            // A line ending in the info string (from `&#10;` in the source) would end the fence
            // line; it goes back to a character reference.
            if InlineWriter.isLineEnding(character) {
                escaped += character == "\n" ? "&#10;" : character == "\r" ? "&#13;" : "&#13;&#10;"
                continue
            }
            if character == "\\" || character == "&" { escaped.append("\\") }
            escaped.append(character)
        }
        return [fence + (spaced ? " " : "") + escaped] + content + [fence]
    }

    // MARK: Tables

    mutating func tableLines(_ table: MarkupBlock) -> [String] {
        guard case .table(let alignments) = table.intent, let header = table.children.first else { return [] }
        let columns = max(1, alignments.count, header.children.count)
        var lines = [rowLine(header.children.map(\.inlines), columns: columns)]
        let delimiters = (0..<columns).map { column -> String in
            switch column < alignments.count ? alignments[column] : .none {
            case .none: "---"
            case .left: ":--"
            case .center: ":-:"
            case .right: "--:"
            }
        }
        lines.append("| " + delimiters.joined(separator: " | ") + " |")
        for row in table.children.dropFirst() {
            lines.append(rowLine(row.children.map(\.inlines), columns: columns))
        }
        return lines
    }

    mutating func rowLine(_ cells: [[MarkupInline]], columns: Int) -> String {
        var texts: [String] = []
        for cell in cells.prefix(columns) { texts.append(inlineLines(cell, context: .tableCell).joined(separator: " ")) }
        while texts.count < columns { texts.append("") }
        return "| " + texts.joined(separator: " | ") + " |"
    }
}

/// Writes inline content with the escaping its context needs.
struct InlineWriter {
    enum Context {
        case paragraph, heading, headingOneLine, tableCell

        /// What a loss report calls a block of this context.
        var name: String {
            switch self {
            case .paragraph: "paragraph"
            case .heading, .headingOneLine: "heading"
            case .tableCell: "table cell"
            }
        }
    }

    let context: Context
    var lines: [String] = [""]
    var atLineStart = true
    /// A footnote reference starts this line and the text written next starts with `:`, which
    /// would make the line a footnote definition (`[^1]:x`): that colon is escaped.
    var colonWouldDefineFootnote = false

    /// The lines `inlines` are written as, and whether a delimiter written among them stands
    /// where cmark-gfm might not read it as written (``needsReadBack``).
    static func lines(_ inlines: [MarkupInline], context: Context = .paragraph) -> (lines: [String], needsReadBack: Bool) {
        var writer = InlineWriter(context: context)
        writer.write(inlines, isLast: true)
        writer.endLine()
        // A run of `#` ending an ATX heading is its closing sequence only where a space or a tab
        // (or nothing) is before it: `# a #` reads "a", `# http://e#` keeps its `#` (escaped,
        // it would join the bare link before it).
        if context == .heading || context == .headingOneLine, var last = writer.lines.last, last.hasSuffix("#"),
           !last.dropLast().hasSuffix("\\"), [nil, " ", "\t"].contains(last.reversed().drop { $0 == "#" }.first) {
            last.removeLast()
            last += "\\#"
            writer.lines[writer.lines.count - 1] = last
        }
        if writer.lines == [""] { return ([], false) }
        return (writer.lines, writer.needsReadBack)
    }

    /// An emphasis, strong emphasis or strikethrough delimiter as written: its line, its UTF-8
    /// range there, and whether it opens.
    struct WrittenDelimiter {
        var line: Int
        var start: Int
        var end: Int
        var opens: Bool
    }

    var delimiters: [WrittenDelimiter] = []
    /// Whether raw HTML starts the block's first line.
    var startsWithHTML = false
    /// Whether a hard break has been written (see the emphasis case of ``write(_:isLast:)``).
    var afterHardBreak = false
    /// Whether a link's text is being written.
    var insideLink = false

    /// Whether some delimiter stands where cmark-gfm's flanking rules might read it otherwise: one
    /// that is sure to open has an ASCII letter or digit after it and before it a line's start,
    /// a space, a tab or ASCII punctuation other than a delimiter character (`*`, `_`, `~`, or an
    /// escape); one sure to close the same mirrored. Anything else is read back: punctuation or a
    /// non-ASCII character inside, runs that touch, and a letter or digit outside, which makes
    /// the run both-flanking (`b*foo`: it can close too, and pair with a run before it).
    ///
    /// - Complexity: O(d) in the number of delimiters written.
    var needsReadBack: Bool {
        if startsWithHTML { return true }
        // `*`, `_`, `~` and `\`: a delimiter character or an escape touching the run.
        func isTouching(_ byte: UInt8) -> Bool { byte == 0x2A || byte == 0x5F || byte == 0x7E || byte == 0x5C }
        func isSafeOuterSide(_ byte: UInt8?) -> Bool {
            guard let byte else { return true }
            return byte == 0x20 || byte == 0x09 || (byte < 0x80 && !Self.isAlphanumeric(byte) && byte > 0x20)
        }
        var index = 0
        while index < delimiters.count {
            let lineNumber = delimiters[index].line
            var line = lines[lineNumber]
            let risky = line.withUTF8 { bytes -> Bool in
                while index < delimiters.count, delimiters[index].line == lineNumber {
                    let delimiter = delimiters[index]
                    index += 1
                    let before: UInt8? = delimiter.start > 0 ? bytes[delimiter.start - 1] : nil
                    let after: UInt8? = delimiter.end < bytes.count ? bytes[delimiter.end] : nil
                    let (inner, outer) = delimiter.opens ? (after, before) : (before, after)
                    guard let inner, inner < 0x80, Self.isAlphanumeric(inner) else { return true }
                    if let outer, isTouching(outer) { return true }
                    if !isSafeOuterSide(outer) { return true }
                }
                return false
            }
            if risky { return true }
        }
        return false
    }

    mutating func append(_ text: String) {
        lines[lines.count - 1] += text
    }

    /// What is written as it is (raw HTML, a destination, an autolink), with every `|` escaped
    /// in a table cell: the table takes the backslash out again before the cell's inlines are
    /// read, where an unescaped `|` would end the cell.
    func inCell(_ text: String) -> String {
        context == .tableCell && text.contains("|") ? text.replacingOccurrences(of: "|", with: "\\|") : text
    }

    /// Ends the current line: trailing whitespace would be stripped by the parser, so the last
    /// space or tab becomes a character reference.
    mutating func endLine() {
        var line = lines[lines.count - 1]
        if let last = line.last, last == " " || last == "\t" {
            line.removeLast()
            line += last == " " ? "&#32;" : "&#9;"
            lines[lines.count - 1] = line
        }
    }

    mutating func newLine(hard: Bool, spaces: Bool = false) {
        afterHardBreak = afterHardBreak || hard
        endLine()
        if hard { append(spaces ? "  " : "\\") }
        lines.append("")
        atLineStart = true
    }

    var currentLineIsEmpty: Bool { lines[lines.count - 1].isEmpty }

    /// Whether a paragraph's later line starting with `line` might begin a block instead of
    /// continuing the paragraph: a heading, quote, list item, thematic break, setext underline,
    /// fence, HTML block, table delimiter row or footnote definition starts with one of these
    /// characters (a superset: a line that merely might is indented, which costs nothing).
    static func mayBeginABlock(_ line: Substring) -> Bool {
        guard let first = line.utf8.first else { return false }
        return isDigit(first) || Array("#>-+*=_`~<|:[".utf8).contains(first)
    }

    /// `inlines` with neighbouring texts joined, and neighbouring code spans: what a text escapes
    /// at a line's start (`1)` followed by a space) or before a character can span two text
    /// nodes of one line, and two code spans side by side would make one run of backticks of
    /// their fences (`` `a``b` `` is one span). A reader sees either the same.
    ///
    /// - Complexity: O(n) in the number of inlines and the length of the joined texts.
    static func joiningTexts(_ inlines: [MarkupInline]) -> [MarkupInline] {
        func joinable(_ inline: MarkupInline) -> String? {
            switch inline.intent {
            case .text(let text), .code(let text): return text
            default: return nil
            }
        }
        func sameKind(_ first: MarkupInline, _ second: MarkupInline) -> Bool {
            switch (first.intent, second.intent) {
            case (.text, .text), (.code, .code): return true
            default: return false
            }
        }
        guard zip(inlines, inlines.dropFirst()).contains(where: { sameKind($0.0, $0.1) }) else { return inlines }
        var result: [MarkupInline] = []
        // The run's pieces are joined once, when it ends: joining as it grows would copy it each time.
        var run: [String] = []
        func flush() {
            if run.count > 1, let last = result.last {
                if case .code = last.intent { result[result.count - 1].intent = .code(run.joined()) } else { result[result.count - 1].intent = .text(run.joined()) }
            }
            run = []
        }
        for inline in inlines {
            if let last = result.last, sameKind(last, inline), let next = joinable(inline) {
                run.append(next)
            } else {
                flush()
                result.append(inline)
                if let text = joinable(inline) { run = [text] }
            }
        }
        flush()
        return result
    }

    /// Writes `inlines`; `isLast` when the block ends after them. Inside a span, `outerNext` is
    /// what follows the span and `outerLineEnds` whether the line ends after that: a bare link
    /// that ends the span is read on through the closing delimiters.
    mutating func write(_ inlines: [MarkupInline], isLast: Bool, outerNext: MarkupInline? = nil, outerLineEnds: Bool = false) {
        let inlines = Self.joiningTexts(inlines)
        for (index, inline) in inlines.enumerated() {
            let last = isLast && index == inlines.count - 1
            let next = index + 1 < inlines.count ? inlines[index + 1] : outerNext
            let lineEndsAfterNext = index + 1 < inlines.count ? Self.lineEnds(after: index + 1, of: inlines, isLast: isLast) : outerLineEnds
            switch inline.intent {
            case .text(let text):
                writeText(text)
            case .html(let html):
                // Raw HTML is written as it is; its line endings are lines of the block. At the
                // start of a paragraph's later line, a tag such as `</table>` or `<!--` would begin
                // an HTML block there (they interrupt paragraphs); indented four spaces, the line
                // can only continue the paragraph, which drops the indentation again.
                if currentLineIsEmpty && (context == .paragraph || context == .heading) {
                    if lines.count > 1 {
                        append("    ")
                    } else {
                        // On the block's first line it may begin an HTML block too, and nothing
                        // written before it could stop that: the read-back decides.
                        startsWithHTML = true
                    }
                }
                // The HTML's own later lines that could begin a block are indented four spaces
                // for the same reason: a line such as `\t```">` (read as ```` ```"> ````) would
                // open a code block. A paragraph's later line loses its leading whitespace when it
                // is read, so the HTML comes here without any there (``withHTMLLaterLinesUnindented(_:)``,
                // reported as a loss).
                for (number, part) in html.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    if number > 0 {
                        lines.append("")
                        if context == .paragraph || context == .heading {
                            append((Self.mayBeginABlock(part) ? "    " : "") + String(part))
                            continue
                        }
                    }
                    append(inCell(String(part)))
                }
                atLineStart = false
            case .footnoteReference(let label):
                // `[^ 1]:x` reads as a reference to `1` and `:x`; written as `[^1]:x` at the start
                // of a line, in any block, it would define that footnote instead.
                if currentLineIsEmpty, case .text(let text)? = next?.intent, text.hasPrefix(":") {
                    colonWouldDefineFootnote = true
                }
                append("[^" + inCell(label) + "]")
                atLineStart = false
            case .code(let code):
                writeCode(code)
            case .softBreak, .lineBreak:
                switch context {
                case .tableCell, .headingOneLine:
                    append(" ")
                    continue
                default: break
                }
                // A break ending the block is none in markdown: `\` would come back as text and
                // the line after it could underline a heading. It is left out (the exporter
                // reports it).
                if isLast && inlines[index...].allSatisfy({ $0.intent == .softBreak || $0.intent == .lineBreak }) { continue }
                // A soft break may not leave an empty line (it would end the paragraph).
                let nextIsBreak = index + 1 < inlines.count && [.softBreak, .lineBreak].contains(inlines[index + 1].intent)
                let hard = inline.intent == .lineBreak || currentLineIsEmpty || nextIsBreak
                newLine(hard: hard, spaces: hard && inline.details[MarkupDetails.spaces] == .bool(true) && !currentLineIsEmpty)
            case .emphasis, .strong:
                let strong = inline.intent == .strong
                var delimiter = Self.delimiter(inline, default: strong ? "**" : "*", allowed: strong ? ["**", "__"] : ["*", "_"])
                // cmark-gfm places the inlines after a hard break a line too early, so it would
                // not see underscores there as the delimiters they are: the next reading would
                // write `*`. A span at or across a break is written with `*` from the start.
                let underscoreDelimits = Self.underscoreDelimitsBetween(lines[lines.count - 1].last, Self.firstCharacter(index + 1 < inlines.count ? inlines[index + 1] : nil))
                    && !afterHardBreak && !Self.containsBreak(inline.children)
                if delimiter.first == "_", !underscoreDelimits {
                    delimiter = strong ? "**" : "*"
                }
                // Emphasis that opens or closes where an emphasis inside it does, written with the
                // same character, makes a run of two that cmark-gfm pairs by the "multiple of 3"
                // rule rather than as two spans (`**a (*b*) c*)**` loses its closer); the outer
                // one takes the other character where it can.
                if !strong, Self.sharesDelimiterAtAnEdge(inline, delimiter) {
                    if delimiter == "_" {
                        delimiter = "*"
                    } else if underscoreDelimits {
                        delimiter = "_"
                    }
                }
                wrap(delimiter, inline.children, last: last, next: next, thenLineEnds: lineEndsAfterNext)
            case .strikethrough:
                wrap(Self.delimiter(inline, default: "~~", allowed: ["~~", "~"]), inline.children, last: last, next: next, thenLineEnds: lineEndsAfterNext)
            case .link where insideLink:
                // Markdown has no link in a link: `[[a](u)](u)` reads as text around a link. A
                // document holds one link node there (the spans detail can nest two); its text is
                // written once, inside the outer link.
                write(inline.children, isLast: last, outerNext: next, outerLineEnds: lineEndsAfterNext)
            case .link(let destination, _) where Self.autolink(inline, after: lines[lines.count - 1].suffix(2), before: next, thenLineEnds: lineEndsAfterNext) != nil:
                let text = inline.children.map(\.plainText).joined()
                if Self.autolink(inline, before: nil) == "angle" && !destination.isEmpty {
                    append(inCell("<" + text + ">"))
                    atLineStart = false
                } else if destination.hasPrefix("mailto:") {
                    // GFM finds email addresses after the inlines are read, so an `_` in one
                    // would be read as a delimiter first; escaped, the address is linked all the
                    // same.
                    writeText(text)
                } else {
                    append(inCell(text))
                    atLineStart = false
                }
            case .link(let destination, let title):
                // "!" right before a link would make it an image.
                let line = lines[lines.count - 1]
                if line.hasSuffix("!") && !line.dropLast().hasSuffix("\\") {
                    lines[lines.count - 1] = String(line.dropLast()) + "\\!"
                }
                append("[")
                atLineStart = false
                insideLink = true
                write(inline.children, isLast: false)
                insideLink = false
                append("](" + inCell(Self.destination(destination) + Self.title(title)) + ")")
            case .image(let source, let title):
                append("![")
                atLineStart = false
                writeText(inline.children.map(\.plainText).joined())
                append("](" + inCell(Self.destination(source) + Self.title(title)) + ")")
            }
        }
    }

    /// Whether the line ends after `inlines[index]` (or the spans around them close there): a
    /// break follows, or nothing does and `isLast` says the block ends.
    static func lineEnds(after index: Int, of inlines: [MarkupInline], isLast: Bool) -> Bool {
        guard index + 1 < inlines.count else { return isLast }
        return inlines[index + 1].intent == .softBreak || inlines[index + 1].intent == .lineBreak
    }

    /// Whether a break occurs anywhere among `inlines`.
    ///
    /// - Complexity: O(n) in the inlines' size.
    static func containsBreak(_ inlines: [MarkupInline]) -> Bool {
        var stack = inlines
        while let inline = stack.popLast() {
            if inline.intent == .softBreak || inline.intent == .lineBreak { return true }
            stack.append(contentsOf: inline.children)
        }
        return false
    }

    /// Whether `_` delimiters written between these neighbours still open and close a span.
    /// cmark-gfm reads an underscore beside a letter, a digit or any non-ASCII character (U+FFFD
    /// from a decoded `&#0;` among them) as part of a word, so a source's `_` is kept only between
    /// whitespace, ASCII punctuation or the ends of a line (`nil`); elsewhere `*` is written.
    static func underscoreDelimitsBetween(_ before: Character?, _ after: Character?) -> Bool {
        func separates(_ character: Character?) -> Bool {
            guard let character else { return true }
            return character.isWhitespace || asciiPunctuation.contains(character)
        }
        return separates(before) && separates(after)
    }

    /// Whether the first or the last child of `inline` is emphasis that the source wrote with the
    /// character `delimiter` is made of, so that their delimiters would touch.
    static func sharesDelimiterAtAnEdge(_ inline: MarkupInline, _ delimiter: String) -> Bool {
        [inline.children.first, inline.children.last].contains { child in
            guard let child, child.intent == .emphasis else { return false }
            return Self.delimiter(child, default: "*", allowed: ["*", "_"]).first == delimiter.first
        }
    }

    static let asciiPunctuation: Set<Character> = Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

    /// The first character an inline is written with: its text's, a break's end of line (`nil`),
    /// or, for any other span, the punctuation its syntax starts with.
    static func firstCharacter(_ inline: MarkupInline?) -> Character? {
        guard let inline else { return nil }
        switch inline.intent {
        case .text(let text): return text.first
        case .softBreak, .lineBreak: return nil
        default: return "*"
        }
    }

    /// The delimiter the source wrote a span with, when it is one of `allowed`.
    static func delimiter(_ inline: MarkupInline, default fallback: String, allowed: [String]) -> String {
        guard let written = inline.details[MarkupDetails.delimiter]?.stringValue, allowed.contains(written) else { return fallback }
        return written
    }

    /// ASCII byte classes, for the scans over UTF-8 below.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    static func isLetter(_ byte: UInt8) -> Bool { byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A }
    static func isAlphanumeric(_ byte: UInt8) -> Bool { isDigit(byte) || isLetter(byte) }

    /// Whether `<text>` reads back as a link to `text` (CommonMark's absolute URI): a scheme of
    /// 2 to 32 ASCII letters, digits, `+`, `.` or `-` that starts with a letter, a colon, and no
    /// spaces, controls or angle brackets. `<LICENSE.txt>` is none: it reads back as text.
    static func isAbsoluteURI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: 0x3A), (2...32).contains(colon) else { return false }
        func isSchemeByte(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || byte == 0x2B || byte == 0x2E || byte == 0x2D }
        guard isLetter(bytes[0]), bytes[1..<colon].allSatisfy(isSchemeByte) else { return false }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x3C || $0 == 0x3E || $0 == 0x7F }
    }

    /// How an autolink is written ("angle" or "bare"), when it still reads as one: one text
    /// child that is the destination, or the destination without its `mailto:` or `http://`; a
    /// bare one only when what follows (`next`, then a line's end or closing delimiters when
    /// `thenLineEnds`) cannot be read as part of it (``bareAutolinkEnds(_:before:thenLineEnds:)``),
    /// and what is written before it (`written`, the line so far, or its last characters) lets it
    /// begin: GFM starts an extended autolink only at a line's start, after whitespace, `(`, or a
    /// `*`, `_` or `~` delimiter (not an escaped one).
    static func autolink(_ inline: MarkupInline, after written: Substring = "", before next: MarkupInline?, thenLineEnds: Bool = false) -> String? {
        guard case .link(let destination, let title) = inline.intent, title == nil,
              let kind = inline.details[MarkupDetails.autolink]?.stringValue,
              inline.children.count == 1, case .text(let text) = inline.children[0].intent, !text.isEmpty else { return nil }
        switch kind {
        case "angle":
            guard destination == text && isAbsoluteURI(text) || destination == "mailto:" + text,
                  !destination.contains(where: { $0 == " " || $0 == "<" || $0 == ">" || $0.isNewline }) else { return nil }
            return kind
        case "bare":
            guard destination == text || destination == "mailto:" + text || destination == "http://" + text,
                  !text.contains(where: { $0 == " " || $0 == "<" || $0.isNewline }) else { return nil }
            if let previous = written.last, !previous.isWhitespace, previous != "(" {
                guard "*_~".contains(previous), written.dropLast().last != "\\" else { return nil }
            }
            switch next?.intent {
            case nil, .softBreak?: return kind
            // A hard break's backslash would be read as part of the link; two spaces are not.
            case .lineBreak?: return next?.details[MarkupDetails.spaces] == .bool(true) ? kind : nil
            case .text(let following)?:
                return bareAutolinkEnds(text, before: following, thenLineEnds: thenLineEnds) ? kind : nil
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Whether a bare autolink written as `link` ends where it does before the text `following`
    /// (as the writer writes it): GFM's extended autolinks run to the next whitespace or `<`, and
    /// then give back trailing `?`, `!`, `.`, `,`, `:` and unmatched `)`. So only those may come
    /// before the whitespace; anything else, an escape's backslash included (the `\<` of `?<`),
    /// would be read as part of the link. `following` may also end before the line does or before
    /// closing delimiters (`thenLineEnds`), which are trailing punctuation themselves.
    ///
    /// - Complexity: O(n) in the lengths of `link` and `following`.
    static func bareAutolinkEnds(_ link: String, before following: String, thenLineEnds: Bool) -> Bool {
        let parenthesesMatch = link.filter { $0 == "(" }.count == link.filter { $0 == ")" }.count
        for (offset, character) in following.enumerated() {
            // A space or tab that ends the line is written `&#32;` or `&#9;` (``endLine()``),
            // which the link would run on through.
            if character.isWhitespace { return !(thenLineEnds && offset == following.count - 1 && (character == " " || character == "\t")) }
            switch character {
            case "?", "!", ".", ",", ":": break
            case ")" where parenthesesMatch: break
            default: return false
            }
        }
        return thenLineEnds
    }

    mutating func wrap(_ delimiter: String, _ children: [MarkupInline], last: Bool, next: MarkupInline?, thenLineEnds: Bool) {
        appendDelimiter(delimiter, opens: true)
        atLineStart = false
        write(children, isLast: last, outerNext: next, outerLineEnds: thenLineEnds)
        appendDelimiter(delimiter, opens: false)
    }

    mutating func appendDelimiter(_ delimiter: String, opens: Bool) {
        let start = lines[lines.count - 1].utf8.count
        append(delimiter)
        delimiters.append(WrittenDelimiter(line: lines.count - 1, start: start, end: start + delimiter.utf8.count, opens: opens))
    }

    /// The longest backtick run cmark-gfm reads as a code span's fence; a longer run is text.
    static let longestCodeFence = 80

    /// The longest run of backticks in `code`.
    ///
    /// - Complexity: O(n) in the code's length.
    static func longestBacktickRun(_ code: String) -> Int {
        var longest = 0
        var run = 0
        for byte in code.utf8 {
            run = byte == 0x60 ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    /// `inlines` with every code span whose fence would have to be longer than
    /// ``longestCodeFence`` replaced by a text of its code, at every depth, and the start of the
    /// first such code; nil when there is none.
    ///
    /// - Complexity: O(n) in the inlines' size.
    static func withUnfenceableCodeAsText(_ inlines: [MarkupInline]) -> ([MarkupInline], opening: Substring)? {
        replacing(inlines) { inline in
            guard case .code(let code) = inline.intent, longestBacktickRun(code) >= longestCodeFence else { return nil }
            return (MarkupInline(.text(code), range: inline.range), code.prefix(40))
        }
    }

    /// `inlines` with whitespace taken off the start of raw HTML's later lines, and the start of
    /// the first HTML changed, when any is: only a lazy continuation line (`> a<b c="` then
    /// ` ">` without the `>`) keeps such whitespace, and the writer writes no such line. Writing
    /// what the next reading gives keeps the read-back check honest.
    static func withHTMLLaterLinesUnindented(_ inlines: [MarkupInline]) -> ([MarkupInline], opening: Substring)? {
        replacing(inlines) { inline in
            guard case .html(let html) = inline.intent, hasIndentedLaterLine(html) else { return nil }
            let lines = html.split(separator: "\n", omittingEmptySubsequences: false)
            let unindented = ([lines[0]] + lines.dropFirst().map { $0.drop { $0 == " " || $0 == "\t" } }).joined(separator: "\n")
            var copy = inline
            copy.intent = .html(unindented)
            return (copy, html.prefix(40))
        }
    }

    /// Whether a line after the first of `html` starts with a space or a tab: a byte scan, where
    /// searching for the two strings went through the generic substring search for every HTML
    /// inline of every block.
    static func hasIndentedLaterLine(_ html: String) -> Bool {
        var afterNewline = false
        for byte in html.utf8 {
            if afterNewline && (byte == 0x20 || byte == 0x09) { return true }
            afterNewline = byte == 0x0A
        }
        return false
    }

    /// `inlines`, their children included, with each inline `replacement` gives a replacement
    /// for replaced, and what it said about the first one; nil when it replaced none.
    ///
    /// - Complexity: O(n) in the inlines' size.
    static func replacing(_ inlines: [MarkupInline], _ replacement: (MarkupInline) -> (MarkupInline, Substring)?) -> ([MarkupInline], opening: Substring)? {
        var opening: Substring?
        // nil when nothing in `inlines` is replaced: every block is looked at, few have anything
        // to replace, and those that have none are not copied.
        func replaced(_ inlines: [MarkupInline]) -> [MarkupInline]? {
            var result: [MarkupInline]?
            for (index, inline) in inlines.enumerated() {
                var changed: MarkupInline?
                if let (replaced, about) = replacement(inline) {
                    opening = opening ?? about
                    changed = replaced
                } else if let children = replaced(inline.children) {
                    var copy = inline
                    copy.children = children
                    changed = copy
                }
                if let changed {
                    if result == nil { result = Array(inlines[..<index]) }
                    result!.append(changed)
                } else {
                    result?.append(inline)
                }
            }
            return result
        }
        guard let result = replaced(inlines), let opening else { return nil }
        return (result, opening)
    }

    mutating func writeCode(_ code: String) {
        let fence = String(repeating: "`", count: Self.longestBacktickRun(code) + 1)
        let needsPadding = code.first == "`" || code.last == "`"
            || (code.first == " " && code.last == " " && code.contains { $0 != " " })
        var body = needsPadding ? " " + code + " " : code
        if context == .tableCell { body = body.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
        append(fence + body + fence)
        atLineStart = false
    }

    static let alwaysEscaped: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", "~"]
    /// A line of a paragraph that starts with one of these could be read as a block: a heading,
    /// a quote, a list item, a setext underline, a table row, or (`:` as in `:-`) a table's
    /// delimiter row that turns the line above it into a table header.
    static let lineStartEscaped: Set<Character> = ["#", ">", "-", "+", "=", "|", ":"]

    /// The ASCII bytes escaped anywhere in text, and at a line's start.
    static let alwaysEscapedBytes: Set<UInt8> = Set(alwaysEscaped.map { $0.asciiValue! })
    static let lineStartEscapedBytes: Set<UInt8> = Set(lineStartEscaped.map { $0.asciiValue! })

    /// Writes text with the escapes its context needs. Every byte that can mean syntax is ASCII,
    /// so the text is scanned as UTF-8 and everything else is copied as it is.
    ///
    /// - Complexity: O(n) in the text's UTF-8 length.
    mutating func writeText(_ text: String) {
        var copy = text
        var (output, lineStart) = copy.withUTF8 { escape($0) }
        if colonWouldDefineFootnote {
            colonWouldDefineFootnote = false
            if output.hasPrefix(":") { output = "\\" + output }
        }
        append(output)
        atLineStart = lineStart
    }

    func escape(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, Bool) {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var index = 0
        var lineStart = atLineStart
        while index < bytes.count {
            let byte = bytes[index]
            if lineStart {
                lineStart = false
                // Whitespace starting a line is dropped, and a table cell's is trimmed, form
                // feeds and vertical tabs included: written as references, they stay.
                if byte == 0x20 || byte == 0x09 || byte == 0x0B || byte == 0x0C {
                    output += Array("&#\(byte);".utf8)
                    index += 1
                    continue
                }
                if Self.lineStartEscapedBytes.contains(byte) {
                    output += [0x5C, byte]
                    index += 1
                    continue
                }
                if Self.isDigit(byte) {
                    var end = index
                    while end < bytes.count, Self.isDigit(bytes[end]) { end += 1 }
                    output += bytes[index..<end]
                    if end < bytes.count, bytes[end] == 0x2E || bytes[end] == 0x29 {
                        output += [0x5C, bytes[end]]
                        end += 1
                    }
                    index = end
                    continue
                }
            }
            if Self.alwaysEscapedBytes.contains(byte) || (context == .tableCell && byte == 0x7C) {
                output += [0x5C, byte]
            } else if byte == 0x26, index + 1 < bytes.count, bytes[index + 1] == 0x23 || Self.isAlphanumeric(bytes[index + 1]) {
                output += [0x5C, 0x26]
            } else if byte == 0x3A, index > 0, Self.isAlphanumeric(bytes[index - 1]), index + 2 < bytes.count, bytes[index + 1] == 0x2F, bytes[index + 2] == 0x2F {
                // cmark-gfm's extended autolinks start at the `:` of `scheme://` and run to the
                // next space, taking the backslashes of the escapes after them as part of the
                // URL: text that did not read as a link must not become one.
                output += [0x5C, 0x3A]
            } else if byte == 0x2E, index >= 3, bytes[index - 3] == 0x77, bytes[index - 2] == 0x77, bytes[index - 1] == 0x77,
                      index == 3 || !Self.isAlphanumeric(bytes[index - 4]) {
                // The same for `www.`: escaping what follows it (`www.<` → `www.\<`) can make a
                // domain of it.
                output += [0x5C, 0x2E]
            } else if byte == 0x0A {
                output += Array("&#10;".utf8)
            } else if byte == 0x0D {
                output += Array("&#13;".utf8)
            } else {
                output.append(byte)
            }
            index += 1
        }
        return (String(decoding: output, as: UTF8.self), lineStart)
    }

    /// A link's destination as written. cmark-gfm decodes a destination's (and a title's)
    /// entity references before its backslash escapes, so `\&amp;` would read back as `&`: an
    /// `&` that could start a reference is written as `&amp;`.
    static func destination(_ url: String) -> String {
        if url.isEmpty { return "" }
        // Every byte that needs care is ASCII: a URL without any is written as it is, without
        // the passes over its Characters below (most links).
        if !url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "(")
                                       || $0 == UInt8(ascii: ")") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "&") }) {
            return url
        }
        // Line endings are written percent-encoded (a destination cannot span lines), so they
        // need no angle brackets: deciding on them would write `<…>` for a URL whose next round,
        // holding `%0A`, is written bare (found by MarkdownFuzz).
        let needsAngle = url.contains { character in
            guard !Self.isLineEnding(character) else { return false }
            return character == " " || character == "<" || character == ">" || character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true
        }
        var depth = 0
        var balanced = true
        for character in url {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1; if depth < 0 { balanced = false } }
        }
        balanced = balanced && depth == 0
        var output = ""
        let characters = Array(url)
        for (offset, character) in characters.enumerated() {
            let next = offset + 1 < characters.count ? characters[offset + 1] : nil
            switch character {
            case "\\": output += "\\\\"
            case "<" where needsAngle, ">" where needsAngle: output += "\\" + String(character)
            case "(" where !needsAngle && !balanced, ")" where !needsAngle && !balanced: output += "\\" + String(character)
            case "&" where next == "#" || next.map { $0.isASCII && ($0.isLetter || $0.isNumber) } == true: output += "&amp;"
            case "\n": output += "%0A"
            case "\r": output += "%0D"
            case "\r\n": output += "%0D%0A"
            default: output.append(character)
            }
        }
        return needsAngle ? "<" + output + ">" : output
    }

    /// Whether `character` is a line ending: `\n`, `\r` or both.
    static func isLineEnding(_ character: Character) -> Bool {
        character == "\n" || character == "\r" || character == "\r\n"
    }

    static func title(_ title: String?) -> String {
        guard let title else { return "" }
        // As for destinations: a title without any byte that needs care is written as it is.
        if !title.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "&") || $0 == 0x0A || $0 == 0x0D }) {
            return " \"" + title + "\""
        }
        var output = " \""
        let characters = Array(title)
        for (offset, character) in characters.enumerated() {
            let next = offset + 1 < characters.count ? characters[offset + 1] : nil
            switch character {
            case "\\", "\"": output += "\\" + String(character)
            case "&" where next == "#" || next.map { $0.isASCII && ($0.isLetter || $0.isNumber) } == true: output += "&amp;"
            // A line ending in a title would end a table's row, or start a line that can begin
            // a block (`# x"`); a title's references are decoded, so it stays one line.
            case "\n": output += "&#10;"
            case "\r": output += "&#13;"
            case "\r\n": output += "&#13;&#10;"
            default: output.append(character)
            }
        }
        return output + "\""
    }
}
