// Loro's `Cursor::encode()`: postcard of {id: Option<ID>, container: ContainerID, side: Side
// (Left 0, Middle 1, Right 2), origin_pos: usize}. Loro resolves a cursor with an element to
// that element's index whatever its side, and one without to the start (side Left) or the end.

extension Cursor {
    /// The cursor in Loro's encoding, which a Loro document reads with `Cursor.decode` and
    /// `get_cursor_pos`. `.before` becomes side Left, `.after` side Right; `originPosition` is
    /// the informational position Loro stores with it. A Loro peer resolves an `.after` cursor
    /// to its anchor's own index (Loro's cursors all sit before their element), one less than
    /// Quire does, as long as the anchor is alive.
    /// - Complexity: O(1).
    public func loroEncoded(originPosition: Int = 0) -> [UInt8] {
        var w = ByteWriter()
        if let anchor { w.u8(1); w.uvarint(anchor.peer); w.zigzag(Int64(anchor.counter)) } else { w.u8(0) }
        Postcard.write(container, into: &w)
        w.u8(side == .before ? 0 : 2)
        w.uvarint(max(0, originPosition))
        return w.bytes
    }

    /// Decodes Loro's encoding. A cursor with an element becomes `.before` it (where Loro
    /// resolves it, whatever its side); one without becomes the start (side Left) or the end.
    /// Malformed bytes throw, naming the offset.
    /// - Complexity: O(1).
    public init(loroEncoded bytes: [UInt8]) throws(CRDTError) {
        var r = ByteReader(bytes)
        let at = r.offset
        var id: OpID?
        switch try r.u8() {
        case 0: id = nil
        case 1:
            let peer = try r.uvarint()
            let counterAt = r.offset
            let counter = try r.postcardI32("cursor counter")
            guard counter >= 0 else { throw CRDTError.malformedBytes(offset: counterAt, reason: "negative counter \(counter)") }
            id = OpID(peer: peer, counter: counter)
        case let tag: throw CRDTError.malformedBytes(offset: at, reason: "bad Option tag \(tag)")
        }
        let c = try Postcard.containerID(&r)
        guard c.type.isSequence else { throw CRDTError.malformedBytes(offset: at, reason: "a cursor in \(c), which is not a text or list") }
        let sideAt = r.offset
        let side = try r.uvarint()
        guard side <= 2 else { throw CRDTError.malformedBytes(offset: sideAt, reason: "cursor side \(side)") }
        _ = try r.uvarint()
        try r.expectEnd("the cursor")
        self.init(container: c, anchor: id, side: id != nil || side == 0 ? .before : .after)
    }
}
