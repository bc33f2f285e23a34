import Foundation

/// Python's official MCP SDK serving `mcp_reference_server.py` (a clinic: `free_slots`, and
/// `cancel_booking`, which always fails): an MCP server written by others, in another language.
/// (`Process` is not Sendable; one test task starts and stops it.)
public final class MCPReferenceServer: @unchecked Sendable {
    public static var isInstalled: Bool {
        FileManager.default.fileExists(atPath: Fixtures.repository.appendingPathComponent(".deps/mcp/mcp/__init__.py").path)
    }

    let process = Process()
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)/mcp" }

    /// Started and answering (bounded: 20 s).
    public init() async throws {
        port = try freeTCPPort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.repository.appendingPathComponent("Tests/TestSupport/mcp_reference_server.py").path, String(port)]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Fixtures.repository.appendingPathComponent(".deps/mcp").path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while !Self.answers(port: port) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                stop()
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the reference MCP server did not start"])
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// SIGKILL: uvicorn's graceful shutdown would wait for the MCP sessions clients left open.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
