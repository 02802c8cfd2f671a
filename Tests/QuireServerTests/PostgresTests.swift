import Foundation
import Logging
import QuireCRDT
import QuirePostgresStorage
import QuireServer
import QuireSyncClient
import QuireSyncProtocol
import Testing

/// A throwaway PostgreSQL cluster (Debian's `postgresql`): initdb and pg_ctl in a temporary
/// directory, run as the `postgres` user when the tests run as root (initdb refuses root).
final class PostgresCluster: Sendable {
    let directory: String
    let port: Int
    let asPostgres: Bool
    let bin: String

    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Starts a cluster, or returns why it cannot.
    static func start() -> Result<PostgresCluster, TestSkip> {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else { return .failure(TestSkip("PostgreSQL is not installed (Debian package postgresql)")) }
        let bin = "/usr/lib/postgresql/\(version)/bin"
        let asPostgres = getuid() == 0
        let directory = "/tmp/quire-pg-\(UUID().uuidString.prefix(8))"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            if asPostgres { try run("/bin/chown", ["postgres:postgres", directory]) }
        } catch {
            return .failure(TestSkip("cannot prepare \(directory): \(error)"))
        }
        for attempt in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let cluster = PostgresCluster(directory: directory, port: port, asPostgres: asPostgres, bin: bin)
            do {
                if attempt == 0 { try cluster.pg("initdb", ["-D", "\(directory)/data", "-A", "trust", "-U", "postgres", "--no-sync"]) }
                try cluster.pg("pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-t", "60", "-o",
                                          "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
                return .success(cluster)
            } catch {
                if attempt == 4 { return .failure(TestSkip("PostgreSQL did not start: \(error)")) }
            }
        }
        return .failure(TestSkip("PostgreSQL did not start"))
    }

    private init(directory: String, port: Int, asPostgres: Bool, bin: String) {
        self.directory = directory
        self.port = port
        self.asPostgres = asPostgres
        self.bin = bin
    }

    private func pg(_ tool: String, _ arguments: [String]) throws {
        if asPostgres {
            try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", "\(bin)/\(tool)"] + arguments)
        } else {
            try Self.run("\(bin)/\(tool)", arguments)
        }
    }

    /// Runs a command through `system` (waitpid): Foundation's `Process` can miss the exit of a
    /// command whose daemon child (the postmaster) lives on. Arguments are paths and options
    /// without spaces or quotes.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("quire-pg-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let quoted = ([executable] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        let status = system("\(quoted) > '\(outputPath)' 2>&1 < /dev/null")
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw TestSkip("\(executable) \(arguments.joined(separator: " ")) (status \(status)): \(text)") }
        return text
    }

    func stop() {
        do { try pg("pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "stop"]) } catch {
            print("warning: could not stop the test cluster in \(directory): \(error)")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

struct TestSkip: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A running cluster, or nil after printing why the test is skipped.
func startCluster() -> PostgresCluster? {
    switch PostgresCluster.start() {
    case let .success(cluster): return cluster
    case let .failure(skip):
        print("skipped: \(skip)")
        return nil
    }
}

@Suite(.serialized) struct PostgresTests {
    @Test func storageRoundTripsAndCompactsInOneTransaction() async throws {
        guard let cluster = startCluster() else { return }
        defer { cluster.stop() }
        let storage = try await PostgresStorage(url: cluster.url, logger: Logger(label: "quire.test.pg"))
        let room = RoomKey(kind: .loro, name: "r")
        let one = try await storage.append(room, codec: "quire-binary", payload: [1])
        let two = try await storage.append(room, codec: "quire-binary", payload: [2])
        #expect(try await storage.load(room).updates == [StoredUpdate(sequence: one, payload: [1]), StoredUpdate(sequence: two, payload: [2])])
        #expect(try await storage.update(room, sequence: two) == [2])
        #expect(try await storage.compact(room, codec: "quire-binary", snapshot: [9], covered: [one], expectedGeneration: 0) == .compacted(generation: 1))
        #expect(try await storage.compact(room, codec: "quire-binary", snapshot: [8], covered: [two], expectedGeneration: 0) == .stale(snapshot: [9], generation: 1))
        let stored = try await storage.load(room)
        #expect(stored.snapshot == [9] && stored.generation == 1 && stored.updates.map(\.sequence) == [two] && stored.codec == "quire-binary")
        try await storage.saveEphemeral(RoomKey(kind: .persistedEphemeral, name: "r"), payloads: [[1], [2, 3]])
        #expect(try await storage.load(RoomKey(kind: .persistedEphemeral, name: "r")).ephemeral == [[1], [2, 3]])
        await storage.close()
    }

    @Test func twoInstancesShareRoomsAndAKilledInstancesClientsResumeOnTheOther() async throws {
        guard let cluster = startCluster() else { return }
        defer { cluster.stop() }
        let first = try ServeProcess(["--database", cluster.url])
        let second = try ServeProcess(["--database", cluster.url])
        let policy = ReconnectPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200), pingInterval: nil)
        let a = SharedDocument(CRDTDocument(peer: 1)), b = SharedDocument(CRDTDocument(peer: 2))
        // a is on the first instance (and fails over to the second); b is on the second.
        let clientA = SyncClient(urls: [first.url, second.url], reconnect: policy)
        let clientB = SyncClient(urls: [second.url], reconnect: policy)
        _ = try await clientA.join("shared", document: a)
        _ = try await clientB.join("shared", document: b)
        try await a.type("from the first instance; ")
        try await b.type("from the second; ")
        try await clientA.flush()
        try await clientB.flush()
        try await eventually("LISTEN/NOTIFY carries updates between instances") {
            let (x, y) = (await a.text(), await b.text())
            return x == y && x.count == "from the first instance; from the second; ".count
        }
        // Kill the first instance mid-session; a keeps typing and resumes on the second.
        first.kill()
        for i in 0..<20 { try await a.type("\(i % 10)") }
        try await clientA.flush(timeout: .seconds(30))
        try await eventually("nothing typed around the kill is lost") {
            let (x, y) = (await a.text(), await b.text())
            return x == y && x.hasSuffix("01234567890123456789")
        }
        await clientA.close()
        await clientB.close()
        #expect(second.terminate() == 0)
    }
}
