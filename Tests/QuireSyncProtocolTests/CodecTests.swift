import QuireAlgorithms
import QuireCRDT
import QuireTestSupport
import Testing
@testable import QuireSyncProtocol

@Suite struct FragmentTests {
    static let batch = BatchID(42)

    @Test(arguments: [0, 1, 1000, 256 * 1024, 700_001])
    func splitAndReassemble(size: Int) throws {
        var rng = SeededGenerator(seed: UInt64(size))
        let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let messages = UpdateFragmenter.messages(kind: .loro, room: "r", payload: payload, batch: Self.batch)
        for message in messages { #expect(message.encoded().count <= SyncMessage.maxMessageBytes) }
        if messages.count == 1 {
            #expect(messages[0].body == .update(updates: [payload], batch: Self.batch))
            return
        }
        var assembler = FragmentAssembler()
        guard case let .fragmentHeader(batch, count, total) = messages[0].body else { Issue.record("no header"); return }
        #expect(count == UInt64(messages.count - 1) && total == UInt64(size))
        try assembler.begin(kind: .loro, room: "r", batch: batch, count: count, totalBytes: total, now: .now)
        var result: [UInt8]?
        // Fragments may arrive in any order.
        for message in messages.dropFirst().shuffled(using: &rng) {
            guard case let .fragment(batch, index, bytes) = message.body else { Issue.record("not a fragment"); return }
            #expect(result == nil)
            result = try assembler.add(kind: .loro, room: "r", batch: batch, index: index, bytes: bytes)
        }
        #expect(result == payload)
        #expect(assembler.openBatches == 0)
    }

    @Test func limits() throws {
        var assembler = FragmentAssembler(limits: .init(maxFragments: 4, maxBatchBytes: 100, maxOpenBatches: 1, timeout: .seconds(10)))
        let now = ContinuousClock.now
        #expect(throws: FragmentError(status: .payloadTooLarge, reason: "5 fragments exceed the limit of 4")) {
            try assembler.begin(kind: .loro, room: "r", batch: Self.batch, count: 5, totalBytes: 10, now: now)
        }
        #expect(throws: FragmentError(status: .payloadTooLarge, reason: "101 bytes exceed the limit of 100")) {
            try assembler.begin(kind: .loro, room: "r", batch: Self.batch, count: 2, totalBytes: 101, now: now)
        }
        try assembler.begin(kind: .loro, room: "r", batch: Self.batch, count: 2, totalBytes: 4, now: now)
        #expect(throws: FragmentError.self) { try assembler.begin(kind: .loro, room: "r", batch: BatchID(43), count: 2, totalBytes: 4, now: now) }
        #expect(throws: FragmentError(status: .fragmentTimeout, reason: "no open batch \(Self.batch) in %LOR other")) {
            _ = try assembler.add(kind: .loro, room: "other", batch: Self.batch, index: 0, bytes: [1])
        }
        // More bytes than announced drop the batch.
        #expect(throws: FragmentError.self) { _ = try assembler.add(kind: .loro, room: "r", batch: Self.batch, index: 0, bytes: [1, 2, 3, 4, 5]) }
        #expect(assembler.openBatches == 0)
        try assembler.begin(kind: .loro, room: "r", batch: Self.batch, count: 2, totalBytes: 4, now: now)
        #expect(throws: FragmentError.self) { _ = try assembler.add(kind: .loro, room: "r", batch: Self.batch, index: 2, bytes: [1]) }
        try assembler.begin(kind: .loro, room: "r", batch: Self.batch, count: 2, totalBytes: 4, now: now)
        #expect(try assembler.add(kind: .loro, room: "r", batch: Self.batch, index: 0, bytes: [1, 2]) == nil)
        #expect(assembler.expire(now: now + .seconds(9)).isEmpty)
        let expired = assembler.expire(now: now + .seconds(10))
        #expect(expired.map(\.batch) == [Self.batch] && assembler.openBatches == 0)
    }
}

@Suite struct DocumentCodecTests {
    static func sample(peer: PeerID, _ text: String) throws -> CRDTDocument {
        var doc = CRDTDocument(peer: peer)
        try doc.insertText(text, at: 0, in: .root(name: "t", type: .text))
        doc.commit()
        return doc
    }

    @Test(arguments: DocumentCodecs.all.map(\.name))
    func exchangesExactlyWhatIsMissing(codecName: String) throws {
        let codec = try #require(DocumentCodecs.named(codecName))
        let a = try Self.sample(peer: 1, "hello")
        var b = try Self.sample(peer: 2, "world")
        #expect(codec.exportPayload(a, since: a.version).isEmpty)
        let delta = codec.exportPayload(a, since: b.version)
        _ = try codec.importPayload(delta, into: &b)
        #expect(b.version == VersionVector([1: 5, 2: 5]))
        // Importing it again changes nothing.
        _ = try codec.importPayload(delta, into: &b)
        #expect(b.version == VersionVector([1: 5, 2: 5]))
        let reloaded = try codec.loadSnapshot(codec.exportSnapshot(b), peer: 9)
        #expect(reloaded.text(.root(name: "t", type: .text)) == b.text(.root(name: "t", type: .text)))
        #expect(try codec.decodeVersion(codec.encodeVersion(b.version)) == b.version)
    }

    @Test(arguments: DocumentCodecs.all.map(\.name))
    func refusedPayloadLeavesTheDocumentUnchanged(codecName: String) throws {
        let codec = try #require(DocumentCodecs.named(codecName))
        var doc = try Self.sample(peer: 1, "keep")
        let before = doc.version
        #expect(throws: SyncProtocolError.self) { _ = try codec.importPayload([0xC7, 1, 2, 3, 4, 5], into: &doc) }
        #expect(throws: SyncProtocolError.self) { _ = try codec.importPayload(Array("{\"schema_version\":".utf8), into: &doc) }
        #expect(doc.version == before && doc.text(.root(name: "t", type: .text)) == "keep")
    }
}

@Suite struct EphemeralRelayTests {
    @Test func keepsTheMostRecentWithinBounds() throws {
        let relay = OpaqueEphemeralRelay(maxPayloads: 3, maxBytes: 10)
        var retained: [[UInt8]] = []
        for i in 0..<5 { retained = try relay.fold(retained, [UInt8(i), UInt8(i)]) }
        #expect(retained == [[2, 2], [3, 3], [4, 4]])
        retained = try relay.fold(retained, Array(repeating: 9, count: 9))
        #expect(retained == [Array(repeating: 9, count: 9)])
        #expect(throws: SyncProtocolError.tooLarge(what: "ephemeral update", size: 11, limit: 10)) { _ = try relay.fold([], Array(repeating: 1, count: 11)) }
        #expect(try relay.fold([[1]], []) == [[1]])
    }
}
