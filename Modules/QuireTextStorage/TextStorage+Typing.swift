import Foundation

extension TextStorage {
    // MARK: Typing attributes

    /// Sets the typing attributes explicitly (bold toggled on an empty selection): they stay in
    /// force until the caret moves, then come from the text again.
    ///
    /// - Complexity: O(1).
    public func setTypingAttributes(_ attributes: Attributes) {
        typingAttributes = attributes
        typingAttributesAreExplicit = true
    }

    /// Records the view's new selection. When it moved, typing attributes are read from the text
    /// around the caret again (unless IME composition is in progress, whose text already carries
    /// the typing attributes).
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`.
    /// - Complexity: O(log n) expected.
    public func setSelectedRange(_ range: NSRange) throws(TextStorageError) {
        try validate(range)
        guard range != selectedRange else { return }
        selectedRange = range
        guard markedRange == nil else { return }
        typingAttributesAreExplicit = false
        if let derived = typingAttributes(at: range.location) { typingAttributes = derived }
    }

    /// The typing attributes a caret at `location` gets: character attributes from the character
    /// before it (the first character at the start), paragraph attributes from its own paragraph,
    /// and never attachment attributes (typing after an image must not make an image). Nil for an
    /// empty text, where the current typing attributes stay.
    ///
    /// - Complexity: O(log n) expected.
    func typingAttributes(at location: Int) -> Attributes? {
        guard length > 0 else { return nil }
        let source = runTree.element(containing: location > 0 ? location - 1 : 0).element.attributes
        let start = paragraphStart(location)
        let paragraph = start < length ? runTree.element(containing: start).element.attributes : source
        return source.replacingScope(.attachment, with: .empty)
            .replacingScope(.paragraph, with: paragraph.filtered(scope: .paragraph))
    }

    // MARK: Marked text

    /// True while IME composition is in progress; selection reconciliation should wait.
    public var isComposing: Bool { markedRange != nil }

    /// Replaces the marked text (or the selection when nothing is marked) with `string`, marks it,
    /// and puts the selection at `selectedRange` inside it (relative to its start, widened to
    /// grapheme boundaries so that the caret never sits inside a cluster). The composed text is
    /// typing: it gets the typing attributes. An empty `string` ends composition. Like every native
    /// edit it is offered to the native-edit handler first; a handler that takes it over must put
    /// the composed text at the same place, because the marked range and selection are set there.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds` (also when `selectedRange` does not fit in
    ///   `string`), `.splitsSurrogatePair`, `.splitsGraphemeCluster` when the selection to be
    ///   replaced starts or ends inside a cluster; the storage is then unchanged.
    /// - Complexity: O(log n + k) expected for k units of `string`.
    public func setMarkedText(_ string: String, selectedRange selection: NSRange) throws(TextStorageError) {
        let target = try compositionTarget()
        let composed = AttributedText(string, attributes: typingAttributes)
        guard selection.location >= 0, selection.length >= 0, selection.location <= composed.length,
            selection.length <= composed.length - selection.location
        else { throw .rangeOutOfBounds(range: selection, length: composed.length) }
        let inner = Self.snapToGraphemes(selection, in: string)
        beginEditing()
        defer { closeSession() }
        if isNativeCall {
            let status: TypingStatus = string.isEmpty ? .remove : .typing
            try applyNative(NativeEdit(range: target, replacement: composed, status: status, isComposition: true), stored: composed)
        } else {
            // An engine replaying a composition (or a hook) must not loop back into the handler.
            applyReplacement(target, with: composed, typed: false)
        }
        markedRange = string.isEmpty ? nil : NSRange(location: target.location, length: composed.length)
        selectedRange = NSRange(location: target.location + inner.location, length: inner.length)
    }

    /// The range a composition replaces: the marked text, or the selection when nothing is marked
    /// (which must not start or end inside a grapheme cluster).
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds`, `.splitsSurrogatePair`,
    ///   `.splitsGraphemeCluster`, `.characterEditAfterProcessing`.
    /// - Complexity: O(log n) expected.
    public func compositionTarget() throws(TextStorageError) -> NSRange {
        let target = markedRange ?? selectedRange
        try validateCharacterEdit(target)
        if markedRange == nil {
            for offset in [target.location, target.location + target.length] where !isGraphemeBoundary(offset) {
                throw .splitsGraphemeCluster(offset: offset)
            }
        }
        return target
    }

    /// Marks text a controller (an editor) has already written as the IME's composition: `range`
    /// becomes the marked range and the selection goes to `selectedRange` inside it (relative to
    /// its start, widened to grapheme boundaries). An empty `range` ends composition. No text or
    /// attribute changes, so no native edit.
    ///
    /// - Throws: `TextStorageError.rangeOutOfBounds` (also for a selection outside the range),
    ///   `.splitsSurrogatePair`.
    /// - Complexity: O(log n + k) expected for a k-unit range.
    public func markComposedText(_ range: NSRange, selectedRange selection: NSRange) throws(TextStorageError) {
        try validate(range)
        guard selection.location >= 0, selection.length >= 0, selection.location <= range.length,
              selection.length <= range.length - selection.location
        else { throw .rangeOutOfBounds(range: selection, length: range.length) }
        let composed = String(decoding: units(in: range.location..<(range.location + range.length)), as: UTF16.self)
        let inner = Self.snapToGraphemes(selection, in: composed)
        markedRange = range.length == 0 ? nil : range
        selectedRange = NSRange(location: range.location + inner.location, length: inner.length)
    }

    /// Ends composition without touching the text's attributes (the controller that wrote the
    /// composed text styles it).
    ///
    /// - Complexity: O(1).
    public func endComposition() {
        markedRange = nil
    }

    /// Ends composition, committing the marked text with the typing attributes in force. The text
    /// is already in place, so only attributes change; this is the storage's own write (it is not
    /// offered to the native-edit handler and no typing-status rule can drop it).
    ///
    /// - Complexity: O(log n) expected.
    public func unmarkText() {
        guard let marked = markedRange else { return }
        markedRange = nil
        guard marked.length > 0 else { return }
        beginEditing()
        runTree.replace(bounds(marked), with: [RunElement(length: marked.length, attributes: typingAttributes)])
        record(.attributes, range: marked, changeInLength: 0)
        closeSession()
    }

    /// `range` inside `string` widened to grapheme boundaries; an empty range moves forward to the
    /// end of the cluster it falls in.
    ///
    /// - Complexity: O(k) for k units of `string`.
    static func snapToGraphemes(_ range: NSRange, in string: String) -> NSRange {
        var boundaries = [0]
        for character in string { boundaries.append(boundaries[boundaries.count - 1] + character.utf16.count) }
        let upperTarget = range.location + range.length
        let upper = boundaries.first { $0 >= upperTarget } ?? upperTarget
        let lower = range.length == 0 ? upper : (boundaries.last { $0 <= range.location } ?? 0)
        return NSRange(location: lower, length: upper - lower)
    }
}
