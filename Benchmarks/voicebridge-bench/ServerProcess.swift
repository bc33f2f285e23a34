import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import TestSupport

/// A `voicebridge serve` child process on loopback with its own database folder, measured from
/// /proc so that the load generator's own work is not counted.
final class ServerProcess: Sendable {
    let httpPort: Int
    /// The server's SIP port (UDP), when started with `sip: true`: the ports the load sends to.
    /// Otherwise the server's SIP listens on a port the kernel picks, which nothing here needs.
    let sipPort: Int?
    let folder: String
    private let process: Process

    struct MediaTick: Decodable {
        /// Calls whose audio the media tick is pacing (answered and running).
        var pacedLegs: Int
        var ticks: Int
        var lateFrames: Int
        var audiblyLateFrames: Int
        var maxLatenessMilliseconds: Double
        enum CodingKeys: String, CodingKey {
            case pacedLegs = "paced_legs"
            case ticks
            case lateFrames = "late_frames"
            case audiblyLateFrames = "audibly_late_frames"
            case maxLatenessMilliseconds = "max_lateness_ms"
        }
    }

    /// Starts `voicebridge serve` with `environment` and returns once it answers `/healthz`.
    /// Its ports are found free here and handed to it, so another process can bind one first (the
    /// soak's SIP port was taken by a unit test's RTP beside it, 4 Dec): a server that exits while
    /// starting is started again on other ports, three times in all. Its reason is on stderr each time.
    static func start(binary: String, environment: [String: String], sip: Bool = false) async throws -> ServerProcess {
        var attempt = 1
        while true {
            let server = try ServerProcess(binary: binary, environment: environment, sip: sip)
            do {
                try await server.waitUntilHealthy()
                return server
            } catch {
                let exited = !server.isRunning
                server.stop()
                guard exited, attempt < 3 else { throw error }
                attempt += 1
                FileHandle.standardError.write(Data("voicebridge-bench: \(error); starting it again on other ports\n".utf8))
            }
        }
    }

    private init(binary: String, environment extra: [String: String], sip: Bool) throws {
        httpPort = try freeTCPPort()
        sipPort = sip ? freeUDPPort() : nil
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["VOICEBRIDGE_HTTP_HOST"] = "127.0.0.1"
        environment["VOICEBRIDGE_HTTP_PORT"] = "\(httpPort)"
        environment["VOICEBRIDGE_SIP_PORT"] = "\(sipPort ?? 0)"
        environment["VOICEBRIDGE_DATABASE_PATH"] = (folder as NSString).appendingPathComponent("bench.sqlite")
        environment["VOICEBRIDGE_OUTBOUND_MAX_CALL_DURATION"] = "3600"
        // Quiet unless asked (`VB_BENCH_SERVER_LOG_LEVEL=info`: the server's log on the bench's stderr).
        environment["LOG_LEVEL"] = environment["VB_BENCH_SERVER_LOG_LEVEL"] ?? "error"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        terminate()
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func waitUntilHealthy() async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            if (try? await mediaTick()) != nil { return }
            guard process.isRunning else { throw BenchError("voicebridge serve exited with status \(process.terminationStatus)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("voicebridge serve did not answer /healthz on port \(httpPort)")
    }

    /// The server's own account of its 20 ms media tick.
    func mediaTick() async throws -> MediaTick {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(httpPort)/healthz"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        struct Health: Decodable { var media: MediaTick }
        return try JSONDecoder().decode(Health.self, from: Data(body.readableBytesView)).media
    }

    /// User + system CPU seconds the server has used so far.
    func cpuSeconds() -> Double { Self.cpuSeconds(pid: "\(process.processIdentifier)") }

    /// User + system CPU seconds of a process (/proc/PID/stat fields 14 and 15); "self" for this one.
    static func cpuSeconds(pid: String) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func residentKilobytes() -> Int { statusField("VmRSS:") }

    /// Threads of the server process (/proc/PID/status).
    func threads() -> Int { statusField("Threads:") }

    private func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }

    /// Open file descriptors of the server process: sockets, the database, recordings.
    func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0
    }

    /// The server's Prometheus text (`/metrics`).
    func metrics() async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(httpPort)/metrics"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 8 << 20)
        return String(buffer: body)
    }

    var isRunning: Bool { process.isRunning }

    /// Stops the server with SIGTERM (it ends its calls and closes the database) and keeps its folder.
    func terminate() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
