import QuireAlgorithms
import QuireTextStorage

extension IntentText {
    /// The text in `ranges` as a markup document of its own — stage 1 in reverse, what a copy of
    /// rendered text is written from: every paragraph the ranges touch, cut to them, inside the
    /// blocks of its path (a cell keeps its row and table, an item its list; an ordered list cut
    /// after its first item starts at the first number kept), its character attributes as inline
    /// intents (bold, italic, strikethrough, code, links, raw markup, images; U+2028 a hard
    /// break). A code block keeps the selected lines as its literal. A paragraph the ranges only
    /// touch at its final "\n" is left out.
    ///
    /// - Complexity: O(p · d + r) for the p paragraphs touched at depth d and the r runs in them.
    public func document(in ranges: [Range<Int>]) -> MarkupDocument {
        let units = Array(text.string.utf16)
        let runs = text.runs
        // The open blocks, outermost first, with the children built so far.
        var stack: [(identity: BlockIdentity, block: MarkupBlock)] = []
        var roots: [MarkupBlock] = []
        func closeBlocks(keeping count: Int) {
            while stack.count > count {
                let (_, block) = stack.removeLast()
                if stack.isEmpty { roots.append(block) } else { stack[stack.count - 1].block.children.append(block) }
            }
        }
        var paragraphIndex = 0
        for range in ranges where !range.isEmpty {
            while paragraphIndex < paragraphs.count, paragraphs[paragraphIndex].range.upperBound <= range.lowerBound { paragraphIndex += 1 }
            var index = paragraphIndex
            while index < paragraphs.count, paragraphs[index].range.lowerBound < range.upperBound {
                let paragraph = paragraphs[index]
                let content = max(range.lowerBound, paragraph.range.lowerBound)..<min(range.upperBound, paragraph.range.upperBound - 1)
                // A paragraph the range only touches at its very end contributes nothing (as the
                // editor's copy leaves such a block out).
                if content.isEmpty, range.lowerBound >= paragraph.range.upperBound - 1, paragraph.range.count > 1 {
                    index += 1
                    continue
                }
                let path = paragraph.path
                var shared = 0
                while shared < stack.count, shared < path.count, stack[shared].identity.id == path[shared].id { shared += 1 }
                closeBlocks(keeping: shared)
                for depth in shared..<path.count {
                    var intent = path[depth].intent
                    // A list cut after its first items starts at the first item kept.
                    if case .list(.ordered(let start), let tight) = intent, depth + 1 < path.count {
                        let (number, overflow) = start.addingReportingOverflow(path[depth + 1].ordinal)
                        intent = .list(.ordered(start: overflow ? Int.max : number), tight: tight)
                    }
                    stack.append((path[depth], MarkupBlock(intent)))
                }
                let leaf = path[path.count - 1].intent
                let top = stack.count - 1
                switch leaf {
                case .codeBlock, .htmlBlock:
                    stack[top].block.literal = String(decoding: units[content].map { $0 == TextLayout.lineSeparator ? 0x0A : $0 }, as: UTF16.self) + "\n"
                case _ where leaf.hasInlineContent:
                    stack[top].block.inlines = Self.inlines(units: units, runs: runs, in: content)
                default: break
                }
                index += 1
            }
            paragraphIndex = max(paragraphIndex, index - 1)
        }
        closeBlocks(keeping: 0)
        return MarkupDocument(blocks: roots)
    }

    /// The inline intents of the runs in `range`: consecutive runs with the same link share
    /// one link; inside it each run is its text wrapped in strikethrough, emphasis and strong.
    static func inlines(units: [UInt16], runs: [AttributeRun], in range: Range<Int>) -> [MarkupInline] {
        var result: [MarkupInline] = []
        var openLink: (destination: String, children: [MarkupInline])?
        func flushLink() {
            if let link = openLink { result.append(MarkupInline(.link(destination: link.destination, title: nil), children: link.children)) }
            openLink = nil
        }
        let first = max(0, runs.partitioningIndex { $0.range.location + $0.range.length > range.lowerBound })
        for run in runs[first...] {
            let lower = max(run.range.location, range.lowerBound)
            let upper = min(run.range.location + run.range.length, range.upperBound)
            guard lower < upper else {
                if run.range.location >= range.upperBound { break }
                continue
            }
            let attributes = run.attributes
            let pieces = Self.pieces(units[lower..<upper], attributes)
            var link: String?
            if case .string(let destination)? = attributes[.link] { link = destination }
            if openLink?.destination != link { flushLink() }
            if let link {
                if openLink == nil { openLink = (link, []) }
                openLink?.children += pieces
            } else {
                result += pieces
            }
        }
        flushLink()
        return result
    }

    /// One run's text as inlines: images, hard breaks and text pieces, each wrapped in the
    /// run's formats.
    static func pieces(_ units: ArraySlice<UInt16>, _ attributes: Attributes) -> [MarkupInline] {
        if case .record(let record)? = attributes[.attachment] {
            func field(_ key: String) -> String? { if case .string(let value)? = record[key] { value } else { nil } }
            let image = MarkupInline(.image(source: field(AttachmentField.source) ?? "", title: field(AttachmentField.title)),
                                     children: (field(AttachmentField.alt)).map { [MarkupInline(.text($0))] } ?? [])
            return Array(repeating: image, count: units.count)
        }
        var result: [MarkupInline] = []
        var pending: [UInt16] = []
        func flushText() {
            guard !pending.isEmpty else { return }
            let string = String(decoding: pending, as: UTF16.self)
            pending = []
            var inline: MarkupInline
            if attributes[.code] == .bool(true) { inline = MarkupInline(.code(string)) }
            else if attributes[.rawMarkup] == .bool(true) { inline = MarkupInline(.html(string)) }
            else { inline = MarkupInline(.text(string)) }
            if attributes[.strikethrough] == .bool(true) { inline = MarkupInline(.strikethrough, children: [inline]) }
            if attributes[.italic] == .bool(true) { inline = MarkupInline(.emphasis, children: [inline]) }
            if attributes[.bold] == .bool(true) { inline = MarkupInline(.strong, children: [inline]) }
            result.append(inline)
        }
        for unit in units {
            if unit == TextLayout.lineSeparator {
                flushText()
                result.append(MarkupInline(.lineBreak))
            } else {
                pending.append(unit)
            }
        }
        flushText()
        return result
    }
}
