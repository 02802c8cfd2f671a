/// Writes `JSONValue`s as UTF-8 text, compact or indented, escaping as JavaScript's
/// `JSON.stringify` does (only quotes, backslashes and control characters).
public struct JSONWriter: Sendable {
    /// Two-space indentation and one member per line when true; no whitespace when false.
    public var prettyPrinted: Bool

    public init(prettyPrinted: Bool = false) {
        self.prettyPrinted = prettyPrinted
    }

    /// The UTF-8 bytes of `value`.
    ///
    /// - Complexity: O(n) in the output length.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output, depth: 0)
        return output
    }

    /// `value` as a string.
    public func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    func write(_ value: JSONValue, into output: inout [UInt8], depth: Int) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(.integer(let integer)): Self.writeInteger(integer, into: &output)
        case .number(let number): output.append(contentsOf: number.description.utf8)
        case .string(let string): Self.writeString(string, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(into: &output, depth: depth + 1)
                write(element, into: &output, depth: depth + 1)
            }
            if !elements.isEmpty { newline(into: &output, depth: depth) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(into: &output, depth: depth + 1)
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                if prettyPrinted { output.append(UInt8(ascii: " ")) }
                write(member.value, into: &output, depth: depth + 1)
            }
            if object.count > 0 { newline(into: &output, depth: depth) }
            output.append(UInt8(ascii: "}"))
        }
    }

    func newline(into output: inout [UInt8], depth: Int) {
        guard prettyPrinted else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    static func writeInteger(_ integer: Int, into output: inout [UInt8]) {
        if integer >= 0 && integer < 10 {
            output.append(UInt8(ascii: "0") + UInt8(integer))
        } else {
            output.append(contentsOf: String(integer).utf8)
        }
    }

    static func writeString(_ string: String, into output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            var runStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscape(byte, into: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            output.append(UInt8(ascii: "\""))
        }
    }

    private static func writeEscape(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                       hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
