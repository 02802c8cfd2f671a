import Foundation
import QuireModel
import QuireReconciler
import QuireTestSupport
import QuireTextStorage
import Testing
@testable import QuireEditor

/// Records every commit an editor makes.
final class CommitLog {
    var updates: [EditorUpdate] = []
    var textChanges: [TextContentChange] = []

    init(_ editor: Editor) {
        editor.registerUpdateListener { [unowned self] in updates.append($0) }
        editor.registerTextContentListener { [unowned self] in textChanges.append($0) }
    }

    var last: Transaction? { updates.last?.transaction }
}

@Suite struct TransactionTests {
    @Test func typingIsOneSpliceAndTheTextListenerGetsJustThatEdit() throws {
        let editor = try makeEditor(["hello world"])
        let log = CommitLog(editor)
        try editor.select(5..<5)
        try editor.type(",")
        let transaction = try #require(log.last)
        #expect(transaction.origin == .local)
        #expect(transaction.tag == "typing")
        let text = editor.state.child(at: 0, of: editor.state.child(at: 0, of: .root)!)!
        #expect(transaction.operations.first == .spliceText(text, offset: 5, deleted: "", inserted: ","))
        #expect(transaction.operations.map(\.kindName) == ["insertText", "select"])
        #expect(log.textChanges.last?.edits == [FlatTextEdit(range: 5..<5, replacement: ",")])
        #expect(TransactionReplay.violations(of: transaction, from: log.updates.last!.previousState, to: editor.state).isEmpty)
    }

    @Test func enterCreatesAndLinksABlock() throws {
        let editor = try makeEditor(["ab"])
        let log = CommitLog(editor)
        try editor.select(1..<1)
        try editor.type("\n")
        let kinds = try #require(log.last).operations.map(\.kindName)
        #expect(kinds.contains("createNode"))
        #expect(kinds.contains("insertNode"))
        #expect(kinds.contains("deleteText"))
        #expect(editor.text == "a\nb")
        let update = log.updates.last!
        #expect(TransactionReplay.violations(of: update.transaction, from: update.previousState, to: update.state).isEmpty)
    }

    @Test func transformWritesFollowTheBodyInTheSameTransaction() throws {
        let editor = try makeEditor([""])
        editor.registerNodeTransform(.text) { state, key throws(ModelError) in
            let text = state[key]!.text
            if text != text.uppercased() { try state.setText(text.uppercased(), of: key) }
        }
        let log = CommitLog(editor)
        try editor.type("ab")
        let kinds = try #require(log.last).operations.map(\.kindName)
        #expect(kinds.first == "createNode")
        #expect(kinds.contains("replaceText"))
        #expect(editor.text == "AB")
        #expect(log.updates.count == 1)
    }

    @Test func aSelectionChangeIsASelectionOnlyTransactionOutsideHistory() throws {
        let editor = try makeEditor(["hello"])
        let log = CommitLog(editor)
        try editor.select(2..<4)
        let transaction = try #require(log.last)
        #expect(transaction.isSelectionOnly)
        #expect(transaction.operations.count == 1)
        #expect(editor.history.undoCount == 0)
        #expect(log.textChanges.isEmpty)
        #expect(editor.storage?.selectedRange == NSRange(location: 2, length: 2))
    }

    @Test func remoteTransactionsSkipHistoryAndListenersSeeOrigins() throws {
        let editor = try makeEditor(["hello"])
        let log = CommitLog(editor)
        try editor.select(5..<5)
        try editor.type("!")
        #expect(editor.history.undoCount == 1)
        #expect(try editor.undo())
        #expect(log.last?.origin == .undo)
        #expect(editor.text == "hello")
        #expect(try editor.redo())
        #expect(log.last?.origin == .redo)
        #expect(editor.text == "hello!")
        // A "remote" change: the operations another editor recorded on the same document.
        let other = try makeEditor(["hello!"])
        let otherLog = CommitLog(other)
        try other.select(0..<0)
        try other.type(">")
        let remote = try #require(otherLog.last).operations.filter { if case .setSelection = $0 { false } else { true } }
        try editor.apply(remote, origin: .remote)
        #expect(editor.text == ">hello!")
        #expect(log.last?.origin == .remote)
        #expect(log.updates.map(\.transaction.origin.description).suffix(3) == ["undo", "redo", "remote"])
        // The snapshot history cannot undo across a change it did not make (its steps would no
        // longer fit): a remote change clears it. A CRDT binding installs a history that can.
        #expect(editor.history.undoCount == 0)
        #expect(try editor.undo() == false)
        #expect(editor.text == ">hello!")
    }

    @Test func operationsThatDoNotFitAreRefusedAndChangeNothing() throws {
        let editor = try makeEditor(["hello"])
        let text = editor.state.child(at: 0, of: editor.state.child(at: 0, of: .root)!)!
        let before = editor.state
        #expect(throws: EditorError.self) {
            try editor.apply([.spliceText(text, offset: 0, deleted: "xyz", inserted: "")], origin: .remote)
        }
        #expect(editor.state.hasSameNodes(as: before))
        #expect(editor.text == "hello")
    }

    @Test func undoRestoresTheSelectionOfTheStep() throws {
        let editor = try makeEditor(["hello"])
        try editor.select(1..<4)
        try editor.type("X")
        #expect(editor.text == "hXo")
        try editor.undo()
        #expect(editor.text == "hello")
        #expect(editor.nativeSelection == 1..<4)
    }

    @Test func nestedUpdatesAreQueuedAfterTheRunningBodyInOneCommit() throws {
        let editor = try makeEditor(["x"])
        try editor.select(0..<0)
        let log = CommitLog(editor)
        try editor.update { state in
            try editor.update { inner in try inner.insertText("b") }
            try state.insertText("a")
        }
        #expect(editor.text == "abx")
        #expect(log.updates.count == 1)
    }

    @Test func theCommitStagesRunInTheDocumentedOrder() {
        #expect(Editor.commitStages == [.transforms, .normalization, .validation, .reconcile, .history, .listeners])
    }

    @Test func aNativeEditTheEditorRefusesLeavesTheStorageAndThrowsThere() throws {
        let editor = try makeEditor(["ok"])
        let token = editor.registerNodeTransform(.text) { (_: inout EditorState, key: NodeKey) throws(ModelError) in throw .notAttached(key) }
        let storage = try #require(editor.storage)
        #expect {
            try storage.replaceCharacters(in: NSRange(location: 2, length: 0), with: "!")
        } throws: { error in
            if case .nativeEditRefused(let range, _) = error as? TextStorageError { range == NSRange(location: 2, length: 0) } else { false }
        }
        #expect(storage.string == "ok")
        editor.unregister(token)
        // Without the refusing transform, the view's own write goes through the editor.
        try storage.replaceCharacters(in: NSRange(location: 2, length: 0), with: "!")
        #expect(FlatString.render(editor.state) == "ok!")
        #expect(storage.string == "ok!")
    }

    @Test func theCheckerCatchesATransactionThatLies() throws {
        let editor = try makeEditor(["hello"])
        let log = CommitLog(editor)
        try editor.select(5..<5)
        try editor.type("!")
        let update = try #require(log.updates.last)
        var lying = update.transaction
        lying.operations.removeFirst()
        #expect(!TransactionReplay.violations(of: lying, from: update.previousState, to: update.state).isEmpty)
        #expect(TransactionReplay.violations(of: update.transaction, from: update.previousState, to: update.state).isEmpty)
    }

    @Test func compositionIsOneWayAndKeepsTheMarkedRange() throws {
        let editor = try makeEditor(["ab"])
        try editor.select(1..<1)
        let log = CommitLog(editor)
        try editor.setMarkedText("ㄱ", selectedRange: 1..<1)
        try editor.setMarkedText("가", selectedRange: 1..<1)
        #expect(editor.storage?.markedRange == NSRange(location: 1, length: 1))
        #expect(editor.storage?.selectedRange == NSRange(location: 2, length: 0))
        #expect(editor.text == "a가b")
        try editor.unmarkText()
        #expect(editor.storage?.markedRange == nil)
        #expect(editor.nativeSelection == 2..<2)
        #expect(log.updates.filter { !$0.transaction.isSelectionOnly }.count == 2)
        #expect(throws: EditorError.storage(.rangeOutOfBounds(range: NSRange(location: 0, length: 3), length: 1))) {
            try editor.setMarkedText("x", selectedRange: 0..<3)
        }
        #expect(editor.text == "a가b")
    }
}
