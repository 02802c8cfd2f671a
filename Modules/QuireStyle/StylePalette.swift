/// The fonts, colours and proportions a view gives styled text: heading sizes, body and code
/// families, link, quote and code colours. A `Theme` decides which attributes the characters
/// carry; a palette decides how those look (the markup pipeline's `StyleEnvironment` applies one).
public struct StylePalette: Hashable, Sendable {
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

    /// A palette; the defaults suit a terminal.
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
