import QuireModel
import Testing

/// A rule listing its types accepts exactly those, whether it lists few (compared by name) or
/// many (hashed), names of equal length and shared prefixes included.
@Suite struct ChildRuleTests {
    static let names = ["a", "b", "listitem", "listitex", "code-highlight", "code-highlighz", "tablecell", "tablerow", "x", "a-long-plugin-type-name",
                        "a-long-plugin-type-namf", "quote"]

    @Test(arguments: [1, 2, 3, 8, 9, 12])
    func aListedRuleAcceptsExactlyItsTypes(count: Int) {
        let listed = Set(Self.names[..<count].map { NodeType($0) })
        let rule = ChildRule.only(listed)
        for name in Self.names + ["", "listitemx", "LISTITEM"] {
            let type = NodeType(name)
            #expect(rule.accepts(type: type, role: .element(inline: false)) == listed.contains(type), "\(name) among \(count)")
        }
    }

    @Test func theOtherRulesGoByRole() {
        #expect(!ChildRule.none.accepts(type: "paragraph", role: .element(inline: false)))
        #expect(ChildRule.any.accepts(type: "root", role: .root))
        #expect(ChildRule.blocks.accepts(type: "paragraph", role: .element(inline: false)) && !ChildRule.blocks.accepts(type: "root", role: .root))
        #expect(ChildRule.inlines.accepts(type: "text", role: .text) && !ChildRule.inlines.accepts(type: "paragraph", role: .element(inline: false)))
        #expect(ChildRule.only([]).accepts(type: "paragraph", role: .element(inline: false)) == false)
    }
}
