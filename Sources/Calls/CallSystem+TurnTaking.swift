import Foundation
import Logging
import Pipeline
import Realtime

extension CallSystem {
    /// `engine.turn_detection` for the local and cascade engines: Smart Turn from `make deps`'s
    /// folder (next to Moonshine). Asked for by name and missing, the server does not start;
    /// under `auto` it falls back to the pause rule with a warning; `pause` never loads it.
    static func turnDetector(for engine: VoiceBridgeConfig.Engine, logger: Logger) throws -> TurnDetector {
        guard engine.turns.detection != .pause else { return .pause }
        do {
            return TurnDetector(model: try SmartTurnModel.installed(in: engine.local.depsPath), threshold: Float(engine.turns.threshold),
                                ceilingMilliseconds: engine.turns.ceilingMilliseconds)
        } catch {
            guard engine.turns.detection == .auto else { throw StartupError(description: "engine.turn_detection model: \(error)") }
            logger.warning("the end-of-turn model is not installed (make deps); the pause rule decides", metadata: ["error": "\(error)"])
            return .pause
        }
    }
}
