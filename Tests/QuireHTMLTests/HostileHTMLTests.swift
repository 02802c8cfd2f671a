import Foundation
import QuireHTML
import QuireMarkup
import QuireModel
import Testing

/// Hostile HTML: nesting deeper than any page, tags that never close, megabytes of inline
/// elements. Each gets a typed error or a correct document, never a crash; the nesting guard
/// keeps gumbo's time linear (its scope checks walk the open elements).
@Suite struct HostileHTMLTests {
    static func refusesNesting(_ html: String, at offset: Int) -> Bool {
        do {
            _ = try BuiltIns.converter.state(fromHTML: html)
            return false
        } catch {
            guard case .cannotImport(let intent, let reason, let range) = error else { return false }
            return intent == "HTML" && reason == "elements nest deeper than 512 levels" && range?.start.byteOffset == offset && range?.start.line == 1
        }
    }

    @Test(arguments: ["div", "span", "b", "blockquote", "ul", "table"])
    func nestingPastTheLimitIsATypedErrorAtItsPlace(_ tag: String) {
        let html = String(repeating: "<\(tag)>", count: 100_000) + "deep"
        #expect(Self.refusesNesting(html, at: 512 * (tag.utf8.count + 2)))
    }

    /// Formatting elements a later block reopens (HTML5 reconstructs every unclosed one in each
    /// new block, so the tree grows with the square of the input) count against the limit too.
    @Test func unclosedFormattingReopenedInEveryBlockIsRefused() {
        let html = (0..<10_000).map { "<p><b class=\"c\($0)\">x</p>" }.joined()
        #expect(throws: MarkupError.self) { _ = try BuiltIns.converter.state(fromHTML: html) }
    }

    @Test func nestingBelowTheLimitKeepsTheText() throws {
        let html = String(repeating: "<div>", count: 500) + "deep text" + String(repeating: "<span>", count: 10) + " inside"
        #expect(FlatString.render(try BuiltIns.converter.state(fromHTML: html)) == "deep text inside")
    }

    /// Lists nested 200 levels deep: the document nests at most `maximumDepth` blocks; the
    /// deeper items join the deepest list item, their text kept, and the document still
    /// writes and reads as Lexical JSON.
    @Test func deepListsAreCappedAndKeepTheirText() throws {
        let levels = 200
        let html = (0..<levels).map { "<ul><li>item \($0)" }.joined()
        let state = try BuiltIns.converter.state(fromHTML: html)
        let text = FlatString.render(state)
        for level in [0, 10, 100, levels - 1] { #expect(text.contains("item \(level)")) }
        var depth = 0
        var current = state.root.firstChild
        while let key = current, let node = state[key] {
            depth += 1
            current = node.lastChild.flatMap { state[$0]?.role.isElement == true && state[$0]?.role.isInline == false ? $0 : nil }
        }
        #expect(depth <= 48)
        let json = LexicalJSON.exportString(state)
        #expect(LexicalJSON.exportString(try LexicalJSON.importState(from: Array(json.utf8), registry: BuiltIns.registry)) == json)
    }

    @Test func unclosedTagsCloseAsABrowserClosesThem() throws {
        let paragraphs = try BuiltIns.converter.state(fromHTML: (0..<5_000).map { "<p>p\($0)" }.joined())
        #expect(paragraphs.children(of: .root).map { $0 }.count == 5_000)
        let list = try BuiltIns.converter.state(fromHTML: "<ul>" + (0..<3_000).map { "<li>i\($0)" }.joined())
        #expect(Outline.of(list).hasPrefix(#"list{tag="ul",listType="bullet",start=1}(listitem("i0") listitem("i1")"#))
        #expect(list.children(of: list.root.firstChild!).map { $0 }.count == 3_000)
        let table = try BuiltIns.converter.state(fromHTML: "<table>" + (0..<200).map { "<tr><td>a\($0)<td>b\($0)" }.joined())
        #expect(FlatString.render(table).hasPrefix("a0\tb0\na1\tb1\n"))
        let bold = try BuiltIns.converter.state(fromHTML: String(repeating: "<b>x", count: 300))
        #expect(Outline.of(bold) == "paragraph(b:\"" + String(repeating: "x", count: 300) + "\")")
    }

    /// Megabytes of inline elements: a correct document in one pass. The default run reads
    /// 1 MB of mixed formats and 10 MB of spans; `QUIRE_LONG_HTML=1` reads 10 MB of mixed
    /// formats too. (The benchmark reports the time per megabyte at both sizes.)
    @Test func megabytesOfInlineElements() throws {
        let unit = "<span>x</span>"
        let count = 10_000_000 / unit.utf8.count
        let spans = try BuiltIns.converter.state(fromHTML: String(repeating: unit, count: count))
        #expect(FlatString.render(spans) == String(repeating: "x", count: count))
        let mixedUnit = "<b>b</b><i>i</i><a href=\"/x\">a</a> "
        let megabytes = ProcessInfo.processInfo.environment["QUIRE_LONG_HTML"] == "1" ? 10 : 1
        let mixedCount = megabytes * 1_000_000 / mixedUnit.utf8.count
        let mixed = try BuiltIns.converter.state(fromHTML: String(repeating: mixedUnit, count: mixedCount))
        let paragraph = try #require(mixed.root.firstChild.flatMap { mixed[$0] })
        #expect(paragraph.childCount == mixedCount * 4 - 1)
        #expect(FlatString.render(mixed).utf16.count == mixedCount * 4 - 1)
    }
}
