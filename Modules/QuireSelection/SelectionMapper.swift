import QuireModel
import QuirePositionIndex

/// Which way to resolve a location that sits on a boundary between two nodes.
public enum SearchDirection: Hashable, Sendable {
    /// Prefer the node that starts at the location (the caret's affinity is downstream).
    case forward
    /// Prefer the node that ends at the location (upstream affinity).
    case backward
}

/// Maps between a text view's UTF-16 locations and document points through the position index.
///
/// Every query is O(log n) in the document plus the handful of parts that touch the location.
public enum SelectionMapper {
    /// The point at a UTF-16 location.
    ///
    /// Text wins over structure: a location touching a text node resolves into it (the one
    /// ending there when searching backward, the one starting there when searching forward). A
    /// location touching no text resolves to an element point, such as an empty paragraph's
    /// offset 0, or the place before or after a line break or decorator.
    ///
    /// - Throws: `SelectionError.locationOutOfBounds`.
    /// - Complexity: O(log n + k) for k parts touching the location.
    public static func point(at location: Int, direction: SearchDirection = .forward, in state: EditorState, index: PositionIndex<NodeKey>) throws(SelectionError) -> Point {
        let touching: [PositionIndex<NodeKey>.Entry]
        do { touching = try index.entries(touching: location) } catch {
            throw .locationOutOfBounds(location, length: index.totalLength)
        }
        let ordered = direction == .forward ? touching.reversed() : touching
        // Text first.
        for entry in ordered where entry.part == .content {
            if let node = state[entry.key], node.role == .text {
                return .text(entry.key, location - entry.location)
            }
        }
        // Then structure.
        for entry in ordered {
            if let point = structuralPoint(entry, at: location, in: state) { return point }
        }
        return .element(.root, 0)
    }

    private static func structuralPoint(_ entry: PositionIndex<NodeKey>.Entry, at location: Int, in state: EditorState) -> Point? {
        guard let node = state[entry.key] else { return nil }
        switch entry.part {
        case .content:
            // A line break or decorator: before it, or after it.
            guard let parent = node.parent, let index = state.indexInParent(node.key) else { return nil }
            return .element(parent, location == entry.location ? index : index + 1)
        case .preamble:
            guard location > entry.location || entry.length == 0 else { return nil }
            return start(of: node.key, in: state)
        case .postamble:
            guard location == entry.location else { return nil }
            return end(of: node.key, in: state)
        }
    }

    /// The first caret position inside a node's content: the start of its first text, or the
    /// element's offset 0 when it has none.
    ///
    /// - Complexity: O(depth).
    public static func start(of key: NodeKey, in state: EditorState) -> Point {
        guard let node = state[key] else { return .element(.root, 0) }
        if node.role == .text { return .text(key, 0) }
        guard node.role.isElement else {
            if let parent = node.parent, let index = state.indexInParent(key) { return .element(parent, index) }
            return .element(.root, 0)
        }
        if let first = node.firstChild, let child = state[first], child.role == .text || child.role.isElement {
            return start(of: first, in: state)
        }
        return .element(key, 0)
    }

    /// The last caret position inside a node's content.
    static func end(of key: NodeKey, in state: EditorState) -> Point {
        guard let node = state[key] else { return .element(.root, 0) }
        if node.role == .text { return .text(key, node.text.utf16.count) }
        guard node.role.isElement else {
            if let parent = node.parent, let index = state.indexInParent(key) { return .element(parent, index + 1) }
            return .element(.root, 0)
        }
        if let last = node.lastChild, let child = state[last], child.role == .text || child.role.isElement {
            return end(of: last, in: state)
        }
        return .element(key, node.childCount)
    }

    /// The UTF-16 location of a point.
    ///
    /// - Throws: `SelectionError.invalidPoint` for a point at a node that is not in the index or an
    ///   offset outside it.
    /// - Complexity: O(log n) (plus O(k) to find child k of an element point).
    public static func location(of point: Point, in state: EditorState, index: PositionIndex<NodeKey>) throws(SelectionError) -> Int {
        guard let node = state[point.key], index.contains(point.key) else { throw .invalidPoint(point) }
        do {
            switch point.kind {
            case .text:
                let length = try index.lengths(of: point.key).content
                guard node.role == .text, point.offset >= 0, point.offset <= length else { throw SelectionError.invalidPoint(point) }
                return try index.location(of: point.key, part: .content) + point.offset
            case .element:
                guard node.role.isElement, point.offset >= 0, point.offset <= node.childCount else { throw SelectionError.invalidPoint(point) }
                if let child = state.child(at: point.offset, of: point.key) {
                    return try index.range(of: child).lowerBound
                }
                return try index.childrenRange(of: point.key).upperBound
            }
        } catch {
            throw .invalidPoint(point)
        }
    }

    /// The selection for a native range: the anchor at its start (resolved forward) and the focus
    /// at its end (resolved backward for a non-empty range, so that a selection never begins or
    /// ends on the far side of a boundary). A backward selection swaps them.
    ///
    /// - Complexity: O(log n).
    public static func selection(
        for range: Range<Int>, isBackward: Bool = false, format: TextFormat = [], style: String = "",
        in state: EditorState, index: PositionIndex<NodeKey>
    ) throws(SelectionError) -> RangeSelection {
        let start = try point(at: range.lowerBound, direction: range.isEmpty ? .backward : .forward, in: state, index: index)
        let end = range.isEmpty ? start : try point(at: range.upperBound, direction: .backward, in: state, index: index)
        return isBackward
            ? RangeSelection(anchor: end, focus: start, format: format, style: style)
            : RangeSelection(anchor: start, focus: end, format: format, style: style)
    }

    /// The native range of a selection, and whether it is backward (focus before anchor).
    ///
    /// - Complexity: O(log n).
    public static func range(of selection: RangeSelection, in state: EditorState, index: PositionIndex<NodeKey>) throws(SelectionError) -> (range: Range<Int>, isBackward: Bool) {
        let anchor = try location(of: selection.anchor, in: state, index: index)
        let focus = try location(of: selection.focus, in: state, index: index)
        return (min(anchor, focus)..<max(anchor, focus), focus < anchor)
    }

    /// A selection whose points name nodes that no longer exist, moved back into the document:
    /// each point goes to the nearest surviving ancestor in `state`, clamped to its size.
    public static func clamp(_ selection: RangeSelection, in state: EditorState, previous: EditorState) -> RangeSelection {
        func clampPoint(_ point: Point) -> Point {
            if let node = state[point.key], state.isAttached(point.key) {
                switch point.kind {
                case .text where node.role == .text:
                    return .text(point.key, min(max(0, point.offset), node.text.utf16.count))
                case .element where node.role.isElement:
                    return .element(point.key, min(max(0, point.offset), node.childCount))
                default:
                    break
                }
            }
            // Walk up the old parents to the first one still in the document.
            var ancestor = previous[point.key]?.parent
            while let key = ancestor, !(state[key].map { _ in state.isAttached(key) } ?? false) {
                ancestor = previous[key]?.parent
            }
            let key = ancestor ?? .root
            return end(of: key, in: state)
        }
        return RangeSelection(anchor: clampPoint(selection.anchor), focus: clampPoint(selection.focus), format: selection.format, style: selection.style)
    }
}

/// A selection that could not be mapped; nothing was changed.
public enum SelectionError: Error, Hashable, Sendable, CustomStringConvertible {
    case locationOutOfBounds(Int, length: Int)
    case invalidPoint(Point)

    public var description: String {
        switch self {
        case .locationOutOfBounds(let location, let length): "location \(location) is outside the text (0...\(length))"
        case .invalidPoint(let point): "point \(point) is not in the document"
        }
    }
}
