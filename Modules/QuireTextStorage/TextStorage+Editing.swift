import Foundation

extension TextStorage {
    // MARK: Sessions

    /// Opens an editing session; sessions nest and only the outermost `endEditing()` processes.
    ///
    /// - Complexity: O(1).
    public func beginEditing() {
        editCount += 1
    }

    /// Closes an editing session; closing the outermost one runs `processEditing` and notifies
    /// observers once for everything edited since it opened.
    ///
    /// - Throws: `TextStorageError.unbalancedEndEditing` without a matching `beginEditing()`.
    /// - Complexity: O(log n + r) for r runs in the invalidated paragraphs.
    public func endEditing() throws(TextStorageError) {
        guard editCount > 0 else { throw .unbalancedEndEditing }
        closeSession()
    }

    /// Runs `body` inside one editing session, which is closed even when `body` throws (the edits
    /// made before the error stay, as in an NSTextStorage session).
    @discardableResult
    public func performEditing<Result>(_ body: (TextStorage) throws(TextStorageError) -> Result) throws(TextStorageError) -> Result {
        beginEditing()
        defer { closeSession() }
        return try body(self)
    }

    /// Runs `body` as the engine: its edits are applied as given, never routed to the native-edit
    /// handler and never subject to typing-status rules, all in one editing session.
    @discardableResult
    public func performControllerEdit<Result>(_ body: (TextStorage) throws(TextStorageError) -> Result) throws(TextStorageError) -> Result {
        let previous = mode
        mode = .controller
        beginEditing()
        defer {
            mode = previous
            closeSession()
        }
        return try body(self)
    }

    func closeSession() {
        editCount -= 1
        if editCount == 0, phase == .idle { processEditing() }
    }

    // MARK: Recording edits

    /// Records that characters in `range` (pre-edit coordinates) changed and the length changed by
    /// `changeInLength`, as NSTextStorage's `edited(_:range:changeInLength:)`. The storage calls it
    /// for its own mutations; call it directly (usually with `.attributes` and no length change) to
    /// make observers process a range again, for example after a theme changed what an attribute
    /// looks like.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds` when `range` does not fit the pre-edit text or
    ///   `range.length + changeInLength` is negative.
    /// - Complexity: O(t) for t typed ranges pending in the session (usually one), plus
    ///   `processEditing` when called outside a session.
    public func edited(_ mask: EditActions, range: NSRange, changeInLength delta: Int) throws(TextStorageError) {
        let previousLength = length - delta
        guard range.location >= 0, range.length >= 0, range.length + delta >= 0,
            range.location + range.length <= previousLength
        else { throw .rangeOutOfBounds(range: range, length: previousLength) }
        beginEditing()
        record(mask, range: range, changeInLength: delta)
        closeSession()
    }

    /// Accumulates an edit into the session and maps every tracked range through it.
    ///
    /// - Complexity: O(t) for t typed ranges pending in the session.
    func record(_ mask: EditActions, range: NSRange, changeInLength delta: Int) {
        editedMask.formUnion(mask)
        let replacement = NSRange(location: range.location, length: range.length + delta)
        if editedRange.location == NSNotFound {
            editedRange = replacement
        } else {
            editedRange = union(mapSpan(editedRange, through: range, delta: delta), replacement)
        }
        changeInLength += delta
        if mode == .native, phase == .idle { sessionHasNativeEdit = true }
        guard mask.contains(.characters) else { return }
        typedRanges = typedRanges.flatMap { survivors(of: $0, through: range, delta: delta) }
        let lower = mapOffset(selectedRange.location, through: range, delta: delta)
        let upper = mapOffset(selectedRange.location + selectedRange.length, through: range, delta: delta)
        selectedRange = NSRange(location: lower, length: max(0, upper - lower))
        if let marked = markedRange {
            let pieces = survivors(of: marked, through: range, delta: delta)
            if let first = pieces.first, let last = pieces.last {
                markedRange = NSRange(location: first.location, length: last.location + last.length - first.location)
            } else {
                markedRange = nil
            }
        }
    }

    /// The smallest range covering both.
    ///
    /// - Complexity: O(1).
    func union(_ a: NSRange, _ b: NSRange) -> NSRange {
        let start = min(a.location, b.location)
        return NSRange(location: start, length: max(a.location + a.length, b.location + b.length) - start)
    }

    /// Maps a span through a replacement so that it still covers what it covered, widened to the
    /// replacement where they overlap.
    ///
    /// - Complexity: O(1).
    func mapSpan(_ span: NSRange, through range: NSRange, delta: Int) -> NSRange {
        let rangeEnd = range.location + range.length
        let spanEnd = span.location + span.length
        let start: Int
        if span.location <= range.location {
            start = span.location
        } else if span.location >= rangeEnd {
            start = span.location + delta
        } else {
            start = range.location
        }
        let end: Int
        if spanEnd >= rangeEnd {
            end = spanEnd + delta
        } else if spanEnd <= range.location {
            end = spanEnd
        } else {
            end = rangeEnd + delta
        }
        return NSRange(location: start, length: end - start)
    }

    /// Maps a caret offset: inside the replaced range it moves to the end of the replacement, at
    /// an insertion point it moves past the inserted text (as a text view's caret does).
    ///
    /// - Complexity: O(1).
    func mapOffset(_ offset: Int, through range: NSRange, delta: Int) -> Int {
        let rangeEnd = range.location + range.length
        if offset < range.location { return offset }
        if offset >= rangeEnd { return offset + delta }
        return rangeEnd + delta
    }

    /// The parts of `span` whose characters survive the replacement, in post-edit coordinates:
    /// what lies before the replaced range and what lies after it, never the new text.
    ///
    /// - Complexity: O(1).
    func survivors(of span: NSRange, through range: NSRange, delta: Int) -> [NSRange] {
        let spanEnd = span.location + span.length
        let rangeEnd = range.location + range.length
        var result: [NSRange] = []
        if span.location < range.location {
            result.append(NSRange(location: span.location, length: min(spanEnd, range.location) - span.location))
        }
        if spanEnd > rangeEnd {
            let start = max(span.location, rangeEnd) + delta
            let piece = NSRange(location: start, length: spanEnd + delta - start)
            if let last = result.last, last.location + last.length == piece.location {
                result[result.count - 1].length += piece.length
            } else {
                result.append(piece)
            }
        }
        return result
    }

    // MARK: Processing

    /// The will-process hook, typing attributes for typed text, `fixAttributes` over the
    /// invalidated paragraphs, the did-process hook, then every observer once.
    ///
    /// - Complexity: O(log n + r log r) for r runs in the invalidated paragraphs.
    func processEditing() {
        guard !editedMask.isEmpty else {
            resetSession()
            return
        }
        phase = .willProcess
        delegate?.textStorageWillProcessEditing(self)
        phase = .fixing
        for range in typedRanges where range.length > 0 {
            editedMask.insert(.attributes)
            let (run, start) = runTree.element(containing: range.location)
            let alreadyTyped = run.attributes == typingAttributes
                && start + run.length >= range.location + range.length
            if !alreadyTyped {
                runTree.replace(bounds(range), with: [RunElement(length: range.length, attributes: typingAttributes)])
            }
        }
        let fixedRange = editedRange
        var invalidated = paragraphs(around: fixedRange)
        fixAttributesUnchecked(in: invalidated)
        phase = .didProcess
        delegate?.textStorageDidProcessEditing(self)
        if editedRange != fixedRange, case let widened = paragraphs(around: editedRange), widened != invalidated {
            phase = .fixing
            fixAttributesUnchecked(in: widened)
            invalidated = union(invalidated, widened)
        }
        let change = TextStorageChange(
            editedMask: editedMask, editedRange: editedRange, changeInLength: changeInLength,
            invalidatedRange: invalidated, origin: sessionHasNativeEdit ? .native : .controller,
            typingStatus: typingStatus)
        resetSession()
        for observer in observers { observer.block(change) }
    }

    func resetSession() {
        phase = .idle
        editedMask = []
        editedRange = NSRange(location: NSNotFound, length: 0)
        changeInLength = 0
        sessionHasNativeEdit = false
        typedRanges = []
        typingStatus = .none
    }

    /// Makes attributes consistent in `range`: attachment-scoped attributes only on U+FFFC, and
    /// every paragraph carrying the paragraph-scoped attributes of its first character. Runs in
    /// `processEditing` over the invalidated paragraphs; these fixes are not recorded as edits.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`.
    /// - Complexity: O((r + p) log n) for r runs in `range` and p paragraphs that need fixing,
    ///   plus the length of runs carrying attachment attributes.
    public func fixAttributes(in range: NSRange) throws(TextStorageError) {
        try validateBounds(range)
        fixAttributesUnchecked(in: paragraphs(around: range))
    }

    /// `fixAttributes` for a range already known to be valid and paragraph-aligned.
    ///
    /// - Complexity: as `fixAttributes(in:)`.
    func fixAttributesUnchecked(in range: NSRange) {
        let span = bounds(range)
        guard !span.isEmpty else { return }
        fixAttachments(in: span)
        fixParagraphs(in: span)
    }

    /// Removes attachment-scoped attributes from every unit in `span` that is not U+FFFC.
    ///
    /// - Complexity: O((a + 1) log r) to find the a runs with attachment attributes, plus their
    ///   length, plus O(log r) per stretch rewritten.
    private func fixAttachments(in span: Range<Int>) {
        var misplaced: [Range<Int>] = []
        runTree.forEach(in: span, having: ScopeMask(.attachment)) { run, start in
            let runSpan = max(start, span.lowerBound)..<min(start + run.length, span.upperBound)
            var stretchStart: Int?
            for (index, unit) in units(in: runSpan).enumerated() {
                let offset = runSpan.lowerBound + index
                if unit == 0xFFFC {
                    if let begin = stretchStart { misplaced.append(begin..<offset) }
                    stretchStart = nil
                } else if stretchStart == nil {
                    stretchStart = offset
                }
            }
            if let begin = stretchStart { misplaced.append(begin..<runSpan.upperBound) }
            return true
        }
        for stretch in misplaced {
            modifyRuns(in: stretch) { $0.replacingScope(.attachment, with: .empty) }
        }
    }

    /// Only a paragraph with a run boundary inside it, next to a run carrying paragraph attributes,
    /// can disagree with its first character; the tree's scope summaries find those runs without
    /// visiting the others, so the work is proportional to them, not to the text or the paragraphs.
    ///
    /// - Complexity: O((p + 1) log n) for p runs with paragraph attributes in `span`, plus the
    ///   runs of the paragraphs rewritten.
    private func fixParagraphs(in span: Range<Int>) {
        var candidates: [Int] = []
        runTree.forEach(in: span, having: ScopeMask(.paragraph)) { run, start in
            if start > span.lowerBound { candidates.append(start) }
            if start + run.length < span.upperBound { candidates.append(start + run.length) }
            return true
        }
        var fixedUpTo = span.lowerBound
        for boundary in candidates where boundary > fixedUpTo {
            if isParagraphSeparator(unit(at: boundary - 1)) { continue }
            let before = runTree.element(containing: boundary - 1).element.attributes.filtered(scope: .paragraph)
            let after = runTree.element(containing: boundary).element.attributes.filtered(scope: .paragraph)
            if before == after { continue }
            let start = paragraphStart(boundary)
            let end = paragraphEnd(boundary)
            let first = runTree.element(containing: start).element.attributes.filtered(scope: .paragraph)
            modifyRuns(in: start..<end) { $0.replacingScope(.paragraph, with: first) }
            fixedUpTo = end
        }
    }

    /// Rewrites the attributes of every run in `span` with `transform`.
    ///
    /// - Complexity: O(log r + k) expected for k runs in `span`.
    func modifyRuns(in span: Range<Int>, _ transform: (Attributes) -> Attributes) {
        guard !span.isEmpty else { return }
        var changed = false
        let rewritten = runLengths(in: span).map { run in
            let attributes = transform(run.attributes)
            guard attributes != run.attributes else { return run }
            changed = true
            return RunElement(length: run.length, attributes: interned(attributes))
        }
        // Re-applying what is already there (bold on bold) must not restructure the tree.
        guard changed else { return }
        if rewritten.count == 1, runTree.replaceInsideElement(span, with: rewritten, if: { _ in true }) { return }
        runTree.replace(span, with: rewritten)
    }

    // MARK: Observers

    /// Adds an observer called once at the end of every editing session that changed something.
    ///
    /// - Complexity: O(1) amortized.
    @discardableResult
    public func addObserver(_ block: @escaping (TextStorageChange) -> Void) -> TextStorageObserverToken {
        nextObserverID += 1
        observers.append((nextObserverID, block))
        return TextStorageObserverToken(id: nextObserverID)
    }

    /// Removes an observer; unknown tokens are ignored.
    ///
    /// - Complexity: O(k) for k observers.
    public func removeObserver(_ token: TextStorageObserverToken) {
        observers.removeAll { $0.id == token.id }
    }
}
