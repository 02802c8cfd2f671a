import QuireTextStorage

/// Colours and proportions a style environment applies.
public struct Theme: Hashable, Sendable {
    /// Font size multipliers for heading levels 1…6.
    public var headingScales: [Double]
    /// The body font family.
    public var bodyFamily: String
    /// The font family of code.
    public var codeFamily: String
    /// The colour of links.
    public var linkColor: String
    /// The colour of quoted text.
    public var quoteColor: String
    /// The background of code.
    public var codeBackground: String

    /// A theme; the defaults suit a terminal.
    public init(
        headingScales: [Double] = [2.0, 1.5, 1.25, 1.1, 1.0, 0.9], bodyFamily: String = "body", codeFamily: String = "monospace",
        linkColor: String = "blue", quoteColor: String = "gray", codeBackground: String = "lightgray"
    ) {
        self.headingScales = headingScales
        self.bodyFamily = bodyFamily
        self.codeFamily = codeFamily
        self.linkColor = linkColor
        self.quoteColor = quoteColor
        self.codeBackground = codeBackground
    }
}

/// A font as the pipeline describes it; metrics turn it into measurements.
public struct FontDescriptor: Hashable, Sendable {
    public var family: String
    public var size: Double
    public var bold: Bool
    public var italic: Bool

    /// A font.
    public init(family: String, size: Double, bold: Bool = false, italic: Bool = false) {
        self.family = family
        self.size = size
        self.bold = bold
        self.italic = italic
    }
}

/// How a run of text looks.
public struct TextStyle: Hashable, Sendable {
    public var font: FontDescriptor
    public var foreground: String?
    public var background: String?
    public var underline: Bool
    public var strikethrough: Bool
    /// The link target, for hit-testing.
    public var link: String?

    /// A style.
    public init(font: FontDescriptor, foreground: String? = nil, background: String? = nil, underline: Bool = false, strikethrough: Bool = false, link: String? = nil) {
        self.font = font
        self.foreground = foreground
        self.background = background
        self.underline = underline
        self.strikethrough = strikethrough
        self.link = link
    }
}

/// An attachment as it is placed in a run: what it is and how it resolved.
public struct AttachmentReference: Hashable, Sendable {
    public var source: String
    public var alt: String
    /// nil until stage 3 resolves it.
    public var result: AttachmentResult?

    /// A reference.
    public init(source: String, alt: String, result: AttachmentResult?) {
        self.source = source
        self.alt = alt
        self.result = result
    }
}

/// A run of one style in a styled paragraph (UTF-16 offsets into the text).
public struct StyledRun: Hashable, Sendable {
    public var range: Range<Int>
    public var style: TextStyle
    /// Set for a U+FFFC attachment run (one unit).
    public var attachment: AttachmentReference?
}

/// A paragraph with its styled runs (the final "\n" is not in a run).
public struct StyledParagraph: Hashable, Sendable {
    public var paragraph: IntentParagraph
    public var runs: [StyledRun]
}

/// Stage 4's output: the text with a style for every run.
public struct StyledText: Hashable, Sendable {
    /// The UTF-16 units of the text.
    public var units: [UInt16]
    public var paragraphs: [StyledParagraph]
}

/// Stage 4: an environment (base font size, dynamic-type scale, theme) that decides the inline
/// styles: headings scale and embolden, code uses the code family and background, links are
/// coloured and underlined, quotes take the quote colour.
public struct StyleEnvironment: Hashable, Sendable {
    /// The body font size before scaling.
    public var baseFontSize: Double
    /// The user's dynamic-type scale (1 = default).
    public var dynamicTypeScale: Double
    public var theme: Theme

    /// An environment.
    public init(baseFontSize: Double = 16, dynamicTypeScale: Double = 1, theme: Theme = Theme()) {
        self.baseFontSize = baseFontSize
        self.dynamicTypeScale = dynamicTypeScale
        self.theme = theme
    }

    /// The style of text with `attributes` in a paragraph with `path`.
    public func style(for attributes: Attributes, path: [BlockIdentity]) -> TextStyle {
        var size = baseFontSize * dynamicTypeScale
        var bold = attributes[.bold] == .bool(true)
        var family = theme.bodyFamily
        var foreground: String?
        var background: String?
        var code = attributes[.code] == .bool(true)
        for block in path {
            switch block.intent {
            case .heading(let level):
                size *= theme.headingScales[min(max(level, 1), theme.headingScales.count) - 1]
                bold = true
            case .codeBlock: code = true
            case .blockQuote: foreground = theme.quoteColor
            case .tableRow(let isHeader): if isHeader { bold = true }
            default: break
            }
        }
        if code {
            family = theme.codeFamily
            background = theme.codeBackground
        }
        var link: String?
        if case .string(let target)? = attributes[.link] {
            link = target
            foreground = theme.linkColor
        }
        return TextStyle(
            font: FontDescriptor(family: family, size: size, bold: bold, italic: attributes[.italic] == .bool(true)),
            foreground: foreground, background: background, underline: link != nil,
            strikethrough: attributes[.strikethrough] == .bool(true), link: link
        )
    }

    /// Stage 4: styles every run; attachments carry their stage-3 results.
    ///
    /// - Complexity: O(r + p) for r runs and p paragraphs.
    public func apply(to text: IntentText, attachments: [String: AttachmentResult] = [:]) -> StyledText {
        let units = Array(text.text.string.utf16)
        let runs = text.text.runs
        var paragraphs: [StyledParagraph] = []
        var runIndex = 0
        for paragraph in text.paragraphs {
            var styled: [StyledRun] = []
            let end = paragraph.range.upperBound - 1
            while runIndex < runs.count {
                let run = runs[runIndex]
                let lower = max(run.range.location, paragraph.range.lowerBound)
                let upper = min(run.range.location + run.range.length, end)
                if lower < upper {
                    let style = self.style(for: run.attributes, path: paragraph.path)
                    if case .record(let record)? = run.attributes[.attachment] {
                        let source = record[IntentText.AttachmentField.source].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
                        let alt = record[IntentText.AttachmentField.alt].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
                        for offset in lower..<upper {
                            styled.append(StyledRun(range: offset..<(offset + 1), style: style,
                                                    attachment: AttachmentReference(source: source, alt: alt, result: attachments[source])))
                        }
                    } else {
                        styled.append(StyledRun(range: lower..<upper, style: style, attachment: nil))
                    }
                }
                if run.range.location + run.range.length <= paragraph.range.upperBound { runIndex += 1 } else { break }
            }
            paragraphs.append(StyledParagraph(paragraph: paragraph, runs: styled))
        }
        return StyledText(units: units, paragraphs: paragraphs)
    }
}
