import Foundation
import Pipeline
import Realtime

extension CallSystem {
    /// `engine.turn_detection` for the local engine: Smart Turn from `make deps`'s folder (next to
    /// Moonshine). Asked for by name and missing, the server does not start; under `auto` the pause
    /// rule decides, with a line in the log.
    static func turnDetector(for engine: VoiceBridgeConfig.Engine) throws -> TurnDetector {
        guard engine.turns.detection != .pause else { return .pause }
        let deps = (engine.local.moonshinePath as NSString).deletingLastPathComponent
        do {
            return TurnDetector(model: try SmartTurnModel.installed(in: deps.isEmpty ? "." : deps), threshold: Float(engine.turns.threshold),
                                ceilingMilliseconds: engine.turns.ceilingMilliseconds)
        } catch {
            guard engine.turns.detection == .auto else { throw StartupError(description: "engine.turn_detection model: \(error)") }
            return .pause
        }
    }
}
