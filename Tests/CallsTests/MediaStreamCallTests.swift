import Bridge
import Foundation
import Logging
import Pipeline
import Realtime
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// Inbound media streams as whole calls in virtual time: the provider's messages go into the
/// server's own `MediaStreamSocketLeg` (what the WebSocket route hands them to), its messages come
/// out stamped on the call's clock, and the call is answered by `CallManager.answer(stream:start:)`
/// as the route answers it. So "the clear came 80 ms after the caller started talking" is the
/// behaviour's figure, the same on every run and under any load. The WebSocket underneath is
/// `DialectStreamTests`' and `TwilioStreamTests`' (the whole server, in real time).
@Suite(.serialized, .tags(.virtualTime)) struct MediaStreamCallTests {
    /// What the provider heard, and when on the call's clock (from the stream's start).
    final class Heard: Sendable {
        let messages = Mutex<[(at: Duration, heard: MediaStreamProvider.Heard)]>([])
        /// The audio of every `media` message, in order.
        let audio = Mutex<[UInt8]>([])
        /// Marks not yet answered with the provider's "played".
        let marks = Mutex<[String]>([])

        var all: [(at: Duration, heard: MediaStreamProvider.Heard)] { messages.withLock { $0 } }
        var firstClear: Duration? { all.first { $0.heard == .clear }?.at }

        /// When each `media` message came, those before `before` if given.
        func media(before: Duration? = nil) -> [Duration] {
            all.compactMap { message -> Duration? in
                guard case .media = message.heard else { return nil }
                if let before, message.at >= before { return nil }
                return message.at
            }
        }
    }

    struct StreamCall: Sendable {
        var heard: Heard
        var call: CallRecord
        var report: CallReport?
        var speedUp: Double
    }

    /// One stream from `provider`: its start, then `frameCount` 20 ms frames (`frame(n)`, μ-law),
    /// sent as the provider paces them on the virtual clock, each mark answered with "played"
    /// before the next message; then its stop. Returns once the call is stored as ended.
    /// `mode`: the engine the server makes for it, with the caller's VAD it picks for it
    /// (`engine.vad: auto`); the local engine is the harness's, on the tests' models.
    static func stream(_ provider: MediaStreamProvider, frameCount: Int, mode: VoiceBridgeConfig.EngineMode = .local,
                       frame: @escaping @Sendable (Int) -> [UInt8]) async throws -> StreamCall {
        var config = VoiceBridgeConfig()
        config.engine.mode = mode
        let vad = try CallSystem.neuralVAD(for: config.engine, logger: Logger(label: "vad"))
        let engines = mode == .local ? nil : try CallSystem.engines(for: config.engine, egress: config.egressPolicy)
        let scheduler = PacerScheduler<[UInt8]>()
        let heard = Heard()
        let run = try await VirtualCallHarness.run(tweak: { $0.neuralVAD = vad }, engines: engines, scheduler: scheduler) { manager, store, clock in
            let origin = clock.now
            let socket = MediaStreamSocketLeg.Socket(send: { messages in
                let at = origin.duration(to: clock.now)
                for message in messages {
                    let what = provider.read(message.asProviderMessage)
                    heard.messages.withLock { $0.append((at, what)) }
                    if case .media(let payload) = what { heard.audio.withLock { $0 += payload } }
                    if case .mark(let name) = what { heard.marks.withLock { $0.append(name) } }
                }
            }, close: {})
            let leg = MediaStreamSocketLeg(dialect: provider.dialect, scheduler: scheduler, logger: Logger(label: "stream"), socket: socket)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard let start = await leg.waitForStart() else { return }
                    await manager.answer(stream: leg, start: start)
                }
                #expect(leg.receive(provider.start) == .accepted)
                let perMessage = provider.framesPerMessage
                for n in stride(from: 0, to: frameCount, by: perMessage) {
                    for name in heard.marks.withLock({ marks in defer { marks = [] }; return marks }) {
                        if let played = provider.played(name) { _ = leg.receive(played) }
                    }
                    _ = leg.receive(provider.media(n, (n..<(n + perMessage)).flatMap(frame)))
                    try await clock.sleep(until: origin.advanced(by: .milliseconds(20 * (n + perMessage))))
                }
                if let stop = provider.stop { #expect(leg.receive(stop) == .stopped) }
                leg.finish()   // the socket closes (Vonage's only end)
                try await group.waitForAll()
            }
            let id = try #require(try await store.calls(inStates: CallState.allCases).first).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(30)) { $0.state.isTerminal }
            #expect(try await store.recordingPath(callID: id) != nil, "\(provider.dialect): the call's recording is kept")
            return (call, try await store.report(callID: id))
        }
        #expect(run.strayWakeups == 0, "work that escaped the virtual time")
        return StreamCall(heard: heard, call: run.value.0, report: run.value.1, speedUp: run.speedUp)
    }

    /// Tone 3 s, silence 1.5 s (the echo engine plays the tone back), tone 2 s over the echo: the
    /// dialect's clear, and the rest of the echo not sent.
    @Test(arguments: MediaStreamDialect.providers)
    func talkingOverTheEchoGetsTheDialectsClear(dialect: MediaStreamDialect) async throws {
        let provider = MediaStreamProvider(dialect: dialect)
        let result = try await Self.stream(provider, frameCount: 325, mode: .echo) { n in
            MediaStreamProvider.toneFrame(n, on: n < 150 || n >= 225)
        }
        let talkingFrom = Duration.milliseconds(225 * 20)
        let clear = try #require(result.heard.firstClear, "\(dialect): the server sent the dialect's clear")
        let before = result.heard.media(before: clear).count, after = result.heard.media().count - before
        print("MediaStreamCallTests: \(dialect) clear \(clear - talkingFrom) after the caller started talking; \(before) frames before it, \(after) after; \(String(format: "%.0f", result.speedUp))× real time")
        // Barge-in stops the agent after 200 ms of the caller's speech over it (its minimum: shorter
        // is a cough); the clear goes out with that frame. (300 ms in real time, with room for load.)
        #expect(clear - talkingFrom <= .milliseconds(220), "\(dialect): clear came \(clear - talkingFrom) after the caller started talking")
        #expect(before > 20, "\(dialect): the echo played before the clear")
        #expect(after == 0, "\(dialect): the rest of the echo was dropped (\(after) frames after the clear)")
        let sizes = Set(result.heard.all.compactMap { if case .media(let payload) = $0.heard { payload.count } else { nil } })
        #expect(sizes == [provider.frameBytes], "\(dialect): 20 ms frames in the dialect's encoding")
        if dialect.encodeCommand(.mark("m"), streamSid: "s") != nil {
            #expect(result.heard.all.contains { if case .mark = $0.heard { true } else { false } }, "\(dialect): marks in the dialect's words")
        }
        #expect(result.call.direction == .inbound && result.call.state == .completed, "\(dialect): \(result.call.state)")
        if provider.carriesNumbers { #expect(result.call.callerNumber == "+15550001111" && result.call.calleeNumber == "+15550002222") }
    }

    /// The caller talks over the local agent's greeting, 2 s into it: the agent judges speech over
    /// it by its words, so once the caller's first phrase is transcribed (an interruption) the
    /// server sends `clear` and the greeting's audio stops; the report keeps how much was heard —
    /// from Twilio's mark echoes, and from the leg's own count on Vonage, which is sent no marks.
    @Test(arguments: [MediaStreamDialect.twilio, .vonage])
    func talkingOverTheAgentsGreetingClearsIt(dialect: MediaStreamDialect) async throws {
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        let result = try await Self.stream(MediaStreamProvider(dialect: dialect), frameCount: 250) { n in
            let offset = (n - 100) * 160
            return offset >= 0 && offset + 160 <= speech.count ? Array(speech[offset..<offset + 160]) : [UInt8](repeating: 0xFF, count: 160)
        }
        let talkingFrom = Duration.seconds(2)
        let clear = try #require(result.heard.firstClear, "the server sent clear")
        let media = result.heard.media(), beforeClear = result.heard.media(before: clear)
        let lastMedia = try #require(beforeClear.last)
        let after = media.count - beforeClear.count
        // Paced: in the greeting's first second, its 50 frames and the 100 ms (5 frames) Twilio is
        // sent ahead of playout, no more.
        let firstSecond = media.filter { $0 < media[0] + .seconds(1) }.count
        let cut = try #require(result.report?.interruptions.first)
        print("MediaStreamCallTests: \(dialect) greeting cleared \(clear - talkingFrom) after the caller started talking, its audio stopped \(lastMedia - talkingFrom) after; heard \(cut.heardMs) of \(cut.generatedMs) ms; \(firstSecond) frames in its first second; \(String(format: "%.0f", result.speedUp))× real time")
        #expect(firstSecond <= 50 + MediaStreamSocketLeg.maximumBufferedFrames, "\(firstSecond) frames in the greeting's first second")
        #expect(clear - talkingFrom < .milliseconds(1500), "clear came \(clear - talkingFrom) after the caller started talking")
        #expect(lastMedia < clear, "the agent's audio stopped at the clear")
        #expect(after < 10, "the rest of the greeting was not sent (\(after) frames after the clear)")
        #expect(result.report?.interruptions.count == 1 && cut.turn == nil, "\(String(describing: result.report?.interruptions))")
        // Heard: the greeting up to the clear, as the marks echoed showed it played — at least
        // the 2 s before the caller spoke (less the greeting's start), at most what was sent.
        #expect(cut.heardMs >= 1800 && .milliseconds(cut.heardMs) <= clear && cut.heardMs < cut.generatedMs, "heard \(cut.heardMs) of \(cut.generatedMs) ms, the clear at \(clear)")
    }

    /// `engine.mode: loopback`: every frame comes back through the whole pipeline while the caller
    /// talks (barge-in off), in-band key presses are heard, and the call's report counts every
    /// frame through every stage, none dropped. (The live report and `/metrics` over HTTP:
    /// `LoopbackStreamTests`.)
    @Test func theLoopbackPlaysEveryFrameBackThroughThePipeline() async throws {
        let silence = [UInt8](repeating: 0xFF, count: 160)
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        // Key 1, a pause, key 2, a pause, then speech without pauses: the agent "talks" (plays the
        // caller back) the whole time the caller does, and nothing may cut it off.
        let keys = MediaStreamProvider.dtmf(697, 1209, frames: 5) + Array(repeating: silence, count: 5)
            + MediaStreamProvider.dtmf(697, 1336, frames: 5) + Array(repeating: silence, count: 5)
        let script = keys + (0..<(speech.count / 160)).map { Array(speech[$0 * 160..<($0 + 1) * 160]) }
        // Then 400 ms of silence, for the last frames to play out.
        let result = try await Self.stream(MediaStreamProvider(dialect: .twilio), frameCount: script.count + 20, mode: .loopback) { n in
            n < script.count ? script[n] : silence
        }
        let sent = script.count + 20
        let back = result.heard.audio.withLock { $0 }
        let returned = back.count / 160
        print("MediaStreamCallTests: loopback \(returned) of \(sent) frames back; \(String(format: "%.0f", result.speedUp))× real time")
        #expect(returned >= sent - 3 && returned <= sent, "every frame came back: \(returned) of \(sent)")
        #expect(result.heard.firstClear == nil, "barge-in is off: talking over the playback does not clear it")
        let spoken = speech.map(G711.decodeMuLaw)
        let heard = back.map(G711.decodeMuLaw)
        let match = bestCorrelation(spoken, Array(heard.suffix(spoken.count + 800 + 20 * 160)), maxLag: 1600 + 20 * 160)
        #expect(match.value > 0.8, "what came back is the caller's speech, resampled there and back (minimum-phase filters) (correlation \(match.value) at lag \(match.lag))")

        let report = try #require(result.report)
        let caller = Dictionary(uniqueKeysWithValues: report.stages.filter { $0.side == "caller" }.map { ($0.stage, $0) })
        #expect(Array(caller.keys).sorted() == ["barge-in", "decode", "record", "resample", "tones", "vad"])
        for stage in caller.values {
            #expect(stage.framesIn == sent && stage.framesOut == sent && stage.drops == 0, "\(stage)")
        }
        let marks = try #require(report.stages.first { $0.side == "agent" && $0.stage == "marks" })
        #expect(marks.framesIn >= sent - 3, "every frame went out through the agent side: \(marks)")
        let queued = try #require(report.stages.first { $0.stage == "engine-queue" })
        #expect(queued.framesIn < sent / 10, "most frames went back where they arrived, not through the engine task: \(queued.framesIn) of \(sent) queued")
        #expect(report.stages.allSatisfy { $0.drops == 0 }, "nothing dropped: \(report.stages.filter { $0.drops > 0 })")
        #expect(report.tones == ["dtmf 1", "dtmf 2"], "the in-band keys were heard: \(report.tones)")
    }
}
