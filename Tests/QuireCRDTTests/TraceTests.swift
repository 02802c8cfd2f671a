import Foundation
import Testing
@testable import QuireCRDT

@Suite struct TraceTests {
    @Test(arguments: ["automerge-paper.json.gz", "seph-blog1.json.gz", "friendsforever_flat.json.gz"])
    func sequentialTraceReachesEndContent(name: String) throws {
        let trace = try Fixtures.trace(name)
        #expect(!trace.isConcurrent)
        let doc = try TraceReplay.replaySequential(trace)
        let text = doc.text(TraceReplay.textID)
        #expect(text == trace.endContent)
        #expect(doc.length(of: TraceReplay.textID, unit: .utf16) == trace.endContent.utf16.count)
        #expect(doc.length(of: TraceReplay.textID, unit: .utf8) == trace.endContent.utf8.count)
        // The snapshot round-trips and the update log rebuilds the same text.
        let snap = doc.exportSnapshot()
        let loaded = try CRDTDocument.load(snapshot: snap, peer: 9)
        #expect(loaded.text(TraceReplay.textID) == trace.endContent)
        var fresh = CRDTDocument(peer: 7)
        try fresh.importUpdates(doc.exportUpdates())
        #expect(fresh.text(TraceReplay.textID) == trace.endContent)
        #expect(fresh.version == doc.version)
    }

    @Test func concurrentTraceConverges() throws {
        let trace = try Fixtures.trace("friendsforever-concurrent.json.gz")
        #expect(trace.isConcurrent)
        let result = try TraceReplay.replayConcurrent(trace)
        let texts = Set(result.agents.map { $0.text(TraceReplay.textID) })
        #expect(texts.count == 1)
        let versions = Set(result.agents.map(\.version))
        #expect(versions.count == 1)
        // With one peer per agent following `parents`, Fugue (Loro's tie-breaks) reproduces the
        // recorded final text exactly.
        let merged = result.agents[0].text(TraceReplay.textID)
        #expect(merged == trace.endContent)
    }

    /// A declared agent count the file does not back allocates nothing (it allocated a document
    /// per declared agent: 17 GB from 150 bytes); an agent beyond the declared count is an error.
    @Test func declaredAgentsAllocateNothing() throws {
        let huge = #"{"startContent":"","endContent":"ab","numAgents":1000000000,"txns":[{"patches":[[0,0,"a"]],"parents":[],"agent":0},{"patches":[[1,0,"b"]],"parents":[0],"agent":1}]}"#
        let result = try TraceReplay.replayConcurrent(EditingTrace(json: Array(huge.utf8)))
        #expect(result.agents.count == 2)
        #expect(result.agents.allSatisfy { $0.text(TraceReplay.textID) == "ab" })
        let few = #"{"startContent":"","endContent":"a","numAgents":1,"txns":[{"patches":[[0,0,"a"]],"parents":[],"agent":3}]}"#
        #expect(throws: TraceError.malformed("transaction 0 names agent 3, but the trace declares 1 agents (0 to 0)")) {
            try TraceReplay.replayConcurrent(EditingTrace(json: Array(few.utf8)))
        }
    }
}
