import BenchSupport
import Foundation
import QuireAlgorithms
import QuireTextStorage

// Measures QuireTextStorage's TextStorage next to Foundation's NSMutableAttributedString doing
// the same operations in the same run:
//   1. 100k random single-character inserts and deletes on a 1M-unit text,
//   2. 10k attribute changes over random ranges on it,
//   3. the time per single-character edit at 10k, 100k and 1M units (should stay nearly flat),
//   4. heap bytes per UTF-16 unit.
// Every workload is generated from the run's seed (printed; `--seed N` or QUIRE_BENCH_SEED=N
// replays a run), so both sides see identical operations.
// Arguments pick sections (memory, characters, attributes, scaling); none runs them all.
// Memory is measured in child processes (`--memory-probe KIND`) so each heap starts fresh.

/// The run's seed; each workload draws from its own stream, offset from it, so that changing one
/// workload's size leaves the others' operations as they were.
let runSeed = Bench.seed(default: 0)

/// The operation stream of one workload.
func workload(_ offset: UInt64) -> SeededGenerator { SeededGenerator(seed: runSeed &+ offset) }

/// Lines of about 80 ASCII characters, so paragraphs look like prose.
func makeText(units: Int) -> String {
    var rng = workload(7)
    let words = ["lorem", "ipsum", "dolor", "sit", "amet", "quire", "editor", "text", "storage", "rope"]
    var text = ""
    text.reserveCapacity(units)
    var line = 0
    while text.utf16.count < units {
        let word = words.randomElement(using: &rng)!
        text += word
        line += word.count
        if line > 72 {
            text += "\n"
            line = 0
        } else {
            text += " "
            line += 1
        }
    }
    return String(text.utf16.prefix(units))!
}

enum CharacterEdit {
    case insert(Int, String)
    case delete(Int)
}

/// Half inserts, half deletes, at uniformly random positions of a text whose length is tracked.
func makeCharacterEdits(count: Int, startLength: Int, seed: UInt64) -> [CharacterEdit] {
    var rng = workload(seed)
    var length = startLength
    let letters = Array("abcdefghijklmnopqrstuvwxyz").map(String.init)
    return (0..<count).map { _ in
        if Bool.random(using: &rng) || length == 0 {
            defer { length += 1 }
            return .insert(Int.random(in: 0...length, using: &rng), letters.randomElement(using: &rng)!)
        }
        defer { length -= 1 }
        return .delete(Int.random(in: 0..<length, using: &rng))
    }
}

struct AttributeEdit {
    var range: NSRange
    var key: Int
}

func makeAttributeEdits(count: Int, length: Int, maxSpan: Int, seed: UInt64) -> [AttributeEdit] {
    var rng = workload(seed)
    return (0..<count).map { _ in
        let span = Int.random(in: 1...min(maxSpan, length), using: &rng)
        let location = Int.random(in: 0...(length - span), using: &rng)
        return AttributeEdit(range: NSRange(location: location, length: span), key: Int.random(in: 0..<3, using: &rng))
    }
}

let quireKeys: [(AttributeKey, AttributeValue)] = [(.bold, true), (.italic, true), (.foregroundColor, "red")]
let foundationKeyNames = ["bold", "italic", "foregroundColor"]

func applyQuire(_ edits: [CharacterEdit], to storage: TextStorage) {
    do {
        for edit in edits {
            switch edit {
            case let .insert(location, string):
                try storage.replaceCharacters(in: NSRange(location: location, length: 0), with: string)
            case let .delete(location):
                try storage.replaceCharacters(in: NSRange(location: location, length: 1), with: "")
            }
        }
    } catch {
        fatalError("benchmark edit rejected: \(error)")
    }
}

func applyFoundation(_ edits: [CharacterEdit], to string: NSMutableAttributedString) {
    for edit in edits {
        switch edit {
        case let .insert(location, text):
            string.replaceCharacters(in: NSRange(location: location, length: 0), with: text)
        case let .delete(location):
            string.replaceCharacters(in: NSRange(location: location, length: 1), with: "")
        }
    }
}

func applyQuire(_ edits: [AttributeEdit], to storage: TextStorage) {
    do {
        for edit in edits {
            let (key, value) = quireKeys[edit.key]
            // Attribute writes are the engine's (the view's own writes are ignored outside typing).
            try storage.performControllerEdit { storage throws(TextStorageError) in
                try storage.addAttribute(key, value: value, range: edit.range)
            }
        }
    } catch {
        fatalError("benchmark attribute edit rejected: \(error)")
    }
}

func applyFoundation(_ edits: [AttributeEdit], to string: NSMutableAttributedString) {
    let values: [Any] = [true, true, "red"]
    for edit in edits {
        string.addAttribute(NSAttributedString.Key(foundationKeyNames[edit.key]), value: values[edit.key], range: edit.range)
    }
}

/// Resident bytes: measured before any other workload so that freed memory is not reused and the
/// growth of the resident set is the structure's own footprint (to the page).
func residentBytes() -> Int {
    guard let bytes = Bench.residentBytes() else { fatalError("no /proc/self/status on this platform") }
    return bytes
}

func ratio(_ baseline: Double, _ quire: Double) -> String {
    String(format: "%.1f×", baseline / quire)
}

func perOp(_ seconds: Double, _ count: Int) -> String {
    Bench.format(seconds / Double(count))
}

let million = 1_000_000
let text = makeText(units: million)

/// The paragraphs made bold in the memory section: every other one, so attribute runs are part
/// of the footprint.
func boldParagraphs() -> [NSRange] {
    let nsText = text as NSString
    var paragraphs: [NSRange] = []
    var location = 0
    while location < nsText.length {
        let paragraph = nsText.paragraphRange(for: NSRange(location: location, length: 0))
        paragraphs.append(paragraph)
        location = paragraph.location + paragraph.length
    }
    return stride(from: 0, to: paragraphs.count, by: 2).map { paragraphs[$0] }
}

func buildForMemory(_ kind: String, bold: [NSRange]) -> AnyObject {
    switch kind {
    case "quire-plain":
        return TextStorage(text)
    case "quire":
        let storage = TextStorage(text)
        do {
            try storage.performControllerEdit { storage throws(TextStorageError) in
                for paragraph in bold { try storage.addAttribute(.bold, value: true, range: paragraph) }
            }
        } catch {
            fatalError("memory setup rejected: \(error)")
        }
        return storage
    case "foundation-plain":
        // A fresh copy: NSMutableAttributedString keeps the Swift string it is given, whose bytes
        // are part of its footprint (TextStorage copies into its own chunks).
        return NSMutableAttributedString(string: String(decoding: Array(text.utf8), as: UTF8.self))
    default:
        let string = NSMutableAttributedString(string: String(decoding: Array(text.utf8), as: UTF8.self))
        for paragraph in bold { string.addAttribute(NSAttributedString.Key("bold"), value: true, range: paragraph) }
        return string
    }
}

/// In a child: prints the growth of the resident set per copy while building four copies of
/// `kind`, so that memory freed by one build and reused by the next does not count. Inputs are
/// prepared before the first reading.
func memoryProbe(_ kind: String) {
    let copies = 4
    let bold = boldParagraphs()
    let before = residentBytes()
    let objects = (0..<copies).map { _ in buildForMemory(kind, bold: bold) }
    print((residentBytes() - before) / copies)
    withExtendedLifetime(objects) {}
}

func runProbe(_ kind: String) -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--memory-probe", kind, "--seed", "\(runSeed)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
        try process.run()
    } catch {
        fatalError("cannot start the memory probe: \(error)")
    }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard let bytes = Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
        fatalError("memory probe \(kind) printed no number")
    }
    return Double(bytes) / Double(million)
}

func memorySection() {
    let format = { (value: Double) in String(format: "%.2f", value) }
    Bench.table(["1M units (resident-set growth, fresh process)", "Quire bytes/unit", "Foundation bytes/unit"], [
        ["plain", format(runProbe("quire-plain")), format(runProbe("foundation-plain"))],
        ["every other paragraph bold", format(runProbe("quire")), format(runProbe("foundation"))],
    ])
}

func characterSection() -> [String] {
    let edits = makeCharacterEdits(count: 100_000, startLength: million, seed: 11)
    let quire = TextStorage(text)
    let foundation = NSMutableAttributedString(string: text)
    let quireTime = Bench.time { applyQuire(edits, to: quire) }
    let foundationTime = Bench.time { applyFoundation(edits, to: foundation) }
    guard quire.string == foundation.string else { fatalError("the two sides diverged") }
    return ["100k single-char inserts/deletes", perOp(quireTime, edits.count), perOp(foundationTime, edits.count),
            ratio(foundationTime, quireTime), "–"]
}

/// Narrow spans (a word to a few paragraphs) and wide ones (up to the whole text).
func attributeSection() -> [[String]] {
    var rows: [[String]] = []
    for (label, maxSpan, seed) in [("10k addAttribute, spans ≤ 1,000", 1_000, UInt64(13)),
                                   ("10k addAttribute, spans ≤ 1M", million, UInt64(17))] {
        let edits = makeAttributeEdits(count: 10_000, length: million, maxSpan: maxSpan, seed: seed)
        let quire = TextStorage(text)
        let foundation = NSMutableAttributedString(string: text)
        let quireTime = Bench.time { applyQuire(edits, to: quire) }
        let foundationTime = Bench.time { applyFoundation(edits, to: foundation) }
        // Both sides must end with the same run structure.
        var foundationRuns = 0
        foundation.enumerateAttributes(in: NSRange(location: 0, length: foundation.length)) { _, _, _ in foundationRuns += 1 }
        let quireRuns: Int
        do {
            quireRuns = try quire.runs(in: NSRange(location: 0, length: quire.length)).count
        } catch {
            fatalError("reading runs failed: \(error)")
        }
        guard quireRuns == foundationRuns else { fatalError("run counts differ: \(quireRuns) vs \(foundationRuns)") }
        rows.append([label, perOp(quireTime, edits.count), perOp(foundationTime, edits.count),
                     ratio(foundationTime, quireTime), "\(quireRuns)"])
    }
    return rows
}

/// The same kinds of operations at three sizes; setup time is measured apart and subtracted.
func scalingSection() {
    /// Seconds per operation of `apply` on a fresh structure, best of three, setup excluded.
    func perOperation(_ count: Int, setup: () -> Void, _ run: () -> Void) -> Double {
        let total = Bench.best(of: 3, run)
        let setupTime = Bench.best(of: 3, setup)
        return max(0, total - setupTime) / Double(count)
    }
    var rows: [[String]] = []
    for size in [10_000, 100_000, million] {
        let base = String(text.utf16.prefix(size))!
        let edits = makeCharacterEdits(count: 20_000, startLength: size, seed: 23)
        let quireEdit = perOperation(edits.count, setup: { _ = TextStorage(base) }) {
            applyQuire(edits, to: TextStorage(base))
        }
        let foundationEdit = perOperation(edits.count, setup: { _ = NSMutableAttributedString(string: base) }) {
            applyFoundation(edits, to: NSMutableAttributedString(string: base))
        }
        let styles = makeAttributeEdits(count: 5_000, length: size, maxSpan: 100, seed: 29)
        let quireStyle = perOperation(styles.count, setup: { _ = TextStorage(base) }) {
            applyQuire(styles, to: TextStorage(base))
        }
        let foundationStyle = perOperation(styles.count, setup: { _ = NSMutableAttributedString(string: base) }) {
            applyFoundation(styles, to: NSMutableAttributedString(string: base))
        }
        rows.append(["\(size)", Bench.format(quireEdit), Bench.format(foundationEdit),
                     String(format: "%.1f×", foundationEdit / quireEdit), Bench.format(quireStyle),
                     Bench.format(foundationStyle), String(format: "%.1f×", foundationStyle / quireStyle)])
    }
    Bench.table(["units", "Quire char edit", "Foundation char edit", "speed-up",
                 "Quire addAttribute (span ≤ 100)", "Foundation addAttribute", "speed-up"], rows)
}

let arguments = Bench.arguments
if arguments.first == "--memory-probe", arguments.count == 2 {
    memoryProbe(arguments[1])
} else {
    let sections = Set(arguments.isEmpty ? ["memory", "characters", "attributes", "scaling"] : arguments)
    print("TextStorageBenchmark — QuireTextStorage.TextStorage vs Foundation NSMutableAttributedString")
    print("seed \(runSeed) (rerun with --seed \(runSeed) or \(Bench.seedVariable)=\(runSeed))")
    print("text: \(text.utf16.count) UTF-16 units, \(text.split(separator: "\n").count) paragraphs\n")
    if sections.contains("memory") {
        memorySection()
        print()
    }
    var rows: [[String]] = []
    if sections.contains("characters") { rows.append(characterSection()) }
    if sections.contains("attributes") { rows += attributeSection() }
    if !rows.isEmpty {
        Bench.table(["1M units", "Quire per op", "Foundation per op", "Quire speed-up", "runs after"], rows)
        print()
    }
    if sections.contains("scaling") { scalingSection() }
}
