import Foundation
import QuireEditor
import QuireMarkup
import QuireModel

/// What a copy puts on the pasteboard: the selection as HTML (`text/html`, `public.html`) and
/// as plain text.
public struct ClipboardContent: Hashable, Sendable {
    /// The selected content as HTML (a fragment, blocks one per line).
    public var html: String
    /// The selected text as the flat string shows it (blocks separated by "\n", table cells by
    /// "\t"), without the object replacement characters of images and rules.
    public var plainText: String

    /// Content.
    public init(html: String, plainText: String) {
        self.html = html
        self.plainText = plainText
    }
}

extension Editor {
    /// Inserts HTML at the selection, replacing selected text: what a text view's paste of web
    /// or mail content calls. One paragraph goes into the block at the caret; blocks split it
    /// and go between its halves. One commit, so one undo step.
    ///
    /// Large pastes go through `EditorState.insertNodes` (each block linked in O(log₃₂ n)).
    ///
    /// - Throws: `EditorError.thrown` with the `MarkupError` when the HTML cannot be read (too
    ///   deeply nested) or a plugin refuses a node; `EditorError.model` for an edit the selection
    ///   does not allow. The document is unchanged then.
    /// - Complexity: O(p · log n) for p pasted nodes, plus the parse.
    public func pasteHTML(_ html: String, converter: HTMLConverter) throws(EditorError) {
        let tree: HTMLTree
        do { tree = try converter.parse(html) } catch { throw .thrown(error) }
        let importer = converter.importer
        try update(tag: "paste") { (state: inout EditorState) throws(EditorError) in
            do {
                var nodes = try importer.importNodes(tree, into: &state)
                if nodes.count == 1, let paragraph = state[nodes[0]], paragraph.type == .paragraph {
                    // One paragraph: its content joins the block at the caret.
                    nodes = state.children(of: paragraph.key).map(\.key)
                    for key in nodes { try state.detach(key) }
                    try state.remove(paragraph.key)
                }
                try state.insertNodes(nodes)
            } catch let error as ModelError {
                throw .model(error)
            } catch {
                throw .thrown(error)
            }
        }
    }

    /// The selection as HTML and plain text (empty for a collapsed selection or none).
    ///
    /// - Throws: `EditorError.thrown` with the `MarkupError` when a node cannot be written.
    /// - Complexity: O(n · log₃₂ n) to cut the selection out of a copy of the document.
    public func copySelection(converter: HTMLConverter) throws(EditorError) -> ClipboardContent {
        try read { (state) throws(EditorError) -> ClipboardContent in
            guard state.selection != nil else { return ClipboardContent(html: "", plainText: "") }
            do {
                let fragment = try state.selectedFragment()
                let text = FlatString.render(fragment).replacingOccurrences(of: FlatString.objectReplacement, with: "")
                return ClipboardContent(html: try converter.exporter.html(fragment), plainText: text)
            } catch let error as ModelError {
                throw .model(error)
            } catch {
                throw .thrown(error)
            }
        }
    }
}
