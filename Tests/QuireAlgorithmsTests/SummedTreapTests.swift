import QuireAlgorithms
import Testing

/// A piece of text standing for any element: it has a length, can be cut, and counts as one.
struct Piece: TreapElement, Equatable {
    var id: Int
    var length: Int

    struct Summary: InvertibleTreapSummary {
        var count: Int
        var length: Int
        static let zero = Summary(count: 0, length: 0)
        static func + (lhs: Summary, rhs: Summary) -> Summary { Summary(count: lhs.count + rhs.count, length: lhs.length + rhs.length) }
        static func - (lhs: Summary, rhs: Summary) -> Summary { Summary(count: lhs.count - rhs.count, length: lhs.length - rhs.length) }
    }

    var summary: Summary { Summary(count: 1, length: length) }
}

/// The treap against a plain array of pieces: seeded random splices by length (cutting pieces)
/// and by rank, in-place updates, removals, and every query after each step.
@Suite struct SummedTreapTests {
    static let steps = 3_000

    struct Model {
        var treap = SummedTreap<Piece>(seed: 7)
        var pieces: [Piece] = []
        var nextID = 0
        var generator: SeededGenerator

        mutating func newPieces(_ count: Int) -> [Piece] {
            (0..<count).map { _ in
                nextID += 1
                // Zero-length pieces too, as the position index has (empty preambles).
                return Piece(id: nextID, length: Int.random(in: 0...5, using: &generator))
            }
        }

        /// The model's pieces cut at `offset` units (pieces of zero length at the cut go right).
        mutating func cut(at offset: Int, newID: Int) -> Int {
            var start = 0
            for (index, piece) in pieces.enumerated() {
                if offset <= start { return index }
                if offset < start + piece.length {
                    pieces[index].length = offset - start
                    pieces.insert(Piece(id: newID, length: start + piece.length - offset), at: index + 1)
                    return index + 1
                }
                start += piece.length
            }
            return pieces.count
        }

        mutating func step() {
            let total = pieces.reduce(0) { $0 + $1.length }
            switch Int.random(in: 0..<6, using: &generator) {
            case 0:
                // Splice by length: cut at two offsets (cutting pieces), drop the middle, insert new pieces.
                let a = Int.random(in: 0...total, using: &generator)
                let b = Int.random(in: a...total, using: &generator)
                nextID += 1
                let tailID = nextID
                let (before, rest) = treap.split(treap.root, at: a, by: { $0.length }) { piece, at in
                    (Piece(id: piece.id, length: at), Piece(id: tailID, length: piece.length - at))
                }
                nextID += 1
                let secondTailID = nextID
                let (middle, after) = treap.split(rest, at: b - a, by: { $0.length }) { piece, at in
                    (Piece(id: piece.id, length: at), Piece(id: secondTailID, length: piece.length - at))
                }
                var removed: [Piece] = []
                treap.free(middle) { removed.append($1) }
                let inserted = newPieces(Int.random(in: 0...3, using: &generator))
                treap.root = treap.merge(treap.merge(before, treap.build(inserted)), after)
                let lower = cut(at: a, newID: tailID)
                let upper = cut(at: b, newID: secondTailID)
                #expect(removed == Array(pieces[lower..<upper]))
                pieces.replaceSubrange(lower..<upper, with: inserted)
            case 1:
                // Splice by rank: never cuts a piece.
                let first = Int.random(in: 0...pieces.count, using: &generator)
                let last = Int.random(in: first...pieces.count, using: &generator)
                let (before, rest) = treap.split(treap.root, at: first, by: { $0.count }) { _, _ in preconditionFailure("rank cut inside a piece") }
                let (middle, after) = treap.split(rest, at: last - first, by: { $0.count }) { _, _ in preconditionFailure("rank cut inside a piece") }
                var removed: [Piece] = []
                treap.free(middle) { removed.append($1) }
                #expect(removed == Array(pieces[first..<last]))
                let inserted = newPieces(Int.random(in: 0...4, using: &generator))
                treap.root = treap.merge(treap.merge(before, treap.build(inserted)), after)
                pieces.replaceSubrange(first..<last, with: inserted)
            case 2:
                // Change one piece in place, through its slot.
                guard let rank = pieces.indices.randomElement(using: &generator) else { return }
                let slot = slot(atRank: rank)
                let length = Int.random(in: 0...9, using: &generator)
                if Bool.random(using: &generator) {
                    treap.replace(slot, with: Piece(id: pieces[rank].id, length: length))
                } else {
                    #expect(treap.update(slot) { $0.length = length; return true })
                }
                pieces[rank].length = length
            case 4:
                // Cut beside a slot (walking up, no measure) and splice new pieces in there; then
                // remove a run between two slots the same way.
                guard let rank = pieces.indices.randomElement(using: &generator) else { return }
                let after = Bool.random(using: &generator)
                let (before, rest) = treap.split(after ? .after : .before, slot(atRank: rank))
                let inserted = newPieces(Int.random(in: 1...3, using: &generator))
                treap.root = treap.merge(treap.merge(before, treap.build(inserted)), rest)
                pieces.insert(contentsOf: inserted, at: after ? rank + 1 : rank)
                let first = Int.random(in: 0..<pieces.count, using: &generator)
                let last = Int.random(in: first..<pieces.count, using: &generator)
                let firstSlot = slot(atRank: first)
                let lastSlot = slot(atRank: last)
                let (head, _) = treap.split(.before, firstSlot)
                let (middle, tail) = treap.split(.after, lastSlot)
                treap.root = treap.merge(head, tail)
                var removed: [Piece] = []
                treap.free(middle) { removed.append($1) }
                #expect(removed == Array(pieces[first...last]))
                pieces.removeSubrange(first...last)
            case 3:
                // Declined updates leave everything as it was.
                guard let rank = pieces.indices.randomElement(using: &generator) else { return }
                #expect(!treap.update(slot(atRank: rank)) { _ in false })
            default:
                // Start over from the model's pieces: `removeAll` and one `build`.
                treap.removeAll()
                treap.root = treap.build(pieces)
            }
        }

        func slot(atRank rank: Int) -> SummedTreap<Piece>.Slot {
            treap.first(where: { $0.count > rank })!.slot
        }

        /// Every query of the treap against the model.
        func check(_ context: String) {
            #expect(treap.isConsistent, "\(context)")
            var inOrder: [Piece] = []
            treap.forEachSlot { inOrder.append(treap[$0]) }
            #expect(inOrder == pieces, "\(context)")
            let total = pieces.reduce(0) { $0 + $1.length }
            #expect(treap.summary == Piece.Summary(count: pieces.count, length: total), "\(context)")
            #expect(treap.liveCount == pieces.count, "\(context)")
            var start = 0
            var previous: SummedTreap<Piece>.Slot?
            for (rank, piece) in pieces.enumerated() {
                let slot = slot(atRank: rank)
                #expect(treap[slot] == piece)
                #expect(treap.summary(before: slot) == Piece.Summary(count: rank, length: start))
                if let previous { #expect(treap.successor(of: previous) == slot) }
                if piece.length > 0 {
                    for offset in start..<(start + piece.length) {
                        let found = treap.element(containing: offset, by: { $0.length })
                        #expect(found?.slot == slot && found?.start == start, "\(context): offset \(offset)")
                    }
                }
                previous = slot
                start += piece.length
            }
            if let previous { #expect(treap.successor(of: previous) == nil) }
            #expect(treap.element(containing: total, by: { $0.length }) == nil)
            // The first piece ending at or after each location, as the position index asks.
            for location in 0...(total + 1) {
                var end = 0
                let expected = pieces.firstIndex { end += $0.length; return end >= location }
                #expect(treap.first(where: { $0.length >= location }).map { treap[$0.slot] } == expected.map { pieces[$0] })
            }
            // A visit of a random range sees exactly the pieces intersecting it.
            if total > 0 {
                let range = (total / 3)..<max(total / 3 + 1, 2 * total / 3)
                var visited: [Piece] = []
                treap.forEach(in: range, by: { $0.length }) { slot, _ in visited.append(treap[slot]); return true }
                var offset = 0
                let expected = pieces.filter { piece in
                    defer { offset += piece.length }
                    // Zero-length pieces count when they sit strictly inside the range.
                    return offset < range.upperBound && offset + piece.length > range.lowerBound
                }
                #expect(visited == expected, "\(context): range \(range)")
            }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithAnArrayModel(seed: UInt64) {
        var model = Model(generator: SeededGenerator(seed: seed))
        for step in 0..<Self.steps {
            model.step()
            if step % 10 == 0 || step == Self.steps - 1 { model.check("seed \(seed) step \(step)") }
        }
        // Logarithmic depth: a treap of n nodes is rarely deeper than a few times log₂ n.
        let bound = 4 * (Int.bitWidth - max(model.pieces.count, 2).leadingZeroBitCount) + 4
        #expect(model.treap.height <= bound)
    }

    /// A copy is a value: writing one leaves the other as it was.
    @Test func copiesAreIndependent() {
        var treap = SummedTreap<Piece>(seed: 1)
        treap.root = treap.build((0..<10).map { Piece(id: $0, length: 1) })
        let copy = treap
        _ = treap.update(treap.first(where: { $0.count > 3 })!.slot) { $0.length = 7; return true }
        #expect(treap.summary.length == 16)
        #expect(copy.summary.length == 10)
        #expect(copy.isConsistent)
    }
}
