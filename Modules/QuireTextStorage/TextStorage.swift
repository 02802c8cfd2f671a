import Foundation

/// A mutable attributed string with NSTextStorage's editing contract, on every platform.
///
/// Text is UTF-16, held in a balanced tree of chunks; attributes are held in a second balanced tree
/// of runs. Both trees cache summed lengths, so replacing characters or attributes anywhere costs
/// O(log n) (plus the size of what is inserted or the number of runs rewritten), never a copy of
/// the string.
///
/// Edits happen in editing sessions. `beginEditing()`/`endEditing()` nest; a mutation outside a
/// session is a session of its own. When the outermost session ends, `processEditing` runs: the
/// delegate's will-process hook, typing attributes for typed text, `fixAttributes` over the
/// invalidated paragraphs, the did-process hook, then every observer once.
///
/// `TextStorage` is a reference type like NSTextStorage and is deliberately not `Sendable`: it is
/// mutated in place and belongs to whichever context (usually the UI thread) owns the text view.
/// The values it hands out (`AttributedText`, `Attributes`, `TextStorageChange`) are Sendable.
public final class TextStorage {
    let text: SummedTree<TextChunk>
    let runTree: SummedTree<RunElement>
    let chunkCapacity: Int

    // The mutable state below opts out of dynamic exclusivity checking, which costs about a fifth
    // of a keystroke otherwise. It cannot fire: every access is a short synchronous read or write
    // (none is passed inout or held across a call into a handler, hook or observer). The one
    // property others may set, `nativeEditHandler`, keeps its checks.

    // Session state.
    @exclusivity(unchecked) var editCount = 0
    @exclusivity(unchecked) var phase = Phase.idle
    /// The edit actions accumulated in the current session.
    @exclusivity(unchecked) public internal(set) var editedMask: EditActions = []
    /// The range changed in the current session, in post-edit coordinates; location `NSNotFound`
    /// when nothing was edited (as in NSTextStorage).
    @exclusivity(unchecked) public internal(set) var editedRange = NSRange(location: NSNotFound, length: 0)
    /// The sum of the length changes in the current session.
    @exclusivity(unchecked) public internal(set) var changeInLength = 0
    @exclusivity(unchecked) var sessionHasNativeEdit = false
    /// Characters typed or composed in this session (precise, mapped through later edits); they
    /// receive the typing attributes in `processEditing`.
    @exclusivity(unchecked) var typedRanges: [NSRange] = []

    // Modes and typing.
    /// Who the next edit comes from. `.native` unless inside `performControllerEdit`.
    @exclusivity(unchecked) public internal(set) var mode = EditOrigin.native
    /// Receives native edits before they are applied; see `NativeEditResolution`. A handler that
    /// takes an edit over must write through `performControllerEdit`: a native write from inside
    /// the handler would be routed to it again.
    public var nativeEditHandler: ((NativeEdit) -> NativeEditResolution)?
    /// The status of the native edit in progress; `.none` between sessions.
    @exclusivity(unchecked) public internal(set) var typingStatus = TypingStatus.none
    /// The attributes the next typed or composed characters get.
    @exclusivity(unchecked) public internal(set) var typingAttributes = Attributes.empty
    /// True when typing attributes were set explicitly and the caret has not moved since.
    @exclusivity(unchecked) public internal(set) var typingAttributesAreExplicit = false
    /// The view's selection, mapped through every edit.
    @exclusivity(unchecked) public internal(set) var selectedRange = NSRange(location: 0, length: 0)
    /// The range of marked (IME) text, nil when nothing is being composed.
    @exclusivity(unchecked) public internal(set) var markedRange: NSRange?

    /// Hooks run during `processEditing`.
    public weak var delegate: (any TextStorageDelegate)?
    @exclusivity(unchecked) var observers: [(id: Int, block: (TextStorageChange) -> Void)] = []
    @exclusivity(unchecked) var nextObserverID = 0
    /// One shared copy of each attribute set written recently, so that runs with equal attributes
    /// share one dictionary instead of each holding its own (a document has few distinct sets).
    @exclusivity(unchecked) var attributePool: Set<Attributes> = []

    enum Phase {
        case idle, willProcess, fixing, didProcess
    }

    /// Creates a storage holding `content`.
    ///
    /// - Complexity: O(n + r) for n UTF-16 units and r runs.
    public convenience init(_ content: AttributedText = AttributedText("")) {
        self.init(content, chunkCapacity: 1024)
    }

    /// Creates a storage holding `string` with `attributes`.
    ///
    /// - Complexity: O(n).
    public convenience init(_ string: String, attributes: Attributes = .empty) {
        self.init(AttributedText(""), chunkCapacity: 1024)
        let length = string.utf16.count
        text.reset(TextChunk.chunks(of: string.utf16, count: length, capacity: chunkCapacity))
        if length > 0 { runTree.reset([RunElement(length: length, attributes: attributes)]) }
    }

    /// `chunkCapacity` bounds the UTF-16 units per text chunk; tests use tiny chunks so that the
    /// tree code paths run on short strings.
    init(_ content: AttributedText, chunkCapacity: Int) {
        precondition(chunkCapacity >= 2, "a chunk must hold at least a surrogate pair")
        self.chunkCapacity = chunkCapacity
        text = SummedTree()
        runTree = SummedTree()
        text.reset(TextChunk.chunks(of: content.units, capacity: chunkCapacity))
        runTree.reset(content.runLengths)
    }

    // MARK: Reading

    /// The UTF-16 length.
    ///
    /// - Complexity: O(1).
    public var length: Int { text.summary.length }

    /// The whole text.
    ///
    /// - Complexity: O(n).
    public var string: String { String(decoding: units(in: 0..<length), as: UTF16.self) }

    /// The whole text with its attributes.
    ///
    /// - Complexity: O(n + r).
    public var attributedText: AttributedText {
        AttributedText(units: units(in: 0..<length), runs: runLengths(in: 0..<length))
    }

    /// The text in `range`.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log n + k) for k units read.
    public func substring(in range: NSRange) throws(TextStorageError) -> String {
        try validate(range)
        return String(decoding: units(in: bounds(range)), as: UTF16.self)
    }

    /// The text and attributes in `range`.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log n + k + r) for k units and r runs read.
    public func attributedSubstring(in range: NSRange) throws(TextStorageError) -> AttributedText {
        try validate(range)
        let span = bounds(range)
        return AttributedText(units: units(in: span), runs: runLengths(in: span))
    }

    /// The attributes at UTF-16 `location` and the longest range around it sharing them.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds` unless `0 <= location < length`.
    /// - Complexity: O(log r) expected for r runs.
    public func attributes(at location: Int) throws(TextStorageError) -> (attributes: Attributes, range: NSRange) {
        guard location >= 0, location < length else {
            throw .rangeOutOfBounds(range: NSRange(location: location, length: 1), length: length)
        }
        let (run, start) = runTree.element(containing: location)
        return (run.attributes, NSRange(location: start, length: run.length))
    }

    /// The attribute runs intersecting `range`, clipped to it.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`.
    /// - Complexity: O(log r + k) for k runs returned.
    public func runs(in range: NSRange) throws(TextStorageError) -> [AttributeRun] {
        try validateBounds(range)
        var offset = range.location
        return runLengths(in: bounds(range)).map { run in
            defer { offset += run.length }
            return AttributeRun(range: NSRange(location: offset, length: run.length), attributes: run.attributes)
        }
    }

    /// The UTF-16 unit at `location`.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds` unless `0 <= location < length`.
    /// - Complexity: O(log n) expected.
    public func utf16Unit(at location: Int) throws(TextStorageError) -> UInt16 {
        guard location >= 0, location < length else {
            throw .rangeOutOfBounds(range: NSRange(location: location, length: 1), length: length)
        }
        return unit(at: location)
    }

    /// `range` widened to whole paragraphs (a paragraph ends after "\n", "\r" or U+2029).
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`.
    /// - Complexity: O(log n) expected, through the separator counts cached in the tree.
    public func paragraphRange(for range: NSRange) throws(TextStorageError) -> NSRange {
        try validateBounds(range)
        return paragraphs(around: range)
    }

    /// The pooled copy of `attributes`. The pool is dropped when it grows past a bound, so a
    /// stream of distinct sets (a syntax highlighter's colours) cannot grow it without limit.
    ///
    /// - Complexity: O(a) expected for a attributes (one hash).
    func interned(_ attributes: Attributes) -> Attributes {
        if attributePool.count >= 4_096 { attributePool.removeAll(keepingCapacity: true) }
        return attributePool.insert(attributes).memberAfterInsert
    }

    // MARK: Internal reading

    /// - Complexity: O(1).
    func bounds(_ range: NSRange) -> Range<Int> { range.location..<(range.location + range.length) }

    /// - Complexity: O(log n) expected.
    func unit(at location: Int) -> UInt16 {
        let (chunk, start) = text.element(containing: location)
        return chunk.units[location - start]
    }

    /// - Complexity: O(log n + k).
    func units(in span: Range<Int>) -> [UInt16] {
        var result: [UInt16] = []
        result.reserveCapacity(span.count)
        text.forEach(in: span) { chunk, start in
            let lower = max(span.lowerBound, start) - start
            let upper = min(span.upperBound, start + chunk.units.count) - start
            result.append(contentsOf: chunk.units[lower..<upper])
            return true
        }
        return result
    }

    /// - Complexity: O(log r + k).
    func runLengths(in span: Range<Int>) -> [RunElement] {
        var result: [RunElement] = []
        runTree.forEach(in: span) { run, start in
            let clipped = min(span.upperBound, start + run.length) - max(span.lowerBound, start)
            result.append(RunElement(length: clipped, attributes: run.attributes))
            return true
        }
        return result
    }

    /// The start of the paragraph holding `location`. Paragraphs are usually short, so the chunk
    /// around `location` is scanned first; the separator counts in the tree answer the rest.
    ///
    /// - Complexity: O(log n + capacity) expected.
    func paragraphStart(_ location: Int) -> Int {
        guard location > 0 else { return 0 }
        let (chunk, start) = text.element(containing: location - 1)
        if let index = chunk.units[..<(location - start)].lastIndex(where: isParagraphSeparator) {
            return start + index + 1
        }
        let before = text.breaks(before: start)
        guard before > 0, let separator = text.offsetOfBreak(before) else { return 0 }
        return separator + 1
    }

    /// The end (after its separator) of the paragraph holding the unit at `location`.
    ///
    /// - Complexity: O(log n + capacity) expected.
    func paragraphEnd(_ location: Int) -> Int {
        guard location < length else { return length }
        let (chunk, start) = text.element(containing: location)
        if let index = chunk.units[(location - start)...].firstIndex(where: isParagraphSeparator) {
            return start + index + 1
        }
        let chunkEnd = start + chunk.units.count
        guard let separator = text.offsetOfBreak(text.breaks(before: chunkEnd) + 1) else { return length }
        return separator + 1
    }

    /// - Complexity: O(log n) expected.
    func paragraphs(around range: NSRange) -> NSRange {
        let start = paragraphStart(range.location)
        let anchor = range.length > 0 ? range.location + range.length - 1 : range.location
        let end = paragraphEnd(anchor)
        return NSRange(location: start, length: max(end, range.location + range.length) - start)
    }

    // MARK: Validation

    /// - Complexity: O(1).
    func validateBounds(_ range: NSRange) throws(TextStorageError) {
        guard range.location >= 0, range.length >= 0, range.location <= length,
            range.length <= length - range.location
        else { throw .rangeOutOfBounds(range: range, length: length) }
    }

    /// True when `offset` falls between a lead and a trail surrogate.
    ///
    /// - Complexity: O(log n) expected.
    func splitsSurrogatePair(_ offset: Int) -> Bool {
        offset > 0 && offset < length && UTF16.isTrailSurrogate(unit(at: offset))
            && UTF16.isLeadSurrogate(unit(at: offset - 1))
    }

    /// Checks bounds and that neither end splits a surrogate pair.
    ///
    /// - Complexity: O(log n) expected.
    func validate(_ range: NSRange) throws(TextStorageError) {
        try validateBounds(range)
        for offset in [range.location, range.location + range.length] where splitsSurrogatePair(offset) {
            throw .splitsSurrogatePair(offset: offset)
        }
    }

    /// Grapheme clusters are found in a window of this many units on each side of an offset; a
    /// longer cluster (pathological stacks of combining marks) is judged by the window alone.
    static let graphemeWindow = 32

    /// True when `offset` is between two grapheme clusters.
    ///
    /// - Complexity: O(log n) expected (a bounded window is segmented).
    func isGraphemeBoundary(_ offset: Int) -> Bool {
        guard offset > 0, offset < length else { return true }
        let lower = max(0, offset - Self.graphemeWindow)
        let window = units(in: lower..<min(length, offset + Self.graphemeWindow))
        var position = lower
        for character in String(decoding: window, as: UTF16.self) {
            if position >= offset { break }
            position += character.utf16.count
        }
        return position == offset
    }
}
