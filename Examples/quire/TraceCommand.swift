import ArgumentParser
import Foundation
import QuireCRDT

/// `quire trace …`: editing-trace tools for the CRDT store.
struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Replay editing traces (josephg/editing-traces format) into QuireCRDT.",
        subcommands: [Replay.self]
    )

    /// `quire trace replay FILE.json.gz`
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a sequential or concurrent trace and check the final text against endContent.",
            discussion: """
            Sequential traces replay on one peer with a commit per transaction. Concurrent traces \
            (with `parents`/`agent`) replay with one peer per agent: before each transaction the agent \
            imports exactly the causal history of its parents; at the end every agent imports \
            everything. Exits with status 1 when the text differs from endContent or peers diverge.
            """
        )

        @Argument(help: "A trace file: .json or .json.gz.")
        var file: String

        @Flag(help: "Commit once at the end instead of after every transaction (sequential traces).")
        var oneCommit = false

        @Option(help: "The most bytes a .gz trace may expand to (a gzip bomb stops there).")
        var maxDecompressedBytes = Self.defaultMaximumDecompressedBytes

        func validate() throws {
            guard maxDecompressedBytes > 0 else { throw ValidationError("--max-decompressed-bytes must be positive, not \(maxDecompressedBytes)") }
        }

        func run() throws {
            // The decompressed bytes are a temporary: only the parsed trace outlives this line.
            let trace = try EditingTrace(json: Self.read(file, limit: maxDecompressedBytes))
            let name = URL(fileURLWithPath: file).lastPathComponent
            let clock = ContinuousClock()
            var text = ""
            var snapshotBytes = 0
            var converged = true
            let elapsed: Duration
            if trace.isConcurrent {
                var result: TraceReplay.ConcurrentResult?
                elapsed = try clock.measure { result = try TraceReplay.replayConcurrent(trace) }
                let agents = result?.agents ?? []
                text = agents.first?.text(TraceReplay.textID) ?? ""
                converged = agents.allSatisfy { $0.text(TraceReplay.textID) == text && $0.version == agents[0].version }
                snapshotBytes = agents.first?.exportSnapshot().count ?? 0
                print("trace: \(name) (concurrent, \(trace.agentCount) agents)")
                print("peers converge: \(converged ? "yes" : "NO")")
            } else {
                var doc: CRDTDocument?
                elapsed = try clock.measure { doc = try TraceReplay.replaySequential(trace, commitEachTransaction: !oneCommit) }
                text = doc?.text(TraceReplay.textID) ?? ""
                snapshotBytes = doc?.exportSnapshot().count ?? 0
                print("trace: \(name) (sequential)")
            }
            let matches = text == trace.endContent
            print("ops: \(trace.patchCount) patches in \(trace.transactions.count) transactions")
            print("replay: \(Self.format(elapsed))")
            print("snapshot: \(snapshotBytes) bytes")
            print("final text equals endContent: \(matches ? "yes" : "NO")")
            if !matches {
                let a = Array(text.unicodeScalars), b = Array(trace.endContent.unicodeScalars)
                let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
                print("first difference at scalar \(first): lengths \(a.count) (replay) vs \(b.count) (endContent)")
                if trace.isConcurrent {
                    print("concurrent inserts at the same spot are ordered by Fugue (Loro's rules); the trace's")
                    print("endContent records the original editor's order, which may differ there.")
                }
            }
            if !matches || !converged { throw ExitCode(1) }
        }

        /// The most bytes a compressed trace may expand to by default: the largest trace of the
        /// editing-traces corpus is far below it, a gzip bomb is far above.
        static let defaultMaximumDecompressedBytes = 512 << 20

        struct TooLarge: Error, CustomStringConvertible {
            let path: String
            let limit: Int
            var description: String { "the trace expands beyond \(limit) bytes when decompressed; --max-decompressed-bytes raises the limit (\(path))" }
        }

        static func read(_ path: String, limit: Int) throws -> [UInt8] {
            guard path.hasSuffix(".gz") else { return try InputFile.read(path) }
            try InputFile.checkReadable(path)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["gzip", "-dc", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            var bytes: [UInt8] = []
            while true {
                let chunk = pipe.fileHandleForReading.readData(ofLength: 1 << 20)
                if chunk.isEmpty { break }
                bytes.append(contentsOf: chunk)
                if bytes.count > limit {
                    process.terminate()
                    process.waitUntilExit()
                    throw TooLarge(path: path, limit: limit)
                }
            }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw InputFile.ReadError(path: path, reason: "gzip could not decompress it (status \(process.terminationStatus))")
            }
            return bytes
        }

        static func format(_ d: Duration) -> String {
            let c = d.components
            let seconds = Double(c.seconds) + Double(c.attoseconds) * 1e-18
            return seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.3f s", seconds)
        }
    }
}
