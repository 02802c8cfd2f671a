import QuireCRDT
import Synchronization
import Testing
@testable import quire

@Suite struct PresencePainterTests {
    let bob = PeerColour(index: 2)

    func caret(_ row: Int, _ column: Int, name: String = "bob") -> PeerMark {
        let at = PeerMark.ScreenPosition(row: row, column: column)
        return PeerMark(name: name, colour: bob, start: at, caret: at, end: at)
    }

    @Test func aPeersColourComesFromItsKeyAlone() {
        #expect(PeerColour(key: "12345") == PeerColour(key: "12345"))
        let colours = Set((0..<60).map { PeerColour(key: "\($0)").index })
        #expect(colours == Set(0..<PeerColour.count))
        #expect(PeerColour(index: -1).index == 5 && PeerColour(index: 8).index == 2)
        #expect(bob.selectionSGR == "\u{1B}[43m" && bob.caretSGR == "\u{1B}[103m" && bob.labelSGR == "\u{1B}[30;43m")
    }

    @Test func aCaretColoursItsCellAndTheNameFollowsTheText() {
        let paints = PresencePainter.rowPaints(for: [caret(1, 2)], rows: 5, columns: 20)
        #expect(paints.keys.sorted() == [1])
        let painted = PresencePainter.paint("hello", paints[1]!, columns: 20)
        #expect(painted == "he\u{1B}[103ml\u{1B}[49mlo \u{1B}[30;43m bob \u{1B}[0m")
        #expect(PresencePainter.cells(of: painted) == 11)
    }

    @Test func aCaretPastTheTextGetsABlankCell() {
        let paints = PresencePainter.rowPaints(for: [caret(0, 4)], rows: 5, columns: 20)
        #expect(PresencePainter.paint("hi", paints[0]!, columns: 20) == "hi  \u{1B}[103m \u{1B}[49m \u{1B}[30;43m bob \u{1B}[0m")
    }

    @Test func aLabelThatDoesNotFitIsLeftOut() {
        let paints = PresencePainter.rowPaints(for: [caret(0, 0)], rows: 1, columns: 8)
        #expect(PresencePainter.paint("abcdef", paints[0]!, columns: 8) == "\u{1B}[103ma\u{1B}[49mbcdef")
    }

    /// A selection over three rows: to the end of the text on the first, the whole middle row,
    /// up to the end on the last; the renderer's resets inside do not end it.
    @Test func aSelectionSpansRowsAndSurvivesTheRenderersResets() {
        let mark = PeerMark(name: "bob", colour: bob, start: .init(row: 0, column: 3), caret: .init(row: 2, column: 1), end: .init(row: 2, column: 1))
        let paints = PresencePainter.rowPaints(for: [mark], rows: 3, columns: 10)
        #expect(paints[0]?.spans.map(\.columns) == [3..<10])
        #expect(paints[1]?.spans.map(\.columns) == [0..<10])
        #expect(paints[2]?.spans.map(\.columns) == [0..<1, 1..<2])
        #expect(PresencePainter.paint("abcd", paints[0]!, columns: 10) == "abc\u{1B}[43md\u{1B}[49m")
        #expect(PresencePainter.paint("\u{1B}[1mx\u{1B}[0my", paints[1]!, columns: 10) == "\u{1B}[1m\u{1B}[43mx\u{1B}[0m\u{1B}[43my\u{1B}[49m")
        // Rows above the screen are not painted, nor is a caret below it.
        let scrolled = PeerMark(name: "bob", colour: bob, start: .init(row: -3, column: 0), caret: .init(row: 4, column: 0), end: .init(row: 4, column: 0))
        #expect(PresencePainter.rowPaints(for: [scrolled], rows: 3, columns: 10).keys.sorted() == [0, 1, 2])
        #expect(PresencePainter.rowPaints(for: [scrolled], rows: 3, columns: 10).values.allSatisfy { $0.labels.isEmpty })
    }

    @Test func wideCharactersTakeTwoCells() {
        let paints = PresencePainter.rowPaints(for: [caret(0, 2)], rows: 1, columns: 20)
        #expect(PresencePainter.paint("日本", paints[0]!, columns: 20) == "日\u{1B}[103m本\u{1B}[49m \u{1B}[30;43m bob \u{1B}[0m")
    }
}

@Suite struct CollabStatusTests {
    @Test func whatTheStatusLineSays() {
        #expect(CollabStatus().text == "connecting…")
        #expect(CollabStatus(connection: .online).text == "online · alone")
        #expect(CollabStatus(connection: .online, peers: ["alice", "bob"]).text == "online · with alice, bob")
        #expect(CollabStatus(connection: .offline(reason: "connection closed")).text == "OFFLINE · reconnecting (connection closed)")
        #expect(CollabStatus(connection: .offline(reason: "x\ny"), offlineEdits: 1).text == "OFFLINE · 1 edit kept · reconnecting (x)")
        #expect(CollabStatus(connection: .offline(reason: ""), offlineEdits: 3).text == "OFFLINE · 3 edits kept · reconnecting")
    }

    @Test func theStatusLineIsCutByCells() {
        #expect(EditSession.cut("日本語", toCells: 5, ellipsis: false) == "日本")
        #expect(EditSession.cut("online · with alice", toCells: 10, ellipsis: true) == "online · …")
        #expect(EditSession.cut("short", toCells: 10, ellipsis: true) == "short")
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = Mutex<Int64>(1_000_000)
    var clock: EphemeralStore.Clock { { self.now.withLock { $0 } } }
    func advance(_ milliseconds: Int64) { now.withLock { $0 += milliseconds } }
}

@Suite struct CollabPresenceTests {
    let time = ManualClock()
    var clock: EphemeralStore.Clock { time.clock }
    static let text = ContainerID.root(name: "text", type: .text)

    func cursor(_ counter: Int32) -> Cursor { Cursor(container: Self.text, anchor: OpID(peer: 1, counter: counter), side: .after) }

    /// A published selection reaches the other peer with its name; an unmoved one is not sent
    /// again unless refreshed; leaving and timing out remove the peer.
    @Test func publishApplyLeaveAndTimeOut() throws {
        var alice = CollabPresence(key: "1", name: "alice", timeout: 10_000, clock: clock)
        var bob = CollabPresence(key: "2", name: "bob", timeout: 10_000, clock: clock)
        let published = alice.update(selection: (cursor(3), cursor(5)), force: false)
        let payload = try #require(published)
        let unmoved = alice.update(selection: (cursor(3), cursor(5)), force: false)
        let refreshed = alice.update(selection: (cursor(3), cursor(5)), force: true)
        #expect(unmoved == nil && refreshed != nil)
        try bob.apply(payload)
        #expect(bob.peerNames == ["alice"])
        let resolved = bob.selections { Int($0.anchor!.counter) * 10 }
        #expect(resolved == [EditSession.RemoteSelection(name: "alice", colour: PeerColour(key: "1"), anchor: 30, focus: 50)])
        // A peer's own entry is never listed as a peer.
        try alice.apply(payload)
        #expect(alice.peerNames.isEmpty)
        // Leaving.
        time.advance(1)
        let left = alice.leave()
        try bob.apply(try #require(left))
        #expect(bob.peerNames.isEmpty)
        let leftAgain = alice.leave()
        #expect(leftAgain == nil)
        // Timing out: a peer that stops refreshing goes.
        time.advance(1)
        let withoutSelection = alice.update(selection: nil, force: true)
        try bob.apply(try #require(withoutSelection))
        #expect(bob.peerNames == ["alice"] && bob.selections { _ in 0 }.isEmpty)
        time.advance(5_000)
        let earlyRemoval = bob.removeOutdated()
        #expect(!earlyRemoval)
        time.advance(6_000)
        let timedOut = bob.removeOutdated()
        #expect(timedOut)
        #expect(bob.peerNames.isEmpty)
    }

    @Test func anUnreadableCursorListsThePeerWithoutACaret() throws {
        var alice = CollabPresence(key: "1", name: "alice", timeout: 10_000, clock: clock)
        var store = EphemeralStore(timeout: 10_000, clock: clock)
        store.set("9", .map(["name": .string("mallory"), "anchor": .binary([0xFF]), "focus": .binary([0xFF])]))
        try alice.apply(store.encode("9"))
        #expect(alice.peerNames == ["mallory"])
        #expect(alice.selections { _ in 0 }.isEmpty)
    }
}
