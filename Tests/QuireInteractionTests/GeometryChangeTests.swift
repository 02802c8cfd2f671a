import QuireEditor
import QuireInteraction
import QuireMarkup
import Testing

/// `ViewportController.geometryDidChange()`: the layout changes while the text does not (an
/// image loaded and took its size); the reader's line stays at the top, the caret is not chased.
@Suite struct GeometryChangeTests {
    /// Line heights the test changes between layouts, as a finished image load would.
    final class LineHeight: @unchecked Sendable {
        // Written and read on the test's thread only.
        var value = 20.0
    }

    struct Rows: LayoutMetrics {
        let height: Double
        var name: String { "rows-\(height)" }
        func advance(of cluster: Character, font: FontDescriptor) -> Double { 1 }
        func lineHeight(for font: FontDescriptor) -> Double { height }
        func attachmentSize(intrinsic: AttachmentSize?, label: String, font: FontDescriptor) -> AttachmentSize {
            AttachmentSize(width: 1, height: height)
        }
    }

    @Test func theReadersLineStaysAtTheTopAndTheOffsetIsClamped() throws {
        let editor = try makeEditor((0..<60).map { "line \($0)" }, selection: 0..<0)
        let height = LineHeight()
        let controller = try ViewportController(editor: editor, viewport: Viewport(width: 320, height: 480), policy: .points) { editor, width in
            TextLayout(plainText: editor.text, width: width, metrics: Rows(height: height.value))
        }
        controller.userDidScroll(to: 400)
        controller.userDidEndScrolling()
        #expect(controller.viewport.offset == 400)
        height.value = 30
        controller.geometryDidChange()
        #expect(controller.viewport.offset == 600, "line 20 is still the top line")
        #expect(controller.geometry.contentHeight == 1_800)
        #expect(editor.nativeSelection == 0..<0)
        height.value = 1
        controller.geometryDidChange()
        #expect(controller.viewport.offset == 0, "content shorter than the view: clamped, not past the end")
    }
}

/// A commit that changes nodes without changing the text (a format, a block's kind, a list's
/// nesting) can change the layout: the controller asks for the geometry again. A commit that
/// only moves the selection does not.
@Suite struct GeometryAfterCommitTests {
    final class Count: @unchecked Sendable {
        // Written and read on the test's thread only.
        var layouts = 0
    }

    @Test func aFormatChangeLaysOutAgainAndASelectionDoesNot() throws {
        let editor = try makeEditor(["some text", "more"], selection: 0..<4)
        let count = Count()
        let controller = try ViewportController(editor: editor, viewport: Viewport(width: 40, height: 10), policy: .terminal) { editor, width in
            count.layouts += 1
            return TextLayout(plainText: editor.text, width: width)
        }
        let initial = count.layouts
        let text = editor.text
        try editor.dispatch(Commands.formatText, .bold)
        #expect(editor.text == text)
        #expect(count.layouts == initial + 1)
        try editor.selectionDidChange(6..<6)
        #expect(count.layouts == initial + 1)
        _ = controller
    }
}
