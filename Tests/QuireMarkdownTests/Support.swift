import Foundation
import QuireCatalog
import QuireConfig
import QuireMarkdown
import QuireMarkup
import QuireModel
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Every built-in plugin with its defaults: the registry and the markdown converter.
enum BuiltIns {
    static let configuration: Configuration = {
        let yaml = "version: 1\nplugins:\n" + BuiltInPlugins.all.map { "  - \($0.name)\n" }.joined()
        do { return try Configuration.load(yaml: yaml, catalog: BuiltInPlugins.catalog) } catch {
            preconditionFailure("the built-in configuration loads: \(error)")
        }
    }()

    static let registry: NodeRegistry = {
        do { return try configuration.makeRegistry() } catch { preconditionFailure("the built-ins register: \(error)") }
    }()

    static let converter = MarkdownConverter(registry: registry, contributions: configuration.plugins.contributions)
}

/// One example of a spec file.
struct SpecExample: Sendable, CustomTestStringConvertible {
    var file: String
    var number: Int
    var section: String
    var markdown: String
    var html: String
    var testDescription: String { "\(file) #\(number) (\(section))" }
}

enum SpecFixtures {
    static let files = ["commonmark-spec-0.31.2.spec.json", "cmark-gfm-spec.json", "cmark-gfm-extensions.json"]

    static func examples(_ file: String) throws -> [SpecExample] {
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/commonmark/\(file)")
        let value = try JSONParser.parse(Array(try Data(contentsOf: url)))
        return (value.arrayValue ?? []).compactMap { entry in
            guard let object = entry.objectValue, let markdown = object["markdown"]?.stringValue,
                  let html = object["html"]?.stringValue, let number = object["example"]?.intValue else { return nil }
            return SpecExample(file: file, number: number, section: object["section"]?.stringValue ?? "", markdown: markdown, html: html)
        }
    }
}
