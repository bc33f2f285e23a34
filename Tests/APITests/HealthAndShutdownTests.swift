import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import TestSupport
import Testing
import TestLanes
@testable import API
@testable import Calls

@Suite struct HealthAndShutdownTests {
    static func makeServer(engine: VoiceBridgeConfig.EngineMode = .local) throws -> VoiceBridgeServer {
        var config = VoiceBridgeConfig()
        config.http.port = 0
        config.engine.mode = engine
        config.http.webRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("web").path
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vb-api-\(UUID().uuidString)/db.sqlite").path
        return VoiceBridgeServer(config: config, store: try CallStore(path: path), logger: Logger(label: "test"))
    }

    @Test func healthzReportsVersionDatabaseSIPAndEngine() async throws {
        let server = try Self.makeServer(engine: .echo)
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(json?["status"] as? String == "ok")
                #expect(json?["version"] as? String == VoiceBridgeVersion.current)
                #expect(json?["database"] as? String == "ok")
                #expect(json?["sip_listening"] as? Bool == false)
                #expect(json?["engine_mode"] as? String == "echo")
            }
        }
    }

    @Test func healthzTellsWhenTheDatabaseIsGone() async throws {
        let server = try Self.makeServer()
        try await server.store.close()
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains(#""database":"unavailable""#))
            }
        }
    }

    @Test func servesTheDashboardAtTheRoot() async throws {
        let server = try Self.makeServer()
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<title>VoiceBridge</title>"))
            }
            try await client.execute(uri: "/no-such-page", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func gracefulShutdownStopsTheServerAndClosesTheStore() async throws {
        let server = try Self.makeServer()
        let (running, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.application { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var ports = running.makeAsyncIterator()
            let port = try #require(await ports.next())
            #expect(port > 0)
            // The server answers while it runs…
            let (data, _) = try await fetch("http://127.0.0.1:\(port)/healthz")
            #expect(String(decoding: data, as: UTF8.self).contains(#""status":"ok""#))
            #expect(await server.store.isHealthy())
            // …and a graceful shutdown ends every service and closes the store.
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(await server.store.isHealthy() == false)
    }
}

/// A tiny HTTP/1.1 GET over a socket: enough for a liveness probe, no client library needed.
func fetch(_ url: String) async throws -> (Data, Int) {
    try await offThePool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "-o", "-", "-w", "\n%{http_code}", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let code = Int(lines.last ?? "") ?? 0
        return (Data(lines.dropLast().joined(separator: "\n").utf8), code)
    }
}
