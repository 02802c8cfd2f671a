import QuireTextStorage

/// A stage-2 step: rewrites the text of intent text, never inside code.
public protocol IntentTextPreprocessor: Sendable {
    /// The text with this step applied.
    func process(_ text: IntentText) -> IntentText
}

/// Replaces emoji shortcodes such as `:smile:` or `:+1:` with the emoji, outside inline code and
/// code blocks. Unknown shortcodes stay as written. The table is generated from the `emoji`
/// package's data (see `Tools/emoji`).
public struct EmojiPreprocessor: IntentTextPreprocessor {
    /// The shortcode table, parsed once.
    public static let table: [String: String] = {
        var table: [String: String] = [:]
        table.reserveCapacity(5_000)
        for line in EmojiTable.source.split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t") else { continue }
            table[String(line[..<tab])] = String(line[line.index(after: tab)...])
        }
        return table
    }()

    /// The version of the `emoji` package the table was generated from.
    public static var dataVersion: String { EmojiTable.version }

    /// A preprocessor.
    public init() {}

    /// The emoji for a shortcode without colons, or nil.
    public static func emoji(for shortcode: String) -> String? { table[shortcode.lowercased()] }

    /// Replaces shortcodes in `string`; a shortcode must not touch a letter or digit on either side.
    ///
    /// - Complexity: O(n) in the length of `string` (a shortcode is at most 64 characters).
    public static func replaceShortcodes(in string: String) -> String {
        guard string.contains(":") else { return string }
        var output = ""
        var rest = Substring(string)
        while let colon = rest.firstIndex(of: ":") {
            output += rest[..<colon]
            let afterColon = rest.index(after: colon)
            let candidate = rest[afterColon...].prefix(64)
            // A shortcode stands alone: no letter or digit right before or after it ("a:b:c", "12:30:45").
            let before = output.last
            if before.map({ !($0.isLetter || $0.isNumber) }) ?? true,
               let close = candidate.firstIndex(of: ":"),
               close > afterColon,
               rest[rest.index(after: close)...].first.map({ !($0.isLetter || $0.isNumber) }) ?? true,
               !rest[afterColon..<close].contains(where: { $0 == " " || $0 == "\n" }),
               let emoji = emoji(for: String(rest[afterColon..<close])) {
                output += emoji
                rest = rest[rest.index(after: close)...]
            } else {
                output += ":"
                rest = rest[afterColon...]
            }
        }
        output += rest
        return output
    }

    /// Stage 2: shortcodes in runs without the code attribute and outside code blocks become
    /// emoji; paragraph ranges follow the changed lengths.
    ///
    /// - Complexity: O(n) in the text length.
    public func process(_ text: IntentText) -> IntentText {
        let units = Array(text.text.string.utf16)
        var runs: [(length: Int, attributes: Attributes)] = []
        var newUnits: [UInt16] = []
        newUnits.reserveCapacity(units.count)
        var paragraphs: [IntentParagraph] = []
        var runIndex = 0
        let allRuns = text.text.runs
        for paragraph in text.paragraphs {
            let start = newUnits.count
            let inCodeBlock = paragraph.path.contains { if case .codeBlock = $0.intent { true } else { false } }
            // Runs overlapping this paragraph, cut at its bounds.
            while runIndex < allRuns.count {
                let run = allRuns[runIndex]
                let lower = max(run.range.location, paragraph.range.lowerBound)
                let upper = min(run.range.location + run.range.length, paragraph.range.upperBound)
                if lower < upper {
                    let slice = String(decoding: units[lower..<upper], as: UTF16.self)
                    let replaced = inCodeBlock || run.attributes[.code] == .bool(true) ? slice : Self.replaceShortcodes(in: slice)
                    let length = replaced.utf16.count
                    newUnits.append(contentsOf: replaced.utf16)
                    if let last = runs.last, last.attributes == run.attributes { runs[runs.count - 1].length += length } else {
                        runs.append((length, run.attributes))
                    }
                }
                if run.range.location + run.range.length <= paragraph.range.upperBound { runIndex += 1 } else { break }
            }
            paragraphs.append(IntentParagraph(range: start..<newUnits.count, path: paragraph.path))
        }
        let string = String(decoding: newUnits, as: UTF16.self)
        do {
            return IntentText(text: try AttributedText(string, runs: runs), paragraphs: paragraphs)
        } catch {
            preconditionFailure("runs are rebuilt from the same units: \(error)")
        }
    }
}
