#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `quire serve` in a tmux pane of its own, on loopback: a fixed port below Linux's ephemeral
/// range (32768–60999), so that it can be killed and started again on the same port without a
/// test running beside it taking the port meanwhile; a port some program holds is skipped.
final class TmuxServer {
    let pane: TmuxEditor
    let port: Int
    var url: String { "ws://127.0.0.1:\(port)/" }
    var arguments: [String] { ["serve", "--port", "\(port)", "--database", "sqlite:rooms.sqlite", "--log-level", "notice"] }

    init() throws {
        var refusals: [String] = []
        for _ in 0..<20 {
            let port = Int.random(in: 20_000..<32_000)
            let pane = try TmuxEditor(quire: ["serve", "--port", "\(port)", "--database", "sqlite:rooms.sqlite", "--log-level", "notice"])
            if try Self.waitForListening(pane) {
                self.pane = pane
                self.port = port
                return
            }
            refusals.append(try pane.screen().joined(separator: " ").trimmingCharacters(in: .whitespaces))
        }
        throw TmuxEditor.Failure(description: "quire serve found no free port below the ephemeral range: \(refusals.suffix(3))")
    }

    /// Whether the server printed its readiness line (false when it exited, e.g. on a busy port).
    private static func waitForListening(_ pane: TmuxEditor) throws -> Bool {
        for _ in 0..<500 {
            if try pane.screen().joined().contains("listening on") { return true }
            if try !pane.isRunning { return false }
            usleep(20_000)
        }
        throw TmuxEditor.Failure(description: "quire serve did not start:\n" + (try pane.screen()).joined(separator: "\n"))
    }

    /// Kills the server as a crash would (SIGKILL: no goodbye to the clients).
    func kill() throws {
        let pid = try pane.value("#{pane_pid}")
        #expect(try TmuxEditor.runTool("/bin/kill", ["-KILL", pid]) == 0)
        try pane.waitForExit()
    }

    /// Starts the server again in its pane, on the same port and database.
    func restart() throws {
        for _ in 0..<50 {
            try pane.tmux(["respawn-pane", "-k", "-t", "edit", TmuxEditor.command(arguments)])
            if try Self.waitForListening(pane) { return }
            // The old listener's socket is still being released.
            usleep(100_000)
        }
        throw TmuxEditor.Failure(description: "quire serve did not start again on port \(port)")
    }

    /// `quire edit FILE` joined to `room` as `name`.
    func editor(_ file: String, contents: String? = nil, room: String, name: String, rows: Int = 24, patience: Int = 500) throws -> TmuxEditor {
        let editor = try TmuxEditor(file: file, contents: contents, rows: rows, options: ["--server", url, "--room", room, "--name", name])
        try editor.waitFor("\(name) online", patience: patience) { ($0.last { !$0.isEmpty } ?? "").contains("online") }
        return editor
    }
}

@Suite(.enabled(if: TmuxEditor.canStart, "tmux cannot start here; the terminal editor tests need it"))
struct CollabEditTmuxTests {
    /// Two editors in one room: the first seeds it from its file, the second shows the room (not
    /// its own file), each sees the other's typing and caret with its name, the local caret
    /// stays put, and saving writes the room's document.
    @Test func twoEditorsSeeEachOthersTypingAndCarets() throws {
        let server = try TmuxServer()
        let alice = try server.editor("a.md", contents: "# Shared\n\nfirst line\n", room: "notes", name: "alice")
        #expect(try alice.statusLine().contains("online · alone"))
        // Bob's own file is not what the room holds: the room is not seeded twice.
        let bob = try server.editor("b.md", contents: "# Other\n", room: "notes", name: "bob")
        try bob.waitFor(text: "first line")
        #expect(try !bob.screen().joined().contains("Other"))
        try alice.waitFor("bob in alice's status line") { ($0.last { !$0.isEmpty } ?? "").contains("with bob") }
        try bob.waitFor("alice in bob's status line") { ($0.last { !$0.isEmpty } ?? "").contains("with alice") }

        // Alice types at the end of the paragraph; Bob sees it, and her caret with her name there.
        try alice.press("Down", "Down", "End")
        try alice.typeShown(" from alice")
        let bobScreen = try bob.waitFor("alice's text and label") { $0.contains { Self.matches($0, #"^first line from alice\s+alice$"#) } }
        #expect(bobScreen[0] == "Shared")
        let aliceCaret = try alice.cursor
        // Bob types at the start of the heading; Alice sees it with his label, her caret unmoved.
        try bob.typeShown("bob was here: ")
        try alice.waitFor("bob's text and label") { Self.matches($0[0], #"^bob was here: Shared\s+bob$"#) }
        #expect(try alice.cursor == aliceCaret)
        // The label and the caret cell are drawn in bob's colour (SGR background 41–46, bright 101–106).
        let styled = try alice.screen(escapes: true).first ?? ""
        #expect(styled.range(of: #"\[[0-9;]*\b4[1-6]m bob"#, options: .regularExpression) != nil, "\(styled.debugDescription)")
        #expect(styled.range(of: #"\[[0-9;]*\b10[1-6]m"#, options: .regularExpression) != nil, "\(styled.debugDescription)")

        // Both ways again, and the saved file holds the room's document.
        try alice.typeShown("!")
        try bob.waitFor(text: "first line from alice!")
        try bob.press("C-s")
        try bob.waitFor(text: "Saved")
        #expect(try bob.file("b.md") == "# bob was here: Shared\n\nfirst line from alice!\n")

        // Alice leaves: her caret and name go from Bob's screen at once.
        try alice.press("C-q", "C-q")
        try alice.waitForExit()
        let left = try bob.waitFor("alice gone") { ($0.last { !$0.isEmpty } ?? "").contains("alone") }
        #expect(left.contains("first line from alice!"))
    }

    static func matches(_ row: String, _ pattern: String) -> Bool { row.range(of: pattern, options: .regularExpression) != nil }

    /// A peer's edits above what the reader looks at do not scroll the reader: the same lines
    /// stay on the screen and the caret stays on its line.
    @Test func aRemoteEditAboveTheViewportDoesNotScrollIt() throws {
        let server = try TmuxServer()
        let lines = (1...80).map { "line \($0)" }.joined(separator: "\n\n") + "\n"
        let reader = try server.editor("long.md", contents: lines, room: "long", name: "reader")
        let writer = try server.editor("w.md", room: "long", name: "writer")
        try reader.press("PageDown", "PageDown", "PageDown")
        let before = try reader.waitFor("the reader scrolled down") { !$0[0].hasPrefix("line 1") && $0[0].hasPrefix("line ") }
        let caret = try reader.cursor
        let position = try Self.caretPosition(reader)
        try writer.press("Enter", "Enter", "Enter")
        try writer.typeShown("new lines on top")
        // The status line counts the caret's line in the whole text: three more lines above it.
        let after = try reader.waitFor("the writer's lines above") { _ in try Self.caretPosition(reader).line == position.line + 3 }
        #expect(Array(after.prefix(23)) == Array(before.prefix(23)))
        #expect(try reader.cursor == caret)
    }

    /// The caret's line and column as the status line shows them ("… 12:5").
    static func caretPosition(_ editor: TmuxEditor) throws -> (line: Int, column: Int) {
        let numbers = try editor.statusLine().split(separator: " ").last?.split(separator: ":").compactMap { Int($0) } ?? []
        guard numbers.count == 2 else { throw TmuxEditor.Failure(description: "no position in the status line: \(try editor.statusLine())") }
        return (numbers[0], numbers[1])
    }

    /// The server dies: the status line says so, typing goes on, and once the server is back the
    /// typing reaches the room (a new editor joining sees it).
    @Test func aLostServerIsShownAndTypingMeanwhileArrives() throws {
        let server = try TmuxServer()
        let alice = try server.editor("a.md", contents: "before\n", room: "outage", name: "alice")
        try alice.press("End")
        try server.kill()
        try alice.waitFor("the lost connection") { ($0.last { !$0.isEmpty } ?? "").contains("OFFLINE") }
        try alice.typeShown(" typed offline")
        try alice.waitFor("the kept edits") { ($0.last { !$0.isEmpty } ?? "").contains("1 edit kept") }
        try server.restart()
        try alice.waitFor("the connection back") { ($0.last { !$0.isEmpty } ?? "").contains("online") }
        let bob = try server.editor("b.md", room: "outage", name: "bob")
        try bob.waitFor(text: "before typed offline")
    }
}

/// Latency through the pseudo-terminal, run by hand (`QUIRE_EDIT_LATENCY=1 swift test --filter
/// EditLatency`): it prints percentiles and asserts nothing about time.
@Suite(.serialized, .enabled(if: TmuxEditor.canStart && ProcessInfo.processInfo.environment["QUIRE_EDIT_LATENCY"] == "1", "set QUIRE_EDIT_LATENCY=1 to measure"))
struct EditLatencyMeasurements {
    static let paragraphs = Int(ProcessInfo.processInfo.environment["QUIRE_EDIT_LATENCY_PARAGRAPHS"] ?? "") ?? 10_000
    static let keystrokes = Int(ProcessInfo.processInfo.environment["QUIRE_EDIT_LATENCY_KEYS"] ?? "") ?? 200

    static var document: String {
        (1...paragraphs).map { "Paragraph \($0): the quick brown fox jumps over the lazy dog." }.joined(separator: "\n\n") + "\n"
    }

    /// Presses `count` keys in `typist` — "x" and Backspace in turn at the start of the document
    /// — each time waiting until `watcher`'s first row shows the change; returns the milliseconds
    /// from send-keys to the screen.
    static func measure(typing typist: TmuxEditor, watching watcher: TmuxEditor, count: Int, adding key: String = "x") throws -> [Double] {
        var samples: [Double] = []
        for index in 0..<count {
            let adding = index % 2 == 0
            let start = ContinuousClock.now
            if adding { try typist.press(key) } else { try typist.press("BSpace") }
            while true {
                let row = try watcher.tmux(["capture-pane", "-p", "-t", "edit", "-S", "0", "-E", "0"])
                // Enter leaves the first row empty; a letter goes before the paragraph's text.
                let shown = key == "Enter" ? !row.hasPrefix("Paragraph 1:") : row.hasPrefix("\(key)Paragraph 1:")
                if shown == adding { break }
                if ContinuousClock.now - start > .seconds(60) { throw TmuxEditor.Failure(description: "key \(index) never shown: \(row)") }
            }
            let elapsed = ContinuousClock.now - start
            samples.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        return samples
    }

    static func report(_ what: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        print(String(format: "%@: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d keystrokes, %d paragraphs)",
                     what, percentile(0.5), percentile(0.99), sorted.last ?? 0, sorted.count, paragraphs))
    }

    @Test func keystrokeToScreen() throws {
        let editor = try TmuxEditor(file: "big.md", contents: Self.document)
        try editor.waitFor("the document", patience: 15_000) { $0.joined().contains("Paragraph 1:") }
        Self.report("local keystroke → screen", try Self.measure(typing: editor, watching: editor, count: Self.keystrokes))
    }

    /// Enter and Backspace at the start of the document change its blocks: each lays the document
    /// out whole (reusing every paragraph that did not change).
    @Test func blockChangeToScreen() throws {
        let editor = try TmuxEditor(file: "big.md", contents: Self.document)
        try editor.waitFor("the document", patience: 15_000) { $0.joined().contains("Paragraph 1:") }
        Self.report("Enter/Backspace → screen", try Self.measure(typing: editor, watching: editor, count: Self.keystrokes, adding: "Enter"))
    }

    @Test func remoteKeystrokeToTheOtherScreen() throws {
        let server = try TmuxServer()
        let typist = try server.editor("big.md", contents: Self.document, room: "big", name: "typist", patience: 15_000)
        let watcher = try server.editor("other.md", room: "big", name: "watcher", patience: 15_000)
        try watcher.waitFor("the document", patience: 15_000) { $0.joined().contains("Paragraph 1:") }
        Self.report("remote keystroke → other screen", try Self.measure(typing: typist, watching: watcher, count: Self.keystrokes))
    }
}
