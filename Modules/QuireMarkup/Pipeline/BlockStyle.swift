/// The kinds of block a ``BlockStyles`` set has a style for: one per ``BlockIntent`` case.
public enum BlockKind: String, Hashable, Sendable, CaseIterable {
    case paragraph, heading, blockQuote, list, listItem, codeBlock, htmlBlock, thematicBreak, table, tableRow, tableCell, footnoteDefinition
}

extension BlockIntent {
    /// The kind of block, which picks its style.
    public var kind: BlockKind {
        switch self {
        case .paragraph: .paragraph
        case .heading: .heading
        case .blockQuote: .blockQuote
        case .list: .list
        case .listItem: .listItem
        case .codeBlock: .codeBlock
        case .htmlBlock: .htmlBlock
        case .thematicBreak: .thematicBreak
        case .table: .table
        case .tableRow: .tableRow
        case .tableCell: .tableCell
        case .footnoteDefinition: .footnoteDefinition
        }
    }
}

/// Vertical space around a block, in layout units (terminal rows, points).
public struct BlockSpacing: Hashable, Sendable {
    /// The space above the block.
    public var top: Double
    /// The space below the block.
    public var bottom: Double

    /// Spacing.
    public init(top: Double = 0, bottom: Double = 0) {
        self.top = top
        self.bottom = bottom
    }

    /// No space.
    public static let none = BlockSpacing()

    /// The space between a block whose bottom spacing is `bottom` and the block below it whose
    /// top spacing is `top`: the larger of the two, not their sum, as CSS collapses adjacent
    /// vertical margins (and Textual's block stack reconciles them), so a paragraph after a
    /// heading is one blank line away, not two.
    public static func collapsed(bottom: Double, top: Double) -> Double { max(bottom, top) }
}

/// What a block does with lines wider than the width available to it.
public enum BlockOverflow: Hashable, Sendable {
    /// Soft-wrap at the width.
    case wrap
    /// Keep each line whole and scroll the block horizontally (a code block): the block is then
    /// its own selection context: a document selection leaves it out.
    case scrollHorizontally
}

/// How one block is drawn around its content: what a ``BlockStyle`` returns.
public struct BlockDecoration: Hashable, Sendable {
    /// Added to the indent of the blocks around it.
    public var indent: Double
    /// Drawn in the indent at the start of the first line of the paragraph being built (a
    /// bullet, a number, a checkbox, a quote bar); nil keeps what an outer block drew, an empty
    /// string clears it. The innermost block's marker wins.
    public var marker: String?
    /// The space above and below the block; adjacent spacings collapse
    /// (``BlockSpacing/collapsed(bottom:top:)``).
    public var spacing: BlockSpacing
    /// What lines wider than the block do; the innermost block that asks for horizontal
    /// scrolling wins.
    public var overflow: BlockOverflow

    /// A decoration; the defaults add nothing.
    public init(indent: Double = 0, marker: String? = nil, spacing: BlockSpacing = .none, overflow: BlockOverflow = .wrap) {
        self.indent = indent
        self.marker = marker
        self.spacing = spacing
        self.overflow = overflow
    }
}

/// Where a table cell is in its table.
public struct TableGeometry: Hashable, Sendable {
    /// The cell's row, 0-based (the header row is 0 in a markdown table).
    public var row: Int
    /// The cell's column, 0-based.
    public var column: Int
    /// How many rows the table has.
    public var rowCount: Int
    /// How many columns its widest row has.
    public var columnCount: Int
    /// Whether the cell's row is a header row.
    public var isHeader: Bool
    /// The column's alignment.
    public var alignment: TableAlignment

    /// A geometry.
    public init(row: Int, column: Int, rowCount: Int, columnCount: Int, isHeader: Bool, alignment: TableAlignment) {
        self.row = row
        self.column = column
        self.rowCount = rowCount
        self.columnCount = columnCount
        self.isHeader = isHeader
        self.alignment = alignment
    }
}

/// What a ``BlockStyle`` is told about the block it decorates, for one paragraph of it (a block
/// with several paragraphs — a quote, a list item — is asked once per paragraph, with
/// ``isFirstParagraph`` and ``isLastParagraph`` saying where that paragraph is).
public struct BlockStyleConfiguration: Hashable, Sendable {
    /// The block being decorated.
    public var block: BlockIdentity
    /// The blocks around it, outermost first.
    public var enclosing: [BlockIdentity]
    /// The text of the paragraph being built (without its final "\n").
    public var content: String
    /// Whether that paragraph is the block's first, and its last.
    public var isFirstParagraph: Bool
    public var isLastParagraph: Bool
    /// A heading's level (1…6).
    public var headingLevel: Int?
    /// How many lists enclose the block, counting itself when it is a list: 1 for a top-level
    /// list and its items.
    public var listDepth: Int
    /// For a list item: its marker ("•", "3.", "☑", "☐").
    public var listMarker: String?
    /// Whether the nearest list around the block (or the block itself) is tight: its items'
    /// paragraphs are not separated by blank lines.
    public var isInTightList: Bool
    /// How many block quotes enclose the block, counting itself.
    public var quoteDepth: Int
    /// A code block's language, as its info string names it.
    public var codeLanguage: String?
    /// For a table cell: where it is in its table.
    public var table: TableGeometry?
    /// The width of a space and the height of a line of body text in the layout's metrics, so
    /// a style can speak in cells and lines whatever the metrics.
    public var spaceWidth: Double
    public var lineHeight: Double

    /// A configuration.
    public init(block: BlockIdentity, enclosing: [BlockIdentity], content: String, isFirstParagraph: Bool, isLastParagraph: Bool,
                headingLevel: Int? = nil, listDepth: Int = 0, listMarker: String? = nil, isInTightList: Bool = false, quoteDepth: Int = 0,
                codeLanguage: String? = nil, table: TableGeometry? = nil, spaceWidth: Double = 1, lineHeight: Double = 1) {
        self.block = block
        self.enclosing = enclosing
        self.content = content
        self.isFirstParagraph = isFirstParagraph
        self.isLastParagraph = isLastParagraph
        self.headingLevel = headingLevel
        self.listDepth = listDepth
        self.listMarker = listMarker
        self.isInTightList = isInTightList
        self.quoteDepth = quoteDepth
        self.codeLanguage = codeLanguage
        self.table = table
        self.spaceWidth = spaceWidth
        self.lineHeight = lineHeight
    }

    /// Whether the block is inside a list item (a nested list, a list item's paragraph).
    public var isInListItem: Bool { enclosing.contains { $0.intent.kind == .listItem } }
}

/// The style of one kind of block (Textual's per-block styles): from the block's content and
/// metadata, its indent, marker, spacing and overflow.
public protocol BlockStyle: Sendable {
    /// The decoration of the block described by `configuration`.
    func decoration(_ configuration: BlockStyleConfiguration) -> BlockDecoration
}

/// A block style from a closure, for an app's one-off override.
public struct BlockStyleFunction: BlockStyle {
    private let body: @Sendable (BlockStyleConfiguration) -> BlockDecoration

    /// A style that decorates with `body`.
    public init(_ body: @escaping @Sendable (BlockStyleConfiguration) -> BlockDecoration) { self.body = body }

    public func decoration(_ configuration: BlockStyleConfiguration) -> BlockDecoration { body(configuration) }
}

/// The standard theme's style for one kind of block: spacing in lines of body text (collapsed
/// between neighbours), indents in spaces, quote bars, list markers; a code block is indented
/// and, unless told otherwise, scrolls horizontally.
public struct StandardBlockStyle: BlockStyle {
    /// The kind it styles.
    public var kind: BlockKind
    /// The space above and below a block that has any, in lines.
    public var spacingLines: Double
    /// What a code block does with long lines.
    public var codeOverflow: BlockOverflow

    /// A style.
    public init(_ kind: BlockKind, spacingLines: Double = 1, codeOverflow: BlockOverflow = .scrollHorizontally) {
        self.kind = kind
        self.spacingLines = spacingLines
        self.codeOverflow = codeOverflow
    }

    public func decoration(_ configuration: BlockStyleConfiguration) -> BlockDecoration {
        let line = spacingLines * configuration.lineHeight
        let space = configuration.spaceWidth
        let around = BlockSpacing(top: line, bottom: line)
        switch kind {
        case .paragraph:
            // A tight list's items are not separated; a loose one's paragraphs are.
            return BlockDecoration(spacing: configuration.isInTightList && configuration.isInListItem ? .none : around)
        case .heading, .htmlBlock, .thematicBreak, .table, .footnoteDefinition:
            return BlockDecoration(spacing: around)
        case .blockQuote:
            return BlockDecoration(indent: 2 * space, marker: "│", spacing: around)
        case .list:
            // A list nested in an item continues it without a gap.
            return BlockDecoration(spacing: configuration.isInListItem ? .none : around)
        case .listItem:
            let marker = configuration.listMarker ?? ""
            return BlockDecoration(indent: Double(max(2, marker.count + 1)) * space, marker: configuration.isFirstParagraph ? marker : "")
        case .codeBlock:
            return BlockDecoration(indent: 2 * space, spacing: around, overflow: codeOverflow)
        case .tableRow, .tableCell:
            return BlockDecoration()
        }
    }
}

/// One style per kind of block. The theme's set (``standard``) gives the defaults; an app
/// replaces the style of one kind and keeps the others.
public struct BlockStyles: Sendable {
    private var styles: [BlockKind: any BlockStyle]

    /// A set with `styles`; kinds it leaves out get the standard theme's style.
    public init(_ styles: [BlockKind: any BlockStyle] = [:]) {
        var all = Self.theme(spacingLines: 1, codeOverflow: .scrollHorizontally)
        all.merge(styles) { _, mine in mine }
        self.styles = all
    }

    private static func theme(spacingLines: Double, codeOverflow: BlockOverflow) -> [BlockKind: any BlockStyle] {
        Dictionary(uniqueKeysWithValues: BlockKind.allCases.map { ($0, StandardBlockStyle($0, spacingLines: spacingLines, codeOverflow: codeOverflow) as any BlockStyle) })
    }

    /// The theme's defaults: a blank line around paragraphs, headings, quotes, top-level lists,
    /// code blocks, tables and rules (collapsed between neighbours, none between a tight list's
    /// items); code blocks scroll horizontally.
    public static var standard: BlockStyles { BlockStyles() }

    /// The theme's indents and markers without any spacing, code blocks wrapping: for a live
    /// editor, whose rows are the flat string's lines, and plain text.
    public static var compact: BlockStyles { BlockStyles(theme(spacingLines: 0, codeOverflow: .wrap)) }

    /// The style of `kind`.
    public subscript(kind: BlockKind) -> any BlockStyle {
        get { styles[kind] ?? StandardBlockStyle(kind) }
        set { styles[kind] = newValue }
    }

    /// This set with `style` for `kind`, every other kind unchanged.
    public func replacing(_ kind: BlockKind, with style: any BlockStyle) -> BlockStyles {
        var copy = self
        copy[kind] = style
        return copy
    }
}
