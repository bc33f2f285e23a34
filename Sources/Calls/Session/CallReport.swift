import Foundation
import Pipeline
import Realtime
import Tools

/// What a call's media path did, kept with the call: every stage's and queue's figures, the
/// tones heard, and the turn latencies. `GET /api/outbound/{id}/report`.
public struct CallReport: Sendable, Codable, Equatable {
    public var stages: [StageMeter.Snapshot]
    /// "dtmf 5", "beep 1000 Hz 160 ms", in the order heard.
    public var tones: [String]
    /// Every agent turn's timeline (caller's speech end → transcript → reply → audio → wire).
    public var turns: [TurnTiming]
    /// Every barge-in, the greeting's too, with how much of the cut utterance was heard.
    public var interruptions: [Interruption]
    /// The caller's speech over the agent by what it came to (absent in reports stored before).
    public var interruptionCounts: InterruptionCounts?
    public var usage: EngineUsage
    public var cost: CostEstimate
    /// The operator's tools the agent called (tool, arguments with secrets masked, status, ms);
    /// absent when it called none (and in reports stored before tools existed).
    public var tools: [ToolCallRecord]?
    /// Keys the agent pressed in a phone menu, with the seconds after answer they went out
    /// (absent when it pressed none).
    public var keysSent: [SentKey]?

    public struct SentKey: Sendable, Codable, Equatable {
        public enum Carriage: String, Sendable, Codable { case rfc4733, tone }
        public var key: String
        public var seconds: Double
        /// As an RFC 4733 event, or as its tone in the agent's audio.
        public var how: Carriage
    }

    public init(stages: [StageMeter.Snapshot] = [], tones: [ToneEvent] = [], turns: [TurnTiming] = [], interruptions: [Interruption] = [],
                usage: EngineUsage = EngineUsage(), cost: CostEstimate = CostEstimate(currency: "USD"), tools: [ToolCallRecord] = []) {
        self.tools = tools.isEmpty ? nil : tools
        self.stages = stages
        self.tones = tones.map(\.reportLine)
        self.turns = turns
        self.interruptions = interruptions
        self.usage = usage
        self.cost = cost
    }

    public var bargeIns: Int { interruptions.count }

    /// `confirmed`: the agent was cut (each is in `interruptions`); `backchannel`: "mm-hmm" and the
    /// like, the agent played on; `resumed`: the agent was held, the speech held no words (a
    /// cough, line noise), and it played on from where it stopped.
    public struct InterruptionCounts: Sendable, Codable, Equatable {
        public var confirmed = 0
        public var backchannel = 0
        public var resumed = 0
        /// How long the agent was held each time it then played on (the first 50), ms.
        public var heldMs: [Int] = []

        enum CodingKeys: String, CodingKey { case confirmed, backchannel, resumed, heldMs = "held_ms" }
    }

    enum CodingKeys: String, CodingKey {
        case stages, tones, turns, interruptions, usage, cost, tools
        case keysSent = "keys_sent"
        case interruptionCounts = "interruption_counts"
    }
}

extension ToneEvent {
    var reportLine: String {
        switch self {
        case .dtmf(let digit): "dtmf \(digit)"
        case .beep(let frequency, let milliseconds): "beep \(frequency) Hz \(milliseconds) ms"
        }
    }
}

extension CallSession {
    /// Seconds since the call was answered, on the call's clock.
    var connectedSeconds: Double { state.withLock { $0.answeredAt }.duration(to: clock.now).totalSeconds }

    /// The report as it stands (a live call's figures grow until it ends).
    public var report: CallReport {
        let (timeline, tools, overlaps, keys) = state.withLock { ($0.timeline, $0.toolCalls, $0.overlaps, $0.keysSent) }
        let seconds = connectedSeconds
        let usage = engine.usage
        var report = CallReport(stages: meters.snapshots, tones: tones, turns: timeline.turns, interruptions: timeline.interruptions, usage: usage,
                                cost: pricing.estimate(seconds: seconds, usage: usage), tools: tools)
        report.interruptionCounts = overlaps
        report.interruptionCounts?.confirmed = timeline.interruptions.count
        report.keysSent = keys.isEmpty ? nil : keys.map { var key = $0; key.seconds = (key.seconds * 100).rounded() / 100; return key }
        return report
    }
}
