import QuireAlgorithms
import Testing
@testable import QuireModel

@Suite struct LexicalJSONTests {
    @Test(arguments: Fixtures.lexicalDocuments)
    func fixtureRoundTripsAsValue(_ path: String) throws {
        let bytes = try Fixtures.bytes(path)
        let input = try JSONParser.parse(bytes)
        let state = try LexicalJSON.importState(from: bytes)
        #expect(LexicalJSON.export(state) == input)
        // And the exported text reads back to the same value.
        #expect(try JSONParser.parse(LexicalJSON.exportBytes(state, prettyPrinted: true)) == input)
    }

    /// The streamed export writes exactly the bytes of the export's value written, compact and
    /// indented: on every fixture (nested lists, tables, unknown nodes), on random trees, on an
    /// empty document and on elements nested 200 deep.
    @Test(arguments: [false, true])
    func theStreamedExportIsTheValueWritten(prettyPrinted: Bool) throws {
        var states = try Fixtures.lexicalDocuments.map { try LexicalJSON.importState(from: try Fixtures.bytes($0)) }
        var generator = SeededGenerator(seed: 20_261_129)
        for _ in 0..<300 { states.append(try RandomTreeTests.randomState(&generator)) }
        states.append(EditorState())
        var deep = EditorState()
        var parent = NodeKey.root
        for depth in 0..<200 {
            let box = deep.createUnknownNode(type: "box", role: .element(inline: false), fields: ["depth": .number(.integer(depth))])
            try deep.append(box, to: parent)
            if depth % 7 == 0 { try deep.append(try deep.createNode(type: .text, text: "at \(depth)"), to: box) }
            parent = box
        }
        states.append(deep)
        for state in states {
            let streamed = LexicalJSON.exportBytes(state, prettyPrinted: prettyPrinted)
            #expect(streamed == JSONWriter(prettyPrinted: prettyPrinted).bytes(LexicalJSON.export(state)))
        }
    }

    /// A document of random trees side by side, over the node count above which the export
    /// writes its two halves on two threads.
    static func largeState(seed: UInt64) throws -> EditorState {
        var generator = SeededGenerator(seed: seed)
        var children: [JSONValue] = []
        var nodes = 0
        while nodes <= LexicalJSON.parallelNodeCount + 1_000 {
            let part = try RandomTreeTests.randomState(&generator)
            nodes += part.nodeCount - 1
            guard case .object(let document) = LexicalJSON.export(part), case .object(let root)? = document["root"],
                  case .array(let elements)? = root["children"] else { Issue.record("no root children"); break }
            children += elements
        }
        return try LexicalJSON.importState(from: .object(["root": .object(["children": .array(children), "direction": .null,
                                                                            "format": "", "indent": 0, "type": "root", "version": 1])]))
    }

    /// Written in two halves at once and handed out in pieces, a large document's text is still
    /// exactly its export's value written, whatever the piece size.
    @Test(arguments: [false, true])
    func aLargeDocumentIsWrittenInPartsToTheSameText(prettyPrinted: Bool) throws {
        let state = try Self.largeState(seed: prettyPrinted ? 7 : 8)
        #expect(state.nodeCount > LexicalJSON.parallelNodeCount)
        let expected = JSONWriter(prettyPrinted: prettyPrinted).bytes(LexicalJSON.export(state))
        #expect(LexicalJSON.exportBytes(state, prettyPrinted: prettyPrinted) == expected)
        for pieceSize in [1, 4_096, 1 << 20, Int.max] {
            var pieces = 0
            var written: [UInt8] = []
            LexicalJSON.export(state, prettyPrinted: prettyPrinted, pieceSize: pieceSize) { (bytes: UnsafeRawBufferPointer) in
                pieces += 1
                written += bytes
            }
            #expect(written == expected, "piece size \(pieceSize)")
            if pieceSize == 4_096 { #expect(pieces > expected.count / 8_192) }
        }
    }

    struct SinkFull: Error, Equatable {}

    /// An error from the sink stops the export, whether it comes while the earlier half is
    /// written or while the later half's pieces are handed out: nothing is handed out after it.
    @Test func aSinkErrorStopsTheExport() throws {
        let state = try Self.largeState(seed: 9)
        var total = 0
        LexicalJSON.export(state, pieceSize: 4_096) { (_: UnsafeRawBufferPointer) in total += 1 }
        for failing in [1, 3, total / 2, total - 2, total] {
            var pieces = 0
            #expect(throws: SinkFull()) {
                try LexicalJSON.export(state, pieceSize: 4_096) { (_: UnsafeRawBufferPointer) throws(SinkFull) in
                    pieces += 1
                    if pieces == failing { throw SinkFull() }
                }
            }
            #expect(pieces == failing)
        }
    }

    @Test func unregisteredTypesBecomeUnknownNodesWithTheirChildren() throws {
        let state = try LexicalJSON.importState(from: try Fixtures.bytes(Fixtures.lexicalDocuments[0]))
        let unknownTypes = Set(allNodes(state).filter(\.isUnknown).map(\.type.rawValue))
        #expect(unknownTypes.isSuperset(of: ["heading", "quote", "list", "listitem", "link", "code", "table", "tablerow", "tablecell"]))
        // A table cell's paragraph and text are real nodes under the unknown table.
        let cell = try #require(allNodes(state).first { $0.type == "tablecell" })
        #expect(cell.role == .element(inline: false))
        let cellParagraph = try #require(state.child(at: 0, of: cell.key).flatMap { state[$0] })
        #expect(cellParagraph.type == .paragraph && !cellParagraph.isUnknown)
        // A link sits in a paragraph's inline content, so it is inferred inline; code-highlight has text.
        #expect(allNodes(state).first { $0.type == "link" }?.role == .element(inline: true))
        #expect(allNodes(state).first { $0.type == "code-highlight" }?.role == .text)
    }

    /// An unknown node under an unknown parent is inline when any sibling is, before or after
    /// it (the importer has taken the earlier siblings apart by then, and looks at the later
    /// ones once per sibling list).
    @Test func unknownNodesTakeInlineFromTheirSiblingsOnEitherSide() throws {
        let json = #"""
        {"root":{"type":"root","children":[
          {"type":"mystery-block","children":[{"type":"text","text":"a"},{"type":"mystery-after","children":[]},{"type":"mystery-leaf"}]},
          {"type":"mystery-block","children":[{"type":"mystery-before","children":[]},{"type":"mystery-leaf"},{"type":"text","text":"b"}]},
          {"type":"mystery-block","children":[{"type":"mystery-alone","children":[]},{"type":"mystery-leaf"}]}]}}
        """#
        let state = try LexicalJSON.importState(from: json)
        let roles = state.children(of: .root).map { block in state.children(of: block.key).map { "\($0.type):\($0.role)" } }
        #expect(state.children(of: .root).allSatisfy { $0.role == .element(inline: false) })
        #expect(roles == [
            ["text:text", "mystery-after:element(inline: true)", "mystery-leaf:decorator(inline: true)"],
            ["mystery-before:element(inline: true)", "mystery-leaf:decorator(inline: true)", "text:text"],
            ["mystery-alone:element(inline: false)", "mystery-leaf:decorator(inline: false)"],
        ])
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(json)))
    }

    @Test func legacyDocumentsImport() throws {
        let legacy = #"""
        {"root":{"children":[{"children":[{"detail":0,"format":3,"mode":"normal","style":"","text":"old","type":"text","version":1}],
        "direction":"ltr","format":"","indent":0,"type":"paragraph","version":1}],"direction":"ltr","format":"","indent":0,"type":"root","version":1}}
        """#
        let state = try LexicalJSON.importState(from: legacy)
        let paragraph = try #require(state.child(at: 0, of: .root).flatMap { state[$0] })
        #expect(paragraph.direction == .leftToRight)
        #expect(paragraph.fields["textFormat"] == nil)
        let text = try #require(state.child(at: 0, of: paragraph.key).flatMap { state[$0] })
        #expect(text.textFormat == [.bold, .italic])
        #expect(LexicalJSON.export(state) == (try JSONParser.parse(legacy)))
    }

    @Test func flatStringOfTheExampleTree() throws {
        var state = EditorState(paragraphs: ["hello ", "Paragraph 2 contains another text node", "", "Third para."])
        let first = try #require(state.child(at: 0, of: .root).flatMap { state[$0] })
        let world = try state.createNode(type: .text, text: "world", fields: ["format": .number(.integer(TextFormat.bold.rawValue))])
        try state.append(world, to: first.key)
        let rendered = FlatString.render(state)
        #expect(rendered == "hello world\nParagraph 2 contains another text node\n\nThird para.")
        #expect(rendered.utf16.count == 63)
    }

    @Test func flatStringOfLeavesAndDecorators() throws {
        let json = #"""
        {"root":{"type":"root","children":[
          {"type":"paragraph","children":[{"type":"text","text":"a"},{"type":"linebreak"},{"type":"tab","text":"\t"},{"type":"image","src":"x.png"}]},
          {"type":"horizontalrule","version":1},
          {"type":"paragraph","children":[]}]}}
        """#
        let state = try LexicalJSON.importState(from: json)
        #expect(FlatString.render(state) == "a\n\t\u{FFFC}\n\u{FFFC}\n")
    }

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        let name: String
        let json: [UInt8]
        let expected: LexicalJSONError
        var testDescription: String { name }

        init(_ name: String, _ json: String, _ reason: LexicalJSONError.Reason, at path: String) {
            self.name = name
            self.json = Array(json.utf8)
            self.expected = LexicalJSONError(reason, at: path)
        }

        init(_ name: String, bytes: [UInt8], _ reason: LexicalJSONError.Reason, at path: String) {
            self.name = name
            self.json = bytes
            self.expected = LexicalJSONError(reason, at: path)
        }
    }

    static let malformed: [MalformedCase] = [
        MalformedCase("missing type", #"{"root":{"type":"root","children":[{"children":[]}]}}"#,
                      .missingField("type"), at: "$.root.children[0]"),
        MalformedCase("wrong field type", #"{"root":{"type":"root","children":[{"type":"paragraph","indent":"two","children":[]}]}}"#,
                      .wrongType(expected: "integer", found: "string \"two\""), at: "$.root.children[0].indent"),
        MalformedCase("wrong text format type", #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":"a","format":"bold"}]}]}}"#,
                      .wrongType(expected: "integer", found: "string \"bold\""), at: "$.root.children[0].children[0].format"),
        MalformedCase("unknown text mode", #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":"a","mode":"weird"}]}]}}"#,
                      .wrongType(expected: "one of \"normal\", \"token\", \"segmented\"", found: "string \"weird\""),
                      at: "$.root.children[0].children[0].mode"),
        MalformedCase("text with children", #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text","text":"a","children":[]}]}]}}"#,
                      .unexpectedChildren("text"), at: "$.root.children[0].children[0].children"),
        MalformedCase("text without text", #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"text"}]}]}}"#,
                      .missingField("text"), at: "$.root.children[0].children[0]"),
        MalformedCase("children not an array", #"{"root":{"type":"root","children":{"a":1}}}"#,
                      .wrongType(expected: "array", found: "object"), at: "$.root.children"),
        MalformedCase("child not an object", #"{"root":{"type":"root","children":[7]}}"#,
                      .wrongType(expected: "object", found: "integer"), at: "$.root.children[0]"),
        MalformedCase("text directly under root", #"{"root":{"type":"root","children":[{"type":"text","text":"a"}]}}"#,
                      .childNotAccepted(parent: "root", child: "text"), at: "$.root.children[0]"),
        MalformedCase("paragraph inside paragraph", #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"paragraph","children":[]}]}]}}"#,
                      .childNotAccepted(parent: "paragraph", child: "paragraph"), at: "$.root.children[0].children[0]"),
        MalformedCase("missing root", #"{"editor":{}}"#, .missingField("root"), at: "$"),
        MalformedCase("root not an object", #"{"root":[]}"#, .wrongType(expected: "object", found: "array"), at: "$.root"),
        MalformedCase("root of wrong type", #"{"root":{"type":"paragraph","children":[]}}"#, .misplacedRoot, at: "$.root"),
        MalformedCase("nested root", #"{"root":{"type":"root","children":[{"type":"root","children":[]}]}}"#, .misplacedRoot, at: "$.root.children[0]"),
        MalformedCase("tab with other text", #"{"root":{"type":"root","children":[{"type":"paragraph","children":[{"type":"tab","text":"x"}]}]}}"#,
                      .invalidNode("tab", "a tab node's text must be \"\\t\""), at: "$.root.children[0].children[0].text"),
        MalformedCase("version not an integer", #"{"root":{"type":"root","version":"1","children":[]}}"#,
                      .wrongType(expected: "integer", found: "string \"1\""), at: "$.root.version"),
        MalformedCase("not an object", "[]", .wrongType(expected: "object", found: "array"), at: "$"),
        MalformedCase("truncated", #"{"root":{"type":"root","children":[{"type":"para"#,
                      .syntax(JSONError(reason: .unexpectedEndOfInput, byteOffset: 48, line: 1, column: 49, path: "$.root.children[0].type")),
                      at: "$.root.children[0].type"),
        MalformedCase("invalid UTF-8", bytes: Array(#"{"root":{"type":"r"#.utf8) + [0xF0, 0x28] + Array(#"oot"}}"#.utf8),
                      .syntax(JSONError(reason: .invalidUTF8, byteOffset: 18, line: 1, column: 19, path: "$.root.type")), at: "$.root.type"),
    ]

    @Test(arguments: malformed)
    func malformedInputGetsATypedErrorWithItsPath(_ testCase: MalformedCase) {
        #expect(throws: testCase.expected) { try LexicalJSON.importState(from: testCase.json) }
    }

    /// QuireJSON's input policy: a repeated "root" is an error (it used to replace the document
    /// silently), and the nesting limit is the caller's to change.
    @Test func duplicateKeysAndTheNestingLimitFollowTheJSONPolicy() throws {
        let twice = #"{"root":{"type":"root","children":[]},"root":{"type":"root","children":[]}}"#
        #expect(throws: LexicalJSONError(.syntax(JSONError(reason: .duplicateKey("root"), byteOffset: 38, line: 1, column: 39, path: "$.root")), at: "$.root")) {
            try LexicalJSON.importState(from: twice)
        }
        let document = #"{"root":{"type":"root","children":[]}}"#
        #expect(throws: LexicalJSONError(.syntax(JSONError(reason: .nestingTooDeep(limit: 2), byteOffset: 34, line: 1, column: 35, path: "$.root.children")), at: "$.root.children")) {
            try LexicalJSON.importState(from: document, json: JSONReader.Options(maximumDepth: 2))
        }
        #expect(try LexicalJSON.importState(from: document, json: JSONReader.Options(maximumDepth: 3)).root.key == .root)
    }

    @Test func mutatedFixturesNeverCrash() throws {
        let original = try Fixtures.bytes(Fixtures.lexicalDocuments[0])
        var generator = SeededGenerator(seed: 0x51A7_E001)
        var failures = 0
        var successes = 0
        for _ in 0..<1_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                mutate(&bytes, using: &generator)
            }
            do {
                let state = try LexicalJSON.importState(from: bytes)
                successes += 1
                // Whatever imported must export to JSON that imports to the same export.
                let exported = LexicalJSON.exportBytes(state)
                #expect(LexicalJSON.export(try LexicalJSON.importState(from: exported)) == LexicalJSON.export(state))
            } catch {
                failures += 1
                #expect(!error.description.isEmpty)
                #expect(error.path.hasPrefix("$"))
            }
        }
        #expect(failures + successes == 1_000)
        #expect(failures > 500, "most random mutations of JSON must be rejected")
    }

    private func mutate(_ bytes: inout [UInt8], using generator: inout SeededGenerator) {
        guard !bytes.isEmpty else { return }
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
        case 1: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...20, using: &generator)))
        case 2:
            let structural = Array(#"{}[],:"0-9tfn\"#.utf8)
            bytes.insert(structural.randomElement(using: &generator)!, at: position)
        case 3: bytes.removeSubrange(position...)
        default:
            let end = min(bytes.count, position + Int.random(in: 1...40, using: &generator))
            bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0..<bytes.count, using: &generator))
        }
    }

    func allNodes(_ state: EditorState) -> [Node] {
        var result: [Node] = []
        var pending = [state.root]
        while let node = pending.popLast() {
            result.append(node)
            pending.append(contentsOf: state.children(of: node.key))
        }
        return result
    }
}
