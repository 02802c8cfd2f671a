import Foundation
import QuireModel
import QuirePositionIndex
import QuireStyle
import QuireTextStorage

/// Keeps a `TextStorage` (what a text view shows) and a `PositionIndex` in step with the editor
/// state, by consuming change sets.
///
/// `reconcile(from:to:)` touches only what changed: removed and moved nodes leave, created and
/// moved nodes are rendered and inserted, and every other written node has each of its parts
/// compared; a changed text part is written as its minimal edit (common prefix and suffix kept),
/// all inside one editing session of the storage. The cost is O(changed · log n). The full render
/// (`render(_:theme:)`) is used only to swap in a whole new state and as the test oracle.
///
/// A reconciler is owned by one editor and used from one thread, like the storage it writes.
public final class Reconciler {
    /// Where every node's parts are in the flat string.
    public private(set) var index: PositionIndex<NodeKey>
    /// The storage written, or nil in headless mode.
    public let storage: TextStorage?
    /// The attributes of every part.
    public let theme: Theme
    /// Whether every reconcile checks the storage against a full render and the index against one
    /// rebuilt from scratch (O(n) per commit: for debug builds and tests).
    public var checksInvariants: Bool

    /// Renders `state` into `storage` (replacing what it held) and builds the index.
    ///
    /// - Complexity: O(n).
    public init(state: EditorState, storage: TextStorage?, theme: Theme = .standard, checksInvariants: Bool = Reconciler.debugChecksDefault) throws(ReconcilerError) {
        self.storage = storage
        self.theme = theme
        self.checksInvariants = checksInvariants
        self.index = PositionIndex()
        try replaceState(with: state)
    }

    /// On in debug builds.
    public static var debugChecksDefault: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }

    // MARK: Full render

    /// The attributed flat string of a whole state: the oracle the incremental path must match.
    ///
    /// - Complexity: O(n).
    public static func render(_ state: EditorState, theme: Theme = .standard) -> AttributedText {
        var parts = PositionIndex<NodeKey>.Parts()
        var builder = RunBuilder()
        walk(state.root.key, in: state, into: &parts, rendering: StyleMemo(theme: theme, state: state), to: &builder)
        return builder.build()
    }

    /// The index of a whole state, built from scratch.
    ///
    /// - Complexity: O(n).
    public static func buildIndex(_ state: EditorState) throws(ReconcilerError) -> PositionIndex<NodeKey> {
        var parts = PositionIndex<NodeKey>.Parts()
        var unused = RunBuilder()
        walk(state.root.key, in: state, into: &parts, rendering: nil, to: &unused)
        do { return try PositionIndex(parts: parts) } catch { throw .index(error) }
    }

    /// Swaps in a whole new state: full render into the storage, index rebuilt.
    ///
    /// - Complexity: O(n).
    public func replaceState(with state: EditorState) throws(ReconcilerError) {
        // One walk gives the index and, with a storage, the text.
        var parts = PositionIndex<NodeKey>.Parts()
        var builder = RunBuilder()
        Self.walk(state.root.key, in: state, into: &parts, rendering: storage == nil ? nil : StyleMemo(theme: theme, state: state), to: &builder)
        let rebuilt: PositionIndex<NodeKey>
        do { rebuilt = try PositionIndex(parts: parts) } catch { throw .index(error) }
        if let storage {
            let rendered = builder.build()
            try Self.storageEdit(storage) { (storage) throws(TextStorageError) in
                try storage.replaceCharacters(in: NSRange(location: 0, length: storage.length), with: rendered)
            }
        }
        index = rebuilt
    }

    // MARK: Incremental reconcile

    /// Brings the storage and index from `previous` to `next` using the change set of the nodes
    /// `next` wrote. On failure the storage and index are restored to `previous` by a full render
    /// and the error is rethrown.
    ///
    /// - Complexity: O(c · log n) for c changed nodes (plus the size of inserted content).
    @discardableResult
    public func reconcile(from previous: EditorState, to next: EditorState) throws(ReconcilerError) -> ReconcileReport {
        let changes = ChangeSet(from: previous, to: next)
        return try reconcile(changes, from: previous, to: next)
    }

    /// Applies an explicit change set.
    @discardableResult
    ///
    /// With `collectingTextEdits`, the report lists every change to the flat string in the order
    /// it was made (`ReconcileReport.textEdits`), in storage and headless mode alike.
    public func reconcile(
        _ changes: ChangeSet, from previous: EditorState, to next: EditorState, collectingTextEdits: Bool = false
    ) throws(ReconcilerError) -> ReconcileReport {
        var report = ReconcileReport()
        report.collectsTextEdits = collectingTextEdits
        let styles = Styles(old: StyleMemo(theme: theme, state: previous), new: StyleMemo(theme: theme, state: next))
        do throws(ReconcilerError) {
            if let storage {
                var failure: ReconcilerError?
                var pending = PendingEdits()
                try Self.storageEdit(storage) { storage in
                    do {
                        try self.apply(changes, from: previous, to: next, styles: styles, pending: &pending, report: &report)
                        try self.write(pending, to: next, styles: styles.new, into: storage, report: &report)
                    } catch let error as ReconcilerError {
                        failure = error
                    } catch {
                        failure = .invariantViolated("unexpected error \(error)")
                    }
                }
                if let failure { throw failure }
            } else {
                var pending = PendingEdits(isHeadless: true)
                try apply(changes, from: previous, to: next, styles: styles, pending: &pending, report: &report)
            }
        } catch {
            // Never leave a half-applied commit: show the previous state again.
            try replaceState(with: previous)
            throw error
        }
        if checksInvariants { try verify(next) }
        return report
    }

    /// Brings the index to `next` and gathers the storage edits that follow (in the order they
    /// would be made); ``write(_:to:styles:into:report:)`` then writes what really differs.
    private func apply(
        _ changes: ChangeSet, from previous: EditorState, to next: EditorState, styles: Styles, pending: inout PendingEdits,
        report: inout ReconcileReport
    ) throws(ReconcilerError) {
        let storage: Bool = !pending.isHeadless
        // 1. Removed and moved nodes leave (a removed ancestor takes its descendants along).
        for key in changes.removed.union(changes.moved) where index.contains(key) {
            let range = try Self.translate { try index.range(of: key) }
            if !range.isEmpty {
                pending.replace(NSRange(range), with: AttributedText(""))
                if pending.isHeadless { report.record(NSRange(range), "") }
            }
            report.removedNodes += try Self.translate { try index.remove(key) }.count
        }
        // Updated nodes still in the index are compared in step 3; one that left with a removed
        // or moved ancestor comes back whole with it in step 2.
        let staying = changes.updated.filter { index.contains($0) }
        // 2. Created and moved nodes arrive, each with its subtree, in sibling order (every one
        // that is attached: a node whose ancestors are missing comes with the topmost of them).
        for key in changes.created where !index.contains(key) && next.isAttached(key) {
            try insertWithEarlierSiblings(key, in: next, styles: styles.new, pending: &pending, report: &report)
        }
        for key in changes.moved where !index.contains(key) && next.isAttached(key) {
            try insertWithEarlierSiblings(key, in: next, styles: styles.new, pending: &pending, report: &report)
        }
        // 3. Nodes that stayed: compare each part.
        var restyles: [NodeKey] = []
        for key in staying {
            try update(key, splices: changes.textSplices[key], from: previous, to: next, styles: styles, pending: &pending, report: &report, restyles: &restyles)
        }
        // 4. Elements whose own attributes changed restyle their descendants, once every part
        // has its new length: a descendant updated after its ancestor would otherwise be styled
        // over its old extent.
        if storage {
            for key in restyles where next.isAttached(key) { try restyleDescendants(of: key, in: next, styles: styles.new, pending: &pending) }
        }
    }

    /// Inserts `key` after making sure its parent and earlier siblings are in the index.
    private func insertWithEarlierSiblings(
        _ key: NodeKey, in state: EditorState, styles: StyleMemo, pending: inout PendingEdits, report: inout ReconcileReport
    ) throws(ReconcilerError) {
        // An ancestor not yet in the index brings this node along with its own subtree.
        if let parent = state[key]?.parent, !index.contains(parent) {
            var top = parent
            while let up = state[top]?.parent, !index.contains(up) { top = up }
            try insertWithEarlierSiblings(top, in: state, styles: styles, pending: &pending, report: &report)
            return
        }
        // Earlier siblings that are also missing go first, oldest first.
        var missingSiblings = [key]
        var previousSibling = state[key]?.previousSibling
        while let sibling = previousSibling, !index.contains(sibling) {
            missingSiblings.append(sibling)
            previousSibling = state[sibling]?.previousSibling
        }
        // The missing siblings are consecutive: one index splice and one storage edit for all.
        let ordered = Array(missingSiblings.reversed())
        guard let first = state[ordered[0]], let parent = first.parent else { return }
        let point: PositionIndex<NodeKey>.InsertionPoint = first.previousSibling.map { .after($0) } ?? .firstChild(of: parent)
        // One walk gives the index's parts and, with a storage, the text.
        var parts = PositionIndex<NodeKey>.Parts()
        var builder = RunBuilder()
        for missing in ordered { Self.walk(missing, in: state, into: &parts, rendering: pending.isHeadless ? nil : styles, to: &builder) }
        try Self.translate { try index.insert(parts, at: point) }
        report.insertedNodes += ordered.count
        if !pending.isHeadless {
            let rendered = builder.build()
            if rendered.length > 0 {
                let location = try Self.translate { try index.range(of: ordered[0]) }.lowerBound
                pending.replace(NSRange(location: location, length: 0), with: rendered)
                pending.rendered.append((ordered[0], rendered))
            }
        } else if report.collectsTextEdits {
            let text = ordered.map { FlatString.render($0, in: state) }.joined()
            if !text.isEmpty {
                let location = try Self.translate { try index.range(of: ordered[0]) }.lowerBound
                report.record(NSRange(location: location, length: 0), text)
            }
        }
    }

    /// Rewrites what changed in one node's three parts, and its attributes.
    private func update(
        _ key: NodeKey, splices: [TextSplice]?, from previous: EditorState, to next: EditorState, styles: Styles,
        pending: inout PendingEdits, report: inout ReconcileReport, restyles: inout [NodeKey]
    ) throws(ReconcilerError) {
        guard let newNode = next[key] else { return }
        let oldNode = previous[key]
        let newParts = styles.new.parts(of: newNode)
        let oldParts = oldNode.map { styles.old.parts(of: $0) }
        for part in PositionIndex<NodeKey>.Part.allCases {
            let new = newParts[part]
            let old = oldParts?[part]
            let location = try Self.translate { try index.location(of: key, part: part) }
            let oldLength = try Self.translate { try index.lengths(of: key) }[part]
            if part == .content, let splices, let old, oldNode?.role == .text, newNode.role == .text,
               oldLength == old.text.utf16.count {
                // The transaction says exactly what changed in the text: write that, no diff.
                report.updatedParts += 1
                for splice in splices {
                    let range = NSRange(location: location + splice.offset, length: splice.deletedLength)
                    pending.replace(range, with: AttributedText(splice.inserted, attributes: new.attributes))
                    if pending.isHeadless { report.record(range, splice.inserted) }
                }
                if old.attributes != new.attributes, new.text.utf16.count > 0 {
                    pending.setAttributes(new.attributes, NSRange(location: location, length: new.text.utf16.count))
                }
                try Self.translate { try index.setLength(new.text.utf16.count, of: key, part: part) }
                continue
            }
            if old?.text == new.text && old?.attributes == new.attributes && oldLength == new.text.utf16.count { continue }
            report.updatedParts += 1
            if old?.text == new.text && oldLength == new.text.utf16.count {
                if new.text.utf16.count > 0 { pending.setAttributes(new.attributes, NSRange(location: location, length: oldLength)) }
            } else if !pending.isHeadless || report.collectsTextEdits {
                let edit = Self.minimalEdit(from: old?.text ?? "", to: new.text, oldLength: oldLength)
                let range = NSRange(location: location + edit.start, length: edit.deleted)
                pending.replace(range, with: AttributedText(edit.replacement, attributes: new.attributes))
                if old?.attributes != new.attributes, new.text.utf16.count > 0 {
                    pending.setAttributes(new.attributes, NSRange(location: location, length: new.text.utf16.count))
                }
                if pending.isHeadless { report.record(range, edit.replacement) }
            }
            try Self.translate { try index.setLength(new.text.utf16.count, of: key, part: part) }
        }
        // An element whose own attributes changed restyles its descendants (after every update).
        if !pending.isHeadless, newNode.role.isElement, let oldNode, theme.ownAttributes(of: oldNode) != theme.ownAttributes(of: newNode) {
            restyles.append(key)
        }
    }

    private func restyleDescendants(of key: NodeKey, in state: EditorState, styles: StyleMemo, pending: inout PendingEdits) throws(ReconcilerError) {
        var stack = state.children(of: key).map(\.key)
        while let current = stack.popLast(), let node = state[current] {
            let parts = styles.parts(of: node)
            for part in PositionIndex<NodeKey>.Part.allCases where !parts[part].text.isEmpty {
                let piece = parts[part]
                let location = try Self.translate { try index.location(of: current, part: part) }
                // Parts that already show these attributes are left alone when written: the
                // write compares before it writes.
                pending.setAttributes(piece.attributes, NSRange(location: location, length: piece.text.utf16.count))
            }
            stack.append(contentsOf: state.children(of: current).map(\.key))
        }
    }

    // MARK: Writing the storage

    /// Writes a commit's gathered edits into the storage: a lone text edit as it is (a
    /// keystroke: already minimal); anything else as the one region the edits touched, compared
    /// with what the storage shows, so that only the characters and attributes that really
    /// differ are written (a split, a merge, a move or a restyle writes no more than it changes).
    ///
    /// - Complexity: O(1 + the edit) for a lone text edit; O(region · log n) otherwise.
    private func write(_ pending: PendingEdits, to next: EditorState, styles: StyleMemo, into storage: TextStorage, report: inout ReconcileReport) throws(ReconcilerError) {
        guard let region = pending.region else { return }
        if pending.edits.count == 1, case .replace(let range, let text) = pending.edits[0] {
            try Self.translate { try storage.replaceCharacters(in: range, with: text) }
            report.storageEdits += 1
            report.record(range, text.string)
            return
        }
        let oldRange = NSRange(location: region.lowerBound, length: region.count - pending.delta)
        let old = try Self.translate { try storage.attributedSubstring(in: oldRange) }
        let new = try render(region, in: next, styles: styles, reusing: pending.rendered)
        let oldUnits = old.utf16
        let newUnits = new.utf16
        // Characters first: the differing middle, kept off surrogate halves.
        let (prefix, suffix) = TextSplice.commonAffixes(oldUnits, newUnits)
        let deleted = oldUnits.count - prefix - suffix
        let inserted = newUnits.count - prefix - suffix
        if deleted > 0 || inserted > 0 {
            let range = NSRange(location: region.lowerBound + prefix, length: deleted)
            let replacement = try Self.translate { try new.slice(prefix..<(prefix + inserted)) }
            try Self.translate { try storage.replaceCharacters(in: range, with: replacement) }
            report.storageEdits += 1
            if report.collectsTextEdits { report.record(range, replacement.string) }
        }
        // Then attributes of the characters that stayed, where they differ: before and after the
        // middle, in new coordinates, compared run by run.
        let oldRuns = old.runs
        let newRuns = new.runs
        let suffixStart = prefix + inserted
        for stretch in [0..<prefix, suffixStart..<newUnits.count] where !stretch.isEmpty {
            let shift = stretch.lowerBound >= suffixStart ? deleted - inserted : 0
            guard let differing = Self.differingAttributes(old: oldRuns, new: newRuns, over: stretch, shift: shift) else { continue }
            // Runs of the new attributes over the differing stretch.
            for run in newRuns {
                let lower = max(run.range.location, differing.lowerBound)
                let upper = min(NSMaxRange(run.range), differing.upperBound)
                guard lower < upper else { continue }
                try Self.translate {
                    _ = try storage.setAttributes(run.attributes, range: NSRange(location: region.lowerBound + lower, length: upper - lower))
                }
                report.storageEdits += 1
            }
        }
    }

    /// The smallest range of `stretch` (new coordinates) outside of which the attributes of `new`
    /// equal those of `old` at the same offset plus `shift`; nil when they are equal throughout.
    ///
    /// - Complexity: O(r) for r runs of both texts.
    static func differingAttributes(old: [AttributeRun], new: [AttributeRun], over stretch: Range<Int>, shift: Int) -> Range<Int>? {
        // The segments of `stretch` where both sides keep one run each, in order.
        var segments: [(range: Range<Int>, differs: Bool)] = []
        var oldIndex = 0
        var newIndex = 0
        var offset = stretch.lowerBound
        while offset < stretch.upperBound {
            while newIndex < new.count, NSMaxRange(new[newIndex].range) <= offset { newIndex += 1 }
            while oldIndex < old.count, NSMaxRange(old[oldIndex].range) <= offset + shift { oldIndex += 1 }
            guard newIndex < new.count, oldIndex < old.count else { break }
            let end = min(stretch.upperBound, NSMaxRange(new[newIndex].range), NSMaxRange(old[oldIndex].range) - shift)
            segments.append((offset..<end, new[newIndex].attributes != old[oldIndex].attributes))
            offset = end
        }
        guard let first = segments.first(where: \.differs), let last = segments.last(where: \.differs) else { return nil }
        return first.range.lowerBound..<last.range.upperBound
    }

    /// The attributed flat string of `range` of the (new) index.
    ///
    /// `rendered` are runs of siblings this reconcile inserted, each by its first node and the
    /// text rendered for them from the same state: where one lies inside `range`, its text is
    /// taken as it is instead of being rendered again (a paste's thousands of blocks).
    ///
    /// - Complexity: O((k + r) log n) for k parts in `range` outside the r rendered runs, plus the
    ///   length of `range`.
    private func render(
        _ range: Range<Int>, in state: EditorState, styles: StyleMemo, reusing rendered: [(first: NodeKey, text: AttributedText)]
    ) throws(ReconcilerError) -> AttributedText {
        guard !range.isEmpty else { return AttributedText("") }
        var spans: [(range: Range<Int>, text: AttributedText)] = []
        for (first, text) in rendered {
            let start = try Self.translate { try index.range(of: first) }.lowerBound
            let span = start..<(start + text.length)
            if span.lowerBound >= range.lowerBound && span.upperBound <= range.upperBound { spans.append((span, text)) }
        }
        spans.sort { $0.range.lowerBound < $1.range.lowerBound }
        var builder = RunBuilder()
        var cursor = range.lowerBound
        for span in spans {
            try render(cursor..<span.range.lowerBound, in: state, styles: styles, to: &builder)
            builder.append(span.text)
            cursor = span.range.upperBound
        }
        try render(cursor..<range.upperBound, in: state, styles: styles, to: &builder)
        return builder.build()
    }

    /// Appends the attributed flat string of `range` of the (new) index, part by part.
    ///
    /// - Complexity: O((k + 1) log n) for k parts in `range`, plus its length.
    private func render(_ range: Range<Int>, in state: EditorState, styles: StyleMemo, to builder: inout RunBuilder) throws(ReconcilerError) {
        guard !range.isEmpty else { return }
        for entry in try Self.translate({ try index.entries(overlapping: range) }) where entry.length > 0 {
            guard let node = state[entry.key] else { continue }
            let piece = styles.parts(of: node)[entry.part]
            let from = max(range.lowerBound, entry.location) - entry.location
            let to = min(range.upperBound, entry.location + entry.length) - entry.location
            if from == 0 && to == entry.length {
                builder.append(piece)
            } else {
                let units = Array(piece.text.utf16)
                builder.append(Piece(text: String(decoding: units[from..<to], as: UTF16.self), attributes: piece.attributes))
            }
        }
    }

    /// The common-prefix-and-suffix edit that turns `old` into `new`, in UTF-16 units.
    static func minimalEdit(from old: String, to new: String, oldLength: Int) -> (start: Int, deleted: Int, replacement: String) {
        guard old.utf16.count == oldLength else { return (0, oldLength, new) }
        let splice = TextSplice.between(old, new)
        return (splice.offset, splice.deleted.utf16.count, splice.inserted)
    }

    // MARK: Invariant

    /// Checks the storage against a full render of `state` and the index against one rebuilt
    /// from scratch.
    ///
    /// - Complexity: O(n).
    public func verify(_ state: EditorState) throws(ReconcilerError) {
        let rebuilt = try Self.buildIndex(state).allEntries
        let current = index.allEntries
        if rebuilt != current {
            let at = zip(rebuilt, current).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(rebuilt.count, current.count)
            func describe(_ entries: [PositionIndex<NodeKey>.Entry]) -> String {
                guard at < entries.count else { return "none (\(entries.count) entries)" }
                let entry = entries[at]
                return "\(entry.key) \(entry.part) at \(entry.location), length \(entry.length)"
            }
            throw .invariantViolated("the position index differs from one rebuilt from the state at entry \(at): \(describe(current)), rebuilt \(describe(rebuilt))")
        }
        if let storage {
            let expected = Self.render(state, theme: theme)
            let actual = storage.attributedText
            if actual.string != expected.string {
                throw .invariantViolated("the storage text differs from the full render: \(actual.string.debugDescription) vs \(expected.string.debugDescription)")
            }
            if actual != expected {
                throw .invariantViolated("the storage attributes differ from the full render")
            }
        }
    }

    // MARK: Rendering pieces

    struct Piece: Equatable {
        var text: String
        var attributes: Attributes
    }

    /// A node's three pieces.
    struct Parts {
        var preamble: Piece
        var content: Piece
        var postamble: Piece

        subscript(part: PositionIndex<NodeKey>.Part) -> Piece {
            switch part {
            case .preamble: preamble
            case .content: content
            case .postamble: postamble
            }
        }
    }

    /// The attributes of the states before and after one reconcile.
    struct Styles {
        var old: StyleMemo
        var new: StyleMemo
    }

    /// Walks `key`'s subtree in document order, adding each node's parts to `parts` (their
    /// lengths, for the index) and, `rendering` with a memo of the state's attributes, appending
    /// them to `builder` (the attributed flat string). One walk serves both, so a subtree being
    /// inserted asks each node's plugin for its preamble and postamble once.
    ///
    /// - Complexity: O(s) for s nodes in the subtree.
    static func walk(
        _ key: NodeKey, in state: EditorState, into parts: inout PositionIndex<NodeKey>.Parts, rendering styles: StyleMemo?,
        to builder: inout RunBuilder
    ) {
        // Iterative, so that deep documents cannot overflow the stack: a frame per open node,
        // holding its postamble until its children are done.
        struct Frame {
            var key: NodeKey
            var number: Int
            var postamble: Piece
            var nextChild: NodeKey?
        }
        guard var node = state[key] else {
            parts.close(parts.open(key, preamble: 0, content: 0), key, postamble: 0)
            return
        }
        var stack: [Frame] = []
        while true {
            let pieces = styles?.parts(of: node) ?? Parts(
                preamble: Piece(text: FlatString.preamble(of: node, in: state), attributes: .empty),
                content: Piece(text: FlatString.content(of: node), attributes: .empty),
                postamble: Piece(text: FlatString.postamble(of: node, in: state), attributes: .empty)
            )
            if styles != nil {
                builder.append(pieces.preamble)
                builder.append(pieces.content)
            }
            let number = parts.open(node.key, preamble: pieces.preamble.text.utf16.count, content: pieces.content.text.utf16.count)
            stack.append(Frame(key: node.key, number: number, postamble: pieces.postamble, nextChild: node.firstChild))
            // The next node to open: the first unvisited child of the innermost open node,
            // closing the nodes that have none left.
            var next: Node?
            while next == nil, let last = stack.indices.last {
                if let childKey = stack[last].nextChild {
                    next = state[childKey]
                    stack[last].nextChild = next?.nextSibling
                    continue
                }
                let frame = stack.removeLast()
                if styles != nil { builder.append(frame.postamble) }
                parts.close(frame.number, frame.key, postamble: frame.postamble.text.utf16.count)
            }
            guard let opened = next else { return }
            node = opened
        }
    }

    // MARK: Error plumbing

    /// Runs `body`, translating the index's and the storage's typed errors into ours.
    static func translate<T>(_ body: () throws -> T) throws(ReconcilerError) -> T {
        do {
            return try body()
        } catch let error as PositionIndexError {
            throw .index(error)
        } catch let error as TextStorageError {
            throw .storage(error)
        } catch let error as ReconcilerError {
            throw error
        } catch {
            throw .invariantViolated("unexpected error \(error)")
        }
    }

    static func storageEdit(_ storage: TextStorage, _ body: (TextStorage) throws(TextStorageError) -> Void) throws(ReconcilerError) {
        do { try storage.performControllerEdit(body) } catch { throw .storage(error) }
    }
}

/// Builds an `AttributedText` from pieces, merging equal neighbours.
struct RunBuilder {
    var string = ""
    var runs: [(length: Int, attributes: Attributes)] = []

    mutating func append(_ piece: Reconciler.Piece) {
        let length = piece.text.utf16.count
        guard length > 0 else { return }
        string += piece.text
        appendRun(length, piece.attributes)
    }

    /// Appends text built before, run by run.
    mutating func append(_ text: AttributedText) {
        string += text.string
        for run in text.runs { appendRun(run.range.length, run.attributes) }
    }

    private mutating func appendRun(_ length: Int, _ attributes: Attributes) {
        if let last = runs.last, last.attributes == attributes {
            runs[runs.count - 1].length += length
        } else {
            runs.append((length, attributes))
        }
    }

    func build() -> AttributedText {
        do { return try AttributedText(string, runs: runs) } catch {
            preconditionFailure("run lengths are UTF-16 counts of whole pieces: \(error)")
        }
    }
}

/// What one reconcile did.
public struct ReconcileReport: Hashable, Sendable {
    public var removedNodes = 0
    public var insertedNodes = 0
    public var updatedParts = 0
    /// Calls made to the storage: the size of the edit, independent of the document.
    public var storageEdits = 0
    /// Whether `textEdits` is filled.
    public var collectsTextEdits = false
    /// The changes to the flat string, in the order made; each range is in the coordinates left by
    /// the edits before it. Filled only when the reconcile was asked to collect them.
    public var textEdits: [FlatTextEdit] = []

    public init() {}

    mutating func record(_ range: NSRange, _ replacement: String) {
        if collectsTextEdits { textEdits.append(FlatTextEdit(range: range.location..<(range.location + range.length), replacement: replacement)) }
    }
}

/// One change to the flat string: the UTF-16 `range` (in the text as the previous edits left it)
/// becomes `replacement`.
public struct FlatTextEdit: Hashable, Sendable {
    public var range: Range<Int>
    public var replacement: String

    public init(range: Range<Int>, replacement: String) {
        self.range = range
        self.replacement = replacement
    }

    /// Applies edits, in order, to a copy of the flat string they were made against.
    ///
    /// - Complexity: O(e · t) for e edits of a t-unit text (a mirror for tests and simple views).
    public static func apply(_ edits: [FlatTextEdit], to text: String) -> String {
        var units = Array(text.utf16)
        for edit in edits { units.replaceSubrange(edit.range, with: Array(edit.replacement.utf16)) }
        return String(decoding: units, as: UTF16.self)
    }
}

/// A reconcile that could not complete; the storage and index show the previous state.
public enum ReconcilerError: Error, Hashable, Sendable, CustomStringConvertible {
    case index(PositionIndexError)
    case storage(TextStorageError)
    case invariantViolated(String)

    public var description: String {
        switch self {
        case .index(let error): "position index: \(error)"
        case .storage(let error): "text storage: \(error)"
        case .invariantViolated(let message): "reconciler invariant violated: \(message)"
        }
    }
}

extension Reconciler {
    /// Re-applies the theme's attributes to every part overlapping `range` (after the view wrote
    /// attributes of its own, such as an IME commit).
    ///
    /// - Complexity: O(log n + k) for k parts in the range.
    public func restyle(_ range: Range<Int>, in state: EditorState) throws(ReconcilerError) {
        guard let storage else { return }
        let entries = try Self.translate { try index.entries(overlapping: range) }
        let styles = StyleMemo(theme: theme, state: state)
        try Self.storageEdit(storage) { (storage) throws(TextStorageError) in
            for entry in entries where entry.length > 0 {
                guard let node = state[entry.key] else { continue }
                let piece = styles.parts(of: node)[entry.part]
                _ = try storage.setAttributes(piece.attributes, range: NSRange(location: entry.location, length: entry.length))
            }
        }
    }
}

/// The storage edits one commit implies, gathered before any is written, and the region of the
/// flat string they touch (in the coordinates after all of them).
struct PendingEdits {
    enum Edit {
        case replace(NSRange, AttributedText)
        case attributes(NSRange, Attributes)
    }

    /// Headless reconciles gather nothing.
    var isHeadless = false
    var edits: [Edit] = []
    /// The touched region, mapped through every later edit.
    var region: Range<Int>?
    /// The change in length of all edits together.
    var delta = 0
    /// Runs of siblings inserted whole, by their first node, with the text rendered for them:
    /// the region's render takes that text as it is.
    var rendered: [(first: NodeKey, text: AttributedText)] = []

    mutating func replace(_ range: NSRange, with text: AttributedText) {
        guard !isHeadless, range.length > 0 || text.length > 0 else { return }
        edits.append(.replace(range, text))
        touch(range.location..<NSMaxRange(range), newLength: text.length)
    }

    mutating func setAttributes(_ attributes: Attributes, _ range: NSRange) {
        guard !isHeadless, range.length > 0 else { return }
        edits.append(.attributes(range, attributes))
        touch(range.location..<NSMaxRange(range), newLength: range.length)
    }

    /// Grows the region by an edit of `range` (current coordinates) into `newLength` units.
    private mutating func touch(_ range: Range<Int>, newLength: Int) {
        let change = newLength - range.count
        let written = range.lowerBound..<(range.lowerBound + newLength)
        if let old = region {
            func map(_ position: Int, isUpper: Bool) -> Int {
                if position <= range.lowerBound { return position }
                if position >= range.upperBound { return position + change }
                return isUpper ? written.upperBound : range.lowerBound
            }
            let lower = min(map(old.lowerBound, isUpper: false), written.lowerBound)
            let upper = max(map(old.upperBound, isUpper: true), written.upperBound)
            region = lower..<upper
        } else {
            region = written
        }
        delta += change
    }
}
