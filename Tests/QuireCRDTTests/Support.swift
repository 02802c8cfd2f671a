import Foundation
import QuireAlgorithms
import Testing
@testable import QuireCRDT

/// The project's seeded generator with the helpers these tests use. The seed is offset once so
/// that every seed keeps producing the cases it always has.
struct SeededRNG: RandomNumberGenerator {
    private var base: SeededGenerator
    init(seed: UInt64) { base = SeededGenerator(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }
    mutating func next() -> UInt64 { base.next() }
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/traces")

    /// Decompresses a gzipped fixture with the system gzip (Foundation has no gunzip on Linux).
    static func gunzip(_ name: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = ["-dc", directory.appendingPathComponent(name).path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError.gzipFailed(name, process.terminationStatus) }
        return data
    }

    static func trace(_ name: String) throws -> EditingTrace {
        try EditingTrace(json: gunzip(name))
    }
}

enum FixtureError: Error { case gzipFailed(String, Int32) }

/// Alphabet for random text: ASCII, combining marks, CJK, emoji (astral, ZWJ sequences).
let unicodeAlphabet: [String] = ["a", "b", "c", " ", "\n", "e\u{301}", "\u{301}", "中", "文", "字", "😀", "👍🏽", "👨‍👩‍👧", "ß", "é"]

func randomString(_ rng: inout SeededRNG, maxScalars: Int = 4) -> String {
    var s = ""
    for _ in 0..<rng.int(1..<(maxScalars + 1)) { s += unicodeAlphabet[rng.int(0..<unicodeAlphabet.count)] }
    return s
}
