import Foundation
import QuireAlgorithms
import Testing
@testable import QuireTextStorage

/// IME composition: marked text replaces the marked range, keeps the selection inside it, and is
/// committed with the typing attributes in force.
@Suite struct CompositionTests {
    @Test("Korean ㄱ → 가 → 각 with bold on commits bold text")
    func koreanJamoComposition() throws {
        let storage = TextStorage("안녕 ")
        let recorder = Recorder(storage)
        try storage.setSelectedRange(range(3, 0))
        storage.setTypingAttributes([.bold: true])

        for (step, syllable) in ["ㄱ", "가", "각"].enumerated() {
            try storage.setMarkedText(syllable, selectedRange: range(1, 0))
            #expect(storage.string == "안녕 " + syllable)
            #expect(storage.markedRange == range(3, 1))
            #expect(storage.selectedRange == range(4, 0))
            #expect(storage.isComposing)
            #expect(recorder.changes.count == step + 1)
            #expect(recorder.changes.last?.typingStatus == .typing)
        }
        storage.unmarkText()

        #expect(storage.string == "안녕 각")
        #expect(!storage.isComposing)
        #expect(try storage.runs(in: range(0, 4)) == [
            AttributeRun(range: range(0, 3), attributes: [:]),
            AttributeRun(range: range(3, 1), attributes: [.bold: true]),
        ])
        #expect(storage.typingAttributes == [.bold: true])
    }

    @Test("Japanese kana are converted to kanji in place of the marked range")
    func japaneseKanaToKanji() throws {
        let storage = TextStorage("今日は。")
        try storage.setSelectedRange(range(3, 0))
        storage.setTypingAttributes([.italic: true])

        for kana in ["か", "かん", "かんじ"] {
            try storage.setMarkedText(kana, selectedRange: range(kana.utf16.count, 0))
        }
        #expect(storage.string == "今日はかんじ。")
        #expect(storage.markedRange == range(3, 3))

        // Conversion replaces the whole marked range and selects the converted segment.
        try storage.setMarkedText("漢字", selectedRange: range(0, 2))
        #expect(storage.string == "今日は漢字。")
        #expect(storage.markedRange == range(3, 2))
        #expect(storage.selectedRange == range(3, 2))

        storage.unmarkText()
        #expect(storage.markedRange == nil)
        #expect(try storage.runs(in: range(0, storage.length)) == [
            AttributeRun(range: range(0, 3), attributes: [:]),
            AttributeRun(range: range(3, 2), attributes: [.italic: true]),
            AttributeRun(range: range(5, 1), attributes: [:]),
        ])
    }

    @Test("Emoji skin-tone composition 👍 → 👍🏽 keeps one grapheme and a caret outside it")
    func emojiSkinTone() throws {
        let storage = TextStorage("ok ")
        try storage.setSelectedRange(range(3, 0))
        try storage.setMarkedText("👍", selectedRange: range(2, 0))
        #expect(storage.markedRange == range(3, 2))
        #expect(storage.selectedRange == range(5, 0))

        // An IME may report the caret in the middle of the cluster; it must not stay there.
        try storage.setMarkedText("👍🏽", selectedRange: range(2, 0))
        #expect(storage.markedRange == range(3, 4))
        #expect(storage.selectedRange == range(7, 0))
        storage.unmarkText()

        #expect(storage.string == "ok 👍🏽")
        #expect(storage.string.count == 4)
    }

    @Test("Composition refuses to start inside a grapheme cluster or a surrogate pair")
    func compositionNeverSplitsClusters() throws {
        let storage = TextStorage("👍🏽!")
        let before = storage.attributedText
        let recorder = Recorder(storage)
        // Between 👍 and 🏽: a valid UTF-16 boundary, but inside the cluster.
        try storage.setSelectedRange(range(2, 0))
        #expect(throws: TextStorageError.splitsGraphemeCluster(offset: 2)) {
            try storage.setMarkedText("a", selectedRange: range(1, 0))
        }
        #expect(storage.attributedText == before)
        #expect(storage.markedRange == nil)
        #expect(recorder.changes.isEmpty)
        #expect(throws: TextStorageError.splitsSurrogatePair(offset: 1)) { try storage.setSelectedRange(range(1, 0)) }
    }

    @Test("A selection inside the marked text is widened to grapheme boundaries",
          arguments: [(range(0, 0), range(0, 0)), (range(1, 0), range(4, 0)), (range(3, 0), range(4, 0)),
                      (range(1, 4), range(0, 5)), (range(4, 1), range(4, 1))])
    func selectionSnapsToGraphemes(selection: NSRange, expected: NSRange) throws {
        let storage = TextStorage("")
        try storage.setMarkedText("👍🏽e", selectedRange: selection)
        #expect(storage.selectedRange == expected)
    }

    @Test("A selection that does not fit the marked string is refused")
    func markedSelectionOutOfBounds() throws {
        let storage = TextStorage("abc")
        #expect(throws: TextStorageError.rangeOutOfBounds(range: range(2, 1), length: 2)) {
            try storage.setMarkedText("かな", selectedRange: range(2, 1))
        }
        #expect(storage.string == "abc")
    }

    @Test("Marked text replaces the selection when nothing is marked, and an empty string cancels")
    func markedTextReplacesSelectionAndCancels() throws {
        let storage = TextStorage("hello world")
        try storage.setSelectedRange(range(6, 5))
        try storage.setMarkedText("ㅎ", selectedRange: range(1, 0))
        #expect(storage.string == "hello ㅎ")
        try storage.setMarkedText("", selectedRange: range(0, 0))
        #expect(storage.string == "hello ")
        #expect(storage.markedRange == nil)
        #expect(storage.selectedRange == range(6, 0))
    }

    @Test("Unmark commits with the typing attributes in force at commit time")
    func unmarkUsesCurrentTypingAttributes() throws {
        let storage = TextStorage("")
        storage.setTypingAttributes([.bold: true])
        try storage.setMarkedText("あ", selectedRange: range(1, 0))
        #expect(try storage.attrs(0) == [.bold: true])
        storage.setTypingAttributes([.bold: true, .underline: true])
        storage.unmarkText()
        #expect(try storage.attrs(0) == [.bold: true, .underline: true])
    }

    @Test("Controller edits before the marked text move it")
    func controllerEditMovesMarkedRange() throws {
        let storage = TextStorage("ab")
        try storage.setSelectedRange(range(2, 0))
        try storage.setMarkedText("か", selectedRange: range(1, 0))
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.replaceCharacters(in: range(0, 0), with: "XY")
        }
        #expect(storage.markedRange == range(4, 1))
        #expect(storage.selectedRange == range(5, 0))
        #expect(try storage.substring(in: storage.markedRange!) == "か")
    }
}

/// Random compositions over text full of multi-unit clusters: the caret always sits on a grapheme
/// boundary of the marked string, the marked range always holds exactly the last marked string,
/// and text outside the replaced range is never touched. (The caret is not required to be on a
/// boundary of the whole text: conjoining jamo such as ᄀ legitimately form one cluster with the
/// committed jamo before them.)
@Suite struct RandomCompositionTests {
    static let pieces = ["a", "é", "e\u{301}", "👍", "👍🏽", "🇯🇵", "👩‍👩‍👧", "한", "ᄀ", "か", " "]

    static func boundaries(_ string: String) -> Set<Int> {
        var result: Set<Int> = [0]
        var offset = 0
        for character in string {
            offset += character.utf16.count
            result.insert(offset)
        }
        return result
    }

    @Test("Seeded random compositions keep the caret on cluster boundaries and leave other text alone",
          arguments: [UInt64(3), 4, 5])
    func randomCompositions(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let storage = TextStorage(AttributedText("start 👍🏽 end"), chunkCapacity: 8)
        for _ in 0..<400 {
            if storage.isComposing, Int.random(in: 0..<4, using: &rng) == 0 {
                storage.unmarkText()
            }
            if !storage.isComposing {
                let caret = Self.boundaries(storage.string).sorted().randomElement(using: &rng)!
                try storage.setSelectedRange(range(caret, 0))
            }
            let marked = (0..<Int.random(in: 0...3, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined()
            let caret = Int.random(in: 0...marked.utf16.count, using: &rng)
            let before = Array(storage.string.utf16)
            let target = storage.markedRange ?? storage.selectedRange
            try storage.setMarkedText(marked, selectedRange: range(caret, 0))

            let after = Array(storage.string.utf16)
            #expect(after.prefix(target.location) == before.prefix(target.location))
            #expect(after.suffix(before.count - target.location - target.length)
                == before.suffix(before.count - target.location - target.length))
            let selection = storage.selectedRange
            #expect(selection.length == 0)
            #expect(Self.boundaries(marked).contains(selection.location - target.location))
            if let markedRange = storage.markedRange {
                #expect(markedRange.location == target.location)
                #expect(try storage.substring(in: markedRange) == marked)
            } else {
                #expect(marked.isEmpty)
            }
        }
    }
}

@Suite struct CompositionRoutingTests {
    @Test("Native composition is offered to the handler; a controller composition is not")
    func compositionRouting() throws {
        let storage = TextStorage("")
        storage.setTypingAttributes([.bold: true])
        var offered: [NativeEdit] = []
        storage.nativeEditHandler = { edit in
            offered.append(edit)
            return .applyNatively
        }
        try storage.setMarkedText("か", selectedRange: range(1, 0))
        try storage.performControllerEdit { storage throws(TextStorageError) in
            try storage.setMarkedText("かな", selectedRange: range(2, 0))
        }
        #expect(offered.map(ExpectedEdit.init) == [ExpectedEdit(
            range: range(0, 0), replacement: AttributedText("か", attributes: [.bold: true]),
            status: .typing, isComposition: true)])
        #expect(storage.string == "かな")
        #expect(storage.markedRange == range(0, 2))
        #expect(try storage.attributes(at: 0) == ([.bold: true], range(0, 2)))
    }
}
