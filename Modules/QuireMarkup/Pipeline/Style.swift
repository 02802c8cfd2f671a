import QuireStyle
import QuireTextStorage

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
}

/// An attachment as it is placed in a run: what it is and how it resolved.
public struct AttachmentReference: Hashable, Sendable {
    public var source: String
    public var alt: String
    /// nil until stage 3 resolves it.
    public var result: AttachmentResult?
    /// The width and height the document sets (an editor's image node), nil for the image's own.
    public var declaredWidth: Double? = nil
    public var declaredHeight: Double? = nil
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

/// Stage 4: an environment (base font size, dynamic-type scale, palette) that decides the inline
/// styles: headings scale and embolden, code uses the code family and background, links are
/// coloured and underlined, quotes take the quote colour.
public struct StyleEnvironment: Hashable, Sendable {
    /// The body font size before scaling.
    public var baseFontSize: Double
    /// The user's dynamic-type scale (1 = default).
    public var dynamicTypeScale: Double
    /// The fonts and colours.
    public var palette: StylePalette

    /// An environment.
    public init(baseFontSize: Double = 16, dynamicTypeScale: Double = 1, palette: StylePalette = StylePalette()) {
        self.baseFontSize = baseFontSize
        self.dynamicTypeScale = dynamicTypeScale
        self.palette = palette
    }

    /// The colour raw markup (HTML in markdown) is shown in: muted, as source rather than content.
    public static let rawMarkupColor = "gray"

    /// The style of text with `attributes` in a paragraph with `path`.
    public func style(for attributes: Attributes, path: [BlockIdentity]) -> TextStyle {
        var size = baseFontSize * dynamicTypeScale
        var bold = attributes[.bold] == .bool(true)
        var family = palette.bodyFamily
        var foreground: String?
        var background: String?
        var code = attributes[.code] == .bool(true)
        for block in path {
            switch block.intent {
            case .heading(let level):
                size *= palette.headingScales[min(max(level, 1), palette.headingScales.count) - 1]
                bold = true
            case .codeBlock: code = true
            case .blockQuote: foreground = palette.quoteColor
            case .tableRow(let isHeader): if isHeader { bold = true }
            default: break
            }
        }
        if code {
            family = palette.codeFamily
            background = palette.codeBackground
        }
        if attributes[.rawMarkup] == .bool(true) { foreground = Self.rawMarkupColor }
        var link: String?
        if case .string(let target)? = attributes[.link] {
            link = target
            foreground = palette.linkColor
        }
        return TextStyle(
            font: FontDescriptor(family: family, size: size, bold: bold, italic: attributes[.italic] == .bool(true)),
            foreground: foreground, background: background, underline: link != nil,
            strikethrough: attributes[.strikethrough] == .bool(true), link: link
        )
    }

    /// A record's size member as a positive number, or nil.
    static func positive(_ value: AttributeValue?) -> Double? {
        switch value {
        case .double(let number)? where number > 0 && number.isFinite: number
        case .int(let number)? where number > 0: Double(number)
        default: nil
        }
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
                        let reference = AttachmentReference(source: source, alt: alt, result: attachments[source],
                                                            declaredWidth: Self.positive(record[IntentText.AttachmentField.width]),
                                                            declaredHeight: Self.positive(record[IntentText.AttachmentField.height]))
                        for offset in lower..<upper {
                            styled.append(StyledRun(range: offset..<(offset + 1), style: style, attachment: reference))
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
