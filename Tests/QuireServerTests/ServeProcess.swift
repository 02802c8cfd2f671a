import Foundation
import Testing

/// `quire serve` as its own process (built into the same products directory as the tests).
final class ServeProcess: @unchecked Sendable {
    // The process and pipe are only touched by the test that owns this value.
    let process = Process()
    let port: Int
    let stderrPath: String

    static var executable: URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [products, products.deletingLastPathComponent()].map { $0.appendingPathComponent("quire") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    var url: String { "ws://127.0.0.1:\(port)/" }

    /// Starts `quire serve ARGUMENTS --port 0` and waits for its readiness line.
    init(_ arguments: [String]) throws {
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--log-level", "notice"] + arguments
        let output = Pipe()
        stderrPath = TestFiles.temporary("serve.log")
        guard FileManager.default.createFile(atPath: stderrPath, contents: nil) else { throw TestFailure("cannot create \(stderrPath)") }
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        var line = ""
        let handle = output.fileHandleForReading
        while !line.hasSuffix("\n") {
            let byte = handle.readData(ofLength: 1)
            guard !byte.isEmpty else {
                let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                throw TestFailure("quire serve exited before its readiness line: \(log)")
            }
            line += String(decoding: byte, as: UTF8.self)
        }
        // "quire serve: listening on ws://127.0.0.1:PORT/ (storage …)"
        guard let range = line.range(of: #"ws://[^:]+:(\d+)/"#, options: .regularExpression),
              let port = Int(line[range].split(separator: ":").last!.dropLast()) else {
            throw TestFailure("unexpected readiness line: \(line)")
        }
        self.port = port
    }

    /// Resident memory in bytes (Linux).
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return 0 }
        return kb * 1024
    }

    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A test that fails half-way leaves no server behind.
    deinit { kill() }

    /// SIGTERM, then waits; returns the exit status.
    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

/// The interop virtualenv's Python (with `loro` and `websockets`), when `make test` set it up.
enum InteropPython {
    static var path: String? {
        guard let python = ProcessInfo.processInfo.environment["QUIRE_LORO_PYTHON"], FileManager.default.isExecutableFile(atPath: python) else { return nil }
        return python
    }

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Interop")

    /// Runs a script; returns its standard output, or throws with its standard error.
    static func run(_ script: String, _ arguments: [String]) throws -> String {
        guard let python = path else { throw TestFailure("no QUIRE_LORO_PYTHON") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [scripts.appendingPathComponent(script).path] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(script) failed (\(process.terminationStatus)): \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self)
    }
}
