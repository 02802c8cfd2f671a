import QuireModel
import QuireStyle
import QuireTextStorage

/// The theme's attributes for the nodes of one state, remembered while one render or reconcile
/// runs.
///
/// A node's attributes are its parent's inherited attributes merged with what its type gives,
/// and siblings of one type mostly get the same: each distinct (inherited attributes, type) pair
/// is merged once here instead of once per node (a paste of 2,000 paragraphs merged attribute
/// dictionaries some 20,000 times, a third of its storage work). Attributes are numbered as they
/// are derived, so a derivation is keyed by the number of what it starts from; two numbers may
/// stand for equal attributes (reached along different paths), which costs a merge, never a
/// wrong result. Types whose attributes depend on a node's fields (`Theme.nodeStyles`) are merged
/// per node, as before. A class, so that the walks and edits of one reconcile share one memo.
final class StyleMemo {
    let theme: Theme
    let state: EditorState
    /// Attributes by number; 0 is the theme's base.
    @exclusivity(unchecked) private var values: [Attributes]
    /// The number of each element's inherited attributes (`Theme.elementAttributes(of:in:)`).
    @exclusivity(unchecked) private var elements: [NodeKey: Int] = [:]
    /// The number of inherited attributes merged with a node's own, by type.
    @exclusivity(unchecked) private var derived: [Derivation: Int] = [:]
    /// Content attributes (`Theme.contentAttributes(of:inherited:)`), by what they depend on.
    @exclusivity(unchecked) private var contents: [Content: Attributes] = [:]
    /// The last derivation and content looked up: a walk alternates between a few kinds of
    /// node (a paragraph, its text), so comparing with the last key mostly spares the hashing.
    @exclusivity(unchecked) private var lastDerivation: (key: Derivation, number: Int)?
    @exclusivity(unchecked) private var lastContent: (key: Content, attributes: Attributes)?
    /// The plugins of the types met so far: a document has few types, so a scan beats hashing.
    @exclusivity(unchecked) private var pluginTypes: [NodeType] = []
    @exclusivity(unchecked) private var plugins: [(any NodePlugin)?] = []

    private struct Derivation: Hashable {
        var inherited: Int
        var type: NodeType
        var role: NodeRole
    }

    private struct Content: Hashable {
        var inherited: Int
        var type: NodeType
        var role: NodeRole
        var format: TextFormat
        var style: String
    }

    init(theme: Theme, state: EditorState) {
        self.theme = theme
        self.state = state
        values = [theme.base]
    }

    /// A node's preamble, content and postamble with their attributes.
    ///
    /// - Complexity: O(1) on average once the node's parent and (inherited attributes, type)
    ///   were seen, plus the node's plugin's preamble and postamble.
    func parts(of node: Node) -> Reconciler.Parts {
        let inherited = node.parent.map { elementNumber(of: $0) } ?? 0
        var own = inherited
        if node.role.isElement {
            own = derive(from: inherited, node)
            elements[node.key] = own
        }
        let plugin = self.plugin(of: node)
        // An element's content attributes are its own (`Theme.contentAttributes(of:inherited:)`).
        let content = node.role.isElement ? values[own] : contentAttributes(of: node, inherited: inherited)
        return Reconciler.Parts(
            preamble: Reconciler.Piece(text: FlatString.preamble(of: node, plugin: plugin, in: state), attributes: values[own]),
            content: Reconciler.Piece(text: FlatString.content(of: node), attributes: content),
            postamble: Reconciler.Piece(text: FlatString.postamble(of: node, plugin: plugin, in: state), attributes: values[own])
        )
    }

    /// The number of `elementAttributes(of:)`: walks up to the nearest element already numbered
    /// (or above the root, or to a node missing from the state, as the theme stops there), then
    /// derives down.
    private func elementNumber(of key: NodeKey) -> Int {
        if let known = elements[key] { return known }
        var chain: [Node] = []
        var number = 0
        var current: NodeKey? = key
        while let candidate = current {
            if let known = elements[candidate] {
                number = known
                break
            }
            guard let node = state[candidate] else { break }
            chain.append(node)
            current = node.parent
        }
        for node in chain.reversed() {
            number = derive(from: number, node)
            elements[node.key] = number
        }
        return number
    }

    /// The number of the attributes numbered `inherited` merged with `node`'s own.
    private func derive(from inherited: Int, _ node: Node) -> Int {
        let byType = theme.nodeStyles.isEmpty || theme.nodeStyles[node.type] == nil
        let key = Derivation(inherited: inherited, type: node.type, role: node.role)
        if byType, let last = lastDerivation, last.key == key { return last.number }
        if byType, let known = derived[key] {
            lastDerivation = (key, known)
            return known
        }
        values.append(values[inherited].merging(theme.ownAttributes(of: node)))
        if byType {
            derived[key] = values.count - 1
            lastDerivation = (key, values.count - 1)
        }
        return values.count - 1
    }

    private func contentAttributes(of node: Node, inherited: Int) -> Attributes {
        guard theme.nodeStyles.isEmpty || theme.nodeStyles[node.type] == nil else {
            return theme.contentAttributes(of: node, inherited: values[inherited])
        }
        // Only a text node's content depends on its fields, through its format and style.
        let isText = node.role == .text
        let key = Content(
            inherited: inherited, type: node.type, role: node.role,
            format: isText ? node.textFormat : [], style: isText ? node.textStyle : ""
        )
        if let last = lastContent, last.key == key { return last.attributes }
        let attributes: Attributes
        if let known = contents[key] {
            attributes = known
        } else {
            attributes = theme.contentAttributes(of: node, inherited: values[inherited])
            contents[key] = attributes
        }
        lastContent = (key, attributes)
        return attributes
    }

    /// `EditorState.plugin(of:)`, remembered by type.
    private func plugin(of node: Node) -> (any NodePlugin)? {
        if node.isUnknown { return nil }
        for index in pluginTypes.indices where pluginTypes[index] == node.type { return plugins[index] }
        let plugin = state.plugin(of: node)
        pluginTypes.append(node.type)
        plugins.append(plugin)
        return plugin
    }
}
