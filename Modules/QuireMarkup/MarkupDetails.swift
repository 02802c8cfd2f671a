import QuireModel

/// The keys of ``MarkupBlock/details`` and ``MarkupInline/details``: how the source wrote a node
/// where the format had a choice that does not change what a reader sees (a list's bullet, a code
/// fence, emphasis with `_`), and the structure Lexical's node types have no place for (block
/// quotes around non-paragraph blocks, nested emphasis).
///
/// ``MarkupImporter`` keeps a block's and an inline's details in the node's ``field`` (a JSON
/// object, written only when it has members), so a document that came from markup exports back
/// close to its source; ``MarkupExporter`` reads them back. An app that edits the document never
/// needs them: a node without the field exports in the format's default style.
///
/// The article <doc:MarkupDetailsFields> lists every key with examples.
public enum MarkupDetails {
    /// The node field that holds the details: `"markup": {"bullet": "*", "loose": true}`.
    public static let field = "markup"

    // MARK: Written by a parser

    /// A bullet list's bullet character: `"-"` (the default), `"*"` or `"+"`.
    public static let bullet = "bullet"
    /// An ordered list's delimiter: `"."` (the default) or `")"`; emphasis, strong emphasis and
    /// strikethrough delimiters: `"*"`/`"_"`, `"**"`/`"__"`, `"~~"`/`"~"`.
    public static let delimiter = "delimiter"
    /// A task list written with numbers (`3. [ ] a`): its start number.
    public static let orderedStart = "ordered"
    /// A heading written with an underline (setext) rather than `#` marks: `true`.
    public static let setext = "setext"
    /// A code block's fence: the fence as written (`"~~~"`, `` "````" ``), followed by a space when
    /// the source put one before the info string (`` "``` " ``), or `""` for an indented code
    /// block. Absent: three backticks (or more, when the code holds a line of backticks).
    public static let fence = "fence"
    /// A fenced code block's whole info string when it says more than its language
    /// (`"python title=x.py"`).
    public static let info = "info"
    /// A thematic break as written (`"* * *"`, `"___"`). Absent: `"***"`.
    public static let rule = "rule"
    /// A hard line break written as two or more trailing spaces rather than a backslash: `true`.
    public static let spaces = "spaces"
    /// A link written as an autolink: `"angle"` (`<https://x.y>`) or `"bare"` (GFM's extended
    /// autolinks, `www.x.y`).
    public static let autolink = "autolink"

    // MARK: Written by the importer

    /// A list whose items are separated by blank lines (a loose list): `true`.
    public static let loose = "loose"
    /// The block quotes around a block that Lexical's `quote`, a block of inline content, cannot
    /// hold: one character per enclosing quote, outermost first, `">"` where the block starts a
    /// new quote and `"|"` where it continues the quote of the block before it. A `quote` node's
    /// own quote is the last one. Absent: no quote around a block; for a `quote` node, `"|"` after
    /// another non-empty `quote` node, else `">"`.
    public static let quotes = "quotes"
    /// A list item that holds only a list and is an item of its own (`- - a`), not Lexical's
    /// holder of the previous item's nested list: `true`.
    public static let ownItem = "ownItem"
    /// The spans around an inline node (emphasis, strong emphasis, strikethrough and the link it
    /// is in), outermost first, when its text formats alone would not nest them as the source
    /// did (`*a *b* c*`, `[*a*](u)` beside `*[a](u)*`): each span is its delimiter followed by a
    /// number unique in the block (`"*0"`, `"__1"`), the link `"link"`.
    public static let spans = "spans"
}
