import Foundation
import Logging
import QuireBridge
import QuireCRDT
import QuireEditor
import QuireServer
import QuireSyncClient
import QuireSyncProtocol
import QuireTextStorage
import Testing

@Suite(.serialized) struct ClientTests {
    @Test func offlineEditsAreSentAfterReconnecting() async throws {
        let path = TestFiles.temporary("rooms.sqlite")
        var server = try await TestServer.startOnFixedPort { try SQLiteStorage(path: path) }
        let url = server.url
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        let policy = ReconnectPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200), pingInterval: nil)
        let clientA = SyncClient(url: url, reconnect: policy), clientB = SyncClient(url: url, reconnect: policy)
        _ = try await clientA.join("r", document: a)
        _ = try await clientB.join("r", document: b)
        try await a.type("online ")
        try await clientA.flush()
        try await eventually("b sees a") { await b.text() == "online " }

        // The server goes away; both keep typing offline.
        try await server.stop()
        try await eventually("a notices") { await !clientA.isConnected }
        try await a.type("offline-a ")
        try await b.type("offline-b ")
        // The server comes back on the same port and file: both resume from their versions.
        server = try await TestServer.restart(on: server.port) { try SQLiteStorage(path: path) }
        try await clientA.flush()
        try await clientB.flush()
        try await eventually("both converge") {
            let (x, y) = (await a.text(), await b.text())
            return x == y && x.count == "online offline-a offline-b ".count
        }
        #expect(await clientA.connectionCount >= 2)
        await clientA.close()
        await clientB.close()
        try await server.stop()
    }

    @Test func aDroppedConnectionResumesWithoutLosingTyping() async throws {
        let server = try await TestServer.start()
        let url = server.url
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        let policy = ReconnectPolicy(initialDelay: .milliseconds(10), maxDelay: .milliseconds(100), pingInterval: nil)
        let clientA = SyncClient(url: url, reconnect: policy), clientB = SyncClient(url: url, reconnect: policy)
        _ = try await clientA.join("r", document: a)
        _ = try await clientB.join("r", document: b)
        var expected = ""
        for i in 0..<30 {
            try await a.type("\(i % 10)")
            expected += "\(i % 10)"
            if i % 7 == 3 { await clientA.dropConnection() }
        }
        try await clientA.flush()
        try await clientB.flush()
        try await eventually("b has every keystroke") { await b.text() == expected }
        await clientA.close()
        await clientB.close()
        try await server.stop()
    }

    @Test func aBoundEditorStaysInSyncWithADocument() async throws {
        let server = try await TestServer.start()
        let url = server.url
        let editor = try BoundEditor(editor: try Editor(storage: TextStorage()), document: CRDTDocument(peer: 7))
        let plain = SharedDocument(CRDTDocument(peer: 8))
        let editorClient = SyncClient(url: url), plainClient = SyncClient(url: url)
        _ = try await editorClient.join("doc", document: editor)
        _ = try await plainClient.join("doc", document: plain)
        try await editor.perform { (binding: EditorBinding) throws(EditorError) in
            try binding.editor.replaceCharacters(in: 0..<0, with: "Typed in the editor")
        }
        try await editorClient.flush()
        try await plainClient.flush()
        try await eventually("the plain document receives the editor's text") {
            await plain.snapshot().version == editor.currentVersion()
        }
        // And the other way: a remote change shows in the editor's text storage.
        let before = await editor.currentVersion()
        try await plain.edit { (doc: inout CRDTDocument) throws(CRDTError) in
            // Before the first typed character (block markers may precede it).
            let scalars = Array(doc.text(DocumentSchema.text).unicodeScalars)
            try doc.insertText("Remote: ", at: scalars.firstIndex(of: "T") ?? 0, in: DocumentSchema.text)
        }
        try await plainClient.flush()
        try await eventually("the editor shows the remote text") { await editor.currentVersion() != before }
        let shown = await editor.perform { (binding: EditorBinding) -> String in binding.editor.storage?.string ?? "" }
        #expect(shown == "Remote: Typed in the editor")
        await editorClient.close()
        await plainClient.close()
        try await server.stop()
    }

    @Test func refusedJoinsThrow() async throws {
        let tokens = FileManager.default.temporaryDirectory.appendingPathComponent("quire-tokens-\(UUID().uuidString)").path
        try "doc right write\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let server = try await TestServer.start(authorizer: try TokenFileAuthorizer(path: tokens))
        let client = SyncClient(url: server.url)
        await #expect(throws: SyncClientError.joinRefused(code: 0x02, message: "authentication failed")) {
            _ = try await client.join("doc", auth: Array("wrong".utf8), document: SharedDocument(CRDTDocument(peer: 1)))
        }
        #expect(try await client.join("doc", auth: Array("right".utf8), document: SharedDocument(CRDTDocument(peer: 1))) == .write)
        await client.close()
        try await server.stop()
    }
}
