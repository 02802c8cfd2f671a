import Foundation
import QuireEditScript
import QuireEditor
import QuireInteraction
import QuireMarkdown
import QuireMarkup
import QuireModel
import QuireStyle
import QuireTextStorage

/// One `quire edit` session without the terminal: the editor on a text storage, the viewport
/// policies, the file, and what the status line says. Keys go in through ``handle(_:)``;
/// ``frame()`` is what the screen shows. The terminal loop (``EditCommand``) only moves bytes.
final class EditSession {
    let path: String
    let editor: Editor
    private let setup: MarkupSetup
    let cache: LayoutCache
    private var viewport: ViewportController
    private(set) var size: (columns: Int, rows: Int)
    private(set) var isModified = false
    var message: String
    /// Collaborators' selections (native offsets) and the connection, in a collaborative session.
    var remoteSelections: [RemoteSelection] = []
    var collabStatus: CollabStatus?
    /// Ctrl-Q was pressed once with unsaved changes; the next Ctrl-Q quits.
    private var quitArmed = false
    /// The column Up and Down keep to, across lines of different lengths.
    private var goalX: Double?

    /// The document's layout, brought up to date when the viewport controller asks for a
    /// geometry after a commit: the commits since the last one lay out again only the paragraph
    /// they changed, when they changed one. The cache is the controller's geometry itself and
    /// answers from the latest layout, so that the layout has one owner and changes in place.
    final class LayoutCache: TextGeometry {
        let mappings: MarkupMappings
        /// The document's images, loaded from files relative to it in the background.
        let attachments: LiveAttachments
        private unowned let editor: Editor
        private(set) var current: DocumentLayout
        /// The commits since `current` was made.
        private var pending: [EditorUpdate] = []
        /// Whether `current` is out of date beyond the commits (an image finished loading).
        private var isStale = false
        /// How many layouts were made by laying out one changed paragraph, the root's changed
        /// children, or the whole document.
        private(set) var statistics = (paragraphUpdates: 0, childUpdates: 0, wholeLayouts: 1)

        init(editor: Editor, mappings: MarkupMappings, attachments: LiveAttachments, width: Int) {
            self.editor = editor
            self.mappings = mappings
            self.attachments = attachments
            current = DocumentLayout(editor: editor, mappings: mappings, width: max(1, width), attachments: attachments,
                                     loaded: TerminalSignals.attachmentsLoaded)
        }

        /// Remembers a commit; registered before anything that asks for a layout after commits.
        func editorDidCommit(_ update: EditorUpdate) { pending.append(update) }

        /// The next layout is made whole (what the layout showed of images changed).
        func invalidate() { isStale = true }

        /// Brings the layout up to date with the editor at `width` cells.
        func update(width: Double) -> LayoutCache {
            let columns = max(1, Int(width))
            defer {
                pending = []
                isStale = false
            }
            if !isStale, current.width == Double(columns) {
                if current.update(after: pending, editor: editor, mappings: mappings, attachments: attachments, loaded: TerminalSignals.attachmentsLoaded) {
                    statistics.paragraphUpdates += 1
                    return self
                }
                if current.updateChildren(after: pending, editor: editor, mappings: mappings, attachments: attachments, loaded: TerminalSignals.attachmentsLoaded) {
                    statistics.childUpdates += 1
                    return self
                }
            }
            current = DocumentLayout(editor: editor, mappings: mappings, width: columns, attachments: attachments,
                                     loaded: TerminalSignals.attachmentsLoaded, reusing: current)
            statistics.wholeLayouts += 1
            return self
        }

        var contentHeight: Double { current.contentHeight }
        func caretRect(forOffset offset: Int) -> LayoutRect { current.caretRect(forOffset: offset) }
        func lineRects(for range: Range<Int>) -> [LayoutRect] { current.lineRects(for: range) }
        func line(atY y: Double) -> (start: Int, rect: LayoutRect) { current.line(atY: y) }
    }

    enum Outcome { case `continue`, quit }

    /// A collaborator's selection in the editor's text storage.
    struct RemoteSelection: Hashable, Sendable {
        var name: String
        var colour: PeerColour
        var anchor: Int
        var focus: Int
    }

    /// Opens `path` (.md or .txt through its markup plugin, .json as Lexical JSON; a missing file is a
    /// new empty document) in a terminal of `size`.
    convenience init(path: String, setup: MarkupSetup, size: (columns: Int, rows: Int)) throws {
        let loaded = try Self.load(path, setup: setup)
        try self.init(path: path, setup: setup, size: size, editor: try Self.makeEditor(loaded.state, setup: setup, path: path), message: loaded.message)
    }

    /// A session on an editor made by ``makeEditor(_:setup:path:)`` (a collaborative session binds it
    /// to the room's document first), saving to `path`.
    init(path: String, setup: MarkupSetup, size: (columns: Int, rows: Int), editor: Editor, message: String) throws {
        self.path = path
        self.setup = setup
        self.size = size
        self.message = message
        self.editor = editor
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let cache = LayoutCache(editor: editor, mappings: setup.mappings,
                                attachments: LiveAttachments(cache: AttachmentCache(loader: FileAttachmentLoader(baseDirectory: base))), width: size.columns)
        self.cache = cache
        // Before the viewport controller's listener, which asks for the layout after each commit.
        editor.registerUpdateListener { update in cache.editorDidCommit(update) }
        viewport = try ViewportController(
            editor: editor, viewport: Viewport(width: Double(size.columns), height: Double(max(1, size.rows - 1))), policy: .terminal
        ) { _, width in cache.update(width: width) }
        editor.registerUpdateListener { [weak self] update in
            if !update.changes.isEmpty { self?.isModified = true }
        }
    }

    /// The document at `path` (an empty one when the file is missing) and what the status line
    /// first says.
    static func load(_ path: String, setup: MarkupSetup) throws -> (state: EditorState, message: String) {
        if FileManager.default.fileExists(atPath: path) {
            return (try setup.loadState(path), "Ctrl-S save · Ctrl-Q quit · Ctrl-Z/Ctrl-Y undo/redo · Ctrl-B bold · Ctrl-U underline")
        }
        let fileExtension = MarkupSetup.fileExtension(path)
        guard fileExtension == "json" || (try? setup.parser(for: fileExtension)) != nil else {
            throw EditError.unsupportedFile(path)
        }
        return (EditorState(registry: setup.registry, paragraphs: [""]), "New file; Ctrl-S creates it")
    }

    /// The editor of a session: the configured plugins and, unless `path` is a text file that
    /// could not keep what they make, the markdown shortcuts.
    static func makeEditor(_ state: EditorState, setup: MarkupSetup, path: String) throws -> Editor {
        let editor = try EditScript.makeEditor(state: state, contributions: setup.contributions)
        if !setup.isPlainText(path) { try editor.install([MarkdownShortcuts()]) }
        return editor
    }

    enum EditError: Error, CustomStringConvertible {
        case unsupportedFile(String)
        var description: String { "cannot edit \(path): only .json (Lexical JSON) and the markup formats the configuration reads (.md, .txt)" }
        var path: String { switch self { case .unsupportedFile(let path): path } }
    }

    private var layout: DocumentLayout { cache.current }

    /// The link under a cell of the document area (0-based column and row on screen), hit-tested
    /// in the layout the screen shows: its URL, range in the flat string and frames.
    ///
    /// - Complexity: O(log p + log n + k), as `DocumentLayout.linkHit(at:)`.
    func link(atColumn column: Int, row: Int) -> LinkHit? {
        let top = viewport.viewport.offset.rounded(.down)
        return layout.linkHit(at: LayoutPoint(x: Double(column) + 0.5, y: top + Double(row) + 0.5))
    }
    private var caret: Int { editor.nativeSelection?.upperBound ?? 0 }

    // MARK: Keys

    func handle(_ key: KeyEvent) -> Outcome {
        if key == .control("q") {
            if isModified && !quitArmed {
                quitArmed = true
                message = "Unsaved changes: Ctrl-Q again quits without saving, Ctrl-S saves"
                return .continue
            }
            return .quit
        }
        quitArmed = false
        if ![.up, .down, .pageUp, .pageDown].contains(key) { goalX = nil }
        do {
            try perform(key)
        } catch {
            message = "\(error)"
        }
        return .continue
    }

    private func perform(_ key: KeyEvent) throws {
        switch key {
        case .text(let text):
            // Keys typed faster than a read are several characters in one event; each is typed on
            // its own, as it was at the keyboard, so that typing-time features (markdown
            // shortcuts) see every keystroke. A paste comes bracketed, as one insertion.
            try edit(.typing) { for character in text { try insert(String(character)) } }
        case .paste(let text): try edit(.insertion) { try insert(text) }
        case .enter: try edit(.typing) { try editor.dispatch(Commands.insertParagraph) }
        case .backspace: try edit(.typing) { try editor.dispatch(Commands.deleteCharacter, true) }
        case .delete: try edit(.typing) { try editor.dispatch(Commands.deleteCharacter, false) }
        case .tab, .backTab:
            try edit(.typing) {
                if try !editor.dispatch(Commands.keyTab, key == .backTab), key == .tab { try insert("\t") }
            }
        case .control("z"): try edit(.undo) { if try !editor.undo() { message = "Nothing to undo" } }
        case .control("y"): try edit(.undo) { if try !editor.redo() { message = "Nothing to redo" } }
        case .control("b"): try edit(.typing) { try editor.dispatch(Commands.formatText, .bold) }
        case .control("u"): try edit(.typing) { try editor.dispatch(Commands.formatText, .underline) }
        case .control("s"): save()
        case .left: try move(to: clusterBoundary(before: editor.nativeSelection.map { $0.isEmpty ? $0.lowerBound : $0.lowerBound + 1 } ?? 0))
        case .right: try move(to: clusterBoundary(after: editor.nativeSelection.map { $0.isEmpty ? $0.upperBound : $0.upperBound - 1 } ?? 0))
        case .up: try moveVertically(by: -1)
        case .down: try moveVertically(by: 1)
        case .pageUp: try moveVertically(by: -max(1, size.rows - 2))
        case .pageDown: try moveVertically(by: max(1, size.rows - 2))
        case .home: try move(to: lineBounds().start)
        case .end: try move(to: lineBounds().end)
        case .escape, .control: break
        }
    }

    private func insert(_ text: String) throws {
        guard let selection = editor.nativeSelection else { return }
        try editor.replaceCharacters(in: selection, with: text)
    }

    private func edit(_ reason: ScrollReason, _ body: () throws -> Void) throws {
        try viewport.perform(reason) { try body() }
    }

    private func move(to offset: Int) throws {
        let length = editor.storage?.length ?? 0
        let target = min(max(0, offset), length)
        try viewport.perform(.navigation) { try editor.selectionDidChange(target..<target) }
    }

    private func moveVertically(by rows: Int) throws {
        let layout = self.layout
        let rect = layout.caretRect(forOffset: caret)
        let x = goalX ?? rect.x
        let y = rect.y + Double(rows)
        let target: Int
        if y < 0 { target = 0 } else if y >= layout.height { target = editor.storage?.length ?? 0 } else {
            target = layout.offset(at: LayoutPoint(x: x, y: y + 0.5))
        }
        try move(to: target)
        goalX = x
    }

    /// The caret's visual line: its first offset and the offset before its line end.
    private func lineBounds() -> (start: Int, end: Int) { layout.lineBounds(at: caret) }

    /// The grapheme-cluster boundary before or after `offset` in the storage's text.
    private func clusterBoundary(before offset: Int) -> Int { boundary(from: offset, forward: false) }
    private func clusterBoundary(after offset: Int) -> Int { boundary(from: offset, forward: true) }

    private func boundary(from offset: Int, forward: Bool) -> Int {
        guard let storage = editor.storage else { return offset }
        // A window around the caret; clusters longer than it are not a concern for text.
        let start = max(0, offset - 64)
        let end = min(storage.length, offset + 64)
        guard let window = try? storage.substring(in: NSRange(location: start, length: end - start)) else { return offset }
        var position = start
        var boundaries = [start]
        for character in window {
            position += character.utf16.count
            boundaries.append(position)
        }
        if forward { return boundaries.first { $0 > offset } ?? min(offset + 1, storage.length) }
        return boundaries.last { $0 < offset } ?? max(offset - 1, 0)
    }

    // MARK: Saving

    func save() {
        do {
            let bytes: [UInt8]
            var dropped: TextFormat = []
            var losses: [MarkupLoss] = []
            if MarkupSetup.fileExtension(path) == "json" {
                bytes = LexicalJSON.exportBytes(editor.state, prettyPrinted: true) + [0x0A]
            } else {
                let serialized = try setup.serialize(editor.state, as: MarkupSetup.fileExtension(path))
                bytes = Array(serialized.text.utf8)
                dropped = serialized.dropped
                losses = serialized.losses
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            isModified = false
            message = "Saved \(bytes.count) bytes to \(path)"
            if !dropped.isEmpty { message += " (markdown cannot keep some formats, e.g. underline; they are not in the file)" }
            if let loss = losses.first { message += " (not kept: \(loss)\(losses.count > 1 ? " and \(losses.count - 1) more" : ""))" }
        } catch {
            message = "Not saved: \(error.localizedDescription)"
        }
    }

    // MARK: Drawing

    /// An image finished loading: the document is laid out again with its size (or its failure),
    /// the text and the selection as they were.
    func attachmentsDidLoad() {
        cache.invalidate()
        viewport.geometryDidChange()
    }

    func resize(columns: Int, rows: Int) throws {
        size = (columns, rows)
        try viewport.resize(width: Double(columns), height: Double(max(1, rows - 1)))
    }

    /// The screen: the visible lines of the layout, then the status line.
    func frame() -> ScreenFrame {
        let document = layout
        let height = max(1, size.rows - 1)
        let top = Int(viewport.viewport.offset.rounded(.down))
        let underlined = { [editor] (range: Range<Int>) -> Bool in
            guard let storage = editor.storage, range.lowerBound < storage.length,
                  let found = try? storage.attributes(at: range.lowerBound) else { return false }
            return found.attributes[Theme.Keys.underline] == .bool(true)
        }
        let columns = size.columns
        var rows = document.rows(from: top, count: height) { paragraph, line, start in
            TerminalRenderer(built: paragraph.built, layout: paragraph.layout, width: columns, ansi: true) { range in
                underlined((range.lowerBound + start)..<(range.upperBound + start))
            }.renderLine(line)
        }.map { $0 ?? "\u{1B}[90m~\u{1B}[0m" }
        if !remoteSelections.isEmpty {
            let length = editor.storage?.length ?? 0
            func position(_ offset: Int) -> PeerMark.ScreenPosition {
                let rect = document.caretRect(forOffset: min(max(0, offset), length))
                return PeerMark.ScreenPosition(row: Int(rect.y) - top, column: Int(rect.x))
            }
            let marks = remoteSelections.map { selection in
                PeerMark(name: selection.name, colour: selection.colour, start: position(min(selection.anchor, selection.focus)),
                         caret: position(selection.focus), end: position(max(selection.anchor, selection.focus)))
            }
            for (row, paint) in PresencePainter.rowPaints(for: marks, rows: height, columns: size.columns) {
                rows[row] = PresencePainter.paint(rows[row], paint, columns: size.columns)
            }
        }
        rows.append(statusLine())
        let rect = document.caretRect(forOffset: caret)
        let cursorRow = Int(rect.y) - top
        let cursor = (0..<height).contains(cursorRow) ? (row: cursorRow, column: min(Int(rect.x), size.columns - 1)) : nil
        return ScreenFrame(rows: rows, cursor: cursor)
    }

    /// Position (line and column, 1-based, in the flat text's lines and characters).
    private var lineAndColumn: (line: Int, column: Int) { layout.lineAndColumn(at: caret) }

    private func statusLine() -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent + (isModified ? " [+]" : "")
        let position = lineAndColumn
        var right = "\(position.line):\(position.column)"
        if let collabStatus {
            // The collaboration part goes before the message: cut to half the line at most.
            let room = size.columns / 2 - right.count - 2
            if room > 8 { right = Self.cut(collabStatus.text, toCells: room, ellipsis: true) + "  " + right }
        }
        let rightCells = right.reduce(0) { $0 + TerminalMetrics.cells(of: $1) }
        let available = size.columns - rightCells - 2
        let text = Self.cut(" \(name)  \(message)", toCells: available, ellipsis: false)
        let padding = String(repeating: " ", count: max(0, available - text.reduce(0) { $0 + TerminalMetrics.cells(of: $1) }))
        return "\u{1B}[7m" + text + padding + " " + right + " \u{1B}[0m"
    }

    /// `text` cut to at most `limit` cells — by cells, so that a wide character never spills
    /// over — ending in "…" when cut and `ellipsis`.
    static func cut(_ text: String, toCells limit: Int, ellipsis: Bool) -> String {
        var cells = 0
        var cut = ""
        for character in text {
            let width = TerminalMetrics.cells(of: character)
            if cells + width > limit {
                if ellipsis, !cut.isEmpty { cut.removeLast(); cut.append("…") }
                break
            }
            cut.append(character)
            cells += width
        }
        return cut
    }
}
