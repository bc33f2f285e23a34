extension VoiceBridgeConfig {
    /// Handing a caller to a person.
    public struct Transfer: Sendable, Equatable {
        /// Where: a number (dialled through the SIP gateway, or by Twilio) or a `sip:` URI; nil: nobody.
        public var target: String?
        /// Where a call's or template's `transfer_to` may point (see `TransferTargetRule`); empty:
        /// any number, and `sip:` URIs on the gateway's host only.
        public var allowedTargets: [String] = []
        public enum Mode: String, Sendable, CaseIterable { case cold, warm }
        /// `cold`: a blind REFER (VoiceBridge bridges the person itself when the peer refuses it);
        /// `warm`: VoiceBridge calls the person, briefs them while the caller holds, and bridges on key 1.
        public var mode: Mode = .cold
        /// A warm transfer's person has this long to accept once they answered.
        public var acceptTimeoutSeconds = 20
        /// A WAV file (16-bit PCM) the caller hears while a warm transfer rings; nil: a hold tone.
        public var holdMusic: String?
        public enum Briefing: String, Sendable, CaseIterable { case auto, scripted }
        /// `auto`: the model writes what the person hears (the `analysis.*` endpoint, when it has a
        /// key), the scripted briefing when it cannot; `scripted`: always the scripted one.
        public var briefing: Briefing = .auto
        /// The person may accept or decline by saying yes or no (the offline recognizer), as well as by key.
        public var acceptByVoice = true
    }
}
