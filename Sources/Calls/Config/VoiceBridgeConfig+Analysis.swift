extension VoiceBridgeConfig {
    /// Post-call analysis (a template's `analysis`): by the LLM when one is configured, else offline.
    public struct Analysis: Sendable, Equatable {
        public enum LLM: String, Sendable, CaseIterable { case auto, off }
        /// `auto`: a structured-output request to the model below when it has a key; `off`: offline always.
        public var llm: LLM = .auto
        /// Chat Completions endpoint, key and model; unset, the cascade engine's LLM settings.
        public var baseURL = "https://api.openai.com/v1"
        public var apiKey: String?
        public var model = "gpt-4o-mini"
        public var timeoutSeconds = 30

        /// The model to ask, or nil when the analysis runs offline.
        public var endpoint: (url: String, key: String, model: String)? {
            guard llm == .auto, let apiKey, !apiKey.isEmpty else { return nil }
            return (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL, apiKey, model)
        }
    }
}
