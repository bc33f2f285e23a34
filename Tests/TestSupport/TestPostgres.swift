import Foundation
import Synchronization

/// A throwaway PostgreSQL 15 server for one test (Debian's package, `make deps` installs it):
/// initdb into a fresh folder, started on a free loopback port, stopped and deleted by `stop()` or
/// when the test process is gone.
/// The server refuses to run as root, so it runs as the `postgres` user the package creates.
public final class TestPostgres: @unchecked Sendable {
    /// The version's own programs: `/usr/bin/psql` and `pg_isready` are Debian's Perl wrapper,
    /// ~40 ms of CPU a start where the program itself takes ~6 (and start-up polls `pg_isready`).
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public let folder: URL
    public private(set) var port = 0
    /// `postgres://vb:vbpass@127.0.0.1:<port>/voicebridge`
    public var url: String { url(of: "voicebridge") }

    /// The URL of database `name` on this server, as role `vb`.
    private func url(of name: String) -> String { "postgres://vb:vbpass@127.0.0.1:\(port)/\(name)" }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts a server (on a Dispatch thread: `initdb` takes seconds); throws with the tool's
    /// output when a step fails (PostgreSQL not installed included).
    public static func start() async throws -> TestPostgres {
        try await offThePool { try TestPostgres() }
    }

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: "\(Self.binaries)/initdb") else {
            throw Failure(description: "PostgreSQL 15 is not installed (\(Self.binaries)/initdb): run `make deps`")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let data = folder.appendingPathComponent("data").path
        try Self.run("/bin/chown", ["postgres:postgres", folder.path])
        try Self.asPostgres("\(Self.binaries)/initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"])
        for attempt in 1...3 {   // a random port someone else holds: the server exits, try another
            port = Int.random(in: 20_000...29_999)
            if try startServer(data: data) { break }
            if attempt == 3 { throw Failure(description: "PostgreSQL did not start: \(log)") }
        }
        try Self.asPostgres("\(Self.binaries)/psql", ["-h", folder.path, "-p", "\(port)", "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q",
                                              "-c", "CREATE ROLE vb LOGIN PASSWORD 'vbpass'", "-c", "CREATE DATABASE voicebridge OWNER vb"])
    }

    private var server: Process?

    /// Runs `postgres` itself as this process's child (not through pg_ctl, whose daemon would keep
    /// Foundation's watch on the starting process open, so waiting for it never ends); true once
    /// it accepts connections, false when it exited (its port was taken).
    private func startServer(data: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // A small shell stays beside the server and stops it (fast shutdown) when this test process
        // is gone, however it ended — a crashed or killed test leaves no server behind — or when
        // `stop()` interrupts it.
        let watch = """
            trap 'kill -INT $p; wait $p; exit 0' INT TERM
            "$0" "$@" & p=$!
            while [ -d /proc/\(ProcessInfo.processInfo.processIdentifier) ] && kill -0 $p 2>/dev/null; do sleep 0.5; done
            kill -INT $p 2>/dev/null; wait $p; rm -rf '\(folder.path)'
            """
        process.arguments = ["--reuid", "postgres", "--regid", "postgres", "--init-groups", "--", "/bin/sh", "-c", watch, "\(Self.binaries)/postgres", "-D", data,
                             "-p", "\(port)", "-k", folder.path, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                             "-c", "synchronous_commit=off", "-c", "max_connections=200"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
        let logFile = folder.appendingPathComponent("log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        try log.seekToEnd()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, process.isRunning {
            if (try? Self.run("\(Self.binaries)/pg_isready", ["-q", "-h", "127.0.0.1", "-p", "\(port)"])) != nil {
                server = process
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning { process.terminate() }
        return false
    }

    /// Stops the server (fast shutdown) and deletes its folder.
    public func stop() async {
        _ = try? await offThePool { [self] in
            if let server, server.isRunning {
                server.interrupt()
                server.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// A new, empty database on this server (owned by `vb`); its URL.
    public func newDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let (folder, port) = (folder.path, port)
        try await offThePool {
            try Self.asPostgres("\(Self.binaries)/psql", ["-h", folder, "-p", "\(port)", "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q",
                                                  "-c", "CREATE DATABASE \(name) OWNER vb"])
        }
        return url(of: name)
    }

    /// One server for the whole test process, started by the first test that asks (the others
    /// await the same start) and stopped (its folder deleted) within a second of the process's
    /// exit; each test takes a database of its own (`newDatabase`).
    public static func shared() async throws -> TestPostgres {
        let starting = sharedServer.withLock { task in
            if let task { return task }
            let new = Task { try await start() }
            task = new
            return new
        }
        return try await starting.value
    }

    private static let sharedServer = Mutex<Task<TestPostgres, any Error>?>(nil)

    /// The server's log (for a failing test's message).
    public var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
    }

    private static func asPostgres(_ tool: String, _ arguments: [String]) throws {
        try run("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")   // postgres cannot read root's working folder
        // Output goes to a file, not a pipe: a pipe read only after the exit can fill and stall the tool.
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("vb-pg-output-\(UUID().uuidString.prefix(8))")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let printed = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(printed)")
        }
    }
}
