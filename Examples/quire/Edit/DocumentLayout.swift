import Foundation
import QuireEditor
import QuireLink
import QuireMarkup
import QuireModel
import QuireSelection
import QuireStyle
import QuireTextStorage

/// The editor's text storage laid out through the markup pipeline for a terminal: the storage's
/// string is the intent text (so layout offsets are the flat string's UTF-16 offsets and the
/// caret maps directly), its paragraphs carry the block paths of the editor state's blocks
/// (headings, list items with their markers, quotes, code, table cells), and its character
/// attributes are the theme's format attributes as markup intents.
struct DocumentLayout {
    let built: BuiltText
    let layout: TextLayout

    /// Lays out `editor`'s storage at `width` cells, images as `attachments` knows them; loads
    /// of the images it does not know yet start, and `attachments`' callback says when each ends.
    ///
    /// - Complexity: O(n) in the document (a terminal view lays the whole text out per change).
    init(editor: Editor, mappings: MarkupMappings, width: Int, attachments: LiveAttachments, loaded: @escaping @Sendable () -> Void) {
        let intent = Self.intentText(editor: editor, mappings: mappings)
        attachments.request(in: intent) { _, _ in loaded() }
        let styled = StyleEnvironment().apply(to: intent, attachments: attachments.results)
        // The editor draws one row per line of the flat string: no block spacing.
        built = RunBuilder(metrics: TerminalMetrics(), blockStyles: .compact).build(styled, proposal: Double(width))
        layout = TextLayout(built, width: Double(width), metrics: TerminalMetrics())
    }

    /// The storage's text (with a final "\n") as intent text. A "\n" that does not start a block
    /// (a line break, a line of a code block) becomes U+2028, the layout's break inside a
    /// paragraph, which keeps every offset.
    static func intentText(editor: Editor, mappings: MarkupMappings) -> IntentText {
        let state = editor.state
        let storage = editor.storage
        var units = Array((storage?.string ?? FlatString.render(state)).utf16)
        // Where each text block starts in the flat string, and its block path.
        var identities = BlockIdentities<NodeKey>()
        // Each parent's children are numbered once (asking every child for its index would scan
        // its siblings each time: quadratic in a long document).
        var ordinals: [NodeKey: Int] = [:]
        var numbered: Set<NodeKey> = []
        func ordinal(_ key: NodeKey, parent: NodeKey?) -> Int {
            if let parent, numbered.insert(parent).inserted {
                for (index, child) in state.children(of: parent).enumerated() { ordinals[child.key] = index }
            }
            return ordinals[key] ?? 0
        }
        func identity(_ key: NodeKey, _ node: Node) -> BlockIdentity {
            var intent = BlockIntent.paragraph
            if case .block(let mapped)? = mappings.mapping(for: node.type)?.intent(of: node) { intent = mapped }
            return identities.identity(of: key, intent: intent, ordinal: ordinal(key, parent: node.parent))
        }
        func path(of key: NodeKey) -> [BlockIdentity] {
            (state.ancestors(of: key).reversed() + [key]).compactMap { ancestor in
                guard ancestor != .root, let node = state[ancestor] else { return nil }
                return identity(ancestor, node)
            }
        }
        var starts: [Int: [BlockIdentity]] = [:]
        for block in state.textBlocks() {
            guard let location = try? SelectionMapper.location(of: SelectionMapper.start(of: block, in: state), in: state, index: editor.reconciler.index)
            else { continue }
            starts[location] = path(of: block)
        }
        var paragraphs: [IntentParagraph] = []
        var paragraphStart = 0
        var currentPath: [BlockIdentity] = starts[0] ?? [BlockIdentities<NodeKey>.outsideEveryBlock]
        units.append(0x0A)
        for index in units.indices where units[index] == 0x0A {
            let next = index + 1
            if next < units.count, starts[next] == nil, let decorator = decoratorPath(at: next, editor: editor, path: path) {
                paragraphs.append(IntentParagraph(range: paragraphStart..<next, path: currentPath))
                paragraphStart = next
                currentPath = decorator
            } else if next < units.count, let path = starts[next] {
                paragraphs.append(IntentParagraph(range: paragraphStart..<next, path: currentPath))
                paragraphStart = next
                currentPath = path
            } else if next < units.count {
                units[index] = 0x2028
            } else {
                paragraphs.append(IntentParagraph(range: paragraphStart..<next, path: currentPath))
            }
        }
        // A tab is a control character the layout gives no width, but a terminal would jump to
        // its next tab stop: draw it as one cell, the column rule between a table row's cells
        // (the flat string separates cells with tabs) and a space elsewhere.
        for paragraph in paragraphs {
            let inTable = paragraph.path.contains { if case .tableCell = $0.intent { true } else { false } }
            for index in paragraph.range where units[index] == 0x09 { units[index] = inTable ? 0x2502 : 0x20 }
        }
        var runs: [(length: Int, attributes: Attributes)] = []
        if let storage, storage.length > 0, let storageRuns = try? storage.runs(in: NSRange(location: 0, length: storage.length)) {
            runs = storageRuns.map { ($0.range.length, markupAttributes($0.attributes)) }
        }
        runs.append((units.count - runs.reduce(0) { $0 + $1.length }, .empty))
        let text = (try? AttributedText(String(decoding: units, as: UTF16.self), runs: runs)) ?? AttributedText(String(decoding: units, as: UTF16.self))
        return IntentText(text: text, paragraphs: paragraphs)
    }

    /// The path of a block-level decorator (a horizontal rule) that starts at `location`.
    private static func decoratorPath(at location: Int, editor: Editor, path: (NodeKey) -> [BlockIdentity]) -> [BlockIdentity]? {
        let state = editor.state
        guard let point = try? SelectionMapper.point(at: location, in: state, index: editor.reconciler.index), point.kind == .element else { return nil }
        let children = Array(state.children(of: point.key))
        guard point.offset < children.count, children[point.offset].role == .decorator(inline: false) else { return nil }
        return path(children[point.offset].key)
    }

    /// The theme's format attributes as the markup pipeline's inline intents; underline (which
    /// markup has no intent for) is kept under its theme key for drawing.
    static func markupAttributes(_ attributes: Attributes) -> Attributes {
        var result: [AttributeKey: AttributeValue] = [:]
        let pairs: [(AttributeKey, AttributeKey)] = [
            (Theme.Keys.bold, .bold), (Theme.Keys.italic, .italic), (Theme.Keys.strikethrough, .strikethrough),
            (Theme.Keys.code, .code), (Theme.Keys.underline, Theme.Keys.underline),
        ]
        for (theme, markup) in pairs where attributes[theme] == .bool(true) { result[markup] = .bool(true) }
        // An image's attachment record (its plugin's theme entry) is the pipeline's own.
        if let attachment = attributes[.attachment] { result[.attachment] = attachment }
        // The link plugin's theme puts the link's URL on its text, so the layout can hit-test
        // it; without that entry the node type still marks the text as a link.
        if case .string(let url)? = attributes[LinkTheme.Keys.link] {
            result[.link] = .string(url)
        } else if attributes[Theme.Keys.nodeType] == .string("link") {
            result[.link] = .string("")
        }
        return Attributes(result)
    }
}
