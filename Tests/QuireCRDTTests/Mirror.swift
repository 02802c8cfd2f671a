@testable import QuireCRDT

/// A plain model of a document patched only from events; tests compare it with the document.
struct Mirror {
    var texts: [ContainerID: [(Unicode.Scalar, [String: CRDTValue])]] = [:]
    var lists: [ContainerID: [CRDTValue]] = [:]
    var maps: [ContainerID: [String: CRDTValue]] = [:]
    var trees: [ContainerID: [TreeID?: [TreeID]]] = [:]
    var counters: [ContainerID: Double] = [:]
    var paths: [ContainerEvent] = []

    mutating func apply(_ event: DocumentEvent?) {
        guard let event else { return }
        for e in event.events { apply(e) }
    }

    mutating func apply(_ e: ContainerEvent) {
        paths.append(e)
        switch e.diff {
        case .text(let delta):
            var t = texts[e.target] ?? []
            var i = 0
            for d in delta {
                switch d {
                case let .retain(n, attrs):
                    if let attrs {
                        for k in i..<(i + n) {
                            for (key, v) in attrs { if v == .null { t[k].1[key] = nil } else { t[k].1[key] = v } }
                        }
                    }
                    i += n
                case let .insert(s, attrs):
                    let items = s.unicodeScalars.map { ($0, attrs) }
                    t.insert(contentsOf: items, at: i)
                    i += items.count
                case let .delete(n):
                    t.removeSubrange(i..<(i + n))
                }
            }
            texts[e.target] = t
        case .list(let delta):
            var l = lists[e.target] ?? []
            var i = 0
            for d in delta {
                switch d {
                case .retain(let n): i += n
                case .insert(let v): l.insert(contentsOf: v, at: i); i += v.count
                case .delete(let n): l.removeSubrange(i..<(i + n))
                }
            }
            lists[e.target] = l
        case .map(let updates):
            var m = maps[e.target] ?? [:]
            for (k, v) in updates { m[k] = v }
            maps[e.target] = m
        case .tree(let diffs):
            var tr = trees[e.target] ?? [:]
            for d in diffs {
                switch d {
                case let .create(node, at):
                    tr[node] = []
                    tr[at.parent, default: []].insert(node, at: at.index)
                case let .move(node, from, to):
                    precondition(tr[from.parent]?[from.index] == node, "move source mismatch")
                    tr[from.parent]!.remove(at: from.index)
                    tr[to.parent, default: []].insert(node, at: to.index)
                case let .delete(node, from):
                    precondition(tr[from.parent]?[from.index] == node, "delete source mismatch")
                    tr[from.parent]!.remove(at: from.index)
                }
            }
            trees[e.target] = tr
        case .counter(let delta):
            counters[e.target, default: 0] += delta
        }
    }

    /// Differences between this mirror and the document (empty when they agree).
    func differences(from doc: some DocumentReading) -> [String] {
        var out: [String] = []
        for c in doc.containers {
            switch c.type {
            case .text:
                let expected = flatten(doc.toDelta(c))
                let got = texts[c] ?? []
                if expected.count != got.count || zip(expected, got).contains(where: { $0.0 != $1.0 || $0.1 != $1.1 }) {
                    out.append("text \(c): doc \(doc.toDelta(c)) mirror \(String(String.UnicodeScalarView(got.map(\.0))))")
                }
            case .list, .movableList:
                if doc.list(c) != (lists[c] ?? []) { out.append("list \(c): doc \(doc.list(c)) mirror \(lists[c] ?? [])") }
            case .counter:
                if doc.counterValue(c) != counters[c] ?? 0 { out.append("counter \(c): doc \(doc.counterValue(c)) mirror \(counters[c] ?? 0)") }
            case .map:
                if doc.map(c) != (maps[c] ?? [:]) { out.append("map \(c): doc \(doc.map(c)) mirror \(maps[c] ?? [:])") }
            case .tree:
                if treeShape(doc, c) != mirrorShape(c, nil) { out.append("tree \(c): doc \(treeShape(doc, c)) mirror \(mirrorShape(c, nil))") }
            }
        }
        return out
    }

    func mirrorShape(_ c: ContainerID, _ parent: TreeID?) -> String {
        (trees[c]?[parent] ?? []).map { "\($0)(\(mirrorShape(c, $0)))" }.joined(separator: ",")
    }
}

func flatten(_ delta: [TextDelta]) -> [(Unicode.Scalar, [String: CRDTValue])] {
    var out: [(Unicode.Scalar, [String: CRDTValue])] = []
    for d in delta { if case let .insert(s, a) = d { for u in s.unicodeScalars { out.append((u, a)) } } }
    return out
}

func treeShape(_ doc: some DocumentReading, _ c: ContainerID, _ parent: TreeID? = nil) -> String {
    doc.children(of: parent, in: c).map { "\($0)(\(treeShape(doc, c, $0)))" }.joined(separator: ",")
}

/// Everything observable about a document, for convergence checks.
func fingerprint(_ doc: some DocumentReading) -> String {
    doc.containers.map { c -> String in
        switch c.type {
        case .text: return "\(c)=" + doc.toDelta(c).map(render).joined()
        case .list, .movableList: return "\(c)=\(doc.list(c))"
        case .counter: return "\(c)=\(doc.counterValue(c))"
        case .map: return "\(c)=\(doc.map(c).sorted { $0.key < $1.key })"
        case .tree: return "\(c)=\(treeShape(doc, c))"
        }
    }.joined(separator: "\n")
}

func render(_ d: TextDelta) -> String {
    guard case let .insert(s, attrs) = d else { return "\(d)" }
    return "[\(s)|" + attrs.keys.sorted().map { "\($0)=\(attrs[$0]!)" }.joined(separator: ",") + "]"
}
