import Foundation
import Logging
import Realtime
import Simulation

extension CallSystem {
    /// The callee outbound calls reach when there is no `sip.gateway`: it speaks in
    /// `sip.simulated_callee_voice`, and listens to the agent (confirms read-backs, repeats itself
    /// when asked again) with the local engine's recognizer — or, when the calls run on an AI
    /// elsewhere (`cascade`, `realtime`, `stream`), with Moonshine loaded for it if installed: the
    /// callee is the same partner whatever the agent. `echo` and `loopback` calls need no ear.
    static func simulatedCallee(_ config: VoiceBridgeConfig, rtpPorts: ClosedRange<Int>, recognizer: MoonshineTranscriber?,
                                logger: Logger) throws -> SimulatedCallee {
        var natural: PiperVoice?
        if config.sip.simulatedCalleeVoice == .piper {
            do { natural = try PiperVoice.installed(in: config.engine.local.depsPath) } catch {
                logger.warning("the simulated callee speaks with espeak-ng: \(error)")
            }
        }
        var ear = recognizer
        if ear == nil, [.cascade, .realtime, .stream].contains(config.engine.mode) {
            do { ear = try localRecognizer(config.engine.local) } catch {
                logger.warning("the simulated callee does not listen (make deps installs Moonshine): each agent utterance gets its next line",
                               metadata: ["error": "\(error)"])
            }
        }
        return try SimulatedCallee(host: "127.0.0.1", port: 0, rtpPorts: rtpPorts, tts: try EspeakSynthesizer(voice: "en-us"), natural: natural,
                                   hearing: ear.map(SimulatedCallee.hearing), logger: logger)
    }
}
