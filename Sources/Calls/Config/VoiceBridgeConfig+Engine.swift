import Dialogue
import Foundation
import Realtime

/// The engine that talks with callers (`engine.*`): which one, its voice activity detector, and
/// each engine's own settings.
extension VoiceBridgeConfig {
    public enum EngineMode: String, Sendable, CaseIterable {
        case local, realtime, cascade, echo, loopback
        /// Every call goes to an external media-stream bot (`engine.stream.url`).
        case stream
    }

    /// Who decides where the caller's speech starts and ends on the caller side of every call.
    public enum VADKind: String, Sendable, CaseIterable {
        /// `neural` for the engines that take turns by our VAD (local, cascade) when `make deps`
        /// installed Silero, `energy` for the rest (realtime has its own; echo and loopback are line checks).
        case auto
        /// Energy and lag-1 autocorrelation: ~1 µs a frame; fooled by hum, music and tones.
        case energy
        /// Silero VAD (MIT) through onnxruntime, installed by `make deps`: ~100× the cost, much harder to fool.
        case neural
    }

    public struct Engine: Sendable, Equatable {
        public var mode: EngineMode = .local
        public var language = "en"
        public var vad: VADKind = .auto
        /// Takes the agent's own voice, returned by the line, out of the caller's audio before the
        /// VAD (libspeexdsp's canceller, `EchoCancelStage`).
        public var echoCancellation = false
        /// Takes the line's noise out of the caller's audio before the VAD and the recognizer
        /// (DeepFilterNet3, `NoiseSuppressStage`).
        public var noiseSuppression = false
        /// Holds voices behind the caller (a room, a television) below speech by their level
        /// against the caller's (`BackgroundSpeechFloor`, with the neural VAD).
        public var holdBackgroundVoices = false
        public var turns = Turns()
        /// `barge_in.*` (its own section in the file; kept with the engine that applies it).
        public var bargeIn = BargeIn()
        public var local = Local()
        public var openAI = OpenAI()
        public var cascade = Cascade()
        public var deepgram = Deepgram()
        public var stream = Stream()

        /// Bring your own bot: the media-stream WebSocket (Twilio's dialect) that `engine.mode:
        /// stream` hands every call to. Templates, inbound routes and the API name one per call.
        public struct Stream: Sendable, Equatable {
            public var url: String?
        }

        public struct Local: Sendable, Equatable {
            /// The agent's voice: `piper` for Piper's en_US-joe-medium (`make deps`; a person's sound,
            /// ~20× real time on one core, each sentence synthesized once and kept), or an espeak-ng
            /// voice name (`en-us`: robotic, a thousand times real time). A Korean call speaks
            /// espeak-ng's Korean either way; a call's own `voice` names an espeak-ng voice.
            public var voice = Self.piperVoice
            public static let piperVoice = "piper"
            /// Folder holding onnxruntime and Moonshine's `models/base-en/` (moonshine-cpp's wheel, put there by `make deps`).
            public var moonshinePath = ".deps/moonshine"
            /// Folder holding whisper.cpp (`lib/`) and Whisper base (`ggml-base-q8_0.bin`), which Korean calls hear with (`make deps`).
            public var whisperPath = ".deps/whisper"
            /// The most local-engine calls at once (0: `mostPerCore` a core when a turn-latency goal
            /// moves the limit, else `callsPerCore`): beyond the limit outbound calls wait in the queue
            /// and inbound INVITEs get 503, rather than every call going silent for seconds while the
            /// recognizer catches up.
            public var maxCalls = 0
            /// The median turn latency the calls in progress must keep (`engine.local.turn_latency_goal_ms`):
            /// the limit of calls at once moves with it (`CallAdmission`); 0: the limit is `maxCalls`.
            public var turnLatencyGoalMilliseconds = 800
            /// Transcriptions run side by side on the one loaded model (0: one per core).
            public var recognizerLanes = 0
            /// Kinds of answer read back for the caller to confirm (`engine.read_back`; none: `[]`).
            public var readBack: Set<AnswerKind> = ReadBack.defaultKinds
            /// How strongly the recognizer favours the words a question expects (`engine.local.recognition_bias`; 0: off).
            public var recognitionBias = Double(LocalEngine.defaultRecognitionBias)
            /// How sure the recognizer must be of an answer before it is stored as answered
            /// (`engine.local.answer_confidence`: calibrated per kind and language, or one floor; 0: off).
            public var answerConfidence = AnswerConfidence()
            /// Calls a core starts with: what `make bench`'s personas suite showed one core serving
            /// within the turn-latency goal before the limit was learnt.
            public static let callsPerCore = 2.5
            /// The most a core may be given when the limit is learnt: `make bench`'s capacity suite
            /// kept turns at p50 ~0.33 s with 15 a core on two cores (docs/benchmarks.md).
            public static let mostPerCore = 15

            /// The folder `make deps` fills (`.deps`): where Moonshine's folder is.
            public var depsPath: String {
                let parent = (moonshinePath as NSString).deletingLastPathComponent
                return parent.isEmpty ? "." : parent
            }

            /// How calls are admitted on `cores`: with a turn-latency goal, from `callsPerCore` a core
            /// (or `maxCalls`, when set: the operator's figure) up or down to what the turns allow, never
            /// over `maxCalls` (or `mostPerCore` a core); without one, `maxCalls` (or `callsPerCore` a core).
            public func admission(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> CallAdmission.Settings {
                let started = max(1, Int(Double(cores) * Self.callsPerCore))
                guard turnLatencyGoalMilliseconds > 0 else { return .fixed(maxCalls > 0 ? maxCalls : started) }
                let most = maxCalls > 0 ? maxCalls : cores * Self.mostPerCore
                return CallAdmission.Settings(most: most, start: maxCalls > 0 ? maxCalls : started, turnLatencyGoalMilliseconds: turnLatencyGoalMilliseconds)
            }
        }

        public struct OpenAI: Sendable, Equatable {
            public var apiKey: String?
            public var baseURL = "https://api.openai.com/v1"
            public var realtimeModel = "gpt-realtime"
            public var voice = "alloy"
            public var vadThreshold = 0.5
            public var prefixPaddingMs = 300
            public var silenceDurationMs = 500
        }

        public struct Cascade: Sendable, Equatable {
            public enum STT: String, Sendable, CaseIterable { case deepgram, openai }
            public var stt: STT = .deepgram
            public var llmBaseURL = "https://api.openai.com/v1"
            public var llmAPIKey: String?
            public var llmModel = "gpt-4o-mini"
            public var ttsModel = "gpt-4o-mini-tts"
            public var ttsVoice = "alloy"
            public var transcriptionModel = "gpt-4o-transcribe"
            /// Ask the LLM before Deepgram calls the turn over (see `CascadeEngine.Settings.earlyReplies`).
            public var earlyReplies = true
        }

        public struct Deepgram: Sendable, Equatable {
            public var apiKey: String?
            public var baseURL = "wss://api.deepgram.com/v1"
            public var model = "nova-3"
        }
    }
}
