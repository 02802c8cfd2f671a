import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

/// The markdown behaviours Lexical's @lexical/markdown tests pin down, and the export rules.
@Suite struct LexicalBehaviourTests {
    let converter = BuiltIns.converter

    func roundTrip(_ markdown: String) throws -> String {
        let written = try converter.markdown(from: try converter.state(fromMarkdown: markdown))
        return written.hasSuffix("\n") ? String(written.dropLast()) : written
    }

    /// The children of `key` as (type, text) pairs, texts empty for elements.
    func shape(_ state: EditorState, _ key: NodeKey) -> [String] {
        state.children(of: key).map { $0.role == .text ? "\($0.type)(\($0.text))" : $0.type.rawValue }
    }

    @Test(arguments: [
        "- Item 1\n- Item **2**",
        "25. Hello\n26. world",
        "> Hello\n> world!",
        "- 1\\. foo",
        "- [x] done\n- [ ] todo",
        "# Title\n\nText with *italic*, **bold**, ~~struck~~ and `code`.",
        "| a | b |\n| --- | :-: |\n| 1 | 2 |",
        "```swift\nlet x = 1\n```",
        "Escapes: \\* \\_ \\~ \\` \\[x\\]",
        "- Level 1\n  - Level 2\n    - Level 3\n\nHello world",
    ])
    func roundTrips(markdown: String) throws {
        #expect(try roundTrip(markdown) == markdown)
    }

    @Test func nestedListsBecomeListItemsHoldingAList() throws {
        let state = try converter.state(fromMarkdown: "- Level 1\n    - Level 2\n        - Level 3\n\nHello world")
        let top = Array(state.children(of: .root))
        #expect(top.map(\.type.rawValue) == ["list", "paragraph"])
        let items = Array(state.children(of: top[0].key))
        #expect(items.map { shape(state, $0.key) } == [["text(Level 1)"], ["list"]])
        let level2 = Array(state.children(of: items[1].key))[0]
        let level2Items = Array(state.children(of: level2.key))
        #expect(level2Items.map { shape(state, $0.key) } == [["text(Level 2)"], ["list"]])
        let level3 = Array(state.children(of: level2Items[1].key))[0]
        #expect(Array(state.children(of: level3.key)).map { shape(state, $0.key) } == [["text(Level 3)"]])
        #expect(shape(state, top[1].key) == ["text(Hello world)"])
    }

    @Test func orderedListKeepsItsStart() throws {
        let state = try converter.state(fromMarkdown: "25. Hello\n26. world")
        let list = try #require(state.children(of: .root).first)
        #expect(list.fields["listType"] == .string("number"))
        #expect(list.fields["start"]?.intValue == 25)
        #expect(state.children(of: list.key).map { $0.fields["value"]?.intValue } == [25, 26])
    }

    @Test func tripleStarsAreBoldAndItalic() throws {
        let state = try converter.state(fromMarkdown: "***Hello*** world")
        let paragraph = try #require(state.children(of: .root).first)
        let texts = Array(state.children(of: paragraph.key))
        #expect(texts.map(\.text) == ["Hello", " world"])
        #expect(texts.map(\.textFormat) == [[.bold, .italic], []])
    }

    @Test func quotedLinesAreOneQuoteWithALineBreak() throws {
        let state = try converter.state(fromMarkdown: "> Hello\n> world!")
        let quote = try #require(state.children(of: .root).first)
        #expect(quote.type == "quote")
        #expect(shape(state, quote.key) == ["text(Hello)", "linebreak", "text(world!)"])
    }

    @Test func escapedOrderedMarkerInBulletTextKeepsItsEscape() throws {
        let state = try converter.state(fromMarkdown: "- 1\\. foo")
        let list = try #require(state.children(of: .root).first)
        let item = try #require(state.children(of: list.key).first)
        #expect(shape(state, item.key) == ["text(1. foo)"])
        #expect(try roundTrip("- 1\\. foo") == "- 1\\. foo")
    }

    @Test func taskItemsAreACheckList() throws {
        let state = try converter.state(fromMarkdown: "- [x] done\n- [ ] todo")
        let list = try #require(state.children(of: .root).first)
        #expect(list.fields["listType"] == .string("check"))
        #expect(state.children(of: list.key).map { $0.fields["checked"] } == [.bool(true), .bool(false)])
    }

    /// A fence is longer than any line of the code that could close it (backticks alone, after
    /// at most three spaces); the longer fence is then kept as the block's `markup.fence`.
    @Test(arguments: [("a`b", 3), ("``x```", 3), ("plain", 3), ("```", 4), ("   `````  ", 6), ("    ````", 3)])
    func codeFencesAreLongerThanAnyLineThatWouldCloseThem(code: String, fence: Int) throws {
        var state = try converter.state(fromMarkdown: "```\nplaceholder\n```")
        let block = try #require(state.children(of: .root).first)
        let text = try #require(state.children(of: block.key).first)
        try state.setText(code, of: text.key)
        let written = try converter.markdown(from: state)
        let ticks = String(repeating: "`", count: fence)
        #expect(written == "\(ticks)\n\(code)\n\(ticks)\n")
        var again = try converter.state(fromMarkdown: written)
        let againBlock = try #require(again.children(of: .root).first)
        #expect(againBlock.fields[MarkupDetails.field] == (fence == 3 ? nil : .object([MarkupDetails.fence: .string(ticks)])))
        try again.setField(MarkupDetails.field, to: nil, of: againBlock.key)
        #expect(LexicalJSON.export(again) == LexicalJSON.export(state))
    }

    @Test func blocksAreSeparatedByBlankLinesAndSiblingListsStaySeparate() throws {
        var state = EditorState(registry: BuiltIns.registry, paragraphs: ["one", "two"])
        for _ in 0..<2 {
            let list = try state.createNode(type: "list")
            let item = try state.createNode(type: "listitem")
            try state.append(try state.createNode(type: .text, text: "item"), to: item)
            try state.append(item, to: list)
            try state.append(list, to: .root)
        }
        let written = try converter.markdown(from: state)
        #expect(written == "one\n\ntwo\n\n- item\n\n* item\n")
        // The second list's other bullet is what keeps it separate: the import keeps it.
        var again = try converter.state(fromMarkdown: written)
        let lists = again.children(of: .root).filter { $0.type == "list" }
        #expect(lists.map { $0.fields[MarkupDetails.field] } == [nil, .object([MarkupDetails.bullet: "*"])])
        try again.setField(MarkupDetails.field, to: nil, of: lists[1].key)
        #expect(LexicalJSON.export(again) == LexicalJSON.export(state))
        #expect(try converter.markdown(from: again) == written)
    }

    @Test(arguments: ["*", "_", "~", "`", "# x", "> x", "+ x", "1) x", "<b>", "&amp;"])
    func specialCharactersInTextAreEscaped(text: String) throws {
        var state = EditorState(registry: BuiltIns.registry, paragraphs: [text])
        let written = try converter.markdown(from: state)
        let again = try converter.state(fromMarkdown: written)
        #expect(LexicalJSON.export(again) == LexicalJSON.export(state), "\(written)")
        state = again
        #expect(FlatString.render(state) == text)
    }
}
