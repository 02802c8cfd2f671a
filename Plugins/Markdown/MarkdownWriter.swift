import QuireMarkup

/// Writes a `MarkupDocument` as CommonMark + GFM that cmark-gfm reads back as the same document.
///
/// - blocks are separated by blank lines; tight lists keep their items together;
/// - nested blocks are indented under their list item's content column, quotes get `> `;
/// - sibling lists alternate their markers (`-`/`*`, `.`/`)`) so that they stay separate;
/// - task items are written `- [x]`; ordered lists keep their start number;
/// - code blocks get a fence longer than any backtick run inside them;
/// - text escapes `\`, backticks, `*`, `_`, `~`, brackets and `<` everywhere, entity-like `&`,
///   and at a line start whatever would begin a block (`#`, `>`, `-`, `+`, `=`, a "1." marker,
///   leading whitespace); trailing whitespace before a line end is written as `&#32;`.
///
/// A soft break that would leave an empty line is written as a hard break; a heading of level 3
/// or more with breaks (ATX headings are one line) gets spaces instead.
public struct MarkdownWriter: Sendable {
    /// A writer.
    public init() {}

    /// The markdown text of `document`, ending with a newline unless it is empty.
    ///
    /// - Complexity: O(n) in the size of the document, times the nesting depth for indentation.
    public func write(_ document: MarkupDocument) -> String {
        let lines = blockLines(document.blocks, tight: false)
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    // MARK: Blocks

    func blockLines(_ blocks: [MarkupBlock], tight: Bool) -> [String] {
        var lines: [String] = []
        var previous: MarkupBlock?
        var previousMarker = 0
        for block in blocks {
            var markerVariant = 0
            if case .list(let style, _) = block.intent, let previous, case .list(let previousStyle, _) = previous.intent,
               Self.isOrdered(style) == Self.isOrdered(previousStyle) {
                markerVariant = 1 - previousMarker
            }
            if let previous, needsBlankLine(between: previous, and: block, tight: tight) { lines.append("") }
            lines += self.lines(block, markerVariant: markerVariant)
            previous = block
            previousMarker = markerVariant
        }
        return lines
    }

    static func isOrdered(_ style: ListStyle) -> Bool {
        if case .ordered = style { return true }
        return false
    }

    func needsBlankLine(between previous: MarkupBlock, and next: MarkupBlock, tight: Bool) -> Bool {
        guard tight else { return true }
        // Inside a tight item: two paragraphs would merge, and a list may only interrupt a
        // paragraph when it starts at 1 with a non-empty first item.
        guard previous.intent.hasInlineContent || previous.intent == .paragraph else { return true }
        switch next.intent {
        case .paragraph, .tableCell: return true
        case .list(let style, _):
            if case .ordered(let start) = style, start != 1 { return true }
            return next.children.first?.children.isEmpty ?? true
        default: return false
        }
    }

    func lines(_ block: MarkupBlock, markerVariant: Int) -> [String] {
        switch block.intent {
        case .paragraph, .tableCell:
            return InlineWriter.lines(block.inlines)
        case .heading(let level):
            let content = InlineWriter.lines(block.inlines, context: .heading)
            if content.count > 1 && level <= 2 {
                return content + [level == 1 ? "===" : "---"]
            }
            let single = content.count > 1 ? InlineWriter.lines(block.inlines, context: .headingOneLine) : content
            let text = single.first ?? ""
            return [String(repeating: "#", count: level) + (text.isEmpty ? "" : " " + text)]
        case .blockQuote:
            let inner = blockLines(block.children, tight: false)
            if inner.isEmpty { return [">"] }
            return inner.map { $0.isEmpty ? ">" : "> " + $0 }
        case .list(let style, let tight):
            return listLines(block, style: style, tight: tight, variant: markerVariant)
        case .listItem:
            return listItemLines(block, marker: "-", tight: true)
        case .codeBlock(let language):
            return codeLines(block.literal, language: language)
        case .htmlBlock:
            var literal = Substring(block.literal)
            if literal.hasSuffix("\n") { literal = literal.dropLast() }
            return literal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        case .thematicBreak:
            return ["***"]
        case .table:
            return tableLines(block)
        case .tableRow:
            return [rowLine(block.children.map(\.inlines), columns: block.children.count)]
        }
    }

    func listLines(_ list: MarkupBlock, style: ListStyle, tight: Bool, variant: Int) -> [String] {
        var lines: [String] = []
        let bullet = variant == 0 ? "-" : "*"
        for (index, item) in list.children.enumerated() {
            if index > 0 && !tight { lines.append("") }
            let marker: String
            switch style {
            case .bullet: marker = bullet
            case .ordered(let start): marker = "\(start + index)" + (variant == 0 ? "." : ")")
            case .task:
                var checked = false
                if case .listItem(let value) = item.intent { checked = value ?? false }
                marker = bullet + (checked ? " [x]" : " [ ]")
            }
            lines += listItemLines(item, marker: marker, tight: tight, contentIndent: Self.contentIndent(style: style, marker: marker))
        }
        return lines
    }

    static func contentIndent(style: ListStyle, marker: String) -> Int {
        if case .task = style { return 2 }
        return marker.count + 1
    }

    func listItemLines(_ item: MarkupBlock, marker: String, tight: Bool, contentIndent: Int? = nil) -> [String] {
        let indent = String(repeating: " ", count: contentIndent ?? marker.count + 1)
        let inner = blockLines(item.children, tight: tight)
        guard let first = inner.first else { return [marker] }
        var lines = [first.isEmpty ? marker : marker + " " + first]
        for line in inner.dropFirst() { lines.append(line.isEmpty ? "" : indent + line) }
        return lines
    }

    func codeLines(_ literal: String, language: String?) -> [String] {
        let language = language ?? ""
        let fenceCharacter: Character = language.contains("`") ? "~" : "`"
        var longest = 0
        var run = 0
        for character in literal {
            run = character == fenceCharacter ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: fenceCharacter, count: max(3, longest + 1))
        var info = ""
        for character in language {
            if character == "\\" || character == "&" { info.append("\\") }
            info.append(character)
        }
        var body = Substring(literal)
        if body.hasSuffix("\n") { body = body.dropLast() }
        let content = literal.isEmpty ? [] : body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return [fence + info] + content + [fence]
    }

    func tableLines(_ table: MarkupBlock) -> [String] {
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

    func rowLine(_ cells: [[MarkupInline]], columns: Int) -> String {
        var texts = cells.prefix(columns).map { InlineWriter.lines($0, context: .tableCell).joined(separator: " ") }
        while texts.count < columns { texts.append("") }
        return "| " + texts.joined(separator: " | ") + " |"
    }
}

/// Writes inline content with the escaping its context needs.
struct InlineWriter {
    enum Context {
        case paragraph, heading, headingOneLine, tableCell
    }

    let context: Context
    var lines: [String] = [""]
    var atLineStart = true

    static func lines(_ inlines: [MarkupInline], context: Context = .paragraph) -> [String] {
        var writer = InlineWriter(context: context)
        writer.write(inlines, isLast: true)
        writer.endLine()
        if context == .heading || context == .headingOneLine, var last = writer.lines.last, last.hasSuffix("#"),
           !last.dropLast().hasSuffix("\\") {
            last.removeLast()
            last += "\\#"
            writer.lines[writer.lines.count - 1] = last
        }
        if writer.lines == [""] { return [] }
        return writer.lines
    }

    mutating func append(_ text: String) {
        lines[lines.count - 1] += text
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

    mutating func newLine(hard: Bool) {
        endLine()
        if hard { append("\\") }
        lines.append("")
        atLineStart = true
    }

    var currentLineIsEmpty: Bool { lines[lines.count - 1].isEmpty }

    mutating func write(_ inlines: [MarkupInline], isLast: Bool) {
        for (index, inline) in inlines.enumerated() {
            let last = isLast && index == inlines.count - 1
            switch inline.intent {
            case .text(let text):
                writeText(text)
            case .html(let html):
                append(html)
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
                // A soft break may not leave an empty line (it would end the paragraph).
                let nextIsBreak = index + 1 < inlines.count && [.softBreak, .lineBreak].contains(inlines[index + 1].intent)
                let hard = inline.intent == .lineBreak || currentLineIsEmpty || nextIsBreak || last
                newLine(hard: hard)
            case .emphasis:
                wrap("*", inline.children, last: last)
            case .strong:
                wrap("**", inline.children, last: last)
            case .strikethrough:
                wrap("~~", inline.children, last: last)
            case .link(let destination, let title):
                // "!" right before a link would make it an image.
                let line = lines[lines.count - 1]
                if line.hasSuffix("!") && !line.dropLast().hasSuffix("\\") {
                    lines[lines.count - 1] = String(line.dropLast()) + "\\!"
                }
                append("[")
                atLineStart = false
                write(inline.children, isLast: false)
                append("](" + Self.destination(destination) + Self.title(title) + ")")
            case .image(let source, let title):
                append("![")
                atLineStart = false
                writeText(inline.children.map(\.plainText).joined())
                append("](" + Self.destination(source) + Self.title(title) + ")")
            }
        }
    }

    mutating func wrap(_ delimiter: String, _ children: [MarkupInline], last: Bool) {
        append(delimiter)
        atLineStart = false
        write(children, isLast: last)
        append(delimiter)
    }

    mutating func writeCode(_ code: String) {
        var longest = 0
        var run = 0
        for character in code {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let needsPadding = code.first == "`" || code.last == "`"
            || (code.first == " " && code.last == " " && code.contains { $0 != " " })
        var body = needsPadding ? " " + code + " " : code
        if context == .tableCell { body = body.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
        append(fence + body + fence)
        atLineStart = false
    }

    static let alwaysEscaped: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", "~"]
    static let lineStartEscaped: Set<Character> = ["#", ">", "-", "+", "=", "|"]

    mutating func writeText(_ text: String) {
        let characters = Array(text)
        var output = ""
        var index = 0
        var lineStart = atLineStart
        while index < characters.count {
            let character = characters[index]
            if lineStart {
                if character == " " || character == "\t" {
                    output += character == " " ? "&#32;" : "&#9;"
                    index += 1
                    lineStart = false
                    continue
                }
                if Self.lineStartEscaped.contains(character) {
                    output += "\\" + String(character)
                    index += 1
                    lineStart = false
                    continue
                }
                if character.isASCII, character.isNumber {
                    var end = index
                    while end < characters.count, characters[end].isASCII, characters[end].isNumber { end += 1 }
                    output += String(characters[index..<end])
                    if end < characters.count, characters[end] == "." || characters[end] == ")" {
                        output += "\\" + String(characters[end])
                        end += 1
                    }
                    index = end
                    lineStart = false
                    continue
                }
            }
            lineStart = false
            if Self.alwaysEscaped.contains(character) || (context == .tableCell && character == "|") {
                output += "\\" + String(character)
            } else if character == "&", index + 1 < characters.count,
                      characters[index + 1] == "#" || (characters[index + 1].isASCII && (characters[index + 1].isLetter || characters[index + 1].isNumber)) {
                output += "\\&"
            } else if character == "\n" {
                output += "&#10;"
            } else if character == "\r" {
                output += "&#13;"
            } else {
                output.append(character)
            }
            index += 1
        }
        append(output)
        atLineStart = lineStart
    }

    static func destination(_ url: String) -> String {
        if url.isEmpty { return "" }
        let needsAngle = url.contains { $0 == " " || $0 == "<" || $0 == ">" || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }
        var depth = 0
        var balanced = true
        for character in url {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1; if depth < 0 { balanced = false } }
        }
        balanced = balanced && depth == 0
        var output = ""
        for (offset, character) in url.enumerated() {
            let next = url.dropFirst(offset + 1).first
            switch character {
            case "\\": output += "\\\\"
            case "<" where needsAngle, ">" where needsAngle: output += "\\" + String(character)
            case "(" where !needsAngle && !balanced, ")" where !needsAngle && !balanced: output += "\\" + String(character)
            case "&" where next == "#" || next.map { $0.isASCII && ($0.isLetter || $0.isNumber) } == true: output += "\\&"
            case "\n": output += "%0A"
            default: output.append(character)
            }
        }
        return needsAngle ? "<" + output + ">" : output
    }

    static func title(_ title: String?) -> String {
        guard let title else { return "" }
        var output = " \""
        for (offset, character) in title.enumerated() {
            let next = title.dropFirst(offset + 1).first
            switch character {
            case "\\", "\"": output += "\\" + String(character)
            case "&" where next == "#" || next.map { $0.isASCII && ($0.isLetter || $0.isNumber) } == true: output += "\\&"
            default: output.append(character)
            }
        }
        return output + "\""
    }
}
