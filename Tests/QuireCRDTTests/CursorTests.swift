import Testing
@testable import QuireCRDT

@Suite struct CursorTests {
    static let t = ContainerID.root(name: "t", type: .text)

    /// Local edits against a model of tokens in document order (tombstones kept, as Fugue keeps them).
    @Test(arguments: 0..<20)
    func cursorsFollowTheirAnchorInAModel(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        var doc = CRDTDocument(peer: 1)
        var tokens: [(token: Int, alive: Bool)] = []
        var next = 0
        var cursors: [(Cursor, token: Int?, side: Cursor.Side)] = []
        func aliveIndex(_ visible: Int) -> Int { // full index of the visible-th alive token
            var seen = 0
            for (i, t) in tokens.enumerated() where t.alive { if seen == visible { return i }; seen += 1 }
            return tokens.count
        }
        for _ in 0..<300 {
            let len = tokens.filter(\.alive).count
            if len > 0 && rng.chance(0.35) {
                let p = rng.int(0..<len)
                try doc.delete(at: p, count: 1, in: Self.t)
                tokens[aliveIndex(p)].alive = false
            } else {
                let p = rng.int(0..<(len + 1))
                try doc.insertText("x", at: p, in: Self.t)
                let full = p == 0 ? 0 : aliveIndex(p - 1) + 1
                tokens.insert((next, true), at: full)
                next += 1
            }
            if rng.chance(0.3) { doc.commit() }
            if rng.chance(0.2) {
                let len2 = tokens.filter(\.alive).count
                let p = rng.int(0..<(len2 + 1))
                let side: Cursor.Side = rng.chance(0.5) ? .before : .after
                let c = try doc.cursor(at: p, in: Self.t, side: side)
                let token: Int? = side == .after ? (p == 0 ? nil : tokens[aliveIndex(p - 1)].token) : (p == len2 ? nil : tokens[aliveIndex(p)].token)
                cursors.append((c, token, side))
            }
            for (c, token, side) in cursors {
                let expected: Int
                if let token {
                    let i = tokens.firstIndex { $0.token == token }!
                    let before = tokens[..<i].filter(\.alive).count
                    expected = before + (side == .after && tokens[i].alive ? 1 : 0)
                } else {
                    // A cursor at an end has no anchor; its side says which end.
                    expected = c.side == .before ? 0 : tokens.filter(\.alive).count
                }
                #expect(try doc.resolve(c) == expected)
            }
        }
    }

    @Test func cursorSurvivesRemoteEditsAndDeletionAndEncodes() throws {
        var a = CRDTDocument(peer: 1)
        try a.insertText("hello world", at: 0, in: Self.t); a.commit()
        var b = try CRDTDocument.load(snapshot: a.exportSnapshot(), peer: 2)
        let c = try a.cursor(at: 6, in: Self.t)          // before "w"
        try b.insertText(">>", at: 0, in: Self.t)
        try b.delete(at: 8, count: 1, in: Self.t)        // delete "w" (the anchor)
        b.commit()
        try a.importUpdates(b.exportUpdates(since: a.version))
        #expect(a.text(Self.t) == ">>hello orld")
        #expect(try a.resolve(c) == 8)
        let decoded = try Cursor(decoding: c.encoded())
        #expect(decoded == c)
        #expect(try b.resolve(decoded) == 8)
        let emoji = try a.cursor(at: 12, in: Self.t)
        try a.insertText("😀", at: 0, in: Self.t)
        #expect(try a.resolve(emoji, unit: .utf16) == 14)
        var bad = c.encoded()
        bad[3] ^= 0xFF
        #expect(throws: CRDTError.self) { try Cursor(decoding: bad) }
        #expect(throws: CRDTError.self) { try Cursor(decoding: Array(c.encoded().dropLast())) }
    }
}
