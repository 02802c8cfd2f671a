import QuireAlgorithms
import QuireModel
import Testing
@testable import QuireMarkup

/// The exporter nests a block's leaves into spans by their formats and links. Its shortcut for
/// leaves no span format touches (`Reader.nested`) must give exactly what the segments give
/// (`Reader.nestedBySegments`): random runs of text, code, breaks with details, raw HTML and
/// empty link placeholders, inside and outside links, adjacent links included.
@Suite struct ExportNestingTests {
    static func randomLeaves(using random: inout SeededGenerator) -> [Reader.NodeLeaf] {
        var leaves: [Reader.NodeLeaf] = []
        var link: (key: NodeKey, inline: MarkupInline)?
        var nextKey = 10
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                link = nil
            case 1:
                nextKey += 1
                let title: String? = Bool.random(using: &random) ? "t" : nil
                link = (NodeKey(nextKey), MarkupInline(.link(destination: "u\(nextKey)", title: title), details: ["x": .number(.integer(1))]))
            default:
                break
            }
            let inline: MarkupInline
            var format: TextFormat = []
            switch Int.random(in: 0..<6, using: &random) {
            case 0: inline = MarkupInline(.text(["a", " b ", ""].randomElement(using: &random)!))
            case 1:
                inline = MarkupInline(.code("c"))
                format = .code
            case 2: inline = MarkupInline(.softBreak, details: Bool.random(using: &random) ? ["k": "v"] : JSONObject())
            case 3: inline = MarkupInline(.lineBreak)
            case 4: inline = MarkupInline(.html("<b>"))
            default:
                inline = MarkupInline(.text("d"))
                if Bool.random(using: &random) { format = .underline }
            }
            leaves.append(Reader.NodeLeaf(inline: inline, format: format, spans: nil, link: link))
        }
        return leaves
    }

    @Test func theShortcutForUnmarkedLeavesGivesWhatTheSegmentsGive() {
        var random = SeededGenerator(seed: 0xE_4E57)
        var withLinks = 0
        for _ in 0..<20_000 {
            let leaves = Self.randomLeaves(using: &random)
            if leaves.contains(where: { $0.link != nil }) { withLinks += 1 }
            let shortcut = Reader.nested(leaves)
            let segments = Reader.nestedBySegments(leaves)
            #expect(shortcut == segments, "\(leaves.map(\.inline))")
        }
        #expect(withLinks > 5_000)
    }

    @Test func markedLeavesAreNestedBySegments() {
        let leaves = [
            Reader.NodeLeaf(inline: MarkupInline(.text("a")), format: .bold, spans: nil, link: nil),
            Reader.NodeLeaf(inline: MarkupInline(.text("b")), format: [], spans: nil, link: nil),
        ]
        #expect(Reader.nested(leaves) == [MarkupInline(.strong, children: [MarkupInline(.text("a"))]), MarkupInline(.text("b"))])
    }
}

/// Two inlines are equal but for their ranges only when intents, details and children agree at
/// every depth.
@Suite struct InlineEqualityIgnoringRangesTests {
    static let here = SourceRange(start: SourcePosition(line: 1, column: 1, byteOffset: 0), end: SourcePosition(line: 1, column: 4, byteOffset: 3))
    static let there = SourceRange(start: SourcePosition(line: 9, column: 2, byteOffset: 80), end: SourcePosition(line: 9, column: 5, byteOffset: 83))

    @Test func rangesAreIgnoredAndEverythingElseCounts() {
        let a = MarkupInline(.emphasis, children: [MarkupInline(.text("x"), range: Self.here)], range: Self.here, details: ["delimiter": "_"])
        let b = MarkupInline(.emphasis, children: [MarkupInline(.text("x"), range: Self.there)], range: nil, details: ["delimiter": "_"])
        #expect(a != b)
        #expect(a.equalsIgnoringRanges(b) && b.equalsIgnoringRanges(a))
        #expect(!a.equalsIgnoringRanges(MarkupInline(.emphasis, children: [MarkupInline(.text("x"))])))
        #expect(!a.equalsIgnoringRanges(MarkupInline(.strong, children: [MarkupInline(.text("x"))], details: ["delimiter": "_"])))
        #expect(!a.equalsIgnoringRanges(MarkupInline(.emphasis, children: [MarkupInline(.text("y"))], details: ["delimiter": "_"])))
        #expect(!a.equalsIgnoringRanges(MarkupInline(.emphasis, children: [MarkupInline(.text("x")), MarkupInline(.text("x"))], details: ["delimiter": "_"])))
        #expect(!a.equalsIgnoringRanges(MarkupInline(.emphasis, children: [], details: ["delimiter": "_"])))
    }
}
