extension String {
    /// A string of `scalars`, encoded to UTF-8 once.
    ///
    /// Appending scalars to a `String.UnicodeScalarView` one at a time re-checks and grows the
    /// string per scalar (and, on a copy of the view, copies it); encoding them into one buffer
    /// first is several times faster, which the CRDT's text reads and the bridge's writes need.
    ///
    /// - Complexity: O(n) for n scalars.
    public init<Scalars: Sequence>(scalars: Scalars) where Scalars.Element == Unicode.Scalar {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(scalars.underestimatedCount)
        for scalar in scalars { UTF8.encode(scalar) { utf8.append($0) } }
        self.init(decoding: utf8, as: UTF8.self)
    }
}
