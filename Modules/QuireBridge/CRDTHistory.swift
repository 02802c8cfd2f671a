import QuireCRDT
import QuireEditor
import QuireModel

/// The history of a bound editor: the CRDT's undo manager. Undo and redo take back this peer's
/// operations only — remote changes made since stay — and put back the selection of the step.
/// The binding writes each local commit as an undo step (typing merged within the merge
/// interval), so `record` has nothing left to do.
public final class CRDTHistory: EditorHistory {
    unowned let binding: EditorBinding

    init(binding: EditorBinding) { self.binding = binding }

    public var undoCount: Int { binding.undoManager.undoCount }
    public var redoCount: Int { binding.undoManager.redoCount }

    public func record(_ update: EditorUpdate) {}

    public func undo(in editor: Editor) throws(EditorError) -> Bool {
        try step(.undo)
    }

    public func redo(in editor: Editor) throws(EditorError) -> Bool {
        try step(.redo)
    }

    public func clear() {
        binding.undoManager.clear()
    }

    private func step(_ direction: UndoDirection) throws(EditorError) -> Bool {
        do { return try binding.performUndo(direction) } catch { throw .thrown(error) }
    }
}

extension EditorBinding {
    /// Takes an undo or redo step in the CRDT document and shows it in the editor.
    func performUndo(_ direction: UndoDirection) throws(BridgeError) -> Bool {
        closeUndoGroup()
        let carried = SelectionCursors(capturing: editor, binding: self)
        let meta = UndoItemMeta(cursors: editor.state.selection.map { SelectionCursors.cursors(for: $0, in: editor.state, binding: self) } ?? [])
        let step: UndoStep?
        do throws(UndoError) {
            step = direction == .undo ? try undoManager.undo(&document, selection: meta) : try undoManager.redo(&document, selection: meta)
        } catch {
            throw .undo(error)
        }
        guard let step else { return false }
        var selection = carried
        // The step's own selection, when its cursors still resolve.
        if step.meta.cursors.count == 2 {
            selection.anchor = .cursor(step.meta.cursors[0])
            selection.focus = .cursor(step.meta.cursors[1])
        }
        try applyRemote(step.event, origin: direction == .undo ? .undo : .redo, selection: selection)
        return true
    }
}
