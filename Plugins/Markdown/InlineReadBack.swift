import QuireMarkup

/// The check that keeps the writer's emphasis honest: cmark-gfm pairs `*` and `_` delimiter runs
/// by rules that look at both neighbours of every run (flanking, the "multiple of 3" rule, runs of
/// different lengths sharing characters), so escaping text and choosing delimiters locally cannot
/// be right for every neighbourhood. A paragraph with emphasis, strong emphasis or strikethrough
/// is therefore read back once it is written, and when it does not read back as what was meant,
/// written again more plainly:
///
/// 1. as written, when it reads back the same (and what it reads back as is written the same:
///    the next import and export of the document changes nothing);
/// 2. with spans nested in a span of their own kind (`*a *b* c*`) merged into it, which a reader
///    shows the same and which needs no run of two delimiters;
/// 3. without its emphasis, strong emphasis and strikethrough, all text kept, reported as a loss;
///    only when that version does read back the same (a mismatch with another cause is not
///    cured by dropping formats, so the first version is kept);
/// 4. when raw HTML begins the block and would begin an HTML block there instead (`</a>` alone
///    on the first line: nothing can be written before it to stop that), with that HTML as
///    text, which shows the same characters, reported as a loss (with its formats, then
///    without them).
///
/// Blocks without those spans, and blocks whose every delimiter has a letter or digit inside and
/// nothing that could join its run outside (`*word*`, `**two words**`), are written once and not
/// parsed: the writer says which (`InlineWriter.needsReadBack`).
enum InlineReadBack {
    /// What writing one block's inlines gave: its lines, and whether formats were dropped.
    struct Written {
        var lines: [String]
        var droppedFormats: Bool
        /// Whether raw HTML that begins the block was written as text.
        var htmlAsText = false
    }

    /// `inlines` written in `context` by `write`, checked as described above.
    ///
    /// - Complexity: O(n) in the inlines' size; a block the writer is unsure of is parsed once
    ///   more, and a few times when its first writing fails the check.
    static func checked(_ inlines: [MarkupInline], context: InlineWriter.Context,
                        write: ([MarkupInline]) -> (lines: [String], needsReadBack: Bool)) -> Written {
        let first = write(inlines)
        guard first.needsReadBack else { return Written(lines: first.lines, droppedFormats: false) }
        if let lines = settled(first.lines, meaning: inlines, context: context, write: write) {
            return Written(lines: lines, droppedFormats: false)
        }
        let merged = mergingNestedSpans(inlines)
        if merged != inlines, let lines = settled(write(merged).lines, meaning: merged, context: context, write: write) {
            return Written(lines: lines, droppedFormats: false)
        }
        let plain = withoutDelimiterSpans(inlines)
        if let lines = settled(write(plain).lines, meaning: plain, context: context, write: write) {
            return Written(lines: lines, droppedFormats: true)
        }
        if case .html(let html)? = inlines.first?.intent {
            var textual = inlines
            textual[0] = MarkupInline(.text(html))
            if let lines = settled(write(textual).lines, meaning: textual, context: context, write: write) {
                return Written(lines: lines, droppedFormats: false, htmlAsText: true)
            }
            let plainTextual = withoutDelimiterSpans(textual)
            if let lines = settled(write(plainTextual).lines, meaning: plainTextual, context: context, write: write) {
                return Written(lines: lines, droppedFormats: true, htmlAsText: true)
            }
        }
        return Written(lines: first.lines, droppedFormats: false)
    }

    /// `lines` (`meaning` written) when they read back as `meaning`, and when what they read back
    /// as is written the same way: what the next import and export of the document writes. A
    /// read-back whose writing differs (the writer chose delimiters from details the source did
    /// not have) is followed, up to three times, for as long as it keeps the meaning.
    static func settled(_ lines: [String], meaning: [MarkupInline], context: InlineWriter.Context,
                        write: ([MarkupInline]) -> (lines: [String], needsReadBack: Bool)) -> [String]? {
        let breaksAreSpaces = context == .tableCell || context == .headingOneLine
        let meant = normalized(meaning, breaksAreSpaces: breaksAreSpaces)
        let labels = footnoteLabels(meaning)
        var current = lines
        for attempt in 0..<3 {
            guard let read = readBack(current, context: context, footnotes: labels), normalized(read, breaksAreSpaces: breaksAreSpaces) == meant else { return nil }
            // `lines` are `meaning` written (every caller's), and writing reads no range: what
            // reads back as `meaning` itself is written as `lines` again, without writing it.
            if attempt == 0, read.count == meaning.count, zip(read, meaning).allSatisfy({ $0.equalsIgnoringRanges($1) }) { return current }
            let again = write(read).lines
            if again == current { return current }
            current = again
        }
        return nil
    }

    static func isDelimiterSpan(_ intent: InlineIntent) -> Bool {
        intent == .emphasis || intent == .strong || intent == .strikethrough
    }

    /// `inlines` with every delimiter span whose parent is a span of the same kind replaced by
    /// its children.
    static func mergingNestedSpans(_ inlines: [MarkupInline]) -> [MarkupInline] {
        splicing(inlines, inside: nil) { intent, parent in intent == parent }
    }

    /// `inlines` with every delimiter span replaced by its children.
    static func withoutDelimiterSpans(_ inlines: [MarkupInline]) -> [MarkupInline] {
        splicing(inlines, inside: nil) { _, _ in true }
    }

    /// `inlines` with every delimiter span for which `splices(intent, parent intent)` holds
    /// replaced by its children, at every depth.
    static func splicing(_ inlines: [MarkupInline], inside parent: InlineIntent?,
                         where splices: (InlineIntent, InlineIntent?) -> Bool) -> [MarkupInline] {
        var result: [MarkupInline] = []
        for inline in inlines {
            var copy = inline
            copy.children = splicing(inline.children, inside: inline.intent, where: splices)
            if isDelimiterSpan(inline.intent), splices(inline.intent, parent) {
                result.append(contentsOf: copy.children)
            } else {
                result.append(copy)
            }
        }
        return result
    }

    /// The labels of the footnote references among `inlines`, at every depth.
    ///
    /// - Complexity: O(n) in the inlines' size.
    static func footnoteLabels(_ inlines: [MarkupInline]) -> [String] {
        var seen = Set<String>()
        return FootnoteDefinitions.labels(in: [MarkupBlock(.paragraph, inlines: inlines)]).references.filter { seen.insert($0).inserted }
    }

    /// The inlines cmark-gfm reads from `lines` where `context` puts them; nil when they are not
    /// one block of that context. The footnotes `footnotes` names are defined after the block, so
    /// that its references read back as references (and the next writing keeps them so).
    static func readBack(_ lines: [String], context: InlineWriter.Context, footnotes: [String] = []) -> [MarkupInline]? {
        var source: String
        switch context {
        case .paragraph: source = lines.joined(separator: "\n")
        // Setext: the content's lines are a heading's whatever they look like.
        case .heading: source = lines.joined(separator: "\n") + "\n==="
        case .headingOneLine: source = "# " + lines.joined(separator: " ")
        // A cell's `\|` is taken out before its inlines are parsed, as in a table and only there.
        case .tableCell: source = "| " + lines.joined(separator: " ") + " |\n| --- |"
        }
        for label in footnotes { source += "\n\n[^" + label + "]: ." }
        let document: MarkupDocument
        do {
            document = try MarkdownFormat().parse(source)
        } catch {
            return nil
        }
        guard let block = document.blocks.first,
              document.blocks.dropFirst().allSatisfy({ if case .footnoteDefinition = $0.intent { true } else { false } }) else { return nil }
        switch (context, block.intent) {
        case (.paragraph, .paragraph), (.heading, .heading), (.headingOneLine, .heading):
            return block.inlines
        case (.tableCell, .table):
            guard let row = block.children.first, row.children.count == 1 else { return nil }
            return row.children[0].inlines
        default:
            return nil
        }
    }

    /// What a reader sees of `inlines`, in one spelling: no details or ranges, adjacent texts
    /// joined, soft and hard breaks alike (the writer makes a soft break hard where a line would
    /// be empty), breaks ending the block dropped (markdown has none), an image's description as
    /// its text, a footnote reference as its text (a lone paragraph has no definitions), an
    /// email autolink as its text, neighbouring code spans as one, and a link in a link as its
    /// children.
    /// Breaks end the block when they end `inlines` and `isLast` says nothing follows them, as
    /// the writer decides.
    static func normalized(_ inlines: [MarkupInline], breaksAreSpaces: Bool, isLast: Bool = true, insideLink: Bool = false) -> [MarkupInline] {
        var result: [MarkupInline] = []
        func appendText(_ text: String) {
            guard !text.isEmpty else { return }
            if case .text(let previous) = result.last?.intent {
                result[result.count - 1] = MarkupInline(.text(previous + text))
            } else {
                result.append(MarkupInline(.text(text)))
            }
        }
        for (index, inline) in inlines.enumerated() {
            switch inline.intent {
            case .text(let text): appendText(text)
            case .footnoteReference(let label): appendText("[^" + label + "]")
            case .code(let code):
                if case .code(let previous) = result.last?.intent {
                    result[result.count - 1] = MarkupInline(.code(previous + code))
                } else {
                    result.append(MarkupInline(.code(code)))
                }
            case .softBreak, .lineBreak:
                if breaksAreSpaces { appendText(" ") } else { result.append(MarkupInline(.lineBreak)) }
            case .image(let source, let title):
                result.append(MarkupInline(.image(source: source, title: title), children: [MarkupInline(.text(inline.plainText))]))
            case .link(let destination, nil) where destination == "mailto:" + inline.plainText:
                // GFM links an email address in text after the escapes are read, so no escape
                // keeps `a@b.c` text: the link shows its text, and that text is what was meant.
                appendText(inline.plainText)
            case .link where insideLink:
                // A link in a link is written as its text (`InlineWriter`): markdown has none.
                let last = isLast && index == inlines.count - 1
                for child in normalized(inline.children, breaksAreSpaces: breaksAreSpaces, isLast: last, insideLink: true) {
                    if case .text(let text) = child.intent { appendText(text) } else { result.append(child) }
                }
            default:
                let last = isLast && index == inlines.count - 1
                var isLink = false
                if case .link = inline.intent { isLink = true }
                result.append(MarkupInline(inline.intent, children: normalized(inline.children, breaksAreSpaces: breaksAreSpaces, isLast: last,
                                                                              insideLink: insideLink || isLink)))
            }
        }
        while isLast, result.last?.intent == .lineBreak { result.removeLast() }
        return result
    }
}
