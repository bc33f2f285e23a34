import NIOCore
import Pipeline
import Testing
import TestSupport
@testable import Bridge

/// The media timeout counts the peer's RTCP as well as its RTP (as Asterisk's `rtptimeout` does):
/// a peer that suppresses silence sends no RTP while it listens, and a call to it must not end
/// 30 s into the agent's talk. Reports from any other address do not count. In virtual time: the
/// session's ticks and the reports' arrivals are exact instants, whatever the machine's load.
@Suite struct RTPSessionInactivityTests {
    static let timeout = 10.0

    /// Ticks `session` every 20 ms for `seconds` of virtual time, handing it the reports due on the
    /// way (`reports`: virtual seconds from the start, each from `address`). Returns the virtual
    /// second of its media timeout, or nil when it had none.
    static func timedOut(_ session: RTPSession, clock: CallClock, seconds: Double, reports: [(at: Double, from: SocketAddress)]) async throws -> Double? {
        let start = clock.now
        let report = RTCPPacket.compound(ssrc: 7, sender: nil, reports: [], cname: "peer")
        var due = reports.sorted { $0.at < $1.at }[...]
        for _ in 0..<Int(seconds * 50) {
            try await clock.sleep(for: .milliseconds(20))
            let elapsed = start.duration(to: clock.now).totalSeconds
            while let next = due.first, next.at <= elapsed {
                session.receiveRTCP(report, from: next.from)
                due = due.dropFirst()
            }
            if session.tick() == .mediaTimeout { return elapsed }
        }
        return nil
    }

    /// A session whose peer's SDP says 127.0.0.1:21998 (a port outside every test range: the
    /// session sends it no RTP, having nothing to say), in virtual time.
    static func withSession(_ body: @escaping @Sendable (RTPSession, CallClock) async throws -> Void) async throws {
        let executor = VirtualTimeExecutor()
        let pool = try RTPPortPool(range: TestPorts.rtp)
        try await executor.run {
            let clock = CallClock(virtualTime: executor)
            let session = try await VirtualTimeExecutor.outside { try await RTPSession.open(host: "127.0.0.1", pool: pool, inactivityTimeout: Self.timeout, clock: clock) }
            try session.setRemote(host: "127.0.0.1", port: 21998)
            try await body(session, clock)
            await VirtualTimeExecutor.outside { await session.close() }
        }
    }

    @Test func thePeersReportsKeepASilentCallUpAndItEndsOnceTheyStop() async throws {
        try await Self.withSession { session, clock in
            let peer = try SocketAddress(ipAddress: "127.0.0.1", port: 21999)
            // Reports every 7.5 s — the longest interval RFC 3550 §6.3.1's randomizing gives a 5-s
            // one — for 60 s, then none.
            let reports = stride(from: 5.0, through: 60, by: 7.5).map { (at: $0, from: peer) }
            let ended = try await Self.timedOut(session, clock: clock, seconds: 90, reports: reports)
            let last = try #require(reports.last?.at)
            #expect(ended.map { $0 > last + Self.timeout && $0 <= last + Self.timeout + 0.04 } == true,
                    "up while the reports come; ended one timeout after the last (\(last) s): \(String(describing: ended))")
            #expect(session.counters.rtcpReceived == reports.count && session.counters.packetsReceived == 0)
        }
    }

    @Test func reportsFromAnotherAddressDoNotKeepItUp() async throws {
        try await Self.withSession { session, clock in
            let stranger = try SocketAddress(ipAddress: "127.0.0.2", port: 21999)
            let reports = stride(from: 2.0, through: 30, by: 2).map { (at: $0, from: stranger) }
            let ended = try await Self.timedOut(session, clock: clock, seconds: 30, reports: reports)
            #expect(ended.map { $0 > Self.timeout && $0 <= Self.timeout + 0.04 } == true,
                    "ended one timeout after the start, as if no report had come: \(String(describing: ended))")
        }
    }
}
