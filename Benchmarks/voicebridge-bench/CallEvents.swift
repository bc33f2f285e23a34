import Calls
import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// The server's event stream (`/api/events`), one connection for a whole step: a slot waiting for
/// its call to end is woken by the call's own events and asks after the call only then. Asking
/// every 250 ms, as the other suites do, had the server reading each call's row, timeline,
/// attempts and webhooks some 80 times a second at 20 calls — about a sixth of its CPU, which
/// the capacity suite then counted as the agents' ("the rest").
final class CallEvents: Sendable {
    private struct State {
        /// Events seen per call, but for transcript lines and progress (they end no call).
        var counts: [String: Int] = [:]
        var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())
    /// How long a slot waits for an event before asking anyway (a call whose event came before
    /// the stream was read, say).
    static let quiet: Duration = .seconds(20)

    /// Runs `body` with the stream of the server at `port` read beside it, from when it is connected.
    static func watching<T: Sendable>(port: Int, _ body: @Sendable @escaping (CallEvents) async throws -> T) async throws -> T {
        let events = CallEvents(), (connected, connecting) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                defer { connecting.finish() }
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/events", logger: Logger(label: "bench.events")) { inbound, _, _ in
                    connecting.yield()
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        events.heard(text)
                    }
                }
                return nil
            }
            for await _ in connected { break }
            group.addTask { try await body(events) }
            guard let result = try await group.next() ?? nil else { throw BenchError("the server's event stream (/api/events) ended before the step did") }
            group.cancelAll()
            return result
        }
    }

    private func heard(_ text: String) {
        guard let event = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let id = event["outbound_id"] as? String, let type = event["type"] as? String,
              type != "transcript", type != "outbound_progress" else { return }
        let waiters = state.withLock { s in
            s.counts[id, default: 0] += 1
            return s.waiters.removeValue(forKey: id) ?? [:]
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Events seen for `id` so far.
    func count(of id: String) -> Int { state.withLock { $0.counts[id, default: 0] } }

    /// Returns when `id` has had more than `seen` events, or after `quiet`.
    func next(of id: String, past seen: Int) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.event(of: id, past: seen) }
            group.addTask { try? await Task.sleep(for: Self.quiet) }
            await group.next()
            group.cancelAll()
        }
    }

    private func event(of id: String, past seen: Int) async {
        let token = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if Task.isCancelled || s.counts[id, default: 0] > seen { return true }
                    s.waiters[id, default: [:]][token] = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters[id]?.removeValue(forKey: token) }?.resume()
        }
    }

    /// The call at `url` (id `id`) once it has ended, or as it is after `limit`.
    func endedCall(_ url: String, id: String, within limit: Duration) async throws -> [String: Any] {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while true {
            let seen = count(of: id)
            let call = try await PersonaBenchmark.json(get: url)
            if CallState(rawValue: call["state"] as? String ?? "")?.isTerminal == true || ContinuousClock.now >= deadline { return call }
            await next(of: id, past: seen)
        }
    }
}
