import Foundation
import Testing

/// `quire edit` on a document with images (loaded in the background, the screen redrawn as each
/// load ends) and on a plain-text file (saved back byte for byte).
@Suite(.enabled(if: TmuxEditor.canStart, "tmux cannot start here; the terminal editor tests need it"))
struct EditImagesAndTextTmuxTests {
    @Test func imagesShowAsPlaceholdersThatLoadsFillIn() throws {
        let images = FileManager.default.temporaryDirectory.appendingPathComponent("quire-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: images) }
        // A PNG's signature and IHDR: what the file loader reads for its size.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 80, 0, 0, 0, 48]
        png += [8, 2, 0, 0, 0]
        let cat = images.appendingPathComponent("cat.png")
        try Data(png).write(to: cat)
        let editor = try TmuxEditor(file: "pictures.md", contents: "![a cat](\(cat.path)) purrs\n\n![gone](missing.png) here\n")
        let screen = try editor.waitFor("both loads drawn") { lines in
            lines.contains("[image: a cat 80×48] purrs") && lines.contains("[! gone: no such file] here")
        }
        #expect(screen.first == "[image: a cat 80×48] purrs")
        // The text and the caret are as they were: typing at the start goes before the image.
        try editor.type("A ")
        try editor.waitFor(text: "A [image: a cat 80×48] purrs")
        try editor.press("C-s")
        try editor.waitFor(text: "Saved")
        #expect(try editor.file("pictures.md") == "A ![a cat](\(cat.path)) purrs\n\n![gone](missing.png) here\n")
    }

    @Test func aTextFileIsEditedLineByLineAndSavedExactly() throws {
        let editor = try TmuxEditor(file: "notes.txt", contents: "first\n\n  indented # not a heading\n")
        try editor.waitFor(text: "indented # not a heading")
        try editor.press("Down", "Down", "Down")
        // No markdown shortcuts in a text file: "# " stays text.
        try editor.type("# last")
        try editor.waitFor(text: "# last")
        try editor.press("C-s")
        try editor.waitFor(text: "Saved")
        #expect(try editor.file("notes.txt") == "first\n\n  indented # not a heading\n# last")
    }
}
