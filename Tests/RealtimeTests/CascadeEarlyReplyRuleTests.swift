import Foundation
import Testing
import TestSupport
@testable import Realtime

/// The early-reply rule on the engine's own state, no servers and no clock: what it asks for when
/// the caller's words settle, and when the agent's turn ends.
@Suite struct CascadeEarlyReplyRuleTests {
    /// An engine that is never started: the rule's requests are counted, never sent.
    static func engine() -> CascadeEngine {
        let nowhere = "127.0.0.1:9"
        var settings = CascadeEngine.Settings(stt: .deepgram(baseURL: "ws://" + nowhere, apiKey: "k", model: "m"), llmBaseURL: "http://" + nowhere,
                                              llmAPIKey: "k", llmModel: "m", audioBaseURL: "http://" + nowhere, audioAPIKey: "k")
        settings.earlyReplies = true
        return CascadeEngine(context: EarlyReplyProbe.context, settings: settings)
    }

    static func started(_ engine: CascadeEngine) -> Int { engine.usage.earlyReplies?.started ?? 0 }

    /// Words that settle while the agent's turn is at work (a greeting slow under load) are asked
    /// about once it ends, and the turn for those words takes that reply. Before, nothing asked
    /// again and the caller's reply waited for the recognizer's endpointing (beside two busy
    /// loops, 3 Dec, `CascadeEarlyReplyTests` saw no early reply so).
    @Test func wordsThatSettledDuringTheAgentsTurnAreAskedAboutWhenItEnds() {
        let engine = Self.engine()
        engine.state.withLock { $0.currentTurn = Task {} }
        engine.heardSoFar("Yes, I can attend.", fixed: true)
        engine.callerActivity(.ended)
        #expect(Self.started(engine) == 0, "not while the agent's turn is at work")
        engine.turnEnded()
        #expect(Self.started(engine) == 1, "asked once the turn ended")
        #expect(engine.takeEarlyReply(for: "Yes, I can attend.") != nil, "and the turn for those words takes it")
        #expect(engine.usage.earlyReplies == .init(started: 1, used: 1, dropped: 0))
    }

    /// Words whose final transcript is in when the agent's turn ends are that turn's to ask about:
    /// nothing is asked early for the part that had settled before (`CascadeEngineTests`' caller
    /// says "Yes, I can" and "attend." during the greeting; an early request for "Yes, I can" would
    /// be dropped unheard).
    @Test func wordsWhoseFinalTranscriptIsInAreLeftToTheirTurn() {
        let engine = Self.engine()
        engine.state.withLock { $0.currentTurn = Task {} }
        engine.heardSoFar("Yes, I can", fixed: true)
        engine.callerActivity(.ended)
        engine.finalWordsHeard()
        engine.turnEnded()
        #expect(Self.started(engine) == 0, "\(String(describing: engine.usage.earlyReplies))")
    }

    /// A backchannel over the agent is no turn: its words are forgotten, and the end of the agent's
    /// turn asks nothing about them.
    @Test func aBackchannelOverTheAgentIsNotAskedAboutWhenTheTurnEnds() async {
        let engine = Self.engine()
        engine.state.withLock { $0.currentTurn = Task {} }
        engine.callerSpeaksOverAgent()
        engine.heardSoFar("Mm-hmm.", fixed: true)
        engine.callerActivity(.ended)
        #expect(await engine.overlapIsTurn("Mm-hmm.") == false)
        engine.turnEnded()
        #expect(Self.started(engine) == 0, "\(String(describing: engine.usage.earlyReplies))")
    }
}
