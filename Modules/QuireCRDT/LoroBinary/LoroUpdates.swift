// FastUpdates (encode mode 4, encoding.md §6): the envelope, then change blocks as
// `uleb(block length) + block` until the end. Blocks are not compressed and carry no checksum of
// their own.

enum LoroUpdatesCodec {
    /// The estimated block size at which a new block starts, as Loro's ChangeStore splits (a
    /// block holds whole changes, so one large change makes one large block).
    static let blockTarget = 4096

    /// The FastUpdates body of `changes`: their blocks, each as `uleb(length) + block`.
    /// - Complexity: O(size of the changes + c log c) for c changes.
    static func body(_ changes: [LoroJSONChange]) -> [UInt8] {
        var w = ByteWriter()
        for (_, block) in blocks(changes) { w.lengthPrefixed(block) }
        return w.bytes
    }

    /// Change blocks of `changes` with the ID of each block's first change: per peer (in peer
    /// order), counter-contiguous changes up to about `blockTarget` bytes each.
    /// - Complexity: O(size of the changes + c log c) for c changes.
    static func blocks(_ changes: [LoroJSONChange]) -> [(first: OpID, bytes: [UInt8])] {
        var byPeer: [PeerID: [LoroJSONChange]] = [:]
        for ch in changes { byPeer[ch.id.peer, default: []].append(ch) }
        var out: [(first: OpID, bytes: [UInt8])] = []
        for peer in byPeer.keys.sorted() {
            let list = byPeer[peer]!.sorted { $0.id.counter < $1.id.counter }
            var start = 0
            var estimate = 0
            for i in list.indices {
                estimate += list[i].ops.reduce(0) { $0 + 4 + Self.estimate($1.content) }
                let last = i + 1 == list.count
                let breaks = last || list[i + 1].id.counter != list[i].id.counter + OpCounter(list[i].length)
                if breaks || estimate >= blockTarget {
                    out.append((list[start].id, ChangeBlock.encode(list[start...i])))
                    start = i + 1
                    estimate = 0
                }
            }
        }
        return out
    }

    private static func estimate(_ c: LoroJSONOpContent) -> Int {
        switch c {
        case .insertText(_, let s): return s.utf8.count
        case .insertValues(_, let v): return 4 * v.count
        default: return 4
        }
    }

    /// The changes of a FastUpdates body with the byte offset of the block each came from.
    /// - Complexity: O(size of the body).
    static func changes(_ body: ByteReader) throws(CRDTError) -> [(LoroJSONChange, Int)] {
        var r = body
        var out: [(LoroJSONChange, Int)] = []
        while !r.isAtEnd {
            let at = r.offset
            let block = try r.lengthPrefixed("change block")
            guard !block.isAtEnd else { throw CRDTError.malformedBytes(offset: at, reason: "an empty change block") }
            for ch in try ChangeBlock.decode(block) { out.append((ch, at)) }
        }
        return out
    }
}

extension CRDTDocument {
    /// Exports the committed changes not included in `from` as Loro's binary updates
    /// (`ExportMode.Updates`, FastUpdates), which a real Loro document imports with `import_`.
    /// - Complexity: as ``exportJSONUpdates(from:to:)`` plus O(size of the output).
    public func exportLoroUpdates(from: VersionVector = VersionVector()) -> [UInt8] {
        LoroEnvelope.seal(.fastUpdates, LoroUpdatesCodec.body(exportJSONUpdates(from: from).changes))
    }

    /// Imports a Loro binary blob: updates (FastUpdates) or a snapshot (FastSnapshot, ordinary
    /// or shallow), as Loro's `import_`. ``importUpdates(_:)`` sends Loro blobs here too (they
    /// start with `loro`).
    ///
    /// Operations are position-based, as in Loro's JSON updates: they are resolved like
    /// ``importJSONUpdates(_:)-(LoroJSONUpdates)`` does, changes already known are skipped and
    /// changes whose dependencies are missing wait (``ImportStatus/pending``) until a later Loro
    /// import (binary or JSON) brings them. Everything is decoded, resolved and validated first:
    /// a thrown ``CRDTError`` names the byte offset (of the field, or of the change block whose
    /// operation does not apply) and leaves the document unchanged. An ordinary snapshot
    /// imported into an empty document is the exception: only its checksums, version and
    /// frontiers are checked now, its state is decoded on first use and its history when an
    /// operation needs it (see ``loadError``).
    /// - Complexity: O(size of the blob) to decode plus the import's cost, as
    ///   ``importJSONUpdates(_:)-(LoroJSONUpdates)``; O(size of the blob) for the checksums of a
    ///   snapshot into an empty document.
    @discardableResult
    public mutating func importLoro(_ bytes: [UInt8]) throws(CRDTError) -> ImportStatus {
        let (mode, body) = try LoroEnvelope.open(bytes)
        switch mode {
        case .fastUpdates:
            return try importLoroChanges(try LoroUpdatesCodec.changes(body))
        case .fastSnapshot:
            return try importLoroSnapshot(body)
        }
    }

    /// Imports decoded changes; errors of the position resolution point at their block.
    mutating func importLoroChanges(_ changes: [(LoroJSONChange, Int)]) throws(CRDTError) -> ImportStatus {
        var offsets: [String: Int] = [:]
        var incoming: [PendingJSONChange] = []
        incoming.reserveCapacity(changes.count)
        for (change, offset) in changes {
            let source = "change \(change.id) (block at byte \(offset))"
            offsets[source] = offset
            incoming.append(PendingJSONChange(change: change, source: source))
        }
        do throws(LoroJSONError) {
            return try importPositional(incoming)
        } catch {
            switch error {
            case .rejected(let e):
                // The refused operation's block, when the error names one of the incoming changes.
                if case let .invalidReference(_, id, _) = e,
                   let (change, offset) = changes.first(where: { $0.0.id.peer == id.peer && (($0.0.id.counter)..<($0.0.id.counter + OpCounter($0.0.length))).contains(id.counter) }) {
                    throw .malformedBytes(offset: offset, reason: "change \(change.id) (block at byte \(offset)): \(e)")
                }
                throw e
            case let .invalidOperation(path, reason), let .schema(path, reason):
                let source = offsets.keys.first { path.hasPrefix($0) }
                throw .malformedBytes(offset: source.flatMap { offsets[$0] } ?? 0, reason: "\(path): \(reason)")
            default:
                throw .malformedBytes(offset: 0, reason: error.description)
            }
        }
    }
}
