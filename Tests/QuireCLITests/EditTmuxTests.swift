#if canImport(Glibc)
import Glibc
#endif
import Foundation
import QuireJSON
import Testing

/// `quire edit` in a real terminal: a tmux session of its own (its own server socket), driven
/// with `send-keys` and read with `capture-pane`, as a person would use it.
final class TmuxEditor {
    let socket = "quire-test-\(UUID().uuidString.prefix(8))"
    let directory: URL

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Whether a tmux server can start here at all (the suite is skipped otherwise).
    static let canStart: Bool = {
        let socket = "quire-probe-\(UUID().uuidString.prefix(8))"
        guard let started = try? run(["-L", socket, "-f", "/dev/null", "new-session", "-d", "true"]), started.status == 0 else { return false }
        _ = try? run(["-L", socket, "kill-server"])
        return true
    }()

    /// Starts `quire edit FILE` (a name in a fresh temporary directory) in an 80×24 window.
    convenience init(file: String, contents: String? = nil, columns: Int = 80, rows: Int = 24, options: [String] = []) throws {
        try self.init(quire: ["edit", file] + options, files: contents.map { [file: $0] } ?? [:], columns: columns, rows: rows)
    }

    /// Starts `quire ARGUMENTS` in a fresh temporary directory holding `files`.
    init(quire arguments: [String], files: [String: String] = [:], columns: Int = 80, rows: Int = 24) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, contents) in files { try Data(contents.utf8).write(to: directory.appendingPathComponent(name)) }
        let command = Self.command(arguments)
        // remain-on-exit is set before the session starts, so that a quit is seen as a dead pane.
        try tmux(["-f", "/dev/null", "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
                  "new-session", "-d", "-s", "edit", "-x", "\(columns)", "-y", "\(rows)", "-c", directory.path, command])
    }

    /// The shell command that runs `quire ARGUMENTS` as the pane's process (exec: so that a test
    /// can signal it).
    static func command(_ arguments: [String]) -> String {
        "exec '\(QuireProcess.executable.path)' " + arguments.map { "'\($0)'" }.joined(separator: " ")
    }

    deinit {
        _ = try? Self.run(["-L", socket, "kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs tmux and waits for it with `waitpid`. Not through `Process`, which can set neither
    /// the signal mask nor the default handlers of the child (see below); output goes to a
    /// file, since the server a first command starts inherits the client's descriptors and a
    /// pipe would never reach its end.
    @discardableResult
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try spawn("/usr/bin/env", ["tmux"] + arguments)
    }

    /// Runs another tool (kill) the same way; returns its exit status.
    static func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
        try spawn(path, arguments).status
    }

    private static func spawn(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("quire-tmux-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The test process blocks most signals on its threads, and a spawned process inherits
        // that mask: the tmux server would then never see SIGCHLD or SIGTERM. Start it clean.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid: \(String(cString: strerror(errno)))") }
        }
        let output = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
        // Exited normally: the status is in the second byte; killed by a signal: report it as failure.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitStatus, String(decoding: output, as: UTF8.self))
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try Self.run(["-L", socket] + arguments)
        guard result.status == 0 else { throw Failure(description: "tmux \(arguments.joined(separator: " ")): \(result.output)") }
        return result.output
    }

    /// Types `text` literally (UTF-8 included).
    func type(_ text: String) throws { try tmux(["send-keys", "-t", "edit", "-l", "--", text]) }

    /// Types `text` and waits until the screen shows it.
    func typeShown(_ text: String) throws {
        try type(text)
        try waitFor(text: text)
    }

    /// `quire edit` on a new file, once it drew its first screen.
    static func newFile(_ name: String) throws -> TmuxEditor {
        let editor = try TmuxEditor(file: name)
        try editor.waitFor(text: "New file")
        return editor
    }

    /// Presses keys by tmux name: "Enter", "C-s", "BSpace", "Up", "BTab" …
    func press(_ keys: String...) throws { try tmux(["send-keys", "-t", "edit"] + keys) }

    /// Pastes `text` the way a terminal does it for an application that asked for bracketed paste.
    func paste(_ text: String) throws {
        try tmux(["set-buffer", "-b", "paste", text])
        try tmux(["paste-buffer", "-p", "-d", "-b", "paste", "-t", "edit"])
    }

    /// The screen's text, one string per row (trailing blanks removed).
    func screen(escapes: Bool = false) throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", "edit"] + (escapes ? ["-e"] : [])).split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
    }

    func value(_ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "edit", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var isRunning: Bool { get throws { try value("#{pane_dead}") != "1" } }

    /// The cursor's column and row.
    var cursor: (column: Int, row: Int) {
        get throws { (Int(try value("#{cursor_x}")) ?? -1, Int(try value("#{cursor_y}")) ?? -1) }
    }

    /// Polls until `condition` holds on the screen (at most `patience` times 20 ms, ten seconds
    /// by default: the editor redraws within a frame, the bound only ends a test that would hang).
    @discardableResult
    func waitFor(_ what: String, patience: Int = 500, _ condition: ([String]) throws -> Bool) throws -> [String] {
        for _ in 0..<patience {
            let screen = try self.screen()
            if try condition(screen) { return screen }
            usleep(20_000)
        }
        throw Failure(description: "the screen never showed \(what):\n" + (try screen()).joined(separator: "\n"))
    }

    func waitFor(text: String) throws { try waitFor("\"\(text)\"") { $0.joined(separator: "\n").contains(text) } }

    func waitForExit() throws {
        for _ in 0..<500 {
            if try !isRunning { return }
            usleep(20_000)
        }
        throw Failure(description: "quire edit did not exit")
    }

    /// The status line: the last row.
    func statusLine() throws -> String { try screen().last { !$0.isEmpty } ?? "" }

    func file(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    func fileExists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) }
}

@Suite(.enabled(if: TmuxEditor.canStart, "tmux cannot start here; the terminal editor tests need it"))
struct EditTmuxTests {
    @Test func typingWithShortcutsAndFormatsThenSavingMarkdown() throws {
        let editor = try TmuxEditor.newFile("notes.md")
        try editor.type("# Plan")
        try editor.press("Enter")
        try editor.type("- first")
        try editor.press("Enter")
        try editor.type("second")
        try editor.press("Enter", "Enter")
        try editor.type("Some **bold** and *slanted* and `code` and ~~old~~ words.")
        let screen = try editor.waitFor("the formatted paragraph") { $0.contains("Some bold and slanted and code and old words.") }
        #expect(screen[0] == "Plan")
        #expect(screen.contains("• first") && screen.contains("• second"))
        #expect(try editor.statusLine().contains("notes.md [+]"))
        // The formats are terminal attributes: bold (1), italic (3), code (36), strikethrough (9).
        let styled = try editor.screen(escapes: true).joined(separator: "\n")
        for code in ["[1mbold", "[3mslanted", "[36mcode", "[9mold"] { #expect(styled.contains(code), "SGR \(code)") }
        try editor.press("C-s")
        try editor.waitFor(text: "Saved")
        #expect(try editor.statusLine().contains("notes.md ") && !(try editor.statusLine().contains("[+]")))
        #expect(try editor.file("notes.md") == "# Plan\n\n- first\n- second\n\nSome **bold** and *slanted* and `code` and ~~old~~ words.\n")
    }

    @Test func undoRedoAndBoldUnderlineKeys() throws {
        let editor = try TmuxEditor.newFile("u.md")
        try editor.typeShown("alpha")
        try editor.press("C-z")
        try editor.waitFor("the undone text") { !$0.joined().contains("alpha") }
        try editor.press("C-y")
        try editor.waitFor(text: "alpha")
        try editor.press("C-b")
        try editor.type(" beta")
        try editor.press("C-b", "C-u")
        try editor.type(" gamma")
        try editor.waitFor(text: "alpha beta gamma")
        let styled = try editor.screen(escapes: true).joined(separator: "\n")
        // tmux writes attributes its own way (`ESC[0;4m`, colour resets); what matters is the code.
        #expect(styled.range(of: #"\[[0-9;]*\b1m beta"#, options: .regularExpression) != nil)
        #expect(styled.range(of: #"\[[0-9;]*\b4m(\x1B\[[0-9;]*m)* gamma"#, options: .regularExpression) != nil)
    }

    @Test func quitAsksOnceWithUnsavedChanges() throws {
        let editor = try TmuxEditor.newFile("q.md")
        try editor.typeShown("draft")
        try editor.press("C-q")
        try editor.waitFor(text: "Unsaved changes")
        #expect(try editor.isRunning)
        try editor.press("C-q")
        try editor.waitForExit()
        #expect(!editor.fileExists("q.md"))
        // The terminal is back: out of the alternate screen.
        #expect(try editor.value("#{alternate_on}") == "0")
    }

    @Test(arguments: ["TERM", "INT"])
    func aSignalRestoresTheTerminal(signal: String) throws {
        let editor = try TmuxEditor.newFile("s.md")
        #expect(try editor.value("#{alternate_on}") == "1")
        let pid = try editor.value("#{pane_pid}")
        let killed = try TmuxEditor.runTool("/bin/kill", ["-\(signal)", pid])
        #expect(killed == 0)
        try editor.waitForExit()
        #expect(try editor.value("#{alternate_on}") == "0")
    }

    @Test func quitWithoutChangesAndReopenAJSONDocument() throws {
        let json = #"{"root":{"type":"root","version":1,"children":[{"type":"heading","tag":"h2","version":1,"children":[{"type":"text","text":"Title","format":0,"detail":0,"mode":"normal","style":"","version":1}]},{"type":"paragraph","version":1,"children":[{"type":"text","text":"Body","format":0,"detail":0,"mode":"normal","style":"","version":1}]}]}}"#
        let editor = try TmuxEditor(file: "doc.json", contents: json)
        try editor.waitFor(text: "Body")
        try editor.press("C-q")
        try editor.waitForExit()

        let second = try TmuxEditor(file: "doc.json", contents: json)
        try second.waitFor(text: "Body")
        try second.press("Down", "End")
        try second.type(" text")
        try second.press("C-s")
        try second.waitFor(text: "Saved")
        let saved = try JSONParser.parse(try second.file("doc.json"))
        let children = saved.objectValue?["root"]?.objectValue?["children"]?.arrayValue ?? []
        #expect(children.count == 2)
        #expect(children.first?.objectValue?["tag"] == .string("h2"))
        let body = children.last?.objectValue?["children"]?.arrayValue?.first?.objectValue?["text"]
        #expect(body == .string("Body text"))
        try second.press("C-q")
        try second.waitForExit()
    }

    @Test func tableCellsLinksAndTabBetweenCells() throws {
        let editor = try TmuxEditor(file: "t.md", contents: "| a | b |\n|---|---|\n| 1 | 2 |\n\nsee [the site](https://example.com) now\n")
        try editor.waitFor(text: "see the site now")
        let screen = try editor.screen()
        #expect(Array(screen.prefix(2)) == ["a│b", "1│2"])
        // The link is underlined.
        #expect(try editor.screen(escapes: true).joined().range(of: #"\[[0-9;]*\b4m(\x1B\[[0-9;]*m)*the site"#, options: .regularExpression) != nil)
        // Tab goes to the next cell (the table plugin's Tab), typing lands there.
        try editor.press("Tab")
        try editor.type("X")
        try editor.waitFor(text: "a│bX")
        try editor.press("C-s")
        try editor.waitFor(text: "Saved")
        #expect(try editor.file("t.md").hasPrefix("| a | bX |\n"))
    }

    @Test func aWriteErrorIsShownAndNothingIsLost() throws {
        let editor = try TmuxEditor.newFile("missing-dir/x.md")
        try editor.type("keep me")
        try editor.press("C-s")
        try editor.waitFor(text: "Not saved")
        #expect(try editor.screen()[0] == "keep me")
        #expect(try editor.statusLine().contains("[+]"))
        #expect(try editor.isRunning)
    }

    @Test func resizeReflowsAndKeepsTheStatusLineAtTheBottom() throws {
        let editor = try TmuxEditor.newFile("r.md")
        let words = (1...12).map { "word\($0)" }.joined(separator: " ")
        try editor.typeShown(words)
        #expect(try editor.screen()[0] == words)
        try editor.tmux(["resize-window", "-t", "edit", "-x", "30", "-y", "10"])
        let screen = try editor.waitFor("the text rewrapped at 30 columns under a status line on row 10") {
            $0.count >= 10 && $0[9].contains("r.md") && $0[1].hasPrefix("word")
        }
        #expect(screen.prefix { !$0.hasPrefix("~") }.joined(separator: " ") == words)
        #expect(screen[9].contains("r.md"))
        // The caret is after the last word, on the last wrapped line.
        let cursor = try editor.cursor
        let lastLine = screen.prefix(9).lastIndex { !$0.isEmpty && !$0.hasPrefix("~") } ?? -1
        #expect(cursor.row == lastLine)
        #expect(cursor.column == screen[lastLine].count)
    }

    @Test func wideCharactersTakeTwoCellsAndPasteArrivesAsText() throws {
        let editor = try TmuxEditor.newFile("w.md")
        try editor.typeShown("日本語のテキスト")
        #expect(try editor.cursor.column == 16)
        #expect(try editor.statusLine().hasSuffix("1:9"))
        try editor.press("Left", "Left")
        try editor.waitFor("the caret two characters back") { _ in try editor.cursor.column == 12 }
        try editor.paste("# not a heading\nsecond line")
        let screen = try editor.waitFor("the pasted lines") { $0[1].hasPrefix("second line") }
        #expect(screen[0] == "日本語のテキ# not a heading")
        #expect(screen[1] == "second lineスト")
    }
}

@Suite struct EditWithoutTerminalTests {
    /// CI has no terminal: `quire edit` says so and exits, touching nothing.
    @Test func refusesWithoutATerminal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try QuireProcess.run(["edit", "new.md"], stdin: "", in: directory)
        #expect(result.status != 0)
        #expect(result.stderr.contains("quire edit needs a terminal"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.md").path))
    }

    /// The collaboration options go together, and are checked before anything connects.
    @Test(arguments: [["--server", "ws://127.0.0.1:1/"], ["--room", "r"], ["--name", "n"]])
    func collaborationOptionsAreCheckedFirst(options: [String]) throws {
        let result = try QuireProcess.run(["edit", "new.md"] + options, stdin: "")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--server and --room go together") || result.stderr.contains("need --server and --room"))
    }
}
