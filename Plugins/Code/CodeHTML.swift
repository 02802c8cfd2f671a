import QuireMarkup
import QuireModel

/// The code block's HTML conversion: `pre` (and a `code` element spanning lines outside `pre`,
/// as Lexical reads it) ↔ `code`, its language from `class="language-…"` (or `lang-…`) on the
/// `pre` or its `code`, or from `data-language`. The text is read preformatted, inline markup
/// for its text only; it is written as `<pre><code class="language-…">`, lines ending in "\n".
public struct CodeHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { CodeNodePlugin.type }
    public var importedTags: [String] { ["pre", "code"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        if element.tag == "code" {
            // Inline code is a text format; only code spanning lines outside `pre` is a block.
            guard !context.isPreformatted, element.textContent.contains("\n") || element.firstDescendant(where: { $0.tag == "br" }) != nil else { return nil }
        }
        let language = Self.language(of: element)
            ?? element.childElements.first { $0.tag == "code" }.flatMap(Self.language(of:))
        return .node(nodeType, fields: ["language": language.map(JSONValue.string) ?? .null], content: .literal)
    }

    /// The language an element names: `data-language`, or a `language-…`/`lang-…` class.
    static func language(of element: HTMLElement) -> String? {
        if let language = element.attribute("data-language"), !language.isEmpty { return language }
        for name in element.classNames {
            for prefix in ["language-", "lang-"] where name.hasPrefix(prefix) && name.count > prefix.count {
                return String(name.dropFirst(prefix.count))
            }
        }
        return nil
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("pre", for: node)
        let language = node.fields["language"]?.stringValue ?? ""
        writer.openElement("code", attributes: language.isEmpty ? [] : [HTMLAttribute("class", "language-" + language)])
        var text = ""
        for child in writer.state.children(of: node.key) {
            switch child.role {
            case .lineBreak: text += "\n"
            case .text: text += child.text
            default: text += FlatString.render(child.key, in: writer.state)
            }
        }
        if node.childCount > 0 { text += "\n" }
        writer.writeText(text)
        writer.closeElement()
        writer.closeElement()
    }
}
