import Foundation
import NIOCore
import Pipeline
import Synchronization
@testable import Bridge

/// The far end of a user agent's SIP wire, in memory: what the agent sends is kept with the virtual
/// instant it sent it at; what the far end says goes to the agent's receive handler.
final class MemorySIPWire: SIPTransport, Sendable {
    struct Sent: Sendable {
        let at: Duration
        let message: SIPMessage
    }

    let localPort = 5060
    private let executor: VirtualTimeExecutor
    private let state = Mutex<(sent: [Sent], receive: UDPSocket.Handler?, waiters: [(UUID, @Sendable ([Sent]) -> Bool, CheckedContinuation<Void, Never>)])>(([], nil, []))

    init(executor: VirtualTimeExecutor) {
        self.executor = executor
    }

    var sent: [Sent] { state.withLock { $0.sent } }

    /// The transport the agent starts on (`SIPUserAgent.start(transport:)`).
    func attach(_ receive: @escaping UDPSocket.Handler) async throws -> any SIPTransport {
        state.withLock { $0.receive = receive }
        return self
    }

    func deliver(_ bytes: [UInt8], from address: SocketAddress) {
        state.withLock { $0.receive }?(bytes, address)
    }

    func send(_ bytes: [UInt8], to address: SocketAddress) {
        guard let message = try? SIPParser.parse(bytes) else { return }
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.sent.append(Sent(at: executor.elapsed, message: message))
            let sent = s.sent
            let ready = s.waiters.filter { $0.1(sent) }.map(\.2)
            s.waiters.removeAll { $0.1(sent) }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once what was sent satisfies `condition`, or when cancelled.
    func wait(until condition: @escaping @Sendable ([Sent]) -> Bool) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let met = state.withLock { s -> Bool in
                    if condition(s.sent) || Task.isCancelled { return true }
                    s.waiters.append((id, condition, continuation))
                    return false
                }
                if met { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard let index = s.waiters.firstIndex(where: { $0.0 == id }) else { return nil }
                return s.waiters.remove(at: index).2
            }
            waiter?.resume()
        }
    }

    func close() async {}
}
