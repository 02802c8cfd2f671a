import QuireMarkup
import QuireModel

/// The list's HTML conversion: `ul`/`ol` ↔ `list` (`ol start` → `start`), a check list from
/// checkbox items (GitHub's `<input type="checkbox">`, Lexical's `aria-checked`, or a
/// `contains-task-list` class). Written back as `ul`, `ol` (with `start` when it is not 1) or
/// `<ul class="contains-task-list">`, a nested list inside the item before it.
public struct ListHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { ListNodePlugin.type }
    public var importedTags: [String] { ["ul", "ol", "menu"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        if Self.isTaskList(element) { return .node(nodeType, fields: ListMarkupMapping.fields(.check, start: 1)) }
        guard element.tag == "ol" else { return .node(nodeType, fields: ListMarkupMapping.fields(.bullet, start: 1)) }
        let written = element.attribute("start").flatMap { Int($0.trimmingPrefix(while: { $0 == " " })) } ?? 1
        // Browsers clamp a huge start too; the field's range is what a document may hold.
        let start = min(max(written, ListNodePlugin.startRange.lowerBound), ListNodePlugin.startRange.upperBound)
        return .node(nodeType, fields: ListMarkupMapping.fields(.number, start: start))
    }

    /// Whether a list element is a task list: its class says so or one of its items has a box.
    static func isTaskList(_ list: HTMLElement) -> Bool {
        if list.classNames.contains(where: { $0 == "contains-task-list" || $0 == "task-list" || $0 == "checklist" }) { return true }
        return list.childElements.contains { $0.tag == "li" && ListItemHTMLConversion.checkbox(of: $0) != nil }
    }

    /// Lexical's shape: an item holds inline content, or one nested list in an item of its own.
    /// Content after a nested list in the same item continues in a new item; then the items get
    /// their numbers, `indent` and `checked` as the list plugin keeps them.
    public func finishImport(of node: NodeKey, in state: inout EditorState) throws(ModelError) {
        var items: [NodeKey] = []
        for item in Array(state.children(of: node)) {
            let children = Array(state.children(of: item.key))
            guard children.count > 1, children.contains(where: { $0.type == ListNodePlugin.type }) else {
                items.append(item.key)
                continue
            }
            // Runs of inline content and the lists between them, each in an item of its own;
            // the first run stays in this item.
            var runs: [[Node]] = []
            for child in children {
                if child.type == ListNodePlugin.type || runs.last?.first?.type == ListNodePlugin.type || runs.isEmpty {
                    runs.append([child])
                } else {
                    runs[runs.count - 1].append(child)
                }
            }
            var anchor = item.key
            var keepsFirstRun = false
            for (index, run) in runs.enumerated() {
                if index == 0 && run[0].type != ListNodePlugin.type {
                    keepsFirstRun = true
                    items.append(item.key)
                    continue
                }
                let holder = try state.createNode(type: ListItemNodePlugin.type, fields: ListItemNodePlugin.fieldsForCopy(of: item))
                try state.insert(holder, after: anchor)
                for child in run {
                    try state.detach(child.key)
                    try state.append(child.key, to: holder)
                }
                items.append(holder)
                anchor = holder
            }
            if !keepsFirstRun { try state.remove(item.key) }
        }
        try state.normalizeListItems(afterWriting: items)
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        let type = ListNodePlugin.listType(of: node)
        var attributes: [HTMLAttribute] = []
        if type == .number, let start = node.fields["start"]?.intValue, start != 1 { attributes.append(HTMLAttribute("start", String(start))) }
        if type == .check { attributes.append(HTMLAttribute("class", "contains-task-list")) }
        writer.openElement(type.tag, attributes: attributes, for: node)
        let items = Array(writer.state.children(of: node.key))
        var index = 0
        while index < items.count {
            let item = items[index]
            try ListItemHTMLConversion.open(item, isCheck: type == .check, writer: &writer)
            if !writer.state.isNestedListWrapper(item.key) || index == 0 {
                try writer.writeChildren(of: item)
            }
            // Lexical keeps a nested list in an item of its own; HTML nests it in the item before.
            while index + 1 < items.count, writer.state.isNestedListWrapper(items[index + 1].key) {
                index += 1
                try writer.writeChildren(of: items[index])
            }
            writer.closeElement()
            index += 1
        }
        writer.closeElement()
    }
}

/// The list item's HTML conversion: `li` ↔ `listitem`, inline content with nested lists; a
/// check item's box from a checkbox `input` or `aria-checked`.
public struct ListItemHTMLConversion: HTMLConversion {
    public init() {}

    public var nodeType: NodeType { ListItemNodePlugin.type }
    public var importedTags: [String] { ["li"] }

    public func importElement(_ element: HTMLElement, context: HTMLImportContext) -> HTMLImport? {
        guard let list = element.parent, ["ul", "ol", "menu"].contains(list.tag) else { return nil }
        // An item without a box in a check list gets one (unchecked) when the list finishes.
        var fields: JSONObject = [:]
        if let checked = Self.checkbox(of: element) { fields["checked"] = .bool(checked) }
        return .node(nodeType, fields: fields, content: .inlines(nesting: [ListNodePlugin.type]))
    }

    /// The item's box: true or false when it has one (a checkbox before any nested list, or
    /// `aria-checked`), nil otherwise.
    static func checkbox(of item: HTMLElement) -> Bool? {
        if let checked = item.attribute("aria-checked") { return checked == "true" }
        let box = item.firstDescendant(descendingInto: { !["ul", "ol", "menu"].contains($0.tag) }) {
            $0.tag == "input" && $0.attribute("type")?.lowercased() == "checkbox"
        }
        return box.map { $0.attribute("checked") != nil }
    }

    /// Writes an item's start tag, and a check item's box.
    static func open(_ item: Node, isCheck: Bool, writer: inout HTMLWriter) throws(MarkupError) {
        guard isCheck, !writer.state.isNestedListWrapper(item.key) else {
            writer.openElement("li", for: item)
            return
        }
        writer.openElement("li", attributes: [HTMLAttribute("class", "task-list-item")], for: item)
        var box = [HTMLAttribute("type", "checkbox"), HTMLAttribute("disabled", "")]
        if ListItemNodePlugin.isChecked(item) == true { box.append(HTMLAttribute("checked", "")) }
        writer.voidElement("input", attributes: box)
        writer.writeText(" ")
    }

    public func export(_ node: Node, to writer: inout HTMLWriter) throws(MarkupError) {
        writer.openElement("li", for: node)
        try writer.writeChildren(of: node)
        writer.closeElement()
    }
}
