import Bridge
import Foundation
import NIOCore
import NIOPosix
import Pipeline
import TestSupport

/// `make bench`'s `barge-in` suite: how soon the agent stops when a caller talks over it, on
/// Twilio media streams to a `voicebridge serve` child with the local engine (the path
/// `TwilioBargeInTests` checks, where only "it stopped, well before the greeting's end" is a
/// verdict). Each stream opens, the greeting plays, and 2 s in the caller says a phrase over it
/// (the fixture `en_greeting.ulaw.wav`, in real time); measured from the caller's first frame sent:
/// the server's `clear`, and its last audio before it. Streams run a few at once, so the figure
/// includes the transcriptions sharing the machine, as calls do. Run again on an echoing line: the
/// caller's phone returns what it played of the agent (−10 dB, 150 ms later, the `line` suite's
/// echo) under its own words, and the server cancels it (`engine.echo_cancellation`) — a real
/// interruption over the echo must still stop the agent.
enum BargeInBenchmark {
    struct Cut {
        var clearMs: Double?
        var stoppedMs: Double?
        var mediaAfterClear: Int
        /// The agent's audio frames the stream got in all.
        var agentFrames: Int
    }

    static let talkAfterFrames = 100   // 2 s into the greeting
    static let frames = 400            // 8 s a stream: the words are known, and the call over, well within it

    /// `echo`: a line that returns what the phone played of the agent (`LineCondition`'s echo, the
    /// `line` suite's model of it), each stream on a line of its own.
    static func run(serverBinary: String, streams: Int, concurrency: Int, echo: LineBed? = nil, environment: [String: String] = [:]) async throws -> [Cut] {
        // Room for two batches: a batch's calls are still ending (their last words heard, their
        // results stored) when the next one opens, and a stream over the limit is refused.
        let server = try await ServerProcess.start(binary: serverBinary, environment: ["VOICEBRIDGE_ENGINE_MODE": "local",
                                                                          "VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS": "\(2 * concurrency)"].merging(environment) { _, given in given })
        defer { server.stop() }
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var cuts: [Cut] = []
        do {
            for first in stride(from: 0, to: streams, by: concurrency) {
                try await withThrowingTaskGroup(of: Cut.self) { batch in
                    for index in first..<min(first + concurrency, streams) {
                        batch.addTask { try await talkOver(index: index, port: server.httpPort, speech: speech, line: echo?.line(seed: UInt64(index)), group: group) }
                    }
                    for try await cut in batch {
                        cuts.append(cut)
                        FileHandle.standardError.write(Data("barge-in: \(cuts.count)/\(streams) clear after \(cut.clearMs.map { "\(Int($0)) ms" } ?? "none")\n".utf8))
                    }
                }
            }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try? await group.shutdownGracefully()
        return cuts
    }

    /// One stream: silence, then the phrase from frame `talkAfterFrames`, then silence, paced at 20 ms;
    /// on a `line`, what the phone played of the agent (silence when nothing) returned under it.
    static func talkOver(index: Int, port: Int, speech: [UInt8], line: ImpairedLine?, group: any EventLoopGroup) async throws -> Cut {
        let client = try await MediaStreamLoadClient.connect(index: index, port: port, watchesClear: true, keepsAudio: line != nil, group: group)
        let silence = [UInt8](repeating: 0xFF, count: 160)
        let start = ContinuousClock.now
        var talkingFrom: ContinuousClock.Instant?
        for n in 0..<frames {
            let offset = (n - talkAfterFrames) * 160
            let talking = offset >= 0 && offset + 160 <= speech.count
            if talking, talkingFrom == nil { talkingFrom = .now }
            var frame = talking ? Array(speech[offset..<offset + 160]) : silence
            if let line {
                line.sent(client.log.nextPlayed() ?? silence)
                frame = line.heard(frame)
            }
            let payload = Data(frame).base64EncodedString()
            try await client.channel.eventLoop.submit { client.sendMedia(tick: n, payload: payload) }.get()
            try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), clock: .continuous)
        }
        try await client.channel.eventLoop.submit { client.sendStop() }.get()
        try? await client.channel.close()
        let watch = client.log.clearWatch.withLock { $0 }
        guard let talkingFrom else { throw BenchError("the barge-in phrase was never sent") }
        return Cut(clearMs: watch.cleared.map { talkingFrom.duration(to: $0).totalMilliseconds },
                   stoppedMs: watch.cleared == nil ? nil : watch.lastMediaBeforeClear.map { talkingFrom.duration(to: $0).totalMilliseconds },
                   mediaAfterClear: watch.mediaAfterClear, agentFrames: client.log.received.load(ordering: .relaxed))
    }
}

extension BenchMain {
    static func bargeIn(output: String) async throws {
        let streams = 20, concurrency = 5
        print("== Barge-in: the caller talks over the greeting, \(streams) Twilio media streams through `voicebridge serve` (local engine), \(concurrency) at a time; from the caller's first frame; then again on a line that returns the agent's voice at −10 dB after 150 ms, with engine.echo_cancellation")
        let clean = try await BargeInBenchmark.run(serverBinary: try serverBinary(), streams: streams, concurrency: concurrency)
        let echoing = try LineBed(condition: LineCondition(echoDB: (echo["echo_db"] as? Int).map(Double.init), echoDelayMilliseconds: echo["echo_delay_ms"] as? Int ?? 0), voices: [])
        let echoed = try await BargeInBenchmark.run(serverBinary: try serverBinary(), streams: streams, concurrency: concurrency, echo: echoing,
                                                    environment: cancelling)
        var rows: [[String]] = []
        var json: [String: Any] = [:]
        for (name, cuts) in [("clean", clean), ("echo, cancelled", echoed)] {
            let clear = EngineBenchmark.percentiles(cuts.compactMap(\.clearMs))
            let stopped = EngineBenchmark.percentiles(cuts.compactMap(\.stoppedMs))
            let missed = cuts.filter { $0.clearMs == nil && $0.agentFrames > 0 }.count
            let unheard = cuts.filter { $0.agentFrames == 0 }.count
            let after = cuts.map(\.mediaAfterClear).max() ?? 0
            rows.append([name, format(clear.p50, digits: 0), format(clear.p99, digits: 0), format(stopped.p50, digits: 0), format(stopped.p99, digits: 0),
                         format(cuts.compactMap(\.stoppedMs).max() ?? 0, digits: 0), "\(missed) of \(cuts.count)", "\(unheard)", "\(after)"])
            let figures: [String: Any] = [
                "streams": cuts.count, "concurrency": concurrency, "no_clear": missed, "no_greeting": unheard, "max_media_after_clear": after,
                "clear_ms": ["p50": clear.p50, "p99": clear.p99], "stopped_ms": ["p50": stopped.p50, "p99": stopped.p99],
                "cuts": cuts.map { ["clear_ms": $0.clearMs ?? -1, "stopped_ms": $0.stoppedMs ?? -1, "media_after_clear": $0.mediaAfterClear, "agent_frames": $0.agentFrames] },
            ]
            if name == "clean" { json.merge(figures) { _, new in new } } else { json["echo"] = figures.merging(echo.merging(["echo_cancellation": true]) { _, new in new }) { _, new in new } }
        }
        print(table(["line", "clear p50 ms", "clear p99 ms", "agent's last audio p50 ms", "p99 ms", "max ms", "spoke on with no clear", "no greeting", "frames after a clear"], rows))
        print("goal: every stream cleared; clear and the agent's last audio p99 ≤ 1500 ms after the caller's first frame; no greeting missing; no audio after a clear")
        json["goal"] = "every stream cleared; clear and the agent's last audio p99 ≤ 1500 ms after the caller's first frame"
        try write(json, to: output, as: "barge-in.json")
    }
}
