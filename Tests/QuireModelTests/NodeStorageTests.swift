import QuireAlgorithms
import Testing
@testable import QuireModel

/// The two-layer node storage (a bulk array under a written trie with tombstones) against a plain
/// dictionary of the same nodes, over seeded random writes, removals, bulk stores and copies.
@Suite struct NodeStorageTests {
    static func node(_ key: Int, text: String) -> Node {
        Node(key: NodeKey(key), type: .text, role: .text, isUnknown: false, text: text, fields: [:])
    }

    static func root() -> Node {
        Node(key: .root, type: .root, role: .root, isUnknown: false, text: "", fields: [:])
    }

    /// The storage and the model agree on every key that was ever used, and on the count.
    static func expectAgree(_ storage: TrackedNodes, _ model: [NodeKey: Node], keys: Range<Int>, step: Int) {
        #expect(storage.count == model.count, "count at step \(step)")
        for raw in keys {
            let key = NodeKey(raw)
            if storage[key] != model[key] {
                Issue.record("node \(raw) differs at step \(step): \(String(describing: storage[key])) vs \(String(describing: model[key]))")
                return
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func agreesWithADictionary(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var storage = TrackedNodes(root: Self.root())
        var model: [NodeKey: Node] = [.root: Self.root()]
        // A new document's nodes become the bulk layer.
        let bulkCount = Int.random(in: 1...200, using: &generator)
        let bulk = (1...bulkCount).map { Self.node($0, text: "b\($0)") }
        storage.storeAll(bulk, tracking: false)
        for node in bulk { model[node.key] = node }
        #expect(storage.base != nil)
        #expect(storage.dirty.isEmpty)
        var nextKey = bulkCount + 1
        var snapshots: [(TrackedNodes, [NodeKey: Node])] = []
        let steps = 2_000
        for step in 0..<steps {
            let existing = Int.random(in: 0...(nextKey - 1), using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...3:
                // Overwrite (or revive) a key that may be bulk, written or removed.
                let node = Self.node(existing, text: "w\(step)")
                storage[NodeKey(existing)] = node
                model[NodeKey(existing)] = node
                #expect(storage.dirty.contains(NodeKey(existing)))
            case 4...5:
                storage[NodeKey(existing)] = nil
                model[NodeKey(existing)] = nil
            case 6:
                // Nodes stored in bulk into a storage that already has a bulk layer are written.
                let count = Int.random(in: 1...5, using: &generator)
                let tracking = Bool.random(using: &generator)
                let added = (nextKey..<(nextKey + count)).map { Self.node($0, text: "n\($0)") }
                let dirtyBefore = storage.dirty
                storage.storeAll(added, tracking: tracking)
                for node in added { model[node.key] = node }
                #expect(storage.dirty == (tracking ? dirtyBefore.union(added.map(\.key)) : dirtyBefore))
                nextKey += count
            case 7:
                snapshots.append((storage, model))
            default:
                _ = storage[NodeKey(existing)]
            }
            if step % 100 == 0 { Self.expectAgree(storage, model, keys: 0..<nextKey, step: step) }
        }
        Self.expectAgree(storage, model, keys: 0..<nextKey, step: steps)
        // Copies kept their nodes while the original went on, and compare by content.
        for (index, (snapshot, snapshotModel)) in snapshots.enumerated() {
            Self.expectAgree(snapshot, snapshotModel, keys: 0..<nextKey, step: -index)
            #expect(snapshot.hasSameNodes(as: storage) == (snapshotModel == model))
            #expect(storage.hasSameNodes(as: snapshot) == (snapshotModel == model))
        }
    }

    @Test func storagesBuiltApartCompareByContent() {
        let bulk = (1...50).map { Self.node($0, text: "b\($0)") }
        var layered = TrackedNodes(root: Self.root())
        layered.storeAll(bulk, tracking: false)
        var written = TrackedNodes(root: Self.root())
        for node in bulk { written[node.key] = node }
        #expect(layered.base != nil && written.base == nil)
        #expect(layered.hasSameNodes(as: written) && written.hasSameNodes(as: layered))
        layered[NodeKey(7)] = nil
        #expect(!layered.hasSameNodes(as: written) && !written.hasSameNodes(as: layered))
        written[NodeKey(7)] = nil
        #expect(layered.hasSameNodes(as: written) && written.hasSameNodes(as: layered))
        layered[NodeKey(9)] = Self.node(9, text: "changed")
        #expect(!layered.hasSameNodes(as: written) && !written.hasSameNodes(as: layered))
        // Removing then storing the same node again leaves equal content behind a tombstone.
        layered[NodeKey(9)] = nil
        layered[NodeKey(9)] = Self.node(9, text: "b9")
        #expect(layered.hasSameNodes(as: written) && written.hasSameNodes(as: layered))
    }

    /// A node's five links are stored as raw keys, so a node stays 104 bytes (with optional
    /// keys, 144): each reads back what was set, a key or none, whatever the others hold.
    @Test func linksReadBackWhatWasSetAndNodesStayCompact() {
        #expect(MemoryLayout<Node>.size <= 104)
        var generator = SeededGenerator(seed: 7)
        var node = Self.node(1, text: "a")
        var model: [NodeKey?] = Array(repeating: nil, count: 5)
        for _ in 0..<1_000 {
            let link = Int.random(in: 0..<5, using: &generator)
            let value: NodeKey? = Bool.random(using: &generator) ? nil : NodeKey(Int.random(in: 0...Int.max, using: &generator))
            switch link {
            case 0: node.parent = value
            case 1: node.previousSibling = value
            case 2: node.nextSibling = value
            case 3: node.firstChild = value
            default: node.lastChild = value
            }
            model[link] = value
            #expect([node.parent, node.previousSibling, node.nextSibling, node.firstChild, node.lastChild] == model)
            #expect(node.isAttached == (model[0] != nil))
        }
    }
}
