import ArgumentParser
import Foundation
import QuireMarkup
import QuireTextStorage

/// `quire show FILE --width N`: the document rendered through the markup pipeline to the terminal
/// with ANSI styles; `--html` writes it as an HTML document through the configured `html`
/// format (every node and format kept) instead.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Render a document (.md, .txt, .html or Lexical .json) to the terminal, or as HTML with --html."
    )

    @Argument(help: "The document (.md, .txt, .html or .json).") var file: String
    @Option(help: "The terminal width in cells (1 to \(Self.widths.upperBound)).") var width: Int = 80
    @Flag(help: "Write an HTML rendering instead.") var html = false
    @Flag(help: "Leave out ANSI escape codes.") var plain = false
    @Flag(help: "With --html: fail (status 1, nothing written) when anything is warned about.") var strict = false
    @OptionGroup var config: ConfigOptions

    /// The pixels of an image one terminal cell stands for: an image is drawn as a box of the
    /// cells it would cover (capped at the width), labelled with its alt text.
    static let imageCell = AttachmentSize(width: 8, height: 16)

    /// The theme's block styles, but code blocks wrap: output written to a terminal cannot
    /// scroll sideways.
    static let blockStyles = BlockStyles.standard.replacing(.codeBlock, with: StandardBlockStyle(.codeBlock, codeOverflow: .wrap))

    /// The widths a terminal may have; the layout and every line drawn are sized by it.
    static let widths = 1...10_000

    func validate() throws {
        guard Self.widths.contains(width) else {
            throw ValidationError("--width must be from \(Self.widths.lowerBound) to \(Self.widths.upperBound), not \(width)")
        }
    }

    func run() throws {
        let setup = try MarkupSetup(config)
        if html {
            let output = try setup.write(try setup.loadState(file), as: "html", source: file)
            try setup.warnings.check(strict: strict)
            FileHandle.standardOutput.write(Data(output.utf8))
            return
        }
        let document = try setup.loadDocument(file)
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        let metrics = TerminalMetrics(imageCell: Self.imageCell)
        // A text file's paragraphs are its lines: drawn one under the other, not spaced as blocks.
        let blockStyles = setup.isPlainText(file) ? BlockStyles.compact : Self.blockStyles
        let pipeline = MarkupPipeline(attachments: AttachmentCache(loader: FileAttachmentLoader(baseDirectory: base)),
                                      builder: RunBuilder(metrics: metrics, blockStyles: blockStyles))
        // The root command is synchronous, so the async pipeline runs to completion here.
        let width = self.width
        let built = BlockingTask.run { await pipeline.build(document, proposal: Double(width)) }
        let layout = TextLayout(built, width: Double(width), metrics: metrics)
        let output = TerminalRenderer(built: built, layout: layout, width: width, ansi: !plain).render()
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}

/// Runs async work from a synchronous command and waits for it.
enum BlockingTask {
    final class Box<T: Sendable>: @unchecked Sendable {
        // Written once by the task before the semaphore signals; read after the wait.
        var value: T?
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            box.value = await work()
            semaphore.signal()
        }
        semaphore.wait()
        return box.value!
    }
}

/// Draws a layout with ANSI styles: the block styles' spacing as blank rows, markers in the indent, quote bars, rules, tables with box
/// characters and attachments as labelled boxes.
struct TerminalRenderer {
    let built: BuiltText
    let layout: TextLayout
    let width: Int
    let ansi: Bool
    /// Whether a run's text is underlined beyond what its style says (the editor's underline
    /// format, which markup has no intent for).
    var underlined: (Range<Int>) -> Bool = { _ in false }

    func text(_ range: Range<Int>) -> String {
        String(decoding: built.units[range], as: UTF16.self).replacingOccurrences(of: "\u{2028}", with: "")
    }

    func styled(_ string: String, _ style: TextStyle, heading: Int?, underlined: Bool = false) -> String {
        guard ansi else { return string }
        var codes: [String] = []
        if style.font.bold { codes.append("1") }
        if style.font.italic { codes.append("3") }
        if style.underline || heading == 1 || underlined { codes.append("4") }
        if style.strikethrough { codes.append("9") }
        if style.font.family == "monospace" { codes.append("36") }
        if style.link != nil { codes.append("34") }
        if style.foreground == "gray" { codes.append("90") }
        return codes.isEmpty ? string : "\u{1B}[" + codes.joined(separator: ";") + "m" + string + "\u{1B}[0m"
    }

    func cells(_ string: String) -> Int { string.reduce(0) { $0 + TerminalMetrics.cells(of: $1) } }

    func render() -> String {
        var output = ""
        var paragraphIndex = 0
        let paragraphs = built.paragraphs
        while paragraphIndex < paragraphs.count {
            let path = paragraphs[paragraphIndex].paragraph.path
            // The block styles' spacing, collapsed between neighbours, as blank rows.
            output += String(repeating: "\n", count: Int(paragraphs[paragraphIndex].spacingBefore.rounded()))
            if let table = path.first(where: { if case .table = $0.intent { true } else { false } }) {
                var cellsByRow: [[String]] = []
                var rowIDs: [Int] = []
                while paragraphIndex < paragraphs.count, paragraphs[paragraphIndex].paragraph.path.contains(where: { $0.id == table.id }) {
                    let cellPath = paragraphs[paragraphIndex].paragraph.path
                    let rowID = cellPath.first(where: { if case .tableRow = $0.intent { true } else { false } })?.id ?? -1
                    if rowIDs.last != rowID { rowIDs.append(rowID); cellsByRow.append([]) }
                    let range = paragraphs[paragraphIndex].paragraph.range
                    cellsByRow[cellsByRow.count - 1].append(text(range.lowerBound..<(range.upperBound - 1)))
                    paragraphIndex += 1
                }
                output += drawTable(cellsByRow)
                continue
            }
            output += renderParagraph(paragraphIndex)
            paragraphIndex += 1
        }
        return output
    }

    func drawTable(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = Array(repeating: 1, count: columns)
        for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cells(cell)) } }
        func rule(_ left: String, _ middle: String, _ right: String) -> String {
            left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right + "\n"
        }
        var output = rule("┌", "┬", "┐")
        for (index, row) in rows.enumerated() {
            var line = "│"
            for column in 0..<columns {
                let cell = column < row.count ? row[column] : ""
                let padded = " " + cell + String(repeating: " ", count: widths[column] - cells(cell)) + " "
                line += (index == 0 && ansi ? "\u{1B}[1m" + padded + "\u{1B}[0m" : padded) + "│"
            }
            output += line + "\n"
            if index == 0 && rows.count > 1 { output += rule("├", "┼", "┤") }
        }
        return output + rule("└", "┴", "┘")
    }

    func renderParagraph(_ index: Int) -> String {
        let first = layout.firstLine[index]
        let end = index + 1 < layout.firstLine.count ? layout.firstLine[index + 1] : layout.lines.count
        return layout.lines[first..<end].indices.map { renderLine($0) + "\n" }.joined()
    }

    /// One line of the layout, without its final line end: its indent with the marker or quote
    /// bar, then its runs styled (a thematic break is a rule across the width). A line holding an
    /// image box taller than one row is that many rows, the text on the last.
    func renderLine(_ lineIndex: Int) -> String {
        renderRows(lineIndex).joined(separator: "\n")
    }

    /// An attachment placeholder as rows of exactly `width` cells: its label in reverse video on
    /// one row, or a box of `height` rows with the alt text (the source without one) inside.
    func attachmentRows(_ run: LayoutRun, label: String, height: Int) -> [String] {
        let width = max(1, Int(run.width.rounded()))
        guard height >= 2, width >= 2 else {
            let fitted = fit(label, width, fill: " ")
            return [ansi ? "\u{1B}[7m" + fitted + "\u{1B}[0m" : fitted]
        }
        let name = run.attachment.map { $0.alt.isEmpty ? $0.source : $0.alt } ?? label
        let inner = width - 2
        var rows = ["┌" + (height == 2 ? fit(name, inner, fill: "─") : String(repeating: "─", count: inner)) + "┐"]
        for row in 1..<(height - 1) { rows.append("│" + fit(row == 1 ? name : "", inner, fill: " ") + "│") }
        rows.append("└" + String(repeating: "─", count: inner) + "┘")
        return rows
    }

    /// `text` cut or padded with `fill` to exactly `width` cells (a wide character that would
    /// straddle the edge is left out).
    func fit(_ text: String, _ width: Int, fill: Character) -> String {
        var result = ""
        var used = 0
        for character in text {
            let cells = TerminalMetrics.cells(of: character)
            if used + cells > width { break }
            result.append(character)
            used += cells
        }
        return result + String(repeating: fill, count: width - used)
    }

    /// The rows of one line (see ``renderLine(_:)``).
    func renderRows(_ lineIndex: Int) -> [String] {
        let line = layout.lines[lineIndex]
        let paragraph = built.paragraphs[line.paragraph]
        let path = paragraph.paragraph.path
        if case .thematicBreak = paragraph.paragraph.block.intent { return [String(repeating: "─", count: width)] }
        var heading: Int?
        if case .heading(let level) = paragraph.paragraph.block.intent { heading = level }
        let inQuote = path.contains { $0.intent == .blockQuote }
        let indent = Int(line.x)
        var prefix = String(repeating: " ", count: indent)
        if inQuote, indent >= 2 {
            prefix = "│ " + String(repeating: " ", count: indent - 2)
        }
        if !line.marker.isEmpty {
            let markerWidth = cells(line.marker) + 1
            prefix = String(prefix.prefix(max(0, indent - markerWidth))) + line.marker + " "
        }
        let rowCount = max(1, Int(line.height.rounded(.up)))
        var rows = Array(repeating: "", count: rowCount)
        for run in line.runs {
            if let label = run.label {
                let built = paragraph.runs.first { $0.range == run.range }
                let height = min(rowCount, max(1, Int((built?.size?.height ?? 1).rounded(.up))))
                let box = attachmentRows(run, label: label, height: height)
                let blank = String(repeating: " ", count: max(1, Int(run.width.rounded())))
                for row in 0..<rowCount { rows[row] += row < rowCount - box.count ? blank : box[row - (rowCount - box.count)] }
            } else {
                let string = text(run.range)
                for row in 0..<(rowCount - 1) { rows[row] += String(repeating: " ", count: cells(string)) }
                rows[rowCount - 1] += styled(string, run.style, heading: heading, underlined: underlined(run.range))
            }
        }
        let continuation = inQuote && indent >= 2 ? "│ " + String(repeating: " ", count: indent - 2) : String(repeating: " ", count: indent)
        return rows.enumerated().map { row, body in
            // Trailing spaces go; a regular expression did this in time quadratic in their number.
            var text = (row == rowCount - 1 ? prefix : continuation) + body
            while text.last == " " { text.removeLast() }
            return text
        }
    }
}
