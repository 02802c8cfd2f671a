import Foundation
import Testing
@testable import QuireCRDT

/// Every decoder of Loro's binary formats (and Quire's snapshot, which wraps Loro's) against
/// mutated and truncated inputs, with and without valid checksums: each input either imports,
/// leaving a usable document, or throws a `CRDTError` that names a byte offset and leaves the
/// document as it was. Seeded and reproducible; `QUIRE_LONG_FUZZ=N` runs N inputs per decoder
/// (the default keeps CI fast; the long run of the README uses 11,112 × 9 decoders ≥ 100,000).
@Suite struct LoroFuzzTests {
    typealias T = LoroInteropTests

    static let inputsPerDecoder = ProcessInfo.processInfo.environment["QUIRE_LONG_FUZZ"].flatMap { Int($0) } ?? 240
    /// Cases run in parallel: each decoder's inputs are split into this many shards.
    static let shards = 4

    enum Decoder: String, CaseIterable, CustomTestStringConvertible {
        case updates, snapshot, shallowSnapshot, loroWritten, quireSnapshot, lz4, sstable, cursor, ephemeral
        var testDescription: String { rawValue }
    }

    // MARK: Inputs

    /// A document with every container type, marks, nested containers and deletions, edited in
    /// two commits (`middle` is the version between them).
    static func corpusDocument() throws -> (doc: CRDTDocument, middle: Frontiers) {
        var doc = try LoroBinaryInteropTests.sampleDocument()
        let middle = doc.frontiers
        let tasks = ContainerID.root(name: "tasks", type: .movableList)
        try doc.insert([.string("one"), .string("two"), .int(3)], at: 0, in: tasks)
        try doc.move(from: 0, to: 2, in: tasks)
        try doc.set(.string("TWO"), at: 0, in: tasks)
        let inner = try doc.setContainer(.text, at: 1, in: tasks)
        try doc.insertText("in", at: 0, in: inner)
        try doc.increment(.root(name: "hits", type: .counter), by: 2.5)
        try doc.insertText(" more", at: 3, in: T.body)
        try doc.mark(1..<4, key: "italic", value: .bool(true), in: T.body)
        doc.commit()
        return (doc, middle)
    }

    /// The well-formed inputs of a decoder: bytes, and the documents to import them into.
    static func seeds(_ decoder: Decoder) throws -> [[UInt8]] {
        let (doc, middle) = try corpusDocument()
        switch decoder {
        case .updates: return [doc.exportLoroUpdates(), doc.exportLoroUpdates(from: try doc.fork(at: middle).version)]
        case .snapshot: return [doc.exportLoroSnapshot()]
        case .shallowSnapshot: return [try doc.exportShallowSnapshot(at: middle)]
        case .loroWritten: return try ["sample-updates.bin", "sample-snapshot.bin", "sample-shallow.bin"].map(LoroBinaryFormatTests.fixture)
        case .quireSnapshot: return [doc.exportSnapshot()]
        case .lz4:
            var rng = SeededRNG(seed: 77)
            let text = Array(doc.text(T.body).utf8)
            return [LZ4Frame.compress((0..<3000).map { _ in text[rng.int(0..<text.count)] }), LZ4Frame.compress((0..<66_000).map { UInt8($0 % 13) })]
        case .sstable:
            let entries = (0..<120).map { i in (key: Array("k\(1000 + i)".utf8), value: [UInt8](repeating: UInt8(i), count: i % 40 == 0 ? 4500 : 30)) }
            return [SSTable.encode(entries)]
        case .cursor:
            let cursor = Cursor(container: T.body, anchor: OpID(peer: 101, counter: 3), side: .before)
            return [cursor.loroEncoded(originPosition: 5), Cursor(container: T.items, anchor: nil, side: .after).loroEncoded()]
        case .ephemeral:
            var store = EphemeralStore(timeout: 30_000, clock: { 1_000 })
            store.set("caret", .map(["pos": .int(3), "name": .string("ann"), "list": .list([.double(1.5), .binary([1, 2])])]))
            store.set("gone", .null)
            store.delete("gone")
            return [store.encodeAll()]
        }
    }

    // MARK: Mutations

    /// A mutated copy of `bytes`; `sameLayout` tells whether every byte kept its offset (then
    /// checksums can be recomputed over the original layout).
    static func mutate(_ bytes: [UInt8], _ rng: inout SeededRNG) -> (bytes: [UInt8], sameLayout: Bool) {
        var b = bytes
        // Most mutations land past the 22-byte header, where the checks get interesting.
        func position() -> Int { b.count > 24 && rng.chance(0.85) ? rng.int(22..<b.count) : rng.int(0..<max(1, b.count)) }
        guard !b.isEmpty else { return ([UInt8(rng.int(0..<256))], false) }
        switch rng.int(0..<8) {
        case 0, 1:
            for _ in 0..<rng.int(1..<4) { b[position()] ^= UInt8(1 << rng.int(0..<8)) }
            return (b, true)
        case 2:
            let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFE, 0xFF]
            b[position()] = interesting[rng.int(0..<interesting.count)]
            return (b, true)
        case 3:
            // A run of 0xFF: LEB128 lengths and counts that never end or overflow.
            let at = position()
            for i in at..<min(b.count, at + rng.int(2..<10)) { b[i] = 0xFF }
            return (b, true)
        case 4:
            return (Array(b.prefix(rng.int(0..<b.count))), false)
        case 5:
            let at = position()
            b.insert(contentsOf: (0..<rng.int(1..<5)).map { _ in UInt8(rng.int(0..<256)) }, at: at)
            return (b, false)
        case 6:
            let at = position()
            b.removeSubrange(at..<min(b.count, at + rng.int(1..<9)))
            return (b, false)
        default:
            let at = position(), n = min(b.count - at, rng.int(1..<32))
            b.insert(contentsOf: b[at..<(at + n)], at: position())
            return (b, false)
        }
    }

    /// Where the checksums of a Loro blob sit: (covered range, offset of the stored u32), in the
    /// order they must be recomputed (inner ones first, the envelope's last).
    static func checksums(ofLoro blob: [UInt8], at base: Int = 0) -> [(Range<Int>, Int)] {
        var sums: [(Range<Int>, Int)] = []
        if let (mode, body) = try? LoroEnvelope.open(Array(blob)), mode == .fastSnapshot, let sections = try? LoroSnapshotSections(body) {
            for table in [sections.oplog, sections.state, sections.shallowRoot].compactMap({ $0 }) where !table.isEmpty {
                for block in table.blocks { sums.append((base + block.offset..<base + block.end - 4, base + block.end - 4)) }
                let r = table.reader
                let metaOffset = r.offset + Int(UInt32(r.bytes[r.end - 4]) | UInt32(r.bytes[r.end - 3]) << 8 | UInt32(r.bytes[r.end - 2]) << 16 | UInt32(r.bytes[r.end - 1]) << 24)
                sums.append((base + metaOffset + 4..<base + r.end - 8, base + r.end - 8))
            }
        }
        sums.append((base + 20..<base + blob.count, base + 16))
        return sums
    }

    /// Recomputes the xxHash32 checksums at the original layout, so that only the decoders'
    /// own checks can catch the mutation.
    static func reseal(_ bytes: inout [UInt8], _ sums: [(Range<Int>, Int)]) {
        for (range, at) in sums where range.upperBound <= bytes.count && at + 4 <= bytes.count {
            let h = XXHash32.hash(bytes, range, seed: XXHash32.loroSeed)
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: h >> (8 * UInt32(i))) }
        }
    }

    /// Quire's snapshot frame version 2: the embedded Loro blob's checksums, then the CRC32 of
    /// the rest.
    static func resealQuire(_ bytes: inout [UInt8], original: [UInt8]) {
        var r = ByteReader(original, from: 2)
        guard let length = try? r.int(max: r.remaining, "length") else { return }
        let blobStart = r.offset, blobEnd = blobStart + length
        reseal(&bytes, checksums(ofLoro: Array(original[blobStart..<blobEnd]), at: blobStart))
        let covered = Array(bytes[0..<blobStart]) + Array(bytes[blobEnd..<(bytes.count - 4)])
        let crc = CRC32.checksum(covered, count: covered.count)
        for i in 0..<4 { bytes[bytes.count - 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
    }

    /// An LZ4 frame's header checksum byte, recomputed for its (possibly mutated) descriptor.
    static func resealLZ4(_ bytes: inout [UInt8]) {
        guard bytes.count >= 7 else { return }
        let flags = bytes[4]
        let descriptorEnd = 6 + (flags & 0x08 != 0 ? 8 : 0) + (flags & 0x01 != 0 ? 4 : 0)
        guard descriptorEnd < bytes.count else { return }
        bytes[descriptorEnd] = LZ4Frame.headerChecksum(Array(bytes[4..<descriptorEnd]))
    }

    // MARK: Checks

    /// The offset an error names; nil for errors that name none.
    static func offset(_ error: CRDTError) -> Int? {
        switch error {
        case .malformedBytes(let offset, _), .checksumMismatch(let offset, _, _): return offset
        default: return nil
        }
    }

    /// Everything observable about a document that a failed import must leave alone.
    static func observable(_ doc: CRDTDocument) -> String {
        "\(fingerprint(doc))|\(doc.version)|\(doc.frontiers)"
    }

    /// The documents each input is imported into: a pristine one (snapshots load lazily there)
    /// and one holding other history (everything is decoded up front).
    static func targets(_ middle: CRDTDocument) -> [CRDTDocument] {
        var other = T.document(peer: 900)
        try? other.insertText("other", at: 0, in: T.body)
        other.commit()
        return [T.document(peer: 901), other, middle]
    }

    /// Imports one input into every target and checks the outcome.
    static func check(_ bytes: [UInt8], _ decoder: Decoder, targets: [CRDTDocument], observed: [String], context: @autoclosure () -> String) -> [String] {
        var outcomes: [String] = []
        func failed(_ error: CRDTError) {
            outcomes.append("error")
            #expect(offset(error) != nil, "\(context()): \(error) names no byte offset")
        }
        switch decoder {
        case .lz4:
            do throws(CRDTError) { _ = try LZ4Frame.decompress(ByteReader(bytes)); outcomes.append("ok") } catch { failed(error) }
        case .sstable:
            do throws(CRDTError) { _ = try SSTable(ByteReader(bytes)).allEntries(); outcomes.append("ok") } catch { failed(error) }
        case .cursor:
            do throws(CRDTError) { _ = try Cursor(loroEncoded: bytes); outcomes.append("ok") } catch { failed(error) }
        case .ephemeral:
            var store = EphemeralStore(timeout: 30_000, clock: { 1_000 })
            store.set("mine", .int(1))
            let before = store.all
            do throws(CRDTError) { try store.apply(bytes); outcomes.append("ok") } catch {
                failed(error)
                #expect(store.all == before, "\(context()): a failed apply changed the store")
            }
        case .updates, .snapshot, .shallowSnapshot, .loroWritten, .quireSnapshot:
            for (target, before) in zip(targets, observed) {
                var doc = target
                do throws(CRDTError) {
                    try doc.importUpdates(bytes)
                    outcomes.append("ok")
                    expectUsable(&doc, context: context())
                } catch {
                    failed(error)
                    #expect(observable(doc) == before, "\(context()): a failed import changed the document (\(error))")
                }
            }
        }
        return outcomes
    }

    /// An accepted input leaves a document that reads, exports, re-imports and edits. A lazily
    /// loaded snapshot that turns out not to decode leaves the document empty, with the error.
    /// What the document exports reads back the same, except for a lazily loaded snapshot
    /// whose state and history disagree (only damaged input does): its state shows, and its
    /// export comes from its history.
    static func expectUsable(_ doc: inout CRDTDocument, context: @autoclosure () -> String) {
        let lazy = doc.storage.deferred != nil
        let deep = doc.deepValue
        // Compared as JSON, where a NaN (which a mutated f64 may be) equals itself.
        let deepJSON = doc.deepValueJSON()
        if let error = doc.loadError {
            #expect(offset(error) != nil, "\(context()): load error \(error) names no byte offset")
            #expect(deep == CRDTDocument(peer: 1).deepValue && doc.version == VersionVector(), "\(context()): a failed lazy load left content")
        }
        for (kind, blob) in [("snapshot", doc.exportLoroSnapshot()), ("updates", doc.exportLoroUpdates())] where kind == "snapshot" || doc.storage.shallowRoot == nil {
            var again = CRDTDocument(peer: 902)
            do throws(CRDTError) {
                try again.importUpdates(blob)
                let read = again.deepValueJSON()
                #expect(again.loadError == nil, "\(context()): the document's own \(kind) does not decode: \(String(describing: again.loadError))")
                #expect(read == deepJSON || lazy, "\(context()): the document's own \(kind) reads \(read), not \(deepJSON)")
            } catch {
                Issue.record("\(context()): the document's own \(kind) does not import: \(error)")
            }
        }
        do throws(CRDTError) {
            try doc.insertText("x", at: 0, in: T.body)
            doc.commit()
        } catch {
            Issue.record("\(context()): an edit after the import failed: \(error)")
        }
    }

    /// Input `iteration` of a decoder: a mutation of one of its seeds, with valid checksums
    /// half of the time (over the original layout when bytes moved, which the SSTable checks
    /// then catch). The same iteration is the same input whatever the counts and shards.
    static func input(_ decoder: Decoder, iteration: Int, seeds: [[UInt8]], sums: [[(Range<Int>, Int)]]) -> (bytes: [UInt8], seed: Int, resealed: Bool) {
        var rng = SeededRNG(seed: UInt64(iteration) &* 0x1_0000 &+ UInt64(Decoder.allCases.firstIndex(of: decoder)!))
        let which = rng.int(0..<seeds.count)
        var (bytes, sameLayout) = mutate(seeds[which], &rng)
        let resealed = rng.chance(0.5)
        if resealed {
            switch decoder {
            case .quireSnapshot: if sameLayout { resealQuire(&bytes, original: seeds[which]) }
            case .lz4: resealLZ4(&bytes)
            case .sstable:
                if sameLayout, let table = try? SSTable(ByteReader(seeds[which])) {
                    reseal(&bytes, table.blocks.map { ($0.offset..<$0.end - 4, $0.end - 4) })
                }
            case .cursor, .ephemeral: break
            default: reseal(&bytes, sameLayout ? sums[which] : [(20..<max(20, bytes.count), 16)])
            }
        }
        return (bytes, which, resealed)
    }

    /// `QUIRE_FUZZ_ONLY=DECODER:ITERATION` runs that one input (as a failure names it).
    static let only: (Decoder, Int)? = {
        guard let spec = ProcessInfo.processInfo.environment["QUIRE_FUZZ_ONLY"] else { return nil }
        let parts = spec.split(separator: ":")
        guard parts.count == 2, let decoder = Decoder(rawValue: String(parts[0])), let n = Int(parts[1]) else { return nil }
        return (decoder, n)
    }()

    @Test(arguments: Decoder.allCases, 0..<shards)
    func mutatedInputsThrowOrImport(decoder: Decoder, shard: Int) throws {
        if let (only, _) = Self.only, only != decoder || shard != 0 { return }
        let seeds = try Self.seeds(decoder)
        let (doc, middle) = try Self.corpusDocument()
        let targets = Self.targets(try doc.fork(at: middle, peer: 903))
        let pristine = targets.map(Self.observable)
        // Every seed imports as it is, or the mutations below prove little.
        if shard == 0 {
            for bytes in seeds { #expect(!Self.check(bytes, decoder, targets: targets, observed: pristine, context: "\(decoder) seed").contains("error")) }
        }
        let sums = seeds.map { [.updates, .snapshot, .shallowSnapshot, .loroWritten].contains(decoder) ? Self.checksums(ofLoro: $0) : [] }
        var counts: [String: Int] = [:]
        let perShard = (Self.inputsPerDecoder + Self.shards - 1) / Self.shards
        let iterations = Self.only.map { [$0.1] } ?? Array(shard * perShard..<(shard + 1) * perShard)
        for iteration in iterations {
            let (bytes, which, resealed) = Self.input(decoder, iteration: iteration, seeds: seeds, sums: sums)
            let context = "\(decoder) input \(iteration) (seed \(which), resealed \(resealed); QUIRE_FUZZ_ONLY=\(decoder):\(iteration) runs it alone)"
            for outcome in Self.check(bytes, decoder, targets: targets, observed: pristine, context: context) {
                counts[outcome + (resealed ? "/resealed" : ""), default: 0] += 1
            }
        }
        // Value semantics: importing into copies never touched the originals.
        #expect(targets.map(Self.observable) == pristine, "\(decoder): an import changed the document it was copied from")
        // The mutations must reach past the checksums: some resealed inputs fail in the decoders
        // themselves and some are accepted.
        if Self.only == nil && perShard >= 50 && decoder != .cursor && decoder != .ephemeral {
            #expect(counts["error/resealed", default: 0] > 0, "\(decoder): \(counts)")
        }
    }
}
