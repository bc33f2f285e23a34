import Bridge
import Dialogue
import Foundation
import Realtime
import Tools

/// `engine.*`: which engine answers calls, its models and keys, read and checked together (a
/// mode without the key it needs is refused here, not at the first call).
extension VoiceBridgeConfig {
    static func readEngine(_ e: inout Engine, _ r: inout ConfigReader) throws {
        e.mode = try r.choice("engine.mode", default: e.mode)
        e.language = try r.string("engine.language", default: e.language)
        e.vad = try r.choice("engine.vad", default: e.vad)
        e.echoCancellation = try r.bool("engine.echo_cancellation", default: e.echoCancellation)
        e.noiseSuppression = try r.bool("engine.noise_suppression", default: e.noiseSuppression)
        e.holdBackgroundVoices = try r.bool("engine.hold_background_voices", default: e.holdBackgroundVoices)
        e.turns.detection = try r.choice("engine.turn_detection", default: e.turns.detection)
        e.turns.threshold = try r.double("engine.turn_threshold", default: e.turns.threshold, in: 0.05...0.95)
        e.turns.ceilingMilliseconds = try r.int("engine.turn_ceiling_ms", default: e.turns.ceilingMilliseconds, in: 300...10_000)
        e.bargeIn.minMilliseconds = try r.int("barge_in.min_ms", default: e.bargeIn.minMilliseconds, in: 100...5000)
        e.bargeIn.minWords = try r.int("barge_in.min_words", default: e.bargeIn.minWords, in: 1...20)
        e.local.voice = try r.string("engine.local.voice", default: e.local.voice)
        e.local.moonshinePath = try r.string("engine.local.moonshine_path", default: e.local.moonshinePath)
        e.local.whisperPath = try r.string("engine.local.whisper_path", default: e.local.whisperPath)
        e.local.maxCalls = try r.int("engine.local.max_calls", default: e.local.maxCalls, in: 0...10_000)
        e.local.turnLatencyGoalMilliseconds = try r.int("engine.local.turn_latency_goal_ms", default: e.local.turnLatencyGoalMilliseconds, in: 0...10_000)
        e.local.recognizerLanes = try r.int("engine.local.recognizer_lanes", default: e.local.recognizerLanes, in: 0...64)
        e.local.recognitionBias = try r.double("engine.local.recognition_bias", default: e.local.recognitionBias, in: 0...20)
        let floor = try r.string("engine.local.answer_confidence", default: "calibrated")
        if !floor.isEmpty, floor != "calibrated" {
            guard let value = Double(floor), (0...1).contains(value) else {
                throw ConfigError(key: "engine.local.answer_confidence", problem: "must be calibrated or a number from 0 to 1, got \(floor)",
                                  origin: r.origin(of: "engine.local.answer_confidence"))
            }
            e.local.answerConfidence = AnswerConfidence(floor: value)
        }
        let readBack = try r.list("engine.read_back", default: e.local.readBack.map(\.rawValue).sorted())
        e.local.readBack = try Set(readBack.filter { $0 != "none" }.map { name in
            guard let kind = AnswerKind(rawValue: name), ReadBack.readableKinds.contains(kind) else {
                throw ConfigError(key: "engine.read_back", problem: "'\(name)' is not a kind that is read back; use any of "
                                  + ReadBack.readableKinds.map(\.rawValue).sorted().joined(separator: ", ") + ", or none", origin: r.origin(of: "engine.read_back"))
            }
            return kind
        })
        e.openAI.apiKey = try r.optionalString("engine.openai.api_key", aliases: ["OPENAI_API_KEY"])
        e.openAI.baseURL = try r.string("engine.openai.base_url", default: e.openAI.baseURL, aliases: ["OPENAI_BASE_URL"])
        e.openAI.realtimeModel = try r.string("engine.openai.realtime_model", default: e.openAI.realtimeModel)
        e.openAI.voice = try r.string("engine.openai.voice", default: e.openAI.voice)
        e.openAI.vadThreshold = try r.double("engine.openai.vad_threshold", default: e.openAI.vadThreshold, in: 0...1)
        e.openAI.prefixPaddingMs = try r.int("engine.openai.prefix_padding_ms", default: e.openAI.prefixPaddingMs, in: 0...5000)
        e.openAI.silenceDurationMs = try r.int("engine.openai.silence_duration_ms", default: e.openAI.silenceDurationMs, in: 0...10_000)
        e.cascade.stt = try r.choice("engine.cascade.stt", default: e.cascade.stt)
        e.cascade.llmBaseURL = try r.string("engine.cascade.llm_base_url", default: e.openAI.baseURL)
        e.cascade.llmAPIKey = try r.optionalString("engine.cascade.llm_api_key") ?? e.openAI.apiKey
        e.cascade.llmModel = try r.string("engine.cascade.llm_model", default: e.cascade.llmModel)
        e.cascade.ttsModel = try r.string("engine.cascade.tts_model", default: e.cascade.ttsModel)
        e.cascade.ttsVoice = try r.string("engine.cascade.tts_voice", default: e.cascade.ttsVoice)
        e.cascade.transcriptionModel = try r.string("engine.cascade.transcription_model", default: e.cascade.transcriptionModel)
        e.cascade.earlyReplies = try r.bool("engine.cascade.early_replies", default: e.cascade.earlyReplies)
        e.deepgram.apiKey = try r.optionalString("engine.deepgram.api_key", aliases: ["DEEPGRAM_API_KEY"])
        e.deepgram.baseURL = try r.string("engine.deepgram.base_url", default: e.deepgram.baseURL, aliases: ["DEEPGRAM_BASE_URL"])
        e.deepgram.model = try r.string("engine.deepgram.model", default: e.deepgram.model)

        e.stream.url = try r.optionalString("engine.stream.url", aliases: ["VOICEBRIDGE_BOT_URL"])
        if let url = e.stream.url, let problem = Self.botURLProblem(url) {
            throw ConfigError(key: "engine.stream.url", problem: problem, origin: r.origin(of: "engine.stream.url"))
        }

        for (url, key) in [(e.openAI.baseURL, "engine.openai.base_url"), (e.cascade.llmBaseURL, "engine.cascade.llm_base_url"), (e.deepgram.baseURL, "engine.deepgram.base_url")] {
            guard let parsed = URL(string: url), ["http", "https", "ws", "wss"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ConfigError(key: key, problem: "must be an http(s) or ws(s) URL, got '\(url)'", origin: r.origin(of: key))
            }
        }
        // A mode that needs a provider key must have it: fail at startup, not on the first call.
        switch e.mode {
        case .realtime where e.openAI.apiKey == nil:
            throw ConfigError(key: "engine.openai.api_key", problem: "engine.mode is realtime but no OpenAI key is set (OPENAI_API_KEY)")
        case .cascade where e.cascade.llmAPIKey == nil:
            throw ConfigError(key: "engine.cascade.llm_api_key", problem: "engine.mode is cascade but no LLM key is set (engine.cascade.llm_api_key or OPENAI_API_KEY)")
        case .stream where e.stream.url == nil:
            throw ConfigError(key: "engine.stream.url", problem: "engine.mode is stream but no bot URL is set (ws:// or wss://)")
        case .cascade where e.cascade.stt == .deepgram && e.deepgram.apiKey == nil:
            throw ConfigError(key: "engine.deepgram.api_key", problem: "engine.cascade.stt is deepgram but no Deepgram key is set (DEEPGRAM_API_KEY)")
        default: break
        }
    }

    /// Why `url` cannot be a media-stream bot's address, or nil when it can: `OutboundURL`'s plain
    /// form with ws:// or wss://.
    public static func botURLProblem(_ url: String) -> String? {
        let parsed: OutboundURL
        do throws(OutboundURL.Problem) {
            parsed = try OutboundURL(url, schemes: OutboundURL.socketSchemes)
        } catch {
            return "a bot URL \(error.message), got '\(url)'"
        }
        // The TLS client names the server it expects (SNI), and an address is not a name.
        if parsed.isSecure, parsed.hostIsAddress {
            return "a wss:// bot URL needs a host name (TLS checks the certificate against it), got the address '\(parsed.host)'"
        }
        return nil
    }
}
