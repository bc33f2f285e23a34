import Bridge
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The far ends of N RTP calls, run as a separate process (`voicebridge-bench rtp-generator`) so
/// the server's CPU can be measured alone. Each call sends one 20 ms PCMU packet on an absolute
/// schedule (calls spread over the period, as independent streams are) and counts the echoes.
/// (Arrival times seen here mostly measure this process's own scheduling, so loss is what it reports
/// and the server measures its own send intervals.)
enum RTPLoadGenerator {
    final class Call: Sendable {
        let socket: UDPSocket
        let target: SocketAddress
        let state = Mutex(State())
        struct State { var received = 0 }

        init(socket: UDPSocket, target: SocketAddress) { self.socket = socket; self.target = target }

        func arrived() {
            state.withLock { $0.received += 1 }
        }
    }

    static func run(ports: [Int], seconds: Double) async throws {
        // Like the server: all sockets on one event loop, sends made on it (no hop per packet).
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let calls = try await withThrowingTaskGroup(of: Call.self) { group in
            for port in ports {
                group.addTask {
                    let box = Mutex<Call?>(nil)
                    let socket = try await UDPSocket.bind(host: "127.0.0.1", port: 0, group: loop) { bytes, _ in
                        // Count RTP echoes only: RTCP from the server may land on a neighbouring socket.
                        guard (try? RTPPacket(parsing: bytes)) != nil else { return }
                        box.withLock { $0 }?.arrived()
                    }
                    let call = Call(socket: socket, target: try SocketAddress(ipAddress: "127.0.0.1", port: port))
                    box.withLock { $0 = call }
                    return call
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let payload = [UInt8](repeating: 0xFF, count: 160)
        let ticks = Int(seconds * 50)
        let clock = ContinuousClock()
        let start = clock.now
        let slots = (0..<20).map { slot in stride(from: slot, to: calls.count, by: 20).map { calls[$0] } }
        var sent = 0
        for tick in 0..<ticks {
            for (slot, group) in slots.enumerated() where !group.isEmpty {
                try? await clock.sleep(until: start.advanced(by: .milliseconds(20 * tick + slot)), tolerance: nil)
                try? await loop.submit {
                    for (i, call) in group.enumerated() {
                        let packet = RTPPacket(marker: tick == 0, payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: tick),
                                               timestamp: UInt32(tick * 160), ssrc: UInt32(slot * 10_000 + i + 1), payload: payload)
                        call.socket.send(packet.serialized(), to: call.target)
                    }
                }.get()
                sent += group.count
            }
        }
        try? await clock.sleep(for: .milliseconds(500))   // echoes still in the jitter buffer and pacer
        let states = calls.map { $0.state.withLock { $0 } }
        let received = states.reduce(0) { $0 + $1.received }
        for call in calls { await call.socket.close() }
        let json: [String: Any] = ["sent": sent, "received": received]
        print(String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self))
    }
}
