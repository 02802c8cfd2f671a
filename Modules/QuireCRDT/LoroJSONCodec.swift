import QuireJSON

// Reading and writing Loro JSON updates text with QuireJSON's reader and writer. The decoder walks
// the bytes once with the pull reader (no tree except for the values ops carry); schema errors
// carry a JSON path built on the way out of each level, syntax errors the reader's own.

extension LoroJSONUpdates {
    /// Reads Loro JSON updates text.
    /// - Throws: ``LoroJSONError`` with line/column for syntax errors and a JSON path for schema errors.
    /// - Complexity: O(size of the text).
    public init(json: String) throws(LoroJSONError) {
        try self.init(json: Array(json.utf8))
    }

    /// Reads Loro JSON updates from UTF-8 bytes.
    /// - Complexity: O(size of the text).
    public init(json bytes: [UInt8]) throws(LoroJSONError) {
        var decoder = LoroJSONDecoder(reader: JSONReader(bytes))
        self = try decoder.updates()
    }

    /// The JSON text, with keys in Loro's order and peers compressed into a `peers` table.
    /// - Complexity: O(size of the output).
    public func jsonString(prettyPrinted: Bool = false) -> String {
        String(decoding: jsonBytes(prettyPrinted: prettyPrinted), as: UTF8.self)
    }

    /// The JSON text as UTF-8 bytes.
    /// - Complexity: O(size of the output).
    public func jsonBytes(prettyPrinted: Bool = false) -> [UInt8] {
        var encoder = LoroJSONEncoder(writer: JSONWriter(prettyPrinted: prettyPrinted))
        encoder.write(self)
        return encoder.writer.output
    }
}

// MARK: - decoding

struct LoroJSONDecoder {
    var reader: JSONReader
    /// The peer table; nil when the document has none (IDs then hold real peers).
    var peers: [PeerID]?

    mutating func updates() throws(LoroJSONError) -> LoroJSONUpdates {
        var version: Int?
        var start = Frontiers()
        var changes: [LoroJSONChange]?
        var deferredChanges: JSONReader?
        var peersSeen = false
        var table: [PeerID]?
        var root = reader
        try root.loroObject { (r, key) throws(LoroJSONError) in
            if r.key(key, is: "schema_version") {
                guard case .integer(let v) = try r.loroNumber() else { throw .schema(path: "$.schema_version", reason: "expected an integer") }
                guard v == LoroJSONUpdates.schemaVersion else { throw .unsupportedSchemaVersion(v) }
                version = v
            } else if r.key(key, is: "start_version") {
                start = try Self.frontiers(&r)
            } else if r.key(key, is: "peers") {
                peersSeen = true
                if try r.loroNull() { return }
                var list: [PeerID] = []
                try r.loroArray { (r, i) throws(LoroJSONError) in
                    let s = try r.loroString()
                    guard let p = PeerID(s) else { throw .schema(path: "$.peers[\(i)]", reason: "a peer must be a u64 in decimal, got \"\(s)\"") }
                    list.append(p)
                }
                table = list
            } else if r.key(key, is: "changes") {
                if peersSeen {
                    var sub = LoroJSONDecoder(reader: r, peers: table)
                    changes = try sub.changeList()
                    r = sub.reader
                } else {
                    // Changes before the peer table: read them once the whole object is known.
                    deferredChanges = r
                    try r.loroSkip()
                }
            } else {
                try r.loroSkip()
            }
        }
        try root.loroFinish()
        reader = root
        peers = table
        guard version != nil else { throw .schema(path: "$", reason: "missing schema_version") }
        if let deferred = deferredChanges {
            var sub = LoroJSONDecoder(reader: deferred, peers: table)
            changes = try sub.changeList()
        }
        guard let changes else { throw .schema(path: "$", reason: "missing changes") }
        return LoroJSONUpdates(startVersion: start, changes: changes)
    }

    /// `{"peer decimal": counter}`: real peer IDs, as Loro writes start versions.
    static func frontiers(_ r: inout JSONReader) throws(LoroJSONError) -> Frontiers {
        var ids: [OpID] = []
        try r.loroObject { (r, key) throws(LoroJSONError) in
            let name = r.string(for: key)
            guard let peer = PeerID(name) else { throw .schema(path: "$.start_version", reason: "a peer must be a u64 in decimal, got \"\(name)\"") }
            guard case .integer(let c) = try r.loroNumber(), c >= 0, c <= Int(OpCounter.max) else {
                throw .schema(path: "$.start_version[\"\(name)\"]", reason: "expected a non-negative counter")
            }
            ids.append(OpID(peer: peer, counter: OpCounter(c)))
        }
        return Frontiers(ids)
    }

    mutating func changeList() throws(LoroJSONError) -> [LoroJSONChange] {
        var out: [LoroJSONChange] = []
        let table = peers
        try reader.loroArray { (r, i) throws(LoroJSONError) in
            do throws(LoroJSONError) { out.append(try Self.change(&r, peers: table)) } catch { throw error.prefixed("$.changes[\(i)]") }
        }
        return out
    }

    static func peer(_ raw: UInt64, _ peers: [PeerID]?) throws(LoroJSONError) -> PeerID {
        guard let peers else { return raw }
        guard raw < UInt64(peers.count) else { throw .schema(path: "", reason: "peer index \(raw) is out of range (\(peers.count) peers)") }
        return peers[Int(raw)]
    }

    /// `counter@peer` with the peer resolved through the table.
    static func id(_ s: Substring, _ peers: [PeerID]?) throws(LoroJSONError) -> OpID {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let c = OpCounter(parts[0]), c >= 0, let p = UInt64(parts[1]) else {
            throw .schema(path: "", reason: "expected an ID \"counter@peer\", got \"\(s)\"")
        }
        return OpID(peer: try peer(p, peers), counter: c)
    }

    static func id(_ r: inout JSONReader, _ peers: [PeerID]?) throws(LoroJSONError) -> OpID {
        guard let range = try r.loroUnescapedString() else { return try id(Substring(try r.loroString()), peers) }
        // Fast path: "counter@peer" read straight from the bytes; anything else gets the full check and its message.
        if let id = parseID(r.bytes, range) { return OpID(peer: try peer(id.peer, peers), counter: id.counter) }
        return try id(Substring(String(decoding: r.bytes[range], as: UTF8.self)), peers)
    }

    /// `counter@peer` in ASCII digits (peer not yet resolved through the table); nil otherwise.
    static func parseID(_ bytes: [UInt8], _ range: Range<Int>) -> (peer: UInt64, counter: OpCounter)? {
        var i = range.lowerBound
        var counter: Int64 = 0
        let counterStart = i
        while i < range.upperBound, bytes[i] >= 0x30, bytes[i] <= 0x39, i - counterStart < 10 {
            counter = counter * 10 + Int64(bytes[i] - 0x30)
            i += 1
        }
        guard i > counterStart, i < range.upperBound, bytes[i] == UInt8(ascii: "@"), counter <= Int64(OpCounter.max) else { return nil }
        i += 1
        let peerStart = i
        var peer: UInt64 = 0
        while i < range.upperBound, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (m, o1) = peer.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
            if o1 || o2 { return nil }
            peer = a
            i += 1
        }
        guard i == range.upperBound, i > peerStart else { return nil }
        return (peer, OpCounter(counter))
    }

    /// `cid:root-NAME:Type` or `cid:COUNTER@PEER:Type`.
    static func containerID(_ s: Substring, _ peers: [PeerID]?) throws(LoroJSONError) -> ContainerID {
        guard s.hasPrefix("cid:"), let colon = s.lastIndex(of: ":"), colon > s.index(s.startIndex, offsetBy: 3) else {
            throw .schema(path: "", reason: "expected a container ID \"cid:…:Type\", got \"\(s)\"")
        }
        let body = s[s.index(s.startIndex, offsetBy: 4)..<colon]
        let typeName = s[s.index(after: colon)...]
        let type: ContainerType
        switch typeName {
        case "Text", "text": type = .text
        case "List", "list": type = .list
        case "Map", "map": type = .map
        case "Tree", "tree": type = .tree
        case "MovableList", "movableList": type = .movableList
        case "Counter", "counter": type = .counter
        default:
            if typeName.hasPrefix("Unknown(") { throw .unsupportedContainerType(path: "", type: String(typeName)) }
            throw .schema(path: "", reason: "unknown container type \"\(typeName)\" in \"\(s)\"")
        }
        if body.hasPrefix("root-") {
            let name = body.dropFirst(5)
            guard !name.isEmpty else { throw .schema(path: "", reason: "empty root container name in \"\(s)\"") }
            return .root(name: String(name), type: type)
        }
        return .normal(id: try id(body, peers), type: type)
    }

    static func change(_ r: inout JSONReader, peers: [PeerID]?) throws(LoroJSONError) -> LoroJSONChange {
        var id: OpID?
        var timestamp: Int64 = 0
        var deps: [OpID]?
        var lamport: Lamport?
        var message: String?
        var ops: [LoroJSONOp]?
        try r.loroObject { (r, key) throws(LoroJSONError) in
            if r.key(key, is: "id") {
                do throws(LoroJSONError) { id = try Self.id(&r, peers) } catch { throw error.prefixed(".id") }
            } else if r.key(key, is: "timestamp") {
                guard case .integer(let t) = try r.loroNumber() else { throw .schema(path: ".timestamp", reason: "expected an integer") }
                timestamp = Int64(t)
            } else if r.key(key, is: "deps") {
                var list: [OpID] = []
                try r.loroArray { (r, i) throws(LoroJSONError) in
                    do throws(LoroJSONError) { list.append(try Self.id(&r, peers)) } catch { throw error.prefixed(".deps[\(i)]") }
                }
                deps = list
            } else if r.key(key, is: "lamport") {
                guard case .integer(let l) = try r.loroNumber(), l >= 0, l <= Int(Lamport.max / 2) else {
                    throw .schema(path: ".lamport", reason: "expected a Lamport timestamp (0…\(Lamport.max / 2))")
                }
                lamport = Lamport(l)
            } else if r.key(key, is: "msg") {
                if try r.loroNull() { return }
                message = try r.loroString()
            } else if r.key(key, is: "ops") {
                var list: [LoroJSONOp] = []
                var cache: ContainerCache = nil
                try r.loroArray { (r, i) throws(LoroJSONError) in
                    do throws(LoroJSONError) { list.append(try Self.op(&r, peers: peers, cache: &cache)) } catch { throw error.prefixed(".ops[\(i)]") }
                }
                ops = list
            } else {
                try r.loroSkip()
            }
        }
        guard let id else { throw .schema(path: "", reason: "missing id") }
        guard let deps else { throw .schema(path: "", reason: "missing deps") }
        guard let lamport else { throw .schema(path: "", reason: "missing lamport") }
        guard let ops, !ops.isEmpty else { throw .schema(path: ".ops", reason: "a change needs at least one op") }
        // Counters must be contiguous from the change's ID (Loro checks the same).
        var expected = Int64(id.counter)
        for (i, op) in ops.enumerated() {
            guard Int64(op.counter) == expected else {
                throw .schema(path: ".ops[\(i)].counter", reason: "expected counter \(expected), got \(op.counter)")
            }
            guard op.length > 0 else { throw .schema(path: ".ops[\(i)]", reason: "an op must span at least one atom") }
            expected += Int64(op.length)
        }
        guard expected <= Int64(OpCounter.max) else { throw .schema(path: ".ops", reason: "counters overflow") }
        return LoroJSONChange(id: id, timestamp: timestamp, deps: deps, lamport: lamport, message: message, ops: ops)
    }

    /// The last container ID read and its raw bytes: consecutive ops usually share their container.
    typealias ContainerCache = (bytes: ArraySlice<UInt8>, id: ContainerID)?

    /// The cached container when its bytes are `bytes[range]`, compared in place (comparing
    /// the slices went through the generic element-by-element path).
    /// - Complexity: O(range.count).
    static func cached(_ cache: ContainerCache, _ bytes: [UInt8], _ range: Range<Int>) -> ContainerID? {
        guard let cache, cache.bytes.count == range.count else { return nil }
        // A plain loop: the generic `elementsEqual` costs some thirty instructions a byte.
        let same = cache.bytes.withUnsafeBufferPointer { a in
            bytes.withUnsafeBufferPointer { b in
                var i = 0
                while i < a.count, a[i] == b[range.lowerBound + i] { i += 1 }
                return i == a.count
            }
        }
        return same ? cache.id : nil
    }

    static func op(_ r: inout JSONReader, peers: [PeerID]?, cache: inout ContainerCache) throws(LoroJSONError) -> LoroJSONOp {
        var container: ContainerID?
        var counter: OpCounter?
        var content: LoroJSONOpContent?
        var deferredContent: JSONReader?
        try r.loroObject { (r, key) throws(LoroJSONError) in
            if r.key(key, is: "container") {
                if let range = try r.loroUnescapedString() {
                    if let id = Self.cached(cache, r.bytes, range) { container = id; return }
                    guard let s = String(validating: r.bytes[range], as: UTF8.self) else { throw .schema(path: ".container", reason: "invalid UTF-8") }
                    do throws(LoroJSONError) { container = try Self.containerID(Substring(s), peers) } catch { throw error.prefixed(".container") }
                    cache = (r.bytes[range], container!)
                    return
                }
                let s = try r.loroString()
                do throws(LoroJSONError) { container = try Self.containerID(Substring(s), peers) } catch { throw error.prefixed(".container") }
            } else if r.key(key, is: "counter") {
                guard case .integer(let c) = try r.loroNumber(), c >= 0, c <= Int(OpCounter.max) else {
                    throw .schema(path: ".counter", reason: "expected a non-negative counter")
                }
                counter = OpCounter(c)
            } else if r.key(key, is: "content") {
                if let container {
                    do throws(LoroJSONError) { content = try Self.content(&r, container.type, peers) } catch { throw error.prefixed(".content") }
                } else {
                    deferredContent = r
                    try r.loroSkip()
                }
            } else {
                try r.loroSkip()
            }
        }
        guard let container else { throw .schema(path: "", reason: "missing container") }
        guard let counter else { throw .schema(path: "", reason: "missing counter") }
        if var sub = deferredContent {
            do throws(LoroJSONError) { content = try Self.content(&sub, container.type, peers) } catch { throw error.prefixed(".content") }
        }
        guard let content else { throw .schema(path: "", reason: "missing content") }
        return LoroJSONOp(container: container, counter: counter, content: content)
    }

    /// The fields an op content may have; which ones are required depends on the container and type.
    private struct ContentFields {
        var type: String?
        var pos: Int64?
        var len: Int64?
        var startID: OpID?
        var text: String?
        var value: CRDTValue?
        var key: String?
        var start: Int64?
        var end: Int64?
        var styleKey: String?
        var styleValue: CRDTValue?
        var info: Int64?
        var target: OpID?
        var parent: OpID??
        var fractionalIndex: [UInt8]?
        var from: Int64?
        var to: Int64?
        var elemID: IdLp?
        var valueType: String?
        var prop: Int64?
    }

    /// The keys an op content may have.
    private enum ContentKey {
        case type, pos, len, startID, text, value, key, start, end, styleKey, styleValue, info, target, parent, from, to, prop, valueType, elemID
        case fractionalIndex
    }

    /// The content key `key` is, nil for any other: the one name its length and first bytes
    /// allow, confirmed by one comparison (testing the names in turn cost a dozen per op).
    /// - Complexity: O(length of the key).
    private static func contentKey(_ r: JSONReader, _ key: JSONKey) -> ContentKey? {
        let count: Int, first: UInt8, second: UInt8
        if let decoded = key.decoded {
            count = decoded.utf8.count
            var bytes = decoded.utf8.makeIterator()
            first = bytes.next() ?? 0
            second = bytes.next() ?? 0
        } else {
            count = key.range.count
            guard count >= 2 else { return nil }
            (first, second) = r.bytes.withUnsafeBufferPointer { ($0[key.range.lowerBound], $0[key.range.lowerBound + 1]) }
        }
        let candidate: (ContentKey, StaticString)
        switch (count, first) {
        case (2, UInt8(ascii: "t")): candidate = (.to, "to")
        case (3, UInt8(ascii: "p")): candidate = (.pos, "pos")
        case (3, UInt8(ascii: "l")): candidate = (.len, "len")
        case (3, UInt8(ascii: "k")): candidate = (.key, "key")
        case (3, UInt8(ascii: "e")): candidate = (.end, "end")
        case (4, UInt8(ascii: "t")): candidate = second == UInt8(ascii: "y") ? (.type, "type") : (.text, "text")
        case (4, UInt8(ascii: "i")): candidate = (.info, "info")
        case (4, UInt8(ascii: "f")): candidate = (.from, "from")
        case (4, UInt8(ascii: "p")): candidate = (.prop, "prop")
        case (5, UInt8(ascii: "v")): candidate = (.value, "value")
        case (5, UInt8(ascii: "s")): candidate = (.start, "start")
        case (6, UInt8(ascii: "t")): candidate = (.target, "target")
        case (6, UInt8(ascii: "p")): candidate = (.parent, "parent")
        case (7, UInt8(ascii: "e")): candidate = (.elemID, "elem_id")
        case (8, UInt8(ascii: "s")): candidate = (.startID, "start_id")
        case (9, UInt8(ascii: "s")): candidate = (.styleKey, "style_key")
        case (10, UInt8(ascii: "v")): candidate = (.valueType, "value_type")
        case (11, UInt8(ascii: "s")): candidate = (.styleValue, "style_value")
        case (16, UInt8(ascii: "f")): candidate = (.fractionalIndex, "fractional_index")
        default: return nil
        }
        return r.key(key, is: candidate.1) ? candidate.0 : nil
    }

    static func content(_ r: inout JSONReader, _ type: ContainerType, _ peers: [PeerID]?) throws(LoroJSONError) -> LoroJSONOpContent {
        var f = ContentFields()
        func integer(_ r: inout JSONReader, _ name: String) throws(LoroJSONError) -> Int64 {
            guard case .integer(let v) = try r.loroNumber() else { throw .schema(path: ".\(name)", reason: "expected an integer") }
            return Int64(v)
        }
        try r.loroObject { (r, key) throws(LoroJSONError) in
            switch Self.contentKey(r, key) {
            case .type: f.type = try r.loroString()
            case .pos: f.pos = try integer(&r, "pos")
            case .len: f.len = try integer(&r, "len")
            case .startID: do throws(LoroJSONError) { f.startID = try Self.id(&r, peers) } catch { throw error.prefixed(".start_id") }
            case .text: f.text = try r.loroString()
            case .value: do throws(LoroJSONError) { f.value = try Self.value(&r, peers) } catch { throw error.prefixed(".value") }
            case .key: f.key = try r.loroString()
            case .start: f.start = try integer(&r, "start")
            case .end: f.end = try integer(&r, "end")
            case .styleKey: f.styleKey = try r.loroString()
            case .styleValue: do throws(LoroJSONError) { f.styleValue = try Self.value(&r, peers) } catch { throw error.prefixed(".style_value") }
            case .info: f.info = try integer(&r, "info")
            case .target: do throws(LoroJSONError) { f.target = try Self.id(&r, peers) } catch { throw error.prefixed(".target") }
            case .parent:
                if try r.loroNull() { f.parent = .some(nil) } else {
                    do throws(LoroJSONError) { f.parent = .some(try Self.id(&r, peers)) } catch { throw error.prefixed(".parent") }
                }
            case .from: f.from = try integer(&r, "from")
            case .to: f.to = try integer(&r, "to")
            case .prop: f.prop = try integer(&r, "prop")
            case .valueType: f.valueType = try r.loroString()
            case .elemID:
                let text = try r.loroString()
                guard text.hasPrefix("L") else { throw .schema(path: ".elem_id", reason: "expected an element ID \"L<lamport>@<peer>\", got \"\(text)\"") }
                // `lamport@peer` has the shape of an op ID.
                do throws(LoroJSONError) {
                    let id = try Self.id(Substring(text.dropFirst()), peers)
                    f.elemID = IdLp(peer: id.peer, lamport: Lamport(id.counter))
                } catch { throw error.prefixed(".elem_id") }
            case .fractionalIndex:
                let hex = try r.loroString()
                guard let bytes = Self.hexBytes(hex) else { throw .schema(path: ".fractional_index", reason: "expected an even-length hex string, got \"\(hex)\"") }
                f.fractionalIndex = bytes
            case nil: try r.loroSkip()
            }
        }
        guard let kind = f.type else { throw .schema(path: "", reason: "missing type") }
        func need<T>(_ v: T?, _ name: String) throws(LoroJSONError) -> T {
            guard let v else { throw .schema(path: "", reason: "a \(type) \"\(kind)\" op needs \"\(name)\"") }
            return v
        }
        func position(_ v: Int64?, _ name: String) throws(LoroJSONError) -> Int {
            let p = try need(v, name)
            guard p >= 0, p <= Int64(Int32.max) else { throw .schema(path: ".\(name)", reason: "position \(p) is out of range") }
            return Int(p)
        }
        func delete() throws(LoroJSONError) -> LoroJSONOpContent {
            let len = try need(f.len, "len")
            guard len != 0, len.magnitude <= UInt64(Int32.max) else { throw .schema(path: ".len", reason: "a delete length must be non-zero and fit 32 bits") }
            return .delete(position: try position(f.pos, "pos"), length: Int(len), startID: try need(f.startID, "start_id"))
        }
        switch (type, kind) {
        case (.text, "insert"):
            return .insertText(position: try position(f.pos, "pos"), text: try need(f.text, "text"))
        case (.text, "delete"), (.list, "delete"), (.movableList, "delete"):
            return try delete()
        case (.movableList, "move"):
            return .move(from: try position(f.from, "from"), to: try position(f.to, "to"), elem: try need(f.elemID, "elem_id"))
        case (.movableList, "set"):
            return .setValue(elem: try need(f.elemID, "elem_id"), value: try need(f.value, "value"))
        case (.counter, "counter"), (.counter, "unknown"):
            guard f.prop ?? 0 == 0 else { throw .schema(path: ".prop", reason: "a counter op's prop must be 0") }
            guard ["f64", "i64"].contains(try need(f.valueType, "value_type")) else {
                throw .schema(path: ".value_type", reason: "a counter value must be \"f64\" or \"i64\"")
            }
            switch try need(f.value, "value") {
            case .int(let i): return .counter(Double(i))
            case .double(let d): return .counter(d)
            default: throw .schema(path: ".value", reason: "a counter value must be a number")
            }
        case (.text, "mark"):
            let info = try need(f.info, "info")
            guard (0...255).contains(info) else { throw .schema(path: ".info", reason: "info must be a byte") }
            return .mark(start: try position(f.start, "start"), end: try position(f.end, "end"), key: try need(f.styleKey, "style_key"),
                         value: try need(f.styleValue, "style_value"), info: UInt8(info))
        case (.text, "mark_end"):
            return .markEnd
        case (.list, "insert"), (.movableList, "insert"):
            guard case .list(let values) = try need(f.value, "value") else { throw .schema(path: ".value", reason: "a list insert's value must be an array") }
            return .insertValues(position: try position(f.pos, "pos"), values: values)
        case (.map, "insert"):
            return .mapInsert(key: try need(f.key, "key"), value: try need(f.value, "value"))
        case (.map, "delete"):
            return .mapDelete(key: try need(f.key, "key"))
        case (.tree, "create"), (.tree, "move"):
            let target = try need(f.target, "target")
            let parent = try need(f.parent, "parent")
            let index = f.fractionalIndex ?? []
            return kind == "create" ? .treeCreate(target: target, parent: parent, fractionalIndex: index)
                : .treeMove(target: target, parent: parent, fractionalIndex: index)
        case (.tree, "delete"):
            return .treeDelete(target: try need(f.target, "target"))
        default:
            throw .schema(path: ".type", reason: "unknown op type \"\(kind)\" for a \(type) container")
        }
    }

    static func hexBytes(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(u.count / 2)
        func digit(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var i = 0
        while i < u.count {
            guard let hi = digit(u[i]), let lo = digit(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// The prefix Loro puts before a container ID stored as a value.
    static let containerValuePrefix = "🦜:"

    /// A LoroValue: any JSON value, read with the reader's nesting limit and converted by
    /// ``CRDTValue/init(loroJSON:peers:)``.
    static func value(_ r: inout JSONReader, _ peers: [PeerID]?) throws(LoroJSONError) -> CRDTValue {
        try CRDTValue(loroJSON: try r.loroValue(), peers: peers)
    }
}

// MARK: - encoding

struct LoroJSONEncoder {
    var writer: JSONWriter
    private var peerIndex: [PeerID: Int] = [:]
    private var peers: [PeerID] = []

    init(writer: JSONWriter) { self.writer = writer }

    /// Registers peers in the order Loro meets them: each change's ops, then its ID, then its deps.
    private mutating func register(_ p: PeerID) {
        if peerIndex[p] == nil { peerIndex[p] = peers.count; peers.append(p) }
    }

    private mutating func register(_ v: CRDTValue) {
        switch v {
        case .container(let c): if case .normal(let id, _) = c { register(id.peer) }
        case .list(let l): for x in l { register(x) }
        case .map(let m): for k in m.keys.sorted() { register(m[k]!) }
        default: break
        }
    }

    private mutating func registerPeers(_ updates: LoroJSONUpdates) {
        for change in updates.changes {
            for op in change.ops {
                if case .normal(let id, _) = op.container { register(id.peer) }
                switch op.content {
                case .insertValues(_, let values): for v in values { register(v) }
                case .delete(_, _, let start): register(start.peer)
                case .mark(_, _, _, let value, _): register(value)
                case .mapInsert(_, let value): register(value)
                case .treeCreate(let target, let parent, _), .treeMove(let target, let parent, _):
                    register(target.peer)
                    if let parent { register(parent.peer) }
                case .treeDelete(let target): register(target.peer)
                case .move(_, _, let elem): register(elem.peer)
                case .setValue(let elem, let value): register(elem.peer); register(value)
                case .insertText, .markEnd, .mapDelete, .counter: break
                }
            }
            register(change.id.peer)
            for d in change.deps.sorted() { register(d.peer) }
        }
    }

    private func idText(_ id: OpID) -> String { "\(id.counter)@\(peerIndex[id.peer]!)" }

    private func containerText(_ c: ContainerID) -> String { Self.containerText(c, peerIndex) }

    /// `cid:…:Type` with the peer spelled as its index in the table.
    static func containerText(_ c: ContainerID, _ peerIndex: [PeerID: Int]) -> String {
        let typeName = c.type.loroName
        switch c {
        case .root(let name, _): return "cid:root-\(name):\(typeName)"
        case .normal(let id, _): return "cid:\(id.counter)@\(peerIndex[id.peer]!):\(typeName)"
        }
    }

    mutating func write(_ updates: LoroJSONUpdates) {
        registerPeers(updates)
        writer.beginObject()
        writer.key("schema_version"); writer.write(integer: LoroJSONUpdates.schemaVersion)
        writer.key("start_version")
        writer.beginObject()
        for id in updates.startVersion.ids {
            writer.key(String(id.peer))
            writer.write(integer: id.counter)
        }
        writer.endObject()
        writer.key("peers")
        writer.beginArray()
        for p in peers { writer.write(string: String(p)) }
        writer.endArray()
        writer.key("changes")
        writer.beginArray()
        for change in updates.changes { write(change) }
        writer.endArray()
        writer.endObject()
    }

    private mutating func write(_ change: LoroJSONChange) {
        writer.beginObject()
        writer.key("id"); writer.write(string: idText(change.id))
        writer.key("timestamp"); writer.write(integer: change.timestamp)
        writer.key("deps")
        writer.beginArray()
        for d in change.deps.sorted() { writer.write(string: idText(d)) }
        writer.endArray()
        writer.key("lamport"); writer.write(integer: change.lamport)
        writer.key("msg")
        if let m = change.message { writer.write(string: m) } else { writer.writeNull() }
        writer.key("ops")
        writer.beginArray()
        for op in change.ops {
            writer.beginObject()
            writer.key("container"); writer.write(string: containerText(op.container))
            writer.key("content"); write(op.content)
            writer.key("counter"); writer.write(integer: op.counter)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    private mutating func write(_ content: LoroJSONOpContent) {
        writer.beginObject()
        func type(_ name: String) { writer.key("type"); writer.write(string: name) }
        switch content {
        case let .insertText(pos, text):
            type("insert")
            writer.key("pos"); writer.write(integer: pos)
            writer.key("text"); writer.write(string: text)
        case let .insertValues(pos, values):
            type("insert")
            writer.key("pos"); writer.write(integer: pos)
            writer.key("value"); write(.list(values))
        case let .delete(pos, len, start):
            type("delete")
            writer.key("pos"); writer.write(integer: pos)
            writer.key("len"); writer.write(integer: len)
            writer.key("start_id"); writer.write(string: idText(start))
        case let .mark(start, end, key, value, info):
            type("mark")
            writer.key("start"); writer.write(integer: start)
            writer.key("end"); writer.write(integer: end)
            writer.key("style_key"); writer.write(string: key)
            writer.key("style_value"); write(value)
            writer.key("info"); writer.write(integer: info)
        case .markEnd:
            type("mark_end")
        case let .mapInsert(key, value):
            type("insert")
            writer.key("key"); writer.write(string: key)
            writer.key("value"); write(value)
        case let .mapDelete(key):
            type("delete")
            writer.key("key"); writer.write(string: key)
        case let .treeCreate(target, parent, index), let .treeMove(target, parent, index):
            if case .treeCreate = content { type("create") } else { type("move") }
            writer.key("target"); writer.write(string: idText(target))
            writer.key("parent")
            if let parent { writer.write(string: idText(parent)) } else { writer.writeNull() }
            writer.key("fractional_index"); writer.write(string: Self.hex(index))
        case let .treeDelete(target):
            type("delete")
            writer.key("target"); writer.write(string: idText(target))
        case let .move(from, to, elem):
            type("move")
            writer.key("from"); writer.write(integer: from)
            writer.key("to"); writer.write(integer: to)
            writer.key("elem_id"); writer.write(string: "L\(elem.lamport)@\(peerIndex[elem.peer]!)")
        case let .setValue(elem, value):
            type("set")
            writer.key("elem_id"); writer.write(string: "L\(elem.lamport)@\(peerIndex[elem.peer]!)")
            writer.key("value"); write(value)
        case let .counter(delta):
            type("counter")
            writer.key("prop"); writer.write(integer: 0)
            writer.key("value_type"); writer.write(string: "f64")
            writer.key("value"); writer.write(double: delta)
        }
        writer.endObject()
    }

    /// Upper-case hex, as Loro's FractionalIndex prints itself.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func write(_ value: CRDTValue) {
        writer.write(JSONValue(loroJSON: value) { [peerIndex] c in Self.containerText(c, peerIndex) })
    }
}

// MARK: - the reader's errors as LoroJSONError

extension LoroJSONError {
    /// A reader error: a syntax error, or a value of the wrong kind as a schema error at its path.
    init(_ error: JSONError) {
        switch error.reason {
        case .typeMismatch, .invalidValue: self = .schema(path: error.path, reason: error.message)
        default: self = .syntax(line: error.line, column: error.column, offset: error.byteOffset, reason: "\(error.message) at \(error.path)")
        }
    }
}

/// The reader's calls with their errors as ``LoroJSONError``, so that the decoder's closures throw
/// one error type.
extension JSONReader {
    /// Reads an object, calling `field` with each key, positioned on its value (which it must read).
    mutating func loroObject(_ field: (inout JSONReader, JSONKey) throws(LoroJSONError) -> Void) throws(LoroJSONError) {
        do { try beginObject() } catch { throw LoroJSONError(error) }
        while true {
            let key: JSONKey?
            do { key = try nextKey() } catch { throw LoroJSONError(error) }
            guard let key else { return }
            try field(&self, key)
        }
    }

    /// Reads an array, calling `element` with each index, positioned on the element.
    mutating func loroArray(_ element: (inout JSONReader, Int) throws(LoroJSONError) -> Void) throws(LoroJSONError) {
        do { try beginArray() } catch { throw LoroJSONError(error) }
        var index = 0
        while true {
            let more: Bool
            do { more = try nextElement() } catch { throw LoroJSONError(error) }
            guard more else { return }
            try element(&self, index)
            index += 1
        }
    }

    mutating func loroString() throws(LoroJSONError) -> String {
        do { return try readString() } catch { throw LoroJSONError(error) }
    }

    mutating func loroUnescapedString() throws(LoroJSONError) -> Range<Int>? {
        do { return try readUnescapedString() } catch { throw LoroJSONError(error) }
    }

    mutating func loroNumber() throws(LoroJSONError) -> JSONNumber {
        do { return try readNumber() } catch { throw LoroJSONError(error) }
    }

    mutating func loroNull() throws(LoroJSONError) -> Bool {
        do { return try readNullIfPresent() } catch { throw LoroJSONError(error) }
    }

    mutating func loroSkip() throws(LoroJSONError) {
        do { try skipValue() } catch { throw LoroJSONError(error) }
    }

    mutating func loroValue() throws(LoroJSONError) -> JSONValue {
        do { return try readValue() } catch { throw LoroJSONError(error) }
    }

    mutating func loroFinish() throws(LoroJSONError) {
        do { try finish() } catch { throw LoroJSONError(error) }
    }
}
