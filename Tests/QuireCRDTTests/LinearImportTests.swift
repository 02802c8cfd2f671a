import Testing
@testable import QuireCRDT

/// The fast paths of the linear import (Loro updates into an empty document) against slow
/// references, over seeded random edits: the arena's one-pass scalar decoding, the forward walk
/// of a multi-run delete, the in-place index updates of leaf splits, and the whole import
/// against the document that made the updates.
@Suite struct LinearImportTests {
    private let text = ContainerID.root(name: "text", type: .text)

    @Test(arguments: 0..<20)
    func scalarsDecodeAsTheScalarView(seed: Int) {
        var rng = SeededRNG(seed: UInt64(seed))
        let seq = FugueSequence()
        var expected: [Unicode.Scalar] = []
        for _ in 0..<50 {
            let s = randomString(&rng, maxScalars: 12)
            let (n, u16, u8) = seq.appendScalars(of: s)
            #expect(Int(n) == s.unicodeScalars.count)
            #expect(Int(u16) == s.utf16.count)
            #expect(Int(u8) == s.utf8.count)
            #expect(LoroJSONOp(container: text, counter: 0, content: .insertText(position: 0, text: s)).length == s.unicodeScalars.count)
            expected.append(contentsOf: s.unicodeScalars)
        }
        #expect(seq.scalars == expected)
    }

    /// The visible atoms of a sequence in order, the slow way.
    private func visibleIDs(_ seq: FugueSequence) -> [OpID] {
        var ids: [OpID] = []
        seq.forEachElem { e in
            if e.visible { for k in 0..<e.length { ids.append(OpID(peer: e.peer, counter: e.counter + k)) } }
        }
        return ids
    }

    /// Every atom of every element is found where it lies (the ID index after splits and moves).
    private func checkIndex(_ seq: FugueSequence) {
        var l: SeqNode? = seq.firstLeaf
        while let leaf = l {
            for (i, e) in leaf.elems.enumerated() {
                for id in [e.id, e.lastID] {
                    let c = seq.cursor(of: id)
                    #expect(c?.leaf === leaf && c?.index == i, "index of \(id)")
                }
            }
            l = leaf.next
        }
    }

    /// One random edit: an insert of a few scalars or, three times in ten, a delete of up to 12
    /// atoms (up to `long` one time in five); `check` sees the document before each delete.
    private func randomEdit(_ doc: inout CRDTDocument, _ rng: inout SeededRNG, long: Int,
                            check: (CRDTDocument, _ pos: Int, _ count: Int) -> Void = { _, _, _ in }) throws {
        let len = doc.length(of: text)
        if len > 0, rng.chance(0.3) {
            let pos = rng.int(0..<len)
            let count = rng.int(1..<(min(len - pos, rng.chance(0.2) ? long : 12) + 1))
            check(doc, pos, count)
            try doc.delete(at: pos, count: count, in: text)
        } else {
            try doc.insertText(randomString(&rng, maxScalars: 6), at: rng.int(0..<(len + 1)), in: text)
        }
    }

    @Test(arguments: 0..<12)
    func multiRunDeletesMatchTheVisibleAtoms(seed: Int) throws {
        var rng = SeededRNG(seed: UInt64(seed) &+ 100)
        var doc = CRDTDocument(peer: 7)
        for step in 0..<1_500 {
            // Deletes of up to a few hundred atoms cross runs, leaves and tombstones.
            var remaining: [OpID] = []
            try randomEdit(&doc, &rng, long: 400) { before, pos, count in
                let seq = before.s.sequences[text]!
                let ids = visibleIDs(seq)
                var expected: [IDSpan] = []
                for id in ids[pos..<pos + count] {
                    if let last = expected.last, last.peer == id.peer, last.end == id.counter {
                        expected[expected.count - 1].end += 1
                    } else {
                        expected.append(IDSpan(peer: id.peer, start: id.counter, end: id.counter + 1))
                    }
                }
                #expect(seq.copy().deleteVisible(from: pos, count: count).map(\.ascending) == expected, "step \(step): delete \(count) at \(pos)")
                remaining = Array(ids[..<pos] + ids[(pos + count)...])
            }
            if !remaining.isEmpty || doc.length(of: text) == 0 { #expect(visibleIDs(doc.s.sequences[text]!) == remaining) }
            if step % 50 == 0 { checkIndex(doc.s.sequences[text]!) }
        }
    }

    @Test(arguments: 0..<12)
    func linearImportRebuildsTheSameDocument(seed: Int) throws {
        var rng = SeededRNG(seed: UInt64(seed) &+ 200)
        var doc = CRDTDocument(peer: 3)
        for _ in 0..<2_000 {
            try randomEdit(&doc, &rng, long: 300)
            if rng.chance(0.2) { doc.commit() }
        }
        doc.commit()
        for bytes in [doc.exportLoroUpdates(), doc.exportJSONUpdates().jsonBytes()] {
            var copy = CRDTDocument(peer: 9)
            if bytes.first == UInt8(ascii: "{") { try copy.importJSONUpdates(LoroJSONUpdates(json: bytes)) } else { try copy.importLoro(bytes) }
            #expect(copy.text(text) == doc.text(text))
            // The same operations (positions, delete starts) come out again.
            #expect(copy.exportJSONUpdates() == doc.exportJSONUpdates())
            checkIndex(copy.s.sequences[text]!)
        }
    }
}
