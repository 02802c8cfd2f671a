import ArgumentParser
import Foundation

/// `quire edit FILE`: a full-screen terminal editor on the engine — the editor and its
/// reconciler into a text storage, drawn through the markup layout, the caret kept in view by
/// the viewport policies.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a document (.md, .txt or Lexical .json) in the terminal; a missing file is created on save.",
        discussion: """
        Keys: text and paste, Enter, Backspace, Delete, arrows, Home/End, PgUp/PgDn, Tab/Shift-Tab \
        (list indent, table cells), Ctrl-Z undo, Ctrl-Y redo, Ctrl-B bold, Ctrl-U underline, \
        Ctrl-S save, Ctrl-Q quit (twice with unsaved changes). Markdown shortcuts: # heading, - list, \
        1. numbered, [ ] check list, > quote, ``` code, --- rule, **bold**, *italic*, `code`, ~~strike~~.

        With --server and --room the editor joins a room of `quire serve`: the room's document is \
        shown (an empty room is seeded from FILE), peers' edits appear as they type, their carets in \
        their colours with their names, the status line lists them and the connection; typing while \
        the connection is lost is sent when it is back. Ctrl-S still saves the document to FILE.
        """
    )

    @Argument(help: "The document (.md, .txt or .json); created on save when missing.") var file: String
    @OptionGroup var config: ConfigOptions
    @Option(help: "Join a room of this `quire serve`, ws://HOST:PORT/ (with --room).") var server: String?
    @Option(help: "The room to join on --server.") var room: String?
    @Option(help: "The token sent when joining the room.") var token = ""
    @Option(help: "The name other peers see by your caret (default: $USER).") var name: String?

    func validate() throws {
        if (server == nil) != (room == nil) { throw ValidationError("--server and --room go together") }
        if server == nil, token != "" || name != nil { throw ValidationError("--token and --name need --server and --room") }
    }

    /// How long a lone ESC waits for the rest of a sequence.
    static let escapeTimeoutMilliseconds: Int32 = 25

    func run() async throws {
        let setup = try MarkupSetup(config)
        if let server, let room {
            let name = name ?? ProcessInfo.processInfo.environment["USER"] ?? "peer"
            try await CollabEdit.run(file: file, setup: setup, options: CollabOptions(server: server, room: room, token: token, name: name))
            return
        }
        let terminal = try Terminal()
        defer { terminal.restore() }
        let session = try EditSession(path: file, setup: setup, size: terminal.size)
        var decoder = KeyDecoder()
        var shown: ScreenFrame?
        func draw() {
            let frame = session.frame()
            guard frame != shown else { return }
            terminal.send(ScreenDiff.output(from: shown, to: frame))
            shown = frame
        }
        draw()
        loop: while true {
            switch terminal.waitForInput(timeoutMilliseconds: decoder.hasPending ? Self.escapeTimeoutMilliseconds : -1) {
            case .resize:
                let size = terminal.size
                try session.resize(columns: size.columns, rows: size.rows)
                shown = nil
            case .attachments:
                session.attachmentsDidLoad()
            case .timeout:
                for key in decoder.flush() where session.handle(key) == .quit { break loop }
            case .input:
                let bytes = try terminal.readInput()
                if bytes.isEmpty { break loop }
                for key in decoder.feed(bytes) where session.handle(key) == .quit { break loop }
            }
            draw()
        }
    }
}
