import QuireModel

/// Builds editor nodes from parsed HTML the way a browser shows it and Lexical's
/// `$generateNodesFromDOM` shapes it:
///
/// - each element goes through the first conversion that takes it (the plugins'); text formats,
///   paragraphs and line breaks are the importer's own;
/// - whitespace collapses as CSS `white-space: normal` renders it: runs become one space, spaces
///   at the start and end of a line go, a space after a space goes even across elements; in
///   `pre` (and `white-space: pre…`) it is kept and line feeds are line breaks; a block's last
///   `br` adds no line, as in a browser;
/// - the text of elements no conversion takes (`div`, `span`, `section`, `nav`, `dl`, `figure` …)
///   is kept: block-level ones start new paragraphs, inline ones are transparent; `script`,
///   `style`, `head`, `template`, `noscript` and `iframe` contribute nothing;
/// - content goes where the node types accept it: inline content outside a block gets a
///   paragraph, a list holds items, paragraphs inside a block of inline content (a quote, a list
///   item) continue it on a new line, and blocks nested deeper than `maximumDepth` flow into the
///   block around them.
public struct HTMLImporter: Sendable {
    /// The conversions used.
    public let conversions: HTMLConversions
    /// How deeply blocks nest in the result; deeper ones flow into their container's content.
    public var maximumDepth: Int

    /// An importer with `conversions`.
    public init(conversions: HTMLConversions, maximumDepth: Int = 48) {
        self.conversions = conversions
        self.maximumDepth = max(2, maximumDepth)
    }

    /// A new state built with `registry` holding the tree's content.
    ///
    /// - Throws: `MarkupError.cannotImport` when a node plugin refuses what a conversion made.
    /// - Complexity: O(n) in the tree's size (the nodes are built in one ``NodeBatch`` and stored
    ///   in one pass), plus the conversions' own work.
    public func makeState(_ tree: HTMLTree, registry: NodeRegistry) throws(MarkupError) -> EditorState {
        var state = EditorState(registry: registry)
        var builder = HTMLStateBuilder(batch: state.makeBatch(), conversions: conversions, maximumDepth: maximumDepth)
        try builder.run(tree)
        do { try state.insert(builder.takeBatch(placeholder: state.makeBatch()), roots: builder.topLevel, under: .root, after: nil) } catch {
            throw .cannotImport(intent: "block", reason: error.description, range: nil)
        }
        try builder.finish(in: &state)
        return state
    }

    /// Creates the tree's content in `state` as detached top-level blocks and returns them in
    /// order (what a paste inserts). On error `state` is unchanged.
    ///
    /// - Complexity: O(n) in the tree's size to build, each node stored in O(log₃₂ n).
    public func importNodes(_ tree: HTMLTree, into state: inout EditorState) throws(MarkupError) -> [NodeKey] {
        var builder = HTMLStateBuilder(batch: state.makeBatch(), conversions: conversions, maximumDepth: maximumDepth)
        try builder.run(tree)
        var updated = state
        // No roots: every node is stored detached, the top-level blocks for the caller to link.
        do { try updated.insert(builder.takeBatch(placeholder: updated.makeBatch()), roots: [], under: .root, after: nil) } catch {
            throw .cannotImport(intent: "block", reason: error.description, range: nil)
        }
        try builder.finish(in: &updated)
        state = updated
        return builder.topLevel
    }

    /// Elements whose content is not shown.
    static let skippedTags: Set<String> = ["head", "script", "style", "template", "noscript", "iframe", "title", "object"]

    /// Elements a browser lays out as blocks: they start and end lines.
    static let blockTags: Set<String> = HTMLWriter.blockTags.union([
        "body", "caption", "center", "colgroup", "dialog", "dir", "fieldset", "form", "frameset", "hgroup", "html", "legend",
        "listing", "menu", "optgroup", "option", "plaintext", "search", "summary", "xmp",
    ])

    /// Elements whose text is preformatted.
    static let preformattedTags: Set<String> = ["pre", "listing", "xmp", "plaintext", "textarea"]

    /// The formats elements stand for, as browsers' default style sheets and Lexical read them.
    static let formatTags: [String: TextFormat] = [
        "b": .bold, "strong": .bold, "i": .italic, "em": .italic, "u": .underline, "ins": .underline,
        "s": .strikethrough, "strike": .strikethrough, "del": .strikethrough, "code": .code, "kbd": .code,
        "samp": .code, "tt": .code, "sub": .subscript, "sup": .superscript, "mark": .highlight,
    ]

    /// What the importer's own rules say about a tag, in one lookup.
    struct TagRules {
        var isSkipped = false
        var isBlock = false
        var isPreformatted = false
        var format: TextFormat = []
    }

    static let tagRules: [String: TagRules] = {
        var rules: [String: TagRules] = [:]
        for tag in skippedTags { rules[tag, default: TagRules()].isSkipped = true }
        for tag in blockTags { rules[tag, default: TagRules()].isBlock = true }
        for tag in preformattedTags { rules[tag, default: TagRules()].isPreformatted = true }
        for (tag, format) in formatTags { rules[tag, default: TagRules()].format = format }
        return rules
    }()

    /// The formats an inline style turns on and off.
    static func formats(of style: InlineStyle) -> (add: TextFormat, remove: TextFormat) {
        var add: TextFormat = []
        var remove: TextFormat = []
        if let weight = style["font-weight"] {
            if ["bold", "bolder", "600", "700", "800", "900"].contains(weight) { add.insert(.bold) }
            if ["normal", "lighter", "100", "200", "300", "400", "500"].contains(weight) { remove.insert(.bold) }
        }
        if let fontStyle = style["font-style"] {
            if fontStyle.hasPrefix("italic") || fontStyle.hasPrefix("oblique") { add.insert(.italic) }
            if fontStyle == "normal" { remove.insert(.italic) }
        }
        for property in ["text-decoration", "text-decoration-line"] {
            guard let decoration = style[property] else { continue }
            if decoration.contains("underline") { add.insert(.underline) }
            if decoration.contains("line-through") { add.insert(.strikethrough) }
        }
        switch style["vertical-align"] {
        case "sub": add.insert(.subscript)
        case "super": add.insert(.superscript)
        default: break
        }
        switch style["text-transform"] {
        case "uppercase": add.insert(.uppercase)
        case "lowercase": add.insert(.lowercase)
        case "capitalize": add.insert(.capitalize)
        default: break
        }
        return (add, remove)
    }
}

/// How text inside an element is read.
enum TextMode: Equatable {
    /// Collapsed as `white-space: normal`.
    case flowing
    /// Kept, line feeds as line breaks, formats applied.
    case preformatted
    /// Kept, line feeds as line breaks, formats ignored (a code block's text).
    case literal
}

/// One model node being filled.
struct OpenContainer {
    var key: NodeKey?
    var type: NodeType
    var fields: JSONObject
    /// The DOM frame it was made in: its element's for a converted element, the current one for
    /// a node the importer added to hold content.
    var frame: Int
    /// Added by the importer to hold content (a paragraph around stray text, an item in a list).
    var isImplicit: Bool
    var isInlineElement: Bool
    var acceptsInline: Bool
    var childRule: ChildRule
    var nesting: Set<NodeType>
    var splitsForBlocks: Bool
    var isLiteral: Bool
    var conversion: (any HTMLConversion)?
    var id: Int
    // The line being filled (blocks of inline content only).
    var atLineStart = true
    var pendingBreaks = 0
    /// A collapsed space waiting for more content on the line: its format and the container it
    /// belongs in, by id.
    var pendingSpace: (format: TextFormat, container: Int)?
}

/// What a frame made when a block that did not fit inside took its container apart: made again
/// when content arrives for the frame.
struct SuspendedContainer {
    var type: NodeType
    var fields: JSONObject
    var rule: HTMLContentRule
    var conversion: any HTMLConversion
}

/// An element being read.
struct Frame {
    var element: Int
    var nextChild: Int32
    var format: TextFormat
    var mode: TextMode
    /// The container it made, by id.
    var container: Int?
    var suspended: SuspendedContainer?
    /// Whether it starts and ends lines (a block-level element that made no node).
    var isBoundary: Bool
}

/// Builds the nodes in a batch (no node storage written, nothing recorded, while the tree is
/// walked); ``finish(in:)`` then does, on the state the batch went into, what needs a state: it
/// removes the nodes a container that came apart left unused and runs the conversions'
/// `finishImport` in the order their containers closed (children before their parents, each on
/// a finished subtree, as when they ran at the close).
struct HTMLStateBuilder {
    var batch: NodeBatch
    let conversions: HTMLConversions
    let maximumDepth: Int
    var topLevel: [NodeKey] = []
    /// How many frames hold a suspended container (most documents have none, and then there is
    /// nothing to resume).
    var suspendedFrames = 0
    /// Nodes created and then not needed (detached in the batch).
    var discarded: [NodeKey] = []
    /// The closed containers whose conversion brings them into shape, in closing order.
    var finishing: [(key: NodeKey, type: NodeType, conversion: any HTMLConversion)] = []
    var containers: [OpenContainer] = []
    var frames: [Frame] = []
    var nextID = 0
    /// Text waiting to become one node: (container index, format, text, type).
    var pending: (container: Int, format: TextFormat, text: String, type: NodeType)?

    init(batch: NodeBatch, conversions: HTMLConversions, maximumDepth: Int) {
        self.batch = batch
        self.conversions = conversions
        self.maximumDepth = maximumDepth
    }

    var registry: NodeRegistry { batch.registry }

    /// The batch built, leaving `placeholder` in its place: the state that stores it then holds
    /// the only reference to its nodes (a second one would make linking the roots copy them all).
    mutating func takeBatch(placeholder: NodeBatch) -> NodeBatch {
        var taken = placeholder
        swap(&taken, &batch)
        return taken
    }

    /// Removes the discarded nodes from `state` (which holds the batch) and runs the
    /// conversions' `finishImport`.
    ///
    /// - Complexity: O(discarded · log₃₂ n), plus the conversions' work.
    func finish(in state: inout EditorState) throws(MarkupError) {
        for key in discarded {
            do { try state.remove(key) } catch { throw fail(error, state[key]?.type.rawValue ?? "node") }
        }
        for (key, type, conversion) in finishing {
            do { try conversion.finishImport(of: key, in: &state) } catch { throw fail(error, type.rawValue) }
        }
    }
    var top: Int { containers.count - 1 }

    func fail(_ error: ModelError, _ what: String) -> MarkupError {
        .cannotImport(intent: what, reason: error.description, range: nil)
    }

    // MARK: Walking the tree

    mutating func run(_ tree: HTMLTree) throws(MarkupError) {
        let rootRule = registry.plugin(for: .root)?.childRule ?? .blocks
        containers = [OpenContainer(key: nil, type: .root, fields: [:], frame: 0, isImplicit: false, isInlineElement: false, acceptsInline: false,
                                    childRule: rootRule, nesting: [], splitsForBlocks: false, isLiteral: false, conversion: nil, id: nextID)]
        nextID += 1
        frames = [Frame(element: 0, nextChild: tree.rows.firstChildren[0], format: [], mode: .flowing, container: nil, suspended: nil, isBoundary: false)]
        while !frames.isEmpty {
            let current = frames.count - 1
            let child = frames[current].nextChild
            guard child >= 0 else {
                try exitFrame()
                continue
            }
            frames[current].nextChild = tree.rows.nextSiblings[Int(child)]
            switch tree.rows.contents[Int(child)] {
            case .text(let string): try text(string, format: format)
            case .element: try enter(HTMLElement(tree: tree, index: Int(child)))
            }
        }
        try closeContainers(downTo: 1)
    }

    var format: TextFormat { frames.last?.format ?? [] }
    var mode: TextMode { frames.last?.mode ?? .flowing }

    mutating func push(_ element: HTMLElement, format: TextFormat, mode: TextMode, container: Int? = nil, isBoundary: Bool = false) {
        frames.append(Frame(element: element.index, nextChild: element.tree.rows.firstChildren[element.index], format: format, mode: mode,
                            container: container, suspended: nil, isBoundary: isBoundary))
    }

    mutating func enter(_ element: HTMLElement) throws(MarkupError) {
        let tag = element.tag
        let rules = HTMLImporter.tagRules[tag] ?? HTMLImporter.TagRules()
        if rules.isSkipped { return }
        if tag == "br" {
            try lineBreak()
            return
        }
        if mode == .literal {
            // Inside a code block only the text counts.
            push(element, format: format, mode: .literal)
            return
        }
        // Formats from the element's own style win over the ones its tag stands for.
        var styleFormats: (add: TextFormat, remove: TextFormat) = ([], [])
        var mode = self.mode
        if let style = element.attribute("style").map(InlineStyle.init) {
            styleFormats = HTMLImporter.formats(of: style)
            if let whiteSpace = style["white-space"], whiteSpace.hasPrefix("pre") || whiteSpace == "break-spaces" { mode = .preformatted }
        }
        func formatting(add: TextFormat, remove: TextFormat) -> TextFormat {
            format.subtracting(remove).union(add).subtracting(styleFormats.remove).union(styleFormats.add)
        }
        let context = HTMLImportContext(registry: registry, isPreformatted: mode != .flowing)
        guard let (result, conversion) = conversions.importing(element, context: context) else {
            try enterUnconverted(element, rules: rules, format: formatting(add: rules.format, remove: []), mode: mode)
            return
        }
        switch result {
        case .skip:
            return
        case .format(let add, let remove):
            push(element, format: formatting(add: add, remove: remove), mode: mode)
        case .leaf(let type, let fields):
            try leaf(type, fields: fields)
        case .node(let type, let fields, let rule):
            guard let plugin = registry.plugin(for: type) else {
                try enterUnconverted(element, rules: rules, format: formatting(add: [], remove: []), mode: mode)
                return
            }
            let format = formatting(add: [], remove: [])
            if plugin.role.isInline {
                try placeInline()
                try beforeContent(marksContent: false)
                let id = try openContainer(type: type, fields: fields, rule: rule, conversion: conversion, frame: frames.count, isImplicit: false)
                push(element, format: format, mode: mode, container: id)
                return
            }
            let fields = withBlockAttributes(fields, of: element, type: type)
            let frame = frames.count
            push(element, format: format, mode: rule == .literal ? .literal : mode)
            if let id = try placeBlock(type: type, fields: fields, rule: rule, conversion: conversion, frame: frame) {
                frames[frame].container = id
            } else {
                try flow(frame: frame, rule: rule)
            }
        }
    }

    /// A block that does not go in as a node flows into the content around it: its text starts
    /// a new line; a code block's lines keep their whitespace and become code-formatted text.
    mutating func flow(frame: Int, rule: HTMLContentRule) throws(MarkupError) {
        try boundary()
        frames[frame].isBoundary = true
        if rule == .literal {
            frames[frame].mode = .preformatted
            frames[frame].format.insert(.code)
        }
    }

    /// An element no conversion takes: a block boundary, an image's description, or
    /// transparent (with the format its tag stands for).
    mutating func enterUnconverted(_ element: HTMLElement, rules: HTMLImporter.TagRules, format: TextFormat, mode: TextMode) throws(MarkupError) {
        if element.tag == "img" {
            if let alt = element.attribute("alt"), !alt.isEmpty { try text(alt, format: format) }
            return
        }
        if rules.isBlock { try boundary() }
        push(element, format: format, mode: rules.isPreformatted ? .preformatted : mode, isBoundary: rules.isBlock)
    }

    mutating func exitFrame() throws(MarkupError) {
        let frame = frames.removeLast()
        if frame.suspended != nil { suspendedFrames -= 1 }
        if let id = frame.container, let index = containers.lastIndex(where: { $0.id == id }) {
            try closeContainers(downTo: index)
        }
        if frame.isBoundary { try boundary() }
    }

    /// The fields of a block node with the element's alignment and direction, when the node
    /// type has those fields and the conversion did not set them.
    func withBlockAttributes(_ fields: JSONObject, of element: HTMLElement, type: NodeType) -> JSONObject {
        guard let plugin = registry.plugin(for: type), plugin.role.isElement, !plugin.role.isInline else { return fields }
        var fields = fields
        let specs = plugin.fields
        if fields["format"] == nil, specs.contains(ElementFields.alignment) {
            let value = element.attribute("style").map(InlineStyle.init)?["text-align"] ?? element.attribute("align")?.lowercased()
            if let value, let alignment = ElementAlignment(rawValue: value), alignment != .none { fields["format"] = .string(alignment.rawValue) }
        }
        if fields["direction"] == nil, specs.contains(ElementFields.direction),
           let direction = element.attribute("dir").flatMap({ TextDirection(rawValue: $0.lowercased()) }) {
            fields["direction"] = .string(direction.rawValue)
        }
        return fields
    }

    // MARK: Containers

    /// The index of the block whose line the top container's inline content is on.
    var lineContainer: Int {
        var index = top
        while index > 0 && containers[index].isInlineElement { index -= 1 }
        return index
    }

    mutating func attach(_ key: NodeKey, to index: Int, what: String) throws(MarkupError) {
        if let parent = containers[index].key {
            do { try batch.append(key, to: parent) } catch { throw fail(error, what) }
        } else {
            topLevel.append(key)
        }
    }

    mutating func create(_ type: NodeType, text: String = "", fields: JSONObject = [:]) throws(MarkupError) -> NodeKey {
        do { return try batch.create(type: type, text: text, fields: fields) } catch { throw fail(error, type.rawValue) }
    }

    /// Creates the node of a container in the top container and pushes it; returns its id.
    @discardableResult
    mutating func openContainer(type: NodeType, fields: JSONObject, rule: HTMLContentRule, conversion: (any HTMLConversion)?, frame: Int, isImplicit: Bool) throws(MarkupError) -> Int {
        try flushText()
        guard let plugin = registry.plugin(for: type) else { throw .cannotImport(intent: type.rawValue, reason: "the node type is not registered", range: nil) }
        let childRule = plugin.childRule
        let isInline = plugin.role.isInline
        let acceptsInline = isInline || childRule.accepts(type: .text, role: .text)
        var nesting: Set<NodeType> = []
        var splits = false
        var literal = false
        switch rule {
        case .children where isImplicit:
            // A container made to hold stray content nests only what holds it (a list in an
            // item made in a list), so that stray content never reshapes the document.
            let parent = containers[top].type
            if acceptsInline, childRule.accepts(type: parent, role: .element(inline: false)) { nesting = [parent] }
        case .children:
            if acceptsInline, !isInline, childRule != .inlines {
                nesting = Set(registry.registeredTypes.filter { childRule.accepts(type: $0, role: registry.plugin(for: $0)?.role ?? .text) && registry.plugin(for: $0)?.role.isInline == false })
            }
        case .inlines(let nested, let splitting):
            nesting = nested
            splits = splitting
        case .literal:
            literal = true
        }
        let key = try create(type, fields: fields)
        try attach(key, to: top, what: type.rawValue)
        let id = nextID
        nextID += 1
        containers.append(OpenContainer(key: key, type: type, fields: fields, frame: frame, isImplicit: isImplicit, isInlineElement: isInline,
                                        acceptsInline: acceptsInline, childRule: childRule, nesting: nesting, splitsForBlocks: splits,
                                        isLiteral: literal, conversion: conversion, id: id))
        return id
    }

    /// Closes every container from the top down to `index` (the root, index 0, stays).
    mutating func closeContainers(downTo index: Int) throws(MarkupError) {
        while containers.count > max(1, index) { try closeTop() }
    }

    mutating func closeTop() throws(MarkupError) {
        if !containers[top].isInlineElement { try finishLine(of: top) }
        try flushText()
        let container = containers.removeLast()
        if let key = container.key, let conversion = container.conversion {
            finishing.append((key, container.type, conversion))
        }
    }

    /// Ends the line a block is filling: its last line break adds no line (as in a browser), so
    /// only the ones before it are written.
    mutating func finishLine(of index: Int) throws(MarkupError) {
        let breaks = containers[index].pendingBreaks
        containers[index].pendingBreaks = 0
        containers[index].pendingSpace = nil
        containers[index].atLineStart = true
        if breaks > 1 {
            for _ in 1..<breaks { try appendBreak(to: index) }
        }
    }

    /// Takes a block of inline content apart because a block that does not fit inside it
    /// arrived: the frame that made it will make a copy when more content arrives for it.
    mutating func suspendTop() throws(MarkupError) {
        let container = containers[top]
        if !container.isImplicit, let conversion = container.conversion, frames.indices.contains(container.frame) {
            let rule: HTMLContentRule = container.isLiteral ? .literal : .inlines(nesting: container.nesting, splitsForBlocks: container.splitsForBlocks)
            if frames[container.frame].suspended == nil { suspendedFrames += 1 }
            frames[container.frame].suspended = SuspendedContainer(type: container.type, fields: container.fields, rule: rule, conversion: conversion)
            frames[container.frame].container = nil
        }
        try flushText()
        if let key = container.key, batch[key]?.childCount == 0, containers[top].pendingBreaks == 0 {
            // Nothing came before the block: the element's node is not needed there.
            containers.removeLast()
            if let index = topLevel.lastIndex(of: key) {
                topLevel.remove(at: index)
            } else {
                do { try batch.detach(key) } catch { throw fail(error, container.type.rawValue) }
            }
            discarded.append(key)
            return
        }
        try closeTop()
    }

    /// Makes the containers of frames whose block was taken apart again, when content arrives
    /// for them.
    mutating func resumeSuspended() throws(MarkupError) {
        guard suspendedFrames > 0 else { return }
        var index = containers[top].frame + 1
        while index < frames.count {
            if let suspended = frames[index].suspended {
                frames[index].suspended = nil
                suspendedFrames -= 1
                if let id = try placeBlock(type: suspended.type, fields: suspended.fields, rule: suspended.rule, conversion: suspended.conversion, frame: index) {
                    frames[index].container = id
                } else {
                    try flow(frame: index, rule: suspended.rule)
                }
            }
            index += 1
        }
    }

    /// Makes the top container one that takes inline content: adds a paragraph where blocks go,
    /// or the one child type a container takes (an item in a list, a cell in a row); past the
    /// depth limit it closes containers until one takes a paragraph.
    mutating func placeInline() throws(MarkupError) {
        try resumeSuspended()
        var closing = false
        while !containers[top].acceptsInline {
            let canOpen = containers.count < maximumDepth
            let childRule = containers[top].childRule
            if canOpen && childRule.accepts(type: .paragraph, role: .element(inline: false)) {
                try openContainer(type: .paragraph, fields: [:], rule: .children, conversion: nil, frame: frames.count - 1, isImplicit: true)
                continue
            }
            if canOpen && !closing, let only = onlyBlockChild(of: childRule) {
                try openContainer(type: only, fields: [:], rule: .children, conversion: conversions.conversion(for: only), frame: frames.count - 1, isImplicit: true)
                continue
            }
            guard containers.count > 1 else { throw .cannotImport(intent: "text", reason: "the root takes no paragraphs", range: nil) }
            closing = true
            try closeTop()
        }
    }

    /// The one block type `rule` takes, if it takes exactly one.
    func onlyBlockChild(of rule: ChildRule) -> NodeType? {
        guard case .only(let types) = rule, types.count == 1, let only = types.first, registry.plugin(for: only)?.role.isInline == false else { return nil }
        return only
    }

    /// Places a block node and returns its container's id: in the top container when it takes
    /// it; an implicit paragraph before it ends; a container that takes one child type gets one
    /// made for it. In a block of inline content the block flows into that content (nil is
    /// returned) unless it is nested there or the block splits for blocks.
    mutating func placeBlock(type: NodeType, fields: JSONObject, rule: HTMLContentRule, conversion: (any HTMLConversion)?, frame: Int) throws(MarkupError) -> Int? {
        try resumeSuspended()
        guard let role = registry.plugin(for: type)?.role else { return nil }
        while true {
            let container = containers[top]
            if containers.count >= maximumDepth { return nil }
            if container.isImplicit && container.type == .paragraph {
                try closeTop()
                continue
            }
            if container.isImplicit && isClaimed(type, below: top) {
                try closeTop()
                continue
            }
            if container.acceptsInline {
                if container.nesting.contains(type) && container.childRule.accepts(type: type, role: role) {
                    try finishLine(of: lineContainer)
                    return try openContainer(type: type, fields: fields, rule: rule, conversion: conversion, frame: frame, isImplicit: false)
                }
                if container.isLiteral || type == .paragraph || !container.splitsForBlocks { return nil }
                try suspendTop()
                continue
            }
            if container.isImplicit && isClaimed(type, below: top) {
                // A row arriving in a cell made for stray content goes to the table.
                try closeTop()
                continue
            }
            if container.childRule.accepts(type: type, role: role) {
                return try openContainer(type: type, fields: fields, rule: rule, conversion: conversion, frame: frame, isImplicit: false)
            }
            if let only = onlyBlockChild(of: container.childRule), only != type {
                try openContainer(type: only, fields: [:], rule: .children, conversion: conversions.conversion(for: only), frame: frame - 1, isImplicit: true)
                continue
            }
            return nil
        }
    }

    /// Whether a container below `index` takes exactly the listed types and `type` among them
    /// (a table takes rows, a list items).
    ///
    /// - Complexity: O(depth).
    func isClaimed(_ type: NodeType, below index: Int) -> Bool {
        containers[..<index].contains { container in
            if case .only(let types) = container.childRule { return types.contains(type) }
            return false
        }
    }

    /// A block-level element starts or ends: an implicit paragraph ends; in a block of inline
    /// content the next content starts a new line.
    mutating func boundary() throws(MarkupError) {
        if top > 0 && containers[top].isImplicit && containers[top].type == .paragraph {
            try closeTop()
            return
        }
        let line = lineContainer
        guard containers[line].acceptsInline else { return }
        containers[line].pendingSpace = nil
        if !containers[line].atLineStart {
            containers[line].pendingBreaks += 1
            containers[line].atLineStart = true
        }
    }

    // MARK: Content

    mutating func lineBreak() throws(MarkupError) {
        if mode != .literal || !containers[top].acceptsInline { try placeInline() }
        let line = lineContainer
        containers[line].pendingBreaks += 1
        containers[line].pendingSpace = nil
        containers[line].atLineStart = true
    }

    /// Writes a line break: a hard one (`"hard": true`), as the markup importer marks the
    /// breaks that are not just line endings in the source, since a `br` always breaks the line.
    mutating func appendBreak(to index: Int) throws(MarkupError) {
        try flushText()
        let key = try create(.lineBreak, fields: [MarkupImporter.hardBreakField: .bool(true)])
        try attach(key, to: index, what: "linebreak")
    }

    /// Writes the line's pending breaks and space before content; an inline element's start
    /// (`marksContent` false) leaves the line as empty as it was.
    mutating func beforeContent(marksContent: Bool = true) throws(MarkupError) {
        let line = lineContainer
        let breaks = containers[line].pendingBreaks
        if breaks > 0 {
            containers[line].pendingBreaks = 0
            for _ in 0..<breaks { try appendBreak(to: top) }
        }
        if let space = containers[line].pendingSpace {
            containers[line].pendingSpace = nil
            let index = containers.lastIndex { $0.id == space.container } ?? top
            try appendText(" ", format: space.format, to: index)
        }
        if marksContent { containers[line].atLineStart = false }
    }

    mutating func leaf(_ type: NodeType, fields: JSONObject) throws(MarkupError) {
        guard let role = registry.plugin(for: type)?.role else { return }
        if role.isInline {
            try placeInline()
            try beforeContent()
            try flushText()
            let key = try create(type, fields: fields)
            try attach(key, to: top, what: type.rawValue)
            return
        }
        try resumeSuspended()
        // A block leaf goes where blocks go; inside a block of inline content it takes the block
        // apart when that block splits for blocks, and is left out otherwise (it has no text).
        while true {
            let container = containers[top]
            if container.isImplicit && container.type == .paragraph {
                try closeTop()
                continue
            }
            if container.acceptsInline {
                guard container.splitsForBlocks && !container.isImplicit else {
                    try boundary()
                    return
                }
                try suspendTop()
                continue
            }
            guard container.childRule.accepts(type: type, role: role) else { return }
            try flushText()
            let key = try create(type, fields: fields)
            try attach(key, to: top, what: type.rawValue)
            return
        }
    }

    static func isCollapsible(_ unit: UInt8) -> Bool {
        unit == 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D || unit == 0x0C
    }

    mutating func text(_ string: String, format: TextFormat) throws(MarkupError) {
        if mode != .flowing {
            try preformattedText(string, format: mode == .literal ? [] : format)
            return
        }
        let utf8 = string.utf8
        guard utf8.contains(where: { !Self.isCollapsible($0) }) else {
            // Whitespace alone never starts a block; on a line it is one space at most.
            let line = lineContainer
            if containers[top].acceptsInline, !utf8.isEmpty, !containers[line].atLineStart, containers[line].pendingSpace == nil {
                containers[line].pendingSpace = (format, containers[top].id)
            }
            return
        }
        try placeInline()
        let line = lineContainer
        var collapsed: [UInt8] = []
        collapsed.reserveCapacity(utf8.count)
        var inSpace = false
        for unit in utf8 {
            if Self.isCollapsible(unit) {
                if !inSpace { collapsed.append(0x20) }
                inSpace = true
            } else {
                collapsed.append(unit)
                inSpace = false
            }
        }
        var start = 0
        var end = collapsed.count
        if collapsed[0] == 0x20 {
            start = 1
            if !containers[line].atLineStart && containers[line].pendingSpace == nil {
                containers[line].pendingSpace = (format, containers[top].id)
            }
        }
        let trailing = collapsed[end - 1] == 0x20
        if trailing { end -= 1 }
        try beforeContent()
        try appendText(String(decoding: collapsed[start..<end], as: UTF8.self), format: format, to: top)
        if trailing { containers[line].pendingSpace = (format, containers[top].id) }
    }

    mutating func preformattedText(_ string: String, format: TextFormat) throws(MarkupError) {
        guard !string.isEmpty else { return }
        try placeInline()
        let line = lineContainer
        var first = true
        for segment in string.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first {
                containers[line].pendingBreaks += 1
                containers[line].pendingSpace = nil
                containers[line].atLineStart = true
            }
            first = false
            guard !segment.isEmpty else { continue }
            try beforeContent()
            try appendText(String(segment), format: format, to: top)
        }
    }

    /// Adds text to the node waiting to be written when it goes to the same container with the
    /// same format, else writes that one first.
    mutating func appendText(_ string: String, format: TextFormat, to index: Int) throws(MarkupError) {
        guard !string.isEmpty else { return }
        let container = containers[index]
        var type: NodeType = .text
        if container.isLiteral, registry.contains("code-highlight"), container.childRule.accepts(type: "code-highlight", role: .text) {
            type = "code-highlight"
        }
        if let current = pending, current.container == index, current.format == format, current.type == type {
            pending!.text += string
            return
        }
        try flushText()
        pending = (index, format, string, type)
    }

    mutating func flushText() throws(MarkupError) {
        guard let text = pending else { return }
        pending = nil
        var fields: JSONObject = [:]
        if !text.format.isEmpty { fields["format"] = .number(.integer(text.format.rawValue)) }
        let key = try create(text.type, text: text.text, fields: fields)
        try attach(key, to: text.container, what: text.type.rawValue)
    }
}
