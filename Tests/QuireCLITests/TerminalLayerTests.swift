@testable import quire
import Testing

@Suite struct KeyDecoderTests {
    func decode(_ chunks: [[UInt8]]) -> [KeyEvent] {
        var decoder = KeyDecoder()
        return chunks.flatMap { decoder.feed($0) }
    }

    func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

    @Test func textAndControlKeys() {
        #expect(decode([bytes("ab\r\u{7F}\t\u{01}\u{13}\u{11}")]) == [
            .text("ab"), .enter, .backspace, .tab, .control("a"), .control("s"), .control("q"),
        ])
    }

    @Test func multiByteCharactersSplitAcrossReads() {
        let utf8 = bytes("日本🎉")
        // Every split point, including inside each character.
        for split in 1..<utf8.count {
            let events = decode([Array(utf8[..<split]), Array(utf8[split...])])
            #expect(events.map { if case .text(let text) = $0 { text } else { "?" } }.joined() == "日本🎉")
        }
    }

    @Test func cursorAndEditingSequences() {
        #expect(decode([bytes("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF\u{1B}[1~\u{1B}[4~\u{1B}[3~\u{1B}[5~\u{1B}[6~\u{1B}[Z")]) == [
            .up, .down, .right, .left, .home, .end, .home, .end, .home, .end, .delete, .pageUp, .pageDown, .backTab,
        ])
        // Modified arrows (Ctrl-Right is ESC [1;5C) are the arrows.
        #expect(decode([bytes("\u{1B}[1;5C")]) == [.right])
    }

    @Test func aSequenceSplitAcrossReadsWaits() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(bytes("x\u{1B}[")) == [.text("x")])
        #expect(decoder.hasPending)
        #expect(decoder.feed(bytes("3~y")) == [.delete, .text("y")])
        #expect(!decoder.hasPending)
    }

    @Test func aLoneEscapeIsKeptUntilFlushed() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(decoder.flush() == [])
    }

    @Test func bracketedPasteIsOneEventWithEscapesAndNewlines() {
        let payload = "line 1\r\nline 2 \u{1B}[A still text"
        #expect(decode([bytes("a\u{1B}[200~" + payload + "\u{1B}[201~b")]) == [.text("a"), .paste("line 1\nline 2 \u{1B}[A still text"), .text("b")])
        // The end marker split across reads.
        var decoder = KeyDecoder()
        #expect(decoder.feed(bytes("\u{1B}[200~xy\u{1B}[20")) == [])
        #expect(decoder.feed(bytes("1~")) == [.paste("xy")])
    }
}

@Suite struct ScreenDiffTests {
    @Test func onlyChangedRowsAreRewritten() {
        let old = ScreenFrame(rows: ["a", "b", "c"], cursor: (0, 0))
        let new = ScreenFrame(rows: ["a", "B", "c"], cursor: (1, 1))
        #expect(ScreenDiff.changedRows(from: old, to: new) == [1])
        let output = ScreenDiff.output(from: old, to: new)
        #expect(output.contains("\u{1B}[2;1H"))
        #expect(!output.contains("\u{1B}[1;1H") && !output.contains("\u{1B}[3;1H"))
        #expect(output.hasSuffix("\u{1B}[2;2H\u{1B}[?25h"))
    }

    @Test func aFirstFrameOrANewSizeRedrawsEverything() {
        let frame = ScreenFrame(rows: ["a", "b"], cursor: nil)
        #expect(ScreenDiff.changedRows(from: nil, to: frame) == [0, 1])
        #expect(ScreenDiff.changedRows(from: ScreenFrame(rows: ["a"], cursor: nil), to: frame) == [0, 1])
        #expect(ScreenDiff.changedRows(from: frame, to: frame) == [])
        // A hidden cursor stays hidden.
        #expect(!ScreenDiff.output(from: nil, to: frame).contains("?25h"))
    }
}
