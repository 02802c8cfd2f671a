import Foundation
import QuireJSON
import Testing

/// `quire collab-script`: several bound editors in one process.
@Suite struct CollabScriptCLITests {
    struct Output {
        var result: QuireProcess.Result
        var peers: JSONObject
        var converged: Bool?

        func text(_ peer: String) -> String? { peers[peer]?.objectValue?["text"]?.stringValue }
        func state(_ peer: String) -> JSONValue? { peers[peer]?.objectValue?["state"] }
        func selection(_ peer: String) -> [Int?]? { peers[peer]?.objectValue?["selection"]?.arrayValue?.map(\.intValue) }
    }

    func run(_ steps: [String], document: String? = nil) throws -> Output {
        var arguments = ["collab-script", "-"]
        if let document { arguments += ["--document", document] }
        let result = try QuireProcess.run(arguments, stdin: steps.joined(separator: "\n") + "\n")
        guard result.status == 0 else { return Output(result: result, peers: [:]) }
        let object = try JSONParser.parse(result.stdout).objectValue
        return Output(result: result, peers: object?["peers"]?.objectValue ?? [:], converged: object?["converged"]?.boolValue)
    }

    /// The example `make run` replays: Alice splits a paragraph while Bob types into its second
    /// half and bolds its first word; after syncing, both hold the same document.
    @Test func theExampleSessionConverges() throws {
        let result = try QuireProcess.run(["collab-script", "Examples/collab/two-editors.jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONParser.parse(result.stdout).objectValue)
        let output = Output(result: result, peers: object["peers"]?.objectValue ?? [:], converged: object["converged"]?.boolValue)
        #expect(output.peers.keys == ["alice", "bob"])
        #expect(output.converged == true)
        #expect(output.text("alice") == "Hello \nworld! Nice to meet you.")
        #expect(output.text("bob") == output.text("alice"))
        #expect(output.state("alice") == output.state("bob"))
        // Bob's bold reached Alice's first paragraph; Bob's typing her new second paragraph.
        let paragraphs = output.state("alice")?.objectValue?["root"]?.objectValue?["children"]?.arrayValue?.compactMap(\.objectValue)
        let first = paragraphs?.first?["children"]?.arrayValue?.first?.objectValue
        #expect(first?["text"]?.stringValue == "Hello" && first?["format"]?.intValue == 1)
        #expect(paragraphs?.last?["children"]?.arrayValue?.first?.objectValue?["text"]?.stringValue == "world! Nice to meet you.")
    }

    @Test func peersApartUntilTheySync() throws {
        let steps = [
            #"{"peer":"a","op":"type","text":"left"}"#,
            #"{"peer":"b","op":"type","text":"right"}"#,
        ]
        let apart = try run(steps)
        #expect(apart.result.status == 0, "\(apart.result.stderr)")
        #expect(apart.converged == false)
        #expect(apart.text("a") == "left")
        #expect(apart.text("b") == "right")
        // One direction only: b has both edits, a still lacks b's.
        let oneWay = try run(steps + [#"{"op":"sync","from":"a","to":"b"}"#])
        #expect(oneWay.converged == false)
        #expect(oneWay.text("a") == "left")
        #expect(oneWay.text("b")?.count == "leftright".count)
        let both = try run(steps + [#"{"op":"sync","from":"a","to":"b"}"#, #"{"op":"sync","from":"b","to":"a"}"#])
        #expect(both.converged == true)
        #expect(both.text("a") == both.text("b"))
        #expect(Set(["leftright", "rightleft"]).contains(both.text("a") ?? ""))
    }

    @Test func aLaterPeerStartsFromTheInitialDocument() throws {
        let output = try run([
            #"{"peer":"a","op":"select","start":5,"end":5}"#, #"{"peer":"a","op":"type","text":"!"}"#,
            #"{"peer":"b","op":"select","start":0,"end":0}"#,
            #"{"peer":"c","op":"select","start":0,"end":0}"#, #"{"peer":"c","op":"type","text":">"}"#,
            #"{"op":"syncAll"}"#,
        ], document: "Examples/documents/sample.json")
        #expect(output.result.status == 0, "\(output.result.stderr)")
        #expect(output.peers.keys == ["a", "b", "c"])
        #expect(output.converged == true)
        #expect(output.text("b")?.hasPrefix(">Quire!\nhello world") == true)
        #expect(output.text("a") == output.text("b") && output.text("c") == output.text("b"))
    }

    @Test func undoTakesBackOnlyThatPeersEdit() throws {
        let output = try run([
            #"{"peer":"a","op":"type","text":"mine "}"#,
            #"{"peer":"b","op":"select","start":0,"end":0}"#,
            #"{"op":"syncAll"}"#,
            #"{"peer":"b","op":"select","start":5,"end":5}"#, #"{"peer":"b","op":"type","text":"theirs"}"#,
            #"{"op":"syncAll"}"#,
            #"{"peer":"a","op":"undo"}"#,
            #"{"op":"syncAll"}"#,
        ])
        #expect(output.result.status == 0, "\(output.result.stderr)")
        #expect(output.text("a") == "theirs")
        #expect(output.text("b") == "theirs")
        #expect(output.converged == true)
    }

    /// Interaction steps keep their state per peer: a viewport set by one peer is that peer's.
    @Test func interactionStepsArePerPeer() throws {
        let output = try run([
            #"{"peer":"a","op":"viewport","width":20,"height":3}"#, #"{"peer":"a","op":"type","text":"hello"}"#,
            #"{"peer":"b","op":"select","start":0,"end":0}"#, #"{"op":"syncAll"}"#,
        ])
        #expect(output.result.status == 0, "\(output.result.stderr)")
        #expect(output.converged == true)
        #expect(output.peers["a"]?.objectValue?["viewport"] != nil)
        #expect(output.peers["a"]?.objectValue?["caret"]?.objectValue?["column"]?.intValue == 5)
        #expect(output.peers["b"]?.objectValue?["viewport"] == nil)
    }

    @Test func badStepsNameTheirLine() throws {
        let unknownPeer = try run([#"{"peer":"a","op":"type","text":"x"}"#, #"{"op":"sync","from":"a","to":"nobody"}"#])
        #expect(unknownPeer.result.status != 0)
        #expect(unknownPeer.result.stderr.contains(#"line 2: "sync" names peer "nobody", which does not exist"#))
        let noPeer = try run([#"{"op":"type","text":"x"}"#])
        #expect(noPeer.result.stderr.contains(#"line 1: an edit step needs a string "peer""#))
        let badOp = try run([#"{"peer":"a","op":"type","text":"x"}"#, "", #"{"peer":"a","op":"fly"}"#])
        #expect(badOp.result.stderr.contains(#"line 3: unknown op "fly""#))
        let badRange = try run([#"{"peer":"a","op":"replace","start":5,"end":9,"text":"x"}"#])
        #expect(badRange.result.status != 0)
        #expect(badRange.result.stderr.contains("line 1:"))
        let badJSON = try run([#"{"peer":"a","op":"type","text":"x"}"#, #"{"op":"syncAll""#])
        #expect(badJSON.result.stderr.contains("line 2:"))
    }
}
