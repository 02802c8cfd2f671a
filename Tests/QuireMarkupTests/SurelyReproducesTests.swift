import QuireAlgorithms
import QuireModel
import Testing
@testable import QuireMarkup

/// The importer's cheap test that a block's spans need not be kept (`surelyReproduces`) must
/// never say yes where the full check (`defaultReproduces`: rebuild the spans from the formats
/// and compare) says no. Random inline content from a small grammar, nested spans, links,
/// whitespace at edges, delimiters and atoms included.
@Suite struct SurelyReproducesTests {
    static func randomInlines(depth: Int, using random: inout SeededGenerator) -> [MarkupInline] {
        let texts = ["a", "b c", " d", "e ", "\t", "", "f"]
        return (0..<Int.random(in: 0...4, using: &random)).map { _ in
            switch Int.random(in: 0..<(depth > 0 ? 12 : 6), using: &random) {
            case 0, 1: return MarkupInline(.text(texts.randomElement(using: &random)!))
            case 2: return MarkupInline(.code("x"))
            case 3: return MarkupInline(.softBreak)
            case 4: return MarkupInline(.lineBreak)
            case 5: return MarkupInline(.html("<b>"))
            default:
                let intent: InlineIntent = [.emphasis, .strong, .strikethrough, .emphasis, .link(destination: "u", title: nil)]
                    .randomElement(using: &random)!
                let details: JSONObject = Int.random(in: 0..<6, using: &random) == 0 ? [MarkupDetails.delimiter: "_"] : JSONObject()
                // Half the spans hold plain words and code spans, as most spans in documents do.
                let children = Bool.random(using: &random)
                    ? (0..<Int.random(in: 1...3, using: &random)).map { _ in
                        Int.random(in: 0..<4, using: &random) == 0
                            ? MarkupInline(.code(["x", " y "].randomElement(using: &random)!))
                            : MarkupInline(.text(["a", "b c", "g", " h "].randomElement(using: &random)!))
                    }
                    : randomInlines(depth: depth - 1, using: &random)
                return MarkupInline(intent, children: children, details: details)
            }
        }
    }

    @Test func theCheapTestNeverSaysYesWhereTheFullCheckSaysNo() {
        var random = SeededGenerator(seed: 0x5_0E1)
        var sure = 0
        var sureWithLinks = 0
        for _ in 0..<20_000 {
            let content = Self.randomInlines(depth: 2, using: &random)
            guard content.contains(where: { $0.intent.isContainer }) else { continue }
            var leaves: [InlineLeaf] = []
            var counter = 0
            InlineLeaf.flatten(content, chain: [], into: &leaves, counter: &counter)
            if InlineLeaf.surelyReproduces(content) {
                sure += 1
                if content.contains(where: { if case .link = $0.intent { true } else { false } }) { sureWithLinks += 1 }
                #expect(InlineLeaf.defaultReproduces(content, leaves: leaves), "\(content)")
            }
        }
        // The grammar reaches the cheap test's yes often enough to mean something.
        #expect(sure > 500)
        #expect(sureWithLinks > 200)
    }
}
