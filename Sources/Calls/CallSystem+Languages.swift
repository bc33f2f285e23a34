import Foundation
import Realtime
import Synchronization

/// The languages a server holds calls in.
extension CallSystem {
    /// Korean speech for `engine.local`, one per configuration (loaded at its first Korean call).
    static func korean(_ local: VoiceBridgeConfig.Engine.Local) -> OfflineKorean {
        koreanSpeech.withLock { loaded in
            if let found = loaded[local.whisperPath] { return found }
            let korean = OfflineKorean(whisperPath: local.whisperPath, lanes: local.recognizerLanes > 0 ? local.recognizerLanes : ProcessInfo.processInfo.activeProcessorCount)
            loaded[local.whisperPath] = korean
            return korean
        }
    }

    private static let koreanSpeech = Mutex<[String: OfflineKorean]>([:])

    /// Why a call in a language other than `engine.language` cannot be held: the local engine speaks
    /// English and Korean (Korean with Whisper installed); the realtime and cascade engines tell the
    /// provider the language; the others (echo, loopback, a bot) do not converse in one.
    static func languageProblem(_ engine: VoiceBridgeConfig.Engine) -> @Sendable (String) -> String? {
        guard engine.mode == .local else { return { _ in nil } }
        let korean = korean(engine.local)
        return { language in
            switch language.prefix(2) {
            case "en": nil
            case "ko": korean.problem()
            default: "the local engine speaks en and ko, not \(language)"
            }
        }
    }
}
