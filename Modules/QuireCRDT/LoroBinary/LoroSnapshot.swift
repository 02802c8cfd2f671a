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
    func changeStore() throws(CRDTError) -> ChangeStore { try Self.changeStore(oplog) }

    static func changeStore(_ oplog: SSTable) throws(CRDTError) -> ChangeStore {
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
    /// Whether nothing was ever imported into or edited in this document.
    var isPristine: Bool {
        s.changes.isEmpty && s.txnOps.isEmpty && s.pending.isEmpty && s.pendingJSON.isEmpty && s.shallowRoot == nil
            && s.sequences.isEmpty && s.maps.isEmpty && s.trees.isEmpty
    }

    /// Imports a FastSnapshot body. A shallow snapshot into a pristine document starts it at the
    /// shallow root: the root's state, then the retained history replayed on top (the end-state
    /// overlay, when present, is checked but not needed). Otherwise only the history is
    /// imported, as Loro does for a document that is not empty.
    mutating func importLoroSnapshot(_ body: ByteReader) throws(CRDTError) -> ImportStatus {
        let sections = try LoroSnapshotSections(body)
        if let status = try importDeferred(sections) { return status }
        materializeHistory()
        let store = try sections.changeStore()
        let changes = try store.changes()
        guard sections.isShallow, isPristine else {
            // Loro starts a pristine document from the snapshot's state, whose roots include
            // those that were only ever touched, not written: they show in its deep value.
            var roots: [ContainerID] = []
            if isPristine, let state = sections.state {
                for (key, value) in try state.allEntries() where key.first.map({ $0 & 0x80 != 0 }) == true {
                    do throws(CRDTError) { roots.append(try ContainerID(loroKey: key)) } catch {
                        throw CRDTError.malformedBytes(offset: value.offset, reason: "state key: \(error)")
                    }
                }
            }
            let status = try importLoroChanges(changes)
            if roots.contains(where: { !s.hasState($0) }) {
                let st = mutate()
                for c in roots where !st.hasState(c) { st.touch(c) }
            }
            return status
        }
        let rootEntries = try sections.shallowRoot.allEntries()
        guard var fr = rootEntries.first(where: { $0.key == Array("fr".utf8) })?.value else {
            throw .malformedBytes(offset: sections.shallowRoot.reader.offset, reason: "a shallow root state without its frontiers (\"fr\")")
        }
        let root = try Postcard.frontiers(&fr)
        try fr.expectEnd("the shallow root frontiers")
        if let sf = store.shallowFrontiers, sf != root {
            throw .malformedBytes(offset: sections.oplog.reader.offset, reason: "the ChangeStore's shallow root \(sf.ids) differs from the root state's \(root.ids)")
        }
        if let overlay = sections.state { _ = try overlay.allEntries() }
        let st = DocStorage(peer: s.peer)
        st.styles = s.styles
        st.recordEvents = s.recordEvents
        try LoroStateDecoder.load(rootEntries, into: st)
        var version = store.shallowStart ?? VersionVector()
        for id in root.ids { version.extend(peer: id.peer, to: id.counter + 1) }
        st.version = version
        st.frontiers = root
        if let outside = st.firstStateID(outside: version) {
            throw .malformedBytes(offset: sections.shallowRoot.reader.offset, reason: "the root state holds \(outside), which its version \(version) does not include")
        }
        st.nextLamport = st.maxStateLamport().map { $0 + 1 } ?? 0
        for (change, _) in changes {
            for id in root.ids where id.peer == change.id.peer && id.counter >= change.id.counter && id.counter < change.id.counter + OpCounter(change.length) {
                st.nextLamport = max(st.nextLamport, change.lamport + Lamport(id.counter - change.id.counter) + 1)
            }
        }
        var anchors: [LoroJSONChange] = []
        for (change, _) in changes where change.id.counter < version[change.id.peer] {
            anchors.append(change.prefix(upTo: version[change.id.peer]))
        }
        st.shallowRoot = ShallowRoot(version: version, frontiers: root, maps: st.maps, trees: st.trees, movables: st.movables, counters: st.counters, anchors: anchors)
        var staged = CRDTDocument(peer: s.peer)
        staged.s = st
        let status = try staged.importLoroChanges(changes)
        self = staged
        return status
    }
}

extension DocStorage {
    /// Whether the container has state (even empty): some operation touched it.
    func hasState(_ c: ContainerID) -> Bool {
        switch c.type {
        case .text, .list, .movableList: return sequences[c] != nil
        case .map: return maps[c] != nil
        case .tree: return trees[c] != nil
        case .counter: return counters[c] != nil
        }
    }

    /// Whether the container's state is empty: no element (even deleted), key (even deleted),
    /// node, or counter value.
    func isEmptyState(_ c: ContainerID) -> Bool {
        switch c.type {
        case .text, .list, .movableList: return sequences[c].map { $0.summary.elements == 0 } ?? true
        case .map: return maps[c]?.isEmpty ?? true
        case .tree: return trees[c]?.nodes.isEmpty ?? true
        case .counter: return (counters[c] ?? 0) == 0
        }
    }

    /// Drops the container's state.
    func removeState(_ c: ContainerID) {
        sequences[c] = nil
        maps[c] = nil
        trees[c] = nil
        movables[c] = nil
        counters[c] = nil
    }

    /// Gives the container an empty state (it shows in deep values).
    func touch(_ c: ContainerID) {
        switch c.type {
        case .text, .list, .movableList: _ = sequence(c)
        case .map: maps[c] = maps[c] ?? [:]
        case .tree: trees[c] = trees[c] ?? TreeState()
        case .counter: counters[c] = counters[c] ?? 0
        }
    }

    /// The largest Lamport timestamp in the state (elements, mark, map writes, tree moves).
    /// - Complexity: O(n).
    func maxStateLamport() -> Lamport? {
        var m: Lamport?
        func see(_ l: Lamport) { m = max(m ?? 0, l) }
        for seq in sequences.values { seq.forEachElem { see($0.lamport + Lamport($0.length) - 1) } }
        for map in maps.values { for e in map.values { see(e.lamport) } }
        for tree in trees.values { for p in tree.nodes.values { see(p.lamport) } }
        return m
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
    /// `import_`. Uncommitted local operations are not included; commit first. A document
    /// loaded from a shallow snapshot exports a shallow snapshot at its root, as Loro does.
    /// - Complexity: O(n + h) for the state and the history (see ``exportJSONUpdates(from:to:)``).
    public func exportLoroSnapshot() -> [UInt8] {
        if let full = historyDocument { return full.exportLoroSnapshot() }
        if let root = s.shallowRoot {
            return shallowSnapshot(root: root.frontiers, rootVersion: root.version, rootState: s.shallowRootStorage(), anchors: root.anchors)
        }
        let oplog = LoroSnapshotWriter.changeStore(exportJSONUpdates().changes, version: s.version, frontiers: s.frontiers)
        let state = SSTable.encode(LoroStateEncoder.entries(s))
        return LoroEnvelope.seal(.fastSnapshot, LoroSnapshotWriter.body(oplog: oplog, state: state, shallowRoot: []))
    }
}

extension LoroJSONChange {
    /// The part of this change before counter `end` (which must be inside it).
    /// - Complexity: O(ops + length of a cut insert).
    func prefix(upTo end: OpCounter) -> LoroJSONChange {
        var kept: [LoroJSONOp] = []
        for op in ops where op.counter < end {
            let n = Int(end - op.counter)
            guard n < op.length else { kept.append(op); continue }
            let content: LoroJSONOpContent
            switch op.content {
            case let .insertText(pos, text): content = .insertText(position: pos, text: String(String.UnicodeScalarView(text.unicodeScalars.prefix(n))))
            case let .insertValues(pos, values): content = .insertValues(position: pos, values: Array(values.prefix(n)))
            case let .delete(pos, len, start):
                // A backward delete's first atoms remove the rightmost targets.
                content = len > 0 ? .delete(position: pos, length: n, startID: start)
                    : .delete(position: pos, length: n == 1 ? 1 : -n, startID: start.advanced(by: Int32(-len - n)))
            default: content = op.content
            }
            kept.append(LoroJSONOp(container: op.container, counter: op.counter, content: content))
        }
        return LoroJSONChange(id: id, timestamp: timestamp, deps: deps, lamport: lamport, message: message, ops: kept)
    }
}

extension CRDTDocument {
    /// Loro's shallow snapshot (`ExportMode.ShallowSnapshot`): the state at a shallow root and
    /// the history after it, which a real Loro document imports with `import_`; Loro's
    /// `get_deep_value()` then shows this document's value.
    ///
    /// The root is chosen as Loro chooses it: several frontiers are reduced to their common
    /// ancestor until one ID remains (none when they share no history), and a root on the
    /// start of a mark moves to its end. A document that is itself shallow exports at its own
    /// root (the history before it is not available). The end-state section is left out
    /// (Loro's `E`): an importer replays the history from the root.
    /// - Throws: ``VersionError/unknownFrontier(_:known:)`` for a frontier not in the history.
    /// - Complexity: O(ops + n log n) to build the state at the root (as ``fork(at:peer:)``),
    ///   plus the export of the history after it (as ``exportJSONUpdates(from:to:)``).
    public func exportShallowSnapshot(at frontiers: Frontiers) throws(VersionError) -> [UInt8] {
        if let full = historyDocument { return try full.exportShallowSnapshot(at: frontiers) }
        if let root = s.shallowRoot { return shallowSnapshot(root: root.frontiers, rootVersion: root.version, rootState: s.shallowRootStorage(), anchors: root.anchors) }
        for id in frontiers.ids where !s.version.includes(id) { throw .unknownFrontier(id, known: s.version) }
        var ids = frontiers.ids
        while ids.count > 1 {
            var common: VersionVector?
            for id in ids {
                let vv = try versionVector(of: Frontiers([id]))
                guard let c = common else { common = vv; continue }
                // The common past: the pointwise minimum.
                var ends: [PeerID: OpCounter] = [:]
                for (p, e) in c.ends { ends[p] = min(e, vv[p]) }
                common = VersionVector(ends)
            }
            let next = s.frontiers(of: common ?? VersionVector()).ids
            ids = next.sorted() == ids.sorted() ? [] : next
        }
        if let id = ids.first, s.isMarkStart(id) { ids = [id.advanced(by: 1)] }
        let root = Frontiers(ids)
        let version = try versionVector(of: root)
        let state = try fork(at: root, peer: s.peer).s
        return shallowSnapshot(root: root, rootVersion: version, rootState: state, anchors: [])
    }

    func shallowSnapshot(root: Frontiers, rootVersion: VersionVector, rootState: DocStorage, anchors: [LoroJSONChange]) -> [UInt8] {
        // The history starts right before the root's own operations, which it keeps as anchors.
        // Our operations cannot be cut between a mark's two atoms; Loro's can: export from the
        // start of the operation holding each root ID and cut the changes there.
        var ends = rootVersion.ends, opEnds = rootVersion.ends
        for id in root.ids {
            ends[id.peer] = id.counter
            opEnds[id.peer] = s.opStart(containing: id) ?? id.counter
        }
        let start = VersionVector(ends)
        var changes = anchors
        for change in exportJSONUpdates(from: VersionVector(opEnds)).changes {
            let cut = start[change.id.peer]
            guard change.id.counter < cut else { changes.append(change); continue }
            do throws(LoroJSONError) {
                changes.append(try LoroJSONImporter.slice(change, from: cut, source: "").0)
            } catch {
                // Only a one-atom op refuses a cut inside it, and Loro's ops give each atom of a
                // mark an op of its own: `cut` is always between ops or inside a longer one.
                assertionFailure("cutting \(change.id) at \(cut): \(error)")
                changes.append(change)
            }
        }
        let oplog = LoroSnapshotWriter.changeStore(changes, version: s.version, frontiers: s.frontiers, shallowStart: (start, root))
        var rootEntries = LoroStateEncoder.entries(rootState)
        var fr = ByteWriter()
        Postcard.write(root, into: &fr)
        rootEntries.append((Array("fr".utf8), fr.bytes))
        rootEntries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return LoroEnvelope.seal(.fastSnapshot, LoroSnapshotWriter.body(oplog: oplog, state: [LoroSnapshotSections.omittedState], shallowRoot: SSTable.encode(rootEntries)))
    }
}

extension DocStorage {
    /// The first counter of the operation holding `id`.
    /// - Complexity: O(log c + ops of its change).
    func opStart(containing id: OpID) -> OpCounter? {
        guard let list = changes[id.peer] else { return nil }
        let i = firstChange(of: id.peer, endingAfter: id.counter)
        guard i < list.count else { return nil }
        return list[i].ops.last { $0.counter <= id.counter }?.counter
    }

    /// Whether `id` is the first atom of a mark (a style start).
    /// - Complexity: O(log c + ops of its change).
    func isMarkStart(_ id: OpID) -> Bool {
        guard let list = changes[id.peer] else { return false }
        let i = firstChange(of: id.peer, endingAfter: id.counter)
        guard i < list.count else { return false }
        return list[i].ops.contains { op in
            if case .mark = op.content { return op.counter == id.counter }
            return false
        }
    }

    /// The first ID of a sequence element or tree node in the state that `version` does not
    /// include (a decoded state must not hold what its version says has not happened).
    /// - Complexity: O(runs + nodes).
    func firstStateID(outside version: VersionVector) -> OpID? {
        for seq in sequences.values {
            var found: OpID?
            seq.forEachElem { e in
                if found == nil, !version.includes(e.lastID) { found = e.lastID }
            }
            if let found { return found }
        }
        for tree in trees.values {
            if let node = tree.nodes.keys.first(where: { !version.includes($0) }) { return node }
        }
        return nil
    }

    /// A shallow document's state at its root: the elements the root includes, none deleted
    /// (the history deletes them later), and the root's maps, trees, movable lists (whose items
    /// are shown where the root's elements sit) and counters.
    /// - Complexity: O(n).
    func shallowRootStorage() -> DocStorage {
        let st = DocStorage(peer: peer)
        guard let root = shallowRoot else { return st }
        for (c, seq) in sequences {
            let out = FugueSequence()
            out.scalars = seq.scalars
            out.values = seq.values
            var elems: [Elem] = []
            let shown = root.movables[c].map { Set($0.elements.values.map(\.pos)) }
            seq.forEachElem { whole in
                var e = whole
                let end = root.version[e.peer]
                guard end > e.counter else { return }
                if end < e.counter + e.length {
                    let keep = end - e.counter
                    e.length = keep
                    if e.kind == .text { e.utf16 = seq.utf16Count(e.content, keep); e.utf8 = seq.utf8Count(e.content, keep) } else { e.utf16 = keep; e.utf8 = keep }
                }
                guard let shown, c.type == .movableList else {
                    e.deleted = false
                    elems.append(e)
                    return
                }
                // One item at a time: each is shown exactly when an element sat at it.
                for k in 0..<e.length {
                    var item = e
                    item.counter += k
                    item.lamport += Lamport(k)
                    item.content += k
                    item.length = 1
                    item.utf16 = 1
                    item.utf8 = 1
                    item.deleted = !shown.contains(item.id)
                    elems.append(item)
                }
            }
            out.marks = seq.marks.filter { root.version.includes($0.key) }
            _ = out.build(elems)
            st.sequences[c] = out
        }
        st.maps = root.maps
        st.trees = root.trees
        st.movables = root.movables
        st.counters = root.counters
        st.parents = parents.filter { child, _ in
            if case .normal(let id, _) = child { return root.version.includes(id) }
            return true
        }
        return st
    }
}
