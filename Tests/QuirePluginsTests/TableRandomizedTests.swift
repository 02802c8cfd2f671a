import QuireAlgorithms
import QuireEditor
import QuireHorizontalRule
import QuireLink
import QuireModel
import QuireTable
import QuireTextStorage
import Testing

/// Random table commands, typing, deletions, Tab and native range replacements through an editor
/// with a text storage. After every step every table must be a proper grid and the storage must
/// equal the flat string of the state (the reconciler also checks its storage and index against a
/// full render after each commit in debug builds).
@Suite struct TableRandomizedTests {
    static let texts = ["x", "yz", "\n", "é", "👍🏽", " ", "a\nb", "\t"]

    @Test(arguments: [11, 2024, 777_777] as [UInt64])
    func randomEditingKeepsTablesValid(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var start = try PluginFixture.state(["intro", "middle", "outro"])
        let middle = try #require(start.child(at: 1, of: .root).flatMap { start[$0]?.firstChild })
        try start.select(.text(middle, 3))
        try start.insertTable(rows: 3, columns: 3)
        let (editor, storage) = try PluginFixture.editor(start)
        #expect(editor.reconciler.checksInvariants, "tests run as a debug build, so every commit is checked")
        var counts: [String: Int] = [:]
        for index in 0..<2_500 {
            var operation = ""
            try step(editor, storage, &random, operation: &operation)
            counts[operation, default: 0] += 1
            let violations = TableMap.violations(in: editor.state)
            guard violations.isEmpty, storage.string == FlatString.render(editor.state) else {
                Issue.record("seed \(seed), step \(index) (\(operation)): \(violations); storage \(storage.string.debugDescription) vs \(FlatString.render(editor.state).debugDescription)")
                return
            }
        }
        // Every kind of step ran.
        #expect(counts.count >= 14, "\(counts)")
    }

    /// One random step; `operation` names it before it runs.
    func step(_ editor: Editor, _ storage: TextStorage, _ random: inout SeededGenerator, operation: inout String) throws {
        // Locations between grapheme clusters, as a text view produces them.
        var boundaries = [0]
        for character in storage.string { boundaries.append(boundaries[boundaries.count - 1] + character.utf16.count) }
        func location() -> Int { boundaries.randomElement(using: &random)! }
        func range() -> Range<Int> {
            let a = location(), b = location()
            return min(a, b)..<max(a, b)
        }
        var cellCount = 0
        for table in editor.state.children(of: .root) where table.type == TableNodePlugin.type {
            cellCount += try TableMap(table: table.key, in: editor.state).cells.count
        }
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<14:
            let selected = range()
            operation = "select"
            try editor.selectionDidChange(selected)
        case 14..<30:
            let caret = location()
            let text = Self.texts.randomElement(using: &random)!
            operation = "type"
            try editor.replaceCharacters(in: caret..<caret, with: text)
        case 30..<40:
            let replaced = range()
            let replacement = ["", "q", "\n", "r\ns"].randomElement(using: &random)!
            operation = "replace"
            try editor.replaceCharacters(in: replaced, with: replacement)
        case 40..<48:
            let index = Int.random(in: 0..<boundaries.count, using: &random)
            operation = "native backspace"
            if index > 0 { try editor.replaceCharacters(in: boundaries[index - 1]..<boundaries[index], with: "") }
        case 48..<54:
            let caret = location()
            let backward = Bool.random(using: &random)
            operation = "delete command"
            try editor.selectionDidChange(caret..<caret)
            try editor.dispatch(Commands.deleteCharacter, backward)
        case 54..<62:
            let shift = Bool.random(using: &random)
            operation = "tab"
            try editor.dispatch(Commands.keyTab, shift)
        case 62..<66:
            operation = "enter"
            try editor.dispatch(Commands.insertParagraph)
        default:
            try tableCommand(editor, cellCount: cellCount, &random, operation: &operation)
        }
    }

    func tableCommand(_ editor: Editor, cellCount: Int, _ random: inout SeededGenerator, operation: inout String) throws {
        let growing = cellCount < 40
        switch Int.random(in: 0..<11, using: &random) {
        case 0:
            let options = InsertTableOptions(rows: Int.random(in: 1...3, using: &random), columns: Int.random(in: 1...3, using: &random))
            operation = "insert table"
            try editor.dispatch(TableCommands.insertTable, options)
        case 1 where growing:
            let command = Bool.random(using: &random) ? TableCommands.insertRowAbove : TableCommands.insertRowBelow
            operation = "insert row"
            try editor.dispatch(command)
        case 2 where growing:
            let command = Bool.random(using: &random) ? TableCommands.insertColumnBefore : TableCommands.insertColumnAfter
            operation = "insert column"
            try editor.dispatch(command)
        case 3:
            operation = "delete rows"
            try editor.dispatch(TableCommands.deleteRows)
        case 4:
            operation = "delete columns"
            try editor.dispatch(TableCommands.deleteColumns)
        case 5, 6:
            operation = "merge selection"
            try editor.dispatch(TableCommands.mergeCells, nil)
        case 7:
            operation = "merge range"
            guard let table = editor.state.children(of: .root).first(where: { $0.type == TableNodePlugin.type }) else { return }
            let map = try TableMap(table: table.key, in: editor.state)
            let rows = [Int.random(in: 0..<map.rowCount, using: &random), Int.random(in: 0..<map.rowCount, using: &random)].sorted()
            let columns = [Int.random(in: 0..<map.columnCount, using: &random), Int.random(in: 0..<map.columnCount, using: &random)].sorted()
            try editor.dispatch(TableCommands.mergeCells, TableCellRange(table: table.key, rows: rows[0]...rows[1], columns: columns[0]...columns[1]))
        case 8, 9:
            operation = "unmerge"
            try editor.dispatch(TableCommands.unmergeCell)
        default:
            operation = "insert rule"
            try editor.dispatch(HorizontalRuleCommands.insertHorizontalRule)
        }
    }
}
