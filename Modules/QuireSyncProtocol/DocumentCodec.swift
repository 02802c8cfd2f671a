import QuireCRDT

/// How a room's document meets the wire: what a `DocUpdate` payload is, how versions are written
/// in `JoinRequest`/`JoinResponseOk`, and what a snapshot is. The server and the client only talk
/// to this seam, so the payload format is a choice, not a rewrite.
///
/// The protocol's `%LOR` payloads are Loro binary updates: ``LoroBinaryCodec`` is the default, so
/// Loro clients and Quire clients share rooms. ``QuireBinaryCodec`` (Quire's own updates) and
/// ``LoroJSONCodec`` (Loro's JSON updates, schema 1) remain for rooms stored with them and for
/// peers that speak only those. Versions are Loro's `VersionVector.encode()` in every codec, so a
/// Loro client's version reads the same everywhere.
public protocol DocumentCodec: Sendable {
    /// A stable name, recorded with stored rooms and accepted by `quire serve --codec`.
    var name: String { get }

    /// Imports one payload (updates or a snapshot). A refused payload throws and leaves the
    /// document unchanged. An empty payload imports nothing (nil).
    func importPayload(_ payload: [UInt8], into document: inout CRDTDocument) throws(SyncProtocolError) -> ImportStatus?

    /// What `version` lacks, as one payload (empty when it lacks nothing).
    func exportPayload(_ document: CRDTDocument, since version: VersionVector) -> [UInt8]

    /// The whole document as one payload that ``loadSnapshot(_:peer:)`` reads back.
    func exportSnapshot(_ document: CRDTDocument) -> [UInt8]

    /// A document holding what `exportSnapshot` wrote.
    func loadSnapshot(_ payload: [UInt8], peer: PeerID) throws(SyncProtocolError) -> CRDTDocument
}

extension DocumentCodec {
    /// The version's bytes as in `JoinRequest`/`JoinResponseOk`.
    public func encodeVersion(_ version: VersionVector) -> [UInt8] { VersionEncoding.encode(version) }

    /// Reads a version; empty bytes are the empty version.
    public func decodeVersion(_ bytes: [UInt8]) throws(SyncProtocolError) -> VersionVector { try VersionEncoding.decode(bytes) }
}

/// Loro's version-vector encoding (postcard's `HashMap<PeerID, Counter>`): a LEB128 count, then
/// per peer its ID as LEB128 u64 and its end counter as a zigzag LEB128 i32. Entries are written in
/// peer order so equal versions are equal bytes.
public enum VersionEncoding {
    /// - Complexity: O(p log p) for p peers.
    public static func encode(_ version: VersionVector) -> [UInt8] {
        var w = WireWriter(capacity: 1 + 12 * version.ends.count)
        w.uleb(UInt64(version.ends.count))
        for (peer, end) in version.ends.sorted(by: { $0.key < $1.key }) {
            w.uleb(peer)
            w.zigzag(Int64(end))
        }
        return w.bytes
    }

    /// - Complexity: O(size).
    public static func decode(_ bytes: [UInt8]) throws(SyncProtocolError) -> VersionVector {
        guard !bytes.isEmpty else { return VersionVector() }
        var r = WireReader(bytes)
        func bad(_ e: SyncProtocolError) -> SyncProtocolError {
            if case let .malformed(offset, reason) = e { return .badVersion(offset: offset, reason: reason) }
            return e
        }
        do throws(SyncProtocolError) {
            // Each entry takes at least two bytes.
            let count = try r.uleb("peer count")
            guard count <= UInt64(r.remaining / 2) else { throw SyncProtocolError.malformed(offset: 0, reason: "\(count) peers in \(bytes.count) bytes") }
            var ends: [PeerID: OpCounter] = [:]
            for _ in 0..<count {
                let peer = try r.uleb("peer")
                let at = r.offset
                let end = try r.zigzag("counter")
                guard end >= 0, end <= Int64(Int32.max) else { throw SyncProtocolError.malformed(offset: at, reason: "counter \(end) out of range") }
                guard ends[peer] == nil else { throw SyncProtocolError.malformed(offset: at, reason: "peer \(peer) listed twice") }
                ends[peer] = OpCounter(end)
            }
            guard r.isAtEnd else { throw SyncProtocolError.malformed(offset: r.offset, reason: "\(r.remaining) trailing bytes") }
            return VersionVector(ends)
        } catch {
            throw bad(error)
        }
    }
}

/// Loro's binary formats as `DocUpdate` payloads, as the Loro protocol specifies: updates are
/// `ExportMode.Updates` (FastUpdates), snapshots `ExportMode.Snapshot` (FastSnapshot); Loro's
/// `import_` reads both, and so does ``importPayload(_:into:)``.
public struct LoroBinaryCodec: DocumentCodec {
    public init() {}
    public var name: String { "loro" }

    /// - Complexity: as `CRDTDocument.importLoro(_:)`.
    public func importPayload(_ payload: [UInt8], into document: inout CRDTDocument) throws(SyncProtocolError) -> ImportStatus? {
        guard !payload.isEmpty else { return nil }
        do { return try document.importLoro(payload) } catch { throw .rejectedUpdate(error.description) }
    }

    /// - Complexity: O(size of the exported changes).
    public func exportPayload(_ document: CRDTDocument, since version: VersionVector) -> [UInt8] {
        guard !isIncluded(document.version, in: version) else { return [] }
        return document.exportLoroUpdates(from: version)
    }

    public func exportSnapshot(_ document: CRDTDocument) -> [UInt8] { document.exportLoroSnapshot() }

    public func loadSnapshot(_ payload: [UInt8], peer: PeerID) throws(SyncProtocolError) -> CRDTDocument {
        var document = CRDTDocument(peer: peer)
        _ = try importPayload(payload, into: &document)
        return document
    }
}

/// Quire's own binary updates and snapshots (checksummed, versioned) as `DocUpdate` payloads.
public struct QuireBinaryCodec: DocumentCodec {
    public init() {}
    public var name: String { "quire-binary" }

    /// - Complexity: as `CRDTDocument.importUpdates(_:)`.
    public func importPayload(_ payload: [UInt8], into document: inout CRDTDocument) throws(SyncProtocolError) -> ImportStatus? {
        guard !payload.isEmpty else { return nil }
        do { return try document.importUpdates(payload) } catch { throw .rejectedUpdate(error.description) }
    }

    /// - Complexity: O(size of the exported changes).
    public func exportPayload(_ document: CRDTDocument, since version: VersionVector) -> [UInt8] {
        guard !isIncluded(document.version, in: version) else { return [] }
        return document.exportUpdates(since: version)
    }

    public func exportSnapshot(_ document: CRDTDocument) -> [UInt8] { document.exportSnapshot() }

    public func loadSnapshot(_ payload: [UInt8], peer: PeerID) throws(SyncProtocolError) -> CRDTDocument {
        do { return try CRDTDocument.load(snapshot: payload, peer: peer) } catch { throw .rejectedUpdate(error.description) }
    }
}

/// Loro's JSON updates (schema version 1, UTF-8) as `DocUpdate` payloads, which Loro's
/// `export_json_updates`/`import_json_updates` read and write.
public struct LoroJSONCodec: DocumentCodec {
    public init() {}
    public var name: String { "loro-json" }

    public func importPayload(_ payload: [UInt8], into document: inout CRDTDocument) throws(SyncProtocolError) -> ImportStatus? {
        guard !payload.isEmpty else { return nil }
        do {
            let updates = try LoroJSONUpdates(json: payload)
            return try document.importJSONUpdates(updates)
        } catch {
            throw .rejectedUpdate(error.description)
        }
    }

    public func exportPayload(_ document: CRDTDocument, since version: VersionVector) -> [UInt8] {
        guard !isIncluded(document.version, in: version) else { return [] }
        return document.exportJSONUpdates(from: version).jsonBytes()
    }

    public func exportSnapshot(_ document: CRDTDocument) -> [UInt8] { document.exportJSONUpdates().jsonBytes() }

    public func loadSnapshot(_ payload: [UInt8], peer: PeerID) throws(SyncProtocolError) -> CRDTDocument {
        var document = CRDTDocument(peer: peer)
        _ = try importPayload(payload, into: &document)
        return document
    }
}

/// Whether `version` holds everything `document` has (so there is nothing to send).
/// - Complexity: O(p) for p peers.
func isIncluded(_ documentVersion: VersionVector, in version: VersionVector) -> Bool {
    documentVersion.ends.allSatisfy { version[$0.key] >= $0.value }
}

/// The codecs `quire serve --codec` and the client know by name.
public enum DocumentCodecs {
    public static let all: [any DocumentCodec] = [LoroBinaryCodec(), QuireBinaryCodec(), LoroJSONCodec()]

    public static func named(_ name: String) -> (any DocumentCodec)? { all.first { $0.name == name } }
}
