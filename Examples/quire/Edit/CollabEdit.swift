import Foundation
import QuireBridge
import QuireCRDT
import QuireEditor
import QuireModel
import QuireSyncClient
import QuireSyncProtocol

/// Where and as whom `quire edit --server … --room …` joins.
struct CollabOptions: Sendable {
    var server: String
    var room: String
    var token: String
    var name: String
}

/// `quire edit FILE --server URL --room ROOM`: the terminal editor joined to a room of
/// `quire serve`.
///
/// One actor holds the document: the ``BoundEditor`` owns the editor and its binding to the
/// room's CRDT document, the sync client imports remote changes through it, and the terminal
/// loop (``edit(_:client:presence:file:setup:options:message:)``) runs isolated to it. The loop
/// waits on one stream that everything reports into — keys and resizes from a reading thread,
/// remote changes from the editor's update listener, presence and connection events from the
/// client, a ticker — so it wakes for keys and for the network alike, and nothing touches the
/// editor between the loop's own steps except the client's imports, which run on the same actor.
enum CollabEdit {
    /// Presence entries time out after this long without a refresh: the caret of a peer that
    /// vanished without leaving goes away then.
    static let presenceTimeout: Int64 = 10_000
    /// How often this peer refreshes its presence, well inside the timeout.
    static let presenceRefresh: Duration = .seconds(3)
    /// How long joining may take: a room of 10,000 paragraphs took longer than the client's
    /// default 10 s to arrive and import on a loaded machine.
    static let joinTimeout: Duration = .seconds(120)

    enum Failure: Error, CustomStringConvertible {
        case cannotJoin(server: String, room: String, reason: String)
        case notSent(room: String, reason: String)

        var description: String {
            switch self {
            case let .cannotJoin(server, room, reason): "cannot join room \(room) at \(server): \(reason)"
            case let .notSent(room, reason):
                "the last edits did not reach room \(room) before quitting (\(reason)); they are in the file only if it was saved"
            }
        }
    }

    /// What wakes the terminal loop.
    enum Event: Sendable {
        case input(Terminal.Input)
        case escapeTimeout(generation: Int)
        case remoteChange
        case presence([UInt8])
        case connection(SyncClientEvent)
        case tick
    }

    static func run(file: String, setup: MarkupSetup, options: CollabOptions) async throws {
        try Terminal.requireTerminal()
        let client = SyncClient(
            url: options.server,
            reconnect: ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(2), pingInterval: .seconds(5))
        )
        let auth = Array(options.token.utf8)
        // The room's document as the server has it; only an empty room is seeded from FILE (a
        // room that has content would otherwise get the file's text a second time).
        let probe = SharedDocument(CRDTDocument(peer: PeerID.random(in: 1...PeerID.max)))
        do {
            // A large room takes a while to arrive and import: wait as a person would.
            _ = try await client.join(options.room, auth: auth, document: probe, timeout: joinTimeout)
            try await client.flush(timeout: joinTimeout)
        } catch {
            await client.close()
            throw Failure.cannotJoin(server: options.server, room: options.room, reason: error.description)
        }
        await client.leave(options.room)
        var document = await probe.snapshot()
        let loaded = try EditSession.load(file, setup: setup)
        let isEmptyRoom = document.version.ends.isEmpty
        if isEmptyRoom {
            // Another editor may be seeding the room with the same file right now: the seed is
            // then the very same change, and the room keeps one copy.
            document = try Projection.seededDocument(from: loaded.state, peer: document.peer)
        }
        let editor = try EditSession.makeEditor(EditorState(registry: setup.registry, paragraphs: [""]), setup: setup, path: file)
        let bound = try BoundEditor(editor: editor, document: document)
        let presence: AsyncStream<[UInt8]>
        do {
            _ = try await client.join(options.room, auth: auth, document: bound, timeout: joinTimeout)
            presence = try await client.joinPresence(options.room, auth: auth, timeout: joinTimeout)
        } catch {
            await client.close()
            throw Failure.cannotJoin(server: options.server, room: options.room, reason: error.description)
        }
        let message = isEmptyRoom
            ? "Room \(options.room) was empty: it now holds \(FileManager.default.fileExists(atPath: file) ? file : "a new document")"
            : "Joined room \(options.room) · Ctrl-S saves to \(file) · Ctrl-Q quits"
        try await edit(bound, client: client, presence: presence, file: file, setup: setup, options: options, message: message)
    }

    /// The terminal loop, on the document's actor.
    private static func edit(
        _ bound: isolated BoundEditor, client: SyncClient, presence: AsyncStream<[UInt8]>,
        file: String, setup: MarkupSetup, options: CollabOptions, message: String
    ) async throws {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let connectionEvents = await client.events()
        let terminal = try Terminal()
        defer { terminal.restore() }
        var session: EditSession?
        try bound.perform { binding in
            // A projected room document comes without a selection: the caret starts at the top.
            if binding.editor.nativeSelection == nil { try binding.editor.selectionDidChange(0..<0) }
            session = try EditSession(path: file, setup: setup, size: terminal.size, editor: binding.editor, message: message)
            binding.editor.registerUpdateListener { update in
                if update.transaction.origin == .remote { continuation.yield(.remoteChange) }
            }
        }
        guard let session else { return }
        var collab = CollabPresence(key: String(bound.document.peer), name: options.name, timeout: presenceTimeout)
        session.collabStatus = CollabStatus(connection: .online)

        terminal.readInputInBackground { continuation.yield(.input($0)) }
        let forwarders = [
            Task { for await event in connectionEvents { continuation.yield(.connection(event)) } },
            Task { for await payload in presence { continuation.yield(.presence(payload)) } },
            Task {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: .seconds(1)) } catch { return }
                    continuation.yield(.tick)
                }
            },
        ]
        defer { for task in forwarders { task.cancel() } }

        var decoder = KeyDecoder()
        var shown: ScreenFrame?
        var escapeGeneration = 0
        var lastPublished = ContinuousClock.now
        func draw() {
            session.remoteSelections = collab.selections { cursor in bound.perform { $0.nativeOffset(of: cursor) } }
            session.collabStatus?.peers = collab.peerNames
            let frame = session.frame()
            guard frame != shown else { return }
            terminal.send(ScreenDiff.output(from: shown, to: frame))
            shown = frame
        }
        /// Publishes this peer's selection when it moved (or always, to refresh it).
        func publish(force: Bool) async {
            let cursors = bound.perform { $0.selectionCursors }
            guard let payload = collab.update(selection: cursors, force: force) else { return }
            lastPublished = .now
            do { try await client.publishPresence(payload, room: options.room) } catch {
                session.message = "Presence not sent: \(error)"
            }
        }
        /// Runs keys through the session on the actor (so the client hears of the changes).
        func handle(_ keys: [KeyEvent]) -> EditSession.Outcome {
            let before = bound.document.version
            var outcome = EditSession.Outcome.continue
            bound.perform { _ in
                for key in keys where session.handle(key) == .quit {
                    outcome = .quit
                    break
                }
            }
            if case .offline? = session.collabStatus?.connection, bound.document.version != before { session.collabStatus?.offlineEdits += 1 }
            return outcome
        }

        await publish(force: true)
        draw()
        loop: for await event in events {
            switch event {
            case .input(.bytes(let bytes)):
                if handle(decoder.feed(bytes)) == .quit { break loop }
                if decoder.hasPending {
                    escapeGeneration += 1
                    let generation = escapeGeneration
                    Task {
                        do { try await Task.sleep(for: .milliseconds(Int(EditCommand.escapeTimeoutMilliseconds))) } catch { return }
                        continuation.yield(.escapeTimeout(generation: generation))
                    }
                }
                await publish(force: false)
            case .escapeTimeout(let generation):
                guard generation == escapeGeneration, decoder.hasPending else { continue }
                if handle(decoder.flush()) == .quit { break loop }
                await publish(force: false)
            case .input(.resize):
                let size = terminal.size
                try session.resize(columns: size.columns, rows: size.rows)
                shown = nil
            case .input(.attachments):
                session.attachmentsDidLoad()
            case .input(.ended(let reason)):
                if let reason { session.message = reason }
                break loop
            case .remoteChange:
                break
            case .presence(let payload):
                do { try collab.apply(payload) } catch {
                    session.message = "Unreadable presence from the server: \(error)"
                }
            case .connection(let connectionEvent):
                switch connectionEvent {
                case .connected:
                    session.collabStatus?.connection = .connecting
                case .disconnected(let reason):
                    if case .offline? = session.collabStatus?.connection {} else { session.collabStatus?.offlineEdits = 0 }
                    session.collabStatus?.connection = .offline(reason: reason)
                case .joined:
                    session.collabStatus?.connection = .online
                    session.collabStatus?.offlineEdits = 0
                    // The client republishes the last presence on rejoining; a fresh stamp keeps
                    // it from being taken for an outdated one after a long outage.
                    await publish(force: true)
                case let .joinFailed(room, _, text), let .roomError(room, _, text):
                    session.message = "Room \(room): \(text)"
                case let .updateRejected(room, status):
                    session.message = "Room \(room) refused an edit (\(status))"
                }
            case .tick:
                collab.removeOutdated()
                if ContinuousClock.now - lastPublished >= presenceRefresh { await publish(force: true) }
            }
            draw()
        }
        // Leaving: peers drop the caret at once, and the last typing reaches the server.
        if let payload = collab.leave() {
            do { try await client.publishPresence(payload, room: options.room) } catch {
                // The room is gone already: the presence times out on the other peers.
            }
        }
        do {
            try await client.flush(timeout: .seconds(3))
            await client.close()
        } catch {
            await client.close()
            throw Failure.notSent(room: options.room, reason: error.description)
        }
    }
}

/// This peer's presence and the other peers' in the room: an ``EphemeralStore`` keyed by peer ID,
/// each value `{name, anchor, focus}` with the selection's ends as stable cursors (bytes).
struct CollabPresence {
    let key: String
    let name: String
    private(set) var store: EphemeralStore
    private var published: [Cursor]?

    init(key: String, name: String, timeout: Int64, clock: EphemeralStore.Clock? = nil) {
        self.key = key
        self.name = name
        store = clock.map { EphemeralStore(timeout: timeout, clock: $0) } ?? EphemeralStore(timeout: timeout)
    }

    /// The payload to publish for `selection`, or nil when it has not moved since the last one
    /// (unless `force`, which refreshes the entry's timestamp).
    mutating func update(selection: (anchor: Cursor, focus: Cursor)?, force: Bool) -> [UInt8]? {
        let cursors = selection.map { [$0.anchor, $0.focus] }
        guard force || cursors != published else { return nil }
        published = cursors
        var value: [String: CRDTValue] = ["name": .string(name)]
        if let selection {
            value["anchor"] = .binary(selection.anchor.encoded())
            value["focus"] = .binary(selection.focus.encoded())
        }
        store.set(key, .map(value))
        return store.encode(key)
    }

    /// The payload that says this peer left.
    mutating func leave() -> [UInt8]? {
        guard store.get(key) != nil else { return nil }
        store.delete(key)
        return store.encode(key)
    }

    /// Applies what a peer published (bytes from the server).
    mutating func apply(_ payload: [UInt8]) throws(CRDTError) { try store.apply(payload) }

    /// Drops timed-out peers; true when one was dropped.
    @discardableResult
    mutating func removeOutdated() -> Bool { !store.removeOutdated().isEmpty }

    /// The other peers, by key: name and selection (nil when they published none or it does not
    /// decode).
    var peers: [(key: String, name: String, anchor: Cursor?, focus: Cursor?)] {
        store.all.compactMap { key, value in
            guard key != self.key, case .map(let fields) = value else { return nil }
            let name: String
            if case .string(let given)? = fields["name"] { name = given } else { name = "peer \(key)" }
            return (key, name, Self.cursor(fields["anchor"]), Self.cursor(fields["focus"]))
        }.sorted { ($0.name, $0.key) < ($1.name, $1.key) }
    }

    var peerNames: [String] { peers.map(\.name) }

    /// The other peers' selections, resolved to native offsets by `resolve`.
    func selections(resolve: (Cursor) -> Int?) -> [EditSession.RemoteSelection] {
        peers.compactMap { peer in
            guard let anchor = peer.anchor.flatMap(resolve), let focus = peer.focus.flatMap(resolve) else { return nil }
            return EditSession.RemoteSelection(name: peer.name, colour: PeerColour(key: peer.key), anchor: anchor, focus: focus)
        }
    }

    private static func cursor(_ value: CRDTValue?) -> Cursor? {
        guard case .binary(let bytes)? = value else { return nil }
        do { return try Cursor(decoding: bytes) } catch {
            // A cursor this version cannot read: the peer is listed, its caret not drawn.
            return nil
        }
    }
}
