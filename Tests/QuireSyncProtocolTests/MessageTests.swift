import QuireAlgorithms
import QuireCRDT
import QuireTestSupport
import Testing
@testable import QuireSyncProtocol

@Suite struct MessageTests {
    static let batch = BatchID(0x0102_0304_0506_0708)

    static let samples: [SyncMessage] = [
        SyncMessage(kind: .loro, room: "notes", body: .joinRequest(auth: Array("secret".utf8), version: [1, 5, 4])),
        SyncMessage(kind: .loro, room: "notes", body: .joinOk(permission: .write, version: [0], extra: [])),
        SyncMessage(kind: .loro, room: "notes", body: .joinOk(permission: .read, version: [], extra: [9, 9])),
        SyncMessage(kind: .loro, room: "n", body: .joinError(code: .authFailed, message: "no", receiverVersion: nil, appCode: nil)),
        SyncMessage(kind: .loro, room: "n", body: .joinError(code: .versionUnknown, message: "?", receiverVersion: [0], appCode: nil)),
        SyncMessage(kind: .loro, room: "n", body: .joinError(code: .appError, message: "full", receiverVersion: nil, appCode: "too_many_rooms")),
        SyncMessage(kind: .loro, room: "n", body: .update(updates: [[1, 2, 3], [], [4]], batch: batch)),
        SyncMessage(kind: .ephemeral, room: "n", body: .update(updates: [], batch: batch)),
        SyncMessage(kind: .persistedEphemeral, room: "n", body: .fragmentHeader(batch: batch, count: 3, totalBytes: 700_000)),
        SyncMessage(kind: .loro, room: "n", body: .fragment(batch: batch, index: 2, bytes: [7, 7])),
        SyncMessage(kind: .loro, room: "n", body: .roomError(code: .evicted, message: "bye")),
        SyncMessage(kind: .loro, room: "ünïcode room", body: .leave),
        SyncMessage(kind: .loro, room: "", body: .ack(batch: batch, status: .permissionDenied)),
    ]

    @Test(arguments: samples)
    func roundTrip(_ message: SyncMessage) throws {
        #expect(try SyncMessage(decoding: message.encoded()) == message)
    }

    /// Bytes written out by hand from protocol.md, field by field.
    @Test func goldenBytes() {
        let join = SyncMessage(kind: .loro, room: "r1", body: .joinRequest(auth: Array("tk".utf8), version: [1, 5, 4]))
        #expect(join.encoded() == Array("%LOR".utf8) + [2] + Array("r1".utf8) + [0x00, 2] + Array("tk".utf8) + [3, 1, 5, 4])
        let ok = SyncMessage(kind: .loro, room: "r1", body: .joinOk(permission: .read, version: [0], extra: []))
        #expect(ok.encoded() == Array("%LOR".utf8) + [2] + Array("r1".utf8) + [0x01, 4] + Array("read".utf8) + [1, 0, 0])
        let update = SyncMessage(kind: .ephemeral, room: "r", body: .update(updates: [[0xAA]], batch: Self.batch))
        #expect(update.encoded() == Array("%EPH".utf8) + [1, 0x72, 0x03, 1, 1, 0xAA, 1, 2, 3, 4, 5, 6, 7, 8])
        let ack = SyncMessage(kind: .loro, room: "r", body: .ack(batch: Self.batch, status: .invalidUpdate))
        #expect(ack.encoded() == Array("%LOR".utf8) + [1, 0x72, 0x08, 1, 2, 3, 4, 5, 6, 7, 8, 0x04])
        let header = SyncMessage(kind: .loro, room: "r", body: .fragmentHeader(batch: Self.batch, count: 2, totalBytes: 300))
        #expect(header.encoded() == Array("%LOR".utf8) + [1, 0x72, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 2, 0xAC, 0x02])
        #expect(SyncMessage(kind: .loro, room: "r", body: .leave).encoded() == Array("%LOR".utf8) + [1, 0x72, 0x07])
    }

    @Test(arguments: samples)
    func everyTruncationIsAnError(_ message: SyncMessage) {
        let bytes = message.encoded()
        for cut in 0..<bytes.count {
            let prefix = Array(bytes[..<cut])
            // Typed throws: a failure is a SyncProtocolError, never a crash.
            let shorter: SyncMessage
            do { shorter = try SyncMessage(decoding: prefix) } catch { continue }
            // Only JoinError has optional trailing fields: without them it is a shorter message.
            guard case .joinError = shorter.body else { Issue.record("\(cut) bytes decoded as \(shorter)"); continue }
            #expect(shorter.encoded() == prefix)
        }
    }

    @Test func refusals() {
        let leave = SyncMessage(kind: .loro, room: "r", body: .leave).encoded()
        #expect(throws: SyncProtocolError.malformed(offset: 7, reason: "1 trailing bytes")) { try SyncMessage(decoding: leave + [0]) }
        #expect(throws: SyncProtocolError.unknownCRDTType(Array("%XYZ".utf8))) { try SyncMessage(decoding: Array("%XYZ".utf8) + [1, 0x72, 7]) }
        #expect(throws: SyncProtocolError.malformed(offset: 6, reason: "unknown message type 0x9")) { try SyncMessage(decoding: Array("%LOR".utf8) + [1, 0x72, 9]) }
        let long = String(repeating: "x", count: 129)
        #expect(throws: SyncProtocolError.malformed(offset: 4, reason: "room id of 129 bytes exceeds 128")) {
            try SyncMessage(decoding: SyncMessage(kind: .loro, room: long, body: .leave).encoded())
        }
        // A length larger than what is left never allocates.
        #expect(throws: SyncProtocolError.self) { try SyncMessage(decoding: Array("%LOR".utf8) + [1, 0x72, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }
        #expect(throws: SyncProtocolError.self) { try SyncMessage(decoding: Array("%LOR".utf8) + [1, 0x72, 1, 3] + Array("own".utf8) + [0, 0]) }
        #expect(throws: SyncProtocolError.self) { try SyncMessage(decoding: Array("%LOR".utf8) + [2, 0xC3, 0x28, 7]) }
    }

    /// Random bytes, and random mutations of valid messages, decode or throw; never crash.
    @Test func garbageNeverCrashes() {
        var rng = SeededGenerator(seed: 16)
        let steps = 20_000
        var decoded = 0
        for step in 0..<steps {
            var bytes: [UInt8]
            if step % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = Self.samples[Int.random(in: 0..<Self.samples.count, using: &rng)].encoded()
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            if let message = try? SyncMessage(decoding: bytes) {
                decoded += 1
                #expect(message.encoded() == bytes, "a decoded message re-encodes to its bytes (step \(step))")
            }
        }
        #expect(decoded > 0 && decoded < steps)
    }
}

@Suite struct VersionEncodingTests {
    /// Bytes of `VersionVector.encode()` from Loro 1.17.1 (Python): {5: 2} and {300: 3, 5: 2}.
    @Test func readsLorosBytes() throws {
        #expect(try VersionEncoding.decode([0x01, 0x05, 0x04]) == VersionVector([5: 2]))
        #expect(try VersionEncoding.decode([0x02, 0xAC, 0x02, 0x06, 0x05, 0x04]) == VersionVector([5: 2, 300: 3]))
        #expect(try VersionEncoding.decode([0x00]) == VersionVector())
        #expect(try VersionEncoding.decode([]) == VersionVector())
    }

    @Test func writesPeersInOrder() {
        #expect(VersionEncoding.encode(VersionVector([300: 3, 5: 2])) == [0x02, 0x05, 0x04, 0xAC, 0x02, 0x06])
        #expect(VersionEncoding.encode(VersionVector()) == [0x00])
    }

    @Test func roundTripsRandomVersions() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            var ends: [PeerID: OpCounter] = [:]
            for _ in 0..<Int.random(in: 0..<6, using: &rng) { ends[UInt64.random(in: 0...UInt64.max, using: &rng)] = OpCounter.random(in: 1...Int32.max, using: &rng) }
            let version = VersionVector(ends)
            #expect(try VersionEncoding.decode(VersionEncoding.encode(version)) == version)
        }
    }

    @Test func refusesBadVersions() {
        #expect(throws: SyncProtocolError.self) { try VersionEncoding.decode([0x05, 0x01]) }
        #expect(throws: SyncProtocolError.self) { try VersionEncoding.decode([0x01, 0x05, 0x03]) } // counter -2
        #expect(throws: SyncProtocolError.self) { try VersionEncoding.decode([0x02, 0x05, 0x04, 0x05, 0x04]) } // peer twice
        #expect(throws: SyncProtocolError.self) { try VersionEncoding.decode([0x01, 0x05, 0x04, 0x00]) }
    }
}
