/// A stable position in a text or list: an element ID and a side. It keeps its meaning across
/// any local or remote edit, including deletion of the anchored element (it then resolves to
/// where that element was).
public struct Cursor: Hashable, Sendable {
    /// Which side of the anchor element the cursor sits on.
    public enum Side: UInt8, Sendable, Hashable {
        /// Just before the anchor: text typed at the cursor goes after the cursor.
        case before = 0
        /// Just after the anchor: the cursor follows text typed at it.
        case after = 1
    }

    /// The container.
    public var container: ContainerID
    /// The anchor element; nil means the start (side `.before`) or end (side `.after`).
    public var anchor: OpID?
    /// The side of the anchor.
    public var side: Side

    /// Creates a cursor from its parts.
    public init(container: ContainerID, anchor: OpID?, side: Side) {
        self.container = container
        self.anchor = anchor
        self.side = side
    }

    /// The cursor as bytes (versioned, checksummed).
    /// - Complexity: O(1).
    public func encoded() -> [UInt8] {
        var t = EncodeTables()
        let ci = t.container(container)
        var body = ByteWriter()
        body.uvarint(ci)
        if let anchor { body.u8(1); body.uvarint(t.peer(anchor.peer)); body.uvarint(anchor.counter) } else { body.u8(0) }
        body.u8(side.rawValue)
        var w = ByteWriter()
        w.u8(0xC5)
        w.u8(1)
        t.write(&w)
        w.bytes.append(contentsOf: body.bytes)
        w.u32(CRC32.checksum(w.bytes, count: w.bytes.count))
        return w.bytes
    }

    /// Decodes a cursor; malformed bytes throw.
    public init(decoding bytes: [UInt8]) throws(CRDTError) {
        guard bytes.count >= 7, bytes[0] == 0xC5 else { throw .malformedBytes(offset: 0, reason: "not a cursor") }
        var tail = ByteReader(bytes, from: bytes.count - 4)
        let expected = try tail.u32()
        let actual = CRC32.checksum(bytes, count: bytes.count - 4)
        guard expected == actual else { throw .checksumMismatch(offset: bytes.count - 4, expected: expected, actual: actual) }
        guard bytes[1] == 1 else { throw .unsupportedVersion(bytes[1]) }
        var r = ByteReader(bytes, from: 2, to: bytes.count - 4)
        let t = try EncodeTables.read(&r)
        container = try t.container(at: &r)
        let at = r.offset
        switch try r.u8() {
        case 0: anchor = nil
        case 1: anchor = try r.id(t)
        default: throw .malformedBytes(offset: at, reason: "bad anchor flag")
        }
        let sa = r.offset
        guard let s = Side(rawValue: try r.u8()) else { throw .malformedBytes(offset: sa, reason: "bad side") }
        side = s
        guard r.isAtEnd else { throw .malformedBytes(offset: r.offset, reason: "trailing bytes") }
    }
}

extension CRDTDocument {
    /// A stable cursor at `pos`. With side `.after` the cursor sticks to the element before `pos`
    /// (it moves with text typed at `pos`); with `.before` it sticks to the element at `pos`.
    /// - Complexity: O(log n).
    public func cursor(at pos: Int, in c: ContainerID, side: Cursor.Side = .before, unit: TextUnit = .unicodeScalar) throws(CRDTError) -> Cursor {
        let p = try convert(pos, from: unit, to: .unicodeScalar, in: c)
        let len = length(of: c)
        guard let seq = s.sequences[c] else { return Cursor(container: c, anchor: nil, side: side == .after ? .before : .after) }
        switch side {
        case .after:
            guard p > 0, let cur = seq.locateAt(p - 1, unit: .unicodeScalar) else { return Cursor(container: c, anchor: nil, side: .before) }
            let e = cur.leaf.elems[cur.index]
            return Cursor(container: c, anchor: OpID(peer: e.peer, counter: e.counter + cur.offset), side: .after)
        case .before:
            guard p < len, let cur = seq.locateAt(p, unit: .unicodeScalar) else { return Cursor(container: c, anchor: nil, side: .after) }
            let e = cur.leaf.elems[cur.index]
            return Cursor(container: c, anchor: OpID(peer: e.peer, counter: e.counter + cur.offset), side: .before)
        }
    }

    /// The current position of a cursor, in `unit`.
    /// - Complexity: O(log n).
    public func resolve(_ cursor: Cursor, unit: TextUnit = .unicodeScalar) throws(CRDTError) -> Int {
        let c = cursor.container
        guard let anchor = cursor.anchor else { return cursor.side == .before ? 0 : length(of: c, unit: unit) }
        guard let seq = s.sequences[c], let cur = seq.cursor(of: anchor) else { throw .unknownCursorAnchor(container: c, anchor: anchor) }
        let e = cur.leaf.elems[cur.index]
        var before = seq.prefix(of: cur)
        if cursor.side == .after && e.visible {
            before = seq.prefix(of: SeqCursor(leaf: cur.leaf, index: cur.index, offset: cur.offset + 1))
        }
        return before.measure(unit)
    }
}
