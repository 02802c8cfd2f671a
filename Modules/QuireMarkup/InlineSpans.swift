import QuireModel

/// One span around inline content: emphasis, strong emphasis, strikethrough or a link, with a
/// number that tells two spans of one kind apart within a block, and the delimiter the source
/// wrote it with (nil: the default).
struct SpanToken: Hashable {
    enum Kind: Hashable {
        case emphasis, strong, strikethrough, link
    }

    var kind: Kind
    var id: Int
    var delimiter: String?

    /// The token as ``MarkupDetails/spans`` writes it: the delimiter and the number (`"*0"`,
    /// `"__3"`), or `"link"`.
    var serialized: String {
        switch kind {
        case .emphasis: (delimiter ?? "*") + String(id)
        case .strong: (delimiter ?? "**") + String(id)
        case .strikethrough: (delimiter ?? "~~") + String(id)
        case .link: "link"
        }
    }

    /// Reads a serialized token; a link token gets `linkID`.
    init?(_ text: String, linkID: Int?) {
        if text == "link" {
            guard let linkID else { return nil }
            self.init(kind: .link, id: linkID, delimiter: nil)
            return
        }
        let marks = text.prefix { $0 == "*" || $0 == "_" || $0 == "~" }
        guard let id = Int(text.dropFirst(marks.count)), let first = marks.first, marks.allSatisfy({ $0 == first }) else { return nil }
        switch (first, marks.count) {
        case ("*", 1): self.init(kind: .emphasis, id: id, delimiter: nil)
        case ("_", 1): self.init(kind: .emphasis, id: id, delimiter: "_")
        case ("*", 2): self.init(kind: .strong, id: id, delimiter: nil)
        case ("_", 2): self.init(kind: .strong, id: id, delimiter: "__")
        case ("~", 2): self.init(kind: .strikethrough, id: id, delimiter: nil)
        case ("~", 1): self.init(kind: .strikethrough, id: id, delimiter: "~")
        default: return nil
        }
    }

    init(kind: Kind, id: Int, delimiter: String?) {
        self.kind = kind
        self.id = id
        self.delimiter = delimiter
    }

    /// The text format the span gives its content (none for a link).
    var format: TextFormat {
        switch kind {
        case .emphasis: .italic
        case .strong: .bold
        case .strikethrough: .strikethrough
        case .link: []
        }
    }

    /// The span's intent, with its delimiter as a detail; a link's comes from its node.
    func inline(link: MarkupInline?) -> MarkupInline {
        var details = JSONObject()
        if let delimiter { details[MarkupDetails.delimiter] = .string(delimiter) }
        switch kind {
        case .emphasis: return MarkupInline(.emphasis, details: details)
        case .strong: return MarkupInline(.strong, details: details)
        case .strikethrough: return MarkupInline(.strikethrough, details: details)
        case .link: return link ?? MarkupInline(.text(""))
        }
    }
}

/// A leaf of inline content (text, code, a break, an image, raw HTML, a footnote reference) with
/// the spans around it: how the importer and the exporter see a block's inline content.
struct InlineLeaf {
    /// The leaf itself (an image keeps its description as children).
    var content: MarkupInline
    /// The spans around it, outermost first.
    var chain: [SpanToken]
    /// The link it is in, without its children, and the link's token number.
    var link: (id: Int, inline: MarkupInline)?

    /// The formats of the spans around it.
    var format: TextFormat { chain.reduce(into: TextFormat()) { $0.formUnion($1.format) } }

    /// The spans as ``MarkupDetails/spans`` writes them.
    var chainTokens: [String] { chain.map(\.serialized) }

    /// Every leaf of `content` in order, numbering the spans from `counter`.
    ///
    /// - Complexity: O(n) in the content's size; recursion as deep as its spans nest.
    static func flatten(_ content: [MarkupInline], chain: [SpanToken], link: (id: Int, inline: MarkupInline)? = nil,
                        into leaves: inout [InlineLeaf], counter: inout Int) {
        for inline in content {
            let kind: SpanToken.Kind
            switch inline.intent {
            case .emphasis: kind = .emphasis
            case .strong: kind = .strong
            case .strikethrough: kind = .strikethrough
            case .link: kind = .link
            default:
                leaves.append(InlineLeaf(content: inline, chain: chain, link: link))
                continue
            }
            let token = SpanToken(kind: kind, id: counter, delimiter: inline.details[MarkupDetails.delimiter]?.stringValue)
            counter += 1
            let innerLink = kind == .link ? (token.id, MarkupInline(inline.intent, range: inline.range, details: inline.details)) : link
            // An empty link still has a place: one empty text.
            let children = kind == .link && inline.children.isEmpty ? [MarkupInline(.text(""))] : inline.children
            flatten(children, chain: chain + [token], link: innerLink, into: &leaves, counter: &counter)
        }
    }

    /// Whether `content` is plain enough that writing its leaves by their formats surely gives it
    /// back, decided without building anything: every span is an emphasis, strong emphasis or
    /// strikethrough at the top level, of non-empty text only, with no whitespace at its edges
    /// (which the exporter moves outside) and no delimiter of its own, no two spans of one kind
    /// follow each other with only breaks or atoms between them, and no two code spans touch
    /// (the exporter would make either pair one); every link is at the top level, of non-empty
    /// text and code spans only, no two code spans touching. Most paragraphs with formats or
    /// links are so; when this says false, ``defaultReproduces(_:leaves:)`` decides.
    ///
    /// - Complexity: O(n) in the content's size.
    static func surelyReproduces(_ content: [MarkupInline]) -> Bool {
        var previousSpan: InlineIntent?
        var previousWasCode = false
        for inline in content {
            if case .code = inline.intent {
                if previousWasCode { return false }
                previousWasCode = true
            } else {
                previousWasCode = false
            }
            switch inline.intent {
            case .text, .code:
                previousSpan = nil
            case .softBreak, .lineBreak, .html, .image, .footnoteReference:
                continue
            case .emphasis, .strong, .strikethrough:
                guard inline.intent != previousSpan, inline.details[MarkupDetails.delimiter] == nil,
                      case .text(let first)? = inline.children.first?.intent, case .text(let last)? = inline.children.last?.intent,
                      first.first != " " && first.first != "\t", last.last != " " && last.last != "\t" else { return false }
                for child in inline.children {
                    guard case .text(let text) = child.intent, !text.isEmpty else { return false }
                }
                previousSpan = inline.intent
            case .link:
                // A link of plain words and code spans (no two touching) comes back as it was:
                // a link's segment stands on its own, and its unmarked children are nested as
                // they are. Most links in documents are so.
                guard !inline.children.isEmpty else { return false }
                var childWasCode = false
                for child in inline.children {
                    switch child.intent {
                    case .text(let text):
                        guard !text.isEmpty else { return false }
                        childWasCode = false
                    case .code:
                        if childWasCode { return false }
                        childWasCode = true
                    default:
                        return false
                    }
                }
                previousSpan = nil
            }
        }
        return true
    }

    /// Whether writing the leaves by their formats alone (what the exporter does for a block
    /// without ``MarkupDetails/spans``) gives `content` back.
    static func defaultReproduces(_ content: [MarkupInline], leaves: [InlineLeaf]) -> Bool {
        let segments = InlineSegment.grouping(leaves) { ($0.content, $0.format, $0.link) }
        let rebuilt = InlineSegment.build(InlineSegment.normalize(InlineSegment.joined(segments)))
        return comparable(rebuilt) == comparable(content)
    }

    /// Inline content reduced to what the spans decide: no ranges, no details but delimiters,
    /// adjacent text joined.
    static func comparable(_ content: [MarkupInline]) -> [MarkupInline] {
        var result: [MarkupInline] = []
        for inline in content {
            var details = JSONObject()
            if let delimiter = inline.details[MarkupDetails.delimiter], inline.intent.isContainer { details[MarkupDetails.delimiter] = delimiter }
            let children = inline.intent.isImage ? [] : comparable(inline.children)
            if case .text(let text) = inline.intent {
                if text.isEmpty { continue }
                if case .text(let previous)? = result.last?.intent {
                    result[result.count - 1] = MarkupInline(.text(previous + text))
                    continue
                }
            }
            result.append(MarkupInline(inline.intent, children: children, details: details))
        }
        return result
    }
}

/// A flat piece of inline content with the marks (bold, italic, strikethrough) around it: what
/// the exporter nests into spans by their formats.
struct InlineSegment {
    enum Content {
        case text(String, code: Bool)
        case soft(JSONObject), hard(JSONObject)
        /// An image, raw HTML or a footnote reference.
        case atom(MarkupInline)
        case link(MarkupInline, [InlineSegment])
    }

    var content: Content
    var marks: TextFormat

    static let marks: TextFormat = [.bold, .italic, .strikethrough]
    static let markOrder: [(TextFormat, InlineIntent)] = [(.bold, .strong), (.italic, .emphasis), (.strikethrough, .strikethrough)]

    init(content: Content, marks: TextFormat) {
        self.content = content
        self.marks = marks
    }

    /// The segments of `leaves` in order, each leaf marked with its formats that spans write;
    /// consecutive leaves in the same link (the same `id`) share one link segment. The exporter
    /// groups its leaves by link node, the span check by link token.
    ///
    /// - Complexity: O(n) in the number of leaves.
    static func grouping<Leaf, LinkID: Equatable>(
        _ leaves: [Leaf], _ parts: (Leaf) -> (inline: MarkupInline, format: TextFormat, link: (id: LinkID, inline: MarkupInline)?)
    ) -> [InlineSegment] {
        var segments: [InlineSegment] = []
        var linkID: LinkID?
        for leaf in leaves {
            let (content, format, link) = parts(leaf)
            let segment = InlineSegment(leaf: content, marks: format.intersection(Self.marks))
            if let link {
                if linkID == link.id, case .link(let inline, var inner)? = segments.last?.content {
                    inner.append(segment)
                    segments[segments.count - 1].content = .link(inline, inner)
                } else {
                    segments.append(InlineSegment(content: .link(link.inline, [segment]), marks: []))
                }
                linkID = link.id
            } else {
                segments.append(segment)
                linkID = nil
            }
        }
        return segments
    }

    /// The segment of one leaf.
    init(leaf: MarkupInline, marks: TextFormat) {
        switch leaf.intent {
        case .text(let text): self.init(content: .text(text, code: false), marks: marks)
        case .code(let text): self.init(content: .text(text, code: true), marks: marks)
        case .softBreak: self.init(content: .soft(leaf.details), marks: [])
        case .lineBreak: self.init(content: .hard(leaf.details), marks: [])
        default: self.init(content: .atom(leaf), marks: [])
        }
    }

    /// Breaks and atoms take the marks around them instead of their own.
    var isTransparent: Bool {
        switch content {
        case .soft, .hard, .atom: true
        default: false
        }
    }

    /// Adjacent text segments with the same marks and code state joined, as adjacent text nodes
    /// of one format are one node.
    static func joined(_ segments: [InlineSegment]) -> [InlineSegment] {
        var result: [InlineSegment] = []
        for segment in segments {
            if case .text(let text, let code) = segment.content, let last = result.last, last.marks == segment.marks,
               case .text(let previous, let previousCode) = last.content, previousCode == code {
                result[result.count - 1].content = .text(previous + text, code: code)
            } else if case .link(let inline, let inner) = segment.content {
                result.append(InlineSegment(content: .link(inline, joined(inner)), marks: segment.marks))
            } else {
                result.append(segment)
            }
        }
        return result
    }

    /// Gives a link the marks all its text shares, gives breaks and atoms the marks shared by
    /// what is open before them and the next text, and moves whitespace at the edge of a span
    /// outside it.
    static func normalize(_ input: [InlineSegment]) -> [InlineSegment] {
        var segments = input.map { segment -> InlineSegment in
            guard case .link(let inline, let inner) = segment.content else { return segment }
            let texts = inner.filter { !$0.isTransparent }
            let shared = texts.isEmpty ? [] : texts.dropFirst().reduce(texts[0].marks) { $0.intersection($1.marks) }
            let children = inner.map { child in
                var copy = child
                copy.marks.subtract(shared)
                return copy
            }
            return InlineSegment(content: .link(inline, children), marks: segment.marks.union(shared))
        }
        var nextMarks: TextFormat = []
        for index in segments.indices.reversed() {
            if segments[index].isTransparent {
                segments[index].marks = nextMarks
            } else {
                nextMarks = segments[index].marks
            }
        }
        var previous: TextFormat = []
        for index in segments.indices {
            if segments[index].isTransparent { segments[index].marks.formIntersection(previous) }
            previous = segments[index].marks
        }
        var result: [InlineSegment] = []
        for (index, segment) in segments.enumerated() {
            guard case .text(let text, let code) = segment.content, !segment.marks.isEmpty else {
                result.append(segment)
                continue
            }
            let before = result.last?.marks ?? []
            let after = index + 1 < segments.count ? segments[index + 1].marks : []
            var body = Substring(text)
            var leading = Substring("")
            var trailing = Substring("")
            if !segment.marks.subtracting(before).isEmpty, !code {
                let count = body.prefix { $0 == " " || $0 == "\t" }.count
                leading = body.prefix(count)
                body = body.dropFirst(count)
            }
            if !segment.marks.subtracting(after).isEmpty, !code {
                let count = body.reversed().prefix { $0 == " " || $0 == "\t" }.count
                trailing = body.suffix(count)
                body = body.dropLast(count)
            }
            if !leading.isEmpty { result.append(InlineSegment(content: .text(String(leading), code: false), marks: segment.marks.intersection(before))) }
            if !body.isEmpty { result.append(InlineSegment(content: .text(String(body), code: code), marks: segment.marks)) }
            if !trailing.isEmpty { result.append(InlineSegment(content: .text(String(trailing), code: false), marks: segment.marks.intersection(after))) }
        }
        return result
    }

    /// The inline of a segment without its marks.
    func bare() -> MarkupInline {
        switch content {
        case .text(let text, let code): MarkupInline(code ? .code(text) : .text(text))
        case .soft(let details): MarkupInline(.softBreak, details: details)
        case .hard(let details): MarkupInline(.lineBreak, details: details)
        case .atom(let inline): inline
        case .link(let inline, let children):
            MarkupInline(inline.intent, children: Self.build(Self.normalize(children)), details: inline.details)
        }
    }

    /// Nests the segments' marks: a mark opens where it starts and closes where it ends; marks
    /// that start together open longest first.
    static func build(_ segments: [InlineSegment]) -> [MarkupInline] {
        var result: [MarkupInline] = []
        var index = 0
        while index < segments.count {
            let marks = segments[index].marks
            guard !marks.isEmpty else {
                result.append(segments[index].bare())
                index += 1
                continue
            }
            // The mark that runs longest from here opens first.
            var best: (format: TextFormat, intent: InlineIntent, end: Int)?
            for (format, intent) in markOrder where marks.contains(format) {
                var end = index
                while end < segments.count, segments[end].marks.contains(format) { end += 1 }
                if best == nil || end > best!.end { best = (format, intent, end) }
            }
            let (format, intent, end) = best!
            let inner = segments[index..<end].map { segment -> InlineSegment in
                var copy = segment
                copy.marks.remove(format)
                return copy
            }
            result.append(MarkupInline(intent, children: build(inner)))
            index = end
        }
        return result
    }
}
