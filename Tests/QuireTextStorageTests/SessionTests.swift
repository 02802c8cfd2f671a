import Foundation
import Testing
@testable import QuireTextStorage

/// Editing sessions, processEditing's hooks and fixAttributes.
@Suite struct SessionTests {
    @Test("Nested sessions notify observers exactly once with the accumulated ranges")
    func nestedSessionsNotifyOnce() throws {
        let storage = TextStorage("one\ntwo\nthree\nfour")
        let recorder = Recorder(storage)
        storage.beginEditing()
        storage.beginEditing()
        try storage.replaceCharacters(in: range(5, 0), with: "XX")  // one\ntXXwo\nthree\nfour
        try storage.endEditing()
        #expect(recorder.changes.isEmpty)
        #expect(storage.editedRange == range(5, 2))
        try storage.replaceCharacters(in: range(11, 2), with: "")  // one\ntXXwo\ntee\nfour
        // The view may not restyle while removing, so the engine does it as the controller.
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.setAttributes([.bold: true], range: range(4, 1))
        }
        #expect(recorder.changes.isEmpty)
        #expect(storage.editedRange == range(4, 7))
        #expect(storage.changeInLength == 0)
        try storage.endEditing()

        #expect(recorder.changes.map(ExpectedChange.init) == [ExpectedChange(
            editedMask: [.characters, .attributes], editedRange: range(4, 7), changeInLength: 0,
            invalidatedRange: range(4, 10), origin: .native, typingStatus: .remove)])
        #expect(storage.editedRange.location == NSNotFound)
        #expect(storage.string == "one\ntXXwo\ntee\nfour")
    }

    @Test("An edit outside a session is a session of its own")
    func implicitSessions() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.replaceCharacters(in: range(1, 1), with: "xyz")
        }
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.addAttribute(.bold, value: true, range: range(0, 2))
        }
        #expect(recorder.changes.map(\.editedRange) == [range(1, 3), range(0, 2)])
        #expect(recorder.changes.map(\.changeInLength) == [2, 0])
        #expect(recorder.changes.map(\.editedMask) == [[.characters, .attributes], .attributes])
    }

    @Test("An empty session notifies nobody")
    func emptySession() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        try storage.performEditing { _ throws(TextStorageError) in }
        #expect(recorder.events.isEmpty)
    }

    @Test("Hooks run in order: will-process, fixing, did-process, then observers")
    func hookOrder() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        recorder.willProcess = { storage in
            // A will-process change joins the session.
            #expect(throws: Never.self) { try storage.addAttribute(.italic, value: true, range: range(0, 1)) }
        }
        recorder.didProcess = { storage in
            #expect(throws: TextStorageError.characterEditAfterProcessing(range: range(0, 0))) {
                try storage.replaceCharacters(in: range(0, 0), with: "no")
            }
            #expect(throws: Never.self) { try storage.addAttribute(.underline, value: true, range: range(2, 1)) }
        }
        try storage.replaceCharacters(in: range(3, 0), with: "d")
        #expect(recorder.events == ["will", "did", "observer"])
        #expect(storage.string == "abcd")
        #expect(try storage.attrs(0) == [.italic: true])
        #expect(try storage.attrs(2) == [.underline: true])
        #expect(recorder.changes.first?.editedRange == range(0, 4))
    }

    @Test("Observers may edit again from their callback; each session still notifies once")
    func reentrantObserver() throws {
        let storage = TextStorage("a")
        var seen: [NSRange] = []
        storage.addObserver { [unowned storage] change in
            seen.append(change.editedRange)
            if storage.length < 3 {
                #expect(throws: Never.self) { try storage.replaceCharacters(in: range(storage.length, 0), with: "b") }
            }
        }
        try storage.replaceCharacters(in: range(1, 0), with: "b")
        #expect(storage.string == "abb")
        #expect(seen == [range(1, 1), range(2, 1)])
    }

    @Test("Removed observers hear nothing")
    func removeObserver() throws {
        let storage = TextStorage("a")
        var count = 0
        let token = storage.addObserver { _ in count += 1 }
        try storage.replaceCharacters(in: range(0, 0), with: "x")
        storage.removeObserver(token)
        try storage.replaceCharacters(in: range(0, 0), with: "y")
        #expect(count == 1)
    }

    @Test("Attachment attributes stay only on U+FFFC")
    func attachmentsOnlyOnObjectReplacement() throws {
        let storage = TextStorage("a\u{FFFC}b\u{FFFC}")
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.setAttributes([.attachment: "img", .bold: true], range: range(0, 4))
        }
        #expect(try storage.runs(in: range(0, 4)) == [
            AttributeRun(range: range(0, 1), attributes: [.bold: true]),
            AttributeRun(range: range(1, 1), attributes: [.attachment: "img", .bold: true]),
            AttributeRun(range: range(2, 1), attributes: [.bold: true]),
            AttributeRun(range: range(3, 1), attributes: [.attachment: "img", .bold: true]),
        ])
    }

    static let paragraphCases: [(NSRange, Attributes)] = [(range(0, 3), [.paragraphStyle: "center"]), (range(6, 3), [:])]

    @Test("A paragraph attribute is spread from the paragraph's first character", arguments: paragraphCases)
    func paragraphAttributesSpread(target: NSRange, firstParagraph: Attributes) throws {
        let storage = TextStorage("hello world\nnext")
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.addAttribute(.paragraphStyle, value: "center", range: target)
        }
        for offset in [0, 7, 11] { #expect(try storage.attrs(offset) == firstParagraph) }
        #expect(try storage.attrs(12) == [:])
        #expect(try storage.runs(in: range(0, 16)).count == (firstParagraph.isEmpty ? 1 : 2))
    }

    @Test("Splitting a paragraph gives both halves its paragraph style; joining takes the first one's")
    func paragraphSplitAndJoin() throws {
        let content = try AttributedText("left\nright", runs: [(5, [.paragraphStyle: "left"]), (5, [.paragraphStyle: "right"])])
        let storage = TextStorage(content)
        let recorder = Recorder(storage)
        try storage.setSelectedRange(range(8, 0))
        try storage.replaceCharacters(in: range(8, 0), with: "\n")  // left\nrig\nht
        #expect(try storage.attributes(at: 9) == ([.paragraphStyle: "right"], range(5, 6)))
        #expect(recorder.changes.last?.invalidatedRange == range(5, 4))

        try storage.replaceCharacters(in: range(4, 1), with: "")  // leftrig\nht
        #expect(try storage.attributes(at: 6) == ([.paragraphStyle: "left"], range(0, 8)))
        #expect(try storage.attrs(8) == [.paragraphStyle: "right"])
        #expect(recorder.changes.last?.invalidatedRange == range(0, 8))
    }

    @Test("Direct edited() calls are checked against the pre-edit length")
    func editedValidatesRange() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        #expect(throws: TextStorageError.rangeOutOfBounds(range: range(2, 5), length: 3)) {
            try storage.edited(.characters, range: range(2, 5), changeInLength: 0)
        }
        try storage.edited(.attributes, range: range(1, 1), changeInLength: 0)
        #expect(recorder.changes.map(\.editedRange) == [range(1, 1)])
    }
}
