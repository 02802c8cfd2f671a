import Foundation
import Testing
@testable import QuireCRDT

/// Loro's binary formats without a Loro peer: blobs Loro 1.17.1 wrote (Tests/Fixtures/loro-binary,
/// from Tests/Interop/make_fixtures.py), the codecs' building blocks against Loro's bytes, and
/// hostile inputs.
@Suite struct LoroBinaryFormatTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/loro-binary")

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func expected() throws -> (deep: CRDTValue, delta: CRDTValue) {
        let text = String(decoding: try fixture("sample-expected.json"), as: UTF8.self)
        guard case .map(let m) = try CRDTValue(json: text), let deep = m["deep"], let delta = m["delta"] else {
            throw CRDTError.malformedBytes(offset: 0, reason: "bad expected fixture")
        }
        return (deep, delta)
    }

    /// Every fixture imports into what Loro read from it; what Quire writes back reads the same.
    @Test(arguments: ["sample-updates.bin", "sample-snapshot.bin", "sample-shallow.bin"])
    func loroBlobsImport(name: String) throws {
        let (deep, delta) = try Self.expected()
        var doc = CRDTDocument(peer: 1)
        try doc.importLoro(Self.fixture(name))
        #expect(Comparable.plain(doc.deepValue) == Comparable.plain(deep))
        #expect(Comparable.delta(doc, .root(name: "text", type: .text)) == delta)
        // A shallow document's updates lack the trimmed history: only its snapshots stand alone.
        let blobs = name.contains("shallow") ? [doc.exportLoroSnapshot(), doc.exportSnapshot()] : [doc.exportLoroUpdates(), doc.exportLoroSnapshot(), doc.exportSnapshot()]
        for blob in blobs {
            var again = CRDTDocument(peer: 2)
            try again.importUpdates(blob)
            #expect(again.deepValue == doc.deepValue)
        }
    }

    /// The envelope: Loro's header bytes, xxHash32 with Loro's seed, the mode.
    @Test func envelope() throws {
        let blob = try Self.fixture("sample-updates.bin")
        #expect(Array(blob[0..<4]) == Array("loro".utf8) && blob[20] == 0 && blob[21] == 4)
        #expect(LoroEnvelope.seal(.fastUpdates, Array(blob[22...])) == blob)
        var corrupt = blob
        corrupt[30] ^= 1
        #expect(throws: CRDTError.self) { try LoroEnvelope.open(corrupt) }
    }

    /// serde_columnar's strategies read what they write, including Loro's literal-only runs.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func columnarStrategiesRoundTrip(seed: UInt64) throws {
        var rng = SeededRNG(seed: seed)
        let n = rng.int(0..<300)
        let values = (0..<n).map { _ in rng.chance(0.5) ? Int64(rng.int(-3..<3)) : Int64(rng.int(-1_000_000..<1_000_000)) * (rng.chance(0.1) ? 1 << 30 : 1) }
        var w = ByteWriter()
        Columnar.deltaOfDelta(values, into: &w)
        var r = ByteReader(w.bytes)
        #expect(try Columnar.deltaOfDelta(&r, "test") == values)
        w = ByteWriter()
        Columnar.deltaRle(values, into: &w)
        r = ByteReader(w.bytes)
        #expect(try Columnar.deltaRle(&r, range: Int64.min / 2...Int64.max / 2, "test") == values)
        let bools = values.map { $0 > 0 }
        w = ByteWriter()
        Columnar.boolRle(bools, into: &w)
        r = ByteReader(w.bytes)
        #expect(try Columnar.boolRle(&r, "test") == bools)
        // Loro writes `01 00` for the single value 0 (a literal run of one).
        r = ByteReader([0x01, 0x00])
        #expect(try Columnar.anyRle(&r, .unsigned, "test") == [0])
    }

    /// LZ4 frames through liblz4: round trips of every block-size class, raw and compressed data
    /// blocks, and the canonical 64 KiB header.
    @Test func lz4Frames() throws {
        var rng = SeededRNG(seed: 9)
        for size in [0, 1, 12, 13, 4096, 70_000, 300_000] {
            let random = (0..<size).map { _ in UInt8(rng.int(0..<256)) }
            let repetitive = (0..<size).map { UInt8($0 % 7) }
            for input in [random, repetitive] {
                let frame = LZ4Frame.compress(input)
                #expect(try LZ4Frame.decompress(ByteReader(frame)) == input)
            }
        }
        #expect(Array(LZ4Frame.compress([1, 2, 3]).prefix(7)) == [0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82])
    }

    /// SSTables: keys across blocks, large values in blocks of their own, lookups by key.
    @Test func sstables() throws {
        var entries: [(key: [UInt8], value: [UInt8])] = []
        for i in 0..<500 { entries.append((Array("key\(10_000 + i)".utf8), Array(repeating: UInt8(i % 251), count: i % 3 == 0 ? 5_000 : 40))) }
        let table = try SSTable(ByteReader(SSTable.encode(entries)))
        #expect(table.blocks.count > 10)
        let all = try table.allEntries()
        #expect(all.map(\.key) == entries.map(\.key))
        #expect(all.map(\.value.remainingBytes) == entries.map(\.value))
        #expect(try table.value(Array("key10321".utf8))?.remainingBytes == entries[321].value)
        #expect(try table.value(Array("nope".utf8)) == nil)
        #expect(try SSTable(ByteReader([])).isEmpty)
    }
}
