/// The flat string a text view shows for a document, as Lexical iOS defines it: each node
/// contributes its preamble, then its children or its text, then its postamble. A block's
/// postamble is "\n" when a next sibling follows, a line break is "\n", a tab is "\t" and a
/// decorator is U+FFFC. Lengths are in UTF-16 units.
public enum FlatString {
    /// The object replacement character that stands for a decorator or an attachment.
    public static let objectReplacement = "\u{FFFC}"

    /// The flat string of the whole document.
    ///
    /// - Complexity: O(n) in the number of nodes plus the text length. Incremental updates are
    ///   the reconciler's job; this full render is its oracle.
    public static func render(_ state: EditorState) -> String {
        var output = ""
        append(state.root, in: state, to: &output)
        return output
    }

    /// The flat string of one node's subtree, its own preamble and postamble included.
    public static func render(_ key: NodeKey, in state: EditorState) -> String {
        guard let node = state[key] else { return "" }
        var output = ""
        append(node, in: state, to: &output)
        return output
    }

    /// What a node contributes before its content.
    public static func preamble(of node: Node, in state: EditorState) -> String {
        preamble(of: node, plugin: state.plugin(of: node), in: state)
    }

    /// What a node contributes before its content, its plugin (`EditorState.plugin(of:)`)
    /// already at hand: for a walk of many nodes of a few types.
    public static func preamble(of node: Node, plugin: (any NodePlugin)?, in state: EditorState) -> String {
        plugin?.preamble(of: node, in: state) ?? ""
    }

    /// What a node contributes after its content.
    public static func postamble(of node: Node, in state: EditorState) -> String {
        postamble(of: node, plugin: state.plugin(of: node), in: state)
    }

    /// What a node contributes after its content, its plugin (`EditorState.plugin(of:)`) already
    /// at hand.
    public static func postamble(of node: Node, plugin: (any NodePlugin)?, in state: EditorState) -> String {
        if let plugin { return plugin.postamble(of: node, in: state) }
        return defaultPostamble(of: node)
    }

    /// The node's own content: its text, "\n" for a line break, U+FFFC for a decorator, and
    /// nothing for an element (its children are its content).
    public static func content(of node: Node) -> String {
        switch node.role {
        case .text: node.text
        case .lineBreak: "\n"
        case .decorator: objectReplacement
        case .root, .element: ""
        }
    }

    /// Lexical iOS's rule: a block (element or decorator) that has a next sibling ends with "\n".
    public static func defaultPostamble(of node: Node) -> String {
        switch node.role {
        case .element(inline: false), .decorator(inline: false):
            node.nextSibling == nil ? "" : "\n"
        default:
            ""
        }
    }

    private static func append(_ start: Node, in state: EditorState, to output: inout String) {
        // Iterative, so a deeply nested document cannot overflow the stack.
        enum Step { case enter(Node), leave(Node) }
        var stack: [Step] = [.enter(start)]
        while let step = stack.popLast() {
            switch step {
            case .enter(let node):
                output += preamble(of: node, in: state)
                output += content(of: node)
                stack.append(.leave(node))
                if node.role.isElement {
                    var children: [Node] = []
                    children.reserveCapacity(node.childCount)
                    for child in state.children(of: node.key) { children.append(child) }
                    for child in children.reversed() { stack.append(.enter(child)) }
                }
            case .leave(let node):
                output += postamble(of: node, in: state)
            }
        }
    }
}
