import QuireAlgorithms
import QuireEditor
import QuireList
import QuireModel
import Testing

/// Seeded random list editing through an editor with a text storage: list commands, Tab and
/// Shift-Tab, check boxes, Enter, Backspace, Delete, typing and pasting at random places. After
/// every step the tree has Lexical's list shape, every `value` equals a count from scratch, and
/// the storage and position index equal a full render and a rebuilt index.
@Suite struct ListRandomTests {
    /// What is wrong with the lists of `state`, as readable lines; empty when nothing is.
    static func violations(in state: EditorState) -> [String] {
        var problems: [String] = []
        var pending: [NodeKey] = [.root]
        while let key = pending.popLast(), let node = state[key] {
            pending.append(contentsOf: state.children(of: key).map(\.key))
            if node.type == ListItemNodePlugin.type {
                guard state.isList(node.parent) else {
                    problems.append("item \(key) is not in a list")
                    continue
                }
                let hasList = state.children(of: key).contains { $0.type == ListNodePlugin.type }
                if hasList && node.childCount != 1 { problems.append("wrapper \(key) holds \(node.childCount) children") }
                if node.indent != state.listDepth(of: key) { problems.append("item \(key) has indent \(node.indent), depth \(state.listDepth(of: key))") }
                let isCheck = node.parent.map { state.listType(of: $0) } == .check
                if isCheck != (ListItemNodePlugin.isChecked(node) != nil) { problems.append("item \(key): checked \(String(describing: node.fields["checked"])) in a \(isCheck ? "check" : "non-check") list") }
            }
            if node.type == ListNodePlugin.type {
                if node.childCount == 0 { problems.append("list \(key) is empty") }
                if let parent = node.parent, parent != .root, !state.isListItem(parent) { problems.append("list \(key) sits in a \(state[parent]?.type.rawValue ?? "?")") }
                var expected = node.fields["start"]?.intValue ?? 1
                for child in state.children(of: key) {
                    if child.type != ListItemNodePlugin.type { problems.append("list \(key) holds a \(child.type)") }
                    if child.fields["value"]?.intValue != expected {
                        problems.append("item \(child.key) has value \(String(describing: child.fields["value"])), expected \(expected)")
                    }
                    if !state.isNestedListWrapper(child.key) { expected += 1 }
                }
            }
        }
        return problems
    }

    enum Step: CaseIterable {
        case insertList, removeList, toggleList, indent, outdent, toggleChecked, setStart
        case enter, backspace, delete, type, paste, select
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomListEditingKeepsShapeNumbersAndStorage(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let editor = try Blocks.editor(try Blocks.state(document(
            paragraph(text("alpha")), list(.number, item(1, text("one")), item(2, text("two"))), paragraph(text("omega")))))
        let steps = 1200
        for index in 0..<steps {
            var step = Step.allCases.randomElement(using: &generator)!
            let length = editor.storage?.length ?? 0
            if length > 300 && (step == .type || step == .paste || step == .enter) { step = .backspace }
            let selection = editor.nativeSelection ?? 0..<0
            let context = "seed \(seed), step \(index) (\(step)), text \(editor.storage?.string.debugDescription ?? ""), selection \(selection), state \(LexicalJSON.exportString(editor.state))"
            do {
                switch step {
                case .insertList: try editor.dispatch(ListCommands.insertList, ListType.allCases.randomElement(using: &generator)!)
                case .removeList: try editor.dispatch(ListCommands.removeList)
                case .toggleList: try editor.dispatch(ListCommands.toggleList, ListType.allCases.randomElement(using: &generator)!)
                case .indent: try editor.dispatch(Commands.keyTab, false)
                case .outdent: try editor.dispatch(Commands.keyTab, true)
                case .toggleChecked: try editor.dispatch(ListCommands.toggleChecked, nil)
                case .setStart:
                    let inNumberList = editor.read { state in
                        state.selection.flatMap { state.listItem(containing: $0.anchor.key) }.flatMap { state[$0]?.parent }
                            .map { state.listType(of: $0) == .number } ?? false
                    }
                    if inNumberList { try editor.dispatch(ListCommands.setStart, Int.random(in: 0...9, using: &generator)) }
                case .enter: try editor.replaceCharacters(in: selection, with: "\n")
                case .backspace:
                    let range = selection.isEmpty ? max(0, selection.lowerBound - 1)..<selection.lowerBound : selection
                    try editor.replaceCharacters(in: range, with: "")
                case .delete: try editor.dispatch(Commands.deleteCharacter, false)
                case .type: try editor.replaceCharacters(in: selection, with: String("abc xyz".randomElement(using: &generator)!))
                case .paste: try editor.replaceCharacters(in: selection, with: ["p\nq", "r\n", "\ns\nt"].randomElement(using: &generator)!)
                case .select:
                    let start = Int.random(in: 0...length, using: &generator)
                    let end = Bool.random(using: &generator) ? start : Int.random(in: start...length, using: &generator)
                    try editor.selectionDidChange(start..<end)
                }
            } catch {
                Issue.record("\(context): \(error)")
                return
            }
            let problems = Self.violations(in: editor.state)
            guard problems.isEmpty else {
                Issue.record("\(context): \(problems)\n\(LexicalJSON.exportString(editor.state))")
                return
            }
            try editor.reconciler.verify(editor.state)
            #expect(editor.nativeSelection != nil, "\(context): the selection maps to the storage")
        }
    }
}
