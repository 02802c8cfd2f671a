import Foundation
import QuireJSON
import Synchronization
import Testing
@testable import QuireCRDT

/// Cursors in Loro's encoding and the ephemeral store (presence), on their own and against a
/// real Loro peer.
@Suite struct PresenceTests {
    static let text = ContainerID.root(name: "t", type: .text)

    /// Bytes Loro 1.17.1 wrote (`get_cursor(2, Left/Middle/Right)` on "hello" by peer 5, a cursor
    /// in an empty root text, one in a child text): they decode, and encode back byte for byte.
    @Test func loroCursorBytes() throws {
        let left = try Cursor(loroEncoded: Self.hex("010504000174000002"))
        #expect(left == Cursor(container: Self.text, anchor: OpID(peer: 5, counter: 2), side: .before))
        #expect(left.loroEncoded(originPosition: 2) == Self.hex("010504000174000002"))
        #expect(try Cursor(loroEncoded: Self.hex("010504000174000202")).anchor == OpID(peer: 5, counter: 2))
        let empty = try Cursor(loroEncoded: Self.hex("000005656d707479000000"))
        #expect(empty == Cursor(container: .root(name: "empty", type: .text), anchor: nil, side: .before))
        let child = try Cursor(loroEncoded: Self.hex("01050e01050a000201"))
        #expect(child.container == .normal(id: OpID(peer: 5, counter: 5), type: .text) && child.anchor == OpID(peer: 5, counter: 7))
        // Every truncation and a bad tag throw and name an offset.
        let bytes = Self.hex("01050e01050a000201")
        for n in 0..<bytes.count {
            #expect(throws: CRDTError.self) { try Cursor(loroEncoded: Array(bytes.prefix(n))) }
        }
        #expect(throws: CRDTError.malformedBytes(offset: 0, reason: "bad Option tag 7")) { try Cursor(loroEncoded: [7] + bytes.dropFirst()) }
    }

    static func hex(_ s: String) -> [UInt8] {
        stride(from: 0, to: s.count, by: 2).map { UInt8(s.dropFirst($0).prefix(2), radix: 16)! }
    }

    /// Last writer by timestamp wins, outdated entries are neither sent nor kept, deletions
    /// travel, malformed bytes change nothing.
    @Test func ephemeralStore() throws {
        let now = Mutex<Int64>(1_000_000)
        let clock: EphemeralStore.Clock = { now.withLock { $0 } }
        var a = EphemeralStore(timeout: 30_000, clock: clock), b = EphemeralStore(timeout: 30_000, clock: clock)
        a.set("alice", .map(["cursor": .int(3), "name": .string("A")]))
        var change = try b.apply(a.encodeAll())
        #expect(change.added == ["alice"] && b.get("alice") == a.get("alice"))
        now.withLock { $0 += 10 }
        b.set("alice", .string("newer"))
        change = try b.apply(a.encodeAll())
        #expect(change == EphemeralStore.Change() && b.get("alice") == .string("newer"))
        change = try a.apply(b.encode("alice"))
        #expect(change.updated == ["alice"] && a.get("alice") == .string("newer"))
        now.withLock { $0 += 1 }
        a.delete("alice")
        #expect(try b.apply(a.encode("alice")).removed == ["alice"])
        #expect(b.keys.isEmpty)
        now.withLock { $0 += 40_000 }
        #expect(a.encodeAll() == [0])
        a.set("bob", .int(1))
        #expect(a.removeOutdated().isEmpty)
        let good = a.encodeAll()
        for n in 1..<good.count {
            var c = b
            #expect(throws: CRDTError.self) { try c.apply(Array(good.prefix(n))) }
            #expect(c.keys == b.keys)
        }
    }
}

/// The same against Loro 1.17.1.
@Suite(.enabled(if: LoroPeer.python != nil, "set QUIRE_LORO_PYTHON to a Python with loro==1.17.1 (make test creates .venv-interop and sets it)"))
struct PresenceInteropTests {
    @Test func cursorsBothWays() throws {
        let loro = try LoroPeer()
        try loro.create("a", peer: 5)
        try loro.randomEdits("a", seed: 3, count: 60)
        var doc = LoroInteropTests.document(peer: 6)
        try doc.importLoro(loro.exportBinary("a", .updates(from: VersionVector())))
        let body = LoroInteropTests.body
        let n = doc.length(of: body)
        for pos in stride(from: 0, through: n, by: max(1, n / 7)) {
            for side in ["left", "middle", "right"] {
                let reply = try loro.request(["cmd": "cursor", "doc": "a", "container": "body", "pos": .number(.integer(pos)), "side": .string(side)])
                let bytes = [UInt8](Data(base64Encoded: try #require(reply["bytes"]?.stringValue))!)
                let cursor = try Cursor(loroEncoded: bytes)
                #expect(try doc.resolve(cursor) == pos, "Loro's \(side) cursor at \(pos)")
            }
            let mine = try doc.cursor(at: pos, in: body)
            let reply = try loro.request(["cmd": "cursor_pos", "doc": "a", "bytes": .string(Data(mine.loroEncoded(originPosition: pos)).base64EncodedString())])
            #expect(reply["pos"]?.intValue == pos, "Quire's cursor at \(pos)")
        }
        // After concurrent edits on both sides, both still agree on every cursor.
        let cursors = try (0...n).map { try doc.cursor(at: $0, in: body) }
        try loro.randomEdits("a", seed: 4, count: 30)
        try doc.importLoro(loro.exportBinary("a", .updates(from: doc.version)))
        for c in cursors {
            let reply = try loro.request(["cmd": "cursor_pos", "doc": "a", "bytes": .string(Data(c.loroEncoded()).base64EncodedString())])
            #expect(reply["pos"]?.intValue == (try doc.resolve(c)))
        }
    }

    @Test func ephemeralStoresBothWays() throws {
        let loro = try LoroPeer()
        try loro.request(["cmd": "eph", "store": "s", "action": "new", "timeout": 30_000])
        try loro.request(["cmd": "eph", "store": "s", "action": "set", "key": "loro-peer", "value": ["anchor": "3@5", "side": 1]])
        // A clock one second ahead, so that this store's writes are the newer ones.
        var mine = EphemeralStore(timeout: 30_000) { Int64(Date().timeIntervalSince1970 * 1000) + 1_000 }
        let reply = try loro.request(["cmd": "eph", "store": "s", "action": "encode_all"])
        try mine.apply([UInt8](Data(base64Encoded: try #require(reply["bytes"]?.stringValue))!))
        #expect(mine.get("loro-peer") == .map(["anchor": .string("3@5"), "side": .int(1)]))
        mine.set("quire-peer", .map(["caret": .list([.int(1), .double(2.5), .null, .bool(true)]), "bytes": .binary([1, 2])]))
        mine.delete("loro-peer")
        try loro.request(["cmd": "eph", "store": "s", "action": "apply", "bytes": .string(Data(mine.encodeAll()).base64EncodedString())])
        let states = try loro.request(["cmd": "eph", "store": "s", "action": "all"])["states"]?.objectValue ?? JSONObject()
        #expect(Set(states.map(\.key)) == ["quire-peer"])
    }
}
