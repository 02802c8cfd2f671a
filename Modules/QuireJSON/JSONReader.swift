/// The one JSON reader: a strict RFC 8259 pull reader over UTF-8 bytes.
///
/// Decoders walk a document with it directly — ``beginObject()`` then ``nextKey()`` until it
/// returns nil, ``beginArray()`` then ``nextElement()`` until it returns false, and the scalar
/// reads in between — so a large input never has to become a ``JSONValue`` tree;
/// ``readValue()`` builds the tree of one value when that is what the caller wants, and
/// ``JSONParser`` is that for a whole document.
///
/// The input policy is the same for every format Quire reads as JSON:
/// - a UTF-8 byte-order mark at the start is skipped;
/// - strings must be valid UTF-8 (the error names the first byte of the bad sequence), escapes
///   must be well formed and `\u` surrogates paired;
/// - what JavaScript's `JSON.parse` rejects is rejected (comments, trailing commas, leading
///   zeros, bare control characters in strings), and so is a number beyond `Double`'s range;
/// - an object that repeats a key is an error naming the key's path, unless the caller chooses
///   ``Options/DuplicateKeys/keepLast``;
/// - arrays and objects nest at most ``Options/maximumDepth`` levels (512 by default), so hostile
///   input cannot exhaust the stack of a recursive consumer.
///
/// Every error is a ``JSONError`` with the byte offset, the line and column, and the JSON path of
/// the value being read; the reader keeps the path as a stack of open containers (one entry per
/// level, updated in O(1) per member), and the line and column are computed only when an error
/// is reported.
public struct JSONReader: Sendable {
    /// What the reader accepts.
    public struct Options: Sendable, Hashable {
        /// What to do when an object repeats a key.
        public enum DuplicateKeys: Sendable, Hashable {
            /// Refuse the input with ``JSONError/Reason/duplicateKey(_:)`` (the default).
            case reject
            /// Accept it; ``JSONReader/readValue()`` keeps the last value, as JavaScript does
            /// (O(m) per member of an object with m members).
            case keepLast
        }

        /// The nesting limit of ``JSONReader/Options/maximumDepth`` unless a caller chooses another.
        public static let defaultMaximumDepth = 512

        /// The deepest nesting of arrays and objects accepted; the top-level container is level 1.
        public var maximumDepth: Int
        /// What to do when an object repeats a key.
        public var duplicateKeys: DuplicateKeys

        public init(maximumDepth: Int = Options.defaultMaximumDepth, duplicateKeys: DuplicateKeys = .reject) {
            self.maximumDepth = maximumDepth
            self.duplicateKeys = duplicateKeys
        }
    }

    /// One open array or object. Plain data (no references), so that opening, counting and
    /// closing containers costs no reference counting.
    private struct Frame: Sendable {
        var isObject: Bool
        /// Whether this object's keys moved from `keys` into the last of `keySets` (it has
        /// more than `linearKeyLimit` members).
        var hashesKeys = false
        /// Members or elements begun so far.
        var count = 0
        /// The key of the member being read (objects).
        var key: KeyBytes?
        /// Where this object's keys start in `keys`.
        var firstKey: Int
        /// One bit per key seen (see `bloomBit`): a key whose bit is not set yet is new without
        /// comparing it to the others. An escaped key sets every bit.
        var keyBloom: UInt64 = 0
    }

    /// A key as the reader keeps it: its bytes between the quotes, escapes undecoded; the text
    /// is decoded again only to compare an escaped key or to report an error.
    private struct KeyBytes: Sendable {
        var range: Range<Int>
        var escaped: Bool
    }

    private static let linearKeyLimit = 16

    /// The input.
    public let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var offset: Int
    /// What the reader accepts.
    public let options: Options
    /// 3 when the input starts with a byte-order mark (columns on line 1 do not count it).
    private let start: Int
    /// The open containers around the innermost one, outermost first.
    private var frames: [Frame] = []
    /// The innermost open container when `openCount` > 0: kept out of `frames` so that counting
    /// members and recording keys touch a plain stored value (no bounds or uniqueness checks).
    private var current = Frame(isObject: false, firstKey: 0)
    /// The number of open containers (`frames` plus `current`).
    private var openCount = 0
    /// The keys of the open objects that still compare by scanning, innermost last: the first
    /// `keyCount` entries (the rest is room kept from closed objects, overwritten in place).
    private var keys: [KeyBytes] = []
    private var keyCount = 0
    /// The keys of the open objects with more than `linearKeyLimit` members, innermost last.
    private var keySets: [Set<String>] = []
    /// Room for the bytes of a string with escapes, kept between strings (see `decodeEscaped`).
    private var escapeBuffer: [UInt8] = []

    /// A reader positioned before the first value of `bytes` (after a byte-order mark).
    public init(_ bytes: [UInt8], options: Options = Options()) {
        self.bytes = bytes
        self.options = options
        start = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        offset = start
    }

    /// The number of open arrays and objects.
    public var depth: Int { openCount }

    // MARK: errors and paths

    /// The path of the value being read.
    ///
    /// - Complexity: O(depth), plus decoding the keys.
    public var path: JSONPath {
        var components: [JSONPath.Component] = []
        components.reserveCapacity(openCount)
        for frame in frames + (openCount > 0 ? [current] : []) where frame.count > 0 {
            if frame.isObject {
                if let key = frame.key { components.append(.key(string(for: key))) }
            } else {
                components.append(.index(frame.count - 1))
            }
        }
        return JSONPath(components)
    }

    /// An error at `offset` (the current offset by default) with the current path.
    ///
    /// - Complexity: O(offset) to count lines and columns.
    public func error(_ reason: JSONError.Reason, at offset: Int? = nil) -> JSONError {
        let at = min(max(offset ?? self.offset, 0), bytes.count)
        let (line, column) = location(of: at)
        return JSONError(reason: reason, byteOffset: at, line: line, column: column, path: path.description)
    }

    /// The 1-based line and column (in Unicode scalars) of a byte offset.
    ///
    /// - Complexity: O(offset).
    public func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var index = start
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    // MARK: structure

    @inline(__always)
    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// The kind of the next value, without consuming it.
    ///
    /// - Throws: at the end of the input, or at a byte that cannot start a value.
    @inline(__always)
    public mutating func nextValueKind() throws(JSONError) -> JSONValueKind {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEndOfInput) }
        guard let kind = JSONValueKind(firstByte: bytes[offset]) else { throw error(.unexpectedCharacter(bytes[offset])) }
        return kind
    }

    /// Whether only whitespace remains; throws ``JSONError/Reason/trailingCharacters`` otherwise.
    public mutating func finish() throws(JSONError) {
        skipWhitespace()
        if offset < bytes.count { throw error(.trailingCharacters) }
    }

    /// An error for a value of the wrong kind where `expected` was wanted.
    private mutating func mismatch(_ expected: String) -> JSONError {
        skipWhitespace()
        guard offset < bytes.count else { return error(.unexpectedEndOfInput) }
        guard let kind = JSONValueKind(firstByte: bytes[offset]) else { return error(.unexpectedCharacter(bytes[offset])) }
        return error(.typeMismatch(expected: expected, found: kind.name))
    }

    private mutating func open(object: Bool) throws(JSONError) {
        guard openCount < options.maximumDepth else { throw error(.nestingTooDeep(limit: options.maximumDepth)) }
        if openCount > 0 { frames.append(current) }
        current = Frame(isObject: object, firstKey: keyCount)
        openCount += 1
        offset += 1
    }

    private mutating func close() {
        let frame = current
        if openCount > 1 { current = frames.removeLast() }
        openCount -= 1
        if frame.hashesKeys {
            keySets.removeLast()
        } else if frame.isObject {
            keyCount = frame.firstKey
        }
        offset += 1
    }

    /// Consumes the `{` of an object; read its members with ``nextKey()``.
    public mutating func beginObject() throws(JSONError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "{") else { throw mismatch("an object") }
        try open(object: true)
    }

    /// Moves to the next member of the innermost object and returns its key, positioned on the
    /// member's value (which the caller must read or skip); returns nil after consuming the `}`.
    ///
    /// - Throws: ``JSONError/Reason/duplicateKey(_:)`` when the key repeats one of this object's.
    /// - Complexity: O(1) amortized plus the key's length (a linear scan of the first 16 keys when
    ///   a one-word filter of the object's keys cannot rule a repeat out, hashing beyond).
    public mutating func nextKey() throws(JSONError) -> JSONKey? {
        precondition(openCount > 0 && current.isObject, "nextKey() outside an object")
        guard try advance(closing: UInt8(ascii: "}")) else { return nil }
        current.key = nil
        guard offset < bytes.count else { throw error(.unexpectedEndOfInput) }
        guard bytes[offset] == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter(bytes[offset])) }
        let keyOffset = offset
        let key = try scanString()
        let bytesOfKey = KeyBytes(range: key.range, escaped: key.decoded != nil)
        current.key = bytesOfKey
        if options.duplicateKeys == .reject { try remember(bytesOfKey, at: keyOffset) }
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEndOfInput) }
        guard bytes[offset] == UInt8(ascii: ":") else { throw error(.unexpectedCharacter(bytes[offset])) }
        offset += 1
        skipWhitespace()
        return key
    }

    @inline(__always)
    private mutating func remember(_ key: KeyBytes, at keyOffset: Int) throws(JSONError) {
        if !current.hashesKeys {
            // Compared in place: copying each earlier key out (a slice, a retained string) cost
            // more than the comparisons in objects of a few members, the usual case.
            let first = current.firstKey
            let count = keyCount
            let bit = key.escaped ? ~UInt64(0) : bloomBit(key)
            if current.keyBloom & bit != 0 {
                let repeated = keys.withUnsafeBufferPointer { known in
                    for i in first..<count where same(known[i], key) { return true }
                    return false
                }
                if repeated { throw error(.duplicateKey(string(for: key)), at: keyOffset) }
            }
            current.keyBloom |= bit
            if count < keys.count { keys[count] = key } else { keys.append(key) }
            keyCount = count + 1
            if keyCount - first > Self.linearKeyLimit {
                keySets.append(Set(keys[first..<keyCount].map { string(for: $0) }))
                keyCount = first
                current.hashesKeys = true
            }
        } else {
            let name = string(for: key)
            if keySets[keySets.count - 1].insert(name).inserted == false {
                throw error(.duplicateKey(name), at: keyOffset)
            }
        }
    }

    /// A bit from an unescaped key's length and first, middle and last bytes: equal keys have
    /// equal bits. (With the middle byte, the keys of Lexical's nodes get a bit each, so their
    /// objects never need a comparison; without it, `type` met `indent` and `text` met `mode`.)
    @inline(__always)
    private func bloomBit(_ key: KeyBytes) -> UInt64 {
        let range = key.range
        guard !range.isEmpty else { return 1 }
        let middle = Int(bytes[range.lowerBound + range.count / 2])
        let mixed = range.count &* 31 &+ Int(bytes[range.lowerBound]) &* 11 &+ Int(bytes[range.upperBound - 1]) &* 3 &+ middle &* 5
        return 1 << UInt64(mixed & 63)
    }

    private func same(_ left: KeyBytes, _ right: KeyBytes) -> Bool {
        if !left.escaped, !right.escaped {
            let count = left.range.count
            guard count == right.range.count else { return false }
            return bytes.withUnsafeBufferPointer { b in
                var i = 0
                while i < count, b[left.range.lowerBound + i] == b[right.range.lowerBound + i] { i += 1 }
                return i == count
            }
        }
        return string(for: left) == string(for: right)
    }

    /// The text of a key the reader has already scanned (so its escapes are valid).
    private func string(for key: KeyBytes) -> String {
        if key.escaped {
            var again = self
            again.offset = key.range.lowerBound - 1
            do {
                if let decoded = try again.scanString().decoded { return decoded }
            } catch {
                // Unreachable: this key was scanned without error before. Its raw bytes are
                // the best text left to show.
            }
        }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[key.range]), as: UTF8.self) }
    }

    /// Consumes the `[` of an array; read its elements with ``nextElement()``.
    public mutating func beginArray() throws(JSONError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "[") else { throw mismatch("an array") }
        try open(object: false)
    }

    /// Moves to the next element of the innermost array: true when there is one (positioned on
    /// it; the caller must read or skip it), false after consuming the `]`.
    ///
    /// - Complexity: O(1) plus whitespace.
    public mutating func nextElement() throws(JSONError) -> Bool {
        precondition(openCount > 0 && !current.isObject, "nextElement() outside an array")
        return try advance(closing: UInt8(ascii: "]"))
    }

    /// Moves past the comma before the innermost container's next member or element and counts
    /// it, or consumes the container's `closing` bracket and returns false.
    @inline(__always)
    private mutating func advance(closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEndOfInput) }
        let byte = bytes[offset]
        if byte == closing {
            close()
            return false
        }
        if current.count > 0 {
            guard byte == UInt8(ascii: ",") else { throw error(.unexpectedCharacter(byte)) }
            offset += 1
            skipWhitespace()
        }
        current.count += 1
        return true
    }

    // MARK: keys

    /// Whether `key` is `name`.
    ///
    /// - Complexity: O(length of the key).
    @inlinable
    public func key(_ key: JSONKey, is name: StaticString) -> Bool {
        if let decoded = key.decoded {
            return name.withUTF8Buffer { decoded.utf8.elementsEqual($0) }
        }
        guard key.range.count == name.utf8CodeUnitCount else { return false }
        let start = key.range.lowerBound
        return name.withUTF8Buffer { n in
            bytes.withUnsafeBufferPointer { b in
                var i = 0
                while i < n.count, b[start + i] == n[i] { i += 1 }
                return i == n.count
            }
        }
    }

    /// The key as a string.
    ///
    /// - Complexity: O(length of the key).
    public func string(for key: JSONKey) -> String {
        if let decoded = key.decoded { return decoded }
        // Decoded from the buffer in place: a slice of `bytes` would retain and release it.
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[key.range]), as: UTF8.self) }
    }

    // MARK: scalars

    /// Reads a string.
    ///
    /// - Complexity: O(length).
    public mutating func readString() throws(JSONError) -> String {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw mismatch("a string") }
        let scanned = try scanString()
        return string(for: scanned)
    }

    /// Reads a string and returns the range of its bytes between the quotes when it has no
    /// escapes, so that a decoder can compare or parse it without making a `String`; returns
    /// nil, having read nothing, when it has escapes (read it with ``readString()``).
    ///
    /// - Complexity: O(length).
    public mutating func readUnescapedString() throws(JSONError) -> Range<Int>? {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw mismatch("a string") }
        let quote = offset
        let scanned = try scanString()
        guard scanned.decoded == nil else {
            offset = quote
            return nil
        }
        return scanned.range
    }

    /// Reads a number: an exact integer when it is written as one and fits 64 bits, a double
    /// otherwise (`-0` reads as the double `-0.0`, keeping its sign).
    ///
    /// - Throws: ``JSONError/Reason/numberOutOfRange`` beyond `Double`'s range.
    /// - Complexity: O(digits).
    public mutating func readNumber() throws(JSONError) -> JSONNumber {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "-") || Self.isDigit(bytes[offset]) else {
            throw mismatch("a number")
        }
        return try scanNumber()
    }

    /// Reads an integer (a number with an integral value that fits `Int`).
    ///
    /// - Complexity: O(digits).
    public mutating func readInt() throws(JSONError) -> Int {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "-") || Self.isDigit(bytes[offset]) else {
            throw mismatch("an integer")
        }
        let numberOffset = offset
        let number = try scanNumber()
        guard let integer = number.intValue else {
            throw error(.typeMismatch(expected: "an integer", found: "number \(number)"), at: numberOffset)
        }
        return integer
    }

    /// Reads `true` or `false`.
    public mutating func readBool() throws(JSONError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEndOfInput) }
        switch bytes[offset] {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw mismatch("a boolean")
        }
    }

    /// Consumes a `null` and returns true, or returns false leaving any other value unread.
    public mutating func readNullIfPresent() throws(JSONError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Skips the next value, checking its syntax (and its keys, as ``readValue()`` would).
    ///
    /// - Complexity: O(size of the value).
    public mutating func skipValue() throws(JSONError) {
        switch try nextValueKind() {
        case .object:
            try beginObject()
            while try nextKey() != nil { try skipValue() }
        case .array:
            try beginArray()
            while try nextElement() { try skipValue() }
        case .string: _ = try scanString()
        case .number: _ = try scanNumber()
        case .bool: _ = try readBool()
        case .null: try literal("null")
        }
    }

    /// Reads the next value as a tree.
    ///
    /// - Complexity: O(size of the value).
    public mutating func readValue() throws(JSONError) -> JSONValue {
        var scratch = ValueScratch()
        return try readValue(into: &scratch)
    }

    /// The members and elements of the containers ``readValue()`` has open, innermost last. A
    /// container's are gathered here and moved once, into an array of their exact count, when it
    /// closes: an array grown from empty would be reallocated at 1, 2, 4 and 8 members, and
    /// allocation was the bulk of reading a Lexical document's many small objects.
    private struct ValueScratch: ~Copyable {
        var members = MoveStack<(key: String, value: JSONValue)>()
        var elements = MoveStack<JSONValue>()
        /// Strings of up to 15 bytes without escapes that have been read, by a hash of their
        /// bytes: keys and values such as "normal" or "ltr" repeat all through a document, and
        /// comparing two words with an earlier occurrence's costs less than validating and
        /// making the string again. Slot `i` holds a string in `shortTexts[i]` and its bytes in
        /// `shortWords[2i]` and `shortWords[2i + 1]` (see `shortWords(of:)`); every slot starts
        /// as the empty string, whose words are 0. A hash picks a set of two slots, the newer
        /// string first: two frequent strings with one hash, such as a text node's keys "text"
        /// and "type", both stay (with one slot each, they evicted each other on every node).
        /// Both are made at the first string, so that a `readValue()` of a number allocates
        /// nothing.
        var shortWords: [UInt64] = []
        var shortTexts: [String] = []
    }

    /// The bytes of a string of at most 15 bytes (that 16 bytes of input follow the start of)
    /// as two little-endian words, the bytes after it cleared and its count in the top byte.
    @inline(__always)
    private func shortWords(of range: Range<Int>) -> (low: UInt64, high: UInt64) {
        let count = range.count
        return bytes.withUnsafeBytes { input in
            var low = UInt64(littleEndian: input.loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self))
            var high = UInt64(littleEndian: input.loadUnaligned(fromByteOffset: range.lowerBound + 8, as: UInt64.self))
            // Masking shifts: the counts are below 64, which `<<` would check again.
            if count < 8 {
                low &= (1 &<< UInt64(count * 8)) &- 1
                high = 0
            } else {
                high &= (1 &<< UInt64((count - 8) * 8)) &- 1
            }
            return (low, high | UInt64(count) << 56)
        }
    }

    /// The text of a scanned key, made once per distinct short key (see `ValueScratch`).
    ///
    /// - Complexity: O(1) for a key of at most 15 bytes seen before, O(length) otherwise.
    private func string(for key: JSONKey, sharing scratch: inout ValueScratch) -> String {
        if let decoded = key.decoded { return decoded }
        // Never nil: a key's UTF-8 was checked as it was scanned.
        return string(at: key.range, sharing: &scratch) ?? string(for: key)
    }

    /// The text of the unescaped string bytes at `range`, made once per distinct short string
    /// (see `ValueScratch`), or nil when they are not UTF-8.
    ///
    /// - Complexity: O(1) for a string of at most 15 bytes seen before, O(length) otherwise.
    private func string(at range: Range<Int>, sharing scratch: inout ValueScratch) -> String? {
        // Sixteen bytes are read from the start (a string this short near the end of the input
        // is made as any other).
        guard range.count <= 15, range.lowerBound + 16 <= bytes.count else { return validString(at: range) }
        if scratch.shortTexts.isEmpty {
            scratch.shortWords = Array(repeating: 0, count: 2 * 256)
            scratch.shortTexts = Array(repeating: "", count: 256)
        }
        let (low, high) = shortWords(of: range)
        // The first slot of one of 128 sets.
        let slot = Int(truncatingIfNeeded: (((low &* 0x9E37_79B9_7F4A_7C15) ^ high) &* 0xBF58_476D_1CE4_E5B9) >> 57) &* 2
        let found = scratch.shortWords.withUnsafeBufferPointer { words -> Int? in
            if words[2 * slot] == low && words[2 * slot + 1] == high { return slot }
            if words[2 * slot + 2] == low && words[2 * slot + 3] == high { return slot + 1 }
            return nil
        }
        // Only valid UTF-8 is ever kept, so equal bytes are valid.
        if let found { return scratch.shortTexts[found] }
        guard let made = validString(at: range) else { return nil }
        scratch.shortWords.withUnsafeMutableBufferPointer { words in
            words[2 * slot + 2] = words[2 * slot]
            words[2 * slot + 3] = words[2 * slot + 1]
            words[2 * slot] = low
            words[2 * slot + 1] = high
        }
        scratch.shortTexts.swapAt(slot, slot + 1)
        scratch.shortTexts[slot] = made
        return made
    }

    /// The text of the string bytes at `range`, or nil when they are not UTF-8.
    ///
    /// - Complexity: O(length).
    private func validString(at range: Range<Int>) -> String? {
        // `String(validating:as:)` ends in this same public function, but through a generic step
        // that is not specialized and looks type metadata up on every call: with it, a Lexical
        // document's import took a fifth more instructions.
        bytes.withUnsafeBufferPointer { String._tryFromUTF8(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The string under `offset`, for `readValue`. Its UTF-8 is checked only by making the
    /// `String` (one pass over its bytes, not the scan's and then the standard library's); when
    /// anything is wrong, `scanString()` scans it again and throws the error it meets first.
    ///
    /// - Complexity: O(length).
    private mutating func readText(sharing scratch: inout ValueScratch) throws(JSONError) -> String {
        let quote = offset
        do {
            let scanned = try scanString(validatingUTF8: false)
            // A string read alone (a decoder's `readValue()` of one value) has no repeats to share,
            // and would only pay for making the shared strings' room.
            let text = scanned.decoded ?? (openCount > 0 ? string(at: scanned.range, sharing: &scratch) : validString(at: scanned.range))
            if let text { return text }
        } catch {
            // Reported below, in input order, by the scan that checks everything as it goes.
        }
        offset = quote
        let scanned = try scanString()
        return string(for: scanned, sharing: &scratch)
    }

    private mutating func readValue(into scratch: inout ValueScratch) throws(JSONError) -> JSONValue {
        switch try nextValueKind() {
        case .object:
            // Opened directly: `nextValueKind()` has found the `{` that `beginObject()` would
            // look for again.
            try open(object: true)
            let first = scratch.members.count
            while let key = try nextKey() {
                let name = string(for: key, sharing: &scratch)
                let value = try readValue(into: &scratch)
                if options.duplicateKeys == .keepLast, let index = scratch.members.lastIndex(from: first, where: { $0.key == name }) {
                    scratch.members[index].value = value
                } else {
                    scratch.members.push((key: name, value: value))
                }
            }
            return .object(JSONObject(uniqueMembers: scratch.members.popArray(from: first)))
        case .array:
            try open(object: false)
            let first = scratch.elements.count
            while try nextElement() {
                let element = try readValue(into: &scratch)
                scratch.elements.push(element)
            }
            return .array(scratch.elements.popArray(from: first))
        case .string: return .string(try readText(sharing: &scratch))
        case .number: return .number(try scanNumber())
        case .bool: return .bool(try readBool())
        case .null:
            try literal("null")
            return .null
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        for index in 0..<count {
            let at = offset + index
            guard at < bytes.count else { throw error(.unexpectedEndOfInput, at: at) }
            guard bytes[at] == word.utf8Start[index] else { throw error(.unexpectedCharacter(bytes[at]), at: at) }
        }
        offset += count
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: strings

    /// Scans the string starting at the quote under `offset`: checks UTF-8, control characters
    /// and escapes in one pass, and decodes only when there are escapes.
    ///
    /// With `validatingUTF8` false, the UTF-8 of the bytes between escapes is left to the caller
    /// (the decoded text of an escaped string is checked, and refused with an `invalidUTF8`
    /// error at the string's start).
    private mutating func scanString(validatingUTF8: Bool = true) throws(JSONError) -> JSONKey {
        let contentStart = offset + 1
        let scan = bytes.withUnsafeBufferPointer { buffer in Self.scanPlain(buffer, from: contentStart, validatingUTF8: validatingUTF8) }
        switch scan {
        case .closed(let end):
            offset = end + 1
            return JSONKey(range: contentStart..<end, decoded: nil)
        case .escape(let at):
            return try decodeEscaped(contentStart: contentStart, firstEscape: at, validatingUTF8: validatingUTF8)
        case .failure(let reason, let at):
            throw error(reason, at: at)
        }
    }

    private enum PlainScan {
        case closed(Int)
        case escape(Int)
        case failure(JSONError.Reason, Int)
    }

    /// Scans plain string bytes up to the closing quote or the first backslash. With
    /// `validatingUTF8` false, bytes of 0x80 and above pass unchecked: for a caller that makes
    /// the `String` with a check of its own (`validString(at:)`), in one pass instead of two.
    @inline(__always)
    private static func scanPlain(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, validatingUTF8: Bool = true) -> PlainScan {
        var index = start
        let end = buffer.count
        guard let base = buffer.baseAddress else { return .failure(.unexpectedEndOfInput, end) }
        while true {
            // Eight bytes at a time up to the first that needs a look: a quote, backslash,
            // control character or (when validating) non-ASCII byte. Text is most of a large
            // document's bytes, and after a non-ASCII character the next words are ASCII again.
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                // Per byte, a high bit in `x &- ones & ~x` (x = the byte XOR a value) means the
                // byte equals that value; in `word &- 0x20s & ~word`, that it is below 0x20. A
                // borrow only flags bytes above a true one, so the lowest flag is exact.
                let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
                let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                let control = (word &- ones &* 0x20) & ~word
                var special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | control
                if validatingUTF8 { special |= word }
                special &= highs
                if special != 0 {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < end else { return .failure(.unexpectedEndOfInput, end) }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") { return .closed(index) }
            if byte == UInt8(ascii: "\\") { return .escape(index) }
            if byte < 0x20 { return .failure(.controlCharacterInString, index) }
            if byte < 0x80 || !validatingUTF8 {
                index += 1
            } else {
                let length = utf8SequenceLength(buffer, at: index)
                if length == 0 { return .failure(.invalidUTF8, index) }
                index += length
            }
        }
    }

    /// The length of the valid UTF-8 sequence whose lead byte (≥ 0x80) is at `index`, or 0 when
    /// the bytes there are not UTF-8 (overlong forms, surrogates and values beyond U+10FFFF
    /// included, per the Unicode standard's table of well-formed sequences).
    @inline(__always)
    private static func utf8SequenceLength(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = buffer[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard index + length <= buffer.count else { return 0 }
        let second = buffer[index + 1]
        guard second >= low, second <= high else { return 0 }
        for continuation in 2..<length where buffer[index + continuation] & 0xC0 != 0x80 { return 0 }
        return length
    }

    private mutating func decodeEscaped(contentStart: Int, firstEscape: Int, validatingUTF8: Bool) throws(JSONError) -> JSONKey {
        // The buffer of the previous escaped string, taken out of `self` so that it stays
        // uniquely referenced while it grows: one allocation for all of them, not one each.
        var decoded: [UInt8] = []
        swap(&decoded, &escapeBuffer)
        decoded.removeAll(keepingCapacity: true)
        bytes.withUnsafeBufferPointer { decoded.append(contentsOf: UnsafeBufferPointer(rebasing: $0[contentStart..<firstEscape])) }
        var index = firstEscape
        while true {
            guard index < bytes.count else { throw error(.unexpectedEndOfInput, at: index) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                escapeBuffer = decoded
                // An escape decodes to whole characters, so the text is UTF-8 exactly when every
                // run of plain bytes between escapes is.
                let text: String
                if validatingUTF8 {
                    text = String(decoding: escapeBuffer, as: UTF8.self)
                } else {
                    // `String._tryFromUTF8` as in `validString(at:)`.
                    guard let valid = escapeBuffer.withUnsafeBufferPointer({ String._tryFromUTF8($0) }) else {
                        throw error(.invalidUTF8, at: contentStart)
                    }
                    text = valid
                }
                offset = index + 1
                return JSONKey(range: contentStart..<index, decoded: text)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw error(.unexpectedEndOfInput, at: index + 1) }
                let escape = bytes[index + 1]
                switch escape {
                case UInt8(ascii: "\""): decoded.append(0x22)
                case UInt8(ascii: "\\"): decoded.append(0x5C)
                case UInt8(ascii: "/"): decoded.append(0x2F)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalarValue = try hex4(at: index + 2)
                    var length = 6
                    if (0xD800...0xDBFF).contains(scalarValue) {
                        guard index + 7 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"),
                              bytes[index + 7] == UInt8(ascii: "u") else {
                            throw error(.unpairedSurrogate, at: index)
                        }
                        let low = try hex4(at: index + 8)
                        guard (0xDC00...0xDFFF).contains(low) else { throw error(.unpairedSurrogate, at: index + 6) }
                        scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                        length = 12
                    } else if (0xDC00...0xDFFF).contains(scalarValue) {
                        throw error(.unpairedSurrogate, at: index)
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { throw error(.invalidEscape, at: index) }
                    decoded.append(contentsOf: UTF8.encode(scalar)!)
                    index += length
                    continue
                default:
                    throw error(.invalidEscape, at: index)
                }
                index += 2
            default:
                // The plain run up to the next quote or backslash, checked as `scanPlain` checks
                // any string and copied at once.
                let stop: Int
                switch bytes.withUnsafeBufferPointer({ Self.scanPlain($0, from: index, validatingUTF8: validatingUTF8) }) {
                case .closed(let at), .escape(let at): stop = at
                case .failure(let reason, let at): throw error(reason, at: at)
                }
                bytes.withUnsafeBufferPointer { decoded.append(contentsOf: UnsafeBufferPointer(rebasing: $0[index..<stop])) }
                index = stop
            }
        }
    }

    private func hex4(at start: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for index in start..<(start + 4) {
            guard index < bytes.count else { throw error(.unexpectedEndOfInput, at: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape, at: index)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // MARK: numbers

    private mutating func scanNumber() throws(JSONError) -> JSONNumber {
        let numberStart = offset
        var index = offset
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count else { throw error(.unexpectedEndOfInput, at: index) }
        let digitsStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            // A leading zero belongs to the number token: refuse "01" here rather than leave the
            // "1" to whatever reads next, which may already have acted on the 0.
            if index < bytes.count, Self.isDigit(bytes[index]) { throw error(.unexpectedCharacter(bytes[index]), at: index) }
        } else if Self.isDigit(bytes[index]) {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        } else {
            throw error(.invalidNumber, at: index)
        }
        let digitsEnd = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let fractionStart = index
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart else { throw error(index < bytes.count ? .invalidNumber : .unexpectedEndOfInput, at: index) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            guard index > exponentStart else { throw error(index < bytes.count ? .invalidNumber : .unexpectedEndOfInput, at: index) }
        }
        offset = index
        if isInteger {
            let digitCount = digitsEnd - digitsStart
            if digitCount <= 18 {
                // At most 18 digits always fit an Int.
                var magnitude = 0
                for digit in bytes[digitsStart..<digitsEnd] { magnitude = magnitude &* 10 &+ Int(digit &- UInt8(ascii: "0")) }
                if negative && magnitude == 0 { return .double(-0.0) }
                return .integer(negative ? -magnitude : magnitude)
            }
            var magnitude: UInt64 = 0
            var overflow = false
            for digit in bytes[digitsStart..<digitsEnd] {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
                overflow = overflow || overflow1 || overflow2
                magnitude = sum
            }
            if !overflow {
                if !negative, magnitude <= UInt64(Int.max) { return .integer(Int(magnitude)) }
                if negative, magnitude <= UInt64(Int.max) + 1 { return .integer(Int(truncatingIfNeeded: 0 &- magnitude)) }
            }
        }
        let text = String(decoding: bytes[numberStart..<index], as: UTF8.self)
        guard let double = Double(text) else { throw error(.invalidNumber, at: numberStart) }
        guard double.isFinite else { throw error(.numberOutOfRange, at: numberStart) }
        return .double(double)
    }
}

/// The raw key of an object member as ``JSONReader/nextKey()`` returns it: the range of its bytes
/// between the quotes, and its decoded text when it had escapes.
public struct JSONKey: Sendable, Hashable {
    /// The bytes between the quotes, escapes undecoded.
    public let range: Range<Int>
    /// The key's text when it had escapes (nil when the bytes are the text).
    public let decoded: String?
}

/// The kind of a JSON value, as its first byte tells it.
public enum JSONValueKind: Sendable, Hashable {
    case object, array, string, number, bool, null

    init?(firstByte byte: UInt8) {
        switch byte {
        case UInt8(ascii: "{"): self = .object
        case UInt8(ascii: "["): self = .array
        case UInt8(ascii: "\""): self = .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): self = .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool
        case UInt8(ascii: "n"): self = .null
        default: return nil
        }
    }

    /// The kind's name as error messages spell it.
    public var name: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .null: "null"
        }
    }
}

/// A stack whose top elements leave at once as an array, moved rather than copied: what
/// ``JSONReader/readValue()`` gathers a container's members in.
struct MoveStack<Element>: ~Copyable {
    /// Nil until the first push, so that a stack never used (a `readValue()` of a scalar)
    /// allocates nothing.
    private var base: UnsafeMutablePointer<Element>?
    private var capacity = 0
    /// The number of elements on the stack.
    private(set) var count = 0

    init() {}

    deinit {
        if let base {
            base.deinitialize(count: count)
            base.deallocate()
        }
    }

    /// The element at `index` (below `count`).
    subscript(index: Int) -> Element {
        get { base.unsafelyUnwrapped[index] }
        set { base.unsafelyUnwrapped[index] = newValue }
    }

    /// Pushes `element` on top.
    ///
    /// - Complexity: O(1) amortized.
    mutating func push(_ element: consuming Element) {
        if count == capacity {
            let grownCapacity = max(16, capacity * 2)
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: grownCapacity)
            if let base {
                grown.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = grown
            capacity = grownCapacity
        }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// The index of the last element at or above `first` that satisfies `predicate`.
    ///
    /// - Complexity: O(count - first).
    func lastIndex(from first: Int, where predicate: (Element) -> Bool) -> Int? {
        var index = count - 1
        while index >= first {
            if predicate(base.unsafelyUnwrapped[index]) { return index }
            index -= 1
        }
        return nil
    }

    /// The elements from `first` up, in order, as an array of exactly their count; the stack
    /// keeps those below.
    ///
    /// - Complexity: O(count - first).
    mutating func popArray(from first: Int) -> [Element] {
        let moved = count - first
        guard moved > 0 else { return [] }
        // Appended one by one into reserved room: `Array(unsafeUninitializedCapacity:)` looked
        // the array's storage type up in the runtime's metadata cache on every call.
        var array: [Element] = []
        array.reserveCapacity(moved)
        for index in first..<count { array.append((base.unsafelyUnwrapped + index).move()) }
        count = first
        return array
    }
}
