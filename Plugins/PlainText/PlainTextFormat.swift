import QuireMarkup
import QuireModel

/// Plain text (`.txt`) as a markup format: every line is a paragraph of its text, and writing
/// joins the paragraphs with "\n". The editor's flat string of such a document is the file's
/// text, and `.txt → document → .txt` gives the same bytes for any input with "\n" line endings
/// — an empty file (one empty paragraph), blank lines (empty paragraphs), a final line ending
/// (an empty last paragraph) or none, tabs and any Unicode kept as text.
///
/// "\r\n" and a lone "\r" are read as line endings too (the project's input policy accepts
/// CRLF); writing always uses "\n", so a CRLF file comes back with LF endings.
///
/// A document made elsewhere is written as its text: blocks of inline content as their plain
/// text (line breaks as "\n", an image as its alt text), code and raw HTML as their lines, a
/// thematic break as "* * *" (what the importer makes of one without a mapping), a table row as
/// its cells joined by " | ", containers (quotes, lists, items, footnotes) as their blocks.
public struct PlainTextFormat: MarkupParser, MarkupSerializer {
    /// A format.
    public init() {}

    /// "plaintext".
    public var formatName: String { "plaintext" }
    /// txt, text.
    public var fileExtensions: [String] { ["txt", "text"] }

    /// One paragraph per line; a line's text is everything between line endings ("\n", "\r\n",
    /// "\r"), and an empty line is a paragraph without inlines. Never fails.
    ///
    /// - Complexity: O(n) in the input size.
    public func parse(_ source: String) throws(MarkupError) -> MarkupDocument {
        var blocks: [MarkupBlock] = []
        var line = ""
        var lineNumber = 1
        var lineStart = 0
        var byteOffset = 0
        var afterCarriageReturn = false
        func finishLine() {
            let length = line.utf8.count
            let range = SourceRange(start: SourcePosition(line: lineNumber, column: 1, byteOffset: lineStart),
                                    end: SourcePosition(line: lineNumber, column: max(1, length), byteOffset: lineStart + max(0, length - 1)))
            blocks.append(MarkupBlock(.paragraph, inlines: line.isEmpty ? [] : [MarkupInline(.text(line), range: range)], range: range))
            line = ""
            lineNumber += 1
        }
        for scalar in source.unicodeScalars {
            let width = UTF8.width(scalar)
            defer { byteOffset += width }
            if scalar == "\n" {
                // The "\n" of a "\r\n" ends nothing more: the "\r" ended the line.
                if !afterCarriageReturn { finishLine() }
                afterCarriageReturn = false
                lineStart = byteOffset + width
                continue
            }
            afterCarriageReturn = false
            if scalar == "\r" {
                finishLine()
                afterCarriageReturn = true
                lineStart = byteOffset + width
                continue
            }
            line.unicodeScalars.append(scalar)
        }
        finishLine()
        return MarkupDocument(blocks: blocks)
    }

    /// Parses UTF-8 bytes, refusing invalid UTF-8 with its line, column and byte offset.
    public func parse(bytes: [UInt8]) throws(MarkupError) -> MarkupDocument {
        try parse(SourcePosition.text(validating: bytes))
    }

    /// The document's lines joined by "\n", with no line ending after the last.
    ///
    /// - Complexity: O(n) in the document's size.
    public func serialize(_ document: MarkupDocument) throws(MarkupError) -> String {
        var lines: [String] = []
        for block in document.blocks { Self.appendLines(of: block, to: &lines) }
        return lines.joined(separator: "\n")
    }

    static func appendLines(of block: MarkupBlock, to lines: inout [String]) {
        switch block.intent {
        case .paragraph, .heading, .tableCell:
            lines.append(block.inlines.map(\.plainText).joined())
        case .codeBlock, .htmlBlock:
            var literal = Substring(block.literal)
            if literal.hasSuffix("\n") { literal.removeLast() }
            lines.append(String(literal))
        case .thematicBreak:
            lines.append("* * *")
        case .tableRow:
            lines.append(block.children.map { $0.inlines.map(\.plainText).joined() }.joined(separator: " | "))
        case .blockQuote, .list, .listItem, .table, .footnoteDefinition:
            for child in block.children { appendLines(of: child, to: &lines) }
        }
    }
}

extension PluginDescriptor {
    /// The plain-text plugin, selected as `plaintext`: contributes ``PlainTextFormat`` as the
    /// parser and serializer of `.txt` files.
    public static let plainText = PluginDescriptor(
        name: "plaintext", summary: "Plain text (.txt): one paragraph per line", options: NoOptions.self
    ) { _ in ([], [.markupParser(PlainTextFormat()), .markupSerializer(PlainTextFormat())]) }
}
