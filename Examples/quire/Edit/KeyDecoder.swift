import Foundation

/// One thing the user did at the keyboard, decoded from the bytes a terminal sends.
enum KeyEvent: Hashable, Sendable {
    /// Printable text: one or more characters typed (an IME commits several at once).
    case text(String)
    /// Text pasted between the bracketed-paste markers, as one event.
    case paste(String)
    case enter, backspace, delete, tab, backTab, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// A control key other than the ones named above: Ctrl-A is `control("a")`.
    case control(Character)
}

/// Turns the bytes of a terminal in raw mode into key events: UTF-8 text (multi-byte sequences
/// split across reads are kept until complete), the CSI and SS3 sequences of arrows, Home/End,
/// PgUp/PgDn, Delete and Shift-Tab, control keys, and bracketed-paste payloads.
///
/// A lone ESC is ambiguous until the next read: the decoder keeps it, and the caller calls
/// ``flush()`` when no byte followed within its escape timeout.
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// Inside a bracketed paste: the payload so far.
    private var paste: [UInt8]?

    private static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// Whether bytes are kept waiting for more (a lone ESC, a partial sequence or character).
    var hasPending: Bool { !pending.isEmpty || paste != nil }

    /// Decodes `bytes` after what an earlier call kept.
    ///
    /// - Complexity: O(n) in the bytes kept and given.
    mutating func feed(_ bytes: [UInt8]) -> [KeyEvent] {
        pending += bytes
        var events: [KeyEvent] = []
        var index = 0
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { events.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll()
        }
        while index < pending.count {
            if paste != nil {
                // Everything up to the end marker is payload, escape bytes included.
                if let end = Self.find(Self.pasteEnd, in: pending, from: index) {
                    paste! += pending[index..<end]
                    events.append(.paste(Self.normalizedPaste(paste!)))
                    paste = nil
                    index = end + Self.pasteEnd.count
                    continue
                }
                // Keep a possible partial end marker for the next read.
                let keep = Self.partialSuffix(of: Self.pasteEnd, in: pending, from: index)
                paste! += pending[index..<(pending.count - keep)]
                index = pending.count - keep
                break
            }
            let byte = pending[index]
            if byte == 0x1B {
                flushText()
                guard let (event, length) = Self.escapeSequence(pending, at: index) else { break }
                if event == nil, length == Self.pasteStart.count, Array(pending[index..<(index + length)]) == Self.pasteStart {
                    paste = []
                } else if let event {
                    events.append(event)
                }
                index += length
                continue
            }
            if byte >= 0x20 && byte != 0x7F {
                let length = Self.utf8Length(byte)
                guard index + length <= pending.count else { break }
                text += pending[index..<(index + length)]
                index += length
                continue
            }
            flushText()
            switch byte {
            case 0x0D, 0x0A: events.append(.enter)
            case 0x09: events.append(.tab)
            case 0x7F, 0x08: events.append(.backspace)
            case 0x00: events.append(.control(" "))
            default: events.append(.control(Character(Unicode.Scalar(byte + 0x60))))
            }
            index += 1
        }
        flushText()
        pending.removeFirst(index)
        return events
    }

    /// What a kept lone ESC (or a partial sequence nothing completed) means once the escape
    /// timeout passed: ESC, then the rest as typed.
    mutating func flush() -> [KeyEvent] {
        guard paste == nil, pending.first == 0x1B else { return [] }
        pending.removeFirst()
        let rest = pending
        pending = []
        return [.escape] + feed(rest)
    }

    /// The bytes a UTF-8 sequence starting with `lead` takes (1 for a stray continuation byte,
    /// which decodes as U+FFFD).
    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC0..<0xE0: 2
        case 0xE0..<0xF0: 3
        case 0xF0..<0xF8: 4
        default: 1
        }
    }

    /// The event an escape sequence at `start` stands for (nil for one that means nothing here
    /// and is skipped, or the paste start), and its length; nil when the bytes end before the
    /// sequence does.
    private static func escapeSequence(_ bytes: [UInt8], at start: Int) -> (KeyEvent?, Int)? {
        guard start + 1 < bytes.count else { return nil }
        let second = bytes[start + 1]
        if second == UInt8(ascii: "O") {
            guard start + 2 < bytes.count else { return nil }
            let event: KeyEvent? = switch bytes[start + 2] {
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "C"): .right
            case UInt8(ascii: "D"): .left
            case UInt8(ascii: "H"): .home
            case UInt8(ascii: "F"): .end
            default: nil
            }
            return (event, 3)
        }
        guard second == UInt8(ascii: "[") else {
            // Alt plus a key: the key alone (the editor binds no Alt keys).
            return (second == 0x1B ? .escape : nil, second == 0x1B ? 1 : 2)
        }
        // CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, a final byte 0x40–0x7E.
        var end = start + 2
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        let first = parameters.split(separator: ";").first.map(String.init) ?? ""
        let length = end - start + 1
        let event: KeyEvent?
        switch bytes[end] {
        case UInt8(ascii: "A"): event = .up
        case UInt8(ascii: "B"): event = .down
        case UInt8(ascii: "C"): event = .right
        case UInt8(ascii: "D"): event = .left
        case UInt8(ascii: "H"): event = .home
        case UInt8(ascii: "F"): event = .end
        case UInt8(ascii: "Z"): event = .backTab
        case UInt8(ascii: "~"):
            switch first {
            case "1", "7": event = .home
            case "4", "8": event = .end
            case "3": event = .delete
            case "5": event = .pageUp
            case "6": event = .pageDown
            default: event = nil
            }
        default: event = nil
        }
        return (event, length)
    }

    /// Pasted text with the terminal's line ends as "\n".
    private static func normalizedPaste(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    /// How many bytes at the end of `bytes` (from `start` on) are a proper prefix of `needle`.
    private static func partialSuffix(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int {
        let available = bytes.count - start
        for length in stride(from: min(needle.count - 1, available), to: 0, by: -1)
        where bytes[(bytes.count - length)...].elementsEqual(needle[..<length]) {
            return length
        }
        return 0
    }
}
