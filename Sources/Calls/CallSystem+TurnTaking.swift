import Foundation
import Pipeline
import Realtime

extension CallSystem {
    /// `engine.turn_detection` for the local engine: Smart Turn from `make deps`'s folder (next to
    /// Moonshine) when asked for by name — missing, the server does not start; `auto` and `pause`
    /// take the pause rule.
    static func turnDetector(for engine: VoiceBridgeConfig.Engine) throws -> TurnDetector {
        guard engine.turns.detection == .model else { return .pause }
        let deps = (engine.local.moonshinePath as NSString).deletingLastPathComponent
        do {
            return TurnDetector(model: try SmartTurnModel.installed(in: deps.isEmpty ? "." : deps), threshold: Float(engine.turns.threshold),
                                ceilingMilliseconds: engine.turns.ceilingMilliseconds)
        } catch {
            throw StartupError(description: "engine.turn_detection model: \(error)")
        }
    }
}
