import Foundation
import Pipeline

/// What a call's media path did, kept with the call: every stage's and queue's figures, the
/// tones heard, and the turn latencies. `GET /api/outbound/{id}/report`.
public struct CallReport: Sendable, Codable, Equatable {
    public var stages: [StageMeter.Snapshot]
    /// "dtmf 5", "beep 1000 Hz 160 ms", in the order heard.
    public var tones: [String]
    public var turnLatenciesMilliseconds: [Int]

    public init(stages: [StageMeter.Snapshot], tones: [ToneEvent], turnLatenciesMilliseconds: [Int]) {
        self.stages = stages
        self.tones = tones.map(\.reportLine)
        self.turnLatenciesMilliseconds = turnLatenciesMilliseconds
    }

    enum CodingKeys: String, CodingKey {
        case stages, tones
        case turnLatenciesMilliseconds = "turn_latencies_ms"
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
    /// The report as it stands (a live call's figures grow until it ends).
    public var report: CallReport {
        CallReport(stages: meters.snapshots, tones: tones, turnLatenciesMilliseconds: turnLatencies)
    }
}
