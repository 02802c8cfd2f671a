import Foundation
import QuireCRDT
import QuireServer
import QuireSyncClient
import QuireSyncProtocol
import Synchronization
import Testing

@Suite(.serialized) struct ServerTests {
    /// The server's default codec: the protocol's Loro binary updates.
    let codec = LoroBinaryCodec()

    @Test func joinBackfillsExactlyWhatTheJoinerLacks() async throws {
        let server = try await TestServer.start()
        let writer = try await RawClient(url: server.url)
        #expect(try await writer.join("doc") == .joinOk(permission: .write, version: [0], extra: []))
        let full = try CRDTDocument.typed("hello world", peer: 1)
        try await writer.send(SyncMessage(kind: .loro, room: "doc", body: .update(updates: [codec.exportPayload(full, since: VersionVector())], batch: BatchID(1))))
        #expect(try await writer.message().body == .ack(batch: BatchID(1), status: .ok))

        // A joiner that already has the first 5 characters receives the other 6 only.
        var partial = CRDTDocument(peer: 1)
        _ = try codec.importPayload(codec.exportPayload(full, since: VersionVector()), into: &partial)
        let known = VersionVector([1: 5])
        let joiner = try await RawClient(url: server.url)
        let ok = try await joiner.join("doc", version: codec.encodeVersion(known))
        #expect(ok == .joinOk(permission: .write, version: codec.encodeVersion(full.version), extra: []))
        guard case let .update(updates, _) = try await joiner.message().body else { throw TestFailure("no backfill") }
        #expect(updates == [codec.exportPayload(full, since: known)])
        // A joiner that has everything receives nothing but the JoinResponseOk.
        let current = try await RawClient(url: server.url)
        #expect(try await current.join("doc", version: codec.encodeVersion(full.version)) == .joinOk(permission: .write, version: codec.encodeVersion(full.version), extra: []))
        try await current.send(text: "ping")
        #expect(try await current.next() == .text("pong"))
        for client in [writer, joiner, current] { await client.close() }
        try await server.stop()
    }

    @Test func clientsConvergeAndAcknowledgedUpdatesAreStored() async throws {
        let path = TestFiles.temporary("rooms.sqlite")
        let server = try await TestServer.start(storage: try SQLiteStorage(path: path))
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        let clientA = SyncClient(url: server.url), clientB = SyncClient(url: server.url)
        #expect(try await clientA.join("notes", document: a) == .write)
        #expect(try await clientB.join("notes", document: b) == .write)
        try await a.type("Hello")
        try await b.type(" world")
        try await a.type("!", at: 0)
        try await clientA.flush()
        try await clientB.flush()
        try await eventually("both documents converge") {
            let (x, y) = (await a.text(), await b.text())
            return x == y && x.count == 12
        }
        await clientA.close()
        await clientB.close()
        try await server.stop()

        // Everything acknowledged is in the file: a fresh server on it backfills it all.
        let again = try await TestServer.start(storage: try SQLiteStorage(path: path))
        let c = SharedDocument(CRDTDocument(peer: 3))
        let clientC = SyncClient(url: again.url)
        _ = try await clientC.join("notes", document: c)
        try await clientC.flush()
        #expect(await c.text() == a.text())
        await clientC.close()
        try await again.stop()
    }

    @Test func badUpdatesReachOnlyTheirSender() async throws {
        let server = try await TestServer.start()
        let sender = try await RawClient(url: server.url), member = try await RawClient(url: server.url)
        _ = try await sender.join("r")
        _ = try await member.join("r")
        let bad: [UInt8] = [0xC7, 1, 0, 0, 0, 0, 9, 9, 9]
        try await sender.send(SyncMessage(kind: .loro, room: "r", body: .update(updates: [bad], batch: BatchID(7))))
        #expect(try await sender.message().body == .ack(batch: BatchID(7), status: .invalidUpdate))
        let good = codec.exportPayload(try CRDTDocument.typed("ok", peer: 5), since: VersionVector())
        try await sender.send(SyncMessage(kind: .loro, room: "r", body: .update(updates: [good], batch: BatchID(8))))
        #expect(try await sender.message().body == .ack(batch: BatchID(8), status: .ok))
        // The member's next message is the good update: the bad one never reached it.
        guard case let .update(updates, _) = try await member.message().body else { throw TestFailure("no broadcast") }
        #expect(updates == [good])
        // Writing to a room one has not joined is refused.
        try await sender.send(SyncMessage(kind: .loro, room: "elsewhere", body: .update(updates: [good], batch: BatchID(9))))
        #expect(try await sender.message().body == .ack(batch: BatchID(9), status: .permissionDenied))
        await sender.close()
        await member.close()
        try await server.stop()
    }

    @Test(arguments: ["garbage", "truncated", "oversized", "text"])
    func malformedInputClosesOnlyThatConnection(kind: String) async throws {
        var configuration = SyncServerConfiguration()
        configuration.maxMessageBytes = 64 * 1024
        let server = try await TestServer.start(configuration)
        let bystander = try await RawClient(url: server.url)
        _ = try await bystander.join("r")
        let culprit = try await RawClient(url: server.url)
        _ = try await culprit.join("r")
        switch kind {
        case "garbage": try await culprit.send(bytes: [0xDE, 0xAD, 0xBE, 0xEF, 0, 1, 2, 3])
        case "truncated":
            let whole = SyncMessage(kind: .loro, room: "r", body: .update(updates: [[1, 2, 3, 4]], batch: BatchID(1))).encoded()
            try await culprit.send(bytes: Array(whole.dropLast(3)))
        case "oversized":
            try await culprit.send(SyncMessage(kind: .loro, room: "r", body: .update(updates: [Array(repeating: 1, count: 70 * 1024)], batch: BatchID(1))))
        default: try await culprit.send(text: "hello")
        }
        var closed = false
        while !closed {
            guard let frame = try await culprit.next() else { closed = true; break }
            if case .binary = frame { throw TestFailure("a message after \(kind) bytes") }
        }
        #expect(closed)
        // The bystander's connection and room work as before.
        let update = codec.exportPayload(try CRDTDocument.typed("still here", peer: 3), since: VersionVector())
        try await bystander.send(SyncMessage(kind: .loro, room: "r", body: .update(updates: [update], batch: BatchID(2))))
        #expect(try await bystander.message().body == .ack(batch: BatchID(2), status: .ok))
        await bystander.close()
        try await server.stop()
    }

    @Test func tokensDecidePermissions() async throws {
        let path = TestFiles.temporary("tokens")
        try "# room token permission\ndoc writer-token write\ndoc reader-token read\n* admin write\n".write(toFile: path, atomically: true, encoding: .utf8)
        let server = try await TestServer.start(authorizer: try TokenFileAuthorizer(path: path))
        let stranger = try await RawClient(url: server.url)
        guard case .joinError(.authFailed, _, _, _) = try await stranger.join("doc", token: "wrong") else { throw TestFailure("wrong token joined") }
        guard case .joinError(.authFailed, _, _, _) = try await stranger.join("doc") else { throw TestFailure("no token joined") }
        let reader = try await RawClient(url: server.url), writer = try await RawClient(url: server.url)
        #expect(try await reader.join("doc", token: "reader-token") == .joinOk(permission: .read, version: [0], extra: []))
        #expect(try await writer.join("doc", token: "writer-token") == .joinOk(permission: .write, version: [0], extra: []))
        let update = codec.exportPayload(try CRDTDocument.typed("x", peer: 4), since: VersionVector())
        try await reader.send(SyncMessage(kind: .loro, room: "doc", body: .update(updates: [update], batch: BatchID(1))))
        #expect(try await reader.message().body == .ack(batch: BatchID(1), status: .permissionDenied))
        try await writer.send(SyncMessage(kind: .loro, room: "doc", body: .update(updates: [update], batch: BatchID(2))))
        #expect(try await writer.message().body == .ack(batch: BatchID(2), status: .ok))
        // Read-only members receive.
        guard case let .update(updates, _) = try await reader.message().body else { throw TestFailure("reader got nothing") }
        #expect(updates == [update])
        // The file is read again when it changes: the reader is promoted, the wildcard removed.
        try "doc reader-token write\n".write(toFile: path, atomically: true, encoding: .utf8)
        let promoted = try await RawClient(url: server.url)
        let current = codec.encodeVersion(VersionVector([4: 1]))
        #expect(try await promoted.join("doc", token: "reader-token", version: current) == .joinOk(permission: .write, version: current, extra: []))
        guard case .joinError(.authFailed, _, _, _) = try await promoted.join("other", token: "admin") else { throw TestFailure("removed grant still works") }
        for client in [stranger, reader, writer, promoted] { await client.close() }
        try await server.stop()
    }

    @Test func limitsPerConnection() async throws {
        var configuration = SyncServerConfiguration()
        configuration.maxRoomsPerConnection = 2
        configuration.messagesPerSecond = 1
        configuration.messageBurst = 5
        let server = try await TestServer.start(configuration)
        let client = try await RawClient(url: server.url)
        _ = try await client.join("a")
        _ = try await client.join("b")
        guard case .joinError(.appError, _, _, "too_many_rooms") = try await client.join("c") else { throw TestFailure("third room joined") }
        let update = codec.exportPayload(try CRDTDocument.typed("x", peer: 4), since: VersionVector())
        var statuses: [UpdateStatus] = []
        for i in 0..<4 {
            try await client.send(SyncMessage(kind: .loro, room: "a", body: .update(updates: [update], batch: BatchID(UInt64(i)))))
            guard case let .ack(_, status) = try await client.message().body else { throw TestFailure("no ack") }
            statuses.append(status)
        }
        #expect(statuses.contains(.rateLimited))
        #expect(statuses.first == .ok)
        await client.close()
        try await server.stop()
    }

    @Test func largeUpdatesTravelInFragments() async throws {
        let server = try await TestServer.start()
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        let clientA = SyncClient(url: server.url), clientB = SyncClient(url: server.url)
        _ = try await clientA.join("big", document: a)
        _ = try await clientB.join("big", document: b)
        // Random text does not compress, so the update is larger than one message.
        var rng = SystemRandomNumberGenerator()
        let text = String((0..<400_000).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &rng))) })
        try await a.type(text)
        #expect(codec.exportPayload(await a.snapshot(), since: VersionVector()).count > SyncMessage.maxMessageBytes)
        try await clientA.flush()
        try await eventually("the large update arrives") { await b.text().count == 400_000 }
        #expect(await b.text() == text)
        await clientA.close()
        await clientB.close()
        try await server.stop()
    }

    @Test func presenceIsRelayedAndPersistedPresenceHydratesJoiners() async throws {
        let server = try await TestServer.start()
        let a = SyncClient(url: server.url), b = SyncClient(url: server.url)
        // Each write a millisecond after the last (a store ignores a write no newer than the one
        // it has, and a loop writes many within one millisecond).
        let ticks = Mutex(Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        let clock: EphemeralStore.Clock = { ticks.withLock { $0 += 1; return $0 } }
        var presenceOfA = EphemeralStore(timeout: 60_000, clock: clock), presenceOfB = EphemeralStore(timeout: 60_000, clock: clock)
        presenceOfA.set("a", .string("caret 3"))
        let first = presenceOfA.encode("a")
        let seenByB = try await b.joinPresence("doc")
        _ = try await a.joinPresence("doc")
        try await a.publishPresence(first, room: "doc")
        var iterator = seenByB.makeAsyncIterator()
        #expect(await iterator.next() == first)
        // %EPS keeps every peer's latest presence for peers that join later, however many
        // updates came before (more than an opaque relay's 64).
        _ = try await a.joinPresence("doc", persisted: true)
        _ = try await b.joinPresence("doc", persisted: true)
        presenceOfB.set("b", .string("caret 1"))
        try await b.publishPresence(presenceOfB.encode("b"), room: "doc", persisted: true)
        try await b.flush()
        for caret in 0..<100 {
            presenceOfA.set("a", .string("caret \(caret)"))
            try await a.publishPresence(presenceOfA.encode("a"), room: "doc", persisted: true)
        }
        try await a.flush()
        let late = SyncClient(url: server.url)
        var hydrated = try await late.joinPresence("doc", persisted: true).makeAsyncIterator()
        var joiner = EphemeralStore(timeout: 60_000)
        try joiner.apply(try #require(await hydrated.next()))
        #expect(joiner.all == ["a": .string("caret 99"), "b": .string("caret 1")])
        // An update that is not presence is refused (its acknowledgement says so); the room
        // keeps what it had.
        try await a.publishPresence(Array("caret 5".utf8), room: "doc", persisted: true)
        try await a.flush()
        let later = SyncClient(url: server.url)
        var again = try await later.joinPresence("doc", persisted: true).makeAsyncIterator()
        var second = EphemeralStore(timeout: 60_000)
        try second.apply(try #require(await again.next()))
        #expect(second.all == joiner.all)
        for client in [a, b, late, later] { await client.close() }
        try await server.stop()
    }

    @Test func roomsUnloadWhenIdleAndCompactInOneTransaction() async throws {
        var configuration = SyncServerConfiguration()
        configuration.idleRoomTimeout = .milliseconds(50)
        configuration.compactionThreshold = 5
        let path = TestFiles.temporary("rooms.sqlite")
        let storage = try SQLiteStorage(path: path)
        let server = try await TestServer.start(configuration, storage: storage)
        let doc = SharedDocument(CRDTDocument(peer: 1))
        let client = SyncClient(url: server.url)
        _ = try await client.join("log", document: doc)
        for i in 0..<12 {
            try await doc.type("\(i % 10)")
            try await client.flush()
        }
        let stored = try await storage.load(RoomKey(kind: .loro, name: "log"))
        #expect(stored.generation >= 2, "two compactions ran")
        #expect(stored.updates.count < 5)
        let reloaded = try codec.loadSnapshot(try #require(stored.snapshot), peer: 9)
        #expect(reloaded.text(CRDTDocument.text).count + stored.updates.count >= 10)
        await client.close()
        try await eventually("the idle room unloads") { await server.server.loadedRooms().isEmpty }
        try await server.stop()
    }
}
