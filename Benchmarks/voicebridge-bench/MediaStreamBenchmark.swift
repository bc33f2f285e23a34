import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// N concurrent Twilio-protocol media streams against a real `voicebridge serve` process in echo
/// or loopback mode. This process is only the load: it sends 20 ms μ-law `media` messages in real time (a
/// 300 Hz tone, 1 s on and 1 s off, so VAD and barge-in do their work), counts the media that
/// comes back and echoes marks. The server's CPU and memory are read from /proc; late frames
/// come from the server's own media tick (`/healthz`), as the client's clock shares the machine.
enum MediaStreamBenchmark {
    struct Result {
        var streams: Int
        var connected: Int
        var cpuPercentPerStream: Double
        var lateFrames: Int
        /// Of those, frames in ticks more than 40 ms late: more than Twilio's 40 ms of buffer hides.
        var audiblyLateFrames: Int
        var maxLatenessMilliseconds: Double
        var rssKBPerStream: Double
        var mediaReceived: Int
        var mediaSent: Int
        /// Client send rounds that ran more than 10 ms late (the load itself falling behind).
        var clientLateRounds: Int
        /// The load generator's own CPU over the window, % of one core: with the server's, how
        /// much of the machine was busy (both share its two cores).
        var loadCPUPercent: Double
    }

    /// `mode`: `echo` (each utterance repeated once it ends) or `loopback` (every frame straight back).
    static func run(streams n: Int, seconds: Double, serverBinary: String, mode: String = "echo", dialect: LoadDialect = .twilio) async throws -> Result {
        // Inbound streams count against sip.max_inbound_calls as INVITEs do, and every stream of
        // this load comes from one address (http.max_connections_per_address): room for every one,
        // as an operator gives a provider whose media servers send many streams from few addresses.
        let server = try await ServerProcess.start(binary: serverBinary, environment: ["VOICEBRIDGE_ENGINE_MODE": mode, "VOICEBRIDGE_SIP_MAX_INBOUND_CALLS": "\(n + 10)",
                                                                           "VOICEBRIDGE_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "\(n + 10)"])
        defer { server.stop() }
        let baselineRSS = server.residentKilobytes()

        // The load runs on one event loop (one core at most), so the server has the other.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let result = try await measure(streams: n, seconds: seconds, server: server, baselineRSS: baselineRSS, dialect: dialect, loop: group.next())
            try? await group.shutdownGracefully()
            return result
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    static func measure(streams n: Int, seconds: Double, server: ServerProcess, baselineRSS: Int, dialect: LoadDialect, loop: any EventLoop) async throws -> Result {
        var result = Result(streams: n, connected: 0, cpuPercentPerStream: 0, lateFrames: 0, audiblyLateFrames: 0, maxLatenessMilliseconds: 0,
                            rssKBPerStream: 0, mediaReceived: 0, mediaSent: 0, clientLateRounds: 0, loadCPUPercent: 0)

        // Connect in batches, as a burst of calls would arrive.
        var clients: [MediaStreamLoadClient] = []
        for batch in stride(from: 0, to: n, by: 50) {
            try await withThrowingTaskGroup(of: MediaStreamLoadClient?.self) { connecting in
                for index in batch..<min(n, batch + 50) {
                    connecting.addTask { try? await MediaStreamLoadClient.connect(index: index, port: server.httpPort, dialect: dialect, group: loop) }
                }
                for try await client in connecting { if let client { clients.append(client) } }
            }
        }
        result.connected = clients.count
        let sender = PhasedSender(clients: clients, loop: loop, frames: dialect.payloads(toneFrames()))
        sender.start()

        // Measure the steady state only: wait until the server has answered every stream (each
        // answer is a few database writes), then warm up, then measure over the window.
        let answerDeadline = ContinuousClock.now.advanced(by: .seconds(60))
        while try await server.mediaTick().pacedLegs < clients.count, ContinuousClock.now < answerDeadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Task.sleep(for: .seconds(2))
        let tickBefore = try await server.mediaTick()
        let cpuBefore = server.cpuSeconds()
        let loadBefore = ServerProcess.cpuSeconds(pid: "self")
        let receivedBefore = clients.reduce(0) { $0 + $1.log.received.load(ordering: .relaxed) }
        let sentBefore = clients.reduce(0) { $0 + $1.log.sent.load(ordering: .relaxed) }
        let wallStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        let cpu = server.cpuSeconds() - cpuBefore
        let load = ServerProcess.cpuSeconds(pid: "self") - loadBefore
        let wall = wallStart.duration(to: .now).totalSeconds
        let tickAfter = try await server.mediaTick()
        let rss = server.residentKilobytes()
        result.mediaReceived = clients.reduce(0) { $0 + $1.log.received.load(ordering: .relaxed) } - receivedBefore
        result.mediaSent = clients.reduce(0) { $0 + $1.log.sent.load(ordering: .relaxed) } - sentBefore
        let live = max(1, result.connected)
        result.cpuPercentPerStream = cpu / wall * 100 / Double(live)
        result.lateFrames = tickAfter.lateFrames - tickBefore.lateFrames
        result.audiblyLateFrames = tickAfter.audiblyLateFrames - tickBefore.audiblyLateFrames
        result.maxLatenessMilliseconds = tickAfter.maxLatenessMilliseconds
        result.rssKBPerStream = Double(max(0, rss - baselineRSS)) / Double(live)
        result.clientLateRounds = sender.lateRounds.load(ordering: .relaxed)
        result.loadCPUPercent = load / wall * 100

        // Stop sending, end every stream with `stop` (the server ends each call), then close.
        let opened = clients
        try await loop.submit {
            sender.stop()
            for client in opened { client.sendStop() }
        }.get()
        try? await Task.sleep(for: .seconds(3))
        for client in clients { try? await client.channel.close() }
        return result
    }

    /// Sends every stream's 20 ms `media` message on an absolute schedule, the streams spread over
    /// the period in 20 phase groups (by index) as real calls start at random times. Runs on the
    /// load's loop. Streams may join and leave while it runs (the soak's streams come and go).
    final class PhasedSender: Sendable {
        let lateRounds = Atomic<Int>(0)
        private let members: Mutex<[[MediaStreamLoadClient]]>
        private let loop: any EventLoop
        private let frames: [String]
        private let running = Atomic<Bool>(true)
        static let phases = 20

        init(clients: [MediaStreamLoadClient] = [], loop: any EventLoop, frames: [String]) {
            members = Mutex((0..<Self.phases).map { phase in clients.filter { $0.index % Self.phases == phase } })
            self.loop = loop
            self.frames = frames
        }

        func add(_ client: MediaStreamLoadClient) { members.withLock { $0[client.index % Self.phases].append(client) } }

        /// A tick that starts after this returns sends `client` nothing more.
        func remove(_ client: MediaStreamLoadClient) { members.withLock { $0[client.index % Self.phases].removeAll { $0 === client } } }

        func start() {
            let start = NIODeadline.now() + .milliseconds(20)
            for phase in 0..<Self.phases { schedule(phase: phase, tick: 0, at: start + .milliseconds(Int64(phase))) }
        }

        func stop() { running.store(false, ordering: .relaxed) }

        private func schedule(phase: Int, tick: Int, at due: NIODeadline) {
            loop.scheduleTask(deadline: due) { [self] in
                guard running.load(ordering: .relaxed) else { return }
                if NIODeadline.now() - due > .milliseconds(10) { lateRounds.add(1, ordering: .relaxed) }
                let payload = frames[tick % frames.count]
                for client in members.withLock({ $0[phase] }) { client.sendMedia(tick: tick, payload: payload) }
                schedule(phase: phase, tick: tick + 1, at: due + .milliseconds(20))
            }
        }
    }

    static func markName(_ text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return (object["mark"] as? [String: Any])?["name"] as? String
    }

    /// μ-law frames for a 2 s cycle: 1 s of a 300 Hz tone at −12 dBFS, then 1 s of silence.
    static func toneFrames() -> [[UInt8]] {
        (0..<100).map { frame in
            (0..<160).map { i -> UInt8 in
                guard frame < 50 else { return 0xFF }
                let t = Double(frame * 160 + i) / 8000
                return muLaw(Int16(8000 * sin(2 * .pi * 300 * t)))
            }
        }
    }

    /// G.711 μ-law (kept here so the load does not share code with what it measures).
    static func muLaw(_ sample: Int16) -> UInt8 {
        let sign: UInt8 = sample < 0 ? 0x80 : 0
        var magnitude = min(Int(sample.magnitude), 32635) + 0x84
        var exponent = 7
        var mask = 0x4000
        while exponent > 0, magnitude & mask == 0 { exponent -= 1; mask >>= 1 }
        magnitude = (magnitude >> (exponent + 3)) & 0x0F
        return ~(sign | UInt8(exponent << 4) | UInt8(magnitude))
    }
}
