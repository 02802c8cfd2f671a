import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

@Suite struct SpecRoundTripTests {
    /// The HTML-equal examples each spec file must reach after markdown → document → markdown
    /// (compared with cmark-gfm's HTML of both).
    static let required: [String: Int] = [
        "commonmark-spec-0.31.2.spec.json": 640, "cmark-gfm-spec.json": 660, "cmark-gfm-extensions.json": 28,
    ]

    /// Every spec example: markdown → document → markdown reaches a fixpoint after one round (a
    /// second round writes the same markdown and imports the same document), and enough examples
    /// keep cmark-gfm's HTML. The report counts, per section, the examples whose HTML is
    /// unchanged, and how many import the very document the original did (a strict fixpoint).
    @Test(arguments: SpecFixtures.files)
    func examplesKeepTheirHTMLAndReachAFixpoint(file: String) throws {
        let examples = try SpecFixtures.examples(file)
        #expect(examples.count > 20)
        let converter = BuiltIns.converter
        var sections: [String: (equal: Int, total: Int)] = [:]
        var order: [String] = []
        var notFixpoints: [Int] = []
        var changedHTML: [Int] = []
        var strict = 0
        for example in examples {
            let first = try converter.state(fromMarkdown: example.markdown)
            let written = try converter.markdown(from: first)
            let second = try converter.state(fromMarkdown: written)
            let rewritten = try converter.markdown(from: second)
            let third = try converter.state(fromMarkdown: rewritten)
            if LexicalJSON.export(first) == LexicalJSON.export(second) { strict += 1 }
            if LexicalJSON.export(second) != LexicalJSON.export(third) || rewritten != written {
                notFixpoints.append(example.number)
                if notFixpoints.count <= 5 {
                    Issue.record("\(file) example \(example.number) is not a fixpoint\n--- input\n\(example.markdown)--- written\n\(written)--- written again\n\(rewritten)")
                }
            }
            let equal = try CmarkGFM.html(example.markdown) == CmarkGFM.html(written)
            if !equal { changedHTML.append(example.number) }
            if sections[example.section] == nil { order.append(example.section) }
            sections[example.section, default: (0, 0)].total += 1
            if equal { sections[example.section, default: (0, 0)].equal += 1 }
        }
        var report = "HTML kept by markdown → document → markdown, \(file):\n"
        for section in order {
            let counts = sections[section]!
            report += "  \(section): \(counts.equal)/\(counts.total)\n"
        }
        let equal = examples.count - changedHTML.count
        report += "  total: \(equal)/\(examples.count) HTML-equal (changed: \(changedHTML)); "
        report += "fixpoint after one round: \(examples.count - notFixpoints.count)/\(examples.count); "
        report += "the original's document again: \(strict)/\(examples.count)\n"
        print(report)
        #expect(notFixpoints.isEmpty, "examples that are not a fixpoint: \(notFixpoints)")
        #expect(equal >= Self.required[file] ?? examples.count, "HTML changed for \(changedHTML)")
    }
}
