import QuireAlgorithms
import Testing
@testable import QuirePositionIndex

typealias Index = PositionIndex<Int>

/// The obvious implementation: an array of parts, scanned linearly.
struct NaiveIndex {
    var parts: [(key: Int, part: Index.Part, length: Int)] = []

    func position(of key: Int, _ part: Index.Part) -> Int? {
        parts.firstIndex { $0.key == key && $0.part == part }
    }

    func location(ofPartAt position: Int) -> Int {
        parts[..<position].reduce(0) { $0 + $1.length }
    }

    var entries: [Index.Entry] {
        var location = 0
        return parts.map { part in
            defer { location += part.length }
            return Index.Entry(key: part.key, part: part.part, location: location, length: part.length)
        }
    }

    var totalLength: Int { parts.reduce(0) { $0 + $1.length } }

    mutating func insert(_ subtree: Index.Subtree, at point: Index.InsertionPoint) {
        var flat: [(key: Int, part: Index.Part, length: Int)] = []
        func walk(_ node: Index.Subtree) {
            flat.append((node.key, .preamble, node.lengths.preamble))
            flat.append((node.key, .content, node.lengths.content))
            node.children.forEach(walk)
            flat.append((node.key, .postamble, node.lengths.postamble))
        }
        walk(subtree)
        let at: Int
        switch point {
        case .start: at = 0
        case .after(let key): at = position(of: key, .postamble)! + 1
        case .firstChild(let key): at = position(of: key, .content)! + 1
        }
        parts.insert(contentsOf: flat, at: at)
    }

    mutating func remove(_ key: Int) -> [Int] {
        let first = position(of: key, .preamble)!
        let last = position(of: key, .postamble)!
        let removed = parts[first...last].filter { $0.part == .preamble }.map(\.key)
        parts.removeSubrange(first...last)
        return removed
    }
}

@Suite struct PositionIndexModelTests {
    static func randomSubtree(_ nextKey: inout Int, depth: Int, _ generator: inout SeededGenerator) -> Index.Subtree {
        defer { nextKey += 1 }
        let key = nextKey
        nextKey += 1
        var children: [Index.Subtree] = []
        if depth < 3 {
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                children.append(randomSubtree(&nextKey, depth: depth + 1, &generator))
            }
        }
        let lengths = Index.Lengths(
            preamble: Int.random(in: 0...1, using: &generator) * Int.random(in: 0...3, using: &generator),
            content: Int.random(in: 0...8, using: &generator),
            postamble: Int.random(in: 0...1, using: &generator)
        )
        return Index.Subtree(key: key, lengths: lengths, children: children)
    }

    @Test(arguments: [1, 2])
    func agreesWithANaiveModel(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var index = Index()
        var model = NaiveIndex()
        var nextKey = 1
        for step in 0..<3_000 {
            let keys = model.parts.filter { $0.part == .preamble }.map(\.key)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...2:
                let subtree = Self.randomSubtree(&nextKey, depth: Int.random(in: 1...3, using: &generator), &generator)
                let point: Index.InsertionPoint
                if keys.isEmpty || Int.random(in: 0..<8, using: &generator) == 0 {
                    point = .start
                } else if Bool.random(using: &generator) {
                    point = .after(keys.randomElement(using: &generator)!)
                } else {
                    point = .firstChild(of: keys.randomElement(using: &generator)!)
                }
                try index.insert(subtree, at: point)
                model.insert(subtree, at: point)
            case 3 where !keys.isEmpty:
                let key = keys.randomElement(using: &generator)!
                #expect(try index.remove(key) == model.remove(key))
            case 4...6 where !keys.isEmpty:
                let key = keys.randomElement(using: &generator)!
                let part = Index.Part.allCases.randomElement(using: &generator)!
                let length = Int.random(in: 0...12, using: &generator)
                try index.setLength(length, of: key, part: part)
                model.parts[model.position(of: key, part)!].length = length
            default:
                break
            }
            // Queries against the model after every step.
            #expect(index.totalLength == model.totalLength, "step \(step)")
            let modelEntries = model.entries
            for _ in 0..<3 where !model.parts.isEmpty {
                let location = Int.random(in: 0...model.totalLength, using: &generator)
                let touching = modelEntries.filter { $0.location <= location && location <= $0.location + $0.length }
                #expect(try index.entries(touching: location) == touching, "step \(step) location \(location)")
                let end = Int.random(in: location...model.totalLength, using: &generator)
                let overlapping = location == end ? touching
                    : modelEntries.filter { $0.length > 0 && $0.location < end && $0.location + $0.length > location }
                #expect(try index.entries(overlapping: location..<end) == overlapping)
            }
            if let key = model.parts.randomElement(using: &generator)?.key {
                for part in Index.Part.allCases {
                    #expect(try index.location(of: key, part: part) == model.location(ofPartAt: model.position(of: key, part)!))
                }
                let start = model.location(ofPartAt: model.position(of: key, .preamble)!)
                let post = model.position(of: key, .postamble)!
                #expect(try index.range(of: key) == start..<(model.location(ofPartAt: post) + model.parts[post].length))
                let content = model.position(of: key, .content)!
                #expect(try index.childrenRange(of: key) == (model.location(ofPartAt: content) + model.parts[content].length)..<model.location(ofPartAt: post))
            }
            if step % 250 == 0 { #expect(index.allEntries == modelEntries) }
        }
        #expect(index.allEntries == model.entries)
        #expect(index.nodeCount == model.parts.count / 3)
    }

    @Test func buildsFromADocumentInOnePass() throws {
        let document = Index.Subtree(key: 0, lengths: .init(), children: [
            .init(key: 1, lengths: .init(content: 0, postamble: 1), children: [
                .init(key: 2, lengths: .init(content: 6)), .init(key: 3, lengths: .init(content: 5)),
            ]),
            .init(key: 4, lengths: .init(postamble: 1), children: [.init(key: 5, lengths: .init(content: 38))]),
            .init(key: 6, lengths: .init(postamble: 1)),
            .init(key: 7, lengths: .init(), children: [.init(key: 8, lengths: .init(content: 11))]),
        ])
        let index = try Index(document: document)
        #expect(index.totalLength == 63)
        #expect(try index.location(of: 3, part: .content) == 6)
        #expect(try index.location(of: 5, part: .content) == 12)
        #expect(try index.range(of: 6) == 51..<52)
        #expect(try index.entries(touching: 6).map { "\($0.key)\($0.part)" } == ["2content", "2postamble", "3preamble", "3content"])
        #expect(try index.entries(touching: 51).map { "\($0.key)\($0.part)" } == ["4postamble", "6preamble", "6content", "6postamble"])
    }

    /// A batch is refused at its first key already present (or repeated in it) after its parts
    /// were placed: everything placed is taken back, the key that was present keeps its parts,
    /// and the slots given back serve the next insert.
    @Test func aRefusedBatchIsTakenBackWhole() throws {
        var index = try Index(document: .init(key: 0, lengths: .init(), children: [.init(key: 1, lengths: .init(content: 3))]))
        let before = index.allEntries
        let batch: [Index.Subtree] = [.init(key: 10, lengths: .init(content: 2)), .init(key: 11, lengths: .init(content: 4), children: [.init(key: 1, lengths: .init(content: 9))])]
        #expect(throws: PositionIndexError.duplicateKey("1")) { try index.insert(batch, at: .after(1)) }
        #expect(throws: PositionIndexError.duplicateKey("12")) {
            try index.insert([.init(key: 12, lengths: .init(content: 1)), .init(key: 13, lengths: .init()), .init(key: 12, lengths: .init())], at: .start)
        }
        #expect(index.allEntries == before)
        #expect(!index.contains(10) && !index.contains(11) && !index.contains(12) && !index.contains(13))
        #expect(try index.lengths(of: 1) == .init(content: 3))
        try index.insert([.init(key: 10, lengths: .init(content: 2)), .init(key: 11, lengths: .init(content: 4), children: [.init(key: 14, lengths: .init(content: 5))])], at: .after(1))
        try index.insert(.init(key: 15, lengths: .init(preamble: 1, content: 6)), at: .start)
        #expect(index.nodeCount == 6)
        #expect(index.totalLength == 21)
        #expect(try index.range(of: 11) == 12..<21)
        #expect(try index.location(of: 14, part: .content) == 16)
        #expect(index.allEntries.map(\.key) == [15, 15, 15, 0, 0, 1, 1, 1, 10, 10, 10, 11, 11, 14, 14, 14, 11, 0])
    }

    @Test func badRequestsThrowAndChangeNothing() throws {
        var index = try Index(document: .init(key: 0, lengths: .init(), children: [.init(key: 1, lengths: .init(content: 3))]))
        let before = index.allEntries
        #expect(throws: PositionIndexError.keyNotFound("9")) { try index.location(of: 9, part: .content) }
        #expect(throws: PositionIndexError.duplicateKey("1")) { try index.insert(.init(key: 1, lengths: .init()), at: .start) }
        #expect(throws: PositionIndexError.duplicateKey("5")) {
            try index.insert(.init(key: 5, lengths: .init(), children: [.init(key: 5, lengths: .init())]), at: .start)
        }
        #expect(throws: PositionIndexError.locationOutOfBounds(4, length: 3)) { try index.entries(touching: 4) }
        #expect(throws: PositionIndexError.rangeOutOfBounds(2..<5, length: 3)) { try index.entries(overlapping: 2..<5) }
        #expect(throws: PositionIndexError.negativeLength(-1)) { try index.setLength(-1, of: 1, part: .content) }
        #expect(throws: PositionIndexError.keyNotFound("7")) { try index.insert(.init(key: 8, lengths: .init()), at: .after(7)) }
        #expect(index.allEntries == before)
    }

    @Test func copiesAreIndependent() throws {
        var original = try Index(document: .init(key: 0, lengths: .init(), children: [.init(key: 1, lengths: .init(content: 3))]))
        var copy = original
        try copy.setLength(10, of: 1, part: .content)
        try original.insert(.init(key: 2, lengths: .init(content: 2)), at: .after(1))
        #expect(original.totalLength == 5)
        #expect(copy.totalLength == 10)
        #expect(!copy.contains(2))
    }
}
