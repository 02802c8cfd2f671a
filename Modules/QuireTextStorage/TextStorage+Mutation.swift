import Foundation

extension TextStorage {
    // MARK: Characters

    /// Replaces the characters in `range` with `string`.
    ///
    /// From the view (native mode) this is typing, or removing when `string` is empty: the edit
    /// goes to the native-edit handler first, and typed characters get the typing attributes in
    /// `processEditing`. From the controller the new characters take the attributes of the first
    /// replaced character, or of the one before an insertion point, or of the one after it at the
    /// start (NSMutableAttributedString's rule).
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`,
    ///   `.characterEditAfterProcessing`; the storage is then unchanged.
    /// - Complexity: O(log n + k) expected for k inserted units.
    public func replaceCharacters(in range: NSRange, with string: String) throws(TextStorageError) {
        try validateCharacterEdit(range)
        let inherited = AttributedText(string, attributes: inheritedAttributes(for: range))
        if isNativeCall {
            let status: TypingStatus = string.isEmpty ? .remove : .typing
            // The handler sees the attributes the text will end up with; building them costs a copy,
            // so only when someone is listening.
            let offered = nativeEditHandler == nil ? inherited : inherited.settingAttributes(typingAttributes)
            try applyNative(NativeEdit(range: range, replacement: offered, status: status, isComposition: false),
                            stored: inherited)
        } else {
            applyReplacement(range, with: inherited, typed: false)
        }
    }

    /// Replaces the characters in `range` with an attributed string, keeping its attributes.
    ///
    /// From the view this is a paste (or a removal when `attributedText` is empty).
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`,
    ///   `.characterEditAfterProcessing`; the storage is then unchanged.
    /// - Complexity: O(log n + k + r) expected for k inserted units in r runs.
    public func replaceCharacters(in range: NSRange, with attributedText: AttributedText) throws(TextStorageError) {
        try validateCharacterEdit(range)
        if isNativeCall {
            let status: TypingStatus = attributedText.length == 0 ? .remove : .paste
            try applyNative(NativeEdit(range: range, replacement: attributedText, status: status, isComposition: false),
                            stored: attributedText)
        } else {
            applyReplacement(range, with: attributedText, typed: false)
        }
    }

    /// Replaces the whole text; from the view this is a paste that keeps the pasted attributes.
    ///
    /// - Throws: `TextStorageError.characterEditAfterProcessing` from a did-process hook.
    /// - Complexity: O(n + k) for the n units replaced and the k inserted.
    public func setAttributedString(_ attributedText: AttributedText) throws(TextStorageError) {
        try replaceCharacters(in: NSRange(location: 0, length: length), with: attributedText)
    }

    /// Native calls made by the view outside processing; edits made by hooks are the engine's.
    var isNativeCall: Bool { mode == .native && phase == .idle }

    /// `validate`, and no character edits once attributes were fixed.
    ///
    /// - Complexity: O(log n) expected.
    func validateCharacterEdit(_ range: NSRange) throws(TextStorageError) {
        try validate(range)
        if phase == .didProcess || phase == .fixing { throw .characterEditAfterProcessing(range: range) }
    }

    /// Offers a native edit to the handler and applies it unless the handler took it over.
    ///
    /// - Throws: `TextStorageError.nativeEditRefused` when the handler refused it.
    /// - Complexity: as `applyReplacement`, plus the handler.
    func applyNative(_ edit: NativeEdit, stored: AttributedText) throws(TextStorageError) {
        switch nativeEditHandler?(edit) {
        case .handled?: return
        case .refused(let reason)?: throw .nativeEditRefused(range: edit.range, reason: reason)
        case .applyNatively?, nil: break
        }
        typingStatus = edit.status
        applyReplacement(edit.range, with: stored, typed: edit.status == .typing)
    }

    /// The one primitive that changes characters.
    ///
    /// - Complexity: O(log n + k + r) expected.
    func applyReplacement(_ range: NSRange, with replacement: AttributedText, typed: Bool) {
        beginEditing()
        let span = bounds(range)
        if !replaceInsideOneChunk(span, with: replacement.units) {
            text.replace(span, with: TextChunk.chunks(of: replacement.units, capacity: chunkCapacity))
        }
        if !replaceInsideOneRun(span, with: replacement) {
            runTree.replace(span, with: replacement.runLengths)
        }
        var mask: EditActions = .characters
        if !replacement.runLengths.isEmpty { mask.insert(.attributes) }
        record(mask, range: range, changeInLength: replacement.length - range.length)
        if typed, replacement.length > 0 {
            typedRanges.append(NSRange(location: range.location, length: replacement.length))
        }
        closeSession()
    }

    /// The element an edit of `span` can be done in: the one holding its first unit, or for an
    /// insertion the one holding the unit before it (so appending at a chunk's end or the text's
    /// end stays in place).
    ///
    /// - Complexity: O(1).
    private func anchor(of span: Range<Int>) -> Int? {
        if span.isEmpty { return span.lowerBound > 0 ? span.lowerBound - 1 : (length > 0 ? 0 : nil) }
        return span.lowerBound
    }

    /// Typing's fast path: the edit fits inside one chunk, which stays within its capacity.
    ///
    /// - Complexity: O(log n + capacity).
    private func replaceInsideOneChunk(_ span: Range<Int>, with units: [UInt16]) -> Bool {
        guard let anchor = anchor(of: span) else { return false }
        let capacity = chunkCapacity
        return text.updateElement(containing: anchor) { chunk, start in
            let local = span.lowerBound - start
            let newCount = chunk.units.count - span.count + units.count
            guard span.upperBound - start <= chunk.units.count, newCount >= 1, newCount <= capacity else { return false }
            chunk.replace(local..<(local + span.count), with: units)
            return true
        }
    }

    /// Typing's fast path for runs: the edit lies inside one run and the new text (if any) has that
    /// run's attributes, so only the run's length changes.
    ///
    /// - Complexity: O(log r).
    private func replaceInsideOneRun(_ span: Range<Int>, with replacement: AttributedText) -> Bool {
        guard replacement.runLengths.count <= 1, let anchor = anchor(of: span) else { return false }
        let attributes = replacement.runLengths.first?.attributes
        return runTree.updateElement(containing: anchor) { run, start in
            let newLength = run.length - span.count + replacement.length
            guard span.upperBound - start <= run.length, newLength > 0,
                attributes == nil || attributes == run.attributes
            else { return false }
            run.length = newLength
            return true
        }
    }

    /// NSMutableAttributedString's rule for plain text replacing `range`.
    ///
    /// - Complexity: O(log r) expected.
    func inheritedAttributes(for range: NSRange) -> Attributes {
        let source: Int
        if range.length > 0 {
            source = range.location
        } else if range.location > 0 {
            source = range.location - 1
        } else if length > 0 {
            source = 0
        } else {
            return .empty
        }
        return runTree.element(containing: source).element.attributes
    }

    // MARK: Attributes

    /// Replaces all attributes in `range` with `attributes`.
    ///
    /// From the view, outside typing or paste, the write is ignored (so a view cannot wipe the
    /// engine's styles) and the result is false; controller writes always apply.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log r) expected: the runs in `range` are cut out as one subtree.
    @discardableResult
    public func setAttributes(_ attributes: Attributes, range: NSRange) throws(TextStorageError) -> Bool {
        try writeAttributes(range) {
            let run = RunElement(length: range.length, attributes: interned(attributes))
            if !runTree.replaceInsideElement(bounds(range), with: [run], if: { $0.attributes != attributes }) {
                runTree.replace(bounds(range), with: [run])
            }
        }
    }

    /// Adds `attributes` over `range`, keeping other keys.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log r + k) expected for k runs in `range`.
    @discardableResult
    public func addAttributes(_ attributes: Attributes, range: NSRange) throws(TextStorageError) -> Bool {
        try writeAttributes(range) {
            modifyRuns(in: bounds(range)) { $0.merging(attributes) }
        }
    }

    /// Sets one attribute over `range`, keeping other keys.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log r + k) expected for k runs in `range`.
    @discardableResult
    public func addAttribute(_ key: AttributeKey, value: AttributeValue, range: NSRange) throws(TextStorageError) -> Bool {
        try addAttributes([key: value], range: range)
    }

    /// Removes one attribute over `range`.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log r + k) expected for k runs in `range`.
    @discardableResult
    public func removeAttribute(_ key: AttributeKey, range: NSRange) throws(TextStorageError) -> Bool {
        try writeAttributes(range) {
            modifyRuns(in: bounds(range)) { $0.removing(key) }
        }
    }

    /// Validates, applies the typing-status rule, and records an attribute write.
    ///
    /// - Complexity: O(log n) plus `write` and `processEditing` when outside a session.
    private func writeAttributes(_ range: NSRange, _ write: () -> Void) throws(TextStorageError) -> Bool {
        try validate(range)
        if isNativeCall, typingStatus != .typing, typingStatus != .paste { return false }
        guard range.length > 0 else { return true }
        beginEditing()
        write()
        record(.attributes, range: range, changeInLength: 0)
        closeSession()
        return true
    }
}
