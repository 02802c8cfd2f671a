import FuzzSupport
import QuireCatalog
import QuireConfig
import QuireEditScript
import QuireEditor
import QuireModel

// Edit-script lines on an editor with every built-in plugin and a text storage: any bytes are
// steps the editor applies or refuses. After every applied step the text storage equals a full
// render of the document and the position index equals a rebuilt one; a refused step leaves the
// document, the text and the selection as they were; the script's result always serializes.

/// Every built-in plugin and its contributions (commands, transforms), as `quire edit-script` has them.
let configuration: Configuration = {
    do {
        return try Configuration.load(yaml: BuiltInPlugins.allPluginsYAML, catalog: BuiltInPlugins.catalog)
    } catch {
        fuzzFailure("EditScriptFuzz", "the built-in configuration does not load: \(error)")
    }
}()

let registry: NodeRegistry = {
    do {
        return try configuration.makeRegistry()
    } catch {
        fuzzFailure("EditScriptFuzz", "the built-in registry does not build: \(error)")
    }
}()

/// What a refused step must leave alone.
struct Observable: Equatable {
    let document: [UInt8]
    let text: String?
    let selection: Range<Int>?

    init(_ editor: Editor) {
        document = LexicalJSON.exportBytes(editor.state)
        text = editor.storage?.string
        selection = editor.nativeSelection
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let editor: Editor
    do {
        editor = try EditScript.makeEditor(state: EditorState(registry: registry, paragraphs: [""]), contributions: configuration.plugins.contributions)
    } catch {
        fuzzFailure("EditScriptFuzz", "an empty editor cannot be made: \(error)")
    }
    let interaction = ScriptInteraction(editor: editor)
    var step = 0
    do {
        try EditScript.forEachStep(in: bytes) { value in
            step += 1
            let before = Observable(editor)
            do {
                try EditScript.apply(value, to: editor, interaction: interaction)
            } catch {
                let after = Observable(editor)
                if after != before {
                    fuzzFailure("EditScriptFuzz", "step \(step) was refused (\(error)) but changed the editor")
                }
                throw error
            }
            do {
                try editor.reconciler.verify(editor.state)
            } catch {
                fuzzFailure("EditScriptFuzz", "after step \(step): \(error)")
            }
        }
    } catch {
        // A refused line ends the script, as it ends `quire edit-script`.
    }
    _ = EditScript.result(of: editor, interaction: interaction)
    return 0
}
