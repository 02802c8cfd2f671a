import QuireModel

/// Writes an `EditorState` as clean semantic HTML through the node types' HTML conversions:
/// one element per node (`p`, `h2`, `ul`/`li`, `pre`/`code`, `table`, `a`, `img` …), text
/// formats as `strong`, `em`, `u`, `s`, `sub`, `sup`, `mark` and `code`, no classes or styles
/// beyond what a node needs to come back (a task item's checkbox, an alignment, whitespace that
/// a browser would collapse). What it writes imports back into the same document, so that a
/// document that went through HTML once is a fixpoint.
public struct HTMLExporter: Sendable {
    /// The conversions used.
    public let conversions: HTMLConversions

    /// An exporter with `conversions`.
    public init(conversions: HTMLConversions) { self.conversions = conversions }

    /// The document's content: its blocks, one per line, as a fragment to put in a `body`.
    ///
    /// - Complexity: O(n) in the number of nodes plus the text length.
    public func html(_ state: EditorState) throws(MarkupError) -> String {
        try htmlReportingLosses(state).html
    }

    /// The document's content, and what of it HTML as written here cannot represent, with the
    /// nodes' JSON paths: block quotes nested around a block (written one level deep) and nodes
    /// no conversion covers (their content written as text in a `div` or `span`).
    ///
    /// - Complexity: O(n) in the number of nodes plus the text length.
    public func htmlReportingLosses(_ state: EditorState) throws(MarkupError) -> (html: String, losses: [MarkupLoss]) {
        var writer = HTMLWriter(state: state, conversions: conversions)
        try writer.writeChildren(of: state.root)
        return (writer.output, writer.losses)
    }

    /// A whole HTML document holding the content, titled `title`.
    public func document(_ state: EditorState, title: String) throws(MarkupError) -> String {
        try documentReportingLosses(state, title: title).html
    }

    /// A whole HTML document holding the content, titled `title`, and its losses
    /// (`htmlReportingLosses(_:)`).
    public func documentReportingLosses(_ state: EditorState, title: String) throws(MarkupError) -> (html: String, losses: [MarkupLoss]) {
        let (body, losses) = try htmlReportingLosses(state)
        let page = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>\(HTMLWriter.escape(title, quotes: false))</title>\n</head>\n<body>\n"
            + body + "</body>\n</html>\n"
        return (page, losses)
    }
}

/// What a conversion writes a node with: elements, text and the node's children, escaped and
/// laid out one block per line (inline content stays on its line).
public struct HTMLWriter {
    /// The state whose nodes are written.
    public let state: EditorState
    let conversions: HTMLConversions
    /// The HTML written so far.
    public private(set) var output = ""
    /// What could not be represented so far (see `HTMLExporter.htmlReportingLosses(_:)`).
    public private(set) var losses: [MarkupLoss] = []
    private var open: [String] = []
    private var preformatted = 0
    /// At the start of a rendered line: a leading space would be dropped by a browser.
    private var lineStart = true
    /// The last text written ends with a space a browser collapses the next one into.
    private var afterSpace = false

    init(state: EditorState, conversions: HTMLConversions) {
        self.state = state
        self.conversions = conversions
    }

    /// Elements that start a new line in the output and in a browser.
    static let blockTags: Set<String> = [
        "address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]
    /// Elements whose content is blocks: a line break follows their start tag too.
    static let containerTags: Set<String> = ["ol", "table", "tbody", "tfoot", "thead", "tr", "ul"]
    /// Elements without content or end tag.
    static let voidTags: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]

    /// `text` with `&`, `<`, `>` (and `"` when `quotes`) as character references.
    ///
    /// - Complexity: O(n).
    public static func escape(_ text: String, quotes: Bool) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || (quotes && $0 == 0x22) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    private mutating func startTag(_ tag: String, _ attributes: [HTMLAttribute]) {
        output += "<" + tag
        for attribute in attributes {
            output += " " + attribute.name
            if !attribute.value.isEmpty || !["checked", "disabled"].contains(attribute.name) {
                output += "=\"" + Self.escape(attribute.value, quotes: true) + "\""
            }
        }
        output += ">"
    }

    /// Writes a start tag; `node`'s alignment (`text-align`) and direction (`dir`) are added
    /// when it has them. `pre` makes the content preformatted until it closes.
    public mutating func openElement(_ tag: String, attributes: [HTMLAttribute] = [], for node: Node? = nil) {
        var attributes = attributes
        if let node, node.role.isElement {
            if let direction = node.direction { attributes.append(HTMLAttribute("dir", direction.rawValue)) }
            if node.alignment != .none {
                if let index = attributes.firstIndex(where: { $0.name == "style" }) {
                    attributes[index].value += "; text-align: \(node.alignment.rawValue)"
                } else {
                    attributes.append(HTMLAttribute("style", "text-align: \(node.alignment.rawValue)"))
                }
            }
        }
        startTag(tag, attributes)
        open.append(tag)
        if tag == "pre" { preformatted += 1 }
        if Self.blockTags.contains(tag) {
            lineStart = true
            afterSpace = false
        }
        if preformatted == 0 && Self.containerTags.contains(tag) { output += "\n" }
    }

    /// Writes the end tag of the innermost open element.
    public mutating func closeElement() {
        guard let tag = open.popLast() else { return }
        output += "</" + tag + ">"
        if tag == "pre" { preformatted -= 1 }
        if Self.blockTags.contains(tag) {
            if preformatted == 0 { output += "\n" }
            lineStart = true
            afterSpace = false
        }
    }

    /// Writes an element without content (`img`, `hr`, `input`).
    public mutating func voidElement(_ tag: String, attributes: [HTMLAttribute] = []) {
        startTag(tag, attributes)
        if tag == "br" || Self.blockTags.contains(tag) {
            lineStart = true
            afterSpace = false
        } else {
            lineStart = false
            afterSpace = false
        }
        if tag == "hr" && preformatted == 0 { output += "\n" }
    }

    /// Writes text as it is (escaped): for preformatted content such as a code block's lines.
    public mutating func writeText(_ text: String) {
        output += Self.escape(text, quotes: false)
        if !text.isEmpty {
            lineStart = false
            afterSpace = false
        }
    }

    /// Writes a node: text with its formats, a line break, or an element through its type's
    /// conversion. A node no conversion covers keeps its content: a block as a `div`, an inline
    /// element as a `span`, text as text; a decorator without one is left out.
    public mutating func write(_ node: Node, isLineEnd: Bool = false) throws(MarkupError) {
        switch node.role {
        case .text:
            writeTextNode(node, isLineEnd: isLineEnd)
        case .lineBreak:
            voidElement("br")
        case .root:
            try writeChildren(of: node)
        case .element, .decorator:
            let conversion = node.isUnknown ? nil : conversions.conversion(for: node.type)
            if let quotes = node.fields[MarkupDetails.field]?.objectValue?[MarkupDetails.quotes]?.stringValue {
                let own = conversion?.importedTags.contains("blockquote") == true ? 1 : 0
                if quotes.count > max(own, 1) {
                    losses.append(MarkupLoss("\(quotes.count) nested block quotes are written as one", at: state.jsonPath(of: node.key)))
                } else if quotes.count > own {
                    // A block inside a quote that a quote node cannot hold (a list, a table).
                    losses.append(MarkupLoss("the block quote around a \"\(node.type.rawValue)\" is not written", at: state.jsonPath(of: node.key)))
                }
            }
            if let conversion {
                try conversion.export(node, to: &self)
            } else if node.role.isElement {
                losses.append(MarkupLoss("a \"\(node.type.rawValue)\" node has no HTML conversion; its content is written as text", at: state.jsonPath(of: node.key)))
                openElement(node.role.isInline ? "span" : "div", for: node)
                try writeChildren(of: node)
                closeElement()
            }
        }
    }

    /// Writes the children of `node` in order. A last child that is a line break is written
    /// twice: a browser ignores a block's final `br`.
    public mutating func writeChildren(of node: Node) throws(MarkupError) {
        var current = node.firstChild.flatMap { state[$0] }
        while let child = current {
            let next = child.nextSibling.flatMap { state[$0] }
            let isLineEnd = next.map { $0.role == .lineBreak || !$0.role.isInline } ?? true
            try write(child, isLineEnd: isLineEnd)
            if child.role == .lineBreak && next == nil && preformatted == 0 { voidElement("br") }
            current = next
        }
    }

    /// The formats as elements, outermost first (code innermost, as it is usually nested).
    static let formatTags: [(TextFormat, String)] = [
        (.bold, "strong"), (.italic, "em"), (.underline, "u"), (.strikethrough, "s"),
        (.subscript, "sub"), (.superscript, "sup"), (.highlight, "mark"), (.code, "code"),
    ]
    static let transforms: [(TextFormat, String)] = [(.uppercase, "uppercase"), (.lowercase, "lowercase"), (.capitalize, "capitalize")]

    private mutating func writeTextNode(_ node: Node, isLineEnd: Bool) {
        let text = node.text
        guard !text.isEmpty else { return }
        if preformatted > 0 {
            writeText(text)
            return
        }
        let format = node.textFormat
        // Whitespace a browser would collapse or drop is kept by `white-space: pre-wrap`.
        let preserve = text.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0C }
            || text.contains("  ") || (text.first == " " && (lineStart || afterSpace)) || (text.last == " " && isLineEnd)
        var depth = 0
        for (bit, tag) in Self.formatTags where format.contains(bit) {
            startTag(tag, [])
            open.append(tag)
            depth += 1
        }
        var styles: [String] = []
        for (bit, value) in Self.transforms where format.contains(bit) { styles.append("text-transform: \(value)") }
        if preserve { styles.append("white-space: pre-wrap") }
        if !styles.isEmpty {
            startTag("span", [HTMLAttribute("style", styles.joined(separator: "; "))])
            open.append("span")
            depth += 1
        }
        output += Self.escape(text, quotes: false)
        for _ in 0..<depth { output += "</" + open.removeLast() + ">" }
        lineStart = false
        afterSpace = !preserve && text.last == " "
    }
}
