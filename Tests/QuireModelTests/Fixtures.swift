import Foundation

/// Loads the files in `Tests/Fixtures`, found relative to this source file so that no resource
/// bundle is needed.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(relativePath)))
    }

    static let lexicalDocuments = [
        "lexical-json/01-lexical-serialization-test-playground-doc.json",
        "lexical-json/03-lexical-editor-test-paragraph-textformat.json",
        "lexical-json/05-lexical-ios-fork-HZ4ever228-web-export-lists-linebreaks-align.json",
    ]
}
