import QuireAlgorithms
import QuireMarkup
import Testing

/// `MarkupBlock.lines(ofLiteral:)` scans bytes; the model is what it replaced: drop one final
/// "\n" Character, then split at every "\n" Character ("\r\n" is one Character, not a split).
@Suite struct LiteralLinesTests {
    static func modelLines(_ literal: String) -> [Substring] {
        var body = Substring(literal)
        if body.hasSuffix("\n") { body = body.dropLast() }
        return body.split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test(arguments: ["", "\n", "\n\n", "a", "a\n", "a\n\n", "a\nb", "a\r\nb\r\n", "\r\n", "\r", "a\r\n\n", "x\n\u{301}y", "👍🏽\n日本\n"])
    func splitsAsTheCharacterModelDoes(_ literal: String) {
        #expect(MarkupBlock.lines(ofLiteral: literal) == Self.modelLines(literal))
    }

    @Test func randomLiteralsSplitAsTheCharacterModelDoes() {
        let pieces = ["a", "bc", "\n", "\n", "\r", "\r\n", "\u{301}", "é", "👍🏽", "日", " ", "\t"]
        var random = SeededGenerator(seed: 0x11_7E5)
        for _ in 0..<3_000 {
            let literal = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(MarkupBlock.lines(ofLiteral: literal) == Self.modelLines(literal), "\(Array(literal.unicodeScalars))")
        }
    }
}
