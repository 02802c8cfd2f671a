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

/// A real server on loopback for the client's tests.
private func startServer(storagePath: String? = nil, port: Int = 0) async throws -> (SyncServer, Int, Task<Void, any Error>) {
    var configuration = SyncServerConfiguration()
    configuration.port = port
    let path = storagePath ?? FileManager.default.temporaryDirectory.appendingPathComponent("quire-client-\(UUID().uuidString).sqlite").path
    var logger = Logger(label: "quire.test.server")
    logger.logLevel = .warning
    let server = SyncServer(configuration: configuration, storage: try SQLiteStorage(path: path), authorizer: OpenAuthorizer(), logger: logger)
    let (ports, input) = AsyncStream.makeStream(of: Int.self)
    let task = Task { try await server.run { input.yield($0); input.finish() } }
    var iterator = ports.makeAsyncIterator()
    guard let bound = await iterator.next() else { try await task.value; throw ClientTestFailure("no port") }
    return (server, bound, task)
}

struct ClientTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

private let text = ContainerID.root(name: "t", type: .text)

extension SharedDocument {
    fileprivate func append(_ s: String) throws {
        try edit { (doc: inout CRDTDocument) throws(CRDTError) in try doc.insertText(s, at: doc.length(of: text), in: text) }
    }
    fileprivate var string: String { snapshot().text(text) }
}

private func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ClientTestFailure("never: \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

@Suite(.serialized) struct ClientTests {
    @Test func offlineEditsAreSentAfterReconnecting() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quire-client-\(UUID().uuidString).sqlite").path
        var (server, port, task) = try await startServer(storagePath: path)
        let url = "ws://127.0.0.1:\(port)/"
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        let policy = ReconnectPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200), pingInterval: nil)
        let clientA = SyncClient(url: url, reconnect: policy), clientB = SyncClient(url: url, reconnect: policy)
        _ = try await clientA.join("r", document: a)
        _ = try await clientB.join("r", document: b)
        try await a.append("online ")
        try await clientA.flush()
        try await eventually("b sees a") { await b.string == "online " }

        // The server goes away; both keep typing offline.
        await server.shutdown()
        try await task.value
        try await eventually("a notices") { await !clientA.isConnected }
        try await a.append("offline-a ")
        try await b.append("offline-b ")
        // The server comes back on the same port and file: both resume from their versions.
        (server, port, task) = try await startServer(storagePath: path, port: port)
        try await clientA.flush()
        try await clientB.flush()
        try await eventually("both converge") {
            let (x, y) = (await a.string, await b.string)
            return x == y && x.count == "online offline-a offline-b ".count
        }
        #expect(await clientA.connectionCount >= 2)
        await clientA.close()
        await clientB.close()
        await server.shutdown()
        try await task.value
    }

    @Test func aDroppedConnectionResumesWithoutLosingTyping() async throws {
        let (server, port, task) = try await startServer()
        let url = "ws://127.0.0.1:\(port)/"
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        let policy = ReconnectPolicy(initialDelay: .milliseconds(10), maxDelay: .milliseconds(100), pingInterval: nil)
        let clientA = SyncClient(url: url, reconnect: policy), clientB = SyncClient(url: url, reconnect: policy)
        _ = try await clientA.join("r", document: a)
        _ = try await clientB.join("r", document: b)
        var expected = ""
        for i in 0..<30 {
            try await a.append("\(i % 10)")
            expected += "\(i % 10)"
            if i % 7 == 3 { await clientA.dropConnection() }
        }
        try await clientA.flush()
        try await clientB.flush()
        try await eventually("b has every keystroke") { await b.string == expected }
        await clientA.close()
        await clientB.close()
        await server.shutdown()
        try await task.value
    }

    @Test func aBoundEditorStaysInSyncWithADocument() async throws {
        let (server, port, task) = try await startServer()
        let url = "ws://127.0.0.1:\(port)/"
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
        await server.shutdown()
        try await task.value
    }

    @Test func refusedJoinsThrow() async throws {
        let tokens = FileManager.default.temporaryDirectory.appendingPathComponent("quire-tokens-\(UUID().uuidString)").path
        try "doc right write\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        var logger = Logger(label: "quire.test.server")
        logger.logLevel = .critical
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quire-client-\(UUID().uuidString).sqlite").path
        let server = SyncServer(configuration: SyncServerConfiguration(port: 0), storage: try SQLiteStorage(path: path),
                                authorizer: try TokenFileAuthorizer(path: tokens), logger: logger)
        let (ports, input) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { input.yield($0); input.finish() } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let client = SyncClient(url: "ws://127.0.0.1:\(port)/")
        await #expect(throws: SyncClientError.joinRefused(code: 0x02, message: "authentication failed")) {
            _ = try await client.join("doc", auth: Array("wrong".utf8), document: SharedDocument(CRDTDocument(peer: 1)))
        }
        #expect(try await client.join("doc", auth: Array("right".utf8), document: SharedDocument(CRDTDocument(peer: 1))) == .write)
        await client.close()
        await server.shutdown()
        try await task.value
    }
}
