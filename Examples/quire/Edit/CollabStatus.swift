/// What the status line says about collaboration: the connection and who else is in the room.
struct CollabStatus: Hashable, Sendable {
    enum Connection: Hashable, Sendable {
        case connecting
        case online
        /// Lost; the client reconnects on its own and sends what was typed meanwhile.
        case offline(reason: String)
    }

    var connection: Connection = .connecting
    /// The other peers' names, in the order shown.
    var peers: [String] = []
    /// Edits made since the connection was lost (they are sent when it is back).
    var offlineEdits = 0

    /// The status line's collaboration part, e.g. "online · with alice, bob" or
    /// "OFFLINE · 3 edits kept · reconnecting (connection closed)": the reason last, since a
    /// narrow status line cuts it first.
    var text: String {
        switch connection {
        case .connecting:
            return "connecting…"
        case .online:
            return peers.isEmpty ? "online · alone" : "online · with " + peers.joined(separator: ", ")
        case .offline(let reason):
            let kept = offlineEdits == 0 ? "" : "\(offlineEdits) edit\(offlineEdits == 1 ? "" : "s") kept · "
            let firstLine = reason.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return "OFFLINE · \(kept)reconnecting" + (firstLine.isEmpty ? "" : " (\(firstLine))")
        }
    }
}
