import Foundation
import Testing

/// `.txt` through `quire convert` and `quire show`, and images drawn by `quire show` as boxes of
/// their cell size labelled with their alt text.
@Suite struct PlainTextAndImageCommandTests {
    /// A fresh directory, removed by `body`'s end.
    func inDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-txt-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    @Test(arguments: ["", "\n", "one line", "a\n\n\tb  \n", "héllo 👨‍👩‍👧\n日本語\n\n\n", String(repeating: "long ", count: 5_000) + "\n"])
    func convertTxtToTxtAndThroughJSONIsByteExact(_ text: String) throws {
        try inDirectory { directory in
            let source = directory.appendingPathComponent("a.txt")
            try Data(text.utf8).write(to: source)
            let copy = directory.appendingPathComponent("b.txt").path
            let direct = try QuireProcess.run(["convert", source.path, copy])
            #expect(direct.status == 0, "\(direct.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(text.utf8))
            let json = directory.appendingPathComponent("a.json").path
            #expect(try QuireProcess.run(["convert", source.path, json]).status == 0)
            let back = directory.appendingPathComponent("c.txt").path
            #expect(try QuireProcess.run(["convert", json, back]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(text.utf8))
        }
    }

    @Test func crlfIsReadAndWrittenAsLineFeeds() throws {
        try inDirectory { directory in
            let source = directory.appendingPathComponent("crlf.txt")
            try Data("a\r\nb\r\n".utf8).write(to: source)
            let result = try QuireProcess.run(["convert", source.path, directory.appendingPathComponent("lf.txt").path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try String(contentsOf: directory.appendingPathComponent("lf.txt"), encoding: .utf8) == "a\nb\n")
        }
    }

    @Test func markdownConvertsToTextAndTextShowsAsParagraphs() throws {
        try inDirectory { directory in
            let markdown = directory.appendingPathComponent("a.md")
            try Data("# Title\n\nSome *text* and ![a dot](dot.png).\n\n- one\n- two\n".utf8).write(to: markdown)
            let text = directory.appendingPathComponent("a.txt")
            let converted = try QuireProcess.run(["convert", markdown.path, text.path])
            #expect(converted.status == 0, "\(converted.stderr)")
            #expect(try String(contentsOf: text, encoding: .utf8) == "Title\nSome text and a dot.\none\ntwo")
            // A text file shows line under line, a blank line as a blank line.
            try Data("first\n\nthird line, long enough to wrap\n".utf8).write(to: text)
            let shown = try QuireProcess.run(["show", text.path, "--plain", "--width", "20"])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout == "first\n\nthird line, long\nenough to wrap\n\n")
        }
    }

    /// A PNG's first 24 bytes: all `ImageHeader` reads for its size.
    func png(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        for value in [width, height] { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return Data(bytes)
    }

    @Test func showDrawsImagesAsBoxesOfTheirCellSize() throws {
        try inDirectory { directory in
            try png(width: 80, height: 48).write(to: directory.appendingPathComponent("cat.png"))
            try png(width: 800, height: 160).write(to: directory.appendingPathComponent("wide.png"))
            let markdown = directory.appendingPathComponent("images.md")
            try Data("![a cat](cat.png) purrs\n\n![a very wide banner](wide.png)\n\n![gone](missing.png)\n".utf8).write(to: markdown)
            let result = try QuireProcess.run(["show", markdown.path, "--plain", "--width", "40"])
            #expect(result.status == 0, "\(result.stderr)")
            // 80 × 48 pixels at 8 × 16 a cell: 10 × 3 cells. 800 × 160: 100 × 10, capped at the
            // 40 cells of the width with its aspect ratio kept: 40 × 4. A failed load: its label.
            let expected = """
            ┌────────┐
            │a cat   │
            └────────┘ purrs

            ┌──────────────────────────────────────┐
            │a very wide banner                    │
            │                                      │
            └──────────────────────────────────────┘

            [! gone: no such file]

            """
            #expect(result.stdout == expected)
        }
    }
}
