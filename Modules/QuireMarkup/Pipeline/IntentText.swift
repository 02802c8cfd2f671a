import Foundation
import QuireTextStorage

/// A block in a paragraph's nesting path: what it is, which one it is, and its position among
/// its siblings.
public struct BlockIdentity: Hashable, Sendable {
    /// Unique within one `IntentText`, in document order: two paragraphs of the same list item
    /// share the item's identity.
    public var id: Int
    /// What the block is.
    public var intent: BlockIntent
    /// 0-based position among its parent's children (a list item's index, a cell's column).
    public var ordinal: Int
}

/// Block identities for a stage 1 that an app builds itself (the terminal editor reads a live
/// editor's state and storage): the pipeline assigns identities, so an app asks this numbering for
/// them — one per distinct block, numbered in the order first asked for, as the pipeline numbers
/// its own.
public struct BlockIdentities<Block: Hashable> {
    private var numbers: [Block: Int] = [:]

    public init() {}

    /// The identity of `block` (numbered on its first use) with its intent and its position
    /// among its parent's children.
    ///
    /// - Complexity: O(1) on average.
    public mutating func identity(of block: Block, intent: BlockIntent, ordinal: Int) -> BlockIdentity {
        let id = numbers[block] ?? numbers.count
        numbers[block] = id
        return BlockIdentity(id: id, intent: intent, ordinal: ordinal)
    }

    /// An identity that no numbered block has: a paragraph for text outside every block.
    public static var outsideEveryBlock: BlockIdentity { BlockIdentity(id: -1, intent: .paragraph, ordinal: 0) }
}

/// One paragraph of an `IntentText`: its UTF-16 range (ending with its "\n") and its block path,
/// outermost first (a paragraph in a list item in a quote: quote, list, item, paragraph).
public struct IntentParagraph: Hashable, Sendable {
    /// The UTF-16 range, including the paragraph's final "\n".
    public var range: Range<Int>
    /// The blocks around the paragraph, outermost first; the last is the paragraph itself (a
    /// paragraph, heading, code block, cell, thematic break …).
    public var path: [BlockIdentity]

    /// A paragraph.
    public init(range: Range<Int>, path: [BlockIdentity]) {
        self.range = range
        self.path = path
    }

    /// The innermost block.
    public var block: BlockIdentity { path[path.count - 1] }
}

/// Stage 1 of the pipeline: markup as attributed text carrying intents. Inline intents are
/// character attributes (bold, italic, strikethrough, code, link, attachment); block intents
/// are per-paragraph paths of `BlockIdentity`. Every paragraph ends with "\n" (a code block's
/// lines are separated by U+2028, a break inside its one paragraph); an attachment
/// (image) is U+FFFC with an `.attachment` record (source, alt, title).
public struct IntentText: Hashable, Sendable {
    /// The text and its character attributes.
    public var text: AttributedText
    /// The paragraphs in order; their ranges tile the text.
    public var paragraphs: [IntentParagraph]

    /// Intent text.
    public init(text: AttributedText, paragraphs: [IntentParagraph]) {
        self.text = text
        self.paragraphs = paragraphs
    }

    /// The attachment record's keys.
    public enum AttachmentField {
        public static let source = "source"
        public static let alt = "alt"
        public static let title = "title"
        /// The width and height the document sets (a Double each, in points), for a placeholder
        /// sized before the image loads; absent when the document leaves the size to the image.
        public static let width = "width"
        public static let height = "height"
    }

    /// Stage 1: the document as intent text.
    ///
    /// - Complexity: O(n) in the document's size.
    public init(_ document: MarkupDocument) {
        var builder = IntentTextBuilder()
        for (index, block) in document.blocks.enumerated() { builder.block(block, ordinal: index, path: []) }
        self = builder.finish()
    }

    /// Stage 1 for plain text (the flat string a text view shows): one paragraph per "\n", none
    /// with any intent but `.paragraph`, no character attributes. Offsets are the text's UTF-16
    /// offsets.
    ///
    /// - Complexity: O(n).
    public init(plainText: String) {
        // Every paragraph of intent text ends with "\n"; the flat string's last one does not.
        let terminated = plainText + "\n"
        var paragraphs: [IntentParagraph] = []
        var start = 0
        var offset = 0
        for unit in terminated.utf16 {
            offset += 1
            guard unit == 0x0A else { continue }
            let ordinal = paragraphs.count
            paragraphs.append(IntentParagraph(range: start..<offset, path: [BlockIdentity(id: ordinal, intent: .paragraph, ordinal: ordinal)]))
            start = offset
        }
        self.init(text: AttributedText(terminated), paragraphs: paragraphs)
    }

    /// Stage 1 for a text view's storage: the paragraphs of ``init(plainText:)`` with the
    /// storage's character attributes, so that an attachment record on a U+FFFC (an image
    /// plugin's, through its theme) reaches the attachment stage as a markup image's does.
    /// Offsets are the storage's UTF-16 offsets.
    ///
    /// - Complexity: O(n + r) for r attribute runs.
    public init(storage: TextStorage) {
        let plain = IntentText(plainText: storage.string)
        var runs: [(length: Int, attributes: Attributes)] = []
        if storage.length > 0 {
            do {
                runs = try storage.runs(in: NSRange(location: 0, length: storage.length)).map { ($0.range.length, $0.attributes) }
            } catch {
                preconditionFailure("the storage's whole range is in range: \(error)")
            }
        }
        runs.append((1, .empty))  // the final "\n" every paragraph of intent text ends with
        let text: AttributedText
        do { text = try AttributedText(plain.text.string, runs: runs) } catch {
            preconditionFailure("runs cover the storage's text and the final \"\\n\": \(error)")
        }
        self.init(text: text, paragraphs: plain.paragraphs)
    }

    /// The UTF-16 units of the paragraph's text without its final "\n".
    public func string(of paragraph: IntentParagraph) -> String {
        let units = Array(text.string.utf16)
        return String(decoding: units[paragraph.range.lowerBound..<(paragraph.range.upperBound - 1)], as: UTF16.self)
    }
}

extension AttributeKey {
    /// On raw markup shown as its source (raw HTML in markdown): true. Styled muted.
    public static let rawMarkup = AttributeKey("rawMarkup")
}

struct IntentTextBuilder {
    var units: [UInt16] = []
    var runs: [(length: Int, attributes: Attributes)] = []
    var paragraphs: [IntentParagraph] = []
    var nextID = 0

    mutating func identity(_ intent: BlockIntent, ordinal: Int) -> BlockIdentity {
        defer { nextID += 1 }
        return BlockIdentity(id: nextID, intent: intent, ordinal: ordinal)
    }

    mutating func append(_ string: String, _ attributes: Attributes) {
        let before = units.count
        units.append(contentsOf: string.utf16)
        let length = units.count - before
        guard length > 0 else { return }
        if let last = runs.last, last.attributes == attributes {
            runs[runs.count - 1].length += length
        } else {
            runs.append((length, attributes))
        }
    }

    mutating func paragraph(path: [BlockIdentity], _ body: (inout IntentTextBuilder) -> Void) {
        let start = units.count
        body(&self)
        append("\n", .empty)
        paragraphs.append(IntentParagraph(range: start..<units.count, path: path))
    }

    mutating func block(_ block: MarkupBlock, ordinal: Int, path: [BlockIdentity]) {
        let me = identity(block.intent, ordinal: ordinal)
        let path = path + [me]
        switch block.intent {
        case .paragraph, .heading, .tableCell:
            paragraph(path: path) { $0.inlines(block.inlines, .empty) }
        case .codeBlock, .htmlBlock:
            var literal = Substring(block.literal)
            if literal.hasSuffix("\n") { literal = literal.dropLast() }
            // The literal's line ends are breaks inside the one paragraph (U+2028), as the
            // layout breaks lines only there: a "\n" would end the paragraph.
            let lines = String(String.UnicodeScalarView(literal.unicodeScalars.map { $0 == "\n" ? "\u{2028}" : $0 }))
            paragraph(path: path) { $0.append(lines, block.intent == .htmlBlock ? [.rawMarkup: true] : [.code: true]) }
        case .thematicBreak:
            paragraph(path: path) { _ in }
        case .blockQuote, .list, .listItem, .table, .tableRow, .footnoteDefinition:
            if block.children.isEmpty {
                paragraph(path: path) { _ in }
            }
            for (index, child) in block.children.enumerated() { self.block(child, ordinal: index, path: path) }
        }
    }

    mutating func inlines(_ content: [MarkupInline], _ attributes: Attributes) {
        for inline in content {
            switch inline.intent {
            case .text(let text): append(text, attributes)
            case .html(let text): append(text, attributes.merging([.rawMarkup: true]))
            case .footnoteReference(let label): append("[^" + label + "]", attributes.merging([.link: .string("#fn-" + label)]))
            case .code(let text): append(text, attributes.merging([.code: true]))
            case .softBreak: append(" ", attributes)
            case .lineBreak: append("\u{2028}", attributes)
            case .emphasis: inlines(inline.children, attributes.merging([.italic: true]))
            case .strong: inlines(inline.children, attributes.merging([.bold: true]))
            case .strikethrough: inlines(inline.children, attributes.merging([.strikethrough: true]))
            case .link(let destination, _): inlines(inline.children, attributes.merging([.link: .string(destination)]))
            case .image(let source, let title):
                var record: [String: AttributeValue] = [
                    IntentText.AttachmentField.source: .string(source),
                    IntentText.AttachmentField.alt: .string(inline.children.map(\.plainText).joined()),
                ]
                if let title { record[IntentText.AttachmentField.title] = .string(title) }
                append("\u{FFFC}", attributes.merging([.attachment: .record(record)]))
            }
        }
    }

    func finish() -> IntentText {
        let string = String(decoding: units, as: UTF16.self)
        let text: AttributedText
        do { text = try AttributedText(string, runs: runs) } catch {
            preconditionFailure("runs are built from the same units: \(error)")
        }
        return IntentText(text: text, paragraphs: paragraphs)
    }
}
