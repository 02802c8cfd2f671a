import Foundation
import QuireCatalog
import QuireConfig
import QuireHTML
import QuireMarkup
import QuireModel
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Every built-in plugin with its defaults: the registry and the HTML converter.
enum BuiltIns {
    static let configuration: Configuration = {
        do { return try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog) } catch {
            preconditionFailure("the built-in configuration loads: \(error)")
        }
    }()

    static let registry: NodeRegistry = {
        do { return try configuration.makeRegistry() } catch { preconditionFailure("the built-ins register: \(error)") }
    }()

    static let contributions = configuration.plugins.contributions
    static let converter = HTMLConverter(registry: registry, contributions: contributions)
}

/// A compact outline of a state for assertions: `type{field=value}(children)`, text as
/// `"text"` with its formats in front (`b:"bold"`), a line break as `⏎`, only the fields an
/// HTML conversion sets.
enum Outline {
    static let fields = ["tag", "listType", "start", "checked", "value", "language", "url", "title", "target", "rel", "src", "altText",
                         "width", "height", "headerState", "colSpan", "rowSpan", "emoji", "format", "direction", "backgroundColor"]
    static let formatNames: [(TextFormat, String)] = [
        (.bold, "b"), (.italic, "i"), (.underline, "u"), (.strikethrough, "s"), (.code, "code"), (.subscript, "sub"),
        (.superscript, "sup"), (.highlight, "mark"), (.uppercase, "upper"), (.lowercase, "lower"), (.capitalize, "cap"),
    ]

    static func of(_ state: EditorState) -> String {
        state.children(of: .root).map { describe($0, in: state) }.joined(separator: " ")
    }

    static func describe(_ node: Node, in state: EditorState) -> String {
        switch node.role {
        case .text:
            let names = formatNames.filter { node.textFormat.contains($0.0) }.map(\.1)
            return (names.isEmpty ? "" : names.joined(separator: "+") + ":") + "\"\(node.text)\""
        case .lineBreak:
            return "⏎"
        default:
            var result = node.type.rawValue
            var shown: [String] = []
            for name in fields {
                guard let value = node.fields[name] else { continue }
                if name == "format", node.role.isElement, value == .string("") { continue }
                if ["direction", "title", "target", "rel", "checked", "backgroundColor"].contains(name), value == .null { continue }
                if name == "headerState", value == .number(.integer(0)) { continue }
                if ["colSpan", "rowSpan"].contains(name), value == .number(.integer(1)) { continue }
                if ["width", "height"].contains(name), value == .number(.integer(0)) { continue }
                if name == "start", node.type != "list" { continue }
                if name == "value" { continue }
                shown.append("\(name)=\(JSONWriter().string(value))")
            }
            if !shown.isEmpty { result += "{" + shown.joined(separator: ",") + "}" }
            if node.role.isElement { result += "(" + state.children(of: node.key).map { describe($0, in: state) }.joined(separator: " ") + ")" }
            return result
        }
    }
}

func importHTML(_ html: String, converter: HTMLConverter = BuiltIns.converter) throws -> EditorState {
    try converter.state(fromHTML: html)
}

func outline(_ html: String) throws -> String {
    Outline.of(try importHTML(html))
}
