import QuireAlgorithms
import QuireModel

/// Turns a `MarkupDocument` into an `EditorState` through the node plugins' mappings, shaping it
/// the way Lexical's markdown import does, and keeping in each node's `markup` field
/// (``MarkupDetails``) what Lexical's shapes cannot say, so that ``MarkupExporter`` gives the
/// document back:
///
/// - a paragraph in a block quote becomes Lexical's `quote` (a block of inline content), one per
///   paragraph; other blocks in a quote stay blocks, and the quotes around every block are kept
///   in ``MarkupDetails/quotes`` where they are not the default;
/// - a list item of inline content (Lexical's `listitem`) gets its paragraph's inlines, and a
///   nested list becomes a following item whose only child is the list; an item holding anything
///   else (two paragraphs, code, a quote) holds those blocks, which `listitem` accepts;
/// - a task list becomes a `check` list; table cells hold one paragraph aligned like the column;
/// - a soft line break becomes a `linebreak`; a hard one a `linebreak` with `"hard": true`;
/// - emphasis, strong emphasis and strikethrough become text formats; where the formats alone
///   would not give the spans back (`*a *b* c*`, `[*a*](u)`), the text nodes keep their spans in
///   ``MarkupDetails/spans``; adjacent text with the same format is one text node.
///
/// Intents no registered mapping takes fall back to paragraphs of their text, so nothing is
/// dropped (a thematic break without a mapping becomes the paragraph "* * *").
///
/// The nodes are built in one ``NodeBatch``: no operation is recorded and no change set is
/// computed while importing.
public struct MarkupImporter: Sendable {
    /// The mappings used.
    public let mappings: MarkupMappings

    /// An importer with `mappings`.
    public init(mappings: MarkupMappings) { self.mappings = mappings }

    /// The field a hard line break node carries, telling it from a soft one.
    public static let hardBreakField = "hard"

    /// The document as an editor state built with `registry`.
    ///
    /// - Throws: `MarkupError.cannotImport` when a plugin refuses a node the mapping described.
    /// - Complexity: O(n) in the document's size.
    public func makeState(_ document: MarkupDocument, registry: NodeRegistry) throws(MarkupError) -> EditorState {
        var stream = MarkupImportStream(importer: self, registry: registry)
        for block in document.blocks { try stream.add(block) }
        return try stream.makeState()
    }

    /// `source` read by `parser` as an editor state built with `registry`, each top-level block
    /// imported as the parser hands it over (``MarkupParser/parse(_:eachBlock:)``): a parser
    /// that makes its blocks one at a time never holds the whole document's blocks.
    ///
    /// A source of ``parallelSourceLength`` bytes or more is built in two parts at once: the
    /// blocks of its first five eighths on another thread while this one reads the document and
    /// builds the rest (reading takes about as long as building three eighths); the two parts'
    /// nodes are then joined (`NodeBatch.append(contentsOf:)`). The state is the same either
    /// way; the calling thread waits for the other, so call this where a thread may block.
    ///
    /// - Throws: the parser's errors, and as ``makeState(_:registry:)``; of two errors, the one
    ///   earlier in the document.
    /// - Complexity: O(n) in the source's size.
    public func makeState(parsing source: String, with parser: some MarkupParser, registry: NodeRegistry) throws(MarkupError) -> EditorState {
        let length = source.utf8.count
        return try makeState(parsing: source, with: parser, registry: registry,
                             splittingAt: length >= Self.parallelSourceLength ? length / 8 * 5 : nil)
    }

    /// The source length from which ``makeState(parsing:with:registry:)`` builds in two parts.
    public static let parallelSourceLength = 1 << 18

    /// How many top-level blocks go to the other thread at once.
    static let handOverRunLength = 32

    /// As ``makeState(parsing:with:registry:)``, building the top-level blocks from the first one
    /// at or after byte `split` that is not a block quote (whose default quotes depend on the
    /// block before it) on this thread, and those before it on another; nil builds every block
    /// here.
    func makeState(parsing source: String, with parser: some MarkupParser, registry: NodeRegistry,
                   splittingAt split: Int?) throws(MarkupError) -> EditorState {
        // Room for one node per 4 bytes of source, which documents stay under (the spec
        // examples, dense with markup, have one per 6; prose has one per 30 or more): growing
        // copied every node at each doubling, and the copies' fresh pages were a tenth of the
        // import's time. Room never written costs address space, not memory.
        let expectedNodes = source.utf8.count / 4
        guard let split else {
            var stream = MarkupImportStream(importer: self, registry: registry, expectedNodes: expectedNodes)
            try parser.parse(source) { (block) throws(MarkupError) in try stream.add(block) }
            return try stream.makeState()
        }
        let earlier = EarlierBlocks(importer: self, registry: registry, expectedNodes: expectedNodes)
        var later: MarkupImportStream?
        var handedOver = 0
        // Blocks go over in runs: one wake of the building thread per run, not per block (a
        // system call each, a tenth of this thread's time when the other kept up).
        var run: [MarkupBlock] = []
        func handOverRun() {
            guard !run.isEmpty else { return }
            earlier.add(run)
            run = []
            run.reserveCapacity(Self.handOverRunLength)
        }
        do {
            try parser.parse(source) { (block) throws(MarkupError) in
                if later == nil, handedOver > 0, block.intent != .blockQuote, let start = block.range?.start.byteOffset, start >= split {
                    handOverRun()
                    later = MarkupImportStream(importer: self, registry: registry, expectedNodes: (source.utf8.count - start) / 4)
                }
                if later != nil {
                    try later!.add(block)
                } else {
                    run.append(block)
                    handedOver += 1
                    if run.count >= Self.handOverRunLength { handOverRun() }
                }
            }
        } catch {
            // An error in the earlier blocks comes first in the document.
            handOverRun()
            _ = try earlier.parts()
            throw error
        }
        handOverRun()
        var (state, batch, roots) = try earlier.parts()
        if let later {
            let (_, laterBatch, laterRoots) = try later.takeParts()
            let offset = batch.append(contentsOf: laterBatch)
            roots += laterRoots.map { NodeKey($0.rawValue + offset) }
        }
        return try MarkupImportStream.insert(consume batch, roots: roots, into: state)
    }

    /// Builds the document's nodes into `batch` and returns its top-level blocks, in order, for
    /// the caller to insert (a paste inserts them at the selection).
    ///
    /// - Complexity: O(n) in the document's size.
    public func build(_ document: MarkupDocument, into batch: inout NodeBatch) throws(MarkupError) -> [NodeKey] {
        var builder = Builder(batch: batch, mappings: mappings)
        defer { batch = builder.batch }
        var container = BlockContainer(key: nil)
        try builder.blocks(document.blocks, into: &container, quotes: [])
        try builder.flush()
        return container.roots
    }
}

/// A document imported one top-level block at a time, in document order: what
/// ``MarkupImporter/makeState(_:registry:)`` does with a whole document's blocks, for a reader
/// that makes its blocks one by one, so that each is imported while it is fresh in memory and
/// freed before the next is made.
public struct MarkupImportStream {
    private var state: EditorState
    private var builder: Builder
    private var container = BlockContainer(key: nil)
    private var quotes: [QuoteLevel] = []

    /// An empty document built with `registry`, by `importer`'s mappings, with room for
    /// `expectedNodes` nodes (more are added as they come).
    public init(importer: MarkupImporter, registry: NodeRegistry, expectedNodes: Int = 0) {
        state = EditorState(registry: registry)
        var batch = state.makeBatch()
        batch.reserveCapacity(expectedNodes)
        builder = Builder(batch: batch, mappings: importer.mappings)
    }

    /// Imports the document's next top-level block.
    ///
    /// - Throws: `MarkupError.cannotImport` when a plugin refuses a node the mapping described;
    ///   the stream cannot be finished then.
    /// - Complexity: O(n) in the block's size.
    public mutating func add(_ block: MarkupBlock) throws(MarkupError) {
        try builder.block(block, into: &container, quotes: &quotes)
    }

    /// The document of the blocks added, as an editor state.
    ///
    /// - Complexity: O(n) in the number of nodes built.
    public consuming func makeState() throws(MarkupError) -> EditorState {
        let (state, batch, roots) = try takeParts()
        return try Self.insert(consume batch, roots: roots, into: state)
    }

    /// The empty state, the nodes built and the top-level ones among them, for a caller that
    /// joins the nodes of two streams before inserting them.
    consuming func takeParts() throws(MarkupError) -> (state: EditorState, batch: NodeBatch, roots: [NodeKey]) {
        try builder.flush()
        // The batch is moved out, not shared: linking writes into its nodes, which a second
        // owner would make copy them all.
        var batch = state.makeBatch()
        swap(&batch, &builder.batch)
        return (state, batch, container.roots)
    }

    /// `state` with `batch`'s nodes and `roots` under its root.
    static func insert(_ batch: consuming NodeBatch, roots: [NodeKey], into state: consuming EditorState) throws(MarkupError) -> EditorState {
        var state = state
        // Moved, not copied: linking the roots writes into the batch's nodes, which a second
        // owner would make copy them all.
        do { try state.insert(consume batch, roots: roots, under: .root, after: nil) } catch {
            throw .cannotImport(intent: "document", reason: error.description, range: nil)
        }
        return state
    }
}

/// The earlier top-level blocks of a large document, built by a ``MarkupImportStream`` on
/// another thread as the reader hands them over, while the reader's thread goes on reading.
final class EarlierBlocks: Sendable {
    typealias Parts = (state: EditorState, batch: NodeBatch, roots: [NodeKey])

    /// Runs of consecutive blocks.
    private let blocks = HandOffQueue<[MarkupBlock]>()
    private let building: ForkedWork<Result<Parts, MarkupError>>

    init(importer: MarkupImporter, registry: NodeRegistry, expectedNodes: Int) {
        building = ForkedWork { [blocks] in
            var stream = MarkupImportStream(importer: importer, registry: registry, expectedNodes: expectedNodes)
            var failure: MarkupError?
            while let runs = blocks.take() {
                // After a failure the rest is only taken off the queue: the error stands.
                guard failure == nil else { continue }
                do throws(MarkupError) {
                    for run in runs {
                        for block in run { try stream.add(block) }
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { return .failure(failure) }
            do throws(MarkupError) { return .success(try stream.takeParts()) } catch { return .failure(error) }
        }
    }

    // An owner dropped before `parts()` (the reader failed) still ends the building thread.
    deinit { blocks.close() }

    /// Hands `run`, the next top-level blocks, to the building thread.
    func add(_ run: [MarkupBlock]) {
        blocks.put(run)
    }

    /// Waits for the blocks handed over to be built: the stream's state, nodes and top-level
    /// nodes, or the first error building them. Called once.
    func parts() throws(MarkupError) -> Parts {
        blocks.close()
        // Moved out, not copied: the caller appends to the batch, and a second owner of its
        // nodes would make that copy every one.
        return try building.takeResult().get()
    }
}

/// A block quote around the blocks being imported, and whether its first block is still to come.
struct QuoteLevel {
    var opens = true
}

/// Where blocks go: under a node, or (key nil) into the list of top-level blocks; and what the
/// last block placed there was, for the default of the next quote's ``MarkupDetails/quotes``.
struct BlockContainer {
    var key: NodeKey?
    var roots: [NodeKey] = []
    var previous: QuoteDefaults.Sibling?

    init(key: NodeKey?) { self.key = key }
}

/// The default quotes of a block, shared by the importer (which writes
/// ``MarkupDetails/quotes`` only where a block differs from it) and the exporter.
enum QuoteDefaults {
    /// What the default needs to know of a block: whether it is a quote node, and whether it has
    /// content.
    struct Sibling: Equatable {
        var isQuote: Bool
        var isEmpty: Bool
    }

    /// No quotes for a block; for a quote node `"|"` (continuing) after a non-empty quote node
    /// when it is not empty itself, else `">"`.
    static func quotes(of block: Sibling, after previous: Sibling?) -> String {
        guard block.isQuote else { return "" }
        if let previous, previous.isQuote, !previous.isEmpty, !block.isEmpty { return "|" }
        return ">"
    }
}

private struct Builder {
    var batch: NodeBatch
    let mappings: MarkupMappings
    /// Per kind of intent (by its raw value), the mapping that took it first: nil before the
    /// first lookup, `.some(nil)` when none does. An array: every node's intent is looked up.
    var cache: [(any MarkupNodeMapping)??] = Array(repeating: nil, count: IntentKind.allCases.count)
    /// Text waiting to be written as one node: (parent, format, text, fields).
    var pending: (parent: NodeKey, format: TextFormat, text: String, spans: JSONValue?)?

    init(batch: NodeBatch, mappings: MarkupMappings) {
        self.batch = batch
        self.mappings = mappings
    }

    var registry: NodeRegistry { batch.registry }

    func fail(_ error: ModelError, _ what: String, _ range: SourceRange?) -> MarkupError {
        .cannotImport(intent: what, reason: error.description, range: range)
    }

    mutating func create(_ type: NodeType, text: String = "", fields: JSONObject = JSONObject(), range: SourceRange?) throws(MarkupError) -> NodeKey {
        do { return try batch.create(type: type, text: text, fields: fields) } catch { throw fail(error, type.rawValue, range) }
    }

    mutating func attach(_ key: NodeKey, to parent: NodeKey, range: SourceRange?) throws(MarkupError) {
        do { try batch.append(key, to: parent) } catch { throw fail(error, batch[key]?.type.rawValue ?? "node", range) }
    }

    mutating func place(_ key: NodeKey, in container: inout BlockContainer, range: SourceRange?) throws(MarkupError) {
        if let parent = container.key { try attach(key, to: parent, range: range) } else { container.roots.append(key) }
        if let node = batch[key] {
            container.previous = QuoteDefaults.Sibling(isQuote: node.type == quoteType, isEmpty: node.childCount == 0)
        }
    }

    /// The mapping for `intent`, found once per kind of intent.
    mutating func importing(_ intent: MarkupIntent, context: MarkupImportContext = MarkupImportContext()) -> (type: NodeType, fields: JSONObject)? {
        let kind = IntentKind(intent).rawValue
        if let cached = cache[kind] {
            guard let mapping = cached else { return nil }
            if let fields = mapping.importFields(for: intent, context: context) { return (mapping.nodeType, fields) }
        }
        let found = mappings.importing(intent, context: context, registry: registry)
        if cache[kind] == nil { cache[kind] = found.flatMap { mappings.mapping(for: $0.type) } }
        return found
    }

    func accepts(_ parent: NodeType, _ child: NodeType) -> Bool {
        guard let plugin = registry.plugin(for: parent), let childPlugin = registry.plugin(for: child) else { return false }
        return plugin.childRule.accepts(type: child, role: childPlugin.role)
    }

    /// The type block quotes import as, found once.
    var cachedQuoteType: NodeType??

    var quoteType: NodeType? {
        mutating get {
            if let cached = cachedQuoteType { return cached }
            let type = importing(.block(.blockQuote))?.type
            cachedQuoteType = .some(type)
            return type
        }
    }

    /// `details` with the structural keys of the importer added.
    static func markupField(_ details: JSONObject, adding extra: [(String, JSONValue)] = []) -> JSONValue? {
        var object = details
        for (key, value) in extra { object[key] = value }
        return object.count == 0 ? nil : .object(object)
    }

    mutating func makeBlock(_ intent: BlockIntent, context: MarkupImportContext = MarkupImportContext(), details: JSONObject = JSONObject(),
                            extra: [(String, JSONValue)] = [], range: SourceRange?) throws(MarkupError) -> NodeKey? {
        guard let (type, found) = importing(.block(intent), context: context) else { return nil }
        var fields = found
        if let markup = Self.markupField(details, adding: extra) { fields[MarkupDetails.field] = markup }
        return try create(type, fields: fields, range: range)
    }

    /// The quotes string of a block about to be placed at `quotes`, opening the levels that start
    /// with it.
    func quotesString(_ quotes: [QuoteLevel]) -> String {
        String(quotes.map { $0.opens ? ">" : "|" })
    }

    /// The ``MarkupDetails/quotes`` member for a block, when it differs from the default.
    func quotesMember(_ quotes: [QuoteLevel], isQuote: Bool, isEmpty: Bool, container: BlockContainer) -> [(String, JSONValue)] {
        let actual = quotesString(quotes)
        let expected = QuoteDefaults.quotes(of: QuoteDefaults.Sibling(isQuote: isQuote, isEmpty: isEmpty), after: container.previous)
        return actual == expected ? [] : [(MarkupDetails.quotes, .string(actual))]
    }

    static func opened(_ quotes: inout [QuoteLevel]) {
        for index in quotes.indices { quotes[index].opens = false }
    }

    // MARK: Blocks

    mutating func blocks(_ blocks: [MarkupBlock], into container: inout BlockContainer, quotes: [QuoteLevel]) throws(MarkupError) {
        var quotes = quotes
        for block in blocks { try self.block(block, into: &container, quotes: &quotes) }
    }

    mutating func block(_ block: MarkupBlock, into container: inout BlockContainer, quotes: inout [QuoteLevel]) throws(MarkupError) {
        try flush()
        switch block.intent {
        case .paragraph, .tableCell:
            if !quotes.isEmpty, let type = quoteType, quoteTakesInlines(type) {
                try quoteParagraph(block, type: type, into: &container, quotes: &quotes)
            } else {
                try paragraph(block.inlines, into: &container, quotes: &quotes, range: block.range)
            }
        case .heading:
            if let key = try makeBlock(block.intent, details: block.details,
                                       extra: quotesMember(quotes, isQuote: false, isEmpty: false, container: container), range: block.range) {
                Self.opened(&quotes)
                try place(key, in: &container, range: block.range)
                try inlines(block.inlines, into: key)
            } else {
                try paragraph(block.inlines, into: &container, quotes: &quotes, range: block.range)
            }
        case .blockQuote:
            try quote(block, into: &container, quotes: &quotes)
        case .list:
            try list(block, into: &container, quotes: &quotes)
        case .listItem:
            for child in block.children { try self.block(child, into: &container, quotes: &quotes) }
        case .codeBlock:
            try code(block, into: &container, quotes: &quotes)
        case .htmlBlock:
            try html(block, into: &container, quotes: &quotes)
        case .thematicBreak:
            if let key = try makeBlock(block.intent, details: block.details,
                                       extra: quotesMember(quotes, isQuote: false, isEmpty: true, container: container), range: block.range) {
                Self.opened(&quotes)
                try place(key, in: &container, range: block.range)
            } else {
                try paragraph([MarkupInline(.text("* * *"))], into: &container, quotes: &quotes, range: block.range)
            }
        case .table:
            try table(block, into: &container, quotes: &quotes)
        case .tableRow:
            try paragraph(rowAsText(block), into: &container, quotes: &quotes, range: block.range)
        case .footnoteDefinition:
            guard let key = try makeBlock(block.intent, extra: quotesMember(quotes, isQuote: false, isEmpty: false, container: container),
                                          range: block.range) else {
                for child in block.children { try self.block(child, into: &container, quotes: &quotes) }
                return
            }
            Self.opened(&quotes)
            try place(key, in: &container, range: block.range)
            var inner = BlockContainer(key: key)
            try blocks(block.children, into: &inner, quotes: [])
        }
    }

    func quoteTakesInlines(_ type: NodeType) -> Bool { accepts(type, .text) }

    mutating func paragraph(_ content: [MarkupInline], into container: inout BlockContainer, quotes: inout [QuoteLevel],
                            range: SourceRange?, fields: JSONObject = JSONObject()) throws(MarkupError) {
        var fields = fields
        let extra = quotesMember(quotes, isQuote: false, isEmpty: content.isEmpty, container: container)
        if let markup = Self.markupField([:], adding: extra) { fields[MarkupDetails.field] = markup }
        let key = try create(.paragraph, fields: fields, range: range)
        Self.opened(&quotes)
        try place(key, in: &container, range: range)
        try inlines(content, into: key)
    }

    /// A paragraph directly in a block quote: a quote node of inline content, its own quote the
    /// last of `quotes`.
    mutating func quoteParagraph(_ block: MarkupBlock, type: NodeType, into container: inout BlockContainer,
                                 quotes: inout [QuoteLevel]) throws(MarkupError) {
        guard var (_, fields) = importing(.block(.blockQuote)) else { return }
        let extra = quotesMember(quotes, isQuote: true, isEmpty: block.inlines.isEmpty, container: container)
        if let markup = Self.markupField([:], adding: extra) { fields[MarkupDetails.field] = markup }
        let key = try create(type, fields: fields, range: block.range)
        Self.opened(&quotes)
        try inlines(block.inlines, into: key)
        try flush()
        try place(key, in: &container, range: block.range)
    }

    mutating func quote(_ block: MarkupBlock, into container: inout BlockContainer, quotes: inout [QuoteLevel]) throws(MarkupError) {
        guard let (type, fields) = importing(.block(.blockQuote)) else {
            for child in block.children { try self.block(child, into: &container, quotes: &quotes) }
            return
        }
        if !quoteTakesInlines(type) {
            // A quote node that holds blocks holds them.
            let key = try create(type, fields: fields, range: block.range)
            try place(key, in: &container, range: block.range)
            var inner = BlockContainer(key: key)
            try blocks(block.children, into: &inner, quotes: [])
            return
        }
        var inner = quotes + [QuoteLevel()]
        if block.children.isEmpty {
            // An empty block quote: an empty quote node.
            var fields = fields
            let extra = quotesMember(inner, isQuote: true, isEmpty: true, container: container)
            if let markup = Self.markupField([:], adding: extra) { fields[MarkupDetails.field] = markup }
            try place(try create(type, fields: fields, range: block.range), in: &container, range: block.range)
            Self.opened(&quotes)
            return
        }
        for child in block.children { try self.block(child, into: &container, quotes: &inner) }
        Self.opened(&quotes)
    }

    // MARK: Lists

    mutating func list(_ block: MarkupBlock, into container: inout BlockContainer, quotes: inout [QuoteLevel]) throws(MarkupError) {
        guard case .list(let style, let tight) = block.intent else { return }
        var extra = quotesMember(quotes, isQuote: false, isEmpty: false, container: container)
        if !tight { extra.append((MarkupDetails.loose, true)) }
        guard let listKey = try makeBlock(block.intent, details: block.details, extra: extra, range: block.range) else {
            for item in block.children { try self.block(item, into: &container, quotes: &quotes) }
            return
        }
        Self.opened(&quotes)
        try place(listKey, in: &container, range: block.range)
        // Item values count like Lexical's: an item holding only a nested list repeats the value.
        var value: Int = if case .ordered(let start) = style { start } else { 1 }
        for item in block.children {
            var checked: Bool?
            if case .listItem(let itemChecked) = item.intent { checked = itemChecked }
            try listItem(item, checked: checked, value: &value, into: listKey)
        }
    }

    mutating func newItem(checked: Bool?, value: inout Int, holdsList: Bool, extra: [(String, JSONValue)] = [], into list: NodeKey,
                          range: SourceRange?) throws(MarkupError) -> NodeKey {
        let context = MarkupImportContext(ordinal: value)
        guard let key = try makeBlock(.listItem(checked: checked), context: context, extra: extra, range: range) else {
            throw .cannotImport(intent: "list item", reason: "no registered mapping takes list items", range: range)
        }
        try attach(key, to: list, range: range)
        if !holdsList { value += 1 }
        return key
    }

    /// Whether an item's blocks fit Lexical's item of inline content: nothing, or one paragraph
    /// followed by lists only.
    static func isSimpleItem(_ children: [MarkupBlock]) -> Bool {
        guard let first = children.first else { return true }
        guard first.intent == .paragraph else { return false }
        return children.dropFirst().allSatisfy { if case .list = $0.intent { true } else { false } }
    }

    mutating func listItem(_ item: MarkupBlock, checked: Bool?, value: inout Int, into list: NodeKey) throws(MarkupError) {
        guard let probe = importing(.block(.listItem(checked: checked)), context: MarkupImportContext(ordinal: value)) else {
            var container = BlockContainer(key: list)
            var quotes: [QuoteLevel] = []
            for child in item.children { try block(child, into: &container, quotes: &quotes) }
            return
        }
        if !accepts(probe.type, .text) || !Self.isSimpleItem(item.children) {
            // An item of blocks.
            let onlyList = item.children.count == 1 && { if case .list = item.children[0].intent { true } else { false } }()
            let key = try newItem(checked: checked, value: &value, holdsList: false,
                                  extra: onlyList ? [(MarkupDetails.ownItem, .bool(true))] : [], into: list, range: item.range)
            var container = BlockContainer(key: key)
            try blocks(item.children, into: &container, quotes: [])
            return
        }
        // Lexical's list item: inline content, then an item of its own per nested list.
        let key = try newItem(checked: checked, value: &value, holdsList: false, into: list, range: item.range)
        if let first = item.children.first { try inlines(first.inlines, into: key) }
        for child in item.children.dropFirst() {
            try flush()
            let holder = try newItem(checked: checked, value: &value, holdsList: true, into: list, range: child.range)
            var container = BlockContainer(key: holder)
            var quotes: [QuoteLevel] = []
            try self.list(child, into: &container, quotes: &quotes)
        }
    }

    func rowAsText(_ row: MarkupBlock) -> [MarkupInline] {
        var content: [MarkupInline] = []
        for (index, cell) in row.children.enumerated() {
            if index > 0 { content.append(MarkupInline(.text(" | "))) }
            content += cell.inlines
        }
        return content
    }

    // MARK: Literal blocks


    mutating func code(_ block: MarkupBlock, into container: inout BlockContainer, quotes: inout [QuoteLevel]) throws(MarkupError) {
        guard let key = try makeBlock(block.intent, details: block.details,
                                      extra: quotesMember(quotes, isQuote: false, isEmpty: false, container: container), range: block.range) else {
            var content: [MarkupInline] = []
            for (index, line) in MarkupBlock.lines(ofLiteral: block.literal).enumerated() {
                if index > 0 { content.append(MarkupInline(.lineBreak)) }
                if !line.isEmpty { content.append(MarkupInline(.code(String(line)))) }
            }
            try paragraph(content, into: &container, quotes: &quotes, range: block.range)
            return
        }
        Self.opened(&quotes)
        try place(key, in: &container, range: block.range)
        let textType: NodeType = registry.contains("code-highlight") && accepts(batch[key]!.type, "code-highlight") ? "code-highlight" : .text
        try literalLines(block.literal, textType: textType, into: key, range: block.range)
    }

    /// A literal as text lines and line breaks; a literal of one empty line keeps one empty text
    /// node, so that it differs from an empty literal.
    mutating func literalLines(_ literal: String, textType: NodeType, into key: NodeKey, range: SourceRange?) throws(MarkupError) {
        guard !literal.isEmpty else { return }
        let lines = MarkupBlock.lines(ofLiteral: literal)
        if lines.count == 1 && lines[0].isEmpty {
            try attach(try create(textType, range: range), to: key, range: range)
            return
        }
        for (index, line) in lines.enumerated() {
            if index > 0 { try attach(try create(.lineBreak, range: range), to: key, range: range) }
            if !line.isEmpty { try attach(try create(textType, text: String(line), range: range), to: key, range: range) }
        }
    }

    mutating func html(_ block: MarkupBlock, into container: inout BlockContainer, quotes: inout [QuoteLevel]) throws(MarkupError) {
        guard let key = try makeBlock(block.intent, details: block.details,
                                      extra: quotesMember(quotes, isQuote: false, isEmpty: false, container: container), range: block.range) else {
            // Raw HTML as text: one paragraph per blank-line-separated chunk.
            var chunk: [MarkupInline] = []
            for line in MarkupBlock.lines(ofLiteral: block.literal) + [""] {
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                    if !chunk.isEmpty { try paragraph(chunk, into: &container, quotes: &quotes, range: block.range) }
                    chunk = []
                } else {
                    if !chunk.isEmpty { chunk.append(MarkupInline(.softBreak)) }
                    chunk.append(MarkupInline(.text(String(line))))
                }
            }
            return
        }
        Self.opened(&quotes)
        try place(key, in: &container, range: block.range)
        try literalLines(block.literal, textType: .text, into: key, range: block.range)
    }

    mutating func table(_ block: MarkupBlock, into container: inout BlockContainer, quotes: inout [QuoteLevel]) throws(MarkupError) {
        guard let tableKey = try makeBlock(block.intent, extra: quotesMember(quotes, isQuote: false, isEmpty: false, container: container),
                                           range: block.range) else {
            for row in block.children { try paragraph(rowAsText(row), into: &container, quotes: &quotes, range: row.range) }
            return
        }
        Self.opened(&quotes)
        try place(tableKey, in: &container, range: block.range)
        for row in block.children {
            guard let rowKey = try makeBlock(row.intent, range: row.range) else {
                throw .cannotImport(intent: "table row", reason: "no registered mapping takes table rows", range: row.range)
            }
            try attach(rowKey, to: tableKey, range: row.range)
            let isHeader = row.intent == .tableRow(isHeader: true)
            for cell in row.children {
                guard let cellKey = try makeBlock(cell.intent, context: MarkupImportContext(isHeader: isHeader), range: cell.range) else {
                    throw .cannotImport(intent: "table cell", reason: "no registered mapping takes table cells", range: cell.range)
                }
                try attach(cellKey, to: rowKey, range: cell.range)
                var fields: JSONObject = JSONObject()
                if case .tableCell(_, let alignment) = cell.intent, alignment != .none {
                    fields["format"] = .string(alignment.rawValue)
                }
                var cellContainer = BlockContainer(key: cellKey)
                var noQuotes: [QuoteLevel] = []
                try paragraph(cell.inlines, into: &cellContainer, quotes: &noQuotes, range: cell.range, fields: fields)
            }
        }
    }

    // MARK: Inlines

    mutating func flush() throws(MarkupError) {
        guard let text = pending else { return }
        pending = nil
        var fields: JSONObject = JSONObject()
        if !text.format.isEmpty { fields["format"] = .number(.integer(text.format.rawValue)) }
        if let spans = text.spans { fields[MarkupDetails.field] = .object([MarkupDetails.spans: spans]) }
        let key = try create(.text, text: text.text, fields: fields, range: nil)
        try attach(key, to: text.parent, range: nil)
    }

    mutating func text(_ string: String, format: TextFormat, spans: JSONValue?, into parent: NodeKey) throws(MarkupError) {
        guard !string.isEmpty else { return }
        if let current = pending, current.parent == parent, current.format == format, current.spans == spans {
            pending!.text += string
            return
        }
        try flush()
        pending = (parent, format, string, spans)
    }

    /// The inline content of a block: its leaves in order, with the spans around each. When the
    /// text formats alone would nest the spans differently, every leaf keeps its spans.
    mutating func inlines(_ content: [MarkupInline], into parent: NodeKey) throws(MarkupError) {
        guard !content.isEmpty else { return }
        if !content.contains(where: { $0.intent.isContainer && !$0.intent.isImage }) {
            // No spans (an image is a leaf): every inline is a leaf of its own, as flattening
            // would give without counting a span.
            for inline in content {
                try leafNode(InlineLeaf(content: inline, chain: [], link: nil), explicit: false, into: parent)
            }
            try flush()
            return
        }
        var leaves: [InlineLeaf] = []
        var counter = 0
        InlineLeaf.flatten(content, chain: [], into: &leaves, counter: &counter)
        let explicit = counter > 0 && !InlineLeaf.surelyReproduces(content) && !InlineLeaf.defaultReproduces(content, leaves: leaves)
        var linkNode: (id: Int, key: NodeKey)?
        for leaf in leaves {
            let target: NodeKey
            if let link = leaf.link {
                if linkNode?.id != link.id {
                    try flush()
                    guard let (type, fields) = importing(.inline(link.inline.intent)), accepts(batch[parent]!.type, type) else {
                        linkNode = nil
                        try leafNode(leaf, explicit: explicit, into: parent)
                        continue
                    }
                    var linkFields = fields
                    if link.inline.details.count > 0 { linkFields[MarkupDetails.field] = .object(link.inline.details) }
                    let key = try create(type, fields: linkFields, range: link.inline.range)
                    try attach(key, to: parent, range: link.inline.range)
                    linkNode = (link.id, key)
                }
                target = linkNode!.key
            } else {
                if linkNode != nil { try flush() }
                linkNode = nil
                target = parent
            }
            try leafNode(leaf, explicit: explicit, into: target)
        }
        try flush()
    }

    mutating func leafNode(_ leaf: InlineLeaf, explicit: Bool, into parent: NodeKey) throws(MarkupError) {
        let spans: JSONValue? = explicit ? .array(leaf.chainTokens.map(JSONValue.string)) : nil
        func markup(_ details: JSONObject) -> JSONValue? {
            var object = details
            if let spans { object[MarkupDetails.spans] = spans }
            return object.count == 0 ? nil : .object(object)
        }
        switch leaf.content.intent {
        case .text(let string):
            try text(string, format: leaf.format, spans: spans, into: parent)
        case .code(let string):
            try text(string, format: leaf.format.union(.code), spans: spans, into: parent)
        case .softBreak, .lineBreak:
            try flush()
            var fields: JSONObject = JSONObject()
            if leaf.content.intent == .lineBreak { fields[MarkupImporter.hardBreakField] = true }
            if let markup = markup(leaf.content.details) { fields[MarkupDetails.field] = markup }
            try attach(try create(.lineBreak, fields: fields, range: leaf.content.range), to: parent, range: leaf.content.range)
        case .html(let html):
            guard let (type, fields) = importing(.inline(leaf.content.intent)), accepts(batch[parent]!.type, type) else {
                try text(html, format: leaf.format, spans: spans, into: parent)
                return
            }
            try flush()
            var nodeFields = fields
            if let markup = markup([:]) { nodeFields[MarkupDetails.field] = markup }
            let role = registry.plugin(for: type)?.role
            try attach(try create(type, text: role == .text ? html : "", fields: nodeFields, range: leaf.content.range), to: parent,
                       range: leaf.content.range)
        case .image, .footnoteReference:
            let alt = leaf.content.children.map(\.plainText).joined()
            guard let (type, fields) = importing(.inline(leaf.content.intent), context: MarkupImportContext(plainText: alt)),
                  accepts(batch[parent]!.type, type) else {
                try text(leaf.content.plainText == "" ? alt : (leaf.content.intent.isImage ? alt : leaf.content.plainText),
                         format: leaf.format, spans: spans, into: parent)
                return
            }
            try flush()
            var nodeFields = fields
            if let markup = markup([:]) { nodeFields[MarkupDetails.field] = markup }
            try attach(try create(type, fields: nodeFields, range: leaf.content.range), to: parent, range: leaf.content.range)
        case .emphasis, .strong, .strikethrough, .link:
            break
        }
    }
}

extension InlineIntent {
    var isImage: Bool {
        if case .image = self { return true }
        return false
    }
}

/// The kinds of intent the importer caches its mapping lookups by.
enum IntentKind: Int, CaseIterable {
    case paragraph, heading, blockQuote, list, listItem, codeBlock, htmlBlock, thematicBreak, table, tableRow, tableCell, footnoteDefinition
    case text, softBreak, lineBreak, code, html, emphasis, strong, strikethrough, link, image, footnoteReference

    init(_ intent: MarkupIntent) {
        switch intent {
        case .block(let block):
            switch block {
            case .paragraph: self = .paragraph
            case .heading: self = .heading
            case .blockQuote: self = .blockQuote
            case .list: self = .list
            case .listItem: self = .listItem
            case .codeBlock: self = .codeBlock
            case .htmlBlock: self = .htmlBlock
            case .thematicBreak: self = .thematicBreak
            case .table: self = .table
            case .tableRow: self = .tableRow
            case .tableCell: self = .tableCell
            case .footnoteDefinition: self = .footnoteDefinition
            }
        case .inline(let inline):
            switch inline {
            case .text: self = .text
            case .softBreak: self = .softBreak
            case .lineBreak: self = .lineBreak
            case .code: self = .code
            case .html: self = .html
            case .emphasis: self = .emphasis
            case .strong: self = .strong
            case .strikethrough: self = .strikethrough
            case .link: self = .link
            case .image: self = .image
            case .footnoteReference: self = .footnoteReference
            }
        }
    }
}
