import QuireCRDT
import QuirePositionIndex

/// Who owns a stretch of the shared text: the text before the first marker, or a block.
enum RunKey: Hashable, Sendable {
    /// Text before the first marker (only a foreign peer writes there; it is not shown).
    case leading
    /// A block's run: its marker, then its inline content.
    case block(TreeID)
}

/// What applying a text delta did to the runs.
struct RunChanges {
    /// Blocks whose content changed (text or attributes).
    var touched: Set<TreeID> = []
    /// Blocks whose marker appeared.
    var added: Set<TreeID> = []
    /// Blocks whose marker went away (their content joined the run before them).
    var removed: Set<TreeID> = []

    mutating func touch(_ key: RunKey) {
        if case .block(let id) = key { touched.insert(id) }
    }
}

/// The shared text cut into runs, in text order, with their lengths in Unicode scalars (the
/// CRDT's unit): the leading run, then one run per marker. It maps a position of the shared text
/// to the block that owns it and a block to where its run is, in O(log n), and follows the text
/// through its events.
///
/// It is the position index (QuirePositionIndex) with the leading run as the root and every
/// block run as a child of it: a run's marker is its preamble, its inline content its content.
struct TextRuns {
    private(set) var index: PositionIndex<RunKey>
    /// Blocks a second marker of which was seen (peers can each write one, repairing an orphaned
    /// block). When such a block's marker goes, the shared text is searched for another: a whole
    /// read makes the first one left the block's marker. The set may name blocks whose duplicates
    /// are gone since (content deletions do not say what they deleted); it only costs a search.
    private(set) var duplicated: Set<TreeID> = []

    /// The runs of a whole text, from its delta (``CRDTDocument/toDelta(_:)``). A marker is
    /// U+2029 carrying the `block` mark; a second marker naming an already seen block is content.
    ///
    /// - Complexity: O(n) for the scalars of the text.
    init(delta: [TextDelta]) {
        var leading = 0
        var runs: [(id: TreeID, content: Int)] = []
        var seen = Set<TreeID>()
        for step in delta {
            guard case .insert(let text, let attributes) = step else { continue }
            let owner = DocumentSchema.treeID(attributes[DocumentSchema.blockKey])
            for scalar in text.unicodeScalars {
                if let owner, scalar == DocumentSchema.markerScalar, seen.insert(owner).inserted {
                    runs.append((owner, 0))
                } else if let owner, scalar == DocumentSchema.markerScalar {
                    duplicated.insert(owner)
                    if runs.isEmpty { leading += 1 } else { runs[runs.count - 1].content += 1 }
                } else if runs.isEmpty {
                    leading += 1
                } else {
                    runs[runs.count - 1].content += 1
                }
            }
        }
        let children = runs.map {
            PositionIndex<RunKey>.Subtree(key: .block($0.id), lengths: .init(preamble: 1, content: $0.content))
        }
        do {
            index = try PositionIndex(document: .init(key: .leading, lengths: .init(content: leading), children: children))
        } catch {
            preconditionFailure("runs are keyed by distinct blocks: \(error)")
        }
    }

    /// The total length in scalars.
    var length: Int { index.totalLength }

    /// Whether the block has a run.
    func contains(_ block: TreeID) -> Bool { index.contains(.block(block)) }

    /// Where a block's marker is.
    ///
    /// - Complexity: O(log n).
    func markerPosition(of block: TreeID) -> Int? {
        try? index.location(of: .block(block), part: .preamble)
    }

    /// Where a block's inline content is.
    ///
    /// - Complexity: O(log n).
    func contentRange(of block: TreeID) -> Range<Int>? {
        guard let start = try? index.location(of: .block(block), part: .content),
              let length = try? index.lengths(of: .block(block)).content else { return nil }
        return start..<(start + length)
    }

    /// The run that text inserted at `position` joins: the owner of the scalar before it.
    ///
    /// - Complexity: O(log n).
    func owner(before position: Int) -> RunKey {
        guard position > 0, let entry = try? index.entries(overlapping: (position - 1)..<position).first else { return .leading }
        return entry.key
    }

    /// Grows (or shrinks) a block's inline content by `delta` scalars: what a splice of content
    /// scalars inside the run does, known without reading its event. Returns false, changing
    /// nothing, when the block has no run or the content would become negative.
    ///
    /// - Complexity: O(log n).
    mutating func resizeContent(of block: TreeID, by delta: Int) -> Bool {
        let key = RunKey.block(block)
        guard let length = try? index.lengths(of: key).content, length + delta >= 0 else { return false }
        setContent(length + delta, of: key)
        return true
    }

    private func content(of key: RunKey) -> Int { (try? index.lengths(of: key).content) ?? 0 }

    private mutating func setContent(_ length: Int, of key: RunKey) {
        do { try index.setLength(length, of: key, part: .content) } catch {
            preconditionFailure("the run \(key) is in the index: \(error)")
        }
    }

    /// Adds a run for `block` right after `target`, with the given content length.
    private mutating func insertRun(_ block: TreeID, after target: RunKey, content: Int) {
        let point: PositionIndex<RunKey>.InsertionPoint = target == .leading ? .firstChild(of: .leading) : .after(target)
        do { try index.insert(.init(key: .block(block), lengths: .init(preamble: 1, content: content)), at: point) } catch {
            preconditionFailure("a new run has a new key: \(error)")
        }
    }

    // MARK: Following the text

    /// Applies a text delta (one event of the shared text) to the runs; `document` is the
    /// document after the event, searched only when a block that had two markers loses one.
    ///
    /// - Complexity: O(k · log n) for k steps, plus the runs a deletion covers; O(n) for the
    ///   search of a lost marker's duplicate (rare: two peers repaired one block at once).
    mutating func apply(_ delta: [TextDelta], into changes: inout RunChanges, document: CRDTDocument) {
        apply(delta, into: &changes)
        let lost = changes.removed.intersection(duplicated).filter { !contains($0) }
        guard !lost.isEmpty else { return }
        // A whole read of the text: the first remaining marker of each such block becomes its
        // marker (claimed in text order, so positions before it are already final).
        var markers: [TreeID: [Int]] = [:]
        var at = 0
        for step in document.toDelta(DocumentSchema.text) {
            guard case .insert(let text, let attributes) = step else { continue }
            let owner = DocumentSchema.treeID(attributes[DocumentSchema.blockKey])
            for scalar in text.unicodeScalars {
                if let owner, scalar == DocumentSchema.markerScalar, lost.contains(owner) { markers[owner, default: []].append(at) }
                at += 1
            }
        }
        for block in lost {
            guard let positions = markers[block] else {
                duplicated.remove(block)
                continue
            }
            claim(at: positions[0], for: block, into: &changes)
            if positions.count == 1 { duplicated.remove(block) }
        }
    }

    private mutating func apply(_ delta: [TextDelta], into changes: inout RunChanges) {
        var position = 0
        for step in delta {
            switch step {
            case .retain(let count, let attributes):
                if let attributes, count > 0 {
                    if let value = attributes[DocumentSchema.blockKey] {
                        if let id = DocumentSchema.treeID(value) { claim(at: position, for: id, into: &changes) } else { unclaim(at: position, into: &changes) }
                    }
                    if attributes.keys.contains(where: { $0 != DocumentSchema.blockKey }) {
                        for entry in (try? index.entries(overlapping: position..<(position + count))) ?? [] { changes.touch(entry.key) }
                    }
                }
                position += count
            case .insert(let text, let attributes):
                let owner = DocumentSchema.treeID(attributes[DocumentSchema.blockKey])
                var pendingContent = 0
                var at = position
                for scalar in text.unicodeScalars {
                    if let owner, scalar == DocumentSchema.markerScalar, markerPosition(of: owner).map({ $0 >= at - pendingContent }) ?? true {
                        insertContent(pendingContent, at: at - pendingContent, into: &changes)
                        pendingContent = 0
                        // The first marker of a block in text order is its marker (as a whole
                        // text is read): one that stood later becomes content.
                        if let later = markerPosition(of: owner) {
                            unclaim(at: later, into: &changes)
                            duplicated.insert(owner)
                        }
                        insertMarker(at: at, for: owner, into: &changes)
                    } else {
                        if let owner, scalar == DocumentSchema.markerScalar { duplicated.insert(owner) }
                        pendingContent += 1
                    }
                    at += 1
                }
                insertContent(pendingContent, at: at - pendingContent, into: &changes)
                position = at
            case .delete(let count):
                delete(count, at: position, into: &changes)
            }
        }
    }

    private mutating func insertContent(_ count: Int, at position: Int, into changes: inout RunChanges) {
        guard count > 0 else { return }
        let owner = owner(before: position)
        setContent(content(of: owner) + count, of: owner)
        changes.touch(owner)
    }

    /// A marker inserted at `position` splits the run it lands in.
    private mutating func insertMarker(at position: Int, for block: TreeID, into changes: inout RunChanges) {
        let target = owner(before: position)
        let start = (try? index.location(of: target, part: .content)) ?? 0
        let total = content(of: target)
        let kept = position - start
        setContent(kept, of: target)
        insertRun(block, after: target, content: total - kept)
        changes.touch(target)
        changes.touched.insert(block)
        changes.added.insert(block)
        changes.removed.remove(block)
    }

    /// A `block` mark arriving on the scalar at `position` makes it a marker.
    private mutating func claim(at position: Int, for block: TreeID, into changes: inout RunChanges) {
        guard let entry = try? index.entries(overlapping: position..<(position + 1)).first else { return }
        if entry.key == .block(block) {
            // Its own marker marked again changes nothing; a scalar of its own content is a
            // later marker, which stays content.
            if entry.part != .preamble { duplicated.insert(block) }
            return
        }
        if entry.part == .preamble { unclaim(at: position, into: &changes) }
        if let existing = markerPosition(of: block) {
            // The first marker of a block in text order is its marker (as a whole text is read):
            // a later one stays content, an earlier one takes over.
            duplicated.insert(block)
            guard existing > position else { return }
            unclaim(at: existing, into: &changes)
        }
        // The scalar is content of the run it sits in now: split there, the scalar becoming the
        // new run's marker.
        let owner = owner(before: position + 1)
        let start = (try? index.location(of: owner, part: .content)) ?? 0
        let total = content(of: owner)
        let kept = position - start
        setContent(kept, of: owner)
        insertRun(block, after: owner, content: total - kept - 1)
        changes.touch(owner)
        changes.touched.insert(block)
        changes.added.insert(block)
        changes.removed.remove(block)
    }

    /// A marker losing its `block` mark becomes content of the run before it.
    private mutating func unclaim(at position: Int, into changes: inout RunChanges) {
        guard let entry = try? index.entries(overlapping: position..<(position + 1)).first, entry.part == .preamble,
              case .block(let id) = entry.key else { return }
        let previous = owner(before: position)
        let moved = content(of: entry.key) + 1
        _ = try? index.remove(entry.key)
        setContent(content(of: previous) + moved, of: previous)
        changes.touch(previous)
        changes.removed.insert(id)
        changes.added.remove(id)
        changes.touched.remove(id)
    }

    /// Deleting a run's marker joins what is left of the run to the run before it.
    private mutating func delete(_ count: Int, at position: Int, into changes: inout RunChanges) {
        guard count > 0, let entries = try? index.entries(overlapping: position..<(position + count)) else { return }
        let target = owner(before: position)
        var removedRuns: [RunKey] = []
        var remaining: [RunKey: Int] = [:]
        for entry in entries {
            let overlap = min(entry.location + entry.length, position + count) - max(entry.location, position)
            switch entry.part {
            case .preamble:
                removedRuns.append(entry.key)
            case .content:
                remaining[entry.key] = (remaining[entry.key] ?? content(of: entry.key)) - overlap
                changes.touch(entry.key)
            case .postamble:
                continue
            }
        }
        var joined = 0
        for run in removedRuns {
            joined += remaining[run] ?? content(of: run)
            _ = try? index.remove(run)
            if case .block(let id) = run {
                changes.removed.insert(id)
                changes.added.remove(id)
                changes.touched.remove(id)
            }
        }
        let targetContent = remaining[target] ?? content(of: target)
        setContent(targetContent + joined, of: target)
        for (run, length) in remaining where run != target && !removedRuns.contains(run) { setContent(length, of: run) }
        changes.touch(target)
    }
}
