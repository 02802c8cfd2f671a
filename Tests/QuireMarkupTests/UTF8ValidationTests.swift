import QuireAlgorithms
import Testing
import QuireMarkup

/// Markup input is validated by the standard library's initializer, with the scalar decoder
/// called only to place an error. The two must agree on which input is valid, and an error must
/// carry the decoder's position: random byte strings near UTF-8 (valid scalars of every width,
/// cut sequences, stray continuation bytes, overlong forms, surrogates, bytes past U+10FFFF).
@Suite struct UTF8ValidationTests {
    static let pieces: [[UInt8]] = [
        Array("a\n".utf8), Array("é".utf8), Array("€".utf8), Array("😀".utf8), Array("\n".utf8),
        [0x80], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xFF], Array("plain text ".utf8),
    ]

    @Test(arguments: 0..<4) func validatingAgreesWithTheDecoder(round: Int) throws {
        var random = SeededGenerator(seed: 0x0071_F8_0000 + UInt64(round))
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                // Mostly valid pieces, so that both outcomes are common.
                let piece = Int.random(in: 0..<10, using: &random) < 8
                    ? Self.pieces[[0, 1, 2, 3, 4, 13].randomElement(using: &random)!]
                    : Self.pieces.randomElement(using: &random)!
                bytes += piece
            }
            if let position = SourcePosition.firstInvalidUTF8(in: bytes) {
                #expect(throws: MarkupError.invalidUTF8(at: position)) { try SourcePosition.text(validating: bytes) }
            } else {
                #expect(try SourcePosition.text(validating: bytes) == String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    @Test func anErrorSaysWhere() {
        let bytes = Array("one\ntwo ".utf8) + [0xE2, 0x82] + Array(" three".utf8)
        #expect(throws: MarkupError.invalidUTF8(at: SourcePosition(line: 2, column: 5, byteOffset: 8))) {
            try SourcePosition.text(validating: bytes)
        }
    }
}
