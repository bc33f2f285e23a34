import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// N concurrent Twilio-protocol media streams against a real `voicebridge serve` process in echo
/// mode. This process is only the load: it sends 20 ms μ-law `media` messages in real time (a
/// 300 Hz tone, 1 s on and 1 s off, so VAD and barge-in do their work), counts the media that
/// comes back and echoes marks. The server's CPU and memory are read from /proc; late frames
/// come from the server's own media tick (`/healthz`), as the client's clock shares the machine.
enum MediaStreamBenchmark {
    struct Result {
        var streams: Int
        var connected: Int
        var cpuPercentPerStream: Double
        var lateFrames: Int
        var maxLatenessMilliseconds: Double
        var rssKBPerStream: Double
        var mediaReceived: Int
        var mediaSent: Int
        /// Client send rounds that ran more than 10 ms late (the load itself falling behind).
        var clientLateRounds: Int
    }

    /// What one stream saw.
    final class StreamLog: Sendable {
        let received = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
    }

    /// What the client tasks share: the connected streams' writers and the run flag.
    final class LoadState: Sendable {
        let writers = Mutex<[Int: WebSocketOutboundWriter]>([:])
        let running = Atomic<Bool>(true)
        let lateRounds = Atomic<Int>(0)
    }

    static func run(streams n: Int, seconds: Double, serverBinary: String) async throws -> Result {
        let server = try ServerProcess(binary: serverBinary, environment: ["VOICEBRIDGE_ENGINE_MODE": "echo"])
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let baselineRSS = server.residentKilobytes()

        let frames = toneFrames()
        let logs = (0..<n).map { _ in StreamLog() }
        let load = LoadState()
        let group = MultiThreadedEventLoopGroup.singleton
        var result = Result(streams: n, connected: 0, cpuPercentPerStream: 0, lateFrames: 0, maxLatenessMilliseconds: 0,
                            rssKBPerStream: 0, mediaReceived: 0, mediaSent: 0, clientLateRounds: 0)

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for index in 0..<n {
                tasks.addTask {
                    let sid = String(format: "MZ%032x", index)
                    try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.httpPort)/twilio/stream", eventLoopGroup: group,
                                                      logger: Logger(label: "bench-client")) { inbound, outbound, _ in
                        try await outbound.write(.text(#"{"event":"connected","protocol":"Call","version":"1.0.0"}"#))
                        try await outbound.write(.text(#"{"event":"start","sequenceNumber":"1","start":{"accountSid":"ACbench","streamSid":"\#(sid)","callSid":"CAbench\#(index)","tracks":["inbound"],"customParameters":{"from":"+15550000000","to":"+15550000001"},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"\#(sid)"}"#))
                        load.writers.withLock { $0[index] = outbound }
                        for try await message in inbound.messages(maxSize: 1 << 16) {
                            guard case .text(let text) = message else { continue }
                            if text.contains(#""event":"media""#) {
                                logs[index].received.add(1, ordering: .relaxed)
                            } else if text.contains(#""event":"mark""#), let name = markName(text) {
                                try await outbound.write(.text(#"{"event":"mark","streamSid":"\#(sid)","mark":{"name":"\#(name)"}}"#))
                            }
                            if !load.running.load(ordering: .relaxed) { break }
                        }
                    }
                }
            }
            // Wait for every stream to be up (or give up after a while and measure what connected).
            let connectDeadline = ContinuousClock.now.advanced(by: .seconds(30))
            while load.writers.withLock({ $0.count }) < n, ContinuousClock.now < connectDeadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let connected = load.writers.withLock { $0 }
            result.connected = connected.count

            // Streams spread over the 20 ms period in 20 phase groups, as real calls start at random times.
            let phases = 20
            let sender = Task {
                try await withThrowingTaskGroup(of: Void.self) { senders in
                    for phase in 0..<phases {
                        let members = connected.filter { $0.key % phases == phase }.sorted { $0.key < $1.key }
                        senders.addTask {
                            let start = ContinuousClock.now.advanced(by: .milliseconds(phase))
                            var tick = 0
                            while load.running.load(ordering: .relaxed) {
                                let due = start.advanced(by: .milliseconds(20 * tick))
                                try await Task.sleep(until: due, clock: .continuous)
                                if due.duration(to: .now) > .milliseconds(10) { load.lateRounds.add(1, ordering: .relaxed) }
                                let payload = frames[tick % frames.count]
                                for (index, writer) in members {
                                    let sid = String(format: "MZ%032x", index)
                                    try? await writer.write(.text(#"{"event":"media","sequenceNumber":"\#(tick + 2)","media":{"track":"inbound","chunk":"\#(tick + 1)","timestamp":"\#(tick * 20)","payload":"\#(payload)"},"streamSid":"\#(sid)"}"#))
                                    logs[index].sent.add(1, ordering: .relaxed)
                                }
                                tick += 1
                            }
                        }
                    }
                    try await senders.waitForAll()
                }
            }

            // Warm up, then measure the server over the window.
            try await Task.sleep(for: .seconds(2))
            let tickBefore = try await server.mediaTick()
            let cpuBefore = server.cpuSeconds()
            let receivedBefore = logs.reduce(0) { $0 + $1.received.load(ordering: .relaxed) }
            let sentBefore = logs.reduce(0) { $0 + $1.sent.load(ordering: .relaxed) }
            let wallStart = ContinuousClock.now
            try await Task.sleep(for: .seconds(seconds))
            let cpu = server.cpuSeconds() - cpuBefore
            let wall = wallStart.duration(to: .now).totalSeconds
            let tickAfter = try await server.mediaTick()
            let rss = server.residentKilobytes()
            result.mediaReceived = logs.reduce(0) { $0 + $1.received.load(ordering: .relaxed) } - receivedBefore
            result.mediaSent = logs.reduce(0) { $0 + $1.sent.load(ordering: .relaxed) } - sentBefore
            let live = max(1, result.connected)
            result.cpuPercentPerStream = cpu / wall * 100 / Double(live)
            result.lateFrames = tickAfter.lateFrames - tickBefore.lateFrames
            result.maxLatenessMilliseconds = tickAfter.maxLatenessMilliseconds
            result.rssKBPerStream = Double(max(0, rss - baselineRSS)) / Double(live)
            result.clientLateRounds = load.lateRounds.load(ordering: .relaxed)

            load.running.store(false, ordering: .relaxed)
            sender.cancel()
            _ = await sender.result
            for (index, writer) in connected {
                try? await writer.write(.text(#"{"event":"stop","streamSid":"\#(String(format: "MZ%032x", index))"}"#))
            }
            // The server ends each call on `stop` and closes its socket, which ends most client
            // handlers; whatever is still open after a grace period is cancelled.
            try? await Task.sleep(for: .seconds(3))
            tasks.cancelAll()
            while let next = await tasks.nextResult() {
                if case .failure = next { continue }
            }
        }
        return result
    }

    static func markName(_ text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return (object["mark"] as? [String: Any])?["name"] as? String
    }

    /// Base64 μ-law payloads for a 2 s cycle: 1 s of a 300 Hz tone at −12 dBFS, then 1 s of silence.
    static func toneFrames() -> [String] {
        (0..<100).map { frame in
            let bytes = (0..<160).map { i -> UInt8 in
                guard frame < 50 else { return 0xFF }
                let t = Double(frame * 160 + i) / 8000
                return muLaw(Int16(8000 * sin(2 * .pi * 300 * t)))
            }
            return Data(bytes).base64EncodedString()
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
