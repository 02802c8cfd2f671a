import Foundation
import QuireCRDT
import QuireSyncClient
import QuireSyncProtocol
import Testing

/// `quire serve` run as users run it: readiness line, SIGKILL and restart, SIGTERM, and peers
/// written from the protocol's specification in Python.
@Suite(.serialized) struct ProcessTests {
    @Test func everyAcknowledgedUpdateSurvivesSIGKILL() async throws {
        let database = "sqlite:" + TestFiles.temporary("rooms.sqlite")
        let first = try ServeProcess(["--database", database])
        let writer = try await RawClient(url: first.url)
        _ = try await writer.join("durable")
        var doc = CRDTDocument(peer: 11)
        var acknowledged = 0
        for i in 0..<50 {
            let before = doc.version
            try doc.insertText("\(i % 10)", at: doc.length(of: CRDTDocument.text), in: CRDTDocument.text)
            doc.commit()
            try await writer.send(SyncMessage(kind: .loro, room: "durable", body: .update(updates: [LoroBinaryCodec().exportPayload(doc, since: before)], batch: BatchID(UInt64(i)))))
            #expect(try await writer.message().body == .ack(batch: BatchID(UInt64(i)), status: .ok))
            acknowledged += 1
        }
        // Right after the last acknowledgement, with no chance to flush anything.
        first.kill()
        let second = try ServeProcess(["--database", database])
        let fresh = SharedDocument(CRDTDocument(peer: 12))
        let client = SyncClient(url: second.url)
        _ = try await client.join("durable", document: fresh)
        try await client.flush()
        #expect(await fresh.snapshot().version == doc.version)
        #expect(await fresh.text() == doc.text(CRDTDocument.text))
        #expect(acknowledged == 50)
        await client.close()
        #expect(second.terminate() == 0, "SIGTERM stops gracefully: \(second.log)")
        #expect(second.log.contains("stopped; every acknowledged update is stored"))
    }

    @Test func quireSyncPushesAndPullsAFileOnce() async throws {
        let server = try ServeProcess(["--database", "sqlite:" + TestFiles.temporary("rooms.sqlite")])
        let first = TestFiles.temporary("first.quire"), second = TestFiles.temporary("second.quire")
        try Data(CRDTDocument.typed("one ", peer: 41).exportSnapshot()).write(to: URL(fileURLWithPath: first))
        try Data(CRDTDocument.typed("two ", peer: 42).exportSnapshot()).write(to: URL(fileURLWithPath: second))
        for file in [first, second, first] {
            let run = Process()
            run.executableURL = ServeProcess.executable
            run.arguments = ["sync", "--server", server.url, "--room", "files", file]
            let output = Pipe()
            run.standardOutput = output
            try run.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            #expect(run.terminationStatus == 0)
            #expect(printed.hasPrefix("synced files (write)"))
        }
        // The first file, synced again after the second, holds both; the second holds both too.
        let merged = try CRDTDocument.load(snapshot: Array(Data(contentsOf: URL(fileURLWithPath: first))), peer: 1)
        let other = try CRDTDocument.load(snapshot: Array(Data(contentsOf: URL(fileURLWithPath: second))), peer: 1)
        #expect(merged.version == VersionVector([41: 4, 42: 4]) && other.version == merged.version)
        #expect(merged.text(CRDTDocument.text) == other.text(CRDTDocument.text))
        #expect(server.terminate() == 0)
    }

    @Test func aLoroPeerFromTheSpecAndAQuireClientShareARoom() async throws {
        guard InteropPython.path != nil else {
            print("skipped: QUIRE_LORO_PYTHON is not set (make test sets up the interop venv with loro and websockets)")
            return
        }
        // Both sides on the protocol's payloads (Loro's binary updates), the server's default codec.
        let server = try ServeProcess(["--database", "sqlite:" + TestFiles.temporary("rooms.sqlite")])
        let quire = SharedDocument(CRDTDocument(peer: 21))
        let client = SyncClient(url: server.url)
        _ = try await client.join("shared", document: quire)
        try await quire.type("Quire ")
        try await client.flush()

        // The Loro peer joins, sees Quire's text, appends its own and waits for the acknowledgement.
        let state = TestFiles.temporary("loro-state.bin")
        let first = try InteropPython.run("loro_sync_client.py", ["--url", server.url, "--room", "shared", "--peer", "31", "--state", state,
                                                                  "--append", "Loro", "--expect", "Quire Loro"])
        let firstResult = try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
        #expect(firstResult?["text"] as? String == "Quire Loro")
        #expect(firstResult?["acks"] as? [Int] == [0])
        try await eventually("Quire receives Loro's edit") { await quire.text() == "Quire Loro" }

        // Quire writes more; the Loro peer rejoins with its saved version and receives only that.
        try await quire.type(" again")
        try await client.flush()
        let second = try InteropPython.run("loro_sync_client.py", ["--url", server.url, "--room", "shared", "--peer", "31", "--state", state,
                                                                   "--expect", "Quire Loro again"])
        let secondResult = try JSONSerialization.jsonObject(with: Data(second.utf8)) as? [String: Any]
        #expect(secondResult?["text"] as? String == "Quire Loro again")
        #expect(secondResult?["already_known"] as? Int == 0, "a late joiner receives nothing it had")
        #expect((secondResult?["received_changes"] as? Int ?? 0) >= 1)
        await client.close()
        #expect(server.terminate() == 0)
    }

    @Test func aClientThatNeverReadsCannotGrowTheServer() async throws {
        guard InteropPython.path != nil else {
            print("skipped: QUIRE_LORO_PYTHON is not set (the slow consumer is a Python socket that never reads)")
            return
        }
        let server = try ServeProcess(["--database", "sqlite:" + TestFiles.temporary("rooms.sqlite"), "--max-queued-bytes", "\(2 << 20)", "--rate", "100000"])
        // The slow consumer joins the presence room and then never reads (in the background).
        let slow = Process()
        slow.executableURL = URL(fileURLWithPath: InteropPython.path!)
        slow.arguments = [InteropPython.scripts.appendingPathComponent("slow_consumer.py").path, "--port", "\(server.port)", "--room", "flood", "--seconds", "120"]
        let slowOutput = Pipe()
        slow.standardOutput = slowOutput
        try slow.run()
        let ready = slowOutput.fileHandleForReading.readData(ofLength: 6)
        #expect(String(decoding: ready, as: UTF8.self) == "joined")
        let flooder = try await RawClient(url: server.url)
        _ = try await flooder.join("flood", kind: .ephemeral)
        let baseline = server.residentBytes
        // 64 MiB of presence payloads for a member that reads none of it.
        var presence = EphemeralStore(timeout: 60_000)
        presence.set("flooder", .string(String(repeating: "x", count: 128 * 1024)))
        let payload = presence.encode("flooder")
        var peak = baseline
        for i in 0..<512 {
            try await flooder.send(SyncMessage(kind: .ephemeral, room: "flood", body: .update(updates: [payload], batch: BatchID(UInt64(i)))))
            #expect(try await flooder.message().body == .ack(batch: BatchID(UInt64(i)), status: .ok))
            if i % 32 == 0 { peak = max(peak, server.residentBytes) }
        }
        peak = max(peak, server.residentBytes)
        print("slow consumer: server RSS \(baseline >> 20) MiB before, peak \(peak >> 20) MiB while 64 MiB went to a member that never reads")
        #expect(peak - baseline < 48 << 20, "memory stays bounded")
        #expect(server.log.contains("slow consumer disconnected"))
        kill(slow.processIdentifier, SIGKILL)
        slow.waitUntilExit()
        await flooder.close()
        #expect(server.terminate() == 0)
    }
}
