import Foundation
import QuireAlgorithms
import Testing
@testable import QuireTextStorage

/// The balanced trees under `TextStorage`: summaries stay exact, the shape stays logarithmic, and
/// reads that cross chunk boundaries return exactly the requested units.
@Suite struct TreeTests {
    @Test("Random edits on a large storage keep summaries exact and the tree shallow", arguments: [16, 1024])
    func treeStaysBalanced(chunkCapacity: Int) throws {
        var rng = SeededGenerator(seed: 42)
        let line = String(repeating: "lorem ipsum ", count: 6) + "\n"
        let initial = String(repeating: line, count: 2_000)
        let storage = TextStorage(AttributedText(initial), chunkCapacity: chunkCapacity)
        var mirror = Array(initial.utf16)
        try storage.performControllerEdit { storage throws(TextStorageError) in
            for step in 0..<2_000 {
                let location = Int.random(in: 0...storage.length, using: &rng)
                if step % 3 == 0, location < storage.length {
                    try storage.replaceCharacters(in: range(location, 1), with: "")
                    mirror.remove(at: location)
                } else if step % 3 == 1 {
                    try storage.replaceCharacters(in: range(location, 0), with: "q")
                    mirror.insert(contentsOf: "q".utf16, at: location)
                } else {
                    let length = Int.random(in: 0...(storage.length - location), using: &rng)
                    try storage.addAttribute(.bold, value: .int(step), range: range(location, length))
                }
            }
        }
        #expect(storage.text.isConsistent)
        #expect(storage.runTree.isConsistent)
        #expect(Array(storage.string.utf16) == mirror)
        for tree in [storage.text.nodeCount, storage.runTree.nodeCount] { #expect(tree > 0) }
        let bound = { (nodes: Int) in 4 * Int(log2(Double(max(nodes, 2)))) + 4 }
        #expect(storage.text.height <= bound(storage.text.nodeCount))
        #expect(storage.runTree.height <= bound(storage.runTree.nodeCount))
        // Chunks stay within their capacity.
        #expect(storage.text.elements.allSatisfy { $0.units.count <= chunkCapacity && !$0.units.isEmpty })
    }

    @Test("Substrings and paragraph ranges across chunk boundaries", arguments: [2, 3, 7, 1024])
    func readsAcrossChunks(chunkCapacity: Int) throws {
        let source = "first line\nsecond 😀 line\r\nthird\u{2029}last"
        let storage = TextStorage(AttributedText(source), chunkCapacity: chunkCapacity)
        let units = Array(source.utf16)
        for start in 0...units.count {
            for end in start...units.count {
                let target = range(start, end - start)
                let splits = [start, end].contains { $0 > 0 && $0 < units.count && UTF16.isTrailSurrogate(units[$0]) }
                if splits { continue }
                #expect(try storage.substring(in: target) == String(decoding: units[start..<end], as: UTF16.self))
                #expect(try storage.paragraphRange(for: target) == (source as NSString).paragraphRange(for: target)
                    || source.contains("\r\n"))
            }
        }
        // "\r\n" is two separators here (documented); every other boundary matches NSString.
        #expect(try storage.paragraphRange(for: range(0, 0)) == range(0, 11))
        #expect(try storage.paragraphRange(for: range(12, 3)) == range(11, 15))
        #expect(try storage.paragraphRange(for: range(27, 0)) == range(27, 6))
        #expect(try storage.paragraphRange(for: range(storage.length, 0)) == range(33, 4))
    }
}

@Suite struct ReadingTests {
    @Test("attributedSubstring clips runs to the range", arguments: [2, 5, 1024])
    func attributedSubstring(chunkCapacity: Int) throws {
        let content = try AttributedText("plain bold 😀 italic", runs: [(6, [:]), (5, [.bold: true]), (2, [.bold: true, .italic: true]), (7, [.italic: true])])
        let storage = TextStorage(content, chunkCapacity: chunkCapacity)
        let slice = try storage.attributedSubstring(in: range(3, 12))
        #expect(slice == (try AttributedText("in bold 😀 i", runs: [(3, [:]), (5, [.bold: true]), (2, [.bold: true, .italic: true]), (2, [.italic: true])])))
        #expect(storage.attributedText == content)
        #expect(try storage.utf16Unit(at: 11) == 0xD83D)
        #expect(throws: TextStorageError.rangeOutOfBounds(range: range(20, 1), length: 20)) { try storage.utf16Unit(at: 20) }
    }

    @Test("fixAttributes can be asked for explicitly and only touches the paragraphs of the range")
    func explicitFixAttributes() throws {
        let content = try AttributedText("ab\ncd", runs: [(1, [:]), (1, [.paragraphStyle: "center", .attachment: "x"]), (1, [:]), (2, [.attachment: "y"])])
        let storage = TextStorage(content)
        try storage.fixAttributes(in: range(0, 1))
        #expect(try storage.runs(in: range(0, 5)) == [
            AttributeRun(range: range(0, 3), attributes: [:]),
            AttributeRun(range: range(3, 2), attributes: [.attachment: "y"]),
        ])
        #expect(throws: TextStorageError.rangeOutOfBounds(range: range(4, 2), length: 5)) { try storage.fixAttributes(in: range(4, 2)) }
    }
}
