import Foundation
import QuireEditor
import QuireInteraction
import QuireModel
import QuireReconciler
import QuireTextStorage

/// An editor over a storage on `paragraphs`, with the selection at `selection` (UTF-16 range of
/// the flat string).
func makeEditor(_ paragraphs: [String], selection: Range<Int>? = nil, isBackward: Bool = false, history: History = History()) throws -> Editor {
    let editor = try Editor(state: EditorState(paragraphs: paragraphs), storage: TextStorage(), history: history)
    if let selection { try editor.selectionDidChange(selection, isBackward: isBackward) }
    return editor
}

extension Editor {
    /// The flat string as the storage shows it.
    var text: String { storage?.string ?? FlatString.render(state) }
}

/// A clock a test moves by hand.
final class ManualClock: @unchecked Sendable {
    // Read and written by the one test that owns it.
    var instant = ContinuousClock.now

    func advance(_ duration: Duration) { instant = instant + duration }
}

/// Records every commit of an editor.
final class CommitLog {
    var updates: [EditorUpdate] = []

    init(_ editor: Editor) {
        editor.registerUpdateListener { [unowned self] update in updates.append(update) }
    }
}

/// Records every editing session a storage reports.
final class StorageLog {
    var changes: [TextStorageChange] = []

    init(_ storage: TextStorage) {
        _ = storage.addObserver { [unowned self] change in changes.append(change) }
    }
}
