import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOPosix
import ServiceLifecycle

/// A stand-in for the OpenAI Realtime endpoint, written in the tests from the documented wire
/// format (PROTOCOLS.md §3): it checks the upgrade's bearer token and model, then hands each
/// connection to a script that reads the client's JSON events and writes server events.
public struct FakeRealtimeServer {
    /// One client event as the server received it.
    public typealias Received = [String: any Sendable]

    public final class Connection: Sendable {
        public let index: Int
        public let outbound: WebSocketOutboundWriter
        public let messages: Locked<[String]> = Locked([])
        private let arrivals: AsyncStream<String>.Continuation
        let stream: AsyncStream<String>

        init(index: Int, outbound: WebSocketOutboundWriter) {
            self.index = index
            self.outbound = outbound
            (stream, arrivals) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        }

        func received(_ text: String) { messages.withLock { $0.append(text) }; arrivals.yield(text) }
        func finished() { arrivals.finish() }

        public func send(_ object: [String: Any]) async throws {
            let data = try JSONSerialization.data(withJSONObject: object)
            try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
        }

        /// The next client event of `type` (skipping others, e.g. audio appends), as a dictionary.
        public func next(_ type: String, timeout: Duration = .seconds(5)) async throws -> [String: Any] {
            let found = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    for await text in self.stream where text.contains("\"type\":\"\(type)\"") { return text }
                    return nil
                }
                group.addTask { try await Task.sleep(for: timeout); return nil }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let found, let object = try JSONSerialization.jsonObject(with: Data(found.utf8)) as? [String: Any] else {
                throw FakeServerError("no \(type) within \(timeout)")
            }
            return object
        }

        public func count(_ type: String) -> Int { messages.value.filter { $0.contains("\"type\":\"\(type)\"") }.count }

        /// Returns once `count` client events of `type` have arrived: at the one that makes them.
        public func wait(for count: Int, _ type: String, timeout: Duration = .seconds(10)) async throws {
            let marker = "\"type\":\"\(type)\""
            try await messages.wait(for: "\(count) × \(type)", timeout: timeout) { $0.count { $0.contains(marker) } >= count }
        }
    }

    public struct FakeServerError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public let key: String
    public let model: String
    public let upgrades = Locked<[String]>([])

    public init(key: String, model: String) {
        self.key = key
        self.model = model
    }

    /// Runs the server for `body(port)`; `script` plays each connection (0, 1, …).
    public func run(script: @escaping @Sendable (Connection) async throws -> Void, _ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let counter = Locked(0)
        let key = key, model = model, upgrades = upgrades
        router.ws("v1/realtime") { request, _ in
            let auth = request.headers[.authorization] ?? ""
            upgrades.withLock { $0.append("\(auth)|\(request.uri.queryParameters.get("model") ?? "")") }
            guard auth == "Bearer \(key)", request.uri.queryParameters.get("model") == model else { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            let index = counter.withLock { n -> Int in defer { n += 1 }; return n }
            let connection = Connection(index: index, outbound: outbound)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { connection.finished() }
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        if case .text(let text) = message { connection.received(text) }
                    }
                }
                try await script(connection)
                group.cancelAll()
            }
        }
        try await withLoopbackServer(router: Router(), webSocketRouter: router, body)
    }
}

/// Serves `router` and `webSocketRouter` on a free loopback port for the length of `body(port)`.
public func withLoopbackServer(router: Router<BasicRequestContext>, webSocketRouter: Router<BasicWebSocketRequestContext>,
                        _ body: @Sendable (Int) async throws -> Void) async throws {
    let (ports, portInput) = AsyncStream.makeStream(of: Int.self)
    // Its own event loop, so that a server which will not stop can be made to (below).
    let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: webSocketRouter),
                          configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { portInput.yield($0.localAddress?.port ?? 0) }, eventLoopGroupProvider: .shared(loops),
                          logger: Logger(label: "fake-server"))
    let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "fake-server")))
    do {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await services.run(); return true }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { return }
            defer { group.cancelAll() }
            var failure: (any Error)?
            do { try await body(port) } catch { failure = error }
            // Shut down, bounded. A graceful shutdown waits for every handler, and a test that
            // failed may leave one at work (a reply it delayed past its end): cancelling ends it.
            // About one run in 25 under load the server, shut down (or cancelled) right after a
            // test's last request, never returned — it waited on a child channel (logging "Waiting
            // on child channel" / "Already closed"): closing its event loop closes every channel,
            // but only after the cancel, as a handler still at work on a closed loop never ends.
            await services.triggerGracefulShutdown()
            group.addTask { try? await Task.sleep(for: .seconds(3)); return false }
            if try await group.next() == false {
                group.cancelAll()
                let backstop = Task { try await Task.sleep(for: .seconds(3)); try await loops.shutdownGracefully() }
                _ = try? await group.next()
                backstop.cancel()
                _ = await backstop.result   // a shutdown it began ends before the one below
            }
            if let failure { throw failure }
        }
    } catch {
        try? await loops.shutdownGracefully()
        throw error
    }
    try? await loops.shutdownGracefully()
}
