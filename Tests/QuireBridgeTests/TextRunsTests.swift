import QuireAlgorithms
@testable import QuireBridge
import QuireCRDT
import Testing

/// The runs index follows a shared text through its events exactly as a whole read of the text
/// sees it: a block's first marker in text order is its marker, a later one is content. Peers
/// can leave two markers of one block (each repairing an orphaned block), and a marker can
/// arrive before the one a block already has (the incremental index once kept the old one and
/// put a paragraph's text into its neighbour), and a block's marker can be deleted while a later
/// duplicate remains (the duplicate becomes the marker; the index once left the block without a
/// run).
@Suite struct TextRunsTests {
    static let blocks: [TreeID] = (0..<4).map { TreeID(peer: 9, counter: OpCounter($0)) }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func incrementalRunsMatchAWholeRead(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var document = CRDTDocument(peer: 1)
        DocumentSchema.configure(&document)
        document.recordsEvents = true
        var runs = TextRuns(delta: [])
        // Deletions of a block's first marker while a later one remains (the duplicate takes over).
        var promotions = 0
        defer { #expect(promotions > 0, "seed \(seed): the session never deleted a marker that had a duplicate") }
        for step in 0..<1_500 {
            let length = document.length(of: DocumentSchema.text)
            let position = Int.random(in: 0...length, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                // A marker, carrying its block mark from the start or receiving it afterwards.
                let block = Self.blocks.randomElement(using: &random)!
                let value = CRDTValue.string(DocumentSchema.string(block))
                if Bool.random(using: &random) {
                    try document.insertText(String(DocumentSchema.markerScalar), at: position, in: DocumentSchema.text)
                    try document.mark(position..<(position + 1), key: DocumentSchema.blockKey, value: value, in: DocumentSchema.text)
                } else {
                    try document.insertText(String(DocumentSchema.markerScalar), at: position, in: DocumentSchema.text)
                    document.commit().map { apply($0, to: &runs, document: document) }
                    try document.mark(position..<(position + 1), key: DocumentSchema.blockKey, value: value, in: DocumentSchema.text)
                }
            case 4..<7:
                try document.insertText(["a", "bc", "é👍🏽"].randomElement(using: &random)!, at: position, in: DocumentSchema.text)
            default:
                guard length > 0 else { continue }
                let start = min(position, length - 1)
                let count = Int.random(in: 1...min(3, length - start), using: &random)
                let markers = Self.markerPositions(document)
                if markers.values.contains(where: { positions in
                    positions.count > 1 && (start..<(start + count)).contains(positions[0]) && !positions.dropFirst().allSatisfy { (start..<(start + count)).contains($0) }
                }) {
                    promotions += 1
                }
                try document.delete(at: start, count: count, in: DocumentSchema.text)
            }
            document.commit().map { apply($0, to: &runs, document: document) }
            let whole = TextRuns(delta: document.toDelta(DocumentSchema.text))
            // The index knows every block that has a second marker (it searches for one only then).
            for (block, positions) in Self.markerPositions(document) where positions.count > 1 {
                #expect(runs.duplicated.contains(block), "seed \(seed) step \(step): \(block)'s second marker is not known")
            }
            #expect(runs.length == whole.length, "seed \(seed) step \(step)")
            for block in Self.blocks {
                #expect(runs.markerPosition(of: block) == whole.markerPosition(of: block), "seed \(seed) step \(step): marker of \(block)")
                #expect(runs.contentRange(of: block) == whole.contentRange(of: block), "seed \(seed) step \(step): run of \(block)")
            }
        }
    }

    /// Every block's marker positions in text order.
    static func markerPositions(_ document: CRDTDocument) -> [TreeID: [Int]] {
        var positions: [TreeID: [Int]] = [:]
        var at = 0
        for step in document.toDelta(DocumentSchema.text) {
            guard case .insert(let text, let attributes) = step else { continue }
            let owner = DocumentSchema.treeID(attributes[DocumentSchema.blockKey])
            for scalar in text.unicodeScalars {
                if let owner, scalar == DocumentSchema.markerScalar { positions[owner, default: []].append(at) }
                at += 1
            }
        }
        return positions
    }

    private func apply(_ event: DocumentEvent, to runs: inout TextRuns, document: CRDTDocument) {
        var changes = RunChanges()
        for container in event.events where container.target == DocumentSchema.text {
            if case .text(let delta) = container.diff { runs.apply(delta, into: &changes, document: document) }
        }
    }
}
