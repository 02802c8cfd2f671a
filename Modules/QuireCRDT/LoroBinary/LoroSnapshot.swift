// FastSnapshot (encode mode 3, encoding.md §3, §5, §11): three length-prefixed sections.
//
//   u32le + oplog   the ChangeStore SSTable: "vv", "fr" (history end), "sv", "sf" (shallow
//                   start, only in shallow snapshots) and change blocks keyed by their first ID
//   u32le + state   the state SSTable at the history end (container key → wrapper), or "E":
//                   left out, replay the history from the shallow root
//   u32le + root    shallow snapshots: the state SSTable at the shallow root, with "fr"

/// The three sections of a FastSnapshot body, their SSTables parsed (metadata only).
struct LoroSnapshotSections {
    var oplog: SSTable
    /// nil when the section is Loro's `E` (omitted: replay from the shallow root).
    var state: SSTable?
    var shallowRoot: SSTable

    static let omittedState: UInt8 = 0x45

    /// Whether this is a shallow snapshot (its root section is not empty).
    var isShallow: Bool { !shallowRoot.isEmpty }

    init(_ body: ByteReader) throws(CRDTError) {
        var r = body
        func section(_ what: String) throws(CRDTError) -> ByteReader {
            let at = r.offset
            let n = Int(try r.u32())
            guard n <= r.remaining else { throw CRDTError.malformedBytes(offset: at, reason: "\(what) section of \(n) bytes runs past the end (\(r.remaining) left)") }
            return try r.sub(n, what)
        }
        let oplogBytes = try section("oplog")
        let stateBytes = try section("state")
        let rootBytes = try section("shallow root state")
        try r.expectEnd("the snapshot's three sections")
        oplog = try SSTable(oplogBytes)
        if stateBytes.remaining == 1, stateBytes.bytes[stateBytes.offset] == Self.omittedState {
            state = nil
        } else {
            state = try SSTable(stateBytes)
        }
        shallowRoot = try SSTable(rootBytes)
        guard state != nil || isShallow else {
            throw CRDTError.malformedBytes(offset: stateBytes.offset, reason: "the state section is omitted (\"E\") in a snapshot that is not shallow")
        }
    }

    /// The ChangeStore's metadata and change blocks.
    struct ChangeStore {
        var version: VersionVector
        var frontiers: Frontiers
        var shallowStart: VersionVector?
        var shallowFrontiers: Frontiers?
        /// The change blocks, with the offset of each (for errors) and its key.
        var blocks: [(key: [UInt8], value: ByteReader)]
    }

    /// Reads the ChangeStore section's entries (the blocks stay undecoded).
    /// - Complexity: O(size of the section) to decompress its SSTable blocks.
    func changeStore() throws(CRDTError) -> ChangeStore {
        var store = ChangeStore(version: VersionVector(), frontiers: Frontiers(), shallowStart: nil, shallowFrontiers: nil, blocks: [])
        for (key, value) in try oplog.allEntries() {
            var v = value
            switch key {
            case Array("vv".utf8): store.version = try Postcard.versionVector(&v); try v.expectEnd("vv")
            case Array("fr".utf8): store.frontiers = try Postcard.frontiers(&v); try v.expectEnd("fr")
            case Array("sv".utf8): if !v.isAtEnd { store.shallowStart = try Postcard.versionVector(&v); try v.expectEnd("sv") }
            case Array("sf".utf8): store.shallowFrontiers = try Postcard.frontiers(&v); try v.expectEnd("sf")
            default:
                guard key.count == 12 else { throw CRDTError.malformedBytes(offset: value.offset, reason: "unknown ChangeStore key of \(key.count) bytes") }
                store.blocks.append((key, value))
            }
        }
        if store.shallowStart?.ends.isEmpty == true { store.shallowStart = nil }
        return store
    }
}

extension LoroSnapshotSections.ChangeStore {
    /// Every change of the blocks, each block checked against its key.
    /// - Complexity: O(size of the blocks).
    func changes() throws(CRDTError) -> [(LoroJSONChange, Int)] {
        var out: [(LoroJSONChange, Int)] = []
        for (key, block) in blocks {
            let changes = try ChangeBlock.decode(block)
            guard let first = changes.first, first.id.loroKey == key else {
                throw CRDTError.malformedBytes(offset: block.offset, reason: "a change block whose first change is not its key")
            }
            for ch in changes { out.append((ch, block.offset)) }
        }
        return out
    }
}

extension CRDTDocument {
    /// Imports a FastSnapshot body: its history, as Loro does when the document is not empty.
    mutating func importLoroSnapshot(_ body: ByteReader) throws(CRDTError) -> ImportStatus {
        let sections = try LoroSnapshotSections(body)
        let store = try sections.changeStore()
        return try importLoroChanges(try store.changes())
    }
}

enum LoroSnapshotWriter {
    /// A FastSnapshot body from its three sections.
    static func body(oplog: [UInt8], state: [UInt8], shallowRoot: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        for section in [oplog, state, shallowRoot] {
            w.u32(UInt32(section.count))
            w.bytes.append(contentsOf: section)
        }
        return w.bytes
    }

    /// The ChangeStore SSTable of `changes` with the history's end (and, for a shallow
    /// snapshot, its start).
    static func changeStore(_ changes: [LoroJSONChange], version: VersionVector, frontiers: Frontiers,
                            shallowStart: (VersionVector, Frontiers)? = nil) -> [UInt8] {
        func encoded(_ body: (inout ByteWriter) -> Void) -> [UInt8] { var w = ByteWriter(); body(&w); return w.bytes }
        var entries: [(key: [UInt8], value: [UInt8])] = [
            (Array("fr".utf8), encoded { Postcard.write(frontiers, into: &$0) }),
            (Array("vv".utf8), encoded { Postcard.write(version, into: &$0) }),
        ]
        if let (sv, sf) = shallowStart {
            entries.append((Array("sf".utf8), encoded { Postcard.write(sf, into: &$0) }))
            entries.append((Array("sv".utf8), encoded { Postcard.write(sv, into: &$0) }))
        }
        for (first, block) in LoroUpdatesCodec.blocks(changes) { entries.append((first.loroKey, block)) }
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return SSTable.encode(entries)
    }
}

extension CRDTDocument {
    /// The whole document as Loro's snapshot (`ExportMode.Snapshot`, FastSnapshot): the
    /// complete history and the state of every container. A real Loro document imports it with
    /// `import_`. Uncommitted local operations are not included; commit first.
    /// - Complexity: O(n + h) for the state and the history (see ``exportJSONUpdates(from:to:)``).
    public func exportLoroSnapshot() -> [UInt8] {
        let oplog = LoroSnapshotWriter.changeStore(exportJSONUpdates().changes, version: s.version, frontiers: s.frontiers)
        let state = SSTable.encode(LoroStateEncoder.entries(s))
        return LoroEnvelope.seal(.fastSnapshot, LoroSnapshotWriter.body(oplog: oplog, state: state, shallowRoot: []))
    }
}
