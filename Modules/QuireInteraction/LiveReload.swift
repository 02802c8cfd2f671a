import QuireEditor
import QuireModel
import QuireReconciler
import QuireSelection

/// What an applied reload did.
public struct ReloadReport: Hashable, Sendable {
    /// The one edit applied to the flat string (ranges in the text before the reload).
    public var edit: FlatTextEdit
    /// How the selection was carried over; nil for an editor without a selection.
    public var selectionCase: ReloadSelectionCase?
    /// The native selection before the reload.
    public var selectionBefore: Range<Int>?
    /// The native selection after it.
    public var selectionAfter: Range<Int>?
}

extension Editor {
    /// Shows a new version of the whole text from a plain-string source (a file watcher, a
    /// server that sends whole strings), keeping the user's place.
    ///
    /// The new text is compared with the flat string; the difference — the longest common
    /// prefix and suffix, widened to grapheme clusters (`FlatTextEdit.between(_:_:)`) — is
    /// applied as one native replace, and the commit (origin `.reload`, no tag) is one undo step
    /// of its own that restores the text and the selection from before it. The selection is
    /// carried over by ``ReloadSelectionCase``. Line breaks of the source ("\r\n", "\r",
    /// U+2028, U+2029) become "\n", the flat string's paragraph separator.
    ///
    /// Nodes outside the change are not written:
    /// - a change inside one text node (no line break in it) is one text splice of that node,
    ///   so the storage gets exactly the difference as its one edit;
    /// - whole paragraphs added or removed at a paragraph's start are moved one "\n" back (the
    ///   same text change and size: `\nNEW` after the previous paragraph instead of `NEW\n`
    ///   before the next one), so the next paragraph keeps its nodes; at the document's start
    ///   they are new paragraph blocks before the first one, or its first blocks removed;
    /// - anything else (a change across paragraphs, a replacement with line breaks) goes through
    ///   the model's range replacement, confined to the blocks the change touches.
    ///
    /// This is for plain-string sources only: an editor bound to a CRDT document gets remote
    /// changes as operations and keeps the selection by stable cursors instead.
    ///
    /// - Returns: what was applied, or nil when the text is unchanged.
    /// - Throws: `InteractionError.reloadDuringComposition` while IME composition is in progress
    ///   (``LiveReload`` defers instead); `.reloadDiverged` when the document's structure does
    ///   not let the new text through; `.editor` for a refused commit. Nothing changes.
    /// - Complexity: O(n) for the text (the comparison, and one render and index of the result to
    ///   verify it and place the selection), plus the commit's O(changed · log n).
    @discardableResult
    public func reload(text: String) throws(InteractionError) -> ReloadReport? {
        if storage?.isComposing == true { throw .reloadDuringComposition }
        let newText = LiveReload.normalizingLineBreaks(text)
        let oldText = flatText
        guard oldText != newText else { return nil }
        let edit = FlatTextEdit.between(oldText, newText).slidToParagraphEnd(in: oldText)
        let strategy = try reloadStrategy(for: edit)
        var before: (range: Range<Int>, isBackward: Bool)?
        let replaced: RangeSelection
        do {
            if let selection = state.selection {
                before = try SelectionMapper.range(of: selection, in: state, index: reconciler.index)
            }
            replaced = try SelectionMapper.selection(for: edit.range, in: state, index: reconciler.index)
        } catch {
            throw .editor(.selection(error))
        }
        let after = before.map { ReloadSelectionCase.map($0.range, through: edit) }
        let isBackward = before?.isBackward ?? false
        // The new text takes the format of the text it replaces or continues, never the caret's
        // toggled format: the caret may be anywhere else.
        var format: TextFormat = []
        var style = ""
        if replaced.anchor.kind == .text, let node = state[replaced.anchor.key] {
            format = node.textFormat
            style = node.textStyle
        }
        do throws(EditorError) {
            try update(origin: .reload) { (state: inout EditorState) throws(InteractionError) in
                state.selection = RangeSelection(anchor: replaced.anchor, focus: replaced.focus, format: format, style: style)
                do throws(ModelError) {
                    switch strategy {
                    case .splice(let key, let offset):
                        try state.spliceText(key, at: offset, deleting: edit.range.count, inserting: edit.replacement)
                    case .paragraphs(let lines, let before):
                        for line in lines {
                            let paragraph = try state.createNode(type: .paragraph)
                            if !line.isEmpty { try state.append(try state.createNode(type: .text, text: line), to: paragraph) }
                            try state.insert(paragraph, before: before)
                        }
                    case .removeBlocks(let blocks):
                        for block in blocks { try state.remove(block) }
                    case .rangeReplacement where edit.replacement.isEmpty:
                        try state.deleteSelectedRange()
                    case .rangeReplacement:
                        try state.insertInput(edit.replacement)
                    }
                } catch {
                    throw .editor(.model(error))
                }
                let rendered = FlatString.render(state)
                guard rendered == newText else { throw .reloadDiverged(offset: FlatTextEdit.between(newText, rendered).range.lowerBound) }
                guard let after else { return }
                // The selection's new offsets are known; their points are looked up in an index
                // of the pending state (the editor's own index follows only at reconcile).
                do {
                    let index = try Reconciler.buildIndex(state)
                    var selection = try SelectionMapper.selection(for: after.selection, isBackward: isBackward, in: state, index: index)
                    if selection.isCollapsed, selection.anchor.kind == .text, let node = state[selection.anchor.key] {
                        selection.format = node.textFormat
                        selection.style = node.textStyle
                    }
                    state.selection = selection
                } catch let error as ReconcilerError {
                    throw .editor(.reconcile(error))
                } catch let error as SelectionError {
                    throw .editor(.selection(error))
                } catch {
                    throw .editor(.thrown(error))
                }
            }
        } catch {
            throw InteractionError(error)
        }
        return ReloadReport(edit: edit, selectionCase: after?.case, selectionBefore: before?.range, selectionAfter: nativeSelection)
    }
}

/// How a reload's edit is made in the model, the narrowest way that fits.
private enum ReloadStrategy {
    /// One splice of one simple text node.
    case splice(NodeKey, offset: Int)
    /// Whole paragraphs inserted at the document's start, as new paragraphs before its first
    /// block.
    case paragraphs([String], before: NodeKey)
    /// Whole blocks removed from the document's start.
    case removeBlocks([NodeKey])
    /// The model's range replacement (Lexical's delete and insert), for everything else.
    case rangeReplacement
}

extension Editor {
    /// The narrowest way to make `edit`:
    /// - a change inside one simple text node without a line break is one splice of it;
    /// - paragraphs added or removed whole at the document's start (where no "\n" comes before
    ///   them to move the change to) are new or removed blocks, the first remaining one untouched;
    /// - anything else is a range replacement.
    ///
    /// - Complexity: O(log n), plus the blocks added or removed.
    fileprivate func reloadStrategy(for edit: FlatTextEdit) throws(InteractionError) -> ReloadStrategy {
        let index = reconciler.index
        do {
            if !edit.replacement.utf16.contains(0x0A) {
                if edit.range.isEmpty {
                    let point = try SelectionMapper.point(at: edit.range.lowerBound, direction: .backward, in: state, index: index)
                    if point.kind == .text, state[point.key]?.isSimpleText == true { return .splice(point.key, offset: point.offset) }
                } else {
                    let parts = try index.entries(overlapping: edit.range).filter { $0.length > 0 }
                    if parts.count == 1, let part = parts.first, part.part == .content, state[part.key]?.isSimpleText == true {
                        return .splice(part.key, offset: edit.range.lowerBound - part.location)
                    }
                }
            }
            guard edit.range.lowerBound == 0 else { return .rangeReplacement }
            let blocks = state.children(of: .root).map(\.key)
            if edit.range.isEmpty, edit.replacement.utf16.last == 0x0A, let first = blocks.first {
                let lines = edit.replacement.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                return .paragraphs(lines, before: first)
            }
            if edit.replacement.isEmpty {
                var removed: [NodeKey] = []
                for block in blocks.dropLast() {
                    removed.append(block)
                    let end = try index.range(of: block).upperBound
                    if end == edit.range.upperBound { return .removeBlocks(removed) }
                    if end > edit.range.upperBound { break }
                }
            }
            return .rangeReplacement
        } catch let error as SelectionError {
            throw .editor(.selection(error))
        } catch {
            throw .editor(.selection(.locationOutOfBounds(edit.range.upperBound, length: index.totalLength)))
        }
    }
}

extension FlatTextEdit {
    /// A pure insertion or deletion of text ending with "\n" that starts right after a "\n",
    /// moved back by one unit: the same change, made at the end of the previous paragraph.
    ///
    /// - Complexity: O(k) for the changed text.
    func slidToParagraphEnd(in old: String) -> FlatTextEdit {
        let changed = range.isEmpty ? replacement : ""
        guard range.isEmpty != replacement.isEmpty, range.lowerBound > 0 else { return self }
        let units = old.utf16
        let at = { (offset: Int) in units[units.index(units.startIndex, offsetBy: offset)] }
        guard at(range.lowerBound - 1) == 0x0A, range.lowerBound < 2 || at(range.lowerBound - 2) != 0x0D else { return self }
        if range.isEmpty {
            guard changed.utf16.last == 0x0A else { return self }
            return FlatTextEdit(range: (range.lowerBound - 1)..<(range.lowerBound - 1), replacement: "\n" + String(changed.dropLast()))
        }
        guard at(range.upperBound - 1) == 0x0A else { return self }
        return FlatTextEdit(range: (range.lowerBound - 1)..<(range.upperBound - 1), replacement: "")
    }
}

/// What ``LiveReload/reload(text:)`` did with a new version of the text.
public enum ReloadOutcome: Hashable, Sendable {
    /// The text was the same; nothing was committed.
    case unchanged
    /// The new text was applied.
    case applied(ReloadReport)
    /// IME composition is in progress; the text waits for ``LiveReload/applyPending()``.
    case deferred
}

/// Live reload for a plain-string source, deferring reloads that arrive while IME composition
/// is in progress (replacing the text around marked text would break the composition).
///
/// The view calls ``applyPending()`` after it commits or cancels the composition
/// (`Editor.unmarkText()`, or `setMarkedText("")`). The pending text is then merged with what
/// the user composed meanwhile: the base is the editor's text when the first deferred reload
/// arrived, without the marked text (which the source cannot have had). When the source's change
/// (base → pending text) and the user's (base → the editor's text, the committed composition
/// included) do not overlap, the source's change is applied to the editor's text, so the composed
/// word survives; when they overlap, the source wins, as in every other reload.
public final class LiveReload {
    /// The editor the reloads go to.
    public let editor: Editor
    /// The latest text that arrived during composition.
    public private(set) var pendingText: String?
    /// What the pending text is merged against.
    private var base: String?

    /// Reloads into `editor`.
    public init(editor: Editor) {
        self.editor = editor
    }

    /// Applies `text` now, or keeps it for ``applyPending()`` while composition is in progress
    /// (a later text replaces a pending one).
    ///
    /// - Throws: `InteractionError` from `Editor.reload(text:)`; nothing changes.
    /// - Complexity: that of `Editor.reload(text:)`; O(n) to defer the first time.
    @discardableResult
    public func reload(text: String) throws(InteractionError) -> ReloadOutcome {
        let normalized = Self.normalizingLineBreaks(text)
        if let storage = editor.storage, let marked = storage.markedRange {
            if base == nil {
                var units = Array(editor.flatText.utf16)
                units.removeSubrange(marked.location..<(marked.location + marked.length))
                base = String(decoding: units, as: UTF16.self)
            }
            pendingText = normalized
            return .deferred
        }
        pendingText = nil
        base = nil
        let report = try editor.reload(text: normalized)
        return report.map { .applied($0) } ?? .unchanged
    }

    /// Applies the pending text once composition has ended, merged with what the user composed
    /// as described above.
    ///
    /// - Returns: nil when nothing is pending or composition is still in progress.
    /// - Throws: `InteractionError` from `Editor.reload(text:)`; the text stays pending.
    /// - Complexity: O(n).
    @discardableResult
    public func applyPending() throws(InteractionError) -> ReloadOutcome? {
        guard let pending = pendingText, let base, editor.storage?.isComposing != true else { return nil }
        let current = editor.flatText
        let remote = FlatTextEdit.between(base, pending)
        let local = FlatTextEdit.between(base, current)
        let target = Self.rebase(remote, over: local, onto: current) ?? pending
        let report = try editor.reload(text: target)
        pendingText = nil
        self.base = nil
        return report.map { .applied($0) } ?? .unchanged
    }

    /// `remote` applied to `text`, which is the common base with `local` applied; nil when the
    /// two edits overlap or touch (then neither order is obviously right).
    ///
    /// - Complexity: O(n).
    static func rebase(_ remote: FlatTextEdit, over local: FlatTextEdit, onto text: String) -> String? {
        if local.range.isEmpty && local.replacement.isEmpty { return nil }
        if remote.range.isEmpty && remote.replacement.isEmpty { return text }
        let start: Int
        if remote.range.upperBound < local.range.lowerBound {
            start = remote.range.lowerBound
        } else if remote.range.lowerBound > local.range.upperBound {
            start = remote.range.lowerBound + local.lengthChange
        } else {
            return nil
        }
        var units = Array(text.utf16)
        units.replaceSubrange(start..<(start + remote.range.count), with: Array(remote.replacement.utf16))
        return String(decoding: units, as: UTF16.self)
    }

    /// `text` with "\r\n", "\r", U+2028 and U+2029 as "\n".
    ///
    /// - Complexity: O(n).
    static func normalizingLineBreaks(_ text: String) -> String {
        guard text.utf16.contains(where: { $0 == 0x0D || $0 == 0x2028 || $0 == 0x2029 }) else { return text }
        var result = ""
        for character in text {
            switch character {
            case "\r\n", "\r", "\u{2028}", "\u{2029}": result.append("\n")
            default: result.append(character)
            }
        }
        return result
    }
}
