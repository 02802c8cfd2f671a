import Foundation
import QuireJSON
import Testing

/// `quire crdt import-lexical`, `export-lexical` and `render`: Lexical documents in the CRDT, in
/// the bridge's schema.
@Suite struct CRDTLexicalCommandTests {
    static let documents: [String] = {
        let fixtures = QuireProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/lexical-json")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return ["Examples/documents/sample.json"] + names.filter { $0.hasSuffix(".json") }.sorted().map { "Tests/Fixtures/lexical-json/\($0)" }
    }()

    static func temporaryFile(_ suffix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("quire-crdt-lexical-\(UUID().uuidString)\(suffix)")
    }

    /// Into the CRDT in either format and back: the same Lexical JSON as `quire export`, the same
    /// flat string as `quire render`.
    @Test(arguments: documents, ["loro-json", "quire"])
    func aDocumentComesBackFromItsUpdates(document: String, format: String) throws {
        let updates = Self.temporaryFile(format == "quire" ? ".bin" : ".json")
        defer { try? FileManager.default.removeItem(at: updates) }
        let imported = try QuireProcess.run(["crdt", "import-lexical", document, "--format", format, "-o", updates.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.isEmpty)
        let bytes = try Data(contentsOf: updates)
        #expect((bytes.first == 0xC7) == (format == "quire"), "the format asked for")

        let exported = try QuireProcess.run(["crdt", "export-lexical", "--format", format, updates.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        let direct = try QuireProcess.run(["export", document])
        #expect(try JSONParser.parse(exported.stdout) == JSONParser.parse(direct.stdout))

        let rendered = try QuireProcess.run(["crdt", "render", "--format", format, updates.path])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stdout == (try QuireProcess.run(["render", document])).stdout)
    }

    /// Two processes (each with its own hashing seed) write a document as the very same
    /// operations, timestamps aside: what lets two editors that seed an empty room at once keep
    /// one copy (`Projection.seededDocument(from:peer:)`).
    @Test(arguments: documents)
    func twoProcessesWriteTheSameOperations(document: String) throws {
        func operations() throws -> JSONValue {
            let imported = try QuireProcess.run(["crdt", "import-lexical", document, "--peer", "7"])
            #expect(imported.status == 0, "\(imported.stderr)")
            guard case .object(var updates) = try JSONParser.parse(imported.stdout), case .array(let changes)? = updates["changes"] else {
                Issue.record("no changes in \(imported.stdout.prefix(200))")
                return .null
            }
            updates["changes"] = .array(changes.map { change in
                guard case .object(var fields) = change else { return change }
                fields["timestamp"] = nil
                return .object(fields)
            })
            return .object(updates)
        }
        #expect(try operations() == operations())
    }

    /// Updates written to standard output merge with more updates: the rendering follows.
    @Test func updatesFromStandardOutputMergeWithOthers() throws {
        let imported = try QuireProcess.run(["crdt", "import-lexical", "-", "--peer", "5"], stdin: #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":"one"}]}]}}"#)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix(#"{"schema_version":1,"#))
        // The same bytes twice, in either order, are the same document.
        let file = Self.temporaryFile(".json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(imported.stdout.utf8).write(to: file)
        let rendered = try QuireProcess.run(["crdt", "render", file.path, file.path])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stdout == "one\n")
    }

    @Test func errorsAreOneLineNamingTheFile() throws {
        let missing = try QuireProcess.run(["crdt", "import-lexical", "/nonexistent.json", "-o", "/tmp/never-written"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read /nonexistent.json"))
        let lexical = try QuireProcess.run(["crdt", "import-lexical", "-"], stdin: #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":5}]}]}}"#)
        #expect(lexical.status != 0)
        #expect(lexical.stderr.contains("-: $.root.children[0].children[0].text: expected string, found integer"))
        #expect(lexical.stderr.split(separator: "\n").count == 1)

        let updates = Self.temporaryFile(".json")
        defer { try? FileManager.default.removeItem(at: updates) }
        #expect(try QuireProcess.run(["crdt", "import-lexical", "Examples/documents/sample.json", "-o", updates.path]).status == 0)
        let wrongFormat = try QuireProcess.run(["crdt", "render", "--format", "quire", updates.path])
        #expect(wrongFormat.status != 0)
        #expect(wrongFormat.stderr.contains("\(updates.path): "))
        #expect(wrongFormat.stderr.contains("looks like loro-json updates"))
        #expect(wrongFormat.stderr.split(separator: "\n").count == 1)
        let broken = try QuireProcess.run(["crdt", "export-lexical", "-"], stdin: #"{"schema_version":1,"changes":[}"#)
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("-: JSON syntax error"))
        let unwritable = try QuireProcess.run(["crdt", "import-lexical", "Examples/documents/sample.json", "-o", "/nonexistent-dir/updates.json"])
        #expect(unwritable.status != 0)
        #expect(unwritable.stderr.contains("/nonexistent-dir/updates.json: cannot write"))
    }

    /// A real Loro document imports what `import-lexical` wrote, and what it exports back is the
    /// same Lexical document.
    @Test(.enabled(if: CRDTCommandTests.loroPython != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test does)"))
    func loroCarriesTheDocument() throws {
        let imported = try QuireProcess.run(["crdt", "import-lexical", "Examples/documents/sample.json", "--peer", "11"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let script = """
        import sys, loro
        doc = loro.LoroDoc()
        doc.import_json_updates(sys.stdin.read())
        print(doc.export_json_updates(loro.VersionVector(), doc.oplog_vv))
        """
        let loro = try CRDTCommandTests.runLoroPython(script, stdin: imported.stdout)
        #expect(loro.status == 0)
        let back = try QuireProcess.run(["crdt", "export-lexical", "--format", "loro-json", "-"], stdin: loro.stdout)
        #expect(back.status == 0, "\(back.stderr)")
        let direct = try QuireProcess.run(["export", "Examples/documents/sample.json"])
        #expect(try JSONParser.parse(back.stdout) == JSONParser.parse(direct.stdout))
    }
}
