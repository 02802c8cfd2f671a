import Foundation
import Testing
import QuireTextStorage

/// Bad input throws a typed error that says what and where, and changes nothing.
@Suite struct BadInputTests {
    /// "a😀b": the pair occupies UTF-16 offsets 1 and 2, so offset 2 splits it.
    static let text = try! AttributedText("a😀b", runs: [(1, [.bold: true]), (3, [:])])

    enum Operation: String, CaseIterable, Sendable {
        case replacePlain, replaceAttributed, setAttributes, addAttributes, removeAttribute, substring, attributedSubstring

        func run(_ storage: TextStorage, _ target: NSRange) throws(TextStorageError) {
            switch self {
            case .replacePlain: try storage.replaceCharacters(in: target, with: "x")
            case .replaceAttributed: try storage.replaceCharacters(in: target, with: AttributedText("x", attributes: [.italic: true]))
            case .setAttributes: try storage.setAttributes([.italic: true], range: target)
            case .addAttributes: try storage.addAttributes([.italic: true], range: target)
            case .removeAttribute: try storage.removeAttribute(.bold, range: target)
            case .substring: _ = try storage.substring(in: target)
            case .attributedSubstring: _ = try storage.attributedSubstring(in: target)
            }
        }
    }

    static let badRanges: [(NSRange, TextStorageError)] = [
        (range(5, 0), .rangeOutOfBounds(range: range(5, 0), length: 4)),
        (range(3, 2), .rangeOutOfBounds(range: range(3, 2), length: 4)),
        (range(-1, 1), .rangeOutOfBounds(range: range(-1, 1), length: 4)),
        (range(1, -1), .rangeOutOfBounds(range: range(1, -1), length: 4)),
        (range(Int.max, 1), .rangeOutOfBounds(range: range(Int.max, 1), length: 4)),
        (range(2, 0), .splitsSurrogatePair(offset: 2)),
        (range(0, 2), .splitsSurrogatePair(offset: 2)),
        (range(2, 2), .splitsSurrogatePair(offset: 2)),
    ]

    @Test("Bad ranges throw typed errors and leave the storage unchanged",
          arguments: Operation.allCases, badRanges)
    func badRangeLeavesStorageUnchanged(operation: Operation, bad: (NSRange, TextStorageError)) throws {
        for mode in [EditOrigin.native, .controller] {
            let storage = TextStorage(Self.text)
            let recorder = Recorder(storage)
            #expect(throws: bad.1) {
                if mode == .native {
                    try operation.run(storage, bad.0)
                } else {
                    try storage.performControllerEdit { storage throws(TextStorageError) in try operation.run(storage, bad.0) }
                }
            }
            #expect(storage.attributedText == Self.text)
            #expect(recorder.changes.isEmpty)
        }
    }

    @Test("A failed edit inside a session keeps the session's earlier edits and reports only them")
    func failureInsideSession() throws {
        let storage = TextStorage("abc")
        let recorder = Recorder(storage)
        #expect(throws: TextStorageError.rangeOutOfBounds(range: range(9, 0), length: 4)) {
            try storage.performControllerEdit { storage throws(TextStorageError) in
                try storage.replaceCharacters(in: range(0, 0), with: "x")
                try storage.replaceCharacters(in: range(9, 0), with: "y")
            }
        }
        #expect(storage.string == "xabc")
        #expect(recorder.changes.map(\.editedRange) == [range(0, 1)])
    }

    @Test("Unbalanced endEditing is an error")
    func unbalancedEndEditing() {
        let storage = TextStorage("abc")
        #expect(throws: TextStorageError.unbalancedEndEditing) { try storage.endEditing() }
    }

    @Test("Attributed text runs must cover the text and respect surrogate pairs",
          arguments: [
            ([3], TextStorageError.runsDoNotCoverText(runsLength: 3, length: 4)),
            ([2, 2], .splitsSurrogatePair(offset: 2)),
            ([5, -1], .negativeRunLength(offset: 5, length: -1)),
          ])
    func attributedTextValidation(lengths: [Int], expected: TextStorageError) {
        #expect(throws: expected) {
            _ = try AttributedText("a😀b", runs: lengths.map { ($0, Attributes.empty) })
        }
    }

    @Test("Reading attributes outside the text is an error", arguments: [-1, 4, 100])
    func attributesOutOfBounds(location: Int) {
        let storage = TextStorage(Self.text)
        #expect(throws: TextStorageError.rangeOutOfBounds(range: range(location, 1), length: 4)) {
            _ = try storage.attributes(at: location)
        }
    }

    @Test("Errors describe what and where")
    func errorDescriptions() {
        #expect(TextStorageError.rangeOutOfBounds(range: range(3, 2), length: 4).description
            == "range {3, 2} is outside the text of UTF-16 length 4")
        #expect(TextStorageError.splitsSurrogatePair(offset: 2).description == "UTF-16 offset 2 splits a surrogate pair")
    }
}
