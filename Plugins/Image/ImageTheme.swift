import QuireMarkup
import QuireModel
import QuireStyle
import QuireTextStorage

/// The attributes the image plugin gives its U+FFFC besides the theme's `quire.attachment`
/// ("image"): the markup pipeline's attachment record (`AttributeKey.attachment`, attachment
/// scope, so it never spreads to text typed beside the image) with the image's source, alt text,
/// title and the width and height the document sets. The pipeline's attachment stage reads it
/// from the editor's text storage as it reads a markup image: `IntentText(storage:)`, then
/// `LiveAttachments` to load it.
public enum ImageTheme {
    /// The contribution the plugin's descriptor returns among its extensions.
    public static let contribution = ThemeContribution(nodeStyles: [ImageNodePlugin.type: { image in [.attachment: record(of: image)] }])

    /// The attachment record of an image node.
    public static func record(of image: Node) -> AttributeValue {
        var record: [String: AttributeValue] = [
            IntentText.AttachmentField.source: .string(ImageNodePlugin.source(of: image)),
            IntentText.AttachmentField.alt: .string(ImageNodePlugin.altText(of: image)),
        ]
        if let title = image.fields["title"]?.stringValue { record[IntentText.AttachmentField.title] = .string(title) }
        if let width = ImageNodePlugin.dimension("width", of: image) { record[IntentText.AttachmentField.width] = .double(width) }
        if let height = ImageNodePlugin.dimension("height", of: image) { record[IntentText.AttachmentField.height] = .double(height) }
        return .record(record)
    }
}
