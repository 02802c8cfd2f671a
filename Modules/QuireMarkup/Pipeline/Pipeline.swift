/// The five stages composed: parse (a `MarkupDocument` as `IntentText`) → preprocess → resolve
/// attachments → style → build, then layout. Each stage is also usable alone.
public struct MarkupPipeline: Sendable {
    /// Stage 2 steps, in order.
    public var preprocessors: [any IntentTextPreprocessor]
    /// Stage 3.
    public var attachments: AttachmentCache
    /// Stage 4.
    public var environment: StyleEnvironment
    /// Stage 5.
    public var builder: RunBuilder

    /// A pipeline.
    public init(preprocessors: [any IntentTextPreprocessor] = [EmojiPreprocessor()], attachments: AttachmentCache,
                environment: StyleEnvironment = StyleEnvironment(), builder: RunBuilder) {
        self.preprocessors = preprocessors
        self.attachments = attachments
        self.environment = environment
        self.builder = builder
    }

    /// Runs stages 1–5 for a width proposal.
    ///
    /// - Complexity: O(n) in the document's size, plus the attachment loads.
    public func build(_ document: MarkupDocument, proposal width: Double) async -> BuiltText {
        await built(document, proposal: width).built
    }

    /// Stages 1–2, then 3–5: the intent text as preprocessed, and its build.
    private func built(_ document: MarkupDocument, proposal width: Double) async -> (text: IntentText, built: BuiltText) {
        var text = IntentText(document)
        for step in preprocessors { text = step.process(text) }
        let resolved = await attachments.resolveAll(in: text)
        return (text, builder.build(environment.apply(to: text, attachments: resolved), proposal: width))
    }

    /// Runs every stage and lays the result out at `width`.
    public func layout(_ document: MarkupDocument, width: Double) async -> TextLayout {
        await render(document, width: width).layout
    }

    /// Runs every stage and lays the result out at `width`, keeping what each step made: what a
    /// view draws, and what ``RenderedTextSelection`` selects and copies from.
    public func render(_ document: MarkupDocument, width: Double) async -> RenderedText {
        let (text, built) = await built(document, proposal: width)
        return RenderedText(text: text, built: built, layout: TextLayout(built, width: width, metrics: builder.metrics))
    }
}

/// A document through the whole pipeline: its intent text after preprocessing, the built runs
/// and the layout.
public struct RenderedText: Sendable {
    public var text: IntentText
    public var built: BuiltText
    public var layout: TextLayout
}
