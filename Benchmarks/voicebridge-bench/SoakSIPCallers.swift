import Foundation
import NIOCore
import NIOPosix
import TestSupport

/// sipp as `concurrent` SIP callers with RTP: each call offers PCMA, plays G.711 audio (the pcap
/// Debian's sipp ships) for `callSeconds`, then hangs up with BYE; sipp starts a new call as each
/// one ends, so the number of live calls stays at `concurrent` with calls ending and starting all
/// the time. `finish()` asks sipp, over its control socket, to start no new calls and to exit once
/// the live ones have ended.
final class SoakSIPCallers: Sendable {
    struct Outcome: Sendable {
        var successful = 0
        var failed = 0
        var exitStatus: Int32 = -1
    }

    private let process: Process
    private let controlPort: Int
    private let statistics: String
    /// sipp's error log (-error_file) and what it wrote to its standard error.
    let log: String
    let standardError: String

    static let pcap = "/usr/share/sip-tester/g711a.pcap"
    /// The pcap's length: its audio is played again every 7 s.
    static let pcapSeconds = 7.05

    init(target: String, concurrent: Int, callSeconds: Double, niceness: Int32, folder: String) throws {
        guard FileManager.default.fileExists(atPath: Self.pcap) else { throw BenchError("\(Self.pcap) is missing (make deps installs sip-tester)") }
        let scenario = (folder as NSString).appendingPathComponent("soak-uac.xml")
        try Self.scenario(callSeconds: callSeconds).write(toFile: scenario, atomically: true, encoding: .utf8)
        statistics = (folder as NSString).appendingPathComponent("soak-sipp-stats.csv")
        log = (folder as NSString).appendingPathComponent("soak-sipp.log")
        standardError = (folder as NSString).appendingPathComponent("soak-sipp-stderr.log")
        controlPort = freeUDPPort()
        process = Process()
        // sipp is the load, not what is measured: it runs at the load's priority (`Lateness.loadNiceness`).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
        // Up to `concurrent` calls at once (-l), opened at most concurrent/callSeconds·2 a second.
        let rate = max(1, Int((Double(concurrent) / callSeconds * 2).rounded(.up)))
        process.arguments = ["-n", "\(niceness)", "/usr/bin/sipp", target, "-sf", scenario, "-i", "127.0.0.1", "-p", "\(freeUDPPort())", "-mp", "\(Self.mediaPortBase())",
                             "-l", "\(concurrent)", "-r", "\(rate)", "-cp", "\(controlPort)", "-nostdin",
                             "-trace_stat", "-stf", statistics, "-fd", "5", "-trace_err", "-error_file", log]
        process.standardOutput = FileHandle.nullDevice
        // What sipp says when it cannot start (a port it cannot bind) is kept, so that a failed run names it.
        _ = FileManager.default.createFile(atPath: standardError, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: standardError)
        try process.run()
    }

    /// Audio on and off like speech: the pcap, then a pause as long, over and over; then BYE.
    static func scenario(callSeconds: Double) -> String {
        let plays = max(1, Int((callSeconds / pcapSeconds).rounded(.up)))
        let media = String(repeating: """
              <nop><action><exec play_pcap_audio="\(pcap)"/></action></nop>
              <pause milliseconds="\(Int(pcapSeconds * 1000))"/>

            """, count: plays)
        return """
            <?xml version="1.0" encoding="ISO-8859-1" ?>
            <scenario name="voicebridge soak caller">
              <send retrans="500"><![CDATA[
            INVITE sip:soak@[remote_ip]:[remote_port] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: <sip:caller@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
            To: <sip:soak@[remote_ip]:[remote_port]>
            Call-ID: [call_id]
            CSeq: 1 INVITE
            Contact: sip:caller@[local_ip]:[local_port]
            Max-Forwards: 70
            Content-Type: application/sdp
            Content-Length: [len]

            v=0
            o=sipp 1 1 IN IP[local_ip_type] [local_ip]
            s=-
            c=IN IP[media_ip_type] [media_ip]
            t=0 0
            m=audio [media_port] RTP/AVP 8
            a=rtpmap:8 PCMA/8000
            a=ptime:20

            ]]></send>
              <recv response="100" optional="true"/>
              <recv response="180" optional="true"/>
              <recv response="183" optional="true"/>
              <recv response="200" rtd="true"/>
              <send><![CDATA[
            ACK sip:soak@[remote_ip]:[remote_port] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: <sip:caller@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
            To: <sip:soak@[remote_ip]:[remote_port]>[peer_tag_param]
            Call-ID: [call_id]
            CSeq: 1 ACK
            Contact: sip:caller@[local_ip]:[local_port]
            Max-Forwards: 70
            Content-Length: 0

            ]]></send>
            \(media)  <send retrans="500"><![CDATA[
            BYE sip:soak@[remote_ip]:[remote_port] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: <sip:caller@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
            To: <sip:soak@[remote_ip]:[remote_port]>[peer_tag_param]
            Call-ID: [call_id]
            CSeq: 2 BYE
            Contact: sip:caller@[local_ip]:[local_port]
            Max-Forwards: 70
            Content-Length: 0

            ]]></send>
              <recv response="200" crlf="true"/>
            </scenario>
            """
    }

    /// sipp's media port; play_pcap_audio sends from it (one port for every call). sipp binds four ports from it and
    /// exits at once when one is taken: a single free ephemeral port (as here until 5 Dec) can have its neighbour held
    /// by a unit test's RTP beside the soak in `make test`, and a hog run's soak completed no SIP call at all.
    private static func mediaPortBase() -> Int { freeSippMediaPort(.e2eSuites) }

    /// Asks sipp to stop starting calls and exit when the live ones have ended ("q" on its
    /// control socket, as the key would), and waits at most `timeout` for it.
    func finish(timeout: Duration) async throws -> Outcome {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: controlPort)
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: channel.allocator.buffer(string: "q"))).get()
        try? await channel.close()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        var outcome = Outcome(exitStatus: process.terminationStatus)
        // The last line of the statistics file holds the cumulative counts.
        if let text = try? String(contentsOfFile: statistics, encoding: .utf8) {
            let lines = text.split(separator: "\n")
            if let header = lines.first?.split(separator: ";", omittingEmptySubsequences: false), let last = lines.last?.split(separator: ";", omittingEmptySubsequences: false) {
                func value(_ name: String) -> Int { header.firstIndex(of: Substring(name)).flatMap { $0 < last.count ? Int(last[$0]) : nil } ?? 0 }
                outcome.successful = value("SuccessfulCall(C)")
                outcome.failed = value("FailedCall(C)")
            }
        }
        return outcome
    }

    var isRunning: Bool { process.isRunning }
}
