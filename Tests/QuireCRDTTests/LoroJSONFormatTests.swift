import Foundation
import Testing
@testable import QuireCRDT

/// Loro JSON updates without a Loro peer: the golden fixture Loro wrote, round trips, errors.
@Suite struct LoroJSONFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/loro-json")
    static let text = ContainerID.root(name: "text", type: .text)

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    /// A text delta as the plain value Loro's `to_delta()` gives (attributes omitted when empty).
    static func deltaValue(_ doc: CRDTDocument, _ c: ContainerID) -> CRDTValue {
        .list(doc.toDelta(c).compactMap { step in
            guard case let .insert(s, attributes) = step else { return nil }
            return attributes.isEmpty ? .map(["insert": .string(s)]) : .map(["insert": .string(s), "attributes": .map(attributes)])
        })
    }

    @Test func importsWhatLoroWrote() throws {
        let updates = try LoroJSONUpdates(json: Self.fixture("sample-updates.json"))
        #expect(updates.changes.count == 2)
        var doc = CRDTDocument(peer: 1)
        let status = try doc.importJSONUpdates(updates)
        #expect(status.pending.isEmpty)
        let expected = try CRDTValue(json: Self.fixture("sample-expected.json"))
        guard case .map(let fields) = expected else { Issue.record("expected an object"); return }
        #expect(doc.deepValue == fields["deep"])
        #expect(Self.deltaValue(doc, Self.text) == fields["delta"])
        // Importing again changes nothing.
        let before = doc.exportUpdates()
        try doc.importJSONUpdates(updates)
        #expect(doc.exportUpdates() == before)
    }

    @Test func reExportReadsBackTheSame() throws {
        var doc = CRDTDocument(peer: 1)
        try doc.importJSONUpdates(Self.fixture("sample-updates.json"))
        let json = doc.exportJSONUpdates().jsonString(prettyPrinted: true)
        var again = CRDTDocument(peer: 2)
        try again.importJSONUpdates(json)
        #expect(again.deepValue == doc.deepValue)
        #expect(again.toDelta(Self.text) == doc.toDelta(Self.text))
        #expect(again.version == doc.version)
        // Written text parses back to the same value.
        #expect(try LoroJSONUpdates(json: json) == doc.exportJSONUpdates())
    }

    @Test func swiftEditsRoundTrip() throws {
        var a = CRDTDocument(peer: 11)
        a.setExpand(.none, forKey: "link")
        try a.insertText("Hello world", at: 0, in: Self.text)
        a.commit()
        try a.mark(0..<5, key: "bold", value: .bool(true), in: Self.text)
        try a.mark(6..<11, key: "link", value: .string("https://x"), in: Self.text)
        try a.insertText("!", at: 5, in: Self.text)
        try a.delete(at: 1, count: 2, in: Self.text)
        // Backspace three times: one backward delete span.
        try a.delete(at: 7, count: 1, in: Self.text)
        try a.delete(at: 6, count: 1, in: Self.text)
        let list = ContainerID.root(name: "items", type: .list)
        try a.insert([.int(1), .string("two"), .double(3.5)], at: 0, in: list)
        let nested = try a.insertContainer(.map, at: 1, in: list)
        try a.set("k", .bool(true), in: nested)
        try a.delete(at: 0, count: 1, in: list)
        let tree = ContainerID.root(name: "blocks", type: .tree)
        let n1 = try a.createNode(in: tree)
        let n2 = try a.createNode(in: tree)
        let n3 = try a.createNode(under: n1, in: tree)
        try a.set("type", .string("p"), in: a.properties(of: n1))
        let body = try a.setContainer("body", .text, in: a.properties(of: n2))
        try a.insertText("inline", at: 0, in: body)
        try a.moveNode(n2, under: n1, at: 0, in: tree)
        try a.deleteNode(n3, in: tree)
        a.commit()
        var b = CRDTDocument(peer: 12)
        try b.importJSONUpdates(a.exportJSONUpdates().jsonString())
        #expect(b.deepValue == a.deepValue)
        #expect(b.toDelta(Self.text) == a.toDelta(Self.text))
        #expect(b.version == a.version)
        // Incremental export from a version.
        let v = a.version
        try a.insertText("more", at: 0, in: Self.text)
        a.commit()
        try b.importJSONUpdates(a.exportJSONUpdates(from: v))
        #expect(b.text(Self.text) == a.text(Self.text))
        #expect(a.exportJSONUpdates(from: v).changes.count == 1)
        #expect(a.exportJSONUpdates(from: v, to: v).changes.isEmpty)
    }

    @Test func concurrentSwiftPeersConvergeThroughJSON() throws {
        var a = CRDTDocument(peer: 1), b = CRDTDocument(peer: 2)
        try a.insertText("abc", at: 0, in: Self.text)
        a.commit()
        try b.importJSONUpdates(a.exportJSONUpdates())
        try a.insertText("X", at: 1, in: Self.text)
        try a.delete(at: 2, count: 1, in: Self.text)
        try b.insertText("Y", at: 1, in: Self.text)
        try b.mark(0..<3, key: "bold", value: .bool(true), in: Self.text)
        try b.delete(at: 0, count: 1, in: Self.text)
        a.commit(); b.commit()
        let fromA = a.exportJSONUpdates(from: b.version)
        let fromB = b.exportJSONUpdates(from: a.version)
        try a.importJSONUpdates(fromB)
        try b.importJSONUpdates(fromA)
        #expect(a.toDelta(Self.text) == b.toDelta(Self.text))
        #expect(a.deepValue == b.deepValue)
    }

    @Test func waitsForMissingDependencies() throws {
        var a = CRDTDocument(peer: 5)
        try a.insertText("one", at: 0, in: Self.text)
        a.commit()
        let first = a.exportJSONUpdates()
        let v = a.version
        try a.insertText(" two", at: 3, in: Self.text)
        a.commit()
        let second = a.exportJSONUpdates(from: v)
        var b = CRDTDocument(peer: 6)
        let status = try b.importJSONUpdates(second)
        #expect(status.pending == [IDSpan(peer: 5, start: 3, end: 7)])
        // The same waiting change again is kept once.
        #expect(try b.importJSONUpdates(second).pending == [IDSpan(peer: 5, start: 3, end: 7)])
        #expect(b.s.pendingJSON.count == 1)
        #expect(b.text(Self.text) == "")
        let done = try b.importJSONUpdates(first)
        #expect(done.pending.isEmpty)
        #expect(b.text(Self.text) == "one two")
    }

    // MARK: errors leave the document unchanged

    static func populated() throws -> CRDTDocument {
        var doc = CRDTDocument(peer: 9)
        try doc.insertText("keep me", at: 0, in: text)
        doc.commit()
        return doc
    }

    static func expectUnchanged(_ json: String, _ check: (LoroJSONError) -> Bool) throws {
        var doc = try populated()
        let before = doc.exportUpdates()
        let value = doc.deepValue
        do {
            try doc.importJSONUpdates(json)
            Issue.record("import succeeded: \(json.prefix(80))")
        } catch {
            #expect(check(error), "unexpected error: \(error)")
        }
        #expect(doc.exportUpdates() == before)
        #expect(doc.deepValue == value)
    }

    static let header = #"{"schema_version":1,"start_version":{},"peers":["3"],"changes":"#

    @Test func syntaxErrorsHaveLineAndColumn() throws {
        try Self.expectUnchanged("{\n  \"schema_version\": 1,\n  \"changes\": [,]\n}") {
            if case let .syntax(line, column, _, _) = $0 { return line == 3 && column == 15 }
            return false
        }
        try Self.expectUnchanged(#"{"schema_version":1,"changes":[]"#) { if case .syntax = $0 { return true }; return false }
        try Self.expectUnchanged(#"{"schema_version":1,"changes":[],"changes":[]}"#) { if case .syntax = $0 { return true }; return false }
        try Self.expectUnchanged("{\"schema_version\":01,\"changes\":[]}") { if case .syntax = $0 { return true }; return false }
        try Self.expectUnchanged("{\"schema_version\":1,\"changes\":[]} x") { if case .syntax = $0 { return true }; return false }
        try Self.expectUnchanged("{\"a\":\"\\ud800\"}") { if case .syntax = $0 { return true }; return false }
    }

    @Test func unsupportedSchemaVersion() throws {
        try Self.expectUnchanged(#"{"schema_version":2,"start_version":{},"peers":[],"changes":[]}"#) { $0 == .unsupportedSchemaVersion(2) }
    }

    @Test func schemaErrorsNameTheirPath() throws {
        let op = #"{"container":"cid:root-text:Text","content":{"type":"insert","pos":0,"text":"x"},"counter":0}"#
        func change(_ id: String = "0@0", ops: String) -> String {
            Self.header + #"[{"id":"\#(id)","timestamp":0,"deps":[],"lamport":0,"msg":null,"ops":[\#(ops)]}]}"#
        }
        try Self.expectUnchanged(change("x@0", ops: op)) { if case .schema(let path, _) = $0 { return path == "$.changes[0].id" }; return false }
        try Self.expectUnchanged(change("0@4", ops: op)) { if case .schema(let path, _) = $0 { return path == "$.changes[0].id" }; return false }
        try Self.expectUnchanged(change(ops: op.replacingOccurrences(of: "root-text:Text", with: "root-l:Unknown(9)"))) {
            $0 == .unsupportedContainerType(path: "$.changes[0].ops[0].container", type: "Unknown(9)")
        }
        try Self.expectUnchanged(change(ops: op.replacingOccurrences(of: ":Text", with: ":Blob"))) {
            if case .schema(let path, _) = $0 { return path == "$.changes[0].ops[0].container" }; return false
        }
        try Self.expectUnchanged(change(ops: op.replacingOccurrences(of: "\"counter\":0", with: "\"counter\":1"))) {
            if case .schema(let path, _) = $0 { return path == "$.changes[0].ops[0].counter" }; return false
        }
        try Self.expectUnchanged(change(ops: op.replacingOccurrences(of: "\"insert\"", with: "\"splice\""))) {
            if case .schema(let path, _) = $0 { return path == "$.changes[0].ops[0].content.type" }; return false
        }
    }

    @Test func positionsOutOfRangeAreRefused() throws {
        // An insert far beyond the text, and a delete beyond it, in a change after a valid one.
        let ok = #"{"id":"0@0","timestamp":0,"deps":[],"lamport":0,"msg":null,"ops":[{"container":"cid:root-text:Text","content":{"type":"insert","pos":0,"text":"ab"},"counter":0}]}"#
        let badInsert = #"{"id":"2@0","timestamp":0,"deps":["1@0"],"lamport":2,"msg":null,"ops":[{"container":"cid:root-text:Text","content":{"type":"insert","pos":9,"text":"x"},"counter":2}]}"#
        let badDelete = #"{"id":"2@0","timestamp":0,"deps":["1@0"],"lamport":2,"msg":null,"ops":[{"container":"cid:root-text:Text","content":{"type":"delete","pos":1,"len":5,"start_id":"1@0"},"counter":2}]}"#
        try Self.expectUnchanged(Self.header + "[\(ok),\(badInsert)]}") {
            if case .invalidOperation(let path, _) = $0 { return path == "$.changes[1].ops[0]" }; return false
        }
        try Self.expectUnchanged(Self.header + "[\(ok),\(badDelete)]}") {
            if case .invalidOperation(let path, _) = $0 { return path == "$.changes[1].ops[0]" }; return false
        }
        // A tree move of a node nobody created is refused by the document.
        let move = #"{"id":"0@0","timestamp":0,"deps":[],"lamport":0,"msg":null,"ops":[{"container":"cid:root-t:Tree","content":{"type":"move","target":"5@0","parent":null,"fractional_index":"80"},"counter":0}]}"#
        try Self.expectUnchanged(Self.header + "[\(move)]}") { if case .rejected = $0 { return true }; return false }
    }

    @Test func valuesRoundTripThroughJSON() throws {
        let value = CRDTValue.map(["a": .list([.int(-3), .double(1.0), .double(2.5e-8), .string("q\"\n😀"), .null, .bool(false)]),
                               "b": .map([:]), "c": .list([])])
        #expect(try CRDTValue(json: CRDTValue.json(value)) == value)
        #expect(try CRDTValue(json: CRDTValue.json(value, prettyPrinted: true)) == value)
        #expect(CRDTValue.json(.binary([1, 2])) == "[1,2]")
        #expect(try CRDTValue(json: "18446744073709551615") == .double(Double(UInt64.max)))
    }
}
