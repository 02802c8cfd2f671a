import QuireModel

/// A link's attributes for ``EditorState/toggleLink(_:)`` (Lexical's `$toggleLink` arguments).
public struct LinkAttributes: Hashable, Sendable {
    /// The link's `url`.
    public var url: String
    /// `rel`; Lexical's default is "noreferrer".
    public var rel: String?
    /// `target`, such as "_blank".
    public var target: String?
    /// `title`.
    public var title: String?

    /// Attributes for a new link; for an existing link, nil `rel`, `target` or `title` leave its
    /// value alone (Lexical's `undefined`), and a value replaces it.
    public init(url: String, rel: String? = "noreferrer", target: String? = nil, title: String? = nil) {
        self.url = url
        self.rel = rel
        self.target = target
        self.title = title
    }

    /// The fields of a new link.
    var newLinkFields: JSONObject {
        ["url": .string(url), "rel": rel.map(JSONValue.string) ?? .null, "target": target.map(JSONValue.string) ?? .null,
         "title": title.map(JSONValue.string) ?? .null]
    }
}

/// Links on a (pending) state: Lexical's `$toggleLink` as a pure state function.
extension EditorState {
    /// The nearest `link` holding `key` (the node itself included), or nil.
    ///
    /// - Complexity: O(depth).
    public func link(containing key: NodeKey) -> NodeKey? {
        var current: NodeKey? = key
        while let candidate = current, let node = self[candidate] {
            if node.type == LinkNodePlugin.type && !node.isUnknown { return candidate }
            current = node.parent
        }
        return nil
    }

    /// Lexical's `$toggleLink`. With attributes, the selected inline content of each block is
    /// linked (split exactly at the selection's ends), as Lexical does it: consecutive selected
    /// text goes into one link, a link wholly selected is reused for it (or dissolved into the
    /// link already being built), and a link the selection only partly covers keeps its place and
    /// takes the attributes. With a
    /// collapsed caret in a link, the link takes the attributes; elsewhere nothing changes. With
    /// nil, the selected part of every link is taken out of it (what remains on either side stays
    /// linked); a collapsed caret in a link removes that whole link. Text nodes keep their keys;
    /// the selection covers the same text afterwards. Returns whether anything changed.
    ///
    /// - Throws: `ModelError` (no selection, or a link cannot go where the text is); nothing
    ///   changes then.
    /// - Complexity: O(blocks touched · their inline children · log n) plus the splits.
    @discardableResult
    public mutating func toggleLink(_ attributes: LinkAttributes?) throws(ModelError) -> Bool {
        guard let selection else { throw .noSelection }
        var attempt = self
        let changed: Bool
        if selection.isCollapsed {
            guard let link = link(containing: selection.anchor.key) else { return false }
            if let attributes {
                try attempt.update(link, with: attributes)
            } else {
                let block = block(containing: link)
                try attempt.unwrap(link, children: nil)
                try attempt.normalizeInlines(of: block)
            }
            changed = true
        } else {
            changed = try attempt.toggleLinkOverRange(attributes)
        }
        self = attempt
        return changed
    }

    private mutating func update(_ link: NodeKey, with attributes: LinkAttributes) throws(ModelError) {
        try setField("url", to: .string(attributes.url), of: link)
        if let rel = attributes.rel { try setField("rel", to: .string(rel), of: link) }
        if let target = attributes.target { try setField("target", to: .string(target), of: link) }
        if let title = attributes.title { try setField("title", to: .string(title), of: link) }
    }

    /// Moves `children` (all when nil, in order) of a link out to just before it, splitting the
    /// link where they were so that the children after them stay linked; an emptied link goes.
    private mutating func unwrap(_ link: NodeKey, children selected: Range<Int>?) throws(ModelError) {
        let node = try node(link)
        let range = selected ?? 0..<node.childCount
        guard !range.isEmpty else { return }
        if range.upperBound < node.childCount {
            // The children after the selected ones move to a copy of the link after it.
            let tail = try createNode(type: LinkNodePlugin.type, fields: node.fields)
            try moveChildren(of: link, from: range.upperBound, to: tail, at: 0)
            try insert(tail, after: link)
        }
        var after = link
        for _ in range {
            guard let child = self.child(at: range.lowerBound, of: link) else { break }
            try detach(child)
            try insert(child, after: after)
            after = child
        }
        if self[link]?.childCount == 0 { try remove(link) }
    }

    private mutating func toggleLinkOverRange(_ attributes: LinkAttributes?) throws(ModelError) -> Bool {
        let selection = try orderedSelectionPoints()
        let backward = self.selection.map { compare($0.anchor, $0.focus) > 0 } ?? false
        let (startBoundary, endBoundary) = try splitBoundaries(selection.start, selection.end, lift: false)
        let pieces = selectedInlinePieces(from: startBoundary, to: endBoundary)
        guard !pieces.isEmpty else { return false }
        let startPoint = Point.element(startBoundary.parent, startBoundary.index)
        let endPoint = Point.element(endBoundary.parent, endBoundary.index)
        let leaves = pieces.flatMap { $0.children }.flatMap { leavesIn($0) }.filter { leaf in
            guard let parent = self[leaf]?.parent, let index = indexInParent(leaf) else { return false }
            return compare(startPoint, .element(parent, index)) <= 0 && compare(.element(parent, index + 1), endPoint) <= 0
        }
        if let attributes {
            for piece in pieces { try wrapInLink(piece.children, start: startBoundary, end: endBoundary, attributes: attributes) }
        } else {
            for piece in pieces {
                for child in piece.children { try unlinkPart(of: child, start: startBoundary, end: endBoundary) }
            }
        }
        for block in Set(pieces.map(\.block)) { try normalizeInlines(of: block) }
        // The selection covers the same leaves.
        if let first = leaves.first(where: { self[$0] != nil }), let last = leaves.last(where: { self[$0] != nil }) {
            let start = edgePoint(of: first, atEnd: false)
            let end = edgePoint(of: last, atEnd: true)
            self.selection = RangeSelection(anchor: backward ? end : start, focus: backward ? start : end,
                                            format: self.selection?.format ?? [], style: self.selection?.style ?? "")
        }
        return true
    }

    /// Merges equal neighbouring text nodes in a block and in the inline elements in it, as the
    /// editor's commit would.
    private mutating func normalizeInlines(of block: NodeKey) throws(ModelError) {
        try normalizeTextChildren(of: block)
        for child in children(of: block) where child.role == .element(inline: true) {
            try normalizeInlines(of: child.key)
        }
    }

    /// The caret point at the start (end) of a leaf: inside a text node, else beside the leaf.
    private func edgePoint(of leaf: NodeKey, atEnd: Bool) -> Point {
        if self[leaf]?.role == .text { return .text(leaf, atEnd ? textLength(leaf) : 0) }
        guard let parent = self[leaf]?.parent, let index = indexInParent(leaf) else { return .element(.root, 0) }
        return .element(parent, atEnd ? index + 1 : index)
    }

    /// The leaves of an inline subtree, in order.
    private func leavesIn(_ key: NodeKey) -> [NodeKey] {
        guard let node = self[key] else { return [] }
        guard node.role.isElement, node.childCount > 0 else { return [key] }
        return children(of: key).flatMap { leavesIn($0.key) }
    }

    /// For every text block between two boundaries (split at text level), the block's direct
    /// inline children the range touches, in order.
    private func selectedInlinePieces(from start: Boundary, to end: Boundary) -> [(block: NodeKey, children: [NodeKey])] {
        let firstBlock = block(containing: start.parent)
        let lastBlock = block(containing: end.parent)
        var result: [(block: NodeKey, children: [NodeKey])] = []
        var current: NodeKey? = firstBlock
        while let block = current {
            let from = block == firstBlock ? topLevelIndex(of: start, in: block, isStart: true) : 0
            let to = block == lastBlock ? topLevelIndex(of: end, in: block, isStart: false) : (self[block]?.childCount ?? 0)
            var children: [NodeKey] = []
            var child = self.child(at: from, of: block)
            for _ in from..<max(from, to) {
                guard let key = child else { break }
                children.append(key)
                child = self[key]?.nextSibling
            }
            if !children.isEmpty { result.append((block, children)) }
            if block == lastBlock { break }
            current = nextTextBlock(after: block, crossingBoundaries: true)
        }
        return result
    }

    /// The index among `container`'s children of a boundary inside it: an inline element the
    /// boundary cuts counts as selected.
    private func topLevelIndex(of boundary: Boundary, in container: NodeKey, isStart: Bool) -> Int {
        var parent = boundary.parent
        var index = boundary.index
        while parent != container, let node = self[parent], let grandparent = node.parent, let position = indexInParent(parent) {
            let atStart = index == 0
            let atEnd = index >= node.childCount
            index = isStart ? (atEnd ? position + 1 : position) : (atStart ? position : position + 1)
            parent = grandparent
        }
        return index
    }

    /// Lexical's linking of one block's selected inline children, in order: text goes into the
    /// link being built (a new one, or the one just before it); a link wholly inside the selection
    /// becomes the link being built when there is none yet and is dissolved into it otherwise; a
    /// link the selection only partly covers keeps its place and takes the attributes.
    private mutating func wrapInLink(_ run: [NodeKey], start: Boundary, end: Boundary, attributes: LinkAttributes) throws(ModelError) {
        func isLink(_ key: NodeKey) -> Bool { self[key].map { $0.type == LinkNodePlugin.type && !$0.isUnknown } ?? false }
        var building: NodeKey?
        for child in run {
            if isLink(child) {
                if isPartlySelected(child, start: start, end: end) {
                    try update(child, with: attributes)
                } else if let building {
                    try moveChildren(of: child, from: 0, to: building, at: self[building]?.childCount ?? 0)
                    try remove(child)
                } else {
                    try update(child, with: attributes)
                    building = child
                }
                continue
            }
            if let building, self[child]?.previousSibling == building {
                try detach(child)
                try append(child, to: building)
                continue
            }
            let link = try createNode(type: LinkNodePlugin.type, fields: attributes.newLinkFields)
            try insert(link, before: child)
            try detach(child)
            try append(child, to: link)
            building = link
        }
    }

    /// Whether the selection starts or ends strictly inside `link`.
    private func isPartlySelected(_ link: NodeKey, start: Boundary, end: Boundary) -> Bool {
        let count = self[link]?.childCount ?? 0
        return (isInside(start.parent, link) && topLevelIndex(of: start, in: link, isStart: true) > 0)
            || (isInside(end.parent, link) && topLevelIndex(of: end, in: link, isStart: false) < count)
    }

    /// Takes the selected part of a link (a direct child of a block) out of it.
    private mutating func unlinkPart(of child: NodeKey, start: Boundary, end: Boundary) throws(ModelError) {
        guard let node = self[child], node.type == LinkNodePlugin.type, !node.isUnknown else { return }
        let from = isInside(start.parent, child) ? topLevelIndex(of: start, in: child, isStart: true) : 0
        let to = isInside(end.parent, child) ? topLevelIndex(of: end, in: child, isStart: false) : node.childCount
        try unwrap(child, children: from..<max(from, to))
    }

    /// Whether `key` is `ancestor` or below it.
    private func isInside(_ key: NodeKey, _ ancestor: NodeKey) -> Bool {
        key == ancestor || ancestors(of: key).contains(ancestor)
    }
}
