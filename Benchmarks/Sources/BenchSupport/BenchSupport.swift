import Foundation
import QuireAlgorithms

/// Timing helpers shared by every benchmark: each one measures Quire and a baseline in the same
/// run, so the numbers reported are ratios on this machine, never bare absolute times.
public enum Bench {
    /// Runs `body` once and returns the elapsed time in seconds.
    public static func time(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        return seconds(elapsed)
    }

    /// Runs `body` `repetitions` times and returns the fastest run in seconds, the usual estimate
    /// of the cost without scheduling noise.
    public static func best(of repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
        var fastest = Double.infinity
        for _ in 0..<max(1, repetitions) {
            fastest = min(fastest, try time(body))
        }
        return fastest
    }

    /// Converts a `Duration` to seconds.
    public static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// The value at quantile `q` (0...1) of `samples`; the input need not be sorted.
    public static func percentile(_ samples: [Double], _ q: Double) -> Double {
        precondition(!samples.isEmpty, "percentile of no samples")
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count - 1) * q).rounded())))
        return sorted[index]
    }

    /// Formats seconds with a unit a reader takes in at a glance.
    public static func format(_ seconds: Double) -> String {
        switch seconds {
        case ..<1e-6: return String(format: "%.1f ns", seconds * 1e9)
        case ..<1e-3: return String(format: "%.2f µs", seconds * 1e6)
        case ..<1: return String(format: "%.2f ms", seconds * 1e3)
        default: return String(format: "%.3f s", seconds)
        }
    }

    /// The resident set size of this process in bytes, read from /proc on Linux; nil elsewhere.
    public static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return nil
        }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.split(separator: " ").dropFirst().first
            if let digits, let kilobytes = Int(digits) { return kilobytes * 1024 }
        }
        return nil
    }

    /// Prints a Markdown table, which is how every benchmark reports.
    public static func table(_ header: [String], _ rows: [[String]]) {
        print("| " + header.joined(separator: " | ") + " |")
        print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
        for row in rows { print("| " + row.joined(separator: " | ") + " |") }
    }
}

/// Reproducible randomness: every benchmark draws its workload from one `SeededGenerator` whose
/// seed it prints, so a surprising run can be repeated exactly.
extension Bench {
    /// The environment variable that overrides the seed (`--seed N` on the command line wins).
    public static let seedVariable = "QUIRE_BENCH_SEED"

    /// The command-line arguments after the program name, without `--seed N`: what is left for
    /// the benchmark's own options.
    public static var arguments: [String] {
        var result: [String] = []
        var iterator = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            if argument == "--seed" { _ = iterator.next() } else { result.append(argument) }
        }
        return result
    }

    /// The seed of this run: `--seed N` on the command line, else `QUIRE_BENCH_SEED`, else
    /// `defaultSeed`. Decimal or `0x` hexadecimal; a malformed value stops the run rather than
    /// silently measuring another workload.
    public static func seed(default defaultSeed: UInt64) -> UInt64 {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let text: String?
        if let flag = arguments.firstIndex(of: "--seed") {
            guard flag + 1 < arguments.count else { fatalError("--seed needs a value") }
            text = arguments[flag + 1]
        } else {
            text = ProcessInfo.processInfo.environment[seedVariable]
        }
        guard let text else { return defaultSeed }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let parsed else { fatalError("seed \(text.debugDescription) is not a UInt64 (decimal or 0x hexadecimal)") }
        return parsed
    }

    /// A generator seeded with `seed(default:)`, after printing the seed and how to rerun with it.
    public static func generator(default defaultSeed: UInt64) -> SeededGenerator {
        let seed = seed(default: defaultSeed)
        print("seed \(seed) (rerun with --seed \(seed) or \(seedVariable)=\(seed))\n")
        return SeededGenerator(seed: seed)
    }
}
