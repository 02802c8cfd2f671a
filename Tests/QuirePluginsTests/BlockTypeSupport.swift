import QuireCatalog
import QuireConfig
import QuireEditor
import QuireList
import QuireModel
import QuireReconciler
import QuireStyle
import QuireTextStorage
import Testing

/// Shared by the heading, quote, list and code tests: a configuration with the block plugins,
/// Lexical JSON builders that write every field Lexical writes (so that a document built here
/// equals an export), and editors with a text storage, the plugins' theme and extensions.
enum Blocks {
    static func configuration(_ yaml: String = "version: 1\nplugins: [heading, quote, list, code, link]\n") throws -> Configuration {
        try Configuration.load(yaml: yaml, catalog: BuiltInPlugins.catalog)
    }

    static func registry() throws -> NodeRegistry { try configuration().makeRegistry() }

    static func extensions() throws -> [PluginContribution] { try configuration().plugins.contributions }

    /// A state from a document built with the helpers below.
    static func state(_ document: JSONValue) throws -> EditorState {
        try LexicalJSON.importState(from: document, registry: registry())
    }

    /// An editor on `state` with a text storage, the standard theme plus the plugins' attributes,
    /// and the plugins' commands and transforms. The reconciler checks its invariant (storage
    /// equals a full render, index equals a rebuilt one) after every commit in debug builds.
    static func editor(_ state: EditorState) throws -> Editor {
        let extensions = try extensions()
        let editor = try Editor(state: state, storage: TextStorage(), theme: Theme.standard.including(extensions))
        try editor.install(extensions)
        return editor
    }

    /// The key of the node at `path` (child indices from the root).
    static func key(_ state: EditorState, _ path: Int...) -> NodeKey {
        var current = NodeKey.root
        for index in path {
            guard let child = state.child(at: index, of: current) else {
                Issue.record("no child \(index) under \(current) on path \(path)")
                return .root
            }
            current = child
        }
        return current
    }

    /// The flat string and native selection of an editor, checked against its state.
    static func native(_ editor: Editor) -> (text: String, selection: Range<Int>?) {
        (editor.storage?.string ?? "", editor.nativeSelection)
    }
}

// MARK: Lexical JSON builders

/// A JSON integer.
func int(_ value: Int) -> JSONValue { .number(.integer(value)) }

func document(_ blocks: JSONValue...) -> JSONValue {
    .object(["root": .object(["children": .array(blocks), "direction": .null, "format": .string(""), "indent": int(0), "type": .string("root"), "version": int(1)])])
}

private func element(_ type: String, _ children: [JSONValue], _ extra: JSONObject = [:], direction: JSONValue = .null, format: String = "", indent: Int = 0) -> JSONValue {
    var object: JSONObject = [
        "children": .array(children), "direction": direction, "format": .string(format), "indent": int(indent),
        "type": .string(type), "version": int(1),
    ]
    for (key, value) in extra { object[key] = value }
    return .object(object)
}

func text(_ string: String, format: Int = 0, type: String = "text") -> JSONValue {
    .object(["detail": int(0), "format": int(format), "mode": .string("normal"), "style": .string(""), "text": .string(string), "type": .string(type), "version": int(1)])
}

func lineBreak() -> JSONValue { .object(["type": .string("linebreak"), "version": int(1)]) }

func tab() -> JSONValue { text("\t", type: "tab") }

func highlight(_ string: String) -> JSONValue { text(string, type: "code-highlight") }

func paragraph(_ children: JSONValue..., textFormat: Int = 0) -> JSONValue {
    element("paragraph", children, ["textFormat": int(textFormat), "textStyle": .string("")])
}

func heading(_ tag: String, _ children: JSONValue...) -> JSONValue { element("heading", children, ["tag": .string(tag)]) }

func quote(_ children: JSONValue...) -> JSONValue { element("quote", children) }

func code(_ language: String?, _ children: JSONValue...) -> JSONValue {
    element("code", children, ["language": language.map(JSONValue.string) ?? .null])
}

func list(_ type: ListType, start: Int = 1, _ items: JSONValue...) -> JSONValue {
    element("list", items, ["listType": .string(type.rawValue), "start": int(start), "tag": .string(type.tag)])
}

func item(_ value: Int, indent: Int = 0, checked: Bool? = nil, _ children: JSONValue...) -> JSONValue {
    var extra: JSONObject = ["value": int(value)]
    if let checked { extra["checked"] = .bool(checked) }
    return element("listitem", children, extra, indent: indent)
}

