import Foundation
import QuireModel

/// A helper process spoken to in JSON lines — one request object per line on its standard input,
/// one reply object per line on its standard output — such as the real Loro peer of the interop
/// tests (`Tests/Interop/loro_peer.py`). A reply with `"ok": false` is an error carrying the
/// reply's `"error"`.
public final class JSONLinesPeer {
    /// The Python interpreter with `loro` installed for the interop tests, when the environment
    /// names one (`QUIRE_LORO_PYTHON`, which `make test` sets after creating `.venv-interop`).
    public static var loroPython: String? {
        guard let path = ProcessInfo.processInfo.environment["QUIRE_LORO_PYTHON"], !path.isEmpty else { return nil }
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// A failed request, or a peer that stopped answering.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let name: String
    private let process = Process()
    private let input: FileHandle
    private let output: FileHandle
    private var buffer = Data()

    /// Starts `executable` with `arguments`; `name` says who failed in error messages.
    public init(name: String, executable: String, arguments: [String]) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let toPeer = Pipe(), fromPeer = Pipe()
        process.standardInput = toPeer
        process.standardOutput = fromPeer
        input = toPeer.fileHandleForWriting
        output = fromPeer.fileHandleForReading
        try process.run()
    }

    deinit {
        try? input.close()  // the peer exits at end of input; nothing to lose here
        process.waitUntilExit()
    }

    /// Sends one request and returns the reply's fields; a reply with `"ok": false` throws its
    /// error, naming the request's `"cmd"`.
    @discardableResult
    public func request(_ fields: JSONObject) throws -> JSONObject {
        try input.write(contentsOf: Data(JSONWriter().bytes(.object(fields)) + [0x0A]))
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let reply = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let object = try JSONParser.parse(reply).objectValue else {
                    throw Failure(description: "\(name): a reply that is not an object")
                }
                guard object["ok"] == true else {
                    throw Failure(description: "\(name): \(object["error"]?.stringValue ?? "unknown error") for \(fields["cmd"]?.stringValue ?? "?")")
                }
                return object
            }
            let chunk = output.availableData
            guard !chunk.isEmpty else { throw Failure(description: "\(name) exited (status \(process.isRunning ? -1 : process.terminationStatus))") }
            buffer.append(chunk)
        }
    }
}
