import Realtime

extension VoiceBridgeConfig.Engine {
    /// How the caller's turn is judged over (`engine.turn_detection` and its settings).
    public struct Turns: Sendable, Equatable {
        public enum Detection: String, Sendable, CaseIterable {
            /// The model when `make deps` installed it (the local and cascade engines), else the
            /// pause rule with a warning at startup.
            case auto
            /// Silence after speech, shorter when the words answer the question.
            case pause
            /// Smart Turn v3.2 judges each pause; the server does not start without it.
            case model
        }
        public var detection: Detection = .auto
        /// The model's probability at or above which a turn is complete.
        public var threshold = 0.8
        /// Longest wait after speech when the model says the caller is not done.
        public var ceilingMilliseconds = TurnDetector.defaultCeilingMilliseconds
    }
}

extension VoiceBridgeConfig {
    /// The caller speaking while the agent talks (`barge_in.*`), for engines that judge it by its
    /// words (the local engine): shorter speech never stops the agent; at `minMilliseconds` the
    /// agent is held until the words are known; fewer than `minWords` words besides backchannel
    /// words ("mm-hmm", "yeah", "네") do not take the turn.
    public struct BargeIn: Sendable, Equatable {
        public var minMilliseconds = 500
        public var minWords = 1
    }
}
