import QuireTestSupport
import Testing
@testable import QuireModel

/// Editing next to the blocks that are not text blocks: block decorators (a horizontal rule),
/// editing boundaries (a table cell), positions between blocks, and inline elements that refuse
/// text at their edges (a link).
@Suite struct BlockBoundaryTests {
    /// A block decorator, like a horizontal rule.
    struct RulePlugin: NodePlugin {
        var type: NodeType { "rule" }
        var role: NodeRole { .decorator(inline: false) }
    }

    /// A block container that isolates its content, like a table cell.
    struct BoxPlugin: NodePlugin {
        var type: NodeType { "box" }
        var role: NodeRole { .element(inline: false) }
        var childRule: ChildRule { .blocks }
        var isolatesContent: Bool { true }
    }

    /// An inline element that keeps typing at its edges outside, like a link.
    struct AnchorPlugin: NodePlugin {
        var type: NodeType { "anchor" }
        var role: NodeRole { .element(inline: true) }
        var canInsertTextBefore: Bool { false }
        var canInsertTextAfter: Bool { false }
    }

    static func registry() throws -> NodeRegistry {
        var registry = NodeRegistry()
        try registry.register(RulePlugin())
        try registry.register(BoxPlugin())
        try registry.register(AnchorPlugin())
        return registry
    }

    /// root → paragraph("abc"), rule, paragraph("def"): flat "abc\n\u{FFFC}\ndef".
    static func ruled(after first: String = "abc", before last: String = "def") throws -> (EditorState, rule: NodeKey, first: NodeKey, last: NodeKey) {
        var state = EditorState(registry: try registry(), paragraphs: [first, last])
        let rule = try state.createNode(type: "rule")
        try state.insert(rule, after: state.root.firstChild!)
        return (state, rule, state.root.firstChild!, state.root.lastChild!)
    }

    func firstText(_ block: NodeKey, _ state: EditorState) -> NodeKey { state[block]!.firstChild! }

    // MARK: Block decorators

    @Test func backspaceRightAfterARuleRemovesIt() throws {
        var (state, _, _, last) = try Self.ruled()
        let text = firstText(last, state)
        try state.select(.text(text, 0))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "abc\ndef")
        #expect(state.selection?.anchor == .text(text, 0))
    }

    @Test func deleteRightBeforeARuleRemovesIt() throws {
        var (state, _, first, _) = try Self.ruled()
        let text = firstText(first, state)
        try state.select(.text(text, 3))
        try state.deleteCharacter(backward: false)
        #expect(FlatString.render(state) == "abc\ndef")
        #expect(state.selection?.anchor == .text(text, 3))
    }

    @Test func backspaceInAnEmptyParagraphAfterARuleRemovesTheParagraphFirst() throws {
        var (state, rule, _, last) = try Self.ruled(before: "")
        try state.select(.element(last, 0))
        try state.deleteCharacter(backward: true)
        #expect(FlatString.render(state) == "abc\n\u{FFFC}")
        #expect(state.selection?.anchor == .element(.root, 2), "the caret sits right after the rule")
        try state.deleteCharacter(backward: true)
        #expect(state[rule] == nil)
        #expect(FlatString.render(state) == "abc")
    }

    /// What a text view sends for Backspace after the rule: the "\n" after U+FFFC, from right
    /// after the rule (an element point in the root) to the start of the next paragraph.
    @Test func deletingTheSeparatorAfterARuleRemovesIt() throws {
        var (state, rule, _, last) = try Self.ruled()
        let text = firstText(last, state)
        try state.select(anchor: .element(.root, 2), focus: .text(text, 0))
        try state.removeSelectedText()
        #expect(state[rule] == nil)
        #expect(FlatString.render(state) == "abc\ndef")
        #expect(state.selection?.anchor == .text(text, 0))
    }

    @Test func deletingTheSeparatorBeforeARuleRemovesIt() throws {
        var (state, rule, first, _) = try Self.ruled()
        let text = firstText(first, state)
        try state.select(anchor: .text(text, 3), focus: .element(.root, 1))
        try state.removeSelectedText()
        #expect(state[rule] == nil)
        #expect(FlatString.render(state) == "abc\ndef")
        #expect(state.selection?.anchor == .text(text, 3))
    }

    @Test func deletingTheRuleItselfKeepsBothParagraphs() throws {
        var (state, rule, _, last) = try Self.ruled()
        try state.select(anchor: .element(.root, 1), focus: .element(.root, 2))
        try state.removeSelectedText()
        #expect(state[rule] == nil)
        #expect(FlatString.render(state) == "abc\ndef")
        #expect(state.selection?.anchor == .text(firstText(last, state), 0))
    }

    @Test func aRangeOverARuleAndTextDeletesBothAndMerges() throws {
        var (state, rule, first, last) = try Self.ruled()
        try state.select(anchor: .text(firstText(first, state), 1), focus: .text(firstText(last, state), 1))
        try state.removeSelectedText()
        #expect(state[rule] == nil)
        #expect(FlatString.render(state) == "aef")
    }

    @Test func aRangeFromAfterARuleKeepsTheRule() throws {
        var (state, rule, _, last) = try Self.ruled()
        let text = firstText(last, state)
        try state.select(anchor: .element(.root, 2), focus: .text(text, 2))
        try state.insertText("X")
        #expect(state[rule] != nil)
        #expect(FlatString.render(state) == "abc\n\u{FFFC}\nXf")
    }

    @Test func aRangeStartingBeforeARuleRemovesIt() throws {
        var (state, rule, _, last) = try Self.ruled()
        try state.select(anchor: .element(.root, 1), focus: .text(firstText(last, state), 2))
        try state.removeSelectedText()
        #expect(state[rule] == nil)
        #expect(FlatString.render(state) == "abc\nf")
    }

    @Test func rulesInsideARangeGoAndTheOneBetweenTwoRulesIsAPlace() throws {
        var (state, rule, _, _) = try Self.ruled()
        let second = try state.createNode(type: "rule")
        try state.insert(second, after: rule)
        // After the first rule and before the second are one point: nothing to delete.
        try state.select(anchor: .element(.root, 2), focus: .element(.root, 2))
        try state.removeSelectedText()
        #expect(FlatString.render(state) == "abc\n\u{FFFC}\n\u{FFFC}\ndef")
        try state.select(anchor: .element(.root, 1), focus: .element(.root, 3))
        try state.removeSelectedText()
        #expect(FlatString.render(state) == "abc\ndef", "both rules were inside the range")
    }

    @Test func typingAndEnterBesideARuleMakeAParagraph() throws {
        var (state, rule, _, _) = try Self.ruled()
        try state.select(.element(.root, 2))
        try state.insertText("x")
        #expect(FlatString.render(state) == "abc\n\u{FFFC}\nx\ndef")
        try state.select(.element(.root, 1))
        try state.insertParagraph()
        #expect(FlatString.render(state) == "abc\n\n\u{FFFC}\nx\ndef")
        #expect(state[rule] != nil)
        let empty = try #require(state.child(at: 1, of: .root))
        #expect(state.selection?.anchor == .element(empty, 0))
    }

    @Test func typingIntoAnEmptyDocumentMakesAParagraph() throws {
        var state = EditorState(registry: try Self.registry())
        try state.select(.element(.root, 0))
        try state.insertInput("a\nb")
        #expect(FlatString.render(state) == "a\nb")
    }

    // MARK: Editing boundaries

    /// root → paragraph("ab"), box(paragraph("cd")), paragraph("ef").
    static func boxed() throws -> (EditorState, [NodeKey]) {
        var state = EditorState(registry: try registry(), paragraphs: ["ab", "cd", "ef"])
        let box = try state.createNode(type: "box")
        let middle = state.child(at: 1, of: .root)!
        try state.detach(middle)
        try state.append(middle, to: box)
        try state.insert(box, after: state.root.firstChild!)
        return (state, state.textBlocks().map { state[$0]!.firstChild! })
    }

    @Test func deleteBeforeABoxDoesNotPullItsContentOut() throws {
        var (state, texts) = try Self.boxed()
        try state.select(.text(texts[0], 2))
        try state.deleteCharacter(backward: false)
        #expect(FlatString.render(state) == "ab\ncd\nef")
        #expect(state.selection?.anchor == .text(texts[0], 2))
    }

    @Test func textBlockNavigationStopsAtBoundariesAndSkipsDecorators() throws {
        var (state, _) = try Self.boxed()
        let blocks = state.textBlocks()
        let rule = try state.createNode(type: "rule")
        try state.insert(rule, after: state.root.lastChild!)
        let tail = try state.createNode(type: .paragraph)
        try state.append(tail, to: .root)
        #expect(state.nextTextBlock(after: blocks[0]) == nil, "the next text block is inside the box")
        #expect(state.nextTextBlock(after: blocks[0], crossingBoundaries: true) == blocks[1])
        #expect(state.previousTextBlock(before: blocks[2]) == nil)
        #expect(state.nextTextBlock(after: blocks[2]) == tail, "the rule holds no text block")
        #expect(state.previousTextBlock(before: tail) == blocks[2])
        #expect(state.firstTextBlock(in: rule) == nil)
        #expect(state.lastTextBlock(in: state.child(at: 1, of: .root)!) == nil)
        #expect(state.lastTextBlock(in: state.child(at: 1, of: .root)!, crossingBoundaries: true) == blocks[1])
    }

    @Test func textBlocksOfASubtreeAreTheDocumentsInThatSubtree() throws {
        var (state, _) = try Self.boxed()
        let rule = try state.createNode(type: "rule")
        try state.insert(rule, after: state.root.lastChild!)
        let blocks = state.textBlocks()
        #expect(blocks.count == 3)
        #expect(state.children(of: .root).flatMap { state.textBlocks(in: $0.key) } == blocks)
        #expect(state.textBlocks(in: .root) == blocks)
        #expect(state.textBlocks(in: blocks[0]) == [blocks[0]], "a text block is its own")
        #expect(state.textBlocks(in: rule).isEmpty)
        #expect(state.textBlocks(in: state.child(at: 1, of: .root)!) == [blocks[1]], "the box's paragraph")
    }

    @Test func aRangeFromBetweenBlocksDeletesFromTheNextBlock() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["ab", "cd", "ef"])
        let texts = state.textBlocks().map { state[$0]!.firstChild! }
        try state.select(anchor: .element(.root, 1), focus: .text(texts[2], 1))
        try state.removeSelectedText()
        #expect(FlatString.render(state) == "ab\nf")
    }

    /// A container that holds only boxes and may be left empty, like a table row whose cells all
    /// span in from the row above.
    struct ShelfPlugin: NodePlugin {
        var type: NodeType { "shelf" }
        var role: NodeRole { .element(inline: false) }
        var childRule: ChildRule { .only(["box"]) }
    }

    @Test func editingInAContainerThatHoldsNoTextMovesToTheNearestTextBlock() throws {
        var registry = try Self.registry()
        try registry.register(ShelfPlugin())
        var state = EditorState(registry: registry, paragraphs: ["ab", "cd"])
        let blocks = state.children(of: .root).map(\.key)
        let texts = blocks.map { state[$0]!.firstChild! }
        let shelf = try state.createNode(type: "shelf")
        let box = try state.createNode(type: "box")
        try state.detach(blocks[0])
        try state.append(blocks[0], to: box)
        try state.append(box, to: shelf)
        try state.prepend(shelf, to: .root)
        let empty = try state.createNode(type: "shelf")
        try state.insert(empty, after: shelf)
        // Backspace with the caret in the empty shelf removes nothing.
        try state.select(.element(empty, 0))
        try state.deleteCharacter(backward: true)
        #expect(state.isAttached(empty))
        // Typing there goes to the end of the text block before it.
        try state.insertText("x")
        #expect(state[texts[0]]?.text == "abx")
        #expect(FlatString.render(state) == "abx\n\ncd")
        // A range from the empty shelf into "cd" deletes only text.
        try state.select(anchor: .element(empty, 0), focus: .text(texts[1], 1))
        try state.removeSelectedText()
        #expect(state.isAttached(empty) && state.isAttached(shelf))
        #expect(FlatString.render(state) == "abx\n\nd")
    }

    @Test func aBoxLosingItsOnlyRuleGetsAParagraph() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["after"])
        let box = try state.createNode(type: "box")
        let rule = try state.createNode(type: "rule")
        try state.append(rule, to: box)
        try state.prepend(box, to: .root)
        var backspace = state
        try backspace.select(.element(box, 1))
        try backspace.deleteCharacter(backward: true)
        let paragraph = try #require(backspace[box]?.firstChild)
        #expect(backspace[paragraph]?.type == .paragraph)
        #expect(backspace.selection?.anchor == .element(paragraph, 0))
        // A range from before the rule to the paragraph after the box.
        try state.select(anchor: .element(box, 0), focus: .text(state[state.root.lastChild!]!.firstChild!, 2))
        try state.removeSelectedText()
        #expect(state[box]?.childCount == 1 && state[rule] == nil)
        #expect(FlatString.render(state) == "\nter")
    }

    @Test func isolatingPluginsPassTheConformanceChecksForBoundaries() throws {
        let registry = try Self.registry()
        #expect(NodePluginConformance.violations(of: BoxPlugin(), in: registry).isEmpty)
    }

    // MARK: Inline elements that refuse text at their edges

    /// root → paragraph("go ", anchor("here"), "!").
    static func anchored(trailing: String? = "!") throws -> (EditorState, anchorText: NodeKey, anchor: NodeKey) {
        var state = EditorState(registry: try registry(), paragraphs: ["go "])
        let paragraph = state.root.firstChild!
        let anchor = try state.createNode(type: "anchor")
        let text = try state.createNode(type: .text, text: "here")
        try state.append(text, to: anchor)
        try state.append(anchor, to: paragraph)
        if let trailing { try state.append(try state.createNode(type: .text, text: trailing), to: paragraph) }
        return (state, text, anchor)
    }

    @Test func typingAtTheEndOfARefusingElementGoesAfterIt() throws {
        var (state, text, anchor) = try Self.anchored()
        try state.select(.text(text, 4))
        try state.insertText("X")
        #expect(state[text]?.text == "here")
        let after = try #require(state[anchor]?.nextSibling)
        #expect(state[after]?.text == "X!")
        #expect(state.selection?.anchor == .text(after, 1))
    }

    @Test func typingAtTheEndOfARefusingElementAtTheBlockEndMakesANode() throws {
        var (state, text, anchor) = try Self.anchored(trailing: nil)
        try state.select(.text(text, 4))
        try state.insertText("X")
        try state.insertText("Y")
        let after = try #require(state[anchor]?.nextSibling)
        #expect(state[after]?.text == "XY")
        #expect(state[anchor]?.parent == state[after]?.parent)
    }

    @Test func typingAtTheStartOfARefusingElementGoesBeforeItAndInsideStaysInside() throws {
        var (state, text, anchor) = try Self.anchored()
        try state.select(.text(text, 0))
        try state.insertText("X")
        let before = try #require(state[anchor]?.previousSibling)
        #expect(state[before]?.text == "go X")
        try state.select(.text(text, 2))
        try state.insertText("-")
        #expect(state[text]?.text == "he-re")
        #expect(FlatString.render(state) == "go Xhe-re!")
    }

    // MARK: Inserting a block at the nearest root

    @Test func insertBlockAtNearestRootSplitsAndKeepsBothHalves() throws {
        for (offset, expected) in [(0, "\n\u{FFFC}\nabc"), (1, "a\n\u{FFFC}\nbc"), (3, "abc\n\u{FFFC}\n")] {
            var state = EditorState(registry: try Self.registry(), paragraphs: ["abc"])
            try state.select(.text(state.root.firstChild.flatMap { state[$0]?.firstChild }!, offset))
            let rule = try state.createNode(type: "rule")
            try state.insertBlockAtNearestRoot(rule)
            #expect(FlatString.render(state) == expected)
            #expect(state.root.childCount == 3)
            let after = try #require(state.child(at: 2, of: .root))
            #expect(state.selection?.anchor == state.startPoint(of: after))
        }
    }

    @Test func insertBlockAtNearestRootStopsAtAnEditingBoundary() throws {
        var (state, texts) = try Self.boxed()
        try state.select(.text(texts[1], 1))
        let rule = try state.createNode(type: "rule")
        try state.insertBlockAtNearestRoot(rule)
        let box = try #require(state.child(at: 1, of: .root))
        #expect(state[rule]?.parent == box)
        #expect(FlatString.render(state) == "ab\nc\n\u{FFFC}\nd\nef")
    }

    @Test func moveChildrenChangesNothingWhenTheTargetRefusesOne() throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["ab"])
        let paragraph = state.root.firstChild!
        let rule = try state.createNode(type: "rule")
        try state.append(rule, to: .root)
        try state.append(try state.createNode(type: .paragraph), to: .root)
        let box = try state.createNode(type: "box")
        try state.append(box, to: .root)
        let before = state
        // The root's children from 0: a paragraph, the rule, a paragraph, the box itself (a cycle).
        #expect(throws: ModelError.self) { try state.moveChildren(of: .root, from: 0, to: box, at: 0) }
        #expect(FlatString.render(state) == FlatString.render(before))
        #expect(state[paragraph]?.parent == .root)
    }
}
