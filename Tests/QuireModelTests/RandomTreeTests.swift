import QuireAlgorithms
import Testing
@testable import QuireModel

/// Random documents exported and imported again must come back equal, node for node.
@Suite struct RandomTreeTests {
    static let alphabet: [String] = ["a", "Z", " ", "é", "👍🏽", "👨‍👩‍👧‍👦", "🇺🇸", "中", "\"", "\\", "\n", "\u{1}", "\u{301}", "\u{2028}", "x"]

    static func randomText(_ generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
    }

    static func randomState(_ generator: inout SeededGenerator) throws -> EditorState {
        var state = EditorState()
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            let block: NodeKey
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                block = state.createUnknownNode(type: "callout", role: .element(inline: false), fields: [
                    "emoji": .string(randomText(&generator)), "version": .number(.integer(2)),
                ])
            case 1:
                block = state.createUnknownNode(type: "horizontalrule", role: .decorator(inline: false), fields: ["version": .number(.integer(1))])
            default:
                block = try state.createNode(type: .paragraph, fields: [
                    "indent": .number(.integer(Int.random(in: 0...3, using: &generator))),
                    "format": .string(ElementAlignment.allCases.randomElement(using: &generator)!.rawValue),
                    "direction": Bool.random(using: &generator) ? .null : .string("rtl"),
                ])
            }
            try state.append(block, to: .root)
            guard state[block]!.role.isElement else { continue }
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let child: NodeKey
                switch Int.random(in: 0..<8, using: &generator) {
                case 0: child = try state.createNode(type: .lineBreak)
                case 1: child = try state.createNode(type: .tab, text: "\t")
                case 2:
                    child = state.createUnknownNode(type: "mention", role: .text, text: randomText(&generator), fields: [
                        "mentionName": .string(randomText(&generator)), "version": .number(.integer(1)),
                    ])
                default:
                    child = try state.createNode(type: .text, text: randomText(&generator), fields: [
                        "format": .number(.integer(Int.random(in: 0..<2048, using: &generator))),
                        "mode": .string(TextMode.allCases.randomElement(using: &generator)!.rawValue),
                        "style": .string(Bool.random(using: &generator) ? "" : "color: red"),
                        "detail": .number(.integer(Int.random(in: 0...3, using: &generator))),
                    ])
                }
                try state.append(child, to: block)
            }
        }
        return state
    }

    @Test func thousandRandomTreesRoundTrip() throws {
        var generator = SeededGenerator(seed: 20_261_121)
        for _ in 0..<1_000 {
            let state = try Self.randomState(&generator)
            let exported = LexicalJSON.exportBytes(state)
            let imported = try LexicalJSON.importState(from: exported)
            #expect(LexicalJSON.export(imported) == LexicalJSON.export(state))
            #expect(FlatString.render(imported) == FlatString.render(state))
            #expect(try shape(of: imported) == shape(of: state))
        }
    }

    /// The tree without keys: each node's type, role, text, fields and children, in order.
    indirect enum Shape: Equatable {
        case node(type: NodeType, role: NodeRole, unknown: Bool, text: String, fields: JSONObject, children: [Shape])
    }

    func shape(of state: EditorState, at key: NodeKey = .root) throws -> Shape {
        let node = try state.node(key)
        let children = try state.children(of: key).map { try shape(of: state, at: $0.key) }
        #expect(children.count == node.childCount)
        return .node(type: node.type, role: node.role, unknown: node.isUnknown, text: node.text, fields: node.fields, children: children)
    }
}
