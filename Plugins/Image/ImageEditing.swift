import QuireEditor
import QuireModel
import QuireStyle
import QuireTextStorage

/// What a new image is made of: Lexical playground's `InsertImagePayload`.
public struct ImageAttributes: Hashable, Sendable {
    /// The image's URL.
    public var source: String
    /// Its description.
    public var altText: String
    /// Its displayed width and height; nil for the image's own.
    public var width: Double?
    public var height: Double?
    /// The widest it is drawn.
    public var maxWidth: Double
    /// Whether its caption shows.
    public var showCaption: Bool

    /// Attributes with Lexical's defaults (own size, 500 wide at most, no caption).
    public init(source: String, altText: String = "", width: Double? = nil, height: Double? = nil, maxWidth: Double = 500,
                showCaption: Bool = false) {
        self.source = source
        self.altText = altText
        self.width = width
        self.height = height
        self.maxWidth = maxWidth
        self.showCaption = showCaption
    }
}

/// A size to set on an image; nil for a side leaves it to the image's own size ("inherit").
public struct ImageSize: Hashable, Sendable {
    public var width: Double?
    public var height: Double?

    /// A size.
    public init(width: Double?, height: Double?) {
        self.width = width
        self.height = height
    }
}

extension EditorState {
    /// Lexical's `INSERT_IMAGE_COMMAND`: a new image at the selection (replacing selected text),
    /// inline in the block at the caret (a paragraph is made when the caret sits between blocks);
    /// the caret ends right after it. Returns the image.
    ///
    /// - Throws: `ModelError` (no selection, a size below 0, or the block refuses an image);
    ///   nothing changes then.
    /// - Complexity: O(depth + siblings) · log n, as `insertNodes(_:)`.
    @discardableResult
    public mutating func insertImage(_ attributes: ImageAttributes) throws(ModelError) -> NodeKey {
        var attempt = self
        let image = try attempt.createNode(type: ImageNodePlugin.type)
        try attempt.setField("src", to: .string(attributes.source), of: image)
        try attempt.setField("altText", to: .string(attributes.altText), of: image)
        try attempt.setImageDimensions(ImageSize(width: attributes.width, height: attributes.height), of: image)
        try attempt.setField("maxWidth", to: ImageNodePlugin.json(attributes.maxWidth), of: image)
        try attempt.setField("showCaption", to: .bool(attributes.showCaption), of: image)
        try attempt.insertNodes([image])
        self = attempt
        return image
    }

    /// Lexical's `setWidthAndHeight`: the image's displayed size; a nil side is the image's own
    /// (written 0, as Lexical exports `"inherit"`).
    ///
    /// - Throws: `ModelError` when `key` is not an image or a side is negative or not finite.
    /// - Complexity: O(log n).
    public mutating func setImageSize(_ size: ImageSize, of key: NodeKey) throws(ModelError) {
        try requireImage(key)
        var attempt = self
        try attempt.setImageDimensions(size, of: key)
        self = attempt
    }

    /// Lexical's `setAltText`: the image's description.
    ///
    /// - Throws: `ModelError` when `key` is not an image.
    /// - Complexity: O(log n).
    public mutating func setImageAltText(_ altText: String, of key: NodeKey) throws(ModelError) {
        try requireImage(key)
        try setField("altText", to: .string(altText), of: key)
    }

    /// The image a command acts on: for a range, the image right after its start (a text view
    /// selects an attachment as the one unit of its U+FFFC); for a caret, the image right before
    /// it, else right after it. nil when there is none.
    ///
    /// - Complexity: O(depth + siblings before the caret).
    public var selectedImage: NodeKey? {
        guard let selection, let (start, _) = try? orderedSelectionPoints() else { return nil }
        if !selection.isCollapsed { return image(beside: start, before: false) }
        return image(beside: start, before: true) ?? image(beside: start, before: false)
    }

    /// The image just before (or after) a point, or nil.
    func image(beside point: Point, before: Bool) -> NodeKey? {
        let neighbour: NodeKey?
        switch point.kind {
        case .element:
            neighbour = before ? (point.offset > 0 ? child(at: point.offset - 1, of: point.key) : nil) : child(at: point.offset, of: point.key)
        case .text:
            guard let node = self[point.key] else { return nil }
            if before {
                neighbour = point.offset == 0 ? node.previousSibling : nil
            } else {
                neighbour = point.offset == node.text.utf16.count ? node.nextSibling : nil
            }
        }
        guard let neighbour, self[neighbour]?.type == ImageNodePlugin.type else { return nil }
        return neighbour
    }

    func requireImage(_ key: NodeKey) throws(ModelError) {
        let found = try node(key)
        guard found.type == ImageNodePlugin.type else {
            throw .invalidNode(type: found.type, reason: NodeValidationError(message: "node \(key) is not an image"))
        }
    }

    mutating func setImageDimensions(_ size: ImageSize, of key: NodeKey) throws(ModelError) {
        for (name, value) in [("width", size.width), ("height", size.height)] {
            if let value, !(value >= 0) || !value.isFinite {
                throw .invalidNode(type: ImageNodePlugin.type, reason: NodeValidationError(field: name, message: "expected a number ≥ 0, not \(value)"))
            }
            try setField(name, to: ImageNodePlugin.json(value ?? 0), of: key)
        }
    }
}

/// The image plugin's commands. Their JSON payloads (for scripts): `image.insert` takes
/// `{"src", "altText", "width", "height", "maxWidth", "showCaption"}` (only `src` required),
/// `image.setSize` `{"width", "height"}` (null or a missing side: the image's own),
/// `image.setAltText` a string.
public enum ImageCommands {
    /// Inserts an image at the selection (``EditorState/insertImage(_:)``).
    public static let insertImage = CommandType<ImageAttributes>("image.insert") { (json) throws(EditorError) in
        guard case .object(let object) = json, let source = object["src"]?.stringValue else {
            throw .invalidPayload(command: "image.insert", reason: "expected {\"src\": String, \"altText\", \"width\", \"height\", \"maxWidth\", \"showCaption\"}")
        }
        return ImageAttributes(source: source, altText: object["altText"]?.stringValue ?? "",
                               width: try dimension(object["width"], command: "image.insert"),
                               height: try dimension(object["height"], command: "image.insert"),
                               maxWidth: object["maxWidth"]?.doubleValue ?? 500, showCaption: object["showCaption"] == .bool(true))
    }

    /// Sets the size of the ``EditorState/selectedImage``.
    public static let setImageSize = CommandType<ImageSize>("image.setSize") { (json) throws(EditorError) in
        guard case .object(let object) = json else {
            throw .invalidPayload(command: "image.setSize", reason: "expected {\"width\": Number or null, \"height\": Number or null}")
        }
        return ImageSize(width: try dimension(object["width"], command: "image.setSize"), height: try dimension(object["height"], command: "image.setSize"))
    }

    /// Sets the alt text of the ``EditorState/selectedImage``.
    public static let setImageAltText = CommandType<String>("image.setAltText") { (json) throws(EditorError) in
        guard let text = json.stringValue else { throw .invalidPayload(command: "image.setAltText", reason: "expected a string, not \(json.typeName)") }
        return text
    }

    static func dimension(_ value: JSONValue?, command: String) throws(EditorError) -> Double? {
        switch value {
        case nil, .null?, .string("inherit")?: return nil
        case .number(let number)?: return number.doubleValue
        case let other?: throw .invalidPayload(command: command, reason: "a width or height is a number, null or \"inherit\", not \(other.typeName)")
        }
    }
}

/// Registers the ``ImageCommands``: insertion whenever there is a selection, size and alt text
/// when the selection holds an image (``EditorState/selectedImage``).
public struct ImageCommandsExtension: EditorExtension {
    public init() {}

    public func register(on registrar: any EditorRegistrar) throws(EditorError) -> [ListenerToken] {
        [
            try registrar.registerEdit(ImageCommands.insertImage, when: { $0.selection != nil }) { state, attributes throws(ModelError) in
                try state.insertImage(attributes)
            },
            try registrar.registerEdit(ImageCommands.setImageSize, when: { $0.selectedImage != nil }) { state, size throws(ModelError) in
                guard let image = state.selectedImage else { throw .noSelection }
                try state.setImageSize(size, of: image)
            },
            try registrar.registerEdit(ImageCommands.setImageAltText, when: { $0.selectedImage != nil }) { state, text throws(ModelError) in
                guard let image = state.selectedImage else { throw .noSelection }
                try state.setImageAltText(text, of: image)
            },
        ]
    }
}
