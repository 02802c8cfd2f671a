import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

@Suite struct SpecRoundTripTests {
    /// Every spec example: markdown → document → markdown → document is a fixpoint after one
    /// round, and the report counts, per section, the examples whose cmark-gfm HTML is unchanged
    /// by the round trip.
    @Test(arguments: SpecFixtures.files)
    func examplesReachAFixpoint(file: String) throws {
        let examples = try SpecFixtures.examples(file)
        #expect(examples.count > 20)
        let converter = BuiltIns.converter
        var sections: [String: (equal: Int, total: Int)] = [:]
        var order: [String] = []
        var failures: [Int] = []
        for example in examples {
            let first = try converter.state(fromMarkdown: example.markdown)
            let written = try converter.markdown(from: first)
            let second = try converter.state(fromMarkdown: written)
            let firstJSON = LexicalJSON.export(first)
            let secondJSON = LexicalJSON.export(second)
            let rewritten = try converter.markdown(from: second)
            if firstJSON != secondJSON || rewritten != written {
                failures.append(example.number)
                if failures.count <= 5 {
                    Issue.record("\(file) example \(example.number) is not a fixpoint\n--- input\n\(example.markdown)--- written\n\(written)--- written again\n\(rewritten)")
                }
            }
            let equal = try CmarkGFM.html(example.markdown) == CmarkGFM.html(written)
            if sections[example.section] == nil { order.append(example.section) }
            sections[example.section, default: (0, 0)].total += 1
            if equal { sections[example.section, default: (0, 0)].equal += 1 }
        }
        var report = "HTML kept by markdown → document → markdown, \(file):\n"
        var equal = 0
        for section in order {
            let counts = sections[section]!
            equal += counts.equal
            report += "  \(section): \(counts.equal)/\(counts.total)\n"
        }
        report += "  total: \(equal)/\(examples.count)\n"
        print(report)
        #expect(failures.isEmpty, "examples that are not a fixpoint: \(failures)")
    }
}
