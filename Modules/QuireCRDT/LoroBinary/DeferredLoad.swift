// Loading a Loro snapshot without replaying its history (issue 15 item 3). A pristine document
// importing an ordinary snapshot keeps the blob: the version and frontiers are read from the
// ChangeStore's "vv" and "fr" entries, a text is read straight from its state entry, and the
// whole state is decoded when anything else is read or changed. The document then works as a
// shallow one rooted at the snapshot's version (its state has no Fugue origins and no
// tombstones); an operation that needs the history before that version (a checkout, an export
// to a peer that lacks it, an import of changes concurrent with it, Quire's own snapshot) first
// decodes the history into a full document and replays what happened since.

extension DocStorage {
    /// Decodes the deferred state if it is still pending.
    /// - Complexity: O(1) when decoded; else O(size of the state).
    @inline(__always) func ensureState() {
        if !stateReady.load(ordering: .acquiring) { decodeDeferredState() }
    }

    private func decodeDeferredState() {
        deferLock.withLock { _ in
            guard !stateReady.load(ordering: .acquiring), let deferred else { return }
            do throws(CRDTError) {
                try LoroStateDecoder.load(try deferred.state.allEntries(), into: self)
                if let outside = firstStateID(outside: version) {
                    throw CRDTError.malformedBytes(offset: deferred.state.reader.offset, reason: "the state holds \(outside), which the version \(version) does not include")
                }
                nextLamport = try Self.lamportEnd(of: try LoroSnapshotSections.changeStore(deferred.oplog))
            } catch {
                // The checksums held but the state does not parse: the document goes back to
                // what it was before the import (pristine), keeping the error.
                deferredError = error
                self.deferred = nil
                sequences = [:]
                maps = [:]
                trees = [:]
                movables = [:]
                counters = [:]
                parents = [:]
                version = VersionVector()
                frontiers = Frontiers()
                nextLamport = 0
                stateReady.store(true, ordering: .releasing)
                return
            }
            shallowRoot = ShallowRoot(version: version, frontiers: frontiers, maps: maps, trees: trees, movables: movables, counters: counters)
            stateReady.store(true, ordering: .releasing)
        }
    }

    /// One past the largest Lamport timestamp of a ChangeStore, from its blocks' headers.
    /// - Complexity: O(size of the ChangeStore's SSTable blocks).
    static func lamportEnd(of store: LoroSnapshotSections.ChangeStore) throws(CRDTError) -> Lamport {
        var end: Lamport = 0
        for (_, block) in store.blocks {
            var r = block
            _ = try r.postcardU32("counter_start"); _ = try r.postcardU32("counter_len")
            let start = try r.postcardU32("lamport_start"), len = try r.postcardU32("lamport_len")
            guard UInt64(start) + UInt64(len) <= UInt64(Lamport.max / 2) else {
                throw CRDTError.malformedBytes(offset: block.offset, reason: "Lamports \(start) + \(len) out of range")
            }
            end = max(end, start + len)
        }
        return end
    }

    /// The text of a container read straight from the deferred state (nil when the state is
    /// decoded already, or the entry is not a text).
    /// - Complexity: O(size of the entry's SSTable block).
    func deferredText(_ c: ContainerID) -> String? {
        guard !stateReady.load(ordering: .acquiring), c.type == .text, let deferred else { return nil }
        do throws(CRDTError) {
            guard var r = try deferred.state.value(c.loroKey) else { return "" }
            guard try r.u8() == c.type.loroKind else { return nil }
            _ = try r.uvarint()
            if try r.u8() == 1 { _ = try Postcard.containerID(&r) }
            let n = try r.count("text length")
            return try r.utf8(n, "a text")
        } catch {
            // Leave it to the full decode, which records the error.
            return nil
        }
    }
}

extension CRDTDocument {
    /// Imports an ordinary snapshot into a pristine document without decoding it (see the
    /// comment at the top of this file); nil when that does not apply.
    /// - Complexity: O(n) for the checksum already verified, plus the SSTable metadata and the
    ///   ChangeStore block holding "vv" and "fr".
    mutating func importDeferred(_ sections: LoroSnapshotSections) throws(CRDTError) -> ImportStatus? {
        guard isPristine, !sections.isShallow, !s.recordEvents, let state = sections.state else { return nil }
        var store = LoroSnapshotSections.ChangeStore(version: VersionVector(), frontiers: Frontiers(), shallowStart: nil, shallowFrontiers: nil, blocks: [])
        // Only "vv" and "fr" are read now (they sit in the ChangeStore's last block).
        guard var vv = try sections.oplog.value(Array("vv".utf8)), var fr = try sections.oplog.value(Array("fr".utf8)) else {
            throw .malformedBytes(offset: sections.oplog.reader.offset, reason: "a snapshot's ChangeStore without \"vv\" and \"fr\"")
        }
        store.version = try Postcard.versionVector(&vv)
        try vv.expectEnd("vv")
        store.frontiers = try Postcard.frontiers(&fr)
        try fr.expectEnd("fr")
        // A frontier is its peer's last operation (a later one of that peer would follow it).
        for id in store.frontiers.ids where store.version[id.peer] != id.counter + 1 {
            throw .malformedBytes(offset: fr.offset, reason: "frontier \(id) is not its peer's last operation in the version \(store.version)")
        }
        if store.frontiers.ids.isEmpty != store.version.ends.isEmpty {
            throw .malformedBytes(offset: fr.offset, reason: "frontiers \(store.frontiers.ids) do not fit the version \(store.version)")
        }
        // Every block's checksum now, so that a damaged block fails the import rather than the
        // first read (what does not parse despite its checksums is found on first use: see
        // ``CRDTDocument/loadError``).
        try state.verifyChecksums()
        try sections.oplog.verifyChecksums()
        let st = DocStorage(peer: storage.peer)
        st.styles = storage.styles
        st.version = store.version
        st.frontiers = store.frontiers
        st.deferred = DeferredSnapshot(state: state, oplog: sections.oplog)
        st.stateReady.store(false, ordering: .releasing)
        storage = st
        return ImportStatus(applied: store.version.spans(notIn: VersionVector()), pending: [], event: nil)
    }
}

extension CRDTDocument {
    /// Why a snapshot loaded without decoding (see ``importLoro(_:)``) turned out not to
    /// decode on first use, although its checksums held; the document then went back to being
    /// empty, as before that import. nil otherwise.
    public var loadError: CRDTError? {
        storage.ensureState()
        return storage.deferredError
    }

    /// This document with its deferred history decoded: the snapshot's history in a fresh
    /// document, then everything since loading (with the waiting changes); nil when there is no
    /// deferred history or it does not decode (the document then stays shallow). Uncommitted
    /// operations are left out.
    /// - Complexity: O(history + changes since loading), as importing them.
    var historyDocument: CRDTDocument? {
        guard let deferred = storage.deferred, let root = s.shallowRoot else { return nil }
        var full = CRDTDocument(peer: storage.peer)
        full.storage.styles = s.styles
        do throws(CRDTError) {
            _ = try full.importLoroChanges(try LoroSnapshotSections.changeStore(deferred.oplog).changes())
            _ = try full.importUpdates(exportUpdates(since: root.version))
        } catch {
            return nil
        }
        let st = full.mutate()
        st.pending += s.pending
        st.pendingJSON = s.pendingJSON
        st.recordEvents = s.recordEvents
        return full
    }

    /// Decodes the deferred history in place (see ``historyDocument``), committing first.
    /// - Complexity: as ``historyDocument``.
    mutating func materializeHistory() {
        guard storage.deferred != nil else { return }
        commit()
        if let full = historyDocument { self = full }
    }

    /// Whether a deferred history is needed to go below `version` (it does not include the root).
    func needsHistory(below version: VersionVector) -> Bool {
        guard storage.deferred != nil, let root = s.shallowRoot else { return false }
        return root.version.ends.contains { version[$0.key] < $0.value }
    }
}
