/// One attribute of an HTML element: its lower-case name and its value with character references
/// decoded.
public struct HTMLAttribute: Hashable, Sendable {
    /// The lower-case name.
    public var name: String
    /// The value ("" for a bare attribute such as `checked`).
    public var value: String

    /// An attribute.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Parsed HTML as the conversions see it: elements and text, nothing else (comments, doctypes
/// and processing instructions are not kept).
///
/// The tree is an arena: every node is a row in flat arrays, linked by indices. A parser fills it
/// without recursion and nothing frees it recursively, so a hostile document nested a million
/// levels deep costs memory, not stack. Row 0 is the root, an element with an empty tag that holds
/// the parsed content.
public struct HTMLTree: Sendable {
    enum Content: Sendable {
        case element(tag: String, attributes: [HTMLAttribute])
        case text(String)
    }

    /// The rows, in one object, so that an `HTMLElement` (a tree and an index) copies with one
    /// reference count, not five.
    final class Rows: Sendable {
        let contents: [Content]
        let parents: [Int32]
        let firstChildren: [Int32]
        let nextSiblings: [Int32]

        init(contents: [Content], parents: [Int32], firstChildren: [Int32], nextSiblings: [Int32]) {
            self.contents = contents
            self.parents = parents
            self.firstChildren = firstChildren
            self.nextSiblings = nextSiblings
        }
    }

    let rows: Rows

    /// The number of elements and text nodes, the root included.
    public var count: Int { rows.contents.count }

    /// The root element (tag ""): the parsed content is its children.
    public var root: HTMLElement { HTMLElement(tree: self, index: 0) }

    /// An empty tree: the root alone.
    public init() {
        rows = Rows(contents: [.element(tag: "", attributes: [])], parents: [-1], firstChildren: [-1], nextSiblings: [-1])
    }

    init(rows: Rows) { self.rows = rows }

    func children(of index: Int) -> ChildIndices { ChildIndices(rows: rows, first: rows.firstChildren[index]) }

    /// The indices of one node's children, in order.
    struct ChildIndices: Sequence, IteratorProtocol {
        let rows: Rows
        var upcoming: Int32

        init(rows: Rows, first: Int32) {
            self.rows = rows
            upcoming = first
        }

        mutating func next() -> Int? {
            guard upcoming >= 0 else { return nil }
            let current = Int(upcoming)
            upcoming = rows.nextSiblings[current]
            return current
        }
    }
}

/// Fills an `HTMLTree` in document order: open an element, add its content, close it.
///
/// Parsers (the HTML plugin's gumbo reader) and tests build trees through it.
public struct HTMLTreeBuilder: Sendable {
    private var contents: [HTMLTree.Content] = [.element(tag: "", attributes: [])]
    private var parents: [Int32] = [-1]
    private var firstChildren: [Int32] = [-1]
    private var lastChildren: [Int32] = [-1]
    private var nextSiblings: [Int32] = [-1]
    private var open: [Int32] = [0]

    /// A builder whose current element is the root.
    public init() {}

    /// How many elements are open, the root not counted.
    public var depth: Int { open.count - 1 }

    private mutating func add(_ content: HTMLTree.Content) -> Int32 {
        let index = Int32(contents.count)
        let parent = open[open.count - 1]
        contents.append(content)
        parents.append(parent)
        firstChildren.append(-1)
        lastChildren.append(-1)
        nextSiblings.append(-1)
        let last = lastChildren[Int(parent)]
        if last >= 0 { nextSiblings[Int(last)] = index } else { firstChildren[Int(parent)] = index }
        lastChildren[Int(parent)] = index
        return index
    }

    /// Adds an element (tag lower-cased) to the current element and makes it current.
    ///
    /// - Complexity: amortized O(1) plus the tag's length.
    public mutating func openElement(_ tag: String, attributes: [HTMLAttribute] = []) {
        open.append(add(.element(tag: tag.lowercased(), attributes: attributes)))
    }

    /// Makes the current element's parent current again; the root is never closed.
    public mutating func closeElement() {
        if open.count > 1 { open.removeLast() }
    }

    /// Adds text to the current element; text right after text joins it.
    ///
    /// - Complexity: amortized O(length of `text`).
    public mutating func appendText(_ text: String) {
        guard !text.isEmpty else { return }
        let parent = Int(open[open.count - 1])
        let last = lastChildren[parent]
        if last >= 0, case .text(var existing) = contents[Int(last)] {
            contents[Int(last)] = .text("")
            existing += text
            contents[Int(last)] = .text(existing)
            return
        }
        _ = add(.text(text))
    }

    /// The tree built so far.
    public func finish() -> HTMLTree {
        HTMLTree(rows: HTMLTree.Rows(contents: contents, parents: parents, firstChildren: firstChildren, nextSiblings: nextSiblings))
    }
}

/// A piece of an element's content.
public enum HTMLContent: Sendable {
    case element(HTMLElement)
    case text(String)
}

/// An element of an `HTMLTree`, as conversions read it.
public struct HTMLElement: Sendable {
    let tree: HTMLTree
    let index: Int

    init(tree: HTMLTree, index: Int) {
        self.tree = tree
        self.index = index
    }

    /// The lower-case tag name ("" for the root).
    public var tag: String {
        if case .element(let tag, _) = tree.rows.contents[index] { return tag }
        return ""
    }

    /// The attributes in source order.
    public var attributes: [HTMLAttribute] {
        if case .element(_, let attributes) = tree.rows.contents[index] { return attributes }
        return []
    }

    /// The value of the attribute `name` (lower-case), or nil.
    ///
    /// - Complexity: O(attributes).
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// A URL-valued attribute (`href`, `src`) without the whitespace a browser strips from its
    /// ends, or nil.
    public func urlAttribute(_ name: String) -> String? {
        attribute(name)?.trimmingHTMLWhitespace()
    }

    /// The class names of the `class` attribute.
    public var classNames: [Substring] {
        (attribute("class") ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" })
    }

    /// The declarations of the `style` attribute.
    public var style: InlineStyle { InlineStyle(attribute("style") ?? "") }

    /// The element this one is in (nil for the root).
    public var parent: HTMLElement? {
        let parent = tree.rows.parents[index]
        return parent < 0 ? nil : HTMLElement(tree: tree, index: Int(parent))
    }

    /// The content: elements and text, in order.
    ///
    /// - Complexity: O(children).
    public var children: [HTMLContent] {
        tree.children(of: index).map { child in
            switch tree.rows.contents[child] {
            case .text(let text): .text(text)
            case .element: .element(HTMLElement(tree: tree, index: child))
            }
        }
    }

    /// The child elements, in order.
    ///
    /// - Complexity: O(children).
    public var childElements: [HTMLElement] {
        tree.children(of: index).compactMap { child in
            if case .element = tree.rows.contents[child] { return HTMLElement(tree: tree, index: child) }
            return nil
        }
    }

    /// The first element inside this one, in document order, that satisfies `predicate`, not
    /// descending into elements `descend` refuses.
    ///
    /// - Complexity: O(the elements visited).
    public func firstDescendant(descendingInto descend: (HTMLElement) -> Bool = { _ in true }, where predicate: (HTMLElement) -> Bool) -> HTMLElement? {
        var pending = Array(tree.children(of: index).reversed())
        while let next = pending.popLast() {
            guard case .element = tree.rows.contents[next] else { continue }
            let element = HTMLElement(tree: tree, index: next)
            if predicate(element) { return element }
            if descend(element) { pending.append(contentsOf: tree.children(of: next).reversed()) }
        }
        return nil
    }

    /// All text inside the element, concatenated (what `textContent` is in the DOM).
    ///
    /// - Complexity: O(the subtree).
    public var textContent: String {
        var result = ""
        var pending = Array(tree.children(of: index).reversed())
        while let next = pending.popLast() {
            switch tree.rows.contents[next] {
            case .text(let text): result += text
            case .element: pending.append(contentsOf: tree.children(of: next).reversed())
            }
        }
        return result
    }
}

/// The declarations of an inline `style` attribute, read the way a browser's CSSOM reads the
/// few properties text import cares about: property names lower-cased, values trimmed and
/// lower-cased, `!important` dropped, the last declaration of a property winning.
public struct InlineStyle: Hashable, Sendable {
    /// (property, value) pairs in source order.
    public let declarations: [(property: String, value: String)]

    /// Parses `text` (`font-weight: bold; color: red`); malformed declarations are skipped.
    ///
    /// - Complexity: O(n).
    public init(_ text: String) {
        var result: [(String, String)] = []
        for declaration in text.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingHTMLWhitespace().lowercased()
            var value = declaration[declaration.index(after: colon)...].trimmingHTMLWhitespace().lowercased()
            if value.hasSuffix("!important") { value = String(value.dropLast("!important".count)).trimmingHTMLWhitespace() }
            guard !property.isEmpty else { continue }
            result.append((property, value))
        }
        declarations = result
    }

    /// The value of `property`, or nil.
    public subscript(property: String) -> String? {
        declarations.last { $0.property == property }?.value
    }

    public static func == (lhs: InlineStyle, rhs: InlineStyle) -> Bool {
        lhs.declarations.elementsEqual(rhs.declarations) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        for (property, value) in declarations {
            hasher.combine(property)
            hasher.combine(value)
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing ASCII whitespace (space, tab, line feed, carriage
    /// return, form feed: HTML's definition).
    public func trimmingHTMLWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
