import Analysis
import Egress
import Foundation
import Logging
import NIOCore
import Pipeline
import Realtime
import Tools

/// The offline recognizer, loaded once per process, and what a warm transfer is given from the configuration.
extension CallSystem {
    /// Moonshine with `engine.local`'s lanes, loaded once per process (`MoonshineTranscriber.loaded`).
    static func localRecognizer(_ local: VoiceBridgeConfig.Engine.Local) throws -> MoonshineTranscriber {
        try MoonshineTranscriber.loaded(directory: local.moonshinePath,
                                        lanes: local.recognizerLanes > 0 ? local.recognizerLanes : ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The recognizer the local engine and a warm transfer's ear share; nil when neither needs it.
    /// Missing, it stops a local-engine server (the engine says so); a warm transfer then takes keys only.
    static func sharedRecognizer(for config: VoiceBridgeConfig, logger: Logger) throws -> MoonshineTranscriber? {
        let warmEar = config.transfer.mode == .warm && config.transfer.acceptByVoice
        guard config.engine.mode == .local || warmEar else { return nil }
        do { return try localRecognizer(config.engine.local) } catch {
            guard config.engine.mode != .local else { throw StartupError(description: "the local engine cannot start: \(error)") }
            logger.warning("transfer.accept_by_voice: the offline recognizer is not installed (make deps); the person accepts by key only",
                           metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// `transfer.*` for warm transfers: the hold audio, the ear for a spoken yes or no, and who
    /// writes the briefing. Nil when transfers are cold.
    static func warmTransfer(_ config: VoiceBridgeConfig, recognizer: MoonshineTranscriber?, logger: Logger) throws -> WarmTransfer.Settings? {
        guard config.transfer.mode == .warm else { return nil }
        var settings = WarmTransfer.Settings(acceptWithin: .seconds(config.transfer.acceptTimeoutSeconds))
        if let path = config.transfer.holdMusic {
            do { settings.holdAudio = try HoldAudio.load(path: path) } catch { throw StartupError(description: "transfer.hold_music: \(error)") }
        }
        if config.transfer.acceptByVoice, let recognizer {
            settings.transcribe = { samples in
                guard let resampler = try? Resampler(from: 8000, to: MoonshineTranscriber.sampleRate) else { return nil }
                return try? await recognizer.transcribe(pcm16k: resampler.process(samples) + resampler.flush())
            }
        }
        if config.transfer.briefing == .auto, let endpoint = config.analysis.endpoint {
            let egress = config.egressPolicy
            settings.writeBriefing = { input, reason in
                await askForBriefing(endpoint, egress: egress, input: input, reason: reason, logger: logger)
            }
        }
        return settings
    }

    /// The model's briefing, or nil (logged) when it does not give one within 5 s: the person is
    /// ringing meanwhile, and the scripted briefing is a fine stand-in.
    static func askForBriefing(_ endpoint: (url: String, key: String, model: String), egress: EgressPolicy, input: AnalysisInput, reason: String,
                               logger: Logger) async -> String? {
        do {
            let response = try await EgressHTTPClient(policy: egress)
                .chatCompletion(endpoint, body: BriefingRequest.body(input, reason: reason, model: endpoint.model), timeout: .seconds(5))
            guard (200..<300).contains(response.status) else {
                logger.warning("the model wrote no briefing: the scripted one is read", metadata: ["status": "\(response.status)"])
                return nil
            }
            let text = BriefingRequest.text(from: try JSONValue.parse(String(buffer: response.body)))
            if text == nil { logger.warning("the model's briefing was empty: the scripted one is read") }
            return text
        } catch {
            logger.warning("the model wrote no briefing: the scripted one is read", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
