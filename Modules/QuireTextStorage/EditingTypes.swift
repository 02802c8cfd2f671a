import Foundation

/// What an edit changed, as in NSTextStorage's `EditActions`.
public struct EditActions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Creates a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Characters were replaced, inserted or deleted.
    public static let characters = EditActions(rawValue: 1 << 0)
    /// Attributes were changed.
    public static let attributes = EditActions(rawValue: 1 << 1)
}

/// What the view (native mode) is doing, with VEditorKit's meaning.
public enum TypingStatus: Sendable, Hashable {
    /// Characters were typed or composed; they receive the current typing attributes.
    case typing
    /// Characters were deleted.
    case remove
    /// An attributed string was pasted; it keeps its own attributes.
    case paste
    /// No native text edit is in progress; attribute writes from the view are ignored.
    case none
}

/// Who is editing the storage.
public enum EditOrigin: Sendable, Hashable {
    /// The platform text view (keyboard, IME, paste). Routed to the native-edit handler.
    case native
    /// The engine applying its own changes (the reconciler). Never routed back to the handler.
    case controller
}

/// What observers learn once per editing session.
///
/// Only the storage builds these (at the end of a session); observers, adapters and tests read
/// them, so there is no public initializer.
public struct TextStorageChange: Sendable, Hashable {
    /// Everything that changed in the session.
    public var editedMask: EditActions
    /// The range of changed text, in the coordinates after the session.
    public var editedRange: NSRange
    /// The sum of all length changes in the session.
    public var changeInLength: Int
    /// `editedRange` widened to whole paragraphs: the range whose attributes were fixed and whose
    /// layout is stale.
    public var invalidatedRange: NSRange
    /// `.native` when at least one edit in the session came from the view.
    public var origin: EditOrigin
    /// The typing status of the last native edit of the session.
    public var typingStatus: TypingStatus
}

/// A native edit offered to the editor's handler before the storage applies it.
///
/// Only the storage builds these; the handler reads them, so there is no public initializer.
public struct NativeEdit: Sendable, Hashable {
    /// The replaced range, in the storage's current coordinates.
    public var range: NSRange
    /// The replacement with the attributes it will get: the typing attributes for typed or
    /// composed text, its own attributes for a paste.
    public var replacement: AttributedText
    /// `.typing`, `.remove` or `.paste`.
    public var status: TypingStatus
    /// True for marked (IME) text.
    public var isComposition: Bool
}

/// What the native-edit handler did with an edit.
public enum NativeEditResolution: Sendable, Hashable {
    /// The handler took the edit over (typically it updated the editor state, and the reconciler
    /// wrote the result back through controller edits); the storage does not apply it again.
    case handled
    /// The storage applies the edit itself, with the typing-status rules.
    case applyNatively
    /// The handler could not apply the edit; the storage stays unchanged and the native call
    /// throws `TextStorageError.nativeEditRefused` with `reason`.
    case refused(reason: String)
}

/// Hooks run inside `processEditing`, as NSTextStorageDelegate's will/did-process methods.
public protocol TextStorageDelegate: AnyObject {
    /// Before typing attributes are applied and attributes fixed. Characters and attributes may
    /// still change; those changes join the session.
    func textStorageWillProcessEditing(_ storage: TextStorage)
    /// After attributes were fixed and before observers are notified. Only attributes may change.
    func textStorageDidProcessEditing(_ storage: TextStorage)
}

extension TextStorageDelegate {
    /// Does nothing.
    public func textStorageWillProcessEditing(_ storage: TextStorage) {}
    /// Does nothing.
    public func textStorageDidProcessEditing(_ storage: TextStorage) {}
}

/// Identifies an observer for removal.
public struct TextStorageObserverToken: Sendable, Hashable {
    let id: Int
}
