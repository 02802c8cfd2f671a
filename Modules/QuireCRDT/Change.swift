/// How a mark spreads to text typed at its edges (Loro's ExpandType).
public enum ExpandType: UInt8, Sendable, Hashable {
    /// Text typed right after the range joins it (bold, italic).
    case after = 0
    /// Text typed right before the range joins it.
    case before = 1
    /// Text typed at either edge joins it.
    case both = 2
    /// Text typed at the edges never joins it (link, comment).
    case none = 3

    var expandsBefore: Bool { self == .before || self == .both }
    var expandsAfter: Bool { self == .after || self == .both }

    /// The rule an unmark uses so the edges behave the same (Loro's `reverse`).
    var reversed: ExpandType {
        switch self {
        case .before, .after: return self
        case .both: return .none
        case .none: return .both
        }
    }
}

/// A tree node's identifier: the ID of the operation that created it.
public typealias TreeID = OpID

/// Where a tree operation puts its node.
enum TreeParent: Hashable {
    case root
    case node(TreeID)
    case deleted
}

/// A mark: two anchors inserted into the text sequence plus the style they carry.
struct MarkPayload {
    var key: String
    var value: CRDTValue
    var expand: ExpandType
    var startLeft: OptID
    var startRight: OptID
    var endLeft: OptID
    var endRight: OptID
}

/// The content of one operation.
enum OpContent {
    /// Stored insert: content lives in the container's arena.
    case insert(left: OptID, right: OptID, content: Int32, count: Int32)
    /// Decoded insert not yet applied: text scalars.
    case insertText(left: OptID, right: OptID, [Unicode.Scalar])
    /// Decoded insert not yet applied: list values.
    case insertValues(left: OptID, right: OptID, [CRDTValue])
    /// Deletes every element in the spans; one atom per element, in span order.
    case delete([DelSpan])
    /// A mark (two atoms: start anchor, end anchor).
    case mark(MarkPayload)
    /// Sets (or with nil deletes) a map key.
    case mapSet(key: String, value: CRDTValue?)
    /// Creates, moves or deletes a tree node.
    case tree(target: TreeID, parent: TreeParent, position: [UInt8])
    /// Movable list: moves element `elem` out of the item `from` into a new item (this op's ID)
    /// placed between the origins.
    case move(elem: IdLp, from: OpID, left: OptID, right: OptID)
    /// Movable list: sets the value of element `elem`.
    case setValue(elem: IdLp, value: CRDTValue)
    /// Counter: adds `delta`.
    case counter(Double)
}

/// One operation: its container, its first counter and its content.
struct Op {
    var container: ContainerID
    var counter: OpCounter
    var content: OpContent

    /// The number of atoms (counters) the operation occupies, as Loro counts them.
    var length: Int32 {
        switch content {
        case .insert(_, _, _, let n): return n
        case .insertText(_, _, let s): return Int32(s.count)
        case .insertValues(_, _, let v): return Int32(v.count)
        case .delete(let spans): return spans.reduce(0) { $0 + $1.count }
        case .mark: return 2
        case .mapSet, .tree, .move, .setValue, .counter: return 1
        }
    }

    /// The operation's first `count` atoms (0 < `count` < `length`), or nil for an operation that
    /// cannot be cut: a mark's two anchors belong together, and single-atom operations have no
    /// proper prefix. Callers decide whether such an operation is kept whole or left out.
    /// - Complexity: O(count) for decoded inserts, O(spans) for deletes, O(1) otherwise.
    func prefix(_ count: Int32) -> Op? {
        var cut = self
        switch content {
        case let .insert(left, right, arena, _): cut.content = .insert(left: left, right: right, content: arena, count: count)
        case let .insertText(left, right, scalars): cut.content = .insertText(left: left, right: right, Array(scalars.prefix(Int(count))))
        case let .insertValues(left, right, values): cut.content = .insertValues(left: left, right: right, Array(values.prefix(Int(count))))
        case let .delete(spans):
            var rest = count
            var kept: [DelSpan] = []
            for span in spans where rest > 0 {
                let take = min(rest, span.count)
                kept.append(DelSpan(peer: span.peer, start: span.start, length: span.length > 0 ? take : -take))
                rest -= take
            }
            cut.content = .delete(kept)
        case .mark, .mapSet, .tree, .move, .setValue, .counter:
            return nil
        }
        return cut
    }
}

/// Targets of a delete: `length` > 0 covers `start ..< start+length`; `length` < 0 covers
/// `start, start-1, …` (Backspace order), as Loro's signed delete spans.
struct DelSpan: Equatable {
    var peer: PeerID
    var start: OpCounter
    var length: Int32

    var count: Int32 { abs(length) }
    /// The span as an ascending ID span.
    var ascending: IDSpan {
        length > 0 ? IDSpan(peer: peer, start: start, end: start + length) : IDSpan(peer: peer, start: start + length + 1, end: start + 1)
    }
    /// The span without its first `k` atoms.
    func dropping(_ k: Int32) -> DelSpan {
        length > 0 ? DelSpan(peer: peer, start: start + k, length: length - k) : DelSpan(peer: peer, start: start - k, length: length + k)
    }
    init(peer: PeerID, start: OpCounter, length: Int32) { self.peer = peer; self.start = start; self.length = length }
    init(_ s: IDSpan) { self.init(peer: s.peer, start: s.start, length: Int32(s.count)) }
}

/// A change: consecutive operations of one peer, their first Lamport and their dependencies.
struct Change {
    var peer: PeerID
    var counter: OpCounter
    var lamport: Lamport
    var deps: [OpID]
    var ops: [Op]
    var length: Int32
    /// Unix time of the commit (0 when not recorded, Loro's default) and the commit message.
    var timestamp: Int64 = 0
    var message: String? = nil

    var end: OpCounter { counter + length }
    var lastID: OpID { OpID(peer: peer, counter: end - 1) }
}

extension Op {
    /// Tries to append `next` (an operation of the same `peer`) to this one: consecutive typing
    /// or deleting, as Loro merges ops.
    /// - Complexity: O(1).
    mutating func tryMerge(_ next: Op, peer: PeerID) -> Bool {
        guard next.counter == counter + length, next.container == container else { return false }
        if case let .insert(l2, r2, c2, n2) = next.content {
            guard case let .insert(l, r, c, n) = content, r == r2, c + n == c2, l2 == OptID(peer: peer, counter: counter + n - 1) else { return false }
            content = .insert(left: l, right: r, content: c, count: n + n2)
            return true
        }
        guard case .delete(let more) = next.content, more.count == 1, case .delete(var s) = content else { return false }
        // Drop the enum's reference first so the span array is uniquely owned (no copy).
        content = .mapSet(key: "", value: nil)
        let m = more[0]
        if var last = s.last, last.peer == m.peer, m.length == 1 {
            // Forward deletes (Delete key) and backward ones (Backspace) extend the span.
            var extended = true
            if last.length > 0, last.start + last.length == m.start {
                last.length += 1
            } else if last.length == 1, m.start == last.start - 1 {
                last.length = -2
            } else if last.length < 0, m.start == last.start + last.length {
                last.length -= 1
            } else {
                extended = false
            }
            if extended { s[s.count - 1] = last; content = .delete(s); return true }
        }
        s.append(m)
        content = .delete(s)
        return true
    }
}
