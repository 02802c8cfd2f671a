import Testing
@testable import QuireCRDT

@Suite struct SyncTests {
    static let t = ContainerID.root(name: "body", type: .text)

    /// A small document using every container kind, and its blobs.
    static func sample() throws -> CRDTDocument {
        let peers = try ConvergenceTests.session(seed: 42, peers: 3, steps: 12)
        return peers[0].doc
    }

    enum Mutation: CaseIterable { case flip, truncate, insert, erase }

    static func mutate(_ bytes: [UInt8], _ rng: inout SeededRNG, reseal: Bool) -> [UInt8] {
        var b = bytes
        switch Mutation.allCases[rng.int(0..<4)] {
        case .flip: for _ in 0..<rng.int(1..<4) { b[rng.int(0..<b.count)] ^= UInt8(rng.int(1..<256)) }
        case .truncate: b = Array(b.prefix(rng.int(0..<b.count)))
        case .insert: b.insert(UInt8(rng.int(0..<256)), at: rng.int(0..<(b.count + 1)))
        case .erase: if !b.isEmpty { b.remove(at: rng.int(0..<b.count)) }
        }
        if reseal && b.count > 6 {
            // Recompute the checksum so the decoder and validator see the hostile body.
            let crc = CRC32.checksum(b, count: b.count - 4)
            for i in 0..<4 { b[b.count - 4 + i] = UInt8((crc >> (8 * UInt32(i))) & 0xFF) }
        }
        return b
    }

    @Test func tenThousandMutatedBlobsNeverCrashNorChangeTheDocument() throws {
        let source = try Self.sample()
        let blobs = [source.exportUpdates(), source.exportSnapshot()]
        var target = CRDTDocument(peer: 99)
        try target.insertText("keep", at: 0, in: Self.t)
        target.commit()
        let before = fingerprint(target), version = target.version
        var rng = SeededRNG(seed: 2026)
        var rejected = 0, accepted = 0
        for i in 0..<10_000 {
            let reseal = i % 2 == 1
            let blob = Self.mutate(blobs[i % 2 == 0 ? 0 : 1 - (i / 2) % 2], &rng, reseal: reseal)
            var copy = target
            do {
                try copy.importUpdates(blob)
                accepted += 1
                #expect(reseal, "a blob with a broken checksum was accepted")
                // What was accepted must round-trip through a snapshot.
                let reloaded = Result { () throws(CRDTError) in try CRDTDocument.load(snapshot: copy.exportSnapshot(), peer: 6) }
                if case .failure(let e) = reloaded { Issue.record("accepted import does not round-trip: \(e)") }
            } catch {
                rejected += 1
                #expect(fingerprint(copy) == before)
                #expect(copy.version == version)
            }
            if i % 3 == 0 {
                // Loading must not crash; damaged blobs give a typed error.
                let loaded = Result { () throws(CRDTError) in try CRDTDocument.load(snapshot: blob, peer: 5) }
                if case .success = loaded { #expect(reseal, "a snapshot with a broken checksum loaded") }
            }
        }
        #expect(rejected + accepted == 10_000)
        #expect(rejected > 9_000)
        #expect(fingerprint(target) == before)
    }

    @Test func importingInAnyOrderConverges() throws {
        var a = CRDTDocument(peer: 1)
        var updates: [[UInt8]] = []
        for i in 0..<20 {
            let v = a.version
            try a.insertText("w\(i) ", at: a.length(of: Self.t) / 2, in: Self.t)
            a.commit()
            updates.append(a.exportUpdates(since: v))
        }
        var rng = SeededRNG(seed: 7)
        for _ in 0..<20 {
            var b = CRDTDocument(peer: 2)
            var order = updates + updates.prefix(5)
            order.shuffle(using: &rng)
            for u in order { try b.importUpdates(u) }
            #expect(b.text(Self.t) == a.text(Self.t))
            #expect(b.version == a.version)
        }
    }

    @Test func snapshotOfAnOtherDocImportsIntoANonEmptyDocument() throws {
        var a = CRDTDocument(peer: 1)
        try a.insertText("abc", at: 0, in: Self.t); a.commit()
        var b = try CRDTDocument.load(snapshot: a.exportSnapshot(), peer: 2)
        try b.insertText("X", at: 1, in: Self.t); b.commit()
        try a.insertText("Y", at: 3, in: Self.t); a.commit()
        try a.importUpdates(b.exportSnapshot())
        try b.importUpdates(a.exportSnapshot())
        #expect(a.text(Self.t) == "aXbcY")
        #expect(b.text(Self.t) == a.text(Self.t))
    }

    @Test func eventsCarryPathsToNestedContainers() throws {
        var d = CRDTDocument(peer: 1)
        d.recordsEvents = true
        let root = ContainerID.root(name: "doc", type: .map)
        let list = try d.setContainer("blocks", .list, in: root)
        _ = try d.insertContainer(.map, at: 0, in: list)
        let para = try d.insertContainer(.map, at: 1, in: list)
        let text = try d.setContainer("text", .text, in: para)
        d.commit()
        try d.insertText("hi", at: 0, in: text)
        let committed = d.commit()
        let event = try #require(committed)
        #expect(event.origin == .local)
        let e = try #require(event.events.first)
        #expect(e.target == text)
        #expect(e.pathContainers == [root, list, para])
        #expect(e.path == [.key("blocks"), .index(1), .key("text")])
        #expect(e.diff == .text([.insert("hi", attributes: [:])]))
        var other = CRDTDocument(peer: 2)
        other.recordsEvents = true
        let status = try other.importUpdates(d.exportUpdates())
        var mirror = Mirror()
        mirror.apply(status.event)
        #expect(status.event?.origin == .import)
        #expect(mirror.differences(from: other).isEmpty)
    }

    @Test func backgroundImportsWhileReadingSnapshots() async throws {
        var writer = CRDTDocument(peer: 1)
        var updates: [[UInt8]] = []
        for i in 0..<200 {
            let v = writer.version
            try writer.insertText("\(i),", at: writer.length(of: Self.t), in: Self.t)
            writer.commit()
            updates.append(writer.exportUpdates(since: v))
        }
        let shared = SharedDocument(CRDTDocument(peer: 2))
        let stream = await shared.events()
        let blobs = updates
        let importer = Task.detached {
            for u in blobs { _ = try await shared.importUpdates(u) }
        }
        var lengths: [Int] = []
        // Read while the importer runs (bounded, so a failing importer cannot hang the test).
        for _ in 0..<100_000 where lengths.last != writer.length(of: Self.t) {
            let snap = await shared.snapshot()
            lengths.append(snap.length(of: Self.t))
            await Task.yield()
        }
        try await importer.value
        #expect(lengths.last == writer.length(of: Self.t))
        #expect(lengths == lengths.sorted())
        #expect(await shared.snapshot().text(Self.t) == writer.text(Self.t))
        var received = 0
        for await _ in stream { received += 1; if received == updates.count { break } }
        #expect(received == updates.count)
    }
}

@Suite struct ChecksumTests {
    /// The bitwise definition of CRC-32 (reflected, polynomial 0xEDB88320).
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    @Test func crc32MatchesTheCheckValueAndTheBitwiseDefinition() {
        #expect(CRC32.checksum(Array("123456789".utf8), count: 9) == 0xCBF4_3926)
        var rng = SeededRNG(seed: 3)
        for n in 0..<200 {
            let bytes = (0..<n).map { _ in UInt8(rng.int(0..<256)) }
            #expect(CRC32.checksum(bytes, count: bytes.count) == Self.reference(bytes))
        }
    }
}

@Suite struct CompressionTests {
    @Test(arguments: 0..<40)
    func lzRoundTripsAndRejectsDamage(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        var bytes: [UInt8] = []
        let alphabet = Array("the quick brown fox ".utf8)
        for _ in 0..<rng.int(0..<3000) {
            if !bytes.isEmpty && rng.chance(0.3) {
                let start = rng.int(0..<bytes.count)
                bytes.append(contentsOf: bytes[start..<min(bytes.count, start + rng.int(1..<300))])
            } else {
                bytes.append(rng.chance(0.1) ? UInt8(rng.int(0..<256)) : alphabet[rng.int(0..<alphabet.count)])
            }
        }
        let packed = LZ.compress(bytes)
        #expect(try LZ.decompress(packed[...], count: bytes.count) == bytes)
        for _ in 0..<20 {
            var bad = packed
            if !bad.isEmpty { bad[rng.int(0..<bad.count)] ^= UInt8(rng.int(1..<256)) }
            // Damage must give a typed error or some bytes, never a crash.
            let result = Result { () throws(CRDTError) in try LZ.decompress(bad[...], count: bytes.count) }
            if case .success(let out) = result { #expect(out.count == bytes.count) }
        }
        #expect(throws: CRDTError.self) { try LZ.decompress(packed[...], count: bytes.count + 1) }
    }
}

@Suite struct HostileUpdateTests {
    static let t = ContainerID.root(name: "body", type: .text)

    /// Seals hand-made changes into a well-formed update frame.
    static func blob(_ changes: [Change]) -> [UInt8] {
        var tables = EncodeTables()
        var body = ByteWriter()
        ChangeCodec.write(changes, &body, &tables, sequences: [:], inlineContent: true)
        return Frame.seal(.updates) { w in
            tables.write(&w)
            w.bytes.append(contentsOf: body.bytes)
        }
    }

    @Test func wellFormedButInvalidReferencesAreRejectedWithoutChanges() throws {
        var doc = CRDTDocument(peer: 1)
        try doc.insertText("abc", at: 0, in: Self.t)
        doc.commit()
        let before = fingerprint(doc), version = doc.version
        let cases: [OpContent] = [
            .delete([DelSpan(peer: 1, start: 1, length: 5)]),                              // runs past the text
            .delete([DelSpan(peer: 42, start: 0, length: 1)]),                             // unknown peer
            .insertText(left: OptID(peer: 1, counter: 9), right: .none, Array("x".unicodeScalars)), // unknown origin
            .mapSet(key: "k", value: .int(1)),                                             // map op on a text
        ]
        for content in cases {
            let change = Change(peer: 7, counter: 0, lamport: 3, deps: [OpID(peer: 1, counter: 2)],
                                ops: [Op(container: Self.t, counter: 0, content: content)], length: 1)
            var copy = doc
            #expect(throws: CRDTError.self) { try copy.importUpdates(Self.blob([change])) }
            #expect(fingerprint(copy) == before)
            #expect(copy.version == version)
        }
    }

    /// Issue 20: an update with a valid checksum whose peer or container table is empty, while
    /// its changes index into it, trapped on `count - 1` in the byte reader.
    @Test func indexesIntoAnEmptyTableAreTypedErrors() throws {
        var source = CRDTDocument(peer: 5)
        try source.insertText("x", at: 0, in: Self.t)
        source.commit()
        let blob = source.exportUpdates()
        let (_, reader) = try Frame.open(blob)
        var r = reader
        let tables = try EncodeTables.read(&r)
        #expect(tables.peers.count == 1 && tables.containers.count == 1)
        let changes = Array(blob[r.offset..<(blob.count - 4)])
        for (peers, containers) in [(0, 1), (1, 0), (0, 0)] {
            var emptied = tables
            if peers == 0 { emptied.peers = [] }
            if containers == 0 { emptied.containers = [] }
            let hostile = Frame.seal(.updates) { w in
                emptied.write(&w)
                w.bytes.append(contentsOf: changes)
            }
            var target = CRDTDocument(peer: 9)
            #expect(throws: CRDTError.self) { try target.importUpdates(hostile) }
            #expect(target.version == VersionVector())
        }
    }
}

@Suite struct HostileSnapshotTests {
    /// Re-seals a snapshot whose body was edited, so only the semantic checks can catch it.
    static func reseal(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        let crc = CRC32.checksum(b, count: b.count - 4)
        for i in 0..<4 { b[b.count - 4 + i] = UInt8((crc >> (8 * UInt32(i))) & 0xFF) }
        return b
    }

    @Test(arguments: 0..<UInt64(1000))
    func resealedSnapshotMutationsLoadOrThrowAndStayUsable(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        let source = try SyncTests.sample()
        // A small body (no compression) so mutations hit the structure directly.
        var doc = CRDTDocument(peer: 1)
        try doc.insertText("ab", at: 0, in: SyncTests.t)
        try doc.mark(0..<1, key: "bold", value: .bool(true), in: SyncTests.t)
        doc.commit()
        let blobs = [doc.exportSnapshot(), source.exportSnapshot()]
        var bytes = blobs[Int(seed % 2)]
        for _ in 0..<rng.int(1..<3) { bytes[rng.int(2..<(bytes.count - 4))] ^= UInt8(rng.int(1..<256)) }
        let result = Result { () throws(CRDTError) in try CRDTDocument.load(snapshot: Self.reseal(bytes), peer: 9) }
        if case .success(var loaded) = result {
            // Whatever loaded must stay usable: export, re-import and edit without crashing.
            let again = Result { () throws(CRDTError) in try CRDTDocument.load(snapshot: loaded.exportSnapshot(), peer: 10) }
            if case .failure(let e) = again { Issue.record("re-export of a loaded snapshot failed: \(e)") }
            var fresh = CRDTDocument(peer: 11)
            _ = Result { () throws(CRDTError) in try fresh.importUpdates(loaded.exportUpdates()) }
            _ = Result { () throws(CRDTError) in try loaded.insertText("x", at: 0, in: SyncTests.t) }
        }
    }
}
