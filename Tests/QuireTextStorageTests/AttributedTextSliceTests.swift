import Foundation
import QuireAlgorithms
import Testing
@testable import QuireTextStorage

/// `AttributedText.slice(_:)` against a simple model: the units and one attributes value per
/// unit, cut with array slicing.
@Suite struct AttributedTextSliceTests {
    static let pieces: [String] = ["a", "bc", " ", "é", "😀", "한", "\n"]
    static let attributePool: [Attributes] = [[:], [.bold: true], [.italic: true], [.foregroundColor: "red"]]

    @Test(arguments: [1, 2, 3, 4, 5])
    func slicesAgreeWithAPerUnitModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            var string = ""
            var runs: [(length: Int, attributes: Attributes)] = []
            for _ in 0..<Int.random(in: 0...8, using: &rng) {
                let piece = Self.pieces.randomElement(using: &rng)!
                string += piece
                runs.append((piece.utf16.count, Self.attributePool.randomElement(using: &rng)!))
            }
            let text = try AttributedText(string, runs: runs)
            let units = Array(string.utf16)
            // ASCII texts take a faster path to their units than the others.
            #expect(text.utf16 == units)
            let perUnit = runs.flatMap { Array(repeating: $0.attributes, count: $0.length) }
            let lower = Int.random(in: 0...units.count, using: &rng)
            let upper = Int.random(in: lower...units.count, using: &rng)
            let splits = [lower, upper].contains { $0 > 0 && $0 < units.count && UTF16.isTrailSurrogate(units[$0]) }
            do {
                let slice = try text.slice(lower..<upper)
                #expect(!splits)
                #expect(slice.utf16 == Array(units[lower..<upper]))
                #expect(slice.string == String(decoding: units[lower..<upper], as: UTF16.self))
                let sliceUnits = slice.runs.flatMap { Array(repeating: $0.attributes, count: $0.range.length) }
                #expect(sliceUnits == Array(perUnit[lower..<upper]))
            } catch {
                #expect(splits, "\(error)")
                let offset = lower > 0 && lower < units.count && UTF16.isTrailSurrogate(units[lower]) ? lower : upper
                #expect(error == .splitsSurrogatePair(offset: offset))
            }
        }
    }

    @Test func aRangeOutsideTheTextIsRefused() {
        let text = AttributedText("abc")
        #expect(throws: TextStorageError.rangeOutOfBounds(range: NSRange(location: 2, length: 3), length: 3)) { try text.slice(2..<5) }
    }
}
