import QuireEditor
import QuireInteraction
import QuireJSON
import QuireMarkup
import QuireModel

/// What a script's interaction steps keep for one editor (a collab script keeps one per peer):
/// live reload with its deferral, the highlight layer, and the terminal viewport once a
/// `viewport` step set one.
public final class ScriptInteraction {
    /// The ops this type applies; ``EditScript/apply(_:to:interaction:)`` refuses them without one.
    public static let operations: Set<String> = ["reload", "suggest", "viewport", "userScroll", "highlight", "focus"]

    /// The editor the interaction steps act on.
    public let editor: Editor
    let reloader: LiveReload
    /// The highlights the `highlight` steps set, kept in step with the editor's text edits.
    public let highlights = HighlightLayer()
    let applier: HighlightApplier
    /// The terminal viewport, from the first `viewport` step on (nil before it).
    public private(set) var viewport: ViewportController?
    private var highlighted = false

    /// Interaction state for `editor`: live reload and highlights follow its text from now on.
    public init(editor: Editor) {
        self.editor = editor
        reloader = LiveReload(editor: editor)
        applier = HighlightApplier(target: highlights)
        editor.registerTextContentListener { [applier] change in
            for edit in change.edits { applier.textDidChange(edit) }
        }
    }

    /// Runs an editor step with the reason it gives the viewport.
    @discardableResult
    public func perform<T>(_ reason: ScrollReason, _ body: () throws -> T) throws -> T {
        guard let viewport else { return try body() }
        return try viewport.perform(reason, body)
    }

    /// Applies `op` if it is an interaction step; false when it is not one.
    public func apply(_ op: String, _ object: JSONObject) throws -> Bool {
        guard Self.operations.contains(op) else { return false }
        let fields = StepFields(op: op, object: object)
        switch op {
        case "reload":
            try reloader.reload(text: fields.string("text"))
        case "suggest":
            var replacing = SuggestionReplacement.selection
            if let value = object["replace"] {
                switch value.stringValue {
                case "word"?: replacing = .word
                case "selection"?: replacing = .selection
                default: throw EditScriptError("\"replace\" is \"word\" or \"selection\"")
                }
            }
            let word = try fields.string("word")
            try perform(.suggestion) { try editor.insertSuggestion(word, replacing: replacing) }
        case "viewport":
            let columns = try fields.int("width")
            let rows = try fields.int("height")
            guard columns > 0, rows > 0 else { throw EditScriptError("a viewport needs a positive width and height, not \(columns)×\(rows)") }
            if let viewport {
                try viewport.resize(width: Double(columns), height: Double(rows))
            } else {
                viewport = try ViewportController.terminal(editor: editor, columns: columns, rows: rows)
            }
        case "userScroll":
            let row = try fields.int("row")
            guard let viewport else { throw EditScriptError("\"userScroll\" needs a viewport step before it") }
            let allowed = viewport.viewport.offsetRange(contentHeight: viewport.geometry.contentHeight, overscroll: viewport.policy.overscroll)
            guard Double(row) >= allowed.lowerBound, Double(row) <= allowed.upperBound else {
                throw EditScriptError("row \(row) is outside the rows a viewport can start at (0...\(Int(allowed.upperBound)))")
            }
            viewport.userDidScroll(to: Double(row), state: .reading)
        case "highlight":
            guard let ranges = object["ranges"]?.arrayValue else { throw EditScriptError("\"highlight\" needs \"ranges\": [[start, end, name], …]") }
            var wanted: [Highlight] = []
            for (index, range) in ranges.enumerated() {
                guard let triple = range.arrayValue, triple.count == 3, let start = triple[0].intValue, let end = triple[1].intValue,
                      let name = triple[2].stringValue else {
                    throw EditScriptError("\"ranges\"[\(index)] is not [start, end, name]")
                }
                guard start >= 0, end >= start else { throw EditScriptError("\"ranges\"[\(index)]: invalid range \(start)..<\(end)") }
                wanted.append(Highlight(start..<end, name: name))
            }
            try applier.apply(wanted, length: editor.reconciler.index.totalLength)
            viewport?.highlightsDidChange()
            highlighted = true
        case "focus":
            viewport?.focus()
        default:
            return false
        }
        return true
    }

    /// After every step: a reload that waited for a composition goes in once it ended.
    public func afterStep() throws {
        try reloader.applyPending()
    }

    /// The script output's interaction fields: the viewport and the caret in terminal cells
    /// (0-based, after soft wrapping at the viewport's width) once a viewport was set, and the
    /// highlights once a highlight step ran.
    public var output: [(key: String, value: JSONValue)] {
        var fields: [(key: String, value: JSONValue)] = []
        if let viewport {
            fields.append(("viewport", .object([
                "firstRow": .number(.integer(Int(viewport.viewport.offset))),
                "rows": .number(.integer(Int(viewport.viewport.height))),
                "columns": .number(.integer(Int(viewport.viewport.width))),
            ])))
            if let caret = viewport.caretRect {
                fields.append(("caret", .object(["row": .number(.integer(Int(caret.y))), "column": .number(.integer(Int(caret.x)))])))
            }
        }
        if highlighted {
            fields.append(("highlights", .array(highlights.highlights.map {
                .array([.number(.integer($0.range.lowerBound)), .number(.integer($0.range.upperBound)), .string($0.name)])
            })))
        }
        return fields
    }
}
