import Foundation
import QuireTextStorage

/// Records what observers and delegate hooks see, in order.
final class Recorder: TextStorageDelegate {
    var changes: [TextStorageChange] = []
    var events: [String] = []
    var willProcess: ((TextStorage) -> Void)?
    var didProcess: ((TextStorage) -> Void)?

    init(_ storage: TextStorage) {
        storage.delegate = self
        storage.addObserver { [unowned self] change in
            self.changes.append(change)
            self.events.append("observer")
        }
    }

    func textStorageWillProcessEditing(_ storage: TextStorage) {
        events.append("will")
        willProcess?(storage)
    }

    func textStorageDidProcessEditing(_ storage: TextStorage) {
        events.append("did")
        didProcess?(storage)
    }
}

/// A `TextStorageChange` as a test writes it down. Only the storage builds the library's value, so
/// tests compare the reports they receive, converted to this, with the ones they expect.
struct ExpectedChange: Hashable {
    var editedMask: EditActions
    var editedRange: NSRange
    var changeInLength: Int
    var invalidatedRange: NSRange
    var origin: EditOrigin
    var typingStatus: TypingStatus
}

extension ExpectedChange {
    init(_ change: TextStorageChange) {
        self.init(
            editedMask: change.editedMask, editedRange: change.editedRange, changeInLength: change.changeInLength,
            invalidatedRange: change.invalidatedRange, origin: change.origin, typingStatus: change.typingStatus)
    }
}

/// A `NativeEdit` as a test writes it down (only the storage builds the library's value).
struct ExpectedEdit: Hashable {
    var range: NSRange
    var replacement: AttributedText
    var status: TypingStatus
    var isComposition: Bool
}

extension ExpectedEdit {
    init(_ edit: NativeEdit) {
        self.init(range: edit.range, replacement: edit.replacement, status: edit.status, isComposition: edit.isComposition)
    }
}

func range(_ location: Int, _ length: Int) -> NSRange {
    NSRange(location: location, length: length)
}

extension TextStorage {
    /// The attributes at `location`, for terse expectations.
    func attrs(_ location: Int) throws -> Attributes {
        try attributes(at: location).attributes
    }

    /// The UTF-16 range of the first occurrence of `needle`.
    func rangeOf(_ needle: String) -> NSRange {
        (string as NSString).range(of: needle)
    }
}
