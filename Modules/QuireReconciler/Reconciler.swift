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
        var builder = RunBuilder()
        appendSubtree(state.root.key, in: state, theme: theme, to: &builder)
        return builder.build()
    }

    /// The index of a whole state, built from scratch.
    ///
    /// - Complexity: O(n).
    public static func buildIndex(_ state: EditorState) throws(ReconcilerError) -> PositionIndex<NodeKey> {
        do { return try PositionIndex(document: subtree(state.root.key, in: state)) } catch { throw .index(error) }
    }

    /// Swaps in a whole new state: full render into the storage, index rebuilt.
    ///
    /// - Complexity: O(n).
    public func replaceState(with state: EditorState) throws(ReconcilerError) {
        let rebuilt = try Self.buildIndex(state)
        if let storage {
            let rendered = Self.render(state, theme: theme)
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
        do throws(ReconcilerError) {
            if let storage {
                var failure: ReconcilerError?
                var pending = PendingEdits()
                try Self.storageEdit(storage) { storage in
                    do {
                        try self.apply(changes, from: previous, to: next, pending: &pending, report: &report)
                        try self.write(pending, from: previous, to: next, into: storage, report: &report)
                    } catch let error as ReconcilerError {
                        failure = error
                    } catch {
                        failure = .invariantViolated("unexpected error \(error)")
                    }
                }
                if let failure { throw failure }
            } else {
                var pending = PendingEdits(isHeadless: true)
                try apply(changes, from: previous, to: next, pending: &pending, report: &report)
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
    /// would be made); ``write(_:from:to:into:report:)`` then writes what really differs.
    private func apply(
        _ changes: ChangeSet, from previous: EditorState, to next: EditorState, pending: inout PendingEdits, report: inout ReconcileReport
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
        // 2. Created and moved nodes arrive, each with its subtree, in sibling order.
        var inserted = Set<NodeKey>()
        for key in changes.created.union(changes.moved) where !index.contains(key) && next.isAttached(key) {
            try insertWithEarlierSiblings(key, in: next, pending: &pending, inserted: &inserted, report: &report)
        }
        // 3. Nodes that stayed: compare each part.
        var restyles: [NodeKey] = []
        for key in changes.updated.union(changes.created).union(changes.moved) where !inserted.contains(key) && index.contains(key) {
            try update(key, splices: changes.textSplices[key], from: previous, to: next, pending: &pending, report: &report, restyles: &restyles)
        }
        // 4. Elements whose own attributes changed restyle their descendants, once every part
        // has its new length: a descendant updated after its ancestor would otherwise be styled
        // over its old extent.
        if storage {
            for key in restyles where next.isAttached(key) { try restyleDescendants(of: key, in: next, pending: &pending) }
        }
    }

    /// Inserts `key` after making sure its parent and earlier siblings are in the index.
    private func insertWithEarlierSiblings(
        _ key: NodeKey, in state: EditorState, pending: inout PendingEdits, inserted: inout Set<NodeKey>, report: inout ReconcileReport
    ) throws(ReconcilerError) {
        // An ancestor not yet in the index brings this node along with its own subtree.
        if let parent = state[key]?.parent, !index.contains(parent) {
            var top = parent
            while let up = state[top]?.parent, !index.contains(up) { top = up }
            try insertWithEarlierSiblings(top, in: state, pending: &pending, inserted: &inserted, report: &report)
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
        let subtrees = ordered.map { Self.subtree($0, in: state) }
        try Self.translate { try index.insert(subtrees, at: point) }
        for subtree in subtrees { markInserted(subtree, into: &inserted) }
        report.insertedNodes += ordered.count
        if !pending.isHeadless {
            var builder = RunBuilder()
            for missing in ordered { Self.appendSubtree(missing, in: state, theme: theme, to: &builder) }
            let rendered = builder.build()
            if rendered.length > 0 {
                let location = try Self.translate { try index.range(of: ordered[0]) }.lowerBound
                pending.replace(NSRange(location: location, length: 0), with: rendered)
            }
        } else if report.collectsTextEdits {
            let text = ordered.map { FlatString.render($0, in: state) }.joined()
            if !text.isEmpty {
                let location = try Self.translate { try index.range(of: ordered[0]) }.lowerBound
                report.record(NSRange(location: location, length: 0), text)
            }
        }
    }

    private func markInserted(_ subtree: PositionIndex<NodeKey>.Subtree, into set: inout Set<NodeKey>) {
        var stack = [subtree]
        while let node = stack.popLast() {
            set.insert(node.key)
            stack.append(contentsOf: node.children)
        }
    }

    /// Rewrites what changed in one node's three parts, and its attributes.
    private func update(
        _ key: NodeKey, splices: [TextSplice]?, from previous: EditorState, to next: EditorState, pending: inout PendingEdits, report: inout ReconcileReport,
        restyles: inout [NodeKey]
    ) throws(ReconcilerError) {
        guard let newNode = next[key] else { return }
        let oldNode = previous[key]
        let inherited = newNode.parent.map { theme.elementAttributes(of: $0, in: next) } ?? theme.base
        let oldInherited = oldNode?.parent.map { theme.elementAttributes(of: $0, in: previous) } ?? theme.base
        let newParts = Self.parts(of: newNode, in: next, theme: theme, inherited: inherited)
        let oldParts = oldNode.map { Self.parts(of: $0, in: previous, theme: theme, inherited: oldInherited) }
        for (part, new) in zip(PositionIndex<NodeKey>.Part.allCases, newParts) {
            let old = oldParts?[Int(part.rawValue)]
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

    private func restyleDescendants(of key: NodeKey, in state: EditorState, pending: inout PendingEdits) throws(ReconcilerError) {
        var stack = state.children(of: key).map(\.key)
        while let current = stack.popLast(), let node = state[current] {
            let inherited = node.parent.map { theme.elementAttributes(of: $0, in: state) } ?? theme.base
            for (part, piece) in zip(PositionIndex<NodeKey>.Part.allCases, Self.parts(of: node, in: state, theme: theme, inherited: inherited)) where !piece.text.isEmpty {
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
    private func write(_ pending: PendingEdits, from previous: EditorState, to next: EditorState, into storage: TextStorage, report: inout ReconcileReport) throws(ReconcilerError) {
        guard let region = pending.region else { return }
        if pending.edits.count == 1, case .replace(let range, let text) = pending.edits[0] {
            try Self.translate { try storage.replaceCharacters(in: range, with: text) }
            report.storageEdits += 1
            report.record(range, text.string)
            return
        }
        let oldRange = NSRange(location: region.lowerBound, length: region.count - pending.delta)
        let old = try Self.translate { try storage.attributedSubstring(in: oldRange) }
        let new = try render(region, in: next)
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
    private func render(_ range: Range<Int>, in state: EditorState) throws(ReconcilerError) -> AttributedText {
        guard !range.isEmpty else { return AttributedText("") }
        var builder = RunBuilder()
        for entry in try Self.translate({ try index.entries(overlapping: range) }) where entry.length > 0 {
            guard let node = state[entry.key] else { continue }
            let inherited = node.parent.map { theme.elementAttributes(of: $0, in: state) } ?? theme.base
            let piece = Self.parts(of: node, in: state, theme: theme, inherited: inherited)[Int(entry.part.rawValue)]
            let from = max(range.lowerBound, entry.location) - entry.location
            let to = min(range.upperBound, entry.location + entry.length) - entry.location
            if from == 0 && to == entry.length {
                builder.append(piece)
            } else {
                let units = Array(piece.text.utf16)
                builder.append(Piece(text: String(decoding: units[from..<to], as: UTF16.self), attributes: piece.attributes))
            }
        }
        return builder.build()
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

    /// A node's preamble, content and postamble with their attributes.
    static func parts(of node: Node, in state: EditorState, theme: Theme, inherited: Attributes) -> [Piece] {
        let own = node.role.isElement ? inherited.merging(theme.ownAttributes(of: node)) : inherited
        return [
            Piece(text: FlatString.preamble(of: node, in: state), attributes: own),
            Piece(text: FlatString.content(of: node), attributes: theme.contentAttributes(of: node, inherited: inherited)),
            Piece(text: FlatString.postamble(of: node, in: state), attributes: own),
        ]
    }

    /// The index subtree of `key`: its parts' lengths and its children's subtrees.
    ///
    /// - Complexity: O(s) for s nodes in the subtree.
    static func subtree(_ key: NodeKey, in state: EditorState) -> PositionIndex<NodeKey>.Subtree {
        // Iterative, so that deep documents cannot overflow the stack: each frame collects its
        // children's subtrees as they complete, in sibling order.
        struct Frame {
            var node: Node
            var children: [PositionIndex<NodeKey>.Subtree] = []
            var nextChild: NodeKey?
        }
        guard let top = state[key] else { return PositionIndex<NodeKey>.Subtree(key: key, lengths: .init()) }
        var stack = [Frame(node: top, nextChild: top.firstChild)]
        while true {
            let last = stack.count - 1
            if let childKey = stack[last].nextChild {
                guard let child = state[childKey] else { stack[last].nextChild = nil; continue }
                stack[last].nextChild = child.nextSibling
                stack.append(Frame(node: child, nextChild: child.firstChild))
                continue
            }
            let frame = stack.removeLast()
            let lengths = PositionIndex<NodeKey>.Lengths(
                preamble: FlatString.preamble(of: frame.node, in: state).utf16.count,
                content: FlatString.content(of: frame.node).utf16.count,
                postamble: FlatString.postamble(of: frame.node, in: state).utf16.count
            )
            let subtree = PositionIndex<NodeKey>.Subtree(key: frame.node.key, lengths: lengths, children: frame.children)
            if stack.isEmpty { return subtree }
            stack[stack.count - 1].children.append(subtree)
        }
    }

    static func appendSubtree(_ key: NodeKey, in state: EditorState, theme: Theme, to builder: inout RunBuilder) {
        guard let start = state[key] else { return }
        let inherited = start.parent.map { theme.elementAttributes(of: $0, in: state) } ?? theme.base
        enum Step { case enter(Node, Attributes), leave(Piece) }
        var stack: [Step] = [.enter(start, inherited)]
        while let step = stack.popLast() {
            switch step {
            case .enter(let node, let inherited):
                let pieces = parts(of: node, in: state, theme: theme, inherited: inherited)
                builder.append(pieces[0])
                builder.append(pieces[1])
                stack.append(.leave(pieces[2]))
                if node.role.isElement {
                    let childInherited = pieces[0].attributes
                    for child in state.children(of: node.key).reversed() { stack.append(.enter(child, childInherited)) }
                }
            case .leave(let piece):
                builder.append(piece)
            }
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
        if let last = runs.last, last.attributes == piece.attributes {
            runs[runs.count - 1].length += length
        } else {
            runs.append((length, piece.attributes))
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
        try Self.storageEdit(storage) { (storage) throws(TextStorageError) in
            for entry in entries where entry.length > 0 {
                guard let node = state[entry.key] else { continue }
                let inherited = node.parent.map { theme.elementAttributes(of: $0, in: state) } ?? theme.base
                let piece = Self.parts(of: node, in: state, theme: theme, inherited: inherited)[Int(entry.part.rawValue)]
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
