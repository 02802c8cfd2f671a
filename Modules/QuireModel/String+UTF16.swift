/// Small helpers on integers and strings that the editing operations share.
extension Int {
    func clamped(above lower: Int) -> Int { Swift.max(self, lower) }
    func clamped(below upper: Int, above lower: Int) -> Int { Swift.min(Swift.max(self, lower), upper) }
}

extension String {
    /// The first `count` UTF-16 units as a string.
    func utf16Prefix(_ count: Int) -> Substring {
        let end = utf16.index(utf16.startIndex, offsetBy: count)
        return self[..<end]
    }

    /// The string from UTF-16 offset `start` on.
    func utf16Suffix(from start: Int) -> Substring {
        let begin = utf16.index(utf16.startIndex, offsetBy: start)
        return self[begin...]
    }
}
