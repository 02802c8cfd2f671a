import Foundation
import QuireEditor
import QuireModel
import QuirePositionIndex
import QuireReconciler
import QuireSelection

extension Editor {
    /// The whole flat string: the storage's text, or headless a render of the state.
    ///
    /// - Complexity: O(n).
    var flatText: String { storage?.string ?? FlatString.render(state) }

    /// The flat string's units in `range` (its start moved back off the second half of a
    /// surrogate pair): read from the storage, or headless from the parts the position index
    /// lists for the range.
    ///
    /// - Throws: `InteractionError.editor(.selection(.locationOutOfBounds))` for a range outside
    ///   the text.
    /// - Complexity: O(log n + k) for k parts in the range.
    func flatText(in range: Range<Int>) throws(InteractionError) -> String {
        let index = reconciler.index
        guard range.lowerBound >= 0, range.upperBound <= index.totalLength else {
            throw .editor(.selection(.locationOutOfBounds(range.upperBound, length: index.totalLength)))
        }
        if let storage { return try storage.textBefore(range) }
        let entries: [PositionIndex<NodeKey>.Entry]
        do { entries = try index.entries(overlapping: range) } catch {
            throw .editor(.selection(.locationOutOfBounds(range.upperBound, length: index.totalLength)))
        }
        var units: [UInt16] = []
        for entry in entries where entry.length > 0 {
            guard let node = state[entry.key] else { continue }
            let part: String
            switch entry.part {
            case .preamble: part = FlatString.preamble(of: node, in: state)
            case .content: part = FlatString.content(of: node)
            case .postamble: part = FlatString.postamble(of: node, in: state)
            }
            let lower = max(range.lowerBound, entry.location) - entry.location
            let upper = min(range.upperBound, entry.location + entry.length) - entry.location
            units.append(contentsOf: Array(part.utf16)[lower..<upper])
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// The native location of the selection's focus (the end that moves), or of the IME caret
    /// while composing.
    ///
    /// - Complexity: O(log n).
    var caretLocation: Int? {
        if let storage, storage.isComposing { return storage.selectedRange.location + storage.selectedRange.length }
        guard let selection = state.selection else { return nil }
        // A committed selection maps by the reconciler's invariant; nil only for an editor without one.
        do { return try SelectionMapper.location(of: selection.focus, in: state, index: reconciler.index) } catch { return nil }
    }
}
