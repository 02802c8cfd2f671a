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
