import Foundation
import QuireCRDT
import QuireEditor
import QuireModel
import QuireSelection

/// The editor's selection (and, during IME composition, the marked range) as stable cursors of
/// the shared text, taken before a remote change and resolved after it.
///
/// A caret sticks to the character before it, so text a peer inserts exactly at the caret goes
/// after the caret. A range's start sticks to its first character and its end to its last, so
/// insertions at its edges stay outside it. A caret whose text was deleted goes to where the text
/// was. A point outside any text block (a table's element point) is kept while its node exists.
struct SelectionCursors {
    enum Carried {
        case cursor(Cursor)
        case point(Point)
    }

    var anchor: Carried?
    var focus: Carried?
    var format: TextFormat = []
    var style = ""
    /// The marked range's ends and the caret's offset inside it, in UTF-16 units.
    var marked: (start: Cursor, end: Cursor, caret: NSRange)?

    init(capturing editor: Editor, binding: EditorBinding) {
        let state = editor.state
        if let selection = state.selection {
            let sides: (Cursor.Side, Cursor.Side) = selection.isCollapsed ? (.after, .after) : Self.sides(of: selection, in: state, binding: binding)
            anchor = Self.carry(selection.anchor, side: sides.0, in: state, binding: binding)
            focus = Self.carry(selection.focus, side: sides.1, in: state, binding: binding)
            format = selection.format
            style = selection.style
        }
        if let storage = editor.storage, let range = storage.markedRange,
           let start = Self.cursor(atNative: range.location, side: .before, editor: editor, binding: binding),
           let end = Self.cursor(atNative: range.location + range.length, side: .after, editor: editor, binding: binding) {
            let caret = NSRange(location: storage.selectedRange.location - range.location, length: storage.selectedRange.length)
            marked = (start, end, caret)
        }
    }

    /// The cursors of a selection, for an undo step's metadata.
    static func cursors(for selection: RangeSelection, in state: EditorState, binding: EditorBinding) -> [Cursor] {
        let sides: (Cursor.Side, Cursor.Side) = selection.isCollapsed ? (.after, .after) : Self.sides(of: selection, in: state, binding: binding)
        return [(selection.anchor, sides.0), (selection.focus, sides.1)].compactMap { point, side in
            guard case .cursor(let cursor)? = carry(point, side: side, in: state, binding: binding) else { return nil }
            return cursor
        }
    }

    /// The start of a range sticks to what follows it, the end to what precedes it.
    private static func sides(of selection: RangeSelection, in state: EditorState, binding: EditorBinding) -> (Cursor.Side, Cursor.Side) {
        let anchor = binding.position(of: selection.anchor, in: state) ?? 0
        let focus = binding.position(of: selection.focus, in: state) ?? 0
        return anchor <= focus ? (.before, .after) : (.after, .before)
    }

    private static func carry(_ point: Point, side: Cursor.Side, in state: EditorState, binding: EditorBinding) -> Carried? {
        guard let position = binding.position(of: point, in: state) else { return .point(point) }
        do { return .cursor(try binding.document.cursor(at: position, in: DocumentSchema.text, side: side)) } catch { return .point(point) }
    }

    private static func cursor(atNative location: Int, side: Cursor.Side, editor: Editor, binding: EditorBinding) -> Cursor? {
        do {
            let point = try SelectionMapper.point(at: location, in: editor.state, index: editor.reconciler.index)
            guard let position = binding.position(of: point, in: editor.state) else { return nil }
            return try binding.document.cursor(at: position, in: DocumentSchema.text, side: side)
        } catch {
            return nil
        }
    }

    /// The selection after the change, in `state`; nil when there was none.
    func selection(in state: EditorState, binding: EditorBinding) -> RangeSelection? {
        guard let anchor, let focus, let anchorPoint = resolve(anchor, in: state, binding: binding),
              let focusPoint = resolve(focus, in: state, binding: binding) else { return nil }
        return RangeSelection(anchor: anchorPoint, focus: focusPoint, format: format, style: style)
    }

    func resolve(_ carried: Carried, in state: EditorState, binding: EditorBinding) -> Point? {
        switch carried {
        case .point(let point):
            return state[point.key] != nil && state.isAttached(point.key) ? point : nil
        case .cursor(let cursor):
            do { return binding.point(at: try binding.document.resolve(cursor), in: state) } catch { return nil }
        }
    }
}

extension EditorBinding {
    /// The position in the shared text (scalars) of an editor point inside a text block.
    ///
    /// - Complexity: O(log n) plus the block's inline nodes.
    func position(of point: Point, in state: EditorState) -> Int? {
        guard let block = textBlock(containing: point.key, in: state), let id = treeOfKey[block],
              let range = runs.contentRange(of: id) else { return nil }
        guard let offset = InlineLayout(of: block, in: state).position(of: point, in: state) else { return nil }
        return range.lowerBound + min(offset, range.count)
    }

    /// The editor point at a position of the shared text: in the block whose run holds it (text
    /// before the first shown block goes to the start of the first one).
    ///
    /// - Complexity: O(log n) plus the block's inline nodes.
    func point(at position: Int, in state: EditorState) -> Point? {
        var owner = runs.owner(before: position)
        var offsetInRun = position - ((try? runs.index.location(of: owner, part: .content)) ?? position)
        // A run whose block is not shown: go back to the nearest shown block's end.
        while case .block(let id) = owner, keyOfTree[id].flatMap({ state[$0] }) == nil, let marker = runs.markerPosition(of: id) {
            owner = runs.owner(before: marker)
            offsetInRun = .max
        }
        guard case .block(let id) = owner, let key = keyOfTree[id] else {
            return state.textBlocks().first.map { .element($0, 0) }
        }
        return InlineLayout(of: key, in: state).point(at: offsetInRun, in: state)
    }
}

extension EditorBinding {
    /// The editor's selection as stable cursors of the shared text — what a peer publishes as
    /// its presence, so that others can draw its caret where the text it stood by moved to.
    /// A caret sticks to the character before it; a range's ends stick inside the range. Nil
    /// without a selection, or when an end is not in a text block (a table's element point).
    ///
    /// - Complexity: O(log n) plus the blocks' inline nodes.
    public var selectionCursors: (anchor: Cursor, focus: Cursor)? {
        guard let selection = editor.state.selection else { return nil }
        let cursors = SelectionCursors.cursors(for: selection, in: editor.state, binding: self)
        guard cursors.count == 2 else { return nil }
        return (cursors[0], cursors[1])
    }

    /// Where a stable cursor of the shared text (a peer's caret) stands in the editor's text
    /// storage now, in UTF-16 units; nil when the document cannot resolve it (a cursor of another
    /// document, or of text this peer has not received yet).
    ///
    /// - Complexity: O(log n) plus the block's inline nodes.
    public func nativeOffset(of cursor: Cursor) -> Int? {
        do {
            let position = try document.resolve(cursor)
            guard let point = point(at: position, in: editor.state) else { return nil }
            return try SelectionMapper.location(of: point, in: editor.state, index: editor.reconciler.index)
        } catch {
            return nil
        }
    }
}
