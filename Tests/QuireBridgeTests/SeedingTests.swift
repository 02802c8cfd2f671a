import QuireBridge
import QuireCRDT
import QuireModel
import Testing

/// Two apps that find a room empty and seed it at once (`quire edit` joining an empty room from
/// two terminals): the same content is kept once, different content both times.
@Suite struct SeedingTests {
    /// Each app reads the document on its own, seeds, binds an editor and types before it hears
    /// from the other.
    @Test(arguments: Plugins.fixtureNames)
    func twoSeedsOfTheSameDocumentAreOneChange(name: String) throws {
        let a = try Peer("A", peer: 11, document: Projection.seededDocument(from: Plugins.fixture(name)))
        let b = try Peer("B", peer: 12, document: Projection.seededDocument(from: Plugins.fixture(name)))
        let seedVersion = a.binding.document.version
        #expect(b.binding.document.version == seedVersion)
        #expect(seedVersion.ends.keys.map { $0 } == [Projection.seedPeer(for: try Plugins.fixture(name))])
        try a.select(0..<0)
        try a.type("A")
        try b.select(0..<0)
        try b.type("B")
        try a.receive(from: b)
        try b.receive(from: a)
        #expect(a.canonicalJSON == b.canonicalJSON)
        #expect(a.binding.document.version == b.binding.document.version)
        // One copy of the document, with both peers' typing.
        var single = CRDTDocument(peer: 13)
        try Projection.seed(&single, from: Plugins.fixture(name))
        let once = try Peer("C", peer: 14, document: single)
        #expect(a.text.count == once.text.count + 2)
        try a.checkInvariant()
        try b.checkInvariant()
    }

    @Test func seedsOfDifferentDocumentsBothLand() throws {
        let first = EditorState(registry: Plugins.registry, paragraphs: ["one"])
        let second = EditorState(registry: Plugins.registry, paragraphs: ["two"])
        #expect(Projection.seedPeer(for: first) != Projection.seedPeer(for: second))
        let a = try Peer("A", peer: 11, document: Projection.seededDocument(from: first))
        let b = try Peer("B", peer: 12, document: Projection.seededDocument(from: second))
        try a.receive(from: b)
        try b.receive(from: a)
        #expect(a.text == b.text)
        #expect(a.text.contains("one") && a.text.contains("two"))
    }

    /// The seed is authored by the seed peer; the app's own edits by its own peer, so undo never
    /// takes the seed back.
    @Test func editsAfterTheSeedAreTheAppsOwn() throws {
        let state = EditorState(registry: Plugins.registry, paragraphs: ["hello"])
        let document = try Projection.seededDocument(from: state, peer: 21)
        #expect(document.peer == 21)
        let a = try Peer("A", peer: 21, document: document)
        try a.select(5..<5)
        try a.type("!")
        #expect(a.text == "hello!")
        #expect(a.binding.document.version[21] > 0)
        #expect(try a.editor.undo())
        #expect(a.text == "hello")
        #expect(try !a.editor.undo())
        #expect(a.text == "hello")
    }
}
