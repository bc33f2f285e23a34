import Foundation
import Glibc
import Synchronization

/// Runs sipp (Debian `sip-tester`) as a real peer on 127.0.0.1, always bounded: one call (or
/// `calls`), a timeout inside sipp and another around it, no stdin.
/// (`Process` is not Sendable; a Sipp is started and awaited by one test task at a time.)
public struct Sipp: @unchecked Sendable {
    public struct Result: Sendable { public var status: Int32; public var output: String }

    let process = Process()
    let outputFile: URL

    /// Starts `sipp` with `arguments`; `scenario` (XML) is written to a temporary file and passed with -sf.
    public init(scenario: String? = nil, arguments: [String], seconds: Int = 40, calls: Int = 1) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sipp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // -k: sipp whose test process died can ignore timeout's TERM; KILL follows 5 s later.
        var args = ["-k", "5", "\(seconds)", "sipp", "-m", "\(calls)", "-nostdin", "-timeout", "\(seconds - 5)s", "-timeout_error", "-trace_err",
                    "-error_file", dir.appendingPathComponent("errors.log").path]
        if let scenario {
            let file = dir.appendingPathComponent("scenario.xml")
            try scenario.write(to: file, atomically: true, encoding: .utf8)
            args += ["-sf", file.path]
        }
        args += arguments
        outputFile = dir.appendingPathComponent("output.log")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outputFile)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = args
        process.standardOutput = handle
        process.standardError = handle
        process.currentDirectoryURL = dir
        try process.runWithSignalsUnblocked()
    }

    public func wait() async -> Result {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
                let errors = (try? String(contentsOf: outputFile.deletingLastPathComponent().appendingPathComponent("errors.log"), encoding: .utf8)) ?? ""
                continuation.resume(returning: Result(status: process.terminationStatus, output: text + errors))
            }
        }
    }

    /// Ends sipp now (for a peer that may be called fewer than `calls` times).
    /// Ends sipp (TERM, then KILL after 2 s); `wait()` for its result.
    public func stop() async {
        await process.stopGroup()
    }

    /// Returns once sipp listens on `port` of 127.0.0.1 (UDP bound, or TCP in LISTEN); throws, naming
    /// the port, if it does not within `seconds`. A started process says nothing when it is ready, so
    /// the kernel's socket tables are read: a call placed before this may be refused (TCP) or wait
    /// for a retransmission (UDP).
    public func listening(on port: Int, tcp: Bool = false, seconds: Int = 20) async throws {
        let table = tcp ? "/proc/net/tcp" : "/proc/net/udp"
        // local_address is "0100007F:PORT" in hex; st is 0A (LISTEN) for TCP, 07 for a bound UDP socket.
        let wanted = (String(format: "0100007F:%04X", port), tcp ? "0A" : "07")
        @Sendable func bound() -> Bool {
            // Read to the end: the kernel hands a /proc table out a page per read, and a busy host's
            // runs to many pages (String(contentsOfFile:) saw only the first, and missed sipp).
            let fd = open(table, O_RDONLY)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
            while case let n = read(fd, &chunk, chunk.count), n > 0 { bytes += chunk[..<n] }
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst().contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1] == wanted.0 && fields[3] == wanted.1
            }
        }
        try await waitUntil(seconds: seconds) { bound() || !process.isRunning }
        guard bound() else {
            throw SippNotListening(description: "sipp is not listening on 127.0.0.1:\(port) (\(tcp ? "TCP" : "UDP")) after \(seconds) s"
                                   + (process.isRunning ? "" : "; it exited with status \(process.terminationStatus)"))
        }
    }

    public struct SippNotListening: Error, CustomStringConvertible { public var description: String }

    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sipp") }

    /// A callee who is busy: 486 to any INVITE.
    public static let busyCallee = scenarioHeader("busy callee") + """
        <recv request="INVITE"/>
        <send><![CDATA[
        SIP/2.0 486 Busy Here
        [last_Via:]
        [last_From:]
        [last_To:];tag=[pid]busy[call_number]
        [last_Call-ID:]
        [last_CSeq:]
        Content-Length: 0

        ]]></send>
        <recv request="ACK"/>
        </scenario>
        """

    /// The opening of a scenario file (`-sf`); the scenario closes it with `</scenario>`.
    public static func scenarioHeader(_ name: String) -> String {
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n<scenario name=\"\(name)\">\n"
    }
}

/// A UDP port nobody is using right now on 127.0.0.1.
public func freeUDPPort() -> Int {
    freeLoopbackPort(type: Int32(SOCK_DGRAM.rawValue)) ?? 0
}

/// A SIP port for sipp's `-p`, free for UDP and TCP right now: 10000–11999, below the kernel's ephemeral range, where
/// nothing else binds. An ephemeral port found free could be bound by another process before sipp binds it — the test
/// processes' RTP pools (TestPorts.rtp, 33000–50999) and every user agent on port 0 take ports there — and a sipp
/// that cannot bind exits: CI (5 Dec) saw a transfer's person never answer, its INVITEs unheard.
public func freeSippPort() -> Int {
    freeLoopbackPorts(count: 1, types: [Int32(SOCK_DGRAM.rawValue), Int32(SOCK_STREAM.rawValue)], bases: 10_000...11_999)
}

/// A base port for sipp's `-mp`: sipp binds four UDP ports from it (audio RTP and RTCP, video RTP and RTCP), so one free
/// ephemeral port is not enough — the kernel may hand base + 2 to somebody else (CI saw "Unable to bind video RTP socket").
/// An even base below the kernel's ephemeral range (32768 and up) where all four bind right now: 16000–21999, clear of
/// the e2e suites' sipp media (22000–29999, `free_media_port`), which run beside the unit tests — two check-then-bind
/// pickers in one range can hand out the same port. The soak, an e2e suite's load, passes `.e2eSuites`.
public func freeSippMediaPort(_ range: SippMediaRange = .unitTests) -> Int {
    freeLoopbackPorts(count: 4, types: [Int32(SOCK_DGRAM.rawValue)], bases: range.bases)
}

/// Where a picker of sipp media ports looks: each side of `make test` has its own block, so that two check-then-bind
/// pickers in different processes never hand out the same port.
public enum SippMediaRange: Sendable {
    /// 16000–21999: the unit tests' sipp.
    case unitTests
    /// 22000–29999: the e2e suites' sipp (`free_media_port` in Tests/e2e/lib.sh picks from it too).
    case e2eSuites

    var bases: some Collection<Int> {
        switch self {
        case .unitTests: (8_000...10_998).lazy.map { $0 * 2 }
        case .e2eSuites: (11_000...14_998).lazy.map { $0 * 2 }
        }
    }
}

/// A SIP port for baresip: it listens on it over UDP and TCP, and for TLS on the next one, so both must be free for
/// both (make test saw an e2e baresip's TLS port taken when only the first had been checked). Between 12000 and 15999,
/// below the kernel's ephemeral range and clear of the e2e suites' SIP ports (30000–32700, picked by `free_port` as
/// this picks), which run beside the unit tests. Even bases, so that two blocks never half overlap (make test, 3 Dec:
/// a baresip found its TCP port taken as it started, beside two other tests starting baresip).
public func freeBaresipPort() -> Int {
    freeLoopbackPorts(count: 2, types: [Int32(SOCK_DGRAM.rawValue), Int32(SOCK_STREAM.rawValue)], bases: (6_000...7_999).lazy.map { $0 * 2 })
}

/// Ports this process has handed out from a block: a check-then-bind picker can give a port that is free now to two
/// tests that start at once (the peer binds it only later), so none is handed out twice.
private let handedOut = Mutex<Set<Int>>([])

/// Claims `ports` for this process: false when one of them was handed out already.
private func claim(_ ports: Set<Int>) -> Bool {
    handedOut.withLock { taken in
        guard taken.isDisjoint(with: ports) else { return false }
        taken.formUnion(ports)
        return true
    }
}

/// A base from `bases` where `count` ports from it bind on 127.0.0.1 for every socket type in `types` right now;
/// an ephemeral UDP port if 200 tries found none.
private func freeLoopbackPorts(count: Int, types: [Int32], bases: some Collection<Int>) -> Int {
    for _ in 0..<200 {
        guard let base = bases.randomElement() else { break }
        let ports = Set(base..<(base + count))
        let sockets = ports.flatMap { port in types.map { boundLoopbackSocket(type: $0, port: port) } }
        defer { sockets.forEach { if let fd = $0.fd { close(fd) } } }
        if sockets.allSatisfy({ $0.port != nil }), claim(ports) { return base }
    }
    return freeUDPPort()
}

/// A TCP port nothing listens on right now on 127.0.0.1.
public func freeTCPPort() throws -> Int {
    guard let port = freeLoopbackPort(type: Int32(SOCK_STREAM.rawValue)) else { throw WebDriver.Failure(description: "no free port") }
    return port
}

/// Runs `body` with a TCP port on 127.0.0.1 that refuses every connection meanwhile: a socket bound to it that never
/// listens, so no other process can take the port while `body` runs. A port found free and let go (`freeUDPPort()`)
/// was taken beside a loaded make test (3 Dec), and a connection meant to be refused hung until Timer B.
public func withRefusingTCPPort<T>(_ body: (Int) async throws -> T) async throws -> T {
    let socket = boundLoopbackSocket(type: Int32(SOCK_STREAM.rawValue), port: 0)
    defer { if let fd = socket.fd { close(fd) } }
    guard let port = socket.port else { throw WebDriver.Failure(description: "no TCP port to bind on 127.0.0.1") }
    return try await body(port)
}

/// Binds port 0 on 127.0.0.1 with a socket of `type`, reads back the port the kernel chose, and releases it.
private func freeLoopbackPort(type: Int32) -> Int? {
    let socket = boundLoopbackSocket(type: type, port: 0)
    if let fd = socket.fd { close(fd) }
    return socket.port
}

/// A socket of `type` bound to `port` on 127.0.0.1 (0: the kernel chooses); `port` is nil when the bind failed.
/// The caller closes `fd`.
private func boundLoopbackSocket(type: Int32, port: Int) -> (fd: Int32?, port: Int?) {
    let fd = socket(AF_INET, type, 0)
    guard fd >= 0 else { return (nil, nil) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    return (fd, bound ? Int(UInt16(bigEndian: address.sin_port)) : nil)
}
