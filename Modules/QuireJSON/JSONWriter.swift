/// The one JSON writer: UTF-8 text, compact or indented, escaping as JavaScript's
/// `JSON.stringify` does (only quotes, backslashes and control characters; everything else stays
/// UTF-8).
///
/// Write a ``JSONValue`` with ``bytes(_:)`` or ``string(_:)``, or stream a document without
/// building a tree: ``beginObject()``, ``key(_:)`` before each member's value, ``endObject()``,
/// ``beginArray()``/``endArray()``, and the scalar writes; the writer puts the commas and, when
/// ``prettyPrinted``, the newlines and indentation.
///
/// Numbers: integers are written exactly; doubles in the shortest form that reads back as the
/// same double, always with a `.` or an exponent so that they read back as doubles (`1.0`,
/// `1e+16`, `-0.0`); a non-finite double, which JSON cannot express, as `null` (as
/// `JSON.stringify` and serde_json do; ``JSONReader`` never produces one).
public struct JSONWriter: Sendable {
    /// Two-space indentation and one member per line when true; no whitespace when false.
    public var prettyPrinted: Bool
    /// The text written so far.
    public private(set) var output: [UInt8] = []
    /// Per open container, whether it has a member or element yet.
    private var hasElements: [Bool] = []
    /// A key has been written and its value is next.
    private var afterKey = false

    public init(prettyPrinted: Bool = false) {
        self.prettyPrinted = prettyPrinted
    }

    /// The UTF-8 bytes of `value`.
    ///
    /// - Complexity: O(n) in the output length.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        writer.output.reserveCapacity(256)
        writer.write(value)
        return writer.output
    }

    /// `value` as a string.
    ///
    /// - Complexity: O(n) in the output length.
    public func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// The text written so far, as a string.
    public var text: String { String(decoding: output, as: UTF8.self) }

    // MARK: streaming

    /// Writes `value` where the next value goes.
    ///
    /// - Complexity: O(size of the value).
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let flag): write(bool: flag)
        case .number(.integer(let integer)): write(integer: integer)
        case .number(.double(let double)): write(double: double)
        case .string(let string): write(string: string)
        case .array(let elements):
            beginArray()
            for element in elements { write(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                write(member.value)
            }
            endObject()
        }
    }

    /// Starts an object where the next value goes.
    public mutating func beginObject() { beginContainer(UInt8(ascii: "{")) }

    /// Ends the innermost object.
    public mutating func endObject() { endContainer(UInt8(ascii: "}")) }

    /// Starts an array where the next value goes.
    public mutating func beginArray() { beginContainer(UInt8(ascii: "[")) }

    /// Ends the innermost array.
    public mutating func endArray() { endContainer(UInt8(ascii: "]")) }

    /// Writes the key of the innermost object's next member; its value comes next.
    public mutating func key(_ name: String) {
        separate()
        Self.append(string: name, to: &output)
        output.append(UInt8(ascii: ":"))
        if prettyPrinted { output.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    /// Writes a string.
    public mutating func write(string: String) {
        beforeValue()
        Self.append(string: string, to: &output)
    }

    /// Writes an integer in decimal.
    public mutating func write<Integer: BinaryInteger>(integer: Integer) {
        beforeValue()
        if integer >= 0 && integer < 10 {
            output.append(UInt8(ascii: "0") + UInt8(integer))
        } else {
            output.append(contentsOf: String(integer).utf8)
        }
    }

    /// Writes a double (see the type's discussion of numbers).
    public mutating func write(double: Double) {
        beforeValue()
        output.append(contentsOf: JSONNumber.double(double).description.utf8)
    }

    /// Writes `true` or `false`.
    public mutating func write(bool: Bool) {
        beforeValue()
        output.append(contentsOf: (bool ? "true" : "false").utf8)
    }

    /// Writes `null`.
    public mutating func writeNull() {
        beforeValue()
        output.append(contentsOf: "null".utf8)
    }

    // MARK: pieces

    /// Hands the text written so far to `body`, then empties the output and keeps its storage:
    /// for writing a long document out in pieces (to a file, say) instead of holding all of it,
    /// where the one growing array cost as much in copies and fresh pages as the writing.
    ///
    /// - Complexity: O(1) besides `body`.
    public mutating func flush<Failure: Error>(to body: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        try Self.handOut(output, to: body)
        output.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with the bytes of `piece`: text a writer wrote (``takeOutput()``), handed
    /// out later, as ``flush(to:)`` hands out its own.
    ///
    /// - Complexity: O(1) besides `body`.
    public static func handOut<Failure: Error>(_ piece: [UInt8], to body: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        // `withUnsafeBytes` rethrows untyped: the typed error is carried out in a Result.
        let result: Result<Void, Failure> = piece.withUnsafeBytes { bytes in
            do throws(Failure) { try body(bytes) } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }

    /// Takes the text written so far, leaving the output empty.
    ///
    /// - Complexity: O(1).
    public mutating func takeOutput() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &output)
        return taken
    }

    /// Makes room for `count` bytes of output in all.
    ///
    /// - Complexity: O(n) in the bytes already written.
    public mutating func reserveCapacity(_ count: Int) {
        output.reserveCapacity(count)
    }

    /// A writer for values that follow this writer's in its innermost open container: the same
    /// open containers, nothing written yet. One part of a long array can be written on another
    /// thread while this writer writes the part before it; ``resume(after:)`` then puts the
    /// continuation's text after this one's.
    ///
    /// This writer must write at least one value into the container before resuming (the
    /// continuation writes a comma before its first value), and must not close it.
    ///
    /// - Complexity: O(d) for the d open containers.
    public func continuation() -> JSONWriter {
        var next = JSONWriter(prettyPrinted: prettyPrinted)
        next.hasElements = hasElements
        if !next.hasElements.isEmpty { next.hasElements[next.hasElements.count - 1] = true }
        return next
    }

    /// Appends what `continuation` (made by ``continuation()``) has not handed out yet, and goes
    /// on from where it stopped: its open containers, a value written or a key pending.
    ///
    /// - Complexity: O(m) for the m bytes appended.
    public mutating func resume(after continuation: JSONWriter) {
        output.append(contentsOf: continuation.output)
        hasElements = continuation.hasElements
        afterKey = continuation.afterKey
    }

    // MARK: layout

    /// Puts the separator before a value: nothing after a key, a comma and a new line in an array.
    private mutating func beforeValue() {
        if afterKey {
            afterKey = false
        } else if !hasElements.isEmpty {
            separate()
        }
    }

    private mutating func separate() {
        let last = hasElements.count - 1
        if hasElements[last] { output.append(UInt8(ascii: ",")) }
        hasElements[last] = true
        newline(depth: hasElements.count)
    }

    private mutating func beginContainer(_ open: UInt8) {
        beforeValue()
        output.append(open)
        hasElements.append(false)
    }

    private mutating func endContainer(_ close: UInt8) {
        let hadElements = hasElements.removeLast()
        if hadElements { newline(depth: hasElements.count) }
        output.append(close)
    }

    private mutating func newline(depth: Int) {
        guard prettyPrinted else { return }
        // The line break and the indentation copied in one piece from one static buffer: an
        // array there would be retained and released at every line, and from two threads
        // writing parts of one document at once (`LexicalJSON.export`) its reference count
        // bounced between the cores, which made the new lines half of the export.
        let buffer = Self.lineBreakAndSpaces
        let length = 1 + depth * 2
        output.append(contentsOf: UnsafeBufferPointer(start: buffer.utf8Start, count: min(length, buffer.utf8CodeUnitCount)))
        // Deeper than the buffer: the rest in runs of its spaces.
        var remaining = length - buffer.utf8CodeUnitCount
        while remaining > 0 {
            let count = min(remaining, buffer.utf8CodeUnitCount - 1)
            output.append(contentsOf: UnsafeBufferPointer(start: buffer.utf8Start + 1, count: count))
            remaining -= count
        }
    }

    /// A line break and 128 spaces (indentation for 64 levels).
    private static let lineBreakAndSpaces: StaticString = "\n                                                                                                                                "

    // MARK: strings

    /// Appends `string` as a JSON string literal.
    ///
    /// - Complexity: O(length).
    static func append(string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            var runStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            output.append(UInt8(ascii: "\""))
        }
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
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
