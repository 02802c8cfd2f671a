import Testing
@testable import QuireCRDT

/// Text operations against a plain array of scalars, in every unit.
@Suite struct TextModelTests {
    static let t = ContainerID.root(name: "t", type: .text)

    func utf16Offset(_ m: [Unicode.Scalar], _ n: Int) -> Int { m[..<n].reduce(0) { $0 + ($1.value > 0xFFFF ? 2 : 1) } }
    func utf8Offset(_ m: [Unicode.Scalar], _ n: Int) -> Int { m[..<n].reduce(0) { $0 + UTF8.width($1) } }

    @Test(arguments: 0..<20)
    func textMatchesScalarModel(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        var doc = CRDTDocument(peer: 1)
        var model: [Unicode.Scalar] = []
        for step in 0..<300 {
            let unit: TextUnit = [.unicodeScalar, .utf16, .utf8][rng.int(0..<3)]
            func pos(_ n: Int) -> Int {
                switch unit {
                case .unicodeScalar: return n
                case .utf16: return utf16Offset(model, n)
                case .utf8: return utf8Offset(model, n)
                }
            }
            if !model.isEmpty && rng.chance(0.35) {
                let a = rng.int(0..<model.count)
                let b = rng.int((a + 1)..<(min(model.count, a + 6) + 1))
                try doc.delete(at: pos(a), count: pos(b) - pos(a), in: Self.t, unit: unit)
                model.removeSubrange(a..<b)
            } else {
                let s = randomString(&rng)
                let a = rng.int(0..<(model.count + 1))
                try doc.insertText(s, at: pos(a), in: Self.t, unit: unit)
                model.insert(contentsOf: s.unicodeScalars, at: a)
            }
            if step % 7 == 0 { doc.commit() }
            #expect(doc.length(of: Self.t) == model.count)
            #expect(doc.length(of: Self.t, unit: .utf16) == utf16Offset(model, model.count))
            #expect(doc.length(of: Self.t, unit: .utf8) == utf8Offset(model, model.count))
            if !model.isEmpty {
                let a = rng.int(0..<model.count), b = rng.int(a..<(model.count + 1))
                #expect(try doc.slice(Self.t, pos(a)..<pos(b), unit: unit) == String(String.UnicodeScalarView(model[a..<b])))
                #expect(try doc.convert(utf16Offset(model, a), from: .utf16, to: .unicodeScalar, in: Self.t) == a)
                #expect(try doc.convert(a, from: .unicodeScalar, to: .utf8, in: Self.t) == utf8Offset(model, a))
            }
        }
        #expect(doc.text(Self.t) == String(String.UnicodeScalarView(model)))
    }

    @Test func badPositionsThrowAndLeaveTheDocumentUnchanged() throws {
        var doc = CRDTDocument(peer: 1)
        try doc.insertText("a😀b", at: 0, in: Self.t)
        doc.commit()
        let before = doc.text(Self.t), version = doc.version
        #expect(throws: CRDTError.outOfBounds(container: Self.t, position: 9, length: 3, unit: .unicodeScalar)) {
            try doc.insertText("x", at: 9, in: Self.t)
        }
        #expect(throws: CRDTError.notAScalarBoundary(container: Self.t, position: 2, unit: .utf16)) {
            try doc.insertText("x", at: 2, in: Self.t, unit: .utf16)
        }
        #expect(throws: CRDTError.self) { try doc.delete(at: 2, count: 5, in: Self.t) }
        #expect(throws: CRDTError.wrongContainerType(container: Self.t, expected: .map)) { try doc.set("k", .int(1), in: Self.t) }
        #expect(doc.text(Self.t) == before)
        #expect(doc.version == version)
    }
}

@Suite struct ListMapTests {
    @Test(arguments: 0..<10)
    func listMatchesArrayModel(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        let l = ContainerID.root(name: "l", type: .list)
        var doc = CRDTDocument(peer: 3)
        var model: [CRDTValue] = []
        for step in 0..<400 {
            if !model.isEmpty && rng.chance(0.4) {
                let a = rng.int(0..<model.count), n = rng.int(1..<(min(3, model.count - a) + 1))
                try doc.delete(at: a, count: n, in: l)
                model.removeSubrange(a..<(a + n))
            } else {
                let vs: [CRDTValue] = (0..<rng.int(1..<3)).map { _ in .int(Int64(step)) }
                let a = rng.int(0..<(model.count + 1))
                try doc.insert(vs, at: a, in: l)
                model.insert(contentsOf: vs, at: a)
            }
            if step % 5 == 0 { doc.commit() }
            #expect(doc.list(l) == model)
        }
    }

    @Test func mapLastWriterWinsByLamportThenPeer() throws {
        let m = ContainerID.root(name: "m", type: .map)
        var a = CRDTDocument(peer: 1), b = CRDTDocument(peer: 2)
        try a.set("k", .string("a"), in: m); a.commit()
        try b.set("k", .string("b"), in: m); b.commit()
        // Same Lamport (0): the larger peer wins on both sides.
        try a.importUpdates(b.exportUpdates()); try b.importUpdates(a.exportUpdates())
        #expect(a.get("k", in: m) == .string("b"))
        #expect(b.get("k", in: m) == .string("b"))
        // A later write (higher Lamport) from the smaller peer wins.
        try a.set("k", .string("a2"), in: m); a.commit()
        try b.importUpdates(a.exportUpdates())
        #expect(b.get("k", in: m) == .string("a2"))
        try b.removeKey("k", in: m); b.commit()
        try a.importUpdates(b.exportUpdates())
        #expect(a.get("k", in: m) == nil && b.get("k", in: m) == nil)
        // Nested containers: a map value can be a text, a list or a map.
        let text = try a.setContainer("body", .text, in: m)
        try a.insertText("hi", at: 0, in: text)
        let list = try a.setContainer("tags", .list, in: m)
        let inner = try a.insertContainer(.map, at: 0, in: list)
        try a.set("x", .bool(true), in: inner)
        a.commit()
        try b.importUpdates(a.exportUpdates(since: b.version))
        #expect(b.text(text) == "hi")
        #expect(b.list(list) == [.container(inner)])
        #expect(b.map(inner) == ["x": .bool(true)])
    }
}

@Suite struct MapModelTests {
    @Test(arguments: 0..<10)
    func mapMatchesDictionaryModel(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        let m = ContainerID.root(name: "m", type: .map)
        var doc = CRDTDocument(peer: 5)
        var model: [String: CRDTValue] = [:]
        for step in 0..<400 {
            let key = "k\(rng.int(0..<8))"
            if rng.chance(0.3) {
                try doc.removeKey(key, in: m)
                model[key] = nil
            } else {
                let v: CRDTValue = rng.chance(0.5) ? .int(Int64(step)) : .string(randomString(&rng, maxScalars: 2))
                try doc.set(key, v, in: m)
                model[key] = v
            }
            if step % 4 == 0 { doc.commit() }
            #expect(doc.map(m) == model)
            #expect(doc.get(key, in: m) == model[key])
        }
    }
}
