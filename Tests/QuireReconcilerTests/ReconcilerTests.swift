import Foundation
import QuireAlgorithms
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage
import Testing

/// The reconciler against its oracle, on seeded random edit sequences made through EditorState's
/// public editing API (typing, deletions across blocks, Enter, line breaks, formats, node
/// inserts, moves and removals, field changes that restyle a subtree), each step its own commit
/// applied with `reconcile(from:to:)` into a `TextStorage`:
/// - after every commit the storage equals the full render and the index equals a rebuilt one;
/// - every commit's storage edits cover the change: the one editing session it opens reports an
///   edited range outside which the full renders before and after agree (characters and
///   attributes), with the right change in length, and a commit that changes the render opens one;
/// - every commit is tight as well: the edited range is no larger than the region where the
///   renders differ, an attribute-only change edits no characters, and a commit that changes
///   nothing in the render edits nothing — commits that split or merge text nodes (Enter or a line
///   break inside a text, formatting part of a text, deleting across blocks, Backspace merging two
///   texts, typing over a range) included: the reconciler writes the region its edits touched as
///   the difference from what the storage shows, so text that moves to another node is not
///   rewritten. Moving a block rewrites the block (delete at the old place, insert at the new
///   one), the natural cost of a move; a render diff can sometimes be smaller only by coincidence
///   (equal characters at the seams), so moves are checked for coverage only.
///
/// `QUIRE_RECONCILER_STEPS=N` runs N steps per seed instead of the default.
@Suite struct ReconcilerTests {
    static let steps = ProcessInfo.processInfo.environment["QUIRE_RECONCILER_STEPS"].flatMap(Int.init) ?? 400

    // MARK: Incremental = full render

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func incrementalMatchesTheFullRenderAndCoversTheChange(seed: UInt64) throws {
        var session = try EditSession(seed: seed)
        for step in 0..<Self.steps {
            guard let commit = try session.step() else { continue }
            let context = "seed \(seed) step \(step): \(commit.operation)"
            #expect(session.storage.attributedText == Reconciler.render(commit.after, theme: EditSession.theme), "\(context)")
            let rebuilt = try Reconciler.buildIndex(commit.after)
            #expect(session.reconciler.index.allEntries == rebuilt.allEntries, "\(context)")
            if let problem = commit.diff.coverageProblem { Issue.record("\(context): \(problem)") }
        }
        #expect(session.commits > Self.steps / 2, "most random operations apply (\(session.refusals) were refused)")
    }

    // MARK: Blocks that trade places

    /// Found by the bridge's 100,000-step soak: one commit that moves blocks so that pairs of
    /// siblings trade places (`[a, b, c, d]` → `[c, d, a, b]`, as a remote change with several
    /// block moves does) left `b` and `d` classified as in place, because their previous sibling
    /// was the same, and the index kept the old order. The commit's operations now say which
    /// nodes were inserted again, and exactly those are placed.
    @Test(arguments: [[2, 3, 0, 1], [1, 0, 3, 2], [3, 2, 1, 0], [2, 0, 3, 1], [0, 2, 1, 3], [4, 5, 2, 3, 0, 1]])
    func blocksThatTradePlacesInOneCommit(order: [Int]) throws {
        let texts = ["a", "b", "c", "d", "e", "f"].prefix(order.count).map { String($0) }
        let state = EditorState(registry: try EditSession.registry(), paragraphs: texts)
        let storage = TextStorage()
        let reconciler = try Reconciler(state: state, storage: storage, theme: EditSession.theme, checksInvariants: false)
        let keys = state.children(of: .root).map(\.key)
        var next = state
        next.clearDirtyNodes()
        next.beginRecordingOperations()
        for index in order {
            try next.detach(keys[index])
            try next.append(keys[index], to: .root)
        }
        let changes = ChangeSet(from: state, to: next)
        #expect(changes.moved == Set(keys))
        try reconciler.reconcile(changes, from: state, to: next)
        #expect(storage.string == order.map { texts[$0] }.joined(separator: "\n"))
        #expect(reconciler.index.allEntries == (try Reconciler.buildIndex(next)).allEntries)
        #expect(storage.attributedText == Reconciler.render(next, theme: EditSession.theme))
    }

    // MARK: Minimality

    /// Typing at a caret, Enter at a block's end, block inserts and removals, text and format
    /// changes of whole text nodes, restyles: each commit edits exactly the changed region.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func commitsThatKeepTextNodesWholeAreMinimal(seed: UInt64) throws {
        let session = try Self.checkMinimality(seed: seed, operations: EditSession.Operation.keepingTextNodesWhole)
        #expect(session.commits > Self.steps / 2, "most random operations apply (\(session.refusals) were refused)")
    }

    /// The operations that split or merge text nodes (Enter and line breaks inside a text, formats
    /// on part of one, deletions across nodes and blocks, Backspace merges, pastes): each commit
    /// edits exactly the changed region too — the moved text is not rewritten.
    @Test(arguments: [21, 22] as [UInt64])
    func commitsThatSplitOrMergeTextNodesAreMinimal(seed: UInt64) throws {
        try Self.checkMinimality(seed: seed, operations: EditSession.Operation.splittingOrMergingTextNodes)
    }

    /// Runs a seeded session of `operations` and records every commit whose storage edits do not
    /// cover exactly the changed region.
    @discardableResult
    static func checkMinimality(seed: UInt64, operations: [EditSession.Operation]) throws -> EditSession {
        var session = try EditSession(seed: seed, operations: operations)
        for step in 0..<Self.steps {
            guard let commit = try session.step() else { continue }
            let diff = commit.diff
            if let problem = diff.coverageProblem ?? diff.tightnessProblem {
                Issue.record("seed \(seed) step \(step): \(commit.operation): \(problem)")
            }
        }
        return session
    }

    /// The smallest case of each operation that moves text between nodes, with the render
    /// before, the edit, and the render after: the storage gets exactly the difference.
    @Test(arguments: InlineCase.all)
    func inlineSplitsAndMergesAreTight(_ example: InlineCase) throws {
        let (commit, storage) = try example.run()
        #expect(storage.string == example.expected)
        #expect(commit.diff.coverageProblem == nil)
        #expect(commit.diff.tightnessProblem == nil, "\(example.name)")
    }

    /// A box restyled with another box inside that sets the same attribute itself: only the
    /// parts that change are written (the inner box's content already shows its own tone).
    @Test func aRestyleSkipsDescendantsThatKeepTheirAttributes() throws {
        var state = EditorState(registry: try EditSession.registry(), paragraphs: [])
        let outer = try state.createNode(type: "box")
        try state.append(outer, to: .root)
        let first = try state.createNode(type: .paragraph)
        try state.append(first, to: outer)
        try state.append(try state.createNode(type: .text, text: "outer"), to: first)
        let inner = try state.createNode(type: "box", fields: ["tone": .string("quiet")])
        try state.append(inner, to: outer)
        let second = try state.createNode(type: .paragraph)
        try state.append(second, to: inner)
        try state.append(try state.createNode(type: .text, text: "inner"), to: second)
        let storage = TextStorage()
        let reconciler = try Reconciler(state: state, storage: storage, theme: EditSession.theme, checksInvariants: true)
        let recorder = ChangeRecorder(storage)
        var next = state
        next.clearDirtyNodes()
        try next.setField("tone", to: .string("loud"), of: outer)
        try reconciler.reconcile(from: state, to: next)
        let change = try #require(recorder.take())
        #expect(storage.string == "outer\ninner")
        #expect(change.editedRange == NSRange(location: 0, length: 6), "\"outer\\n\" changes tone; \"inner\" keeps the inner box's")
        #expect(change.editedMask == .attributes)
        #expect(Commit(operation: "tone", before: state, after: next, change: change).diff.tightnessProblem == nil)
    }

    /// A commit that writes nodes without changing what they render (a field nothing styles)
    /// opens no storage edit at all.
    @Test func aCommitThatChangesNothingVisibleEditsNothing() throws {
        let state = EditorState(registry: try EditSession.registry(), paragraphs: ["one", "two"])
        let storage = TextStorage()
        let reconciler = try Reconciler(state: state, storage: storage, theme: EditSession.theme, checksInvariants: true)
        let recorder = ChangeRecorder(storage)
        var next = state
        next.clearDirtyNodes()
        let paragraph = try #require(state.root.firstChild)
        try next.setField("indent", to: .number(.integer(0)), of: paragraph)
        try reconciler.reconcile(from: state, to: next)
        #expect(recorder.take() == nil)
        #expect(Commit(operation: "indent", before: state, after: next, change: nil).diff.tightnessProblem == nil)
    }
}

/// One small edit that splits or merges text nodes, on a document of plain paragraphs.
struct InlineCase: Sendable, CustomTestStringConvertible {
    let name: String
    let paragraphs: [String]
    /// Anchor and focus as (paragraph index, UTF-16 offset in its one text node).
    let anchor: (Int, Int)
    let focus: (Int, Int)
    let edit: @Sendable (inout EditorState) throws(ModelError) -> Void
    /// The flat string after the edit.
    let expected: String

    var testDescription: String { name }

    static let all: [InlineCase] = [
        InlineCase(name: "Enter inside a text", paragraphs: ["abcd"], anchor: (0, 2), focus: (0, 2),
                   edit: { state throws(ModelError) in try state.insertParagraph() }, expected: "ab\ncd"),
        InlineCase(name: "a line break inside a text", paragraphs: ["abcd"], anchor: (0, 2), focus: (0, 2),
                   edit: { state throws(ModelError) in try state.insertLineBreak() }, expected: "ab\ncd"),
        InlineCase(name: "bold on part of a text", paragraphs: ["abcd"], anchor: (0, 1), focus: (0, 3),
                   edit: { state throws(ModelError) in try state.formatText(.bold) }, expected: "abcd"),
        InlineCase(name: "a deletion across blocks", paragraphs: ["ab", "cd"], anchor: (0, 1), focus: (1, 1),
                   edit: { state throws(ModelError) in try state.removeSelectedText() }, expected: "ad"),
        InlineCase(name: "Backspace at a block's start", paragraphs: ["ab", "cd"], anchor: (1, 0), focus: (1, 0),
                   edit: { state throws(ModelError) in try state.deleteCharacter(backward: true) }, expected: "abcd"),
    ]

    /// Applies the edit in one commit; returns the commit and the storage it was reconciled into.
    func run() throws -> (Commit, TextStorage) {
        let state = EditorState(registry: try EditSession.registry(), paragraphs: paragraphs)
        let storage = TextStorage()
        let reconciler = try Reconciler(state: state, storage: storage, theme: EditSession.theme, checksInvariants: true)
        let recorder = ChangeRecorder(storage)
        var next = state
        next.clearDirtyNodes()
        func point(_ place: (Int, Int)) throws -> Point {
            let paragraph = try #require(state.child(at: place.0, of: .root))
            return .text(try #require(state[paragraph]?.firstChild), place.1)
        }
        try next.select(anchor: try point(anchor), focus: try point(focus))
        try edit(&next)
        try reconciler.reconcile(from: state, to: next)
        return (Commit(operation: name, before: state, after: next, change: recorder.take()), storage)
    }
}

// MARK: - The random editing session

/// A state, its reconciler and storage, and a seeded stream of operations applied through the
/// model's public API, each in its own commit.
struct EditSession {
    static let tone = AttributeKey("test.tone")

    static func registry() throws -> NodeRegistry {
        var registry = NodeRegistry()
        try registry.register(BoxPlugin())
        try registry.register(RulePlugin())
        return registry
    }

    /// The standard theme (formats, node types) plus the box's tone.
    static var theme: Theme {
        var theme = Theme.standard
        theme.nodeStyles["box"] = { node in [tone: .string(node.fields["tone"]?.stringValue ?? "")] }
        return theme
    }

    enum Operation: CaseIterable {
        case type, typeOverRange, paste, deleteRange, deleteCharacter, enterAtEnd, enterInside, lineBreak, format
        case insertBlock, moveBlock, removeBlock, setTone, setTextFormat, setText

        static let keepingTextNodesWhole: [Operation] = [
            .type, .type, .type, .enterAtEnd, .insertBlock, .removeBlock, .setTone, .setTextFormat, .setText,
        ]
        static let splittingOrMergingTextNodes: [Operation] = [
            .typeOverRange, .paste, .deleteRange, .deleteCharacter, .enterInside, .lineBreak, .format,
        ]
        static let everything: [Operation] = allCases + [.type, .type, .format]
    }

    var state: EditorState
    let storage: TextStorage
    let reconciler: Reconciler
    let recorder: ChangeRecorder
    var generator: SeededGenerator
    let operations: [Operation]
    private(set) var commits = 0
    private(set) var refusals = 0

    init(seed: UInt64, operations: [Operation] = Operation.everything) throws {
        var state = EditorState(registry: try Self.registry(), paragraphs: ["Hello world", "second line", ""])
        let box = try state.createNode(type: "box")
        try state.append(box, to: .root)
        let inner = try state.createNode(type: .paragraph)
        try state.append(inner, to: box)
        try state.append(try state.createNode(type: .text, text: "inside"), to: inner)
        try state.append(try state.createNode(type: "rule"), to: .root)
        self.state = state
        storage = TextStorage()
        reconciler = try Reconciler(state: state, storage: storage, theme: Self.theme, checksInvariants: false)
        recorder = ChangeRecorder(storage)
        generator = SeededGenerator(seed: seed)
        self.operations = operations
    }

    /// Applies one random operation in its own commit; nil when the model refused it (the state
    /// is then unchanged, as every refused edit must leave it).
    mutating func step() throws -> Commit? {
        let operation = operations.randomElement(using: &generator)!
        var next = state
        next.clearDirtyNodes()
        let description: String
        do {
            guard let applied = try apply(operation, to: &next) else {
                refusals += 1
                return nil
            }
            description = applied
        } catch {
            // A typed refusal from the model: the pending copy is dropped, nothing was committed.
            refusals += 1
            return nil
        }
        _ = recorder.take()
        try reconciler.reconcile(from: state, to: next)
        let commit = Commit(operation: description, before: state, after: next, change: recorder.take())
        state = next
        commits += 1
        return commit
    }

    // MARK: Operations

    static let insertions = ["a", "bc", " ", "é", "👍🏽", "中文", "xyz"]

    /// Performs `operation` on `state`; returns what it did, or nil when it does not apply here.
    mutating func apply(_ operation: Operation, to state: inout EditorState) throws(ModelError) -> String? {
        switch operation {
        case .type:
            guard let point = randomPoint(in: state) else { return nil }
            let text = Self.insertions.randomElement(using: &generator)!
            try state.select(point)
            try state.insertText(text)
            return "type \(text.debugDescription) at \(point)"
        case .typeOverRange:
            guard let range = randomRange(in: state, collapsedChance: 0) else { return nil }
            let text = Self.insertions.randomElement(using: &generator)!
            try state.select(anchor: range.0, focus: range.1)
            try state.insertText(text)
            return "type \(text.debugDescription) over \(range.0)…\(range.1)"
        case .paste:
            guard let point = randomPoint(in: state) else { return nil }
            try state.select(point)
            try state.insertInput("pasted\nlines")
            return "paste two lines at \(point)"
        case .deleteRange:
            guard let range = randomRange(in: state, collapsedChance: 0) else { return nil }
            try state.select(anchor: range.0, focus: range.1)
            try state.removeSelectedText()
            return "delete \(range.0)…\(range.1)"
        case .deleteCharacter:
            guard let point = randomPoint(in: state, textOnly: true), let node = state[point.key] else { return nil }
            let backward = Bool.random(using: &generator)
            // Inside the text, so that no block boundary is crossed (that moves inline content).
            guard backward ? point.offset > 0 : point.offset < node.text.utf16.count else { return nil }
            try state.select(point)
            try state.deleteCharacter(backward: backward)
            return "delete \(backward ? "backward" : "forward") at \(point)"
        case .enterAtEnd:
            guard let block = randomBlock(in: state, where: { $0.type == .paragraph }) else { return nil }
            try state.select(state.endPoint(of: block))
            try state.insertParagraph()
            return "Enter at the end of \(block)"
        case .enterInside:
            guard let point = randomPoint(in: state, textOnly: true) else { return nil }
            try state.select(point)
            try state.insertParagraph()
            return "Enter at \(point)"
        case .lineBreak:
            guard let point = randomPoint(in: state) else { return nil }
            try state.select(point)
            try state.insertLineBreak()
            return "line break at \(point)"
        case .format:
            guard let range = randomRange(in: state, collapsedChance: 0) else { return nil }
            let format = [TextFormat.bold, .italic, .code].randomElement(using: &generator)!
            try state.select(anchor: range.0, focus: range.1)
            try state.formatText(format)
            return "format \(format.rawValue) over \(range.0)…\(range.1)"
        case .insertBlock:
            guard let anchor = randomBlock(in: state) else { return nil }
            let block: NodeKey
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                block = try state.createNode(type: .paragraph)
                try state.append(try state.createNode(type: .text, text: "new"), to: block)
            case 1:
                block = try state.createNode(type: "rule")
            default:
                block = try state.createNode(type: "box")
                let paragraph = try state.createNode(type: .paragraph)
                try state.append(paragraph, to: block)
                try state.append(try state.createNode(type: .text, text: "boxed"), to: paragraph)
            }
            if Bool.random(using: &generator) {
                try state.insert(block, after: anchor)
            } else {
                try state.insert(block, before: anchor)
            }
            return "insert \(state[block]!.type) beside \(anchor)"
        case .moveBlock:
            guard let moved = randomBlock(in: state), let target = randomBlock(in: state, where: { candidate in
                !state.ancestors(of: candidate.key).contains(moved) && candidate.key != moved
            }) else { return nil }
            try state.detach(moved)
            try state.insert(moved, after: target)
            return "move \(moved) after \(target)"
        case .removeBlock:
            guard state.root.childCount > 2, let block = randomBlock(in: state) else { return nil }
            try state.remove(block)
            return "remove \(block)"
        case .setTone:
            guard let box = randomBlock(in: state, where: { $0.type == "box" }) else { return nil }
            let tone = ["plain", "loud", "quiet"].randomElement(using: &generator)!
            try state.setField("tone", to: .string(tone), of: box)
            return "tone \(tone) on \(box)"
        case .setTextFormat:
            guard let text = randomNode(in: state, where: { $0.type == .text }) else { return nil }
            let format = TextFormat(rawValue: Int.random(in: 0..<8, using: &generator))
            try state.setTextFormat(format, of: text)
            return "text format \(format.rawValue) on \(text)"
        case .setText:
            guard let text = randomNode(in: state, where: { $0.type == .text }) else { return nil }
            let replacement = ["", "short", "a longer text", "👍🏽 emoji"].randomElement(using: &generator)!
            try state.setText(replacement, of: text)
            return "set text \(replacement.debugDescription) of \(text)"
        }
    }

    // MARK: Random places

    /// Every node under the root, in document order.
    static func nodes(of state: EditorState) -> [Node] {
        var result: [Node] = []
        var stack = Array(state.children(of: .root).reversed())
        while let node = stack.popLast() {
            result.append(node)
            stack.append(contentsOf: state.children(of: node.key).reversed())
        }
        return result
    }

    mutating func randomNode(in state: EditorState, where accepts: (Node) -> Bool) -> NodeKey? {
        Self.nodes(of: state).filter(accepts).randomElement(using: &generator)?.key
    }

    /// A block: a child of the root or of a box.
    mutating func randomBlock(in state: EditorState, where accepts: (Node) -> Bool = { _ in true }) -> NodeKey? {
        randomNode(in: state) { node in
            guard let parent = node.parent, !node.role.isInline, node.role != .text else { return false }
            return (parent == .root || state[parent]?.type == "box") && accepts(node)
        }
    }

    /// A caret position: inside a text node (never inside a surrogate pair) or, with
    /// `textOnly` false, in an empty paragraph.
    mutating func randomPoint(in state: EditorState, textOnly: Bool = false) -> Point? {
        var points: [Point] = []
        for node in Self.nodes(of: state) {
            if node.type == .text {
                let units = Array(node.text.utf16)
                for offset in 0...units.count where offset == units.count || !UTF16.isTrailSurrogate(units[offset]) {
                    points.append(.text(node.key, offset))
                }
            } else if !textOnly, node.type == .paragraph, node.childCount == 0 {
                points.append(.element(node.key, 0))
            }
        }
        return points.randomElement(using: &generator)
    }

    mutating func randomRange(in state: EditorState, collapsedChance: Double) -> (Point, Point)? {
        guard let anchor = randomPoint(in: state) else { return nil }
        if Double.random(in: 0..<1, using: &generator) < collapsedChance { return (anchor, anchor) }
        guard let focus = randomPoint(in: state) else { return nil }
        return (anchor, focus)
    }
}

// MARK: - Observing the storage

/// Collects the storage's end-of-session reports (one per editing session).
final class ChangeRecorder {
    private var changes: [TextStorageChange] = []
    private var token: TextStorageObserverToken?

    init(_ storage: TextStorage) {
        token = storage.addObserver { [unowned self] change in self.changes.append(change) }
    }

    /// The one session reported since the last call (nil when none was), and forgets it. A
    /// commit opens exactly one session.
    func take() -> TextStorageChange? {
        defer { changes = [] }
        precondition(changes.count <= 1, "a commit opened \(changes.count) editing sessions")
        return changes.first
    }
}

/// One committed operation with the states around it and the storage's report.
struct Commit {
    let operation: String
    let before: EditorState
    let after: EditorState
    let change: TextStorageChange?

    /// The storage's report next to the difference of the full renders.
    var diff: RenderDiff {
        RenderDiff(
            old: Rendered(Reconciler.render(before, theme: EditSession.theme)),
            new: Rendered(Reconciler.render(after, theme: EditSession.theme)),
            change: change)
    }
}

/// Where two full renders differ, and whether a storage session's report matches it.
struct RenderDiff {
    let old: Rendered
    let new: Rendered
    let change: TextStorageChange?
    /// Units at the start and at the end on which the renders agree (characters and attributes).
    let prefix: Int
    let suffix: Int

    init(old: Rendered, new: Rendered, change: TextStorageChange?) {
        self.old = old
        self.new = new
        self.change = change
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        self.prefix = prefix
        self.suffix = suffix
    }

    /// The fewest units of the new render an edit must write: prefix and suffix may overlap
    /// (typing "a" after "a"), but cannot keep more than the shorter render.
    var smallestEdit: Int { new.count - min(prefix + suffix, min(old.count, new.count)) }

    /// Nil when the report covers every difference; otherwise what is missed.
    var coverageProblem: String? {
        guard let change else {
            return old == new ? nil : "the render changed but the storage reported no edit" + renders
        }
        let edited = change.editedRange
        var problems: [String] = []
        if change.changeInLength != new.count - old.count {
            problems.append("change in length \(change.changeInLength), the renders differ by \(new.count - old.count)")
        }
        if edited.location > prefix || new.count - NSMaxRange(edited) > suffix {
            problems.append("the renders differ outside the edited range \(edited.location)..<\(NSMaxRange(edited))")
        }
        if old.units != new.units, !change.editedMask.contains(.characters) {
            problems.append("the characters changed but the edit is attributes-only")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ") + renders
    }

    /// Nil when the report is no wider than the difference; otherwise by how much it is.
    var tightnessProblem: String? {
        guard let change else { return nil }
        if old == new { return "the render did not change, yet the storage edited \(change.editedRange)" + renders }
        let edited = change.editedRange
        var problems: [String] = []
        if edited.length > smallestEdit { problems.append("edited \(edited.length) units where \(smallestEdit) differ") }
        if old.units == new.units, change.editedMask.contains(.characters) {
            problems.append("only attributes changed, yet characters were rewritten")
        }
        guard !problems.isEmpty else { return nil }
        return problems.joined(separator: "; ") + " (edited \(edited.location)..<\(NSMaxRange(edited)))" + renders
    }

    private var renders: String {
        " — the renders agree on the first \(prefix) and last \(suffix) units"
            + "\n  before: \(old.text.string.debugDescription)\n  after:  \(new.text.string.debugDescription)"
    }
}

/// A render as UTF-16 units with each unit's attributes, for comparing position by position.
struct Rendered: Equatable {
    let text: AttributedText
    let units: [UInt16]
    let attributes: [Attributes]

    init(_ text: AttributedText) {
        self.text = text
        units = Array(text.string.utf16)
        attributes = text.runs.flatMap { run in Array(repeating: run.attributes, count: run.range.length) }
    }

    var count: Int { units.count }

    subscript(offset: Int) -> Unit { Unit(unit: units[offset], attributes: attributes[offset]) }

    struct Unit: Equatable {
        let unit: UInt16
        let attributes: Attributes
    }

    static func == (lhs: Rendered, rhs: Rendered) -> Bool { lhs.units == rhs.units && lhs.attributes == rhs.attributes }
}
