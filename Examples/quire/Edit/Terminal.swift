#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The controlling terminal in full-screen mode: raw input (no echo, no line buffering, no
/// signals or flow control from keys, so Ctrl-Z, Ctrl-S and Ctrl-Q reach the editor), the
/// alternate screen and bracketed paste. ``restore()`` puts everything back; it runs on every
/// way out: a normal exit, a thrown error (the caller's `defer`) and SIGINT/SIGTERM (the signal
/// handler). SIGWINCH is reported through ``waitForInput(timeoutMilliseconds:)``.
final class Terminal {
    enum Error: Swift.Error, CustomStringConvertible {
        case notATerminal
        case failed(operation: String, code: Int32)

        var description: String {
            switch self {
            case .notATerminal: "quire edit needs a terminal: standard input and output are not one (use convert or show to work on files)"
            case .failed(let operation, let code): "terminal: \(operation) failed: \(String(cString: strerror(code)))"
            }
        }
    }

    /// What woke ``waitForInput(timeoutMilliseconds:)``.
    enum Wake { case input, resize, attachments, timeout }

    private var original = termios()
    private var active = false

    /// Enters raw mode and the alternate screen.
    ///
    /// - Throws: `Terminal.Error` when standard input is not a terminal.
    init() throws {
        try Self.requireTerminal()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { throw Error.failed(operation: "tcgetattr", code: errno) }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { throw Error.failed(operation: "tcsetattr", code: errno) }
        active = true
        TerminalSignals.install(original: original)
        send("\u{1B}[?1049h\u{1B}[?2004h\u{1B}[H\u{1B}[2J")
    }

    /// Throws `Terminal.Error.notATerminal` unless standard input and output are a terminal.
    static func requireTerminal() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw Error.notATerminal }
    }

    deinit { restore() }

    /// Leaves the alternate screen and raw mode. Safe to call more than once.
    func restore() {
        guard active else { return }
        active = false
        send("\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l")
        var saved = original
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        TerminalSignals.uninstall()
    }

    /// The size in cells (80×24 when the terminal does not say).
    var size: (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes `string` to the terminal, all of it.
    func send(_ string: String) {
        var bytes = Array(string.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Waits until input arrives, the terminal was resized, or the timeout passed (-1: none).
    func waitForInput(timeoutMilliseconds: Int32) -> Wake { Self.waitForInput(timeoutMilliseconds: timeoutMilliseconds) }

    func readInput() throws -> [UInt8] { try Self.readInput() }

    /// What the input thread of ``readInputInBackground(_:)`` reports.
    enum Input: Sendable {
        case bytes([UInt8])
        case resize
        /// An image finished loading: lay the document out again.
        case attachments
        /// End of input, or a read error: the session ends.
        case ended(String?)
    }

    /// Reads standard input and resizes on a thread of its own and reports them to `report`, so
    /// that an asynchronous loop can wait for keys and network events together. The thread
    /// blocks in `poll` (a thread of the cooperative pool must not) and ends at end of input.
    func readInputInBackground(_ report: @escaping @Sendable (Input) -> Void) {
        let thread = Thread {
            while true {
                switch Self.waitForInput(timeoutMilliseconds: -1) {
                case .timeout: continue
                case .resize: report(.resize)
                case .attachments: report(.attachments)
                case .input:
                    do {
                        let bytes = try Self.readInput()
                        if bytes.isEmpty {
                            report(.ended(nil))
                            return
                        }
                        report(.bytes(bytes))
                    } catch {
                        report(.ended("\(error)"))
                        return
                    }
                }
            }
        }
        thread.name = "quire edit input"
        thread.start()
    }

    private static func waitForInput(timeoutMilliseconds: Int32) -> Wake {
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: TerminalSignals.resizePipe.read, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: TerminalSignals.attachmentPipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&fds, 3, timeoutMilliseconds)
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return .timeout }
            for (index, wake) in [(1, Wake.resize), (2, Wake.attachments)] where fds[index].revents & Int16(POLLIN) != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(fds[index].fd, &drain, drain.count)
                return wake
            }
            return .input
        }
    }

    private static func readInput() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Error.failed(operation: "read", code: errno)
            }
            return Array(buffer[..<count])
        }
    }
}

/// The process-wide signal state: C signal handlers cannot capture, so what they need lives in
/// globals written before the handlers are installed.
enum TerminalSignals {
    /// Wakes the poll loop: an attachment finished loading.
    static func attachmentsLoaded() {
        var byte: UInt8 = 1
        _ = write(attachmentPipe.write, &byte, 1)
    }

    /// SIGWINCH writes a byte here; the poll loop reads it.
    nonisolated(unsafe) static var resizePipe: (read: Int32, write: Int32) = (-1, -1)
    /// A finished image load writes a byte here (`attachmentsLoaded()`), from the load's task; the
    /// poll loop reads it and lays the document out again.
    nonisolated(unsafe) static var attachmentPipe: (read: Int32, write: Int32) = (-1, -1)
    /// The settings to restore on SIGINT and SIGTERM. Kept on the heap: a global of the imported
    /// `termios` type overflowed when assigned (AddressSanitizer, global-buffer-overflow: the
    /// copy wrote past the global's end).
    nonisolated(unsafe) static let saved: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()

    static func install(original: termios) {
        saved.pointee = original
        func makePipe(_ ends: inout (read: Int32, write: Int32)) {
            guard ends.read < 0 else { return }
            var fds: [Int32] = [0, 0]
            if pipe(&fds) == 0 {
                ends = (fds[0], fds[1])
                _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
            }
        }
        makePipe(&resizePipe)
        makePipe(&attachmentPipe)
        signal(SIGWINCH) { _ in
            var byte: UInt8 = 1
            _ = write(TerminalSignals.resizePipe.write, &byte, 1)
        }
        // SIGINT and SIGTERM: put the terminal back (only async-signal-safe calls), then die of
        // the signal as the default action would.
        let leave: @convention(c) (Int32) -> Void = { signalNumber in
            let reset = Array("\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l".utf8)
            _ = reset.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            tcsetattr(STDIN_FILENO, TCSAFLUSH, TerminalSignals.saved)
            signal(signalNumber, SIG_DFL)
            raise(signalNumber)
        }
        signal(SIGINT, leave)
        signal(SIGTERM, leave)
    }

    static func uninstall() {
        signal(SIGWINCH, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
