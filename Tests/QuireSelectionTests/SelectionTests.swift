import QuireModel
import QuirePositionIndex
import QuireReconciler
import Testing
@testable import QuireSelection

/// Lexical iOS's example tree: root → P["hello ", bold "world"], P["Paragraph 2 contains another
/// text node"], P[], P["Third para."].
struct ExampleTree {
    var state: EditorState
    let hello: NodeKey
    let world: NodeKey
    let second: NodeKey
    let emptyParagraph: NodeKey
    let third: NodeKey
    let index: PositionIndex<NodeKey>

    init() throws {
        var state = EditorState(paragraphs: ["hello ", "Paragraph 2 contains another text node", "", "Third para."])
        let first = state.child(at: 0, of: .root)!
        let world = try state.createNode(type: .text, text: "world", fields: ["format": .number(.integer(1))])
        try state.append(world, to: first)
        self.hello = state[first]!.firstChild!
        self.world = world
        self.second = state[state.child(at: 1, of: .root)!]!.firstChild!
        self.emptyParagraph = state.child(at: 2, of: .root)!
        self.third = state[state.child(at: 3, of: .root)!]!.firstChild!
        self.state = state
        self.index = try Reconciler.buildIndex(state)
    }
}

@Suite struct SelectionMapperTests {
    @Test func resolvesTheExampleTreeLikeLexicalIOS() throws {
        let tree = try ExampleTree()
        #expect(tree.index.totalLength == 63)
        func point(_ location: Int, _ direction: SearchDirection) throws -> Point {
            try SelectionMapper.point(at: location, direction: direction, in: tree.state, index: tree.index)
        }
        #expect(try point(0, .forward) == .text(tree.hello, 0))
        #expect(try point(6, .backward) == .text(tree.hello, 6))
        #expect(try point(6, .forward) == .text(tree.world, 0))
        #expect(try point(11, .forward) == .text(tree.world, 5))
        #expect(try point(11, .backward) == .text(tree.world, 5))
        #expect(try point(12, .forward) == .text(tree.second, 0))
        #expect(try point(51, .forward) == .element(tree.emptyParagraph, 0))
        #expect(try point(51, .backward) == .element(tree.emptyParagraph, 0))
        #expect(try point(63, .forward) == .text(tree.third, 11))
    }

    @Test func everyLocationRoundTrips() throws {
        let tree = try ExampleTree()
        for location in 0...63 {
            for direction in [SearchDirection.forward, .backward] {
                let point = try SelectionMapper.point(at: location, direction: direction, in: tree.state, index: tree.index)
                #expect(try SelectionMapper.location(of: point, in: tree.state, index: tree.index) == location, "location \(location) \(direction)")
            }
        }
    }

    @Test func everyRangeRoundTripsAsASelection() throws {
        let tree = try ExampleTree()
        for start in 0...63 {
            for end in start...63 {
                for backward in [false, true] {
                    let selection = try SelectionMapper.selection(for: start..<end, isBackward: backward, in: tree.state, index: tree.index)
                    let mapped = try SelectionMapper.range(of: selection, in: tree.state, index: tree.index)
                    #expect(mapped.range == start..<end)
                    #expect(mapped.isBackward == (backward && start != end))
                }
            }
        }
    }

    @Test func badInputThrows() throws {
        let tree = try ExampleTree()
        #expect(throws: SelectionError.locationOutOfBounds(64, length: 63)) {
            try SelectionMapper.point(at: 64, in: tree.state, index: tree.index)
        }
        #expect(throws: SelectionError.invalidPoint(.text(NodeKey(999), 0))) {
            try SelectionMapper.location(of: .text(NodeKey(999), 0), in: tree.state, index: tree.index)
        }
        #expect(throws: SelectionError.invalidPoint(.text(tree.hello, 7))) {
            try SelectionMapper.location(of: .text(tree.hello, 7), in: tree.state, index: tree.index)
        }
    }

    @Test func clampsPointsAtRemovedNodes() throws {
        var tree = try ExampleTree()
        let previous = tree.state
        try tree.state.remove(tree.state[tree.second]!.parent!)
        let clamped = SelectionMapper.clamp(RangeSelection(caret: .text(tree.second, 5)), in: tree.state, previous: previous)
        #expect(clamped.anchor == .text(tree.third, 11))
        let kept = SelectionMapper.clamp(RangeSelection(caret: .text(tree.world, 9)), in: tree.state, previous: previous)
        #expect(kept.anchor == .text(tree.world, 5))
    }
}
