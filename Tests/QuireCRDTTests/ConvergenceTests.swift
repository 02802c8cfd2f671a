import Foundation
import Testing
@testable import QuireCRDT

/// Random multi-peer sessions: text with Unicode and marks, list, map with nested containers,
/// tree with moves (cycles included); updates delivered in random order with duplicates and
/// delays. Every peer must converge, and each peer's event mirror must equal its document.
@Suite struct ConvergenceTests {
    static let text = ContainerID.root(name: "body", type: .text)
    static let list = ContainerID.root(name: "items", type: .list)
    static let map = ContainerID.root(name: "meta", type: .map)
    static let tree = ContainerID.root(name: "blocks", type: .tree)
    static let keys: [(String, ExpandType)] = [("bold", .after), ("link", .none), ("italic", .both), ("comment", .before)]

    static var seeds: [UInt64] {
        let long = ProcessInfo.processInfo.environment["QUIRE_LONG_SEEDS"].flatMap { Int($0) }
        return (0..<UInt64(long ?? 400)).map { $0 }
    }

    struct Peer {
        var doc: CRDTDocument
        var mirror = Mirror()
        var sent = VersionVector()
    }

    static func randomEdit(_ p: inout Peer, _ rng: inout SeededRNG) throws {
        var doc = p.doc
        let choice = rng.int(0..<100)
        switch choice {
        case 0..<30:
            // Text insert, sometimes in a nested text.
            let target = nestedText(doc, &rng) ?? text
            let len = doc.length(of: target)
            try doc.insertText(randomString(&rng), at: rng.int(0..<(len + 1)), in: target)
        case 30..<42:
            let len = doc.length(of: text)
            if len > 0 {
                let a = rng.int(0..<len)
                try doc.delete(at: a, count: rng.int(1..<(min(4, len - a) + 1)), in: text)
            }
        case 42..<55:
            let len = doc.length(of: text)
            if len > 0 {
                let a = rng.int(0..<len)
                let b = rng.int((a + 1)..<(len + 1))
                let (key, _) = keys[rng.int(0..<keys.count)]
                if rng.chance(0.3) {
                    try doc.unmark(a..<b, key: key, in: text)
                } else {
                    try doc.mark(a..<b, key: key, value: key == "link" ? .string("u\(rng.int(0..<3))") : .bool(true), in: text)
                }
            }
        case 55..<63:
            let len = doc.length(of: list)
            if len > 0 && rng.chance(0.35) {
                let a = rng.int(0..<len)
                try doc.delete(at: a, count: rng.int(1..<(min(3, len - a) + 1)), in: list)
            } else {
                try doc.insert([.int(Int64(rng.int(0..<100))), .string(randomString(&rng, maxScalars: 2))].prefix(rng.int(1..<3)).map { $0 },
                               at: rng.int(0..<(len + 1)), in: list)
            }
        case 63..<72:
            let key = "k\(rng.int(0..<4))"
            switch rng.int(0..<4) {
            case 0: try doc.removeKey(key, in: map)
            case 1: try doc.setContainer(key, .text, in: map)
            default: try doc.set(key, rng.chance(0.5) ? .int(Int64(rng.int(0..<9))) : .string(randomString(&rng, maxScalars: 2)), in: map)
            }
        default:
            let nodes = allNodes(doc)
            switch rng.int(0..<10) {
            case 0..<4:
                let parent = nodes.isEmpty || rng.chance(0.3) ? nil : nodes[rng.int(0..<nodes.count)]
                try doc.createNode(under: parent, at: rng.int(0..<(doc.children(of: parent, in: tree).count + 1)), in: tree)
            case 4..<8 where nodes.count >= 1:
                let node = nodes[rng.int(0..<nodes.count)]
                let parent = rng.chance(0.2) ? nil : nodes[rng.int(0..<nodes.count)]
                let before = fingerprint(doc)
                let index = rng.int(0..<(doc.children(of: parent, in: tree).count + 1))
                let result = Result { () throws(CRDTError) in try doc.moveNode(node, under: parent, at: index, in: tree) }
                if case .failure(let error) = result {
                    guard case .cyclicMove = error else { throw error }
                    #expect(fingerprint(doc) == before, "a rejected move must not change the document")
                }
            case 8 where nodes.count >= 1:
                try doc.deleteNode(nodes[rng.int(0..<nodes.count)], in: tree)
            default:
                if let node = nodes.first { try doc.set("type", .string("p\(rng.int(0..<3))"), in: doc.properties(of: node)) }
            }
        }
        p.doc = doc
    }

    static func nestedText(_ doc: CRDTDocument, _ rng: inout SeededRNG) -> ContainerID? {
        guard rng.chance(0.25) else { return nil }
        let nested = doc.map(map).values.compactMap { v -> ContainerID? in
            if case .container(let c) = v, c.type == .text { return c }
            return nil
        }.sorted()
        return nested.isEmpty ? nil : nested[rng.int(0..<nested.count)]
    }

    static func allNodes(_ doc: CRDTDocument, _ parent: TreeID? = nil) -> [TreeID] {
        doc.children(of: parent, in: tree).flatMap { [$0] + allNodes(doc, $0) }
    }

    static func session(seed: UInt64, peers count: Int, steps: Int) throws -> [Peer] {
        var rng = SeededRNG(seed: seed)
        var peers: [Peer] = (0..<count).map { i in
            var d = CRDTDocument(peer: PeerID(i + 1) &* 0x9E37_79B9)
            d.recordsEvents = true
            for (k, e) in keys { d.setExpand(e, forKey: k) }
            return Peer(doc: d)
        }
        var inbox: [(to: Int, bytes: [UInt8])] = []
        for _ in 0..<steps {
            let i = rng.int(0..<count)
            for _ in 0..<rng.int(1..<4) { try randomEdit(&peers[i], &rng) }
            peers[i].mirror.apply(peers[i].doc.commit())
            if rng.chance(0.5) {
                // Send what is new to a random peer (messages may be delayed and duplicated).
                let bytes = peers[i].doc.exportUpdates(since: peers[i].sent)
                peers[i].sent = peers[i].doc.version
                let to = rng.int(0..<count)
                inbox.append((to, bytes))
                if rng.chance(0.2) { inbox.append((rng.int(0..<count), bytes)) }
            }
            while !inbox.isEmpty && rng.chance(0.6) {
                let m = inbox.remove(at: rng.int(0..<inbox.count))
                let status = try peers[m.to].doc.importUpdates(m.bytes)
                peers[m.to].mirror.apply(status.event)
            }
        }
        // Final anti-entropy: everyone sends everything to everyone, in a shuffled order.
        var all: [(Int, [UInt8])] = []
        for i in 0..<count { for j in 0..<count where i != j { all.append((j, peers[i].doc.exportUpdates())) } }
        all.shuffle(using: &rng)
        for (to, bytes) in all { peers[to].mirror.apply(try peers[to].doc.importUpdates(bytes).event) }
        for m in inbox { peers[m.to].mirror.apply(try peers[m.to].doc.importUpdates(m.bytes).event) }
        return peers
    }

    @Test(arguments: seeds)
    func peersConvergeAndMirrorsMatch(seed: UInt64) throws {
        let peers = try Self.session(seed: seed, peers: 3 + Int(seed % 3), steps: 30)
        let first = fingerprint(peers[0].doc)
        for p in peers {
            #expect(fingerprint(p.doc) == first, "seed \(seed): peer \(p.doc.peer) diverged")
            #expect(p.doc.version == peers[0].doc.version)
            let diffs = p.mirror.differences(from: p.doc)
            #expect(diffs.isEmpty, "seed \(seed) peer \(p.doc.peer): \(diffs)")
        }
        // A snapshot carries everything: a loaded copy looks the same and keeps syncing.
        let loaded = try CRDTDocument.load(snapshot: peers[0].doc.exportSnapshot(), peer: 77)
        #expect(fingerprint(loaded) == first)
    }
}
