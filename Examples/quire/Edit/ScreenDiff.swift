/// What the terminal shows: one string per row (SGR codes included, no cursor movement) and
/// where the cursor stands. Drawing compares two frames and rewrites only the rows that differ.
struct ScreenFrame: Hashable, Sendable {
    var rows: [String]
    /// 0-based row and column of the cursor, nil to hide it.
    var cursor: (row: Int, column: Int)?

    init(rows: [String], cursor: (row: Int, column: Int)?) {
        self.rows = rows
        self.cursor = cursor
    }

    static func == (lhs: ScreenFrame, rhs: ScreenFrame) -> Bool {
        lhs.rows == rhs.rows && lhs.cursor?.row == rhs.cursor?.row && lhs.cursor?.column == rhs.cursor?.column
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(rows)
        hasher.combine(cursor?.row)
        hasher.combine(cursor?.column)
    }
}

enum ScreenDiff {
    /// The rows of `new` to rewrite when the terminal shows `old` (every row without one, or
    /// when the sizes differ: a resize redraws all).
    ///
    /// - Complexity: O(rows).
    static func changedRows(from old: ScreenFrame?, to new: ScreenFrame) -> [Int] {
        guard let old, old.rows.count == new.rows.count else { return Array(new.rows.indices) }
        return new.rows.indices.filter { old.rows[$0] != new.rows[$0] }
    }

    /// The bytes that turn `old` into `new`: the changed rows, each cleared to its end, then the
    /// cursor placed (or hidden), all between a hidden-cursor bracket so that it does not flicker.
    static func output(from old: ScreenFrame?, to new: ScreenFrame) -> String {
        let rows = changedRows(from: old, to: new)
        var output = "\u{1B}[?25l"
        if old == nil || old?.rows.count != new.rows.count { output += "\u{1B}[2J" }
        for row in rows {
            output += "\u{1B}[\(row + 1);1H\u{1B}[0m" + new.rows[row] + "\u{1B}[0m\u{1B}[K"
        }
        if let cursor = new.cursor {
            output += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h"
        }
        return output
    }
}
