import Foundation
import QuireCatalog
import QuireConfig
import QuireEditor
import QuireModel
import QuireStyle
import QuireTable
import QuireTextStorage
import Testing

/// Shared setup for the table, link and horizontal-rule tests: the plugins as a configuration
/// selects them, editors with their commands and theme, and expected Lexical JSON built from a
/// few helpers so that every test compares whole documents as JSON values.
enum PluginFixture {
    /// Every built-in plugin, as `config.yaml` would select them.
    static func configuration() throws -> Configuration {
        try Configuration.load(yaml: "version: 1\nplugins: [heading, quote, list, code, link, table, horizontalrule, image]\n", catalog: BuiltInPlugins.catalog)
    }

    static func registry() throws -> NodeRegistry {
        try configuration().makeRegistry()
    }

    static func extensions() throws -> [PluginContribution] {
        try configuration().plugins.contributions
    }

    /// An editor on `state` with a text storage, the plugins' commands installed and their theme.
    static func editor(_ state: EditorState) throws -> (Editor, TextStorage) {
        let storage = TextStorage()
        let extensions = try extensions()
        let editor = try Editor(state: state, storage: storage, theme: Theme.standard.including(extensions))
        try editor.install(extensions)
        return (editor, storage)
    }

    /// A state of paragraphs with the plugins registered.
    static func state(_ paragraphs: [String] = [""]) throws -> EditorState {
        EditorState(registry: try registry(), paragraphs: paragraphs)
    }

    /// Appends a table of `cells` (row by row, one paragraph of text each; "" for an empty
    /// paragraph) to the root, or inserts it after `after`. Returns the table and its cells.
    @discardableResult
    static func appendTable(_ cells: [[String]], to state: inout EditorState, headerRow: Bool = false) throws -> (table: NodeKey, cells: [[NodeKey]]) {
        let table = try state.createNode(type: TableNodePlugin.type)
        var keys: [[NodeKey]] = []
        for (rowIndex, row) in cells.enumerated() {
            let rowKey = try state.createNode(type: TableRowNodePlugin.type)
            try state.append(rowKey, to: table)
            var rowKeys: [NodeKey] = []
            for content in row {
                let header = headerRow && rowIndex == 0 ? 1 : 0
                let cell = try state.createNode(type: TableCellNodePlugin.type, fields: ["headerState": .number(.integer(header))])
                let paragraph = try state.createNode(type: .paragraph)
                if !content.isEmpty { try state.append(try state.createNode(type: .text, text: content), to: paragraph) }
                try state.append(paragraph, to: cell)
                try state.append(cell, to: rowKey)
                rowKeys.append(cell)
            }
            keys.append(rowKeys)
        }
        try state.append(table, to: .root)
        return (table, keys)
    }

    /// The text node of a cell's first paragraph.
    static func text(in cell: NodeKey, _ state: EditorState) -> NodeKey? {
        state[cell]?.firstChild.flatMap { state[$0]?.firstChild }
    }

    /// The first paragraph of a cell.
    static func paragraph(in cell: NodeKey, _ state: EditorState) -> NodeKey? {
        state[cell]?.firstChild
    }
}

/// Expected Lexical JSON, with exactly the fields Quire writes for nodes it creates.
enum J {
    static let element: [(String, JSONValue)] = [("direction", .null), ("format", .string("")), ("indent", .number(.integer(0)))]

    static func node(_ type: String, _ fields: [(String, JSONValue)], children: [JSONValue]? = nil) -> JSONValue {
        var object = JSONObject()
        if let children { object["children"] = .array(children) }
        for (name, value) in fields { object[name] = value }
        object["type"] = .string(type)
        object["version"] = .number(.integer(1))
        return .object(object)
    }

    static func document(_ children: JSONValue...) -> JSONValue {
        .object(["root": node("root", element, children: children)])
    }

    static func text(_ text: String, format: Int = 0) -> JSONValue {
        node("text", [
            ("detail", .number(.integer(0))), ("format", .number(.integer(format))), ("mode", .string("normal")),
            ("style", .string("")), ("text", .string(text)),
        ])
    }

    static func paragraph(_ children: JSONValue...) -> JSONValue {
        node("paragraph", element + [("textFormat", .number(.integer(0))), ("textStyle", .string(""))], children: children)
    }

    /// A paragraph holding `content` as one text node, or nothing for "".
    static func p(_ content: String) -> JSONValue {
        content.isEmpty ? paragraph() : paragraph(text(content))
    }

    static func cell(_ children: [JSONValue], header: Int = 0, colSpan: Int = 1, rowSpan: Int = 1, extra: [(String, JSONValue)] = []) -> JSONValue {
        node("tablecell", element + [
            ("backgroundColor", .null), ("colSpan", .number(.integer(colSpan))),
            ("headerState", .number(.integer(header))), ("rowSpan", .number(.integer(rowSpan))),
        ] + extra, children: children)
    }

    /// A cell holding one paragraph of `content`.
    static func c(_ content: String, header: Int = 0, colSpan: Int = 1, rowSpan: Int = 1) -> JSONValue {
        cell([p(content)], header: header, colSpan: colSpan, rowSpan: rowSpan)
    }

    static func row(_ cells: JSONValue...) -> JSONValue {
        node("tablerow", element, children: cells)
    }

    static func table(_ rows: JSONValue..., extra: [(String, JSONValue)] = []) -> JSONValue {
        node("table", element + extra, children: rows)
    }

    static func link(_ url: String, rel: JSONValue = .string("noreferrer"), target: JSONValue = .null, title: JSONValue = .null, _ children: JSONValue...) -> JSONValue {
        node("link", element + [("rel", rel), ("target", target), ("title", title), ("url", .string(url))], children: children)
    }

    static let horizontalRule = node("horizontalrule", [])
}

/// A compact rendering of a Lexical JSON tree for failure messages: each node as its type, the
/// fields that differ from a created node's defaults, its text, and its children.
enum JSONShape {
    static let defaults: [String: JSONValue] = [
        "direction": .null, "format": .string(""), "indent": .number(.integer(0)), "version": .number(.integer(1)),
        "textFormat": .number(.integer(0)), "textStyle": .string(""), "detail": .number(.integer(0)),
        "mode": .string("normal"), "style": .string(""), "backgroundColor": .null, "colSpan": .number(.integer(1)),
        "rowSpan": .number(.integer(1)), "headerState": .number(.integer(0)),
    ]

    static func describe(_ value: JSONValue) -> String {
        guard case .object(let object) = value else { return JSONWriter().string(value) }
        if let root = object["root"], object.count == 1 { return describe(root) }
        var result = object["type"]?.stringValue ?? "?"
        if let text = object["text"]?.stringValue { result += " \"\(text)\"" }
        let fields = object.members.filter { member in
            !["type", "children", "text"].contains(member.key) && defaults[member.key] != member.value
                && !(member.key == "format" && member.value == .number(.integer(0)))
        }
        if !fields.isEmpty { result += " {" + fields.map { "\($0.key): \(JSONWriter().string($0.value))" }.joined(separator: ", ") + "}" }
        if case .array(let children)? = object["children"] {
            result += "[" + children.map(describe).joined(separator: ", ") + "]"
        }
        return result
    }
}

/// Expects `state` to export exactly `expected` (compared as JSON values), describing both
/// compactly when they differ.
func expectJSON(_ state: EditorState, _ expected: JSONValue, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let exported = LexicalJSON.export(state)
    let same = exported == expected
    #expect(same, "\(JSONShape.describe(exported))\n  expected\n\(JSONShape.describe(expected))", sourceLocation: sourceLocation)
}

/// The first child of root block `block` (its text node, in a paragraph).
func firstText(ofBlock block: Int, _ state: EditorState) throws -> NodeKey {
    try #require(state.child(at: block, of: .root).flatMap { state[$0]?.firstChild })
}
