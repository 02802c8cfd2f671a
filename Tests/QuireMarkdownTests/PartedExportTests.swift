import Foundation
import QuireModel
import Testing
@testable import QuireMarkdown
@testable import QuireMarkup

/// A large state is read into a markup document in two parts at once, and a large document
/// written in two parts at once. Each part is read (written) apart from the blocks before it, so
/// wherever a split is allowed, the two parts must give exactly what one pass gives: tried at
/// every allowed split of the spec examples together (quotes after quotes, lists after lists,
/// footnotes, raw HTML), and through the public paths past their thresholds.
@Suite struct PartedExportTests {
    static func markdown() throws -> String {
        let examples = try SpecFixtures.files.flatMap { try SpecFixtures.examples($0) }
        return examples.map(\.markdown).joined(separator: "\n\n")
            + "\n\n> quote\n\n> quote after a quote\n\n- a\n\n* b\n\n1. c\n\n2) d\n\ntext[^n]\n\n[^n]: a note"
    }

    static func state(_ markdown: String) throws -> EditorState {
        try MarkupImporter(mappings: BuiltIns.converter.mappings).makeState(parsing: markdown, with: MarkdownFormat(), registry: BuiltIns.registry)
    }

    @Test func readingFromAnyIndependentBlockGivesTheWholeDocument() throws {
        let state = try Self.state(try Self.markdown())
        let whole = try Reader(state: state, mappings: BuiltIns.converter.mappings).blocks(of: state.root)
        var splits = 0
        var next = state.root.firstChild
        while let key = next, let child = state[key] {
            next = child.nextSibling
            let reader = Reader(state: state, mappings: BuiltIns.converter.mappings)
            guard key != state.root.firstChild, reader.isIndependent(child) else { continue }
            // Every split after a block that is not a paragraph (where something could carry
            // over), and every tenth after one: each split reads the whole document.
            splits += 1
            guard state[child.previousSibling!]?.type != .paragraph || splits % 10 == 0 else { continue }
            let parts = try reader.blocks(of: state.root, until: key)
                + Reader(state: state, mappings: BuiltIns.converter.mappings).blocks(of: state.root, from: key)
            #expect(parts == whole, "split at \(key)")
        }
        #expect(splits > 100)
    }

    @Test func writingFromAnyIndependentBlockGivesTheWholeText() throws {
        let document = try MarkdownFormat().parse(try Self.markdown())
        // Lists side by side with nothing to tell their markers apart, as an edited document
        // has them: the writer must pass the one marker on to change the next.
        func list(_ style: ListStyle) -> MarkupBlock {
            MarkupBlock(.list(style, tight: true), children: [
                MarkupBlock(.listItem(checked: style == .task ? false : nil), children: [MarkupBlock(.paragraph, inlines: [MarkupInline(.text("item"))])]),
            ])
        }
        let adjacentLists = [list(.bullet), list(.bullet), list(.ordered(start: 1)), list(.ordered(start: 1)), list(.task), list(.task)]
        let (arranged, _) = FootnoteDefinitions.arranged(adjacentLists + document.blocks)
        let blocks = FootnoteDefinitions.beforeTrailingHTML(arranged)
        var whole = BlockWriter()
        whole.blocks(blocks, tight: false)
        var splits = 0
        for index in blocks.indices.dropFirst() where MarkdownWriter.startsIndependently(at: index, in: blocks) {
            // Every split after a heading, and every tenth after a paragraph: each writes all.
            splits += 1
            guard blocks[index - 1].intent != .paragraph || splits % 10 == 0 else { continue }
            var earlier = BlockWriter()
            earlier.blocks(blocks[..<index], tight: false)
            var later = BlockWriter()
            later.blocks(blocks[index...], tight: false, after: blocks[index - 1])
            #expect(earlier.output + later.output == whole.output, "split at block \(index)")
        }
        #expect(splits > 100)
    }

    /// Past the thresholds, the public paths split by themselves.
    @Test func largeDocumentsReadAndWriteAsOnePass() throws {
        let large = String(repeating: try Self.markdown() + "\n\n", count: 24)
        let state = try Self.state(large)
        #expect(state.nodeCount > MarkupExporter.parallelNodeCount)
        let exporter = MarkupExporter(mappings: BuiltIns.converter.mappings)
        let (document, losses) = try exporter.makeDocumentReportingLosses(state)
        let reader = Reader(state: state, mappings: BuiltIns.converter.mappings)
        #expect(document.blocks == (try reader.blocks(of: state.root)))
        #expect(losses == reader.log.losses)
        #expect(document.blocks.count > MarkdownWriter.parallelBlockCount)
        let (text, writerLosses) = MarkdownWriter().writeReportingLosses(document)
        var one = BlockWriter()
        let (arranged, arrangeLosses) = FootnoteDefinitions.arranged(document.blocks)
        one.losses = arrangeLosses
        one.blocks(FootnoteDefinitions.beforeTrailingHTML(arranged), tight: false)
        #expect(text == one.output)
        #expect(writerLosses == one.losses)
    }
}
