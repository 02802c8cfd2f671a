import QuireAlgorithms
import QuireMarkup

/// A collaborator's colour: one of six terminal colours, the same on every peer's screen since it
/// is chosen from the peer's presence key (not from the order peers were seen in).
struct PeerColour: Hashable, Sendable {
    /// 0–5: red, green, yellow, blue, magenta, cyan.
    let index: Int

    static let count = 6

    init(index: Int) { self.index = ((index % Self.count) + Self.count) % Self.count }

    /// The colour of a presence key: FNV-1a of its UTF-8 bytes (Swift's `Hasher` is seeded per
    /// process, so two editors would disagree).
    init(key: String) {
        self.init(index: Int(StableHash.of(key.utf8) % UInt64(Self.count)))
    }

    /// SGR of a selected cell: the colour as background.
    var selectionSGR: String { "\u{1B}[\(41 + index)m" }
    /// SGR of the caret's cell: the bright background, so that the caret stands out in a selection.
    var caretSGR: String { "\u{1B}[\(101 + index)m" }
    /// SGR of the name label: black on the colour.
    var labelSGR: String { "\u{1B}[30;\(41 + index)m" }
}

/// A collaborator's caret and selection on the screen: cells of screen rows.
struct PeerMark: Hashable, Sendable {
    var name: String
    var colour: PeerColour
    /// Where the selection starts and ends (row, column), in screen cells; equal for a caret.
    var start: ScreenPosition
    /// The caret: the selection's focus end.
    var caret: ScreenPosition
    var end: ScreenPosition

    struct ScreenPosition: Hashable, Sendable, Comparable {
        var row: Int
        var column: Int
        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.row, lhs.column) < (rhs.row, rhs.column) }
    }
}

/// Paints collaborators' carets, selections and name labels over the rendered rows of a frame.
/// Rows are the renderer's strings (text with SGR codes); painting walks them cell by cell, so
/// wide characters and the renderer's own styles are kept.
enum PresencePainter {
    /// What to paint on one row.
    struct RowPaint: Hashable, Sendable {
        /// Cells with a background: columns and the SGR that starts it. Later spans win.
        var spans: [(columns: Range<Int>, sgr: String)] = []
        /// Labels drawn after the row's text, one space apart.
        var labels: [(text: String, sgr: String)] = []

        static func == (lhs: RowPaint, rhs: RowPaint) -> Bool {
            lhs.spans.map(\.columns) == rhs.spans.map(\.columns) && lhs.spans.map(\.sgr) == rhs.spans.map(\.sgr)
                && lhs.labels.map(\.text) == rhs.labels.map(\.text) && lhs.labels.map(\.sgr) == rhs.labels.map(\.sgr)
        }

        func hash(into hasher: inout Hasher) {
            for span in spans { hasher.combine(span.columns); hasher.combine(span.sgr) }
            for label in labels { hasher.combine(label.text); hasher.combine(label.sgr) }
        }
    }

    /// The paint of each row (0..<rows) for `marks` on a screen `columns` wide: a selection's
    /// cells in the peer's colour, its caret cell brighter, its name after the caret's row.
    ///
    /// - Complexity: O(marks × rows they cover).
    static func rowPaints(for marks: [PeerMark], rows: Int, columns: Int) -> [Int: RowPaint] {
        var paints: [Int: RowPaint] = [:]
        for mark in marks {
            let start = min(mark.start, mark.end), end = max(mark.start, mark.end)
            if start != end, end.row >= 0, start.row < rows {
                for row in max(0, start.row)...min(rows - 1, end.row) {
                    let from = row == start.row ? start.column : 0
                    let to = row == end.row ? end.column : columns
                    if from < to { paints[row, default: RowPaint()].spans.append((from..<to, mark.colour.selectionSGR)) }
                }
            }
            guard (0..<rows).contains(mark.caret.row) else { continue }
            let column = min(max(0, mark.caret.column), columns - 1)
            paints[mark.caret.row, default: RowPaint()].spans.append((column..<column + 1, mark.colour.caretSGR))
            paints[mark.caret.row, default: RowPaint()].labels.append((mark.name, mark.colour.labelSGR))
        }
        return paints
    }

    /// `row` with `paint` applied, no wider than `columns` cells. Selection spans stop at the
    /// row's text (a caret past it gets a blank cell); labels follow the text when they fit.
    ///
    /// - Complexity: O(length of the row + spans).
    static func paint(_ row: String, _ paint: RowPaint, columns: Int) -> String {
        guard !paint.spans.isEmpty || !paint.labels.isEmpty else { return row }
        // The SGR in force at each cell from the spans (the last span covering it wins).
        func background(at column: Int, textWidth: Int) -> String? {
            paint.spans.last { span in
                span.columns.contains(column) && (column < textWidth || span.columns.count == 1)
            }?.sgr
        }
        let textWidth = cells(of: row)
        var output = ""
        var column = 0
        var current: String?
        var characters = row.makeIterator()
        while let character = characters.next() {
            if character == "\u{1B}" {
                // An escape sequence: copied; the renderer's resets would end our background, so it
                // is set again after one.
                var sequence = String(character)
                while let next = characters.next() {
                    sequence.append(next)
                    if let scalar = next.unicodeScalars.first, (0x40...0x7E).contains(scalar.value), next != "[" { break }
                }
                output += sequence
                if let current { output += current }
                continue
            }
            let wanted = background(at: column, textWidth: textWidth)
            if wanted != current {
                output += wanted ?? "\u{1B}[49m"
                current = wanted
            }
            output.append(character)
            column += TerminalMetrics.cells(of: character)
        }
        // A caret past the text: blank cells up to it, the caret's one coloured.
        let caretsPast = paint.spans.filter { $0.columns.count == 1 && $0.columns.lowerBound >= column }
        if let farthest = caretsPast.map(\.columns.lowerBound).max(), farthest < columns {
            while column <= farthest {
                let wanted = background(at: column, textWidth: textWidth)
                if wanted != current {
                    output += wanted ?? "\u{1B}[49m"
                    current = wanted
                }
                output += " "
                column += 1
            }
        }
        if current != nil { output += "\u{1B}[49m" }
        for label in paint.labels {
            let width = label.text.reduce(0) { $0 + TerminalMetrics.cells(of: $1) } + 2
            guard column + 1 + width <= columns else { break }
            output += " " + label.sgr + " " + label.text + " " + "\u{1B}[0m"
            column += 1 + width
        }
        return output
    }

    /// The width in cells of a rendered row (escape sequences take none).
    static func cells(of row: String) -> Int {
        var width = 0
        var inEscape = false
        for character in row {
            if character == "\u{1B}" { inEscape = true; continue }
            if inEscape {
                if let scalar = character.unicodeScalars.first, (0x40...0x7E).contains(scalar.value), character != "[" { inEscape = false }
                continue
            }
            width += TerminalMetrics.cells(of: character)
        }
        return width
    }
}
