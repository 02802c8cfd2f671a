import Foundation
import QuireAlgorithms
import Testing
@testable import QuireTextStorage

/// Replays random sessions of replace and attribute operations against `NaiveModel` and compares
/// string, runs and the observer's report after every step.
@Suite struct RandomizedModelTests {
    static let alphabet: [String] = ["a", "b", "c", " ", "\n", "\u{FFFC}", "é", "😀", "한", "\r", "\u{2029}"]
    static let attributePool: [Attributes] = [
        [:], [.bold: true], [.italic: true], [.bold: true, .italic: true], [.foregroundColor: "red"],
        [.paragraphStyle: "center"], [.paragraphStyle: "right", .bold: true], [.attachment: "img-1"],
        [.attachment: "img-2", .link: "https://example.com"],
    ]
    static let keyPool: [AttributeKey] = [.bold, .italic, .foregroundColor, .paragraphStyle, .attachment, .link]

    final class Runner {
        var rng: SeededGenerator
        let storage: TextStorage
        var model: NaiveModel
        var reports: [TextStorageChange] = []

        init(seed: UInt64, chunkCapacity: Int) {
            rng = SeededGenerator(seed: seed)
            storage = TextStorage(AttributedText(""), chunkCapacity: chunkCapacity)
            model = NaiveModel(AttributedText(""))
            storage.addObserver { [unowned self] change in self.reports.append(change) }
        }

        func randomString() -> String {
            let count = Int.random(in: 0...6, using: &rng)
            return (0..<count).map { _ in RandomizedModelTests.alphabet.randomElement(using: &rng)! }.joined()
        }

        func randomAttributes() -> Attributes {
            RandomizedModelTests.attributePool.randomElement(using: &rng)!
        }

        /// Mostly valid ranges, sometimes ones that split surrogate pairs or run past the end.
        func randomRange() -> NSRange {
            let length = model.units.count
            if Int.random(in: 0..<50, using: &rng) == 0 {
                return NSRange(location: Int.random(in: 0...length + 2, using: &rng), length: Int.random(in: 1...4, using: &rng))
            }
            // Long texts shrink: wide ranges are more likely then.
            let maxSpan = length > 240 ? 60 : 8
            let location = Int.random(in: 0...length, using: &rng)
            let span = Int.random(in: 0...min(maxSpan, length - location), using: &rng)
            return NSRange(location: location, length: span)
        }

        /// Performs one random operation on both; returns a failure message or nil.
        func operate(native: Bool) -> String? {
            let range = randomRange()
            let expectedError = model.error(for: range)
            let choice = Int.random(in: 0..<10, using: &rng)
            do {
                switch choice {
                case 0..<4:
                    let string = randomString()
                    try storage.replaceCharacters(in: range, with: string)
                    if expectedError == nil {
                        let units = Array(string.utf16)
                        let inherited = model.inheritedAttributes(range)
                        model.replace(range, units: units, attributes: Array(repeating: inherited, count: units.count),
                                      typed: native && !units.isEmpty)
                        if native { model.status = units.isEmpty ? .remove : .typing }
                    }
                case 4..<6:
                    let string = randomString()
                    let units = Array(string.utf16)
                    var runs: [(length: Int, attributes: Attributes)] = []
                    var attributes: [Attributes] = []
                    var index = 0
                    while index < units.count {
                        var length = Int.random(in: 1...3, using: &rng)
                        if index + length < units.count, UTF16.isLeadSurrogate(units[index + length - 1]) { length += 1 }
                        length = min(length, units.count - index)
                        let runAttributes = randomAttributes()
                        runs.append((length, runAttributes))
                        attributes += Array(repeating: runAttributes, count: length)
                        index += length
                    }
                    try storage.replaceCharacters(in: range, with: AttributedText(string, runs: runs))
                    if expectedError == nil {
                        model.replace(range, units: units, attributes: attributes, typed: false)
                        if native { model.status = units.isEmpty ? .remove : .paste }
                    }
                case 6..<8:
                    let attributes = randomAttributes()
                    let applied = try storage.setAttributes(attributes, range: range)
                    if expectedError == nil, applies(native) { model.modifyAttributes(range) { _ in attributes } }
                    if expectedError == nil, applied != applies(native) { return "setAttributes applied=\(applied)" }
                case 8:
                    let attributes = randomAttributes()
                    let applied = try storage.addAttributes(attributes, range: range)
                    if expectedError == nil, applies(native) { model.modifyAttributes(range) { $0.merging(attributes) } }
                    if expectedError == nil, applied != applies(native) { return "addAttributes applied=\(applied)" }
                default:
                    let key = RandomizedModelTests.keyPool.randomElement(using: &rng)!
                    let applied = try storage.removeAttribute(key, range: range)
                    if expectedError == nil, applies(native) { model.modifyAttributes(range) { $0.removing(key) } }
                    if expectedError == nil, applied != applies(native) { return "removeAttribute applied=\(applied)" }
                }
                if let expectedError { return "expected \(expectedError) for \(range)" }
            } catch {
                if error != expectedError { return "unexpected \(error) for \(range), expected \(String(describing: expectedError))" }
            }
            return nil
        }

        func applies(_ native: Bool) -> Bool {
            !native || model.status == .typing || model.status == .paste
        }

        /// One step: a session of one to three operations, native or controller.
        func step() -> String? {
            let native = Bool.random(using: &rng)
            if native, Int.random(in: 0..<4, using: &rng) == 0 {
                let attributes = randomAttributes()
                storage.setTypingAttributes(attributes)
                model.typingAttributes = attributes
            }
            let count = Int.random(in: 1...3, using: &rng)
            var failure: String?
            if native {
                storage.beginEditing()
                for _ in 0..<count where failure == nil { failure = operate(native: true) }
                do { try storage.endEditing() } catch { return "endEditing threw \(error)" }
            } else {
                do {
                    try storage.performControllerEdit { _ throws(TextStorageError) in
                        for _ in 0..<count where failure == nil { failure = operate(native: false) }
                    }
                } catch {
                    return "performControllerEdit threw \(error)"
                }
            }
            if let failure { return failure }
            return compare(native: native)
        }

        func compare(native: Bool) -> String? {
            let expected = model.endSession()
            let received = reports
            reports = []
            if storage.string != model.string { return "string \(storage.string.debugDescription) != \(model.string.debugDescription)" }
            let runs: [AttributeRun]
            do { runs = try storage.runs(in: NSRange(location: 0, length: storage.length)) } catch { return "runs threw \(error)" }
            if runs != model.runs { return "runs \(runs) != \(model.runs)" }
            if !storage.text.isConsistent || !storage.runTree.isConsistent { return "tree summaries or heap order broken" }
            guard var expected else { return received.isEmpty ? nil : "unexpected notification \(received)" }
            expected.origin = native ? .native : .controller
            guard received.count == 1 else { return "expected one notification, got \(received.count)" }
            if ExpectedChange(received[0]) != expected { return "notification \(received[0]) != \(expected)" }
            return nil
        }
    }

    @Test("10,000 random sessions agree with the naive model", arguments: [(UInt64(1), 4), (UInt64(2), 64)])
    func agreesWithNaiveModel(seed: UInt64, chunkCapacity: Int) {
        let runner = Runner(seed: seed, chunkCapacity: chunkCapacity)
        for stepIndex in 0..<10_000 {
            if let failure = runner.step() {
                Issue.record("seed \(seed) step \(stepIndex): \(failure)")
                return
            }
        }
        // The run must have produced text, or the comparison proved little.
        #expect(runner.storage.length > 0)
    }
}
