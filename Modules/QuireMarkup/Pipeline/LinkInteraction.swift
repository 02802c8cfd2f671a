/// A link found in a layout: its target, the UTF-16 range of all its text (a link that wraps
/// spans several lines) and one frame per line it is on, for a pressed highlight.
public struct LinkHit: Hashable, Sendable {
    /// The link's target.
    public var url: String
    /// The UTF-16 range of the link's text.
    public var range: Range<Int>
    /// The link's text on each line it is on, top to bottom.
    public var frames: [LayoutRect]

    /// A hit.
    public init(url: String, range: Range<Int>, frames: [LayoutRect]) {
        self.url = url
        self.range = range
        self.frames = frames
    }

    /// Whether `point` is over the link's text.
    public func contains(_ point: LayoutPoint) -> Bool { frames.contains { $0.contains(point) } }
}

extension TextLayout {
    /// The link under `point` with its whole range and frames, or nil when the point is not over
    /// linked text (between lines, past a line's end, in an indent).
    ///
    /// - Complexity: O(log n) to find the run, plus O(k) for the k runs of the link.
    public func linkHit(at point: LayoutPoint) -> LinkHit? {
        guard !lines.isEmpty else { return nil }
        let global = lineIndex(atY: point.y)
        let line = lines[global]
        guard point.y >= line.y, point.y < line.y + line.height,
              let runIndex = runsNear(point.x, in: line).indices.first,
              point.x >= line.runs[runIndex].x, point.x < line.runs[runIndex].x + line.runs[runIndex].width,
              line.runs[runIndex].style.link != nil else { return nil }
        return linkHit(line: global, run: runIndex)
    }

    /// The link whose text contains the UTF-16 `offset`, or nil.
    ///
    /// - Complexity: O(log n + k) for the k runs of the link.
    public func linkHit(atOffset offset: Int) -> LinkHit? {
        guard !lines.isEmpty, offset >= 0, offset < length else { return nil }
        let position = position(ofOffset: offset)
        let global = firstLine[position.layout] + position.line
        guard position.run < lines[global].runs.count, lines[global].runs[position.run].range.contains(offset) else { return nil }
        return linkHit(line: global, run: position.run)
    }

    /// The link that run `run` of line `global` belongs to: the runs before and after it, on
    /// this line and the paragraph's other lines, that continue the text with the same target.
    func linkHit(line global: Int, run runIndex: Int) -> LinkHit? {
        guard let url = lines[global].runs[runIndex].style.link else { return nil }
        let paragraph = lines[global].paragraph
        // (line, run) pairs, walked in text order within the paragraph.
        func previous(_ at: (Int, Int)) -> (Int, Int)? {
            if at.1 > 0 { return (at.0, at.1 - 1) }
            var line = at.0 - 1
            while line >= 0, lines[line].paragraph == paragraph {
                if !lines[line].runs.isEmpty { return (line, lines[line].runs.count - 1) }
                line -= 1
            }
            return nil
        }
        func next(_ at: (Int, Int)) -> (Int, Int)? {
            if at.1 + 1 < lines[at.0].runs.count { return (at.0, at.1 + 1) }
            var line = at.0 + 1
            while line < lines.count, lines[line].paragraph == paragraph {
                if !lines[line].runs.isEmpty { return (line, 0) }
                line += 1
            }
            return nil
        }
        func continues(_ from: (Int, Int), _ to: (Int, Int)) -> Bool {
            let a = lines[from.0].runs[from.1]
            let b = lines[to.0].runs[to.1]
            return a.style.link == url && b.style.link == url && a.range.upperBound == b.range.lowerBound
        }
        var first = (global, runIndex)
        while let before = previous(first), continues(before, first) { first = before }
        var last = (global, runIndex)
        while let after = next(last), continues(last, after) { last = after }
        var frames: [LayoutRect] = []
        var at = first
        while true {
            let line = lines[at.0]
            let run = line.runs[at.1]
            let frame = LayoutRect(x: run.x, y: line.y, width: run.width, height: line.height)
            if let previous = frames.last, previous.y == frame.y {
                frames[frames.count - 1].width = frame.x + frame.width - previous.x
            } else {
                frames.append(frame)
            }
            if at == last { break }
            guard let following = next(at) else { break }
            at = following
        }
        let range = lines[first.0].runs[first.1].range.lowerBound..<lines[last.0].runs[last.1].range.upperBound
        return LinkHit(url: url, range: range, frames: frames)
    }
}

/// Opens a link's target: an app injects its own (the system's URL opener, a router for its
/// own links, a recorder in tests).
public protocol LinkOpener: Sendable {
    /// Opens `url`; returns whether it was handled.
    func open(_ url: String) -> Bool
}

/// A link opener from a closure.
public struct LinkOpenerFunction: LinkOpener {
    private let body: @Sendable (String) -> Bool

    /// An opener that calls `body`.
    public init(_ body: @escaping @Sendable (String) -> Bool) { self.body = body }

    public func open(_ url: String) -> Bool { body(url) }
}

/// What activating a link did: which link, and whether the opener handled it.
public struct LinkActivation: Hashable, Sendable {
    public var link: LinkHit
    public var opened: Bool
}

/// Tap and click handling for links over a laid-out text (a rendered document or a live
/// editor's layout), as a view's gesture handler drives it: a press over a link makes it the
/// pressed link (its ``LinkHit/frames`` are the highlight to draw), moving off it lifts the
/// highlight and moving back restores it, and releasing over it opens it with the injected
/// ``LinkOpener``. Releasing elsewhere, or a press that is not over a link, opens nothing.
public struct LinkInteraction: Sendable {
    /// What opens an activated link.
    public var opener: any LinkOpener
    /// The link a press started on, until it is released or cancelled.
    public private(set) var pressed: LinkHit?
    /// Whether the pointer is over the pressed link now: whether to draw its highlight.
    public private(set) var isHighlighted = false

    /// An interaction opening links with `opener`.
    public init(opener: any LinkOpener) { self.opener = opener }

    /// A press (touch down, mouse down) at `point`: the link under it, now pressed, or nil.
    ///
    /// - Complexity: O(log n + k), as ``TextLayout/linkHit(at:)``.
    @discardableResult
    public mutating func press(at point: LayoutPoint, in layout: TextLayout) -> LinkHit? {
        pressed = layout.linkHit(at: point)
        isHighlighted = pressed != nil
        return pressed
    }

    /// The pointer moved to `point` while pressed: the highlight follows whether it is over the
    /// pressed link.
    public mutating func move(to point: LayoutPoint) {
        isHighlighted = pressed?.contains(point) ?? false
    }

    /// The press ended at `point`: over the pressed link, it is opened.
    ///
    /// - Returns: the activation, or nil when nothing was opened.
    public mutating func release(at point: LayoutPoint) -> LinkActivation? {
        defer { cancel() }
        guard let link = pressed, link.contains(point) else { return nil }
        return LinkActivation(link: link, opened: opener.open(link.url))
    }

    /// The gesture was cancelled (a scroll took over): nothing is pressed or opened.
    public mutating func cancel() {
        pressed = nil
        isHighlighted = false
    }

    /// A tap or click at `point`: press and release there.
    public mutating func tap(at point: LayoutPoint, in layout: TextLayout) -> LinkActivation? {
        press(at: point, in: layout)
        return release(at: point)
    }
}
