import QuireAlgorithms
import QuireModel
import QuireTestSupport
import Testing

@Suite struct NodeBatchTests {
    /// Two paragraphs of text built in a batch.
    func twoParagraphs(_ batch: inout NodeBatch, _ texts: (String, String) = ("one", "two")) throws -> [NodeKey] {
        var roots: [NodeKey] = []
        for text in [texts.0, texts.1] {
            let paragraph = try batch.create(type: .paragraph)
            try batch.append(try batch.create(type: .text, text: text, fields: ["format": 1]), to: paragraph)
            roots.append(paragraph)
        }
        return roots
    }

    @Test func aBatchBuildsANewDocument() throws {
        var state = EditorState()
        var batch = state.makeBatch()
        let roots = try twoParagraphs(&batch)
        #expect(batch.count == 4)
        try state.insert(batch, roots: roots, under: .root, after: nil)
        #expect(FlatString.render(state) == "one\ntwo")
        #expect(state.root.childCount == 2)
        let textKey = try #require(state[roots[1]]?.firstChild)
        let text = try #require(state[textKey])
        #expect(text.textFormat == .bold && text.fields["mode"] == "normal")
        // New keys follow the batch's.
        let next = try state.createNode(type: .paragraph)
        #expect(next.rawValue == roots[1].rawValue + 2)
    }

    /// Detaching unlinks a node from any place among its siblings; a detached node is stored
    /// detached, and only linked nodes are in the document.
    @Test(arguments: [0, 1, 2])
    func detachingUnlinksANodeFromItsSiblings(position: Int) throws {
        var state = EditorState()
        var batch = state.makeBatch()
        let paragraph = try batch.create(type: .paragraph)
        var texts: [NodeKey] = []
        for text in ["a", "b", "c"] {
            let key = try batch.create(type: .text, text: text, fields: ["format": .number(.integer(texts.count + 1))])
            try batch.append(key, to: paragraph)
            texts.append(key)
        }
        try batch.detach(texts[position])
        #expect(batch[paragraph]?.childCount == 2)
        #expect(batch[texts[position]]?.parent == nil && batch[texts[position]]?.previousSibling == nil && batch[texts[position]]?.nextSibling == nil)
        #expect(throws: ModelError.notAttached(texts[position])) { try batch.detach(texts[position]) }
        try state.insert(batch, roots: [paragraph], under: .root, after: nil)
        let expected = ["a", "b", "c"].enumerated().filter { $0.offset != position }.map(\.element).joined()
        #expect(FlatString.render(state) == expected)
        #expect(state.children(of: paragraph).map(\.key) == texts.enumerated().filter { $0.offset != position }.map(\.element))
        #expect(state[texts[position]]?.parent == nil)
    }

    @Test func aBatchGoesBetweenExistingBlocks() throws {
        var state = EditorState(paragraphs: ["a", "d"])
        let first = try #require(state.root.firstChild)
        var batch = state.makeBatch()
        let roots = try twoParagraphs(&batch, ("b", "c"))
        try state.insert(batch, roots: roots, under: .root, after: first)
        #expect(FlatString.render(state) == "a\nb\nc\nd")
        var atStart = state
        var front = atStart.makeBatch()
        let frontRoots = try twoParagraphs(&front, ("x", "y"))
        try atStart.insert(front, roots: frontRoots, under: .root, after: nil)
        #expect(FlatString.render(atStart) == "x\ny\na\nb\nc\nd")
    }

    /// Inside an update that records operations the batch is one createNode per node and one
    /// insertNode per root: the operations replay and invert exactly.
    @Test func aRecordedInsertionReplaysAndInverts() throws {
        let previous = EditorState(paragraphs: ["a", "b"])
        var next = previous
        next.beginRecordingOperations()
        var batch = next.makeBatch()
        let roots = try twoParagraphs(&batch)
        try next.insert(batch, roots: roots, under: .root, after: previous.root.firstChild)
        let operations = next.endRecordingOperations()
        #expect(operations.filter { if case .createNode = $0 { true } else { false } }.count == 4)
        #expect(operations.filter { if case .insertNode = $0 { true } else { false } }.count == 2)
        #expect(Set(roots).union(batch.keys).isSubset(of: next.dirtyNodes))
        let transaction = Transaction(operations: operations, origin: .local)
        #expect(TransactionReplay.violations(of: transaction, from: previous, to: next).isEmpty)
        #expect(FlatString.render(next) == "a\none\ntwo\nb")
    }

    @Test func refusalsLeaveTheBatchAndTheStateAsTheyWere() throws {
        var state = EditorState(paragraphs: ["a"])
        var batch = state.makeBatch()
        let paragraph = try batch.create(type: .paragraph)
        let text = try batch.create(type: .text, text: "x")
        #expect(throws: ModelError.unknownType("nope")) { try batch.create(type: "nope") }
        #expect(throws: ModelError.textOnNonTextNode(.paragraph)) { try batch.create(type: .paragraph, text: "x") }
        #expect(throws: ModelError.self) { try batch.create(type: .text, fields: ["format": "bold"]) }
        #expect(throws: ModelError.notAnElement(text)) { try batch.append(paragraph, to: text) }
        try batch.append(text, to: paragraph)
        #expect(throws: ModelError.alreadyAttached(text)) { try batch.append(text, to: paragraph) }
        #expect(throws: ModelError.childNotAccepted(parent: .paragraph, child: .paragraph)) { try batch.append(paragraph, to: paragraph) }
        let box = batch.createUnknown(type: "box", role: .element(inline: false), fields: [:])
        #expect(throws: ModelError.wouldCreateCycle(box)) { try batch.append(box, to: box) }
        #expect(throws: ModelError.nodeNotFound(NodeKey(999))) { try batch.append(NodeKey(999), to: paragraph) }
        #expect(batch.count == 3)
        let loose = try batch.create(type: .text, text: "y")
        let before = state
        #expect(throws: ModelError.childNotAccepted(parent: .root, child: .text)) {
            try state.insert(batch, roots: [loose], under: .root, after: nil)
        }
        #expect(throws: ModelError.alreadyAttached(text)) { try state.insert(batch, roots: [text], under: .root, after: nil) }
        // A state that created nodes after the batch was made would give out its keys twice.
        _ = try state.createNode(type: .paragraph)
        let stale = state
        #expect(throws: ModelError.self) { try state.insert(batch, roots: [paragraph], under: .root, after: nil) }
        #expect(state.hasSameNodes(as: stale))
        #expect(before.hasSameNodes(as: EditorState(paragraphs: ["a"])))
    }

    /// A block with `count` numbered fields ("f0", "f1", …), each an integer defaulting to its
    /// number.
    struct WideBlockPlugin: NodePlugin {
        let count: Int
        var type: NodeType { "wide" }
        var role: NodeRole { .element(inline: false) }
        var fields: [FieldSpec] {
            (0..<count).map { FieldSpec("f\($0)", .integer, default: .number(.integer($0))) }
        }
    }

    /// Fields given at creation are checked against their specs and overlaid on the defaults,
    /// whether the type's specs are scanned (a few) or hashed (many): a wrong type is refused
    /// wherever the field is declared, a field the type does not declare is kept, and a node
    /// given no fields has exactly the defaults.
    @Test(arguments: [3, 40])
    func fieldsAreCheckedAndOverlaidWhateverTheirNumber(count: Int) throws {
        var registry = NodeRegistry()
        try registry.register(WideBlockPlugin(count: count))
        let state = EditorState(registry: registry)
        var batch = state.makeBatch()
        let last = "f\(count - 1)"
        for name in ["f0", last] {
            #expect(throws: ModelError.fieldTypeMismatch(type: "wide", field: name, expected: .integer, found: "no")) {
                try batch.create(type: "wide", fields: [name: "no"])
            }
            #expect(throws: ModelError.fieldTypeMismatch(type: "wide", field: name, expected: .integer, found: "no")) {
                try batch.createVerbatim(type: "wide", fields: [name: "no"])
            }
        }
        #expect(batch.count == 0)
        let plainKey = try batch.create(type: "wide")
        let plain = try #require(batch[plainKey])
        #expect(plain.fields.count == count + 1 && plain.fields["f0"] == 0 && plain.fields[last] == .number(.integer(count - 1)))
        #expect(plain.fields["version"] == 1)
        let givenKey = try batch.create(type: "wide", fields: [last: 7, "extra": "kept", "f0": 5])
        let given = try #require(batch[givenKey])
        #expect(given.fields.count == count + 2)
        #expect(given.fields["f0"] == 5 && given.fields[last] == 7 && given.fields["extra"] == "kept")
        #expect(Array(given.fields.keys.prefix(count)) == (0..<count).map { "f\($0)" })
        #expect(given.fields.keys.last == "extra")
    }
    /// Random blocks built into `batch` by the steps `random` draws: paragraphs of text and
    /// line breaks, unknown elements holding paragraphs, and detached nodes left out of the roots.
    static func randomBlocks(_ batch: inout NodeBatch, count: Int, using random: inout SeededGenerator) throws -> [NodeKey] {
        var roots: [NodeKey] = []
        for index in 0..<count {
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let box = batch.createUnknown(type: "box", role: .element(inline: false), fields: ["n": .number(.integer(index))])
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let paragraph = try batch.create(type: .paragraph)
                    try batch.append(try batch.create(type: .text, text: "in box \(index)"), to: paragraph)
                    try batch.append(paragraph, to: box)
                }
                roots.append(box)
            case 1:
                _ = try batch.create(type: .text, text: "detached \(index)")
            default:
                let paragraph = try batch.create(type: .paragraph)
                for part in 0..<Int.random(in: 0...4, using: &random) {
                    let leaf = part % 2 == 0 ? try batch.create(type: .text, text: "t\(index).\(part)") : try batch.create(type: .lineBreak)
                    try batch.append(leaf, to: paragraph)
                }
                roots.append(paragraph)
            }
        }
        return roots
    }

    /// Two batches built apart and joined (`append(contentsOf:)`) give the state one batch built
    /// in the same order gives: the same keys, links, types and fields.
    @Test(arguments: 0..<20)
    func batchesBuiltApartJoinAsOne(seed: UInt64) throws {
        let firstCount = Int(seed % 7)
        let laterCount = Int(seed * 3 % 11)
        var one = EditorState()
        var oneBatch = one.makeBatch()
        var random = SeededGenerator(seed: seed)
        let oneRoots = try Self.randomBlocks(&oneBatch, count: firstCount, using: &random)
            + Self.randomBlocks(&oneBatch, count: laterCount, using: &random)
        try one.insert(oneBatch, roots: oneRoots, under: .root, after: nil)

        var joined = EditorState()
        var earlier = joined.makeBatch()
        var later = joined.makeBatch()
        random = SeededGenerator(seed: seed)
        var roots = try Self.randomBlocks(&earlier, count: firstCount, using: &random)
        let laterRoots = try Self.randomBlocks(&later, count: laterCount, using: &random)
        let earlierCount = earlier.count
        let offset = earlier.append(contentsOf: later)
        #expect(offset == earlierCount)
        roots += laterRoots.map { NodeKey($0.rawValue + offset) }
        try joined.insert(earlier, roots: roots, under: .root, after: nil)

        #expect(joined.hasSameNodes(as: one))
        #expect(LexicalJSON.exportBytes(joined) == LexicalJSON.exportBytes(one))
        // The joined batch's nodes keep their type tables: a node created after still checks.
        #expect(throws: ModelError.self) { try joined.append(try joined.createNode(type: .paragraph), to: try joined.createNode(type: .text)) }
    }
}
