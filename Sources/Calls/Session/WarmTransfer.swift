import Analysis
import Bridge
import Dialogue
import Foundation
import Pipeline
import Realtime

/// A warm transfer (`transfer.mode: warm`): VoiceBridge calls the person itself while the caller
/// holds (a tone or the operator's music), tells the person who is waiting and why — the model's
/// summary of the call so far, or the scripted one — and bridges the caller only when the person
/// accepts: key 1 or a spoken yes; key 2, a spoken no, hanging up or nothing within the limit
/// declines, and the agent has the caller back.
public struct WarmTransfer: Sendable {
    public struct Settings: Sendable {
        /// How long the person has to decide once they answered.
        public var acceptWithin: Duration
        /// What the caller hears meanwhile, 8 kHz μ-law, looped (`HoldAudio`).
        public var holdAudio: [UInt8]
        /// Transcribes one utterance of the person's (8 kHz) so that they may answer by voice;
        /// nil: keys only.
        public var transcribe: (@Sendable ([Int16]) async -> String?)?
        /// Writes the briefing from the call so far; nil, or nil back: the scripted briefing.
        public var writeBriefing: (@Sendable (AnalysisInput, _ reason: String) async -> String?)?

        public init(acceptWithin: Duration = .seconds(20), holdAudio: [UInt8] = HoldAudio.tone,
                    transcribe: (@Sendable ([Int16]) async -> String?)? = nil,
                    writeBriefing: (@Sendable (AnalysisInput, _ reason: String) async -> String?)? = nil) {
            self.acceptWithin = acceptWithin
            self.holdAudio = holdAudio
            self.transcribe = transcribe
            self.writeBriefing = writeBriefing
        }
    }

    /// Calls the person; answered, their leg (not yet running).
    public var dial: @Sendable (_ target: String) async -> TransferResult
    public var settings: Settings

    public init(settings: Settings, dial: @escaping @Sendable (_ target: String) async -> TransferResult) {
        self.dial = dial
        self.settings = settings
    }

    /// The scripted briefing: who is waiting, why, and the answers so far.
    public static func briefing(context: ConversationContext, reason: String, answers: [TaskTracker.Answer]) -> String {
        let settled = answers.filter { $0.status == .answered }.map { "\($0.question) \($0.answerSummary ?? $0.answerText ?? "")" }
        return "Hello, this is the AI assistant of \(context.displayName). A caller is waiting on the line about \(context.purpose). "
            + "They asked for a person: \(reason). "
            + (settled.isEmpty ? "" : "So far: " + settled.joined(separator: "; ") + ". ")
    }

    /// How the person is told to decide, after the briefing.
    static func keys(byVoice: Bool) -> String {
        byVoice ? "Say yes or press 1 to take the call; say no or press 2 to decline." : "Press 1 to take the call, or 2 to decline."
    }
}
