import Dialogue
import Foundation
import Realtime

/// One caller turn through the cascade engine against the fake servers, timed: once the greeting's
/// audio is all out, the caller speaks from 1.5 s to 2.5 s; the fake Deepgram fixes the words
/// `settled` after they end and calls the turn over `endpoint` after (its endpointing and the trip
/// back); the model writes its one-line reply after `modelLatency`. What `CascadeEarlyReplyTests`
/// checks and `make bench` measures.
public enum EarlyReplyProbe {
    public struct Outcome: Sendable {
        public var lines: [String]
        public var usage: EngineUsage
        public var log: FakeCascadeServers.Log
        /// The caller's speech end (our VAD) to the reply's first audio.
        public var latency: Duration
    }

    public static let context = ConversationContext(purpose: "tomorrow's 2 pm meeting", questions: ["Can you attend?"], displayName: "ABC Company")

    /// The reply by what the caller has said (the request's body): nothing yet, a yes, a yes with a condition.
    static func reply(body: String) -> String {
        body.contains("lunch") ? "Lunch is fine, see you after it." : body.contains("Yes, I can attend.") ? "Great, see you then." : "Hello, can you attend on Thursday?"
    }

    /// `final`: the words the turn-over result adds ("": none — the fixed words were the whole line).
    public static func deepgram(final: String, settled: Duration, endpoint: Duration) -> [FakeCascadeServers.DeepgramStep] {
        typealias Step = FakeCascadeServers.DeepgramStep
        let end = Duration.milliseconds(2500)
        return [Step(afterAudio: .milliseconds(1600), [Step.speechStarted, Step.results("yes I", isFinal: false)]),
                Step(afterAudio: end, [Step.results("Yes, I can attend.", isFinal: false)]),
                Step(afterAudio: end + settled, [Step.results("Yes, I can attend.", isFinal: true)]),
                Step(afterAudio: end + endpoint, [Step.results(final, isFinal: true, speechFinal: true)])]
    }

    /// `afterAudio`: how long the engine has to give its greeting, and once the caller's last frame
    /// went in, to have given all three lines.
    public static func run(final: String = "", earlyReplies: Bool, modelLatency: Duration = .milliseconds(150),
                           settled: Duration = .milliseconds(200), endpoint: Duration = .milliseconds(500),
                           afterAudio: Duration = .seconds(10)) async throws -> Outcome {
        let log = FakeCascadeServers.Log()
        let lines = Locked<[String]>([]), usage = Locked(EngineUsage())
        let ended = Locked<ContinuousClock.Instant?>(nil), replyAudio = Locked<ContinuousClock.Instant?>(nil)
        let chat: @Sendable (Int) -> (chunks: [String], delay: Duration) = { _ in
            (FakeCascadeServers.sse([FakeCascadeServers.content(reply(body: log.chatBodies.value.last ?? ""))]) + ["data: [DONE]\n\n"], modelLatency)
        }
        try await FakeCascadeServers.withFakeServers(log, chat: chat, deepgram: deepgram(final: final, settled: settled, endpoint: endpoint)) { port in
            let base = "127.0.0.1:\(port)/v1"
            var settings = CascadeEngine.Settings(stt: .deepgram(baseURL: "ws://" + base, apiKey: "dg-key", model: "nova-3"), llmBaseURL: "http://" + base,
                                                  llmAPIKey: "llm-key", llmModel: "test-model", audioBaseURL: "http://" + base, audioAPIKey: "audio-key")
            settings.earlyReplies = earlyReplies
            let engine = CascadeEngine(context: context, settings: settings)
            // The bound is on what the engine does once the caller's audio has all gone in, not on
            // how fast the machine moved it: beside a loaded test stream, 250 paced frames through
            // the engine took up to 20 s of wall time, which a fixed 20-s limit on the whole
            // exchange failed (2 Dec).
            enum Finished: Sendable { case started, heard }
            // The caller answers the greeting once it has heard it, as a person does: a greeting
            // turn still at work (slow under load) takes no early reply, and the words would be
            // speech over the agent (failed so beside two busy loops, 3 Dec).
            let (greeted, greeting) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            try await withThrowingTaskGroup(of: Finished.self) { group in
                group.addTask { try await engine.start(); return .started }
                group.addTask {
                    let heardGreeting = (try? await withTimeout(afterAudio) { for await _ in greeted { return true }; return false }) ?? false
                    guard heardGreeting else { throw ProbeError(description: "no greeting within \(afterAudio): the fake servers saw \(log.entries.value.map(\.what))") }
                    try await FakeCascadeServers.speakOnce(before: .milliseconds(1500), speech: .seconds(1), after: endpoint + modelLatency + .seconds(2),
                                                          send: { await engine.send(muLaw: $0, speech: $1) }, speechEnded: { at in ended.withLock { $0 = at } })
                    try await Task.sleep(for: afterAudio)
                    throw ProbeError(description: "\(afterAudio) after the caller's audio ended the engine had given \(lines.value); "
                                     + "the fake servers saw \(log.entries.value.map(\.what))")
                }
                group.addTask {
                    while let event = await engine.nextEvent() {
                        switch event {
                        case .audio(let item, _) where item != "cascade-1":
                            replyAudio.withLock { $0 = $0 ?? .now }
                        case .audioDone("cascade-1"):
                            greeting.yield()
                        case .transcript(let speaker, let text, _):
                            lines.withLock { $0.append("\(speaker.rawValue): \(text)") }
                        default: break
                        }
                        if lines.value.count == 3 { break }
                    }
                    return .heard
                }
                do {
                    while let finished = try await group.next(), finished != .heard {}
                } catch {
                    _ = await engine.stop()   // ends the events the third task waits on
                    throw error
                }
                usage.withLock { $0 = engine.usage }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        guard let ended = ended.value, let replyAudio = replyAudio.value else { throw ProbeError(description: "no reply audio after the caller's turn: \(lines.value)") }
        return Outcome(lines: lines.value, usage: usage.value, log: log, latency: ended.duration(to: replyAudio))
    }

    struct ProbeError: Error, CustomStringConvertible { let description: String }
}
