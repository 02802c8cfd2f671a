import Foundation
@testable import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import Testing

@Suite struct DebugTests {
    @Test func indentRemote() throws {
        let a = try Peer("A", peer: 1, document: CRDTDocument(peer: 1), state: EditorState(registry: Plugins.registry, paragraphs: ["one", "two", "three"]))
        var doc = CRDTDocument(peer: 2)
        try doc.importUpdates(a.binding.exportUpdates())
        let b = try Peer("B", peer: 2, document: doc)
        try a.select(0..<13)
        _ = try a.editor.dispatch(named: "list.insert", payload: "bullet")
        try b.receive(from: a)
        try b.checkInvariant("after list")
        for (index, caret) in [(1, 5), (2, 9)] {
            try a.select(caret..<caret)
            _ = try a.editor.dispatch(named: "list.indent", payload: .null)
            try a.checkInvariant("A after indent \(index)")
            try b.receive(from: a)
            try b.checkInvariant("B after indent \(index)")
            #expect(a.canonicalJSON == b.canonicalJSON)
        }
        // B outdents while A types in the nested item.
        try b.select(9..<9)
        _ = try b.editor.dispatch(named: "list.outdent", payload: .null)
        try a.select(10..<10)
        try a.type("X")
        try a.receive(from: b)
        try b.receive(from: a)
        try a.checkInvariant("A end")
        try b.checkInvariant("B end")
        #expect(a.canonicalJSON == b.canonicalJSON)
    }
}
