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
/// includes the transcriptions sharing the machine, as calls do.
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

    static func run(serverBinary: String, streams: Int, concurrency: Int) async throws -> [Cut] {
        // Room for two batches: a batch's calls are still ending (their last words heard, their
        // results stored) when the next one opens, and a stream over the limit is refused.
        let server = try await ServerProcess.start(binary: serverBinary, environment: ["VOICEBRIDGE_ENGINE_MODE": "local",
                                                                          "VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS": "\(2 * concurrency)"])
        defer { server.stop() }
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var cuts: [Cut] = []
        do {
            for first in stride(from: 0, to: streams, by: concurrency) {
                try await withThrowingTaskGroup(of: Cut.self) { batch in
                    for index in first..<min(first + concurrency, streams) {
                        batch.addTask { try await talkOver(index: index, port: server.httpPort, speech: speech, group: group) }
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

    /// One stream: silence, then the phrase from frame `talkAfterFrames`, then silence, paced at 20 ms.
    static func talkOver(index: Int, port: Int, speech: [UInt8], group: any EventLoopGroup) async throws -> Cut {
        let client = try await MediaStreamLoadClient.connect(index: index, port: port, watchesClear: true, group: group)
        let silence = Data(repeating: 0xFF, count: 160).base64EncodedString()
        let start = ContinuousClock.now
        var talkingFrom: ContinuousClock.Instant?
        for n in 0..<frames {
            let offset = (n - talkAfterFrames) * 160
            let talking = offset >= 0 && offset + 160 <= speech.count
            if talking, talkingFrom == nil { talkingFrom = .now }
            let payload = talking ? Data(speech[offset..<offset + 160]).base64EncodedString() : silence
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
        print("== Barge-in: the caller talks over the greeting, \(streams) Twilio media streams through `voicebridge serve` (local engine), \(concurrency) at a time; from the caller's first frame")
        let cuts = try await BargeInBenchmark.run(serverBinary: try serverBinary(), streams: streams, concurrency: concurrency)
        let clear = EngineBenchmark.percentiles(cuts.compactMap(\.clearMs))
        let stopped = EngineBenchmark.percentiles(cuts.compactMap(\.stoppedMs))
        let missed = cuts.filter { $0.clearMs == nil && $0.agentFrames > 0 }.count
        let unheard = cuts.filter { $0.agentFrames == 0 }.count
        let after = cuts.map(\.mediaAfterClear).max() ?? 0
        print(table(["measured from the caller's first frame", "p50 ms", "p99 ms", "max ms", "goal"], [
            ["the server's clear", format(clear.p50, digits: 0), format(clear.p99, digits: 0), format(cuts.compactMap(\.clearMs).max() ?? 0, digits: 0), "p99 ≤ 1500"],
            ["the agent's last audio before it", format(stopped.p50, digits: 0), format(stopped.p99, digits: 0), format(cuts.compactMap(\.stoppedMs).max() ?? 0, digits: 0), "p99 ≤ 1500"],
        ]))
        print("streams the agent spoke on with no clear: \(missed) of \(cuts.count) (goal 0); with no greeting at all: \(unheard) (goal 0); audio sent after a clear: at most \(after) frames")
        let json: [String: Any] = [
            "streams": cuts.count, "concurrency": concurrency, "no_clear": missed, "no_greeting": unheard, "max_media_after_clear": after,
            "clear_ms": ["p50": clear.p50, "p99": clear.p99], "stopped_ms": ["p50": stopped.p50, "p99": stopped.p99],
            "goal": "every stream cleared; clear and the agent's last audio p99 ≤ 1500 ms after the caller's first frame",
            "cuts": cuts.map { ["clear_ms": $0.clearMs ?? -1, "stopped_ms": $0.stoppedMs ?? -1, "media_after_clear": $0.mediaAfterClear, "agent_frames": $0.agentFrames] },
        ]
        try write(json, to: output, as: "barge-in.json")
    }
}
