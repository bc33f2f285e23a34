import Logging

extension CallSystem {
    /// Loads what `start` loads before it listens, by the same functions: the knowledge base's
    /// embedder, the offline recognizer, the engine factory (models, voices, keys), the neural VAD
    /// and a warm transfer's settings. Throws what `start` would throw; `logger` gets the warnings
    /// `start` would log (a model `auto` falls back from). `voicebridge doctor` runs it.
    public static func loadWhatStartLoads(config: VoiceBridgeConfig, logger: Logger) throws {
        _ = try KnowledgeBase.embedder(for: config, logger: logger)
        let recognizer = try sharedRecognizer(for: config, logger: logger)
        _ = try engines(for: config.engine, egress: config.egressPolicy, recognizer: recognizer, logger: logger)
        _ = try neuralVAD(for: config.engine, logger: logger)
        _ = try noiseSuppression(for: config.engine)
        _ = try warmTransfer(config, recognizer: recognizer, logger: logger)
    }

    /// What keeps Korean calls (`language: ko`) from being held offline, or nil. Whisper loads on
    /// the first Korean call, so `start` does not load it unless `engine.language` is `ko`.
    public static func offlineKoreanProblem(_ config: VoiceBridgeConfig) -> String? {
        korean(config.engine.local).problem()
    }
}
