import QuireMarkup
import QuireModel
import Testing

@Suite struct MarkupExporterTests {
    func paragraph(_ runs: [(String, TextFormat)]) throws -> EditorState {
        var state = EditorState()
        let paragraph = try state.createNode(type: .paragraph)
        try state.append(paragraph, to: .root)
        for (text, format) in runs {
            let key = try state.createNode(type: .text, text: text)
            try state.setTextFormat(format, of: key)
            try state.append(key, to: paragraph)
        }
        return state
    }

    @Test func overlappingFormatsNestLongestFirst() throws {
        // italic "a b c" with bold "b": the italic span opens first and encloses the bold one.
        let state = try paragraph([("a ", .italic), ("b", [.italic, .bold]), (" c", .italic)])
        let document = try MarkupExporter(mappings: MarkupMappings([])).makeDocument(state)
        let expected = MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.emphasis, children: [
                MarkupInline(.text("a ")), MarkupInline(.strong, children: [MarkupInline(.text("b"))]), MarkupInline(.text(" c")),
            ]),
        ])])
        #expect(document == expected)
    }

    @Test func whitespaceAtASpanEdgeMovesOutside() throws {
        let state = try paragraph([("x", []), (" bold ", .bold), ("y", [])])
        let document = try MarkupExporter(mappings: MarkupMappings([])).makeDocument(state)
        let expected = MarkupDocument(blocks: [MarkupBlock(.paragraph, inlines: [
            MarkupInline(.text("x")), MarkupInline(.text(" ")),
            MarkupInline(.strong, children: [MarkupInline(.text("bold"))]),
            MarkupInline(.text(" ")), MarkupInline(.text("y")),
        ])])
        #expect(document == expected)
    }

    @Test func unmappedNodesAreErrorsWithTheirPath() throws {
        let json = #"{"root":{"type":"root","children":[{"type":"paragraph","children":[]},{"type":"mystery","children":[]}]}}"#
        let state = try LexicalJSON.importState(from: json)
        #expect(throws: MarkupError.unmappedNode(type: "mystery", path: "$.root.children[1]")) {
            try MarkupExporter(mappings: MarkupMappings([])).makeDocument(state)
        }
    }
}
