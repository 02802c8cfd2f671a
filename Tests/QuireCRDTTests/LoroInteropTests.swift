import Foundation
import Testing
@testable import QuireCRDT

/// Interop with a real Loro peer (loro==1.17.1 from PyPI) through Loro's JSON updates. Needs
/// `QUIRE_LORO_PYTHON` (set by `make test`, which creates `.venv-interop`); skipped otherwise.
@Suite(.enabled(if: LoroPeer.python != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test creates .venv-interop and sets it)"))
struct LoroInteropTests {
    static let body = ContainerID.root(name: "body", type: .text)
    static let items = ContainerID.root(name: "items", type: .list)
    static let meta = ContainerID.root(name: "meta", type: .map)
    static let blocks = ContainerID.root(name: "blocks", type: .tree)
    static let tasks = ContainerID.root(name: "tasks", type: .movableList)
    static let hits = ContainerID.root(name: "hits", type: .counter)
    /// The expand rules loro_peer.py configures.
    static let styles: [(String, ExpandType)] = [("bold", .after), ("italic", .both), ("comment", .before), ("link", .none)]

    static func document(peer: PeerID) -> CRDTDocument {
        var doc = CRDTDocument(peer: peer)
        for (key, expand) in styles { doc.setExpand(expand, forKey: key) }
        return doc
    }

    /// Expects the Loro document `name` to hold what `doc` holds: deep value and every text's delta.
    static func expectSame(_ doc: CRDTDocument, _ loro: LoroPeer, _ name: String, _ context: String) throws {
        let texts = Comparable.texts(doc)
        let state = try loro.state(name, texts: texts)
        #expect(Comparable.deep(state.deep) == Comparable.deep(doc.deepValue), "\(context): deep values differ\nloro:  \(CRDTValue.json(state.deep))\nswift: \(doc.deepValueJSON())")
        for c in texts {
            #expect(state.deltas[c.description] == Comparable.delta(doc, c), "\(context): deltas of \(c) differ")
        }
        #expect(state.version == doc.version, "\(context): versions differ")
    }

    // MARK: one direction at a time

    @Test func swiftEditsLoroImports() throws {
        let loro = try LoroPeer()
        var doc = Self.document(peer: 101)
        try doc.insertText("Hello world", at: 0, in: Self.body)
        doc.commit()
        try doc.mark(0..<5, key: "bold", value: .bool(true), in: Self.body)
        try doc.mark(6..<11, key: "link", value: .string("https://loro.dev"), in: Self.body)
        // Typing at the end of bold joins it (expand after); at the end of the link it does not.
        try doc.insertText("!", at: 5, in: Self.body)
        try doc.insertText("?", at: 12, in: Self.body)
        try doc.delete(at: 1, count: 2, in: Self.body)
        try doc.unmark(0..<2, key: "bold", in: Self.body)
        try doc.insert([.int(1), .string("two"), .bool(true)], at: 0, in: Self.items)
        try doc.delete(at: 1, count: 1, in: Self.items)
        try doc.set("title", .string("Notes"), in: Self.meta)
        let caption = try doc.setContainer("caption", .text, in: Self.meta)
        try doc.insertText("nested 😀", at: 0, in: caption)
        try doc.mark(0..<6, key: "italic", value: .bool(true), in: caption)
        let n1 = try doc.createNode(in: Self.blocks)
        let n2 = try doc.createNode(in: Self.blocks)
        let n3 = try doc.createNode(under: n1, in: Self.blocks)
        try doc.set("type", .string("paragraph"), in: doc.properties(of: n1))
        try doc.moveNode(n2, under: n1, at: 0, in: Self.blocks)
        try doc.createNode(in: Self.blocks)
        try doc.deleteNode(n3, in: Self.blocks)
        doc.commit()
        try loro.create("a", peer: 202)
        try loro.importJSON("a", doc.exportJSONUpdates().jsonString())
        try Self.expectSame(doc, loro, "a", "after import")
        // Backspace over several characters, then a second update from the version Loro has.
        let sent = doc.version
        for p in stride(from: 9, through: 6, by: -1) { try doc.delete(at: p, count: 1, in: Self.body) }
        try doc.insertText("X", at: 0, in: Self.body)
        doc.commit()
        try loro.importJSON("a", doc.exportJSONUpdates(from: sent).jsonString())
        try Self.expectSame(doc, loro, "a", "after the second update")
    }

    @Test func loroEditsSwiftImports() throws {
        let loro = try LoroPeer()
        try loro.create("a", peer: 303)
        let reply = try loro.edit("a", [
            ["op": "insert", "text": "Hello world", "pos": 0, "container": "body"],
            ["op": "mark", "start": 0, "end": 5, "key": "bold", "value": true, "container": "body"],
            ["op": "mark", "start": 6, "end": 11, "key": "link", "value": "https://loro.dev", "container": "body"],
            ["op": "insert", "text": "!", "pos": 5, "container": "body"],
            ["op": "insert", "text": "?", "pos": 12, "container": "body"],
            ["op": "delete", "pos": 1, "len": 2, "container": "body"],
            ["op": "list_insert", "pos": 0, "value": "x", "container": "items"],
            ["op": "map_set", "key": "title", "value": "Notes", "container": "meta"],
            ["op": "map_text", "key": "caption", "container": "meta"],
            ["op": "tree_create", "parent": .null, "index": .null, "container": "blocks"],
            ["op": "tree_create", "parent": .null, "index": 0, "container": "blocks"],
        ])
        let ids = reply["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        try loro.edit("a", [
            ["op": "tree_meta", "node": .string(ids[0]), "key": "type", "value": "h1", "container": "blocks"],
            ["op": "tree_move", "node": .string(ids[1]), "parent": .string(ids[0]), "index": 0, "container": "blocks"],
        ])
        try loro.randomEdits("a", seed: 7, count: 80)
        var doc = Self.document(peer: 404)
        try doc.importJSONUpdates(loro.exportJSON("a"))
        try Self.expectSame(doc, loro, "a", "after import")
        let have = doc.version
        try loro.randomEdits("a", seed: 8, count: 40)
        try doc.importJSONUpdates(loro.exportJSON("a", from: have))
        try Self.expectSame(doc, loro, "a", "after the second update")
    }

    /// Concurrent typing at the same spot, a concurrent mark whose edge the other side types at,
    /// and concurrent deletes of the same characters: both sides order and style alike.
    @Test func concurrentEditsAtTheSameSpot() throws {
        let loro = try LoroPeer()
        var doc = Self.document(peer: 5)
        try doc.insertText("abcdef", at: 0, in: Self.body)
        doc.commit()
        try loro.create("b", peer: 6)
        try loro.importJSON("b", doc.exportJSONUpdates().jsonString())
        let base = doc.version
        try doc.insertText("XX", at: 3, in: Self.body)
        try doc.mark(1..<3, key: "bold", value: .bool(true), in: Self.body)
        try doc.delete(at: 0, count: 1, in: Self.body)
        doc.commit()
        try loro.edit("b", [
            ["op": "insert", "text": "YY", "pos": 3, "container": "body"],
            ["op": "insert", "text": "Z", "pos": 1, "container": "body"],
            ["op": "mark", "start": 2, "end": 5, "key": "link", "value": "u", "container": "body"],
            ["op": "delete", "pos": 0, "len": 1, "container": "body"],
        ])
        let fromLoro = try loro.exportJSON("b", from: base)
        try loro.importJSON("b", doc.exportJSONUpdates(from: base).jsonString())
        try doc.importJSONUpdates(fromLoro)
        try Self.expectSame(doc, loro, "b", "after exchanging concurrent edits")
        // Typing at the edges of the merged marks afterwards still agrees.
        let merged = doc.version
        try doc.insertText("!", at: 3, in: Self.body)
        doc.commit()
        try loro.importJSON("b", doc.exportJSONUpdates(from: merged).jsonString())
        try Self.expectSame(doc, loro, "b", "after typing at a mark edge")
    }

    @Test func wholeLoroHistoryOfARandomSession() throws {
        let loro = try LoroPeer()
        for seed in 0..<UInt64(10) {
            try loro.create("s\(seed)", peer: 1000 + seed)
            try loro.randomEdits("s\(seed)", seed: seed, count: 150)
            var doc = Self.document(peer: 1)
            try doc.importJSONUpdates(loro.exportJSON("s\(seed)"))
            try Self.expectSame(doc, loro, "s\(seed)", "seed \(seed)")
            try loro.drop("s\(seed)")
        }
    }

    // MARK: concurrent sessions

    static var seeds: [UInt64] {
        let long = ProcessInfo.processInfo.environment["QUIRE_LONG_SEEDS"].flatMap { Int($0) }
        return (0..<UInt64(long ?? 200)).map { $0 }
    }

    /// One participant: a Swift document or a document in the Loro peer.
    enum Participant {
        case swift(CRDTDocument)
        case loro(String)
    }

    /// Random sessions of 2 to 4 peers mixing Swift and Loro: concurrent random edits on every
    /// side (text at the same spots, deletes, marks, map writes with child texts, list edits,
    /// tree creates/moves/deletes and node meta), updates exchanged in random order, with
    /// duplicates and late deliveries. Everyone must end with the same document.
    @Test func concurrentSessionsConverge() throws {
        let loro = try LoroPeer()
        for seed in Self.seeds {
            do {
                try Self.session(seed: seed, loro: loro)
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    /// What a session's peers exchange.
    enum Transport {
        /// Loro's JSON updates.
        case json
        /// Loro's binary updates and, now and then, a whole snapshot.
        case binary
    }

    /// One message between peers.
    enum Message {
        case json(String)
        case bytes([UInt8])
    }

    /// A random session. `all` adds the movable list and the counter to the edits; `peers`
    /// bounds the number of participants.
    static func session(seed: UInt64, loro: LoroPeer, transport: Transport = .json, all: Bool = false, peers peerRange: Range<Int> = 2..<5) throws {
        var rng = SeededRNG(seed: seed)
        let count = rng.int(peerRange)
        var peers: [Participant] = []
        for i in 0..<count {
            // At least one of each kind.
            let isLoro = i == 0 ? true : (i == 1 ? false : rng.chance(0.5))
            let peer = PeerID(i + 1) * 1_000_003 + seed
            if isLoro {
                let name = "p\(seed)-\(i)"
                try loro.create(name, peer: peer)
                peers.append(.loro(name))
            } else {
                peers.append(.swift(document(peer: peer)))
            }
        }
        // Messages sent so far, and each peer's inbox of message indexes.
        var messages: [Message] = []
        var inbox = Array(repeating: [Int](), count: count)
        var lastSent = Array(repeating: Array(repeating: VersionVector(), count: count), count: count)
        let rounds = rng.int(3..<7)
        for round in 0..<rounds {
            for i in 0..<count where rng.chance(0.8) {
                let edits = rng.int(1..<8)
                switch peers[i] {
                case .loro(let name): try loro.randomEdits(name, seed: seed &* 1_000 &+ UInt64(round * 10 + i), count: edits, all: all)
                case .swift(var doc):
                    for _ in 0..<edits { try randomEdit(&doc, &rng, all: all) }
                    doc.commit()
                    peers[i] = .swift(doc)
                }
            }
            // Each peer sends what it has beyond what it last sent to some others.
            for i in 0..<count {
                for j in 0..<count where j != i && rng.chance(0.6) {
                    let from = lastSent[i][j]
                    let snapshot = transport == .binary && rng.chance(0.15)
                    let message: Message
                    let version: VersionVector
                    switch (peers[i], transport) {
                    case (.loro(let name), .json):
                        message = .json(try loro.exportJSON(name, from: from))
                        version = try loro.state(name, texts: []).version
                    case (.loro(let name), .binary):
                        message = .bytes(try loro.exportBinary(name, snapshot ? .snapshot : .updates(from: from)))
                        version = try loro.state(name, texts: []).version
                    case (.swift(let doc), .json):
                        message = .json(doc.exportJSONUpdates(from: from).jsonString())
                        version = doc.version
                    case (.swift(let doc), .binary):
                        message = .bytes(snapshot ? doc.exportLoroSnapshot() : doc.exportLoroUpdates(from: from))
                        version = doc.version
                    }
                    lastSent[i][j] = version
                    messages.append(message)
                    inbox[j].append(messages.count - 1)
                }
            }
            // Deliver part of each inbox in random order; sometimes a duplicate of an old message.
            for j in 0..<count {
                inbox[j].shuffle(using: &rng)
                let now = rng.int(0..<(inbox[j].count + 1))
                var batch = Array(inbox[j].prefix(now))
                inbox[j].removeFirst(now)
                if !messages.isEmpty && rng.chance(0.3) { batch.append(rng.int(0..<messages.count)) }
                for m in batch { try deliver(messages[m], to: j, &peers, loro) }
            }
        }
        // Flush: everything left, then everyone's full history to everyone.
        for j in 0..<count {
            for m in inbox[j] { try deliver(messages[m], to: j, &peers, loro) }
        }
        var full: [Message] = []
        for p in peers {
            switch (p, transport) {
            case (.loro(let name), .json): full.append(.json(try loro.exportJSON(name)))
            case (.loro(let name), .binary): full.append(.bytes(try loro.exportBinary(name, .updates(from: VersionVector()))))
            case (.swift(let doc), .json): full.append(.json(doc.exportJSONUpdates().jsonString()))
            case (.swift(let doc), .binary): full.append(.bytes(doc.exportLoroUpdates()))
            }
        }
        for j in 0..<count {
            for json in full.shuffled(using: &rng) { try deliver(json, to: j, &peers, loro) }
        }
        // Everyone holds the same document.
        guard let reference = peers.lazy.compactMap({ p -> CRDTDocument? in if case .swift(let d) = p { return d }; return nil }).first else { return }
        for (i, p) in peers.enumerated() {
            switch p {
            case .swift(let doc):
                #expect(Comparable.deep(doc.deepValue) == Comparable.deep(reference.deepValue), "seed \(seed): swift peer \(i) differs")
                for c in Comparable.texts(reference) {
                    #expect(Comparable.delta(doc, c) == Comparable.delta(reference, c), "seed \(seed): swift peer \(i), delta of \(c)")
                }
                #expect(doc.version == reference.version, "seed \(seed): swift peer \(i) version")
            case .loro(let name):
                try expectSame(reference, loro, name, "seed \(seed): loro peer \(i)")
                try loro.drop(name)
            }
        }
    }

    static func deliver(_ message: Message, to j: Int, _ peers: inout [Participant], _ loro: LoroPeer) throws {
        switch (peers[j], message) {
        case (.loro(let name), .json(let json)): try loro.importJSON(name, json)
        case (.loro(let name), .bytes(let bytes)): try loro.importBinary(name, bytes)
        case (.swift(var doc), .json(let json)):
            try doc.importJSONUpdates(json)
            peers[j] = .swift(doc)
        case (.swift(var doc), .bytes(let bytes)):
            try doc.importLoro(bytes)
            peers[j] = .swift(doc)
        }
    }

    /// The Swift side of the random edits (the same mix loro_peer.py makes); with `all`, the
    /// movable list and the counter too.
    static func randomEdit(_ doc: inout CRDTDocument, _ rng: inout SeededRNG, all: Bool = false) throws {
        let words = ["a", "b", "c", " ", "\n", "é", "中", "😀", "👍🏽", "xy"]
        if all && rng.chance(0.3) {
            let size = doc.length(of: tasks)
            let r = rng.int(0..<10)
            if r == 0 {
                try doc.increment(hits, by: [1, 2, -1, 0.5][rng.int(0..<4)])
            } else if r < 4 || size == 0 {
                if rng.chance(0.15) {
                    let child = try doc.insertContainer(.text, at: rng.int(0..<(size + 1)), in: tasks)
                    try doc.insertText(words[rng.int(0..<words.count)], at: 0, in: child)
                } else {
                    try doc.insert([rng.chance(0.5) ? .int(Int64(rng.int(0..<100))) : .string("t\(rng.int(0..<9))")], at: rng.int(0..<(size + 1)), in: tasks)
                }
            } else if r < 6 {
                let a = rng.int(0..<size)
                try doc.delete(at: a, count: rng.int(1..<(min(2, size - a) + 1)), in: tasks)
            } else if r < 8 {
                let a = rng.int(0..<size), b = rng.int(0..<size)
                if a != b { try doc.move(from: a, to: b, in: tasks) }
            } else {
                try doc.set(rng.chance(0.5) ? .int(Int64(rng.int(0..<100))) : .string("s\(rng.int(0..<9))"), at: rng.int(0..<size), in: tasks)
            }
            return
        }
        let n = doc.length(of: body)
        switch rng.int(0..<100) {
        case 0..<30:
            var s = ""
            for _ in 0..<rng.int(1..<4) { s += words[rng.int(0..<words.count)] }
            try doc.insertText(s, at: rng.int(0..<(n + 1)), in: body)
        case 30..<42 where n > 0:
            let a = rng.int(0..<n)
            try doc.delete(at: a, count: rng.int(1..<(min(4, n - a) + 1)), in: body)
        case 42..<55 where n > 0:
            let a = rng.int(0..<n)
            let b = rng.int((a + 1)..<(n + 1))
            let key = styles[rng.int(0..<styles.count)].0
            if rng.chance(0.3) {
                try doc.unmark(a..<b, key: key, in: body)
            } else {
                try doc.mark(a..<b, key: key, value: key == "link" ? .string("u\(rng.int(0..<3))") : .bool(true), in: body)
            }
        case 55..<63:
            let size = doc.length(of: items)
            if size > 0 && rng.chance(0.35) {
                let a = rng.int(0..<size)
                try doc.delete(at: a, count: rng.int(1..<(min(3, size - a) + 1)), in: items)
            } else {
                try doc.insert([rng.chance(0.5) ? .int(Int64(rng.int(0..<100))) : .string("v\(rng.int(0..<9))")], at: rng.int(0..<(size + 1)), in: items)
            }
        case 63..<72:
            let key = "k\(rng.int(0..<4))"
            switch rng.int(0..<4) {
            case 0: if doc.get(key, in: meta) != nil { try doc.removeKey(key, in: meta) }
            case 1:
                let child = try doc.setContainer(key, .text, in: meta)
                try doc.insertText(words[rng.int(0..<words.count)], at: 0, in: child)
            default: try doc.set(key, rng.chance(0.5) ? .int(Int64(rng.int(0..<9))) : .string(words[rng.int(0..<words.count)]), in: meta)
            }
        default:
            let nodes = allNodes(doc)
            let r = rng.int(0..<10)
            if r < 4 || nodes.isEmpty {
                let parent = nodes.isEmpty || rng.chance(0.3) ? nil : nodes[rng.int(0..<nodes.count)]
                try doc.createNode(under: parent, at: rng.int(0..<(doc.children(of: parent, in: blocks).count + 1)), in: blocks)
            } else if r < 8 {
                let node = nodes[rng.int(0..<nodes.count)]
                let parent = rng.chance(0.2) ? nil : nodes[rng.int(0..<nodes.count)]
                if let parent, try isAncestor(node, of: parent, doc) { return }
                let siblings = doc.children(of: parent, in: blocks).filter { $0 != node }
                try doc.moveNode(node, under: parent, at: rng.int(0..<(siblings.count + 1)), in: blocks)
            } else if r < 9 {
                try doc.deleteNode(nodes[rng.int(0..<nodes.count)], in: blocks)
            } else {
                try doc.set("type", .string(["p", "h1", "li"][rng.int(0..<3)]), in: doc.properties(of: nodes[rng.int(0..<nodes.count)]))
            }
        }
    }

    static func allNodes(_ doc: CRDTDocument) -> [TreeID] {
        var out: [TreeID] = []
        var stack: [TreeID?] = [nil]
        while let parent = stack.popLast() {
            for child in doc.children(of: parent, in: blocks) { out.append(child); stack.append(child) }
        }
        return out
    }

    static func isAncestor(_ node: TreeID, of other: TreeID, _ doc: CRDTDocument) throws -> Bool {
        var cur: TreeID? = other
        while let c = cur {
            if c == node { return true }
            cur = try doc.parent(of: c, in: blocks)
        }
        return false
    }
}
