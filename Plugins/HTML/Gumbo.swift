import CGumbo
import QuireMarkup

/// Debian's gumbo (Google's HTML5 parser), wrapped: parses a document the way a browser's HTML5
/// tree builder does (implied end tags, misnested formatting, foster-parented table content,
/// character references) into an `HTMLTree`.
///
/// Gumbo's open-element checks walk its stack, so its time grows with the square of the
/// nesting depth, and it frees its tree recursively. `parse` therefore first runs
/// `NestingGuard` over the source (linear), and refuses a document that would nest elements
/// deeper than the limit — the same order of limit as Blink's 512-level DOM depth — with a
/// typed error naming the place, instead of parsing it.
public enum Gumbo {
    /// Tag names by `GumboTag`, from gumbo's own table.
    static let tagNames: [String] = (0..<Int(GUMBO_TAG_LAST.rawValue)).map { raw in
        String(cString: gumbo_normalized_tagname(GumboTag(rawValue: UInt32(raw))))
    }

    /// Parses `source` into an `HTMLTree` whose root holds the `html` element.
    ///
    /// - Parameter maximumNesting: the deepest element nesting accepted (open elements and
    ///   unclosed formatting elements, as `NestingGuard` estimates them).
    /// - Throws: `MarkupError.cannotImport` for nesting past the limit, with its line and
    ///   column; `MarkupError.parserFailure` when gumbo returns nothing.
    /// - Complexity: O(n · d) for n bytes nested at most d ≤ `maximumNesting` deep (gumbo's
    ///   scope checks), O(n) for the conversion.
    public static func parse(_ source: String, maximumNesting: Int = NestingGuard.defaultLimit) throws(MarkupError) -> HTMLTree {
        var copy = source
        var result: Result<HTMLTree, MarkupError> = .failure(.parserFailure("not parsed"))
        copy.withUTF8 { bytes in
            result = Result { () throws(MarkupError) -> HTMLTree in
                try NestingGuard(limit: maximumNesting).check(bytes)
                return try parseUnchecked(bytes)
            }
        }
        return try result.get()
    }

    /// Parses `source` with gumbo alone (no guard, no conversion) and counts the nodes of its
    /// tree: the baseline the HTML benchmark measures the import against.
    ///
    /// - Complexity: gumbo's: up to O(n · d) for nesting depth d.
    public static func countNodes(parsing source: String) throws(MarkupError) -> Int {
        var copy = source
        var result: Result<Int, MarkupError> = .failure(.parserFailure("not parsed"))
        copy.withUTF8 { bytes in
            result = Result { () throws(MarkupError) -> Int in
                var options = kGumboDefaultOptions
                options.max_errors = 0
                let output = bytes.withMemoryRebound(to: CChar.self) { gumbo_parse_with_options(&options, $0.baseAddress, $0.count) }
                guard let output else { throw .parserFailure("gumbo_parse_with_options returned NULL") }
                defer { gumbo_destroy_output(&options, output) }
                var count = 0
                var pending: [UnsafeMutablePointer<GumboNode>] = []
                if let root = output.pointee.root { pending.append(root) }
                while let node = pending.popLast() {
                    count += 1
                    guard node.pointee.type == GUMBO_NODE_ELEMENT || node.pointee.type == GUMBO_NODE_TEMPLATE else { continue }
                    let children = node.pointee.v.element.children
                    for index in 0..<Int(children.length) { pending.append(children.data[index]!.assumingMemoryBound(to: GumboNode.self)) }
                }
                return count
            }
        }
        return try result.get()
    }

    /// Gumbo alone, without the guard.
    static func parseUnchecked(_ bytes: UnsafeBufferPointer<UInt8>) throws(MarkupError) -> HTMLTree {
        var options = kGumboDefaultOptions
        // Parse errors are not reported (the tree is what a browser builds either way), so gumbo
        // need not collect them.
        options.max_errors = 0
        let output = bytes.withMemoryRebound(to: CChar.self) { chars in
            gumbo_parse_with_options(&options, chars.baseAddress, chars.count)
        }
        guard let output else { throw .parserFailure("gumbo_parse_with_options returned NULL") }
        defer { gumbo_destroy_output(&options, output) }
        var builder = HTMLTreeBuilder()
        convert(output.pointee.root, into: &builder)
        return builder.finish()
    }

    /// Walks gumbo's tree with an explicit stack (no recursion) into `builder`.
    static func convert(_ root: UnsafeMutablePointer<GumboNode>, into builder: inout HTMLTreeBuilder) {
        var stack: [(node: UnsafeMutablePointer<GumboNode>, next: Int)] = []
        func enter(_ node: UnsafeMutablePointer<GumboNode>, _ builder: inout HTMLTreeBuilder) -> Bool {
            switch node.pointee.type {
            case GUMBO_NODE_ELEMENT, GUMBO_NODE_TEMPLATE:
                let element = node.pointee.v.element
                builder.openElement(tagName(element), attributes: attributes(element.attributes))
                return true
            case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE, GUMBO_NODE_CDATA:
                builder.appendText(String(cString: node.pointee.v.text.text))
                return false
            default:
                return false
            }
        }
        if enter(root, &builder) { stack.append((root, 0)) }
        while let (node, next) = stack.last {
            let children = node.pointee.v.element.children
            guard next < Int(children.length) else {
                stack.removeLast()
                builder.closeElement()
                continue
            }
            stack[stack.count - 1].next = next + 1
            let child = children.data[next]!.assumingMemoryBound(to: GumboNode.self)
            if enter(child, &builder) { stack.append((child, 0)) }
        }
    }

    static func tagName(_ element: GumboElement) -> String {
        if element.tag != GUMBO_TAG_UNKNOWN, Int(element.tag.rawValue) < tagNames.count { return tagNames[Int(element.tag.rawValue)] }
        var piece = element.original_tag
        gumbo_tag_from_original_text(&piece)
        guard let data = piece.data, piece.length > 0 else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: piece.length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: piece.length), as: UTF8.self).lowercased()
        }
    }

    static func attributes(_ vector: GumboVector) -> [HTMLAttribute] {
        guard vector.length > 0 else { return [] }
        var result: [HTMLAttribute] = []
        result.reserveCapacity(Int(vector.length))
        for index in 0..<Int(vector.length) {
            let attribute = vector.data[index]!.assumingMemoryBound(to: GumboAttribute.self).pointee
            result.append(HTMLAttribute(String(cString: attribute.name), String(cString: attribute.value)))
        }
        return result
    }
}

/// A linear pre-pass over HTML source that estimates how deeply a browser's tree builder will
/// nest it: start tags push, end tags pop to their element, void and self-closing elements and
/// the usual implied end tags (`p` before a block, `li`, `dt`/`dd`, table parts, `option`,
/// headings) are accounted for, raw text (`script`, `style`, `textarea`, `title`) and comments
/// are skipped; unclosed formatting elements (`b`, `font`, `a` …, which HTML5 reopens in every
/// later block, three of a kind at most) are counted too.
///
/// It exists because gumbo's time is quadratic in nesting depth; documents a browser renders
/// stay far below the limit.
public struct NestingGuard: Sendable {
    /// The default limit.
    public static let defaultLimit = 512
    /// The deepest nesting accepted.
    public let limit: Int

    /// A guard with `limit`.
    public init(limit: Int = defaultLimit) { self.limit = max(1, limit) }

    static let voidTags: Set<String> = [
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img", "input", "keygen",
        "link", "meta", "param", "source", "track", "wbr",
    ]
    static let rawTextTags: Set<String> = ["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"]
    static let closesParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset", "figcaption",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "dd", "dt", "listing",
        "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "search", "plaintext", "xmp",
    ]
    static let formattingTags: Set<String> = ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"]
    static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]

    /// What the guard needs to know about a tag, looked up once per tag.
    struct TagKind: OptionSet {
        let rawValue: UInt8
        static let void = TagKind(rawValue: 1)
        static let rawText = TagKind(rawValue: 2)
        static let closesParagraph = TagKind(rawValue: 4)
        static let formatting = TagKind(rawValue: 8)
        static let heading = TagKind(rawValue: 16)
    }

    /// Tags the guard's rules name, by number: the open-element stack holds numbers, so its
    /// searches compare integers. Other tags are numbered per document from `named.count` up.
    static let named: [String] = Array(voidTags.union(rawTextTags).union(closesParagraph).union(formattingTags).union(headings)
        .union(["button", "table", "td", "th", "ul", "ol", "menu", "dl", "tr", "select", "tbody", "thead", "tfoot", "option", "optgroup", "plaintext"]))
        .sorted()
    static let numbers: [String: Int] = Dictionary(uniqueKeysWithValues: named.enumerated().map { ($1, $0) })
    static let kinds: [TagKind] = named.map { tag in
        var kind: TagKind = []
        if voidTags.contains(tag) { kind.insert(.void) }
        if rawTextTags.contains(tag) { kind.insert(.rawText) }
        if closesParagraph.contains(tag) { kind.insert(.closesParagraph) }
        if formattingTags.contains(tag) { kind.insert(.formatting) }
        if headings.contains(tag) { kind.insert(.heading) }
        return kind
    }

    static func number(_ tag: String) -> Int { numbers[tag]! }

    static let p = number("p"), li = number("li"), dt = number("dt"), dd = number("dd"), tr = number("tr"), td = number("td")
    static let th = number("th"), option = number("option"), optgroup = number("optgroup"), anchor = number("a")
    static let plaintext = number("plaintext")
    static let tableParts = ["tbody", "thead", "tfoot"].map(number)
    /// The elements an implied end tag does not look past.
    static let paragraphScope = ["button", "table", "td", "th"].map(number)
    static let listScope = ["ul", "ol", "menu"].map(number)
    static let definitionScope = [number("dl")]
    static let tableScope = [number("table")]
    static let rowScope = ["tr", "table"].map(number)
    static let selectScope = [number("select")]

    /// Throws when `bytes` nest deeper than the limit.
    ///
    /// - Throws: `MarkupError.cannotImport` naming the line, column and byte offset of the
    ///   start tag that went past the limit.
    /// - Complexity: O(n · d) for n bytes and d ≤ limit open elements (end tags look for their
    ///   element among the open ones).
    public func check(_ bytes: UnsafeBufferPointer<UInt8>) throws(MarkupError) {
        var open: [Int] = []
        var formatting: [(tag: Int, attributes: Substring)] = []
        var others: [String: Int] = [:]
        let count = bytes.count
        var index = 0

        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x3A
        }
        func skip(past terminator: [UInt8], from start: Int) -> Int {
            var position = start
            while position + terminator.count <= count {
                if bytes[position] == terminator[0] {
                    var matches = true
                    for (offset, byte) in terminator.enumerated() where lower(bytes[position + offset]) != byte {
                        matches = false
                        break
                    }
                    if matches { return position + terminator.count }
                }
                position += 1
            }
            return count
        }
        func popTo(_ tag: Int, stoppingAt boundaries: [Int] = []) {
            guard let found = open.lastIndex(of: tag) else { return }
            if !boundaries.isEmpty, let boundary = open.lastIndex(where: { boundaries.contains($0) }), boundary > found { return }
            open.removeSubrange(found...)
        }
        func isHeading(_ tag: Int) -> Bool { tag < Self.kinds.count && Self.kinds[tag].contains(.heading) }

        while index < count {
            guard bytes[index] == 0x3C, index + 1 < count else {
                index += 1
                continue
            }
            let tagStart = index
            let next = bytes[index + 1]
            if next == 0x21 {
                index = (index + 3 < count && bytes[index + 2] == 0x2D && bytes[index + 3] == 0x2D)
                    ? skip(past: Array("-->".utf8), from: index + 4) : skip(past: [0x3E], from: index + 2)
                continue
            }
            if next == 0x3F {
                index = skip(past: [0x3E], from: index + 2)
                continue
            }
            let isEnd = next == 0x2F
            var position = index + (isEnd ? 2 : 1)
            guard position < count, (bytes[position] >= 0x61 && bytes[position] <= 0x7A) || (bytes[position] >= 0x41 && bytes[position] <= 0x5A) else {
                index += 1
                continue
            }
            let nameStart = position
            var hasUpper = false
            while position < count, isNameByte(bytes[position]) {
                if bytes[position] >= 0x41 && bytes[position] <= 0x5A { hasUpper = true }
                position += 1
            }
            let rawName = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<position]), as: UTF8.self)
            let name = hasUpper ? rawName.lowercased() : rawName
            let tag: Int
            if let known = Self.numbers[name] {
                tag = known
            } else if let other = others[name] {
                tag = other
            } else {
                tag = Self.named.count + others.count
                others[name] = tag
            }
            let kind = tag < Self.kinds.count ? Self.kinds[tag] : []
            // The rest of the tag, minding quoted attribute values.
            let attributesStart = position
            var quote: UInt8 = 0
            while position < count {
                let byte = bytes[position]
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == 0x22 || byte == 0x27 {
                    quote = byte
                } else if byte == 0x3E {
                    break
                }
                position += 1
            }
            let selfClosing = position > attributesStart && bytes[position - 1] == 0x2F
            index = min(count, position + 1)
            if isEnd {
                if !kind.contains(.heading) {
                    popTo(tag)
                } else if let heading = open.lastIndex(where: isHeading) {
                    open.removeSubrange(heading...)
                }
                if kind.contains(.formatting), let last = formatting.lastIndex(where: { $0.tag == tag }) {
                    formatting.remove(at: last)
                }
                continue
            }
            if kind.contains(.void) || (selfClosing && !kind.contains(.closesParagraph)) { continue }
            if kind.contains(.rawText) {
                index = skip(past: Array("</\(name)".utf8), from: index)
                continue
            }
            if tag == Self.plaintext { return }
            if kind.contains(.closesParagraph) { popTo(Self.p, stoppingAt: Self.paragraphScope) }
            switch tag {
            case Self.li: popTo(Self.li, stoppingAt: Self.listScope)
            case Self.dt, Self.dd:
                popTo(Self.dt, stoppingAt: Self.definitionScope)
                popTo(Self.dd, stoppingAt: Self.definitionScope)
            case Self.tr: popTo(Self.tr, stoppingAt: Self.tableScope)
            case Self.td, Self.th:
                popTo(Self.td, stoppingAt: Self.rowScope)
                popTo(Self.th, stoppingAt: Self.rowScope)
            case _ where Self.tableParts.contains(tag):
                for part in Self.tableParts { popTo(part, stoppingAt: Self.tableScope) }
            case Self.option: popTo(Self.option, stoppingAt: Self.selectScope)
            case Self.optgroup:
                popTo(Self.option, stoppingAt: Self.selectScope)
                popTo(Self.optgroup, stoppingAt: Self.selectScope)
            case _ where kind.contains(.heading):
                if let last = open.last, isHeading(last) { open.removeLast() }
            case Self.anchor:
                if let last = formatting.lastIndex(where: { $0.tag == Self.anchor }) {
                    formatting.remove(at: last)
                    popTo(Self.anchor)
                }
            default: break
            }
            if kind.contains(.formatting) {
                // HTML5's "Noah's Ark": at most three identical entries are remembered.
                let attributes = String(decoding: UnsafeBufferPointer(rebasing: bytes[attributesStart..<position]), as: UTF8.self)[...]
                let identical = formatting.indices.filter { formatting[$0].tag == tag && formatting[$0].attributes == attributes }
                if identical.count >= 3 { formatting.remove(at: identical[0]) }
                formatting.append((tag, attributes))
            }
            open.append(tag)
            if open.count > limit || formatting.count > limit {
                throw .cannotImport(intent: "HTML", reason: "elements nest deeper than \(limit) levels", range: Self.range(at: tagStart, in: bytes))
            }
        }
    }

    /// The source range of the byte at `offset`.
    static func range(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourceRange {
        var line = 1
        var lineStart = 0
        for position in 0..<offset where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        let position = SourcePosition(line: line, column: offset - lineStart + 1, byteOffset: offset)
        return SourceRange(start: position, end: position)
    }
}
