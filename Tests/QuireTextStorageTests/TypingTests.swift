import Foundation
import Testing
@testable import QuireTextStorage

/// Typing status, typing attributes and native versus controller edits, with VEditorKit's rules.
@Suite struct TypingTests {
    static let styled = try! AttributedText("bold italic", runs: [(4, [.bold: true]), (1, [:]), (6, [.italic: true])])

    @Test("Paste keeps the pasted attributes, whatever the typing attributes")
    func pasteKeepsAttributes() throws {
        let storage = TextStorage("old")
        let recorder = Recorder(storage)
        storage.setTypingAttributes([.underline: true])
        try storage.setAttributedString(Self.styled)
        #expect(storage.attributedText == Self.styled)
        #expect(recorder.changes.map(\.typingStatus) == [.paste])
        #expect(recorder.changes.first?.editedRange == range(0, 11))
        #expect(recorder.changes.first?.changeInLength == 8)
    }

    @Test("Backspace is remove, and the view cannot restyle during it")
    func backspaceIsRemove() throws {
        let storage = TextStorage(Self.styled)
        let recorder = Recorder(storage)
        storage.beginEditing()
        try storage.replaceCharacters(in: range(10, 1), with: "")
        #expect(storage.typingStatus == .remove)
        let applied = try storage.setAttributes([:], range: range(0, 10))
        try storage.endEditing()

        #expect(!applied)
        #expect(storage.string == "bold itali")
        #expect(try storage.attrs(0) == [.bold: true])
        #expect(recorder.changes.map(\.typingStatus) == [.remove])
        #expect(recorder.changes.first?.editedMask == .characters)
        #expect(recorder.changes.first?.editedRange == range(10, 0))
        #expect(storage.typingStatus == TypingStatus.none)
    }

    @Test("Typed text gets the typing attributes, not the ones it would inherit")
    func typedTextGetsTypingAttributes() throws {
        let storage = TextStorage(Self.styled)
        try storage.setSelectedRange(range(4, 0))
        #expect(storage.typingAttributes == [.bold: true])
        storage.setTypingAttributes([.foregroundColor: "red"])
        try storage.replaceCharacters(in: range(4, 0), with: "er")
        #expect(storage.string == "bolder italic")
        #expect(try storage.attributes(at: 4) == ([.foregroundColor: "red"], range(4, 2)))
        #expect(try storage.attrs(3) == [.bold: true])
    }

    @Test("View attribute writes outside typing or paste are ignored; controller writes apply")
    func viewCannotWipeStyles() throws {
        let storage = TextStorage(Self.styled)
        let recorder = Recorder(storage)
        let ignored = try storage.setAttributes([:], range: range(0, 11))
        let ignoredRemoval = try storage.removeAttribute(.bold, range: range(0, 4))
        #expect(!ignored && !ignoredRemoval)
        #expect(storage.attributedText == Self.styled)
        #expect(recorder.changes.isEmpty)

        let applied = try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.setAttributes([:], range: range(0, 11))
        }
        #expect(applied)
        #expect(try storage.runs(in: range(0, 11)) == [AttributeRun(range: range(0, 11), attributes: [:])])
        #expect(recorder.changes.map(\.origin) == [.controller])
    }

    @Test("Attribute writes by the view inside a typing session apply")
    func viewWritesDuringTypingApply() throws {
        let storage = TextStorage("ab")
        storage.beginEditing()
        try storage.replaceCharacters(in: range(2, 0), with: "c")
        let applied = try storage.addAttribute(.italic, value: true, range: range(0, 2))
        try storage.endEditing()
        #expect(applied)
        #expect(try storage.attributes(at: 0) == ([.italic: true], range(0, 2)))
    }

    static let caretCases: [(Int, Attributes)] = [
        (0, [.bold: true]), (2, [.bold: true]), (4, [.bold: true]), (5, [:]), (11, [.italic: true]),
    ]

    @Test("Typing attributes come from the character before the caret", arguments: caretCases)
    func typingAttributesFollowCaret(caret: Int, expected: Attributes) throws {
        let storage = TextStorage(Self.styled)
        try storage.setSelectedRange(range(caret == 0 ? 1 : 0, 0))
        try storage.setSelectedRange(range(caret, 0))
        #expect(storage.typingAttributes == expected)
    }

    @Test("Bold toggled on an empty selection survives until the caret moves")
    func explicitTypingAttributes() throws {
        let storage = TextStorage("plain")
        try storage.setSelectedRange(range(5, 0))
        storage.setTypingAttributes([.bold: true])
        // The view re-reports the same selection (UITextView does after toggling): nothing moved.
        try storage.setSelectedRange(range(5, 0))
        try storage.replaceCharacters(in: range(5, 0), with: "B")
        try storage.setSelectedRange(range(6, 0))
        try storage.replaceCharacters(in: range(6, 0), with: "C")
        #expect(try storage.attributes(at: 5) == ([.bold: true], range(5, 2)))

        try storage.setSelectedRange(range(2, 0))
        #expect(!storage.typingAttributesAreExplicit)
        #expect(storage.typingAttributes == [:])
    }

    @Test("Typing after an attachment does not create an attachment; paragraph style comes from the caret's paragraph")
    func derivedTypingAttributesDropAttachmentsAndUseOwnParagraph() throws {
        let content = try AttributedText(
            "a\u{FFFC}\nb", runs: [(1, [.paragraphStyle: "center"]), (1, [.attachment: "img", .paragraphStyle: "center"]),
                                  (1, [.paragraphStyle: "center"]), (1, [.paragraphStyle: "right"])])
        let storage = TextStorage(content)
        try storage.setSelectedRange(range(2, 0))
        #expect(storage.typingAttributes == [.paragraphStyle: "center"])
        try storage.setSelectedRange(range(3, 0))
        #expect(storage.typingAttributes == [.paragraphStyle: "right"])
    }

    @Test("Native edits go to the handler; the controller's writes do not loop back")
    func nativeEditsAreRoutedToTheHandler() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        storage.setTypingAttributes([.bold: true])
        var routed: [NativeEdit] = []
        storage.nativeEditHandler = { [unowned storage] edit in
            routed.append(edit)
            // The editor applies its own (upper-cased) version through the controller.
            do {
                try storage.performControllerEdit { storage throws(TextStorageError) in
                    try storage.replaceCharacters(
                        in: edit.range, with: AttributedText(edit.replacement.string.uppercased(), attributes: [.code: true]))
                }
            } catch {
                Issue.record("controller edit failed: \(error)")
            }
            return .handled
        }
        try storage.replaceCharacters(in: range(3, 0), with: "d")

        #expect(routed.map(ExpectedEdit.init) == [ExpectedEdit(
            range: range(3, 0), replacement: AttributedText("d", attributes: [.bold: true]),
            status: .typing, isComposition: false)])
        #expect(storage.string == "abcD")
        #expect(try storage.attrs(3) == [.code: true])
        #expect(recorder.changes.map(\.origin) == [.controller])
    }

    @Test("A handler may let the storage apply the edit itself")
    func handlerCanApplyNatively() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        var statuses: [TypingStatus] = []
        storage.nativeEditHandler = { edit in
            statuses.append(edit.status)
            return .applyNatively
        }
        try storage.replaceCharacters(in: range(0, 1), with: "")
        try storage.replaceCharacters(in: range(0, 0), with: AttributedText("Z", attributes: [.bold: true]))
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.replaceCharacters(in: range(3, 0), with: "!")
        }
        #expect(statuses == [.remove, .paste])
        #expect(storage.string == "Zbc!")
        #expect(recorder.changes.map(\.origin) == [.native, .native, .controller])
        #expect(recorder.changes.map(\.typingStatus) == [.remove, .paste, TypingStatus.none])
    }

    static let inheritanceCases: [(NSRange, Attributes)] = [
        (range(0, 0), [.bold: true]), (range(4, 0), [.bold: true]), (range(5, 0), [:]),
        (range(5, 3), [.italic: true]), (range(11, 0), [.italic: true]),
    ]

    @Test("Controller plain-text replacement inherits attributes like NSMutableAttributedString",
          arguments: inheritanceCases)
    func controllerInheritance(target: NSRange, expected: Attributes) throws {
        let storage = TextStorage(Self.styled)
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.replaceCharacters(in: target, with: "X")
        }
        #expect(try storage.attrs(target.location) == expected)
    }
}
