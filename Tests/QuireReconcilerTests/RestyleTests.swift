import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage
import Testing

/// An element whose attributes change restyles its descendants; in the same commit a descendant's
/// postamble may appear. Whichever is reconciled first, the new postamble must not take over the
/// attributes of the character after it.
@Suite struct RestyleTests {
    @Test func aRestyledElementWithANewPostambleInside() throws {
        var registry = NodeRegistry()
        try registry.register(BoxPlugin())
        try registry.register(RulePlugin())
        let tone = AttributeKey("test.tone")
        let theme = Theme(nodeStyles: ["box": { node in [tone: .string(node.fields["tone"]?.stringValue ?? "")] }])
        // Shifting the keys changes the order in which the change set's nodes are visited.
        for padding in 0..<24 {
            var state = EditorState(registry: registry)
            for _ in 0..<padding { try state.createNode(type: .paragraph) }
            let box = try state.createNode(type: "box")
            try state.append(box, to: .root)
            try state.append(try state.createNode(type: "rule"), to: box)
            let outside = try state.createNode(type: .paragraph)
            try state.append(outside, to: .root)
            try state.append(try state.createNode(type: .text, text: "c"), to: outside)
            let storage = TextStorage()
            let reconciler = try Reconciler(state: state, storage: storage, theme: theme, checksInvariants: true)
            // One commit: the box changes tone and the paragraph moves in after the rule, whose
            // postamble appears.
            var next = state
            next.clearDirtyNodes()
            try next.setField("tone", to: .string("loud"), of: box)
            try next.detach(outside)
            try next.append(outside, to: box)
            try reconciler.reconcile(from: state, to: next)
            #expect(storage.string == "\u{FFFC}\nc")
        }
    }
}
