import Bridge
import Dialogue
import Egress
import Foundation
import Knowledge
import Logging
import NIOCore
import NIOPosix
import Pipeline
import Realtime
import Simulation
import Tools
import Tracing

/// The engines a call can run on, built from the configuration once at start-up, and the
/// caller side's optional models (Silero, DeepFilterNet3).
extension CallSystem {
    /// Local engines sharing one recognizer; a call's own voice gets its own synthesizer. `tools`
    /// run a flow's tool steps.
    /// A Korean call (`language: ko`) hears with Whisper and speaks with espeak-ng's Korean (`korean`).
    public static func localEngines(tts: any SpeechSynthesizer, stt: any SpeechRecognizer, korean: OfflineKorean? = nil,
                                    knowledge: (any KnowledgeSearching)? = nil,
                                    tools: ToolRunner? = nil, turns: TurnDetector = .pause, overlapMinimumWords: Int = 1,
                                    readBack: Set<AnswerKind> = ReadBack.defaultKinds, answerConfidence: AnswerConfidence = AnswerConfidence(),
                                    recognitionBias: Float = LocalEngine.defaultRecognitionBias, meaning: E5Embedder? = nil) -> EngineFactory {
        let english = stt
        return { context in
            var context = context
            context.readBack = readBack
            context.answerConfidence = answerConfidence
            let voice: any SpeechSynthesizer
            var stt: any SpeechRecognizer
            if DialoguePhrases.isKorean(context.language) {
                guard let korean else { throw StartupError(description: "language ko: this server's local engine has no Korean speech") }
                (stt, voice) = try korean.speech(voice: context.voice)
            } else {
                voice = try context.voice.map { try EspeakSynthesizer(voice: $0, wordsPerMinute: (tts as? EspeakSynthesizer)?.wordsPerMinute ?? EspeakSynthesizer.defaultWordsPerMinute) } ?? tts
                stt = english
            }
            // A caller who may switch language is heard by Whisper, which tells the languages apart.
            var otherVoices: [String: any SpeechSynthesizer] = [:]
            if !context.languages.isEmpty, let korean {
                for code in context.languages where code != context.language {
                    if DialoguePhrases.isKorean(code) { otherVoices[code] = try korean.voice() } else if code.hasPrefix("en") { otherVoices[code] = tts }
                }
                if !otherVoices.isEmpty {
                    stt = try korean.whisper().listening(in: String(context.language.prefix(2)), others: otherVoices.keys.map { String($0.prefix(2)) },
                                                         english: english as? MoonshineTranscriber)
                }
            }
            return LocalEngine(context: context, tts: voice, otherVoices: otherVoices, stt: stt, turns: turns, knowledge: context.knowledge.isEmpty ? nil : knowledge,
                               tools: context.conversationTools.isEmpty ? nil : tools, overlapMinimumWords: overlapMinimumWords,
                               recognitionBias: recognitionBias, meaning: context.call.direction == "outbound" ? meaning : nil)
        }
    }

    /// The local engine's voice (`engine.local.voice`): `piper` for Piper's voice, else the
    /// espeak-ng voice of that name. `loadNow`: Piper's model is loaded here (a broken one stops
    /// the server at startup) rather than when it first speaks.
    static func localVoice(_ local: VoiceBridgeConfig.Engine.Local, loadNow: Bool = false) throws -> any SpeechSynthesizer {
        if local.voice == VoiceBridgeConfig.Engine.Local.piperVoice {
            let voice = try PiperVoice.installed(in: local.depsPath)
            if loadNow { try voice.load() }
            return voice
        }
        return try EspeakSynthesizer(voice: local.voice)
    }

    /// The call's tool runner: the operator's tools, and `search_knowledge` over the call's collections.
    static func runner(_ tools: ToolRunner?, for context: ConversationContext, knowledge: (any KnowledgeSearching)?) -> ToolRunner? {
        guard let tools, let knowledge, !context.knowledge.isEmpty else { return tools }
        return tools.adding(KnowledgeSearchTool(searcher: knowledge, collections: context.knowledge), named: KnowledgeSearchTool.name)
    }

    /// The engine factory for `engine.mode`; a call that names a bot (`bot_url`) goes to it
    /// whatever the mode. Local speech is loaded once, here, so a missing model stops the server
    /// at startup with a message that names `make deps`.
    /// `recognizer`: the offline recognizer when it is already loaded (the local engine shares it).
    public static func engines(for config: VoiceBridgeConfig.Engine, egress: EgressPolicy, tools: ToolRunner? = nil,
                               knowledge: (any KnowledgeSearching)? = nil, recognizer: MoonshineTranscriber? = nil, meaning: E5Embedder? = nil,
                               logger: Logger = Logger(label: "voicebridge.engines")) throws -> EngineFactory {
        let modeEngines = try modeEngines(for: config, tools: tools, knowledge: knowledge, recognizer: recognizer, meaning: meaning, logger: logger)
        let modeBot = config.mode == .stream ? config.stream.url : nil
        return { context in
            if let url = context.botURL ?? modeBot { return StreamBotEngine(url: url, context: context, egress: egress) }
            return try modeEngines(context)
        }
    }

    private static func modeEngines(for config: VoiceBridgeConfig.Engine, tools: ToolRunner?, knowledge: (any KnowledgeSearching)?,
                                    recognizer: MoonshineTranscriber?, meaning: E5Embedder?, logger: Logger) throws -> EngineFactory {
        switch config.mode {
        case .stream:
            return { _ in throw StartupError(description: "engine.mode stream needs engine.stream.url") }
        case .local:
            let tts: any SpeechSynthesizer
            let stt: MoonshineTranscriber
            do {
                tts = try localVoice(config.local, loadNow: true)   // the agent speaks in every call
                stt = try recognizer ?? localRecognizer(config.local)
            } catch {
                throw StartupError(description: "the local engine cannot start: \(error)")
            }
            // A server whose calls are Korean unless they say otherwise must hear Korean from the start.
            let offlineKorean = korean(config.local)
            if DialoguePhrases.isKorean(config.language), let problem = offlineKorean.problem() {
                throw StartupError(description: "engine.language ko: \(problem)")
            }
            return localEngines(tts: tts, stt: stt, korean: offlineKorean, knowledge: knowledge, tools: tools, turns: try turnDetector(for: config, logger: logger),
                                overlapMinimumWords: config.bargeIn.minWords, readBack: config.local.readBack,
                                answerConfidence: config.local.answerConfidence, recognitionBias: Float(config.local.recognitionBias), meaning: meaning)
        case .echo:
            return { _ in EchoEngine(sampleRate: 8000) }
        case .loopback:
            return { _ in LoopbackEngine() }
        case .realtime:
            guard let key = config.openAI.apiKey, !key.isEmpty else {
                throw StartupError(description: "engine.mode realtime needs engine.openai.api_key (or OPENAI_API_KEY)")
            }
            var settings = OpenAIRealtimeEngine.Settings(apiKey: key)
            settings.baseURL = config.openAI.baseURL
            settings.model = config.openAI.realtimeModel
            settings.voice = config.openAI.voice
            settings.vad = .init(threshold: config.openAI.vadThreshold, prefixPaddingMs: config.openAI.prefixPaddingMs,
                                 silenceDurationMs: config.openAI.silenceDurationMs)
            settings.overlapMinimumWords = config.bargeIn.minWords
            let fixed = settings
            return { context in
                var settings = fixed
                settings.voice = context.voice ?? fixed.voice
                return OpenAIRealtimeEngine(context: context, settings: settings, tools: runner(tools, for: context, knowledge: knowledge))
            }
        case .cascade:
            let c = config.cascade
            let llmKey = c.llmAPIKey ?? config.openAI.apiKey
            let stt: CascadeEngine.Settings.STT
            switch c.stt {
            case .deepgram:
                guard let key = config.deepgram.apiKey, !key.isEmpty else {
                    throw StartupError(description: "engine.cascade.stt deepgram needs engine.deepgram.api_key (or DEEPGRAM_API_KEY)")
                }
                stt = .deepgram(baseURL: config.deepgram.baseURL, apiKey: key, model: config.deepgram.model)
            case .openai:
                stt = .openAI(model: c.transcriptionModel)
            }
            guard config.openAI.apiKey?.isEmpty == false else {
                throw StartupError(description: "engine.mode cascade speaks through OpenAI's /audio/speech: set engine.openai.api_key (or OPENAI_API_KEY)")
            }
            var settings = CascadeEngine.Settings(stt: stt, llmBaseURL: c.llmBaseURL, llmAPIKey: llmKey, llmModel: c.llmModel,
                                                  audioBaseURL: config.openAI.baseURL, audioAPIKey: config.openAI.apiKey)
            settings.ttsModel = c.ttsModel
            settings.ttsVoice = c.ttsVoice
            settings.earlyReplies = c.earlyReplies
            settings.turns = try turnDetector(for: config, logger: logger)
            settings.overlapMinimumWords = config.bargeIn.minWords
            let fixed = settings
            return { context in
                var settings = fixed
                settings.ttsVoice = context.voice ?? fixed.ttsVoice
                return CascadeEngine(context: context, settings: settings, tools: runner(tools, for: context, knowledge: knowledge))
            }
        }
    }

    /// Silero for the caller side's VAD, as `engine.vad` asks: next to Moonshine in `make deps`'s
    /// folder. Asked for by name and missing, the server does not start; under `auto` it falls
    /// back to the energy detector with a warning.
    static func neuralVAD(for engine: VoiceBridgeConfig.Engine, logger: Logger) throws -> SileroModel? {
        let wanted = switch engine.vad {
        case .neural: true
        case .energy: false
        case .auto: engine.mode == .local || engine.mode == .cascade
        }
        guard wanted else { return nil }
        do {
            return try SileroModel.installed(in: engine.local.depsPath)
        } catch {
            guard engine.vad == .auto else { throw StartupError(description: "engine.vad neural: \(error)") }
            logger.warning("the neural VAD is not installed (make deps); the energy detector decides", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// DeepFilterNet3 for the caller side, from `make deps`'s folder. With `engine.noise_suppression`
    /// every call uses it, and missing, the server does not start. Without it, it is loaded if
    /// installed, for the calls and templates that ask for it (`noise_suppression: true`); nil
    /// when it is not, and such calls are refused by field.
    static func noiseSuppression(for engine: VoiceBridgeConfig.Engine) throws -> NoiseSuppression? {
        do {
            return try NoiseSuppression.installed(in: engine.local.depsPath)
        } catch {
            guard engine.noiseSuppression else { return nil }
            throw StartupError(description: "engine.noise_suppression: \(error)")
        }
    }
}
