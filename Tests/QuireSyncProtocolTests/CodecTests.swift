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

@Suite struct LoroEphemeralFoldTests {
    /// A clock the test moves by hand.
    final class ManualClock: @unchecked Sendable {
        var now: Int64 = 1_000_000
        var clock: EphemeralStore.Clock { { self.now } }
    }

    /// Seeded sessions: peers set, change and delete their entries; whatever the number of
    /// updates, the fold keeps one payload that gives a joiner what a store which saw every
    /// update holds.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func aJoinerGetsWhatAStoreThatSawEveryUpdateHolds(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let time = ManualClock()
        let fold = LoroEphemeralFold(timeout: 60_000, clock: time.clock)
        var peers = (0..<5).map { _ in EphemeralStore(timeout: 60_000, clock: time.clock) }
        var model = EphemeralStore(timeout: 60_000, clock: time.clock)
        var retained: [[UInt8]] = []
        for step in 0..<500 {
            time.now += Int64.random(in: 1...50, using: &random)
            let who = Int.random(in: 0..<peers.count, using: &random)
            let key = "peer-\(who)"
            if Int.random(in: 0..<8, using: &random) == 0 {
                peers[who].delete(key)
            } else {
                peers[who].set(key, .map(["caret": .int(Int64(step)), "name": .string(key)]))
            }
            let update = peers[who].encode(key)
            try model.apply(update)
            retained = try fold.fold(retained, update)
            #expect(retained.count <= 1)
        }
        var joiner = EphemeralStore(timeout: 60_000, clock: time.clock)
        for payload in retained { try joiner.apply(payload) }
        #expect(joiner.all == model.all)
        #expect(joiner.keys == model.keys)
    }

    @Test func theNewerWriteOfAKeyWinsAndOutdatedEntriesGo() throws {
        let time = ManualClock()
        let fold = LoroEphemeralFold(timeout: 10_000, clock: time.clock)
        var peer = EphemeralStore(timeout: 10_000, clock: time.clock)
        peer.set("a", .string("old"))
        let old = peer.encode("a")
        time.now += 5
        peer.set("a", .string("new"))
        var retained = try fold.fold([], peer.encode("a"))
        retained = try fold.fold(retained, old)
        var joiner = EphemeralStore(timeout: 10_000, clock: time.clock)
        for payload in retained { try joiner.apply(payload) }
        #expect(joiner.get("a") == .string("new"))
        // Past the timeout nothing is kept for a joiner.
        time.now += 10_001
        var other = EphemeralStore(timeout: 10_000, clock: time.clock)
        other.set("b", .string("here"))
        retained = try fold.fold(retained, other.encode("b"))
        var late = EphemeralStore(timeout: 10_000, clock: time.clock)
        for payload in retained { try late.apply(payload) }
        #expect(late.all == ["b": .string("here")])
        // When every entry has timed out, nothing is retained at all.
        time.now += 10_001
        #expect(try fold.fold(retained, old) == [])
    }

    /// Past the byte limit the oldest entries are left out, and later updates are still taken:
    /// one large entry never stops a room's presence.
    @Test func theOldestEntriesGoPastTheByteLimit() throws {
        let time = ManualClock()
        let fold = LoroEphemeralFold(timeout: 60_000, maxBytes: 350, clock: time.clock)
        var retained: [[UInt8]] = []
        for peer in 0..<6 {
            time.now += 1
            var store = EphemeralStore(timeout: 60_000, clock: time.clock)
            store.set("peer-\(peer)", .string(String(repeating: "x", count: 90)))
            retained = try fold.fold(retained, store.encode("peer-\(peer)"))
            #expect(retained.allSatisfy { $0.count <= 350 })
        }
        var joiner = EphemeralStore(timeout: 60_000, clock: time.clock)
        for payload in retained { try joiner.apply(payload) }
        // Three entries of 106 bytes fit (with the count), four do not: the three newest stay.
        #expect(joiner.keys == ["peer-3", "peer-4", "peer-5"])
        // An empty update changes nothing.
        #expect(try fold.fold(retained, []) == retained)
    }

    @Test func refusalsNameWhatWasWrong() throws {
        let fold = LoroEphemeralFold(maxBytes: 64)
        var peer = EphemeralStore(timeout: 60_000)
        peer.set("a", .int(1))
        let retained = try fold.fold([], peer.encode("a"))
        #expect(throws: SyncProtocolError.tooLarge(what: "ephemeral update", size: 65, limit: 64)) { _ = try fold.fold(retained, Array(repeating: 1, count: 65)) }
        do {
            _ = try fold.fold(retained, Array("caret 3".utf8))
            Issue.record("an update that is not an EphemeralStore encoding was accepted")
        } catch {
            guard case .rejectedUpdate(let reason) = error else { throw error }
            #expect(reason.contains("presence update"))
        }
        // Payloads another codec kept (a persisted room served with `opaque` before) are not
        // carried over; the update is.
        let merged = try fold.fold([Array("caret 3".utf8)], peer.encode("a"))
        var joiner = EphemeralStore(timeout: 60_000)
        for payload in merged { try joiner.apply(payload) }
        #expect(joiner.all == ["a": .int(1)])
    }
}
