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
    public var usage: EngineUsage
    public var cost: CostEstimate
    /// The operator's tools the agent called (tool, arguments with secrets masked, status, ms);
    /// absent when it called none (and in reports stored before tools existed).
    public var tools: [ToolCallRecord]?

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
    /// The report as it stands (a live call's figures grow until it ends).
    public var report: CallReport {
        let (timeline, seconds, tools) = state.withLock { ($0.timeline, $0.answeredAt.duration(to: .now).totalSeconds, $0.toolCalls) }
        let usage = engine.usage
        return CallReport(stages: meters.snapshots, tones: tones, turns: timeline.turns, interruptions: timeline.interruptions, usage: usage,
                          cost: pricing.estimate(seconds: seconds, usage: usage), tools: tools)
    }
}
