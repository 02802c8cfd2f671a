extension FugueSequence {
    /// The global element index (tombstones and anchors included) of the element holding `id`.
    /// - Complexity: O(log n · fanout).
    func elementIndex(of id: OpID) -> Int? {
        guard let c = cursor(of: id) else { return nil }
        return prefix(of: c).elements
    }

    /// The left origin of the single element `id` (inside a run it is the previous element).
    func originLeft(ofAtom id: OpID) -> OptID? {
        guard let c = cursor(of: id) else { return nil }
        let e = c.leaf.elems[c.index]
        return c.offset == 0 ? e.originLeft : OptID(peer: e.peer, counter: id.counter - 1)
    }

    /// Integrates a run whose origins are already set, by Loro's Fugue rules: the run goes
    /// between its left and right origins; among concurrent runs there, runs with the same left
    /// origin are ordered by their right origins' positions and then by peer (larger peer later).
    /// Returns the visible position where the run starts.
    /// - Complexity: O(k · log n) for k concurrent elements between the origins, O(log n) otherwise.
    @discardableResult
    func integrate(_ elem: Elem, wantPosition: Bool = true) -> Int {
        let left = elem.originLeft.id
        let right = elem.originRight.id
        // Most runs (any history typed in one place, such as one peer's) have origins that are
        // neighbours: nothing lies between them, so the run goes right after its left origin,
        // found with one lookup instead of one per origin and a scan.
        if let slot = adjacentSlot(left: left, right: right) {
            slot.withLeaf { insertElem(elem, leaf: $0, at: slot.index) }
            guard wantPosition, let c = cursor(of: elem.id) else { return 0 }
            return prefix(of: c).count
        }
        if let right { _ = splitBefore(right) }
        // The scan starts right after the left origin.
        var startLeaf: SeqNode
        var startIndex: Int
        if let left, let lc = splitAfter(left) {
            startLeaf = lc.leaf
            startIndex = lc.index + 1
        } else {
            startLeaf = firstLeaf
            startIndex = 0
        }
        // Collect the elements strictly between the origins.
        var between: [(SeqNode, Int)] = []
        var leaf: SeqNode? = startLeaf
        var idx = startIndex
        scan: while let l = leaf {
            while idx < l.elems.count {
                let e = l.elems[idx]
                if let right, e.peer == right.peer, e.counter == right.counter { break scan }
                between.append((l, idx))
                idx += 1
            }
            leaf = l.next
            idx = 0
        }
        var insertLeaf = startLeaf
        var insertIndex = startIndex
        if !between.isEmpty {
            // Our parent right: the right origin when its own left origin equals ours.
            var parentRight: Int? = nil
            if let right, originLeft(ofAtom: right) == elem.originLeft { parentRight = elementIndex(of: right) }
            var scanning = false
            var visited: [IDSpan] = []
            for (l, i) in between {
                let other = l.elems[i]
                let otherLeft = other.originLeft
                if otherLeft != elem.originLeft {
                    let seen = otherLeft.id.map { ol in visited.contains { $0.contains(ol) } } ?? false
                    if !seen { break }
                }
                visited.append(IDSpan(peer: other.peer, start: other.counter, end: other.counter + other.length))
                if otherLeft == elem.originLeft {
                    if other.originRight == elem.originRight {
                        if other.peer > elem.peer { break }
                        scanning = false
                    } else {
                        var otherParentRight: Int? = nil
                        if let or = other.originRight.id, originLeft(ofAtom: or) == elem.originLeft {
                            otherParentRight = elementIndex(of: or)
                        }
                        let order: Int
                        switch (otherParentRight, parentRight) {
                        case let (a?, b?): order = a < b ? -1 : (a == b ? 0 : 1)
                        case (.some, nil): order = -1
                        case (nil, .some): order = 1
                        case (nil, nil): order = 0
                        }
                        if order < 0 {
                            scanning = true
                        } else if order == 0 && other.peer > elem.peer {
                            break
                        } else {
                            scanning = false
                        }
                    }
                }
                if !scanning {
                    insertLeaf = l
                    insertIndex = i + 1
                }
            }
        }
        insertElem(elem, leaf: insertLeaf, at: insertIndex)
        guard wantPosition, let c = cursor(of: elem.id) else { return 0 }
        return prefix(of: c).count
    }

    /// The slot right after `left` (the start of the sequence when nil) when the element there
    /// starts exactly at `right` (the end of the sequence when nil), splitting after `left`.
    /// - Complexity: O(log r + L) for r index runs of the peer, leaf capacity L.
    private func adjacentSlot(left: OpID?, right: OpID?) -> SeqCursor? {
        let slot: SeqCursor
        // The first leaf only when there is no left origin: walking down to it retained every node.
        if let left {
            guard let c = splitAfter(left) else { return nil }
            slot = SeqCursor(leaf: c.leaf, index: c.index + 1, offset: 0)
        } else {
            slot = SeqCursor(leaf: firstLeaf, index: 0, offset: 0)
        }
        // The next element in document order (leaves can be empty only in an empty sequence),
        // found through unowned references and read in place (see SeqCursor).
        var next: SeqCursor? = slot
        while let x = next, x.index >= x.withLeaf({ $0.elems.count }) {
            next = x.withLeaf { $0.next }.map { SeqCursor(leaf: $0, index: 0, offset: 0) }
        }
        guard let next else { return right == nil ? slot : nil }
        guard let right else { return nil }
        let e = next.elem
        guard e.peer == right.peer, e.counter == right.counter else { return nil }
        return slot
    }

    /// Marks the elements of `span` deleted; reports each newly deleted visible piece as
    /// (visible position, count) in the order visited.
    /// - Complexity: O(k · (L + log n)) for k pieces.
    func deleteSpan(_ span: IDSpan, wantPositions: Bool = true, report: (Int, Int) -> Void) {
        var c = span.start
        while c < span.end {
            let id = OpID(peer: span.peer, counter: c)
            guard let cur = splitBefore(id) else { return }
            // Elements are read and leaves handed on through the cursor in place (see SeqCursor).
            let length = cur.elem.length
            let take = min(span.end - c, length)
            var cur2 = cur
            if take < length, cur.withLeaf({ split($0, cur.index, at: take) }) == nil {
                guard let again = cursor(of: id) else { return }
                cur2 = again
            }
            let piece = cur2.elem
            if piece.visible {
                let pos = wantPositions ? prefix(of: cur2).count : 0
                cur2.withLeaf { markDeleted($0, cur2.index, count: take) }
                report(pos, Int(take))
            } else if !piece.deleted {
                cur2.withLeaf { markDeleted($0, cur2.index, count: take) }
            }
            c += take
        }
    }
}
