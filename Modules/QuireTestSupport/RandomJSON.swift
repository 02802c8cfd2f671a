import QuireAlgorithms
import QuireModel

/// Random JSON values for round-trip tests, drawn from a ``SeededGenerator`` so that every failure
/// reproduces from its seed. They favour the edges a JSON stack gets wrong: `Int.min`/`Int.max`,
/// integers beyond 2^53, `-0.0`, subnormal and huge doubles, every control character, quotes and
/// backslashes, astral scalars, empty strings, arrays and objects, and keys that need escapes.
public struct RandomJSON {
    /// The generator the values are drawn from.
    public var generator: SeededGenerator
    /// The deepest nesting of arrays and objects produced.
    public var maximumDepth: Int

    public init(seed: UInt64, maximumDepth: Int = 4) {
        generator = SeededGenerator(seed: seed)
        self.maximumDepth = maximumDepth
    }

    /// The next random value.
    public mutating func value() -> JSONValue {
        value(depth: 0)
    }

    private mutating func value(depth: Int) -> JSONValue {
        let kinds = depth < maximumDepth ? 8 : 6
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(.integer(integer()))
        case 3: return .number(.double(double()))
        case 4, 5: return .string(string())
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let key = string()
                if object[key] == nil { object[key] = value(depth: depth + 1) }
            }
            return .object(object)
        }
    }

    /// An integer, often at an edge.
    public mutating func integer() -> Int {
        switch Int.random(in: 0..<8, using: &generator) {
        case 0: return [0, 1, -1, Int.max, Int.min, 9_007_199_254_740_993, -9_007_199_254_740_993].randomElement(using: &generator)!
        case 1: return Int(truncatingIfNeeded: generator.next())
        default: return Int.random(in: -1_000...1_000, using: &generator)
        }
    }

    /// A finite double, often at an edge.
    public mutating func double() -> Double {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
            return [0.0, -0.0, 0.1, 1.0, -2.5, 1e16, 9_007_199_254_740_992.0, Double(Int.max), Double.leastNonzeroMagnitude,
                    Double.leastNormalMagnitude, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude]
                .randomElement(using: &generator)!
        case 1:
            // Any finite bit pattern: subnormals, huge and tiny exponents, long mantissas.
            while true {
                let candidate = Double(bitPattern: generator.next())
                if candidate.isFinite { return candidate }
            }
        default:
            return Double.random(in: -1e6...1e6, using: &generator)
        }
    }

    /// A string mixing ASCII, escapes, control characters and multi-byte scalars.
    public mutating func string() -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "中", "😀",
                      "👨‍👩‍👧", "\u{2028}", "\u{FEFF}", "\u{10FFFF}", "key", ".", "[", "$"]
        var text = ""
        for _ in 0..<Int.random(in: 0...6, using: &generator) { text += pieces.randomElement(using: &generator)! }
        return text
    }
}
