import Foundation

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
