import Foundation
import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

/// Real documents (READMEs, changelogs, DocC articles of permissively licensed Swift packages,
/// Tests/Fixtures/PROVENANCE.md), converted as `quire convert a.md a.json && quire convert
/// a.json a2.md` does: every word a reader sees survives, and the result is a fixpoint.
@Suite struct RealDocumentTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/markdown/corpus")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
    }

    /// The words of cmark-gfm's plain text (`-t plaintext`), counted.
    static func words(_ markdown: String) throws -> [Substring: Int] {
        var counts: [Substring: Int] = [:]
        let text = try CmarkGFM.plainText(markdown)
        for word in text.split(whereSeparator: { $0.isWhitespace }) { counts[word, default: 0] += 1 }
        return counts
    }

    /// markdown → state → Lexical JSON bytes → state → markdown.
    static func convert(_ markdown: String) throws -> (json: [UInt8], markdown: String) {
        let converter = BuiltIns.converter
        let json = LexicalJSON.exportBytes(try converter.state(fromMarkdown: markdown), prettyPrinted: true)
        let state = try LexicalJSON.importState(from: json, registry: BuiltIns.registry)
        return (json, try converter.markdown(from: state))
    }

    @Test func theCorpusIsThere() {
        #expect(Self.files.count >= 25)
    }

    @Test(arguments: files)
    func everyVisibleWordSurvivesAndTheResultIsAFixpoint(file: String) throws {
        let markdown = try String(contentsOf: Self.directory.appendingPathComponent(file), encoding: .utf8)
        let first = try Self.convert(markdown)
        let before = try Self.words(markdown)
        let after = try Self.words(first.markdown)
        var lost: [String] = []
        var added: [String] = []
        for (word, count) in before where after[word, default: 0] < count { lost.append("\(word)×\(count - after[word, default: 0])") }
        for (word, count) in after where before[word, default: 0] < count { added.append("\(word)×\(count - before[word, default: 0])") }
        #expect(lost.isEmpty && added.isEmpty, "\(file): lost \(lost.sorted().prefix(20)), added \(added.sorted().prefix(20))")
        let second = try Self.convert(first.markdown)
        #expect(second.markdown == first.markdown, "\(file) is not a fixpoint after one round")
        let third = try Self.convert(second.markdown)
        #expect(third.json == second.json, "\(file): the second round imports another document")
        let sameHTML = try CmarkGFM.html(markdown) == CmarkGFM.html(first.markdown)
        #expect(sameHTML, "\(file): cmark-gfm's HTML of the converted markdown differs from the original's")
        print("\(file): \(markdown.utf8.count) B, \(before.values.reduce(0, +)) words kept, HTML \(sameHTML ? "equal" : "changed")")
    }
}
