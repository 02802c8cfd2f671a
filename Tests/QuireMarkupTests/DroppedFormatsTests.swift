import QuireAlgorithms
import QuireModel
import Testing
import QuireMarkup

/// `MarkupExporter.droppedFormats(in:)` walks the tree along its links; on random trees nested
/// up to six deep (text first, last and alone at every depth, the walk climbing out of several
/// levels at once), it finds exactly the formats a plain recursive walk finds.
@Suite struct DroppedFormatsTests {
    static func recursiveDropped(_ state: EditorState, under key: NodeKey) -> TextFormat {
        var dropped: TextFormat = []
        for child in state.children(of: key) {
            if child.role == .text { dropped.formUnion(child.textFormat.subtracting(MarkupExporter.expressibleFormats)) }
            dropped.formUnion(recursiveDropped(state, under: child.key))
        }
        return dropped
    }

    static func fill(_ state: inout EditorState, under parent: NodeKey, depth: Int, using random: inout SeededGenerator) throws {
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            // The root takes blocks only: its children are boxes.
            if depth == 0 || (depth < 6 && Bool.random(using: &random)) {
                let element = state.createUnknownNode(type: "box", role: .element(inline: false), fields: ["version": .number(.integer(1))])
                try state.append(element, to: parent)
                try fill(&state, under: element, depth: depth + 1, using: &random)
            } else {
                // Mostly formats markup writes; now and then one it cannot (underline, subscript).
                let formats: [TextFormat] = [[], .bold, .italic, .code, [.bold, .strikethrough], .underline, .subscript]
                let format = Int.random(in: 0..<4, using: &random) == 0 ? formats.randomElement(using: &random)! : formats[Int.random(in: 0..<5, using: &random)]
                let text = state.createUnknownNode(type: "styled", role: .text, text: "t", fields: ["format": .number(.integer(format.rawValue))])
                try state.append(text, to: parent)
            }
        }
    }

    @Test func theLinkWalkFindsWhatARecursiveWalkFinds() throws {
        var random = SeededGenerator(seed: 0xD0_F0)
        var found = 0
        for _ in 0..<2_000 {
            var state = EditorState()
            try Self.fill(&state, under: .root, depth: 0, using: &random)
            let expected = Self.recursiveDropped(state, under: .root)
            if !expected.isEmpty { found += 1 }
            #expect(MarkupExporter.droppedFormats(in: state) == expected)
        }
        // Both answers occur often.
        #expect(found > 300 && found < 1_700)
    }
}
